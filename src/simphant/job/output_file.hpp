#pragma once
// The output file of a run, claimed before any work and written through a temporary
// file beside it (README "Output file"), so that an existing file is never truncated
// before the new run has finished with it and a second run cannot clobber the first:
//
//   target     out.h5                        replaced only when the run ends (rename(2))
//   lock       .out.h5.lock                  flock(2) held by the run writing out.h5; holds its pid
//   temporary  .out.h5.partial-<pid>         the file being written; left behind (recognisable)
//                                            only when the run is killed (SIGKILL) or cannot close it
//
//   OutputFile file("out.h5");            // throws OutputBusy when another run holds the lock
//   Recorder rec(file.temp_path(), ...);  // writes the temporary file
//   ...; rec.finalize(...);
//   file.commit();                        // rename onto out.h5, lock released
// Destroying an OutputFile that was not committed removes its temporary file and
// releases the lock; the target stays as it was.
#include <functional>
#include <stdexcept>
#include <string>

namespace simphant {

/// Another process holds the lock of the target; what() names the target, the lock file
/// and that process ("output out.h5: being written by another simphant run (pid 1234,
/// lock .out.h5.lock); wait for it or choose another --out").
class OutputBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class OutputFile {
 public:
  /// Takes the lock of `target` (created beside it, mode 0644). Throws OutputBusy when
  /// another process holds it, std::runtime_error("output <target>: <reason>") when the
  /// lock file cannot be created. Does not touch the target.
  explicit OutputFile(const std::string& target);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  const std::string& target() const { return target_; }
  /// ".<name>.partial-<pid>" in the target's folder.
  const std::string& temp_path() const { return temp_; }
  const std::string& lock_path() const { return lock_; }

  /// Puts the temporary file in place of the target durably (core/durable_file.hpp:
  /// fsync, rename, fsync of the folder), calls `after_rename` (still holding the lock:
  /// e.g. removing the run's checkpoint file) and releases the lock. Throws
  /// std::runtime_error("output <target>: fsync <temp>: <reason> ..." or "...: cannot
  /// rename <temp> onto <target>: <reason> ...") and then keeps the temporary file.
  void commit(const std::function<void()>& after_rename = {});
  /// Releases the lock and leaves the temporary file where it is (a file that could not
  /// be completed, kept for inspection). The target stays as it was.
  void keep_temporary();

 private:
  void release();
  std::string target_, temp_, lock_;
  int lock_fd_ = -1;
  bool done_ = false;
};

/// The temporary-file name of `target` for process `pid`: ".<name>.partial-<pid>" in the
/// same folder (README "Output file").
std::string partial_file_name(const std::string& target, long pid);

/// The file that writing `target` would write: its symbolic links followed one by one
/// (at most 40), also a last one whose target does not exist yet, then made absolute and
/// normal.
std::string resolve_output_links(const std::string& target);

}  // namespace simphant
