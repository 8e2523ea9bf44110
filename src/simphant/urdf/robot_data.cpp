#include "simphant/urdf/robot_data.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace simphant {

std::string example_robot_data_dir() {
  static std::once_flag once;
  static std::string dir;
  std::call_once(once, [] {
    if (const char* env = std::getenv("SIMPHANT_ROBOT_DATA")) {
      dir = env;
      return;
    }
    FILE* p = popen(
        "python3 -c \"import importlib.metadata as m; print(m.distribution('example-robot-data')"
        ".locate_file('cmeel.prefix/share/example-robot-data/robots'))\" 2>/dev/null",
        "r");
    if (p == nullptr) return;
    char buf[4096];
    std::string out;
    while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
    pclose(p);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    std::error_code ec;
    if (!out.empty() && std::filesystem::is_directory(out, ec)) dir = out;
  });
  return dir;
}

}  // namespace simphant
