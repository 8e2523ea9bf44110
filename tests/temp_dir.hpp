#pragma once
// The scratch folder of a test binary: <system temp>/simphant_test_<name>_<pid>, created
// on first use, so that binaries running at once (ctest -j) never share files.
#include <unistd.h>

#include <filesystem>
#include <string>

namespace simphant::test {

/// Creates (if needed) and returns <temp>/simphant_test_<name>_<pid>.
inline std::filesystem::path make_process_temp_dir(const std::string& name) {
  std::filesystem::path d =
      std::filesystem::temp_directory_path() / ("simphant_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace simphant::test
