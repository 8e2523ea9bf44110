#pragma once
// Files written so that a crash leaves either the old one or the whole new one: the
// output of a run (job/output_file.hpp) and its checkpoints (job/checkpoint.hpp) are
// written to a temporary file beside their name and put in place by durable_replace.
#include <string>

namespace simphant {

/// Copies `from` to `to` (created or truncated, mode 0644): a reflink where the file
/// system shares extents (FICLONE: btrfs, xfs), else copy_file_range(2), else read and
/// write. fsync when `durable`. Throws std::runtime_error naming the file and errno.
void copy_file(const std::string& from, const std::string& to, bool durable);

/// Puts the file `temp` in place of `target` durably: fsync(temp) (its data on disk
/// before its name), rename(temp, target), then fsync of target's folder (the rename
/// itself; a file system that cannot fsync a folder is no reason to fail). Throws
/// std::runtime_error "fsync <temp>: <reason>" or "cannot rename <temp> onto <target>:
/// <reason>"; target is then as it was and temp stays.
void durable_replace(const std::string& temp, const std::string& target);

}  // namespace simphant
