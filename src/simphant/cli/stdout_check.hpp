#pragma once
// The last step of every command that prints its results on stdout: a write that failed
// (a full disk, /dev/full) must not end in exit code 0 (README "Exit codes").
namespace simphant::cli {

/// Flushes stdout. When that, or any earlier write to stdout, failed, prints "error:
/// writing to stdout failed: <reason>" on stderr and returns 3 (run failed) unless `rc`
/// is already non-zero; otherwise returns rc.
int finish_stdout(int rc);

}  // namespace simphant::cli
