#pragma once
// The scratch folder of a test binary: <system temp>/simphant_test_<name>_<pid>, created
// on first use, so that binaries running at once (ctest -j) never share files. A folder
// of that name left by an earlier process with the same pid (pids are reused over the
// thousands of test processes of a run) is emptied on this process's first use, so that
// no test finds another's files.
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <set>
#include <string>

namespace simphant::test {

/// Creates (if needed) and returns <temp>/simphant_test_<name>_<pid>, empty at this
/// process's first call for `name`.
inline std::filesystem::path make_process_temp_dir(const std::string& name) {
  static std::mutex mutex;
  static std::set<std::string> made;  // the names this process has made
  std::filesystem::path d =
      std::filesystem::temp_directory_path() / ("simphant_test_" + name + "_" + std::to_string(::getpid()));
  const std::lock_guard<std::mutex> lock(mutex);
  if (made.insert(name).second) std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace simphant::test
