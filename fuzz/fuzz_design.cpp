// libFuzzer target: bytes -> a sweep design file (CSV or NPY, docs/scene-format.md,
// "Design files") -> read_design_file, with three column paths for an NPY file. Bad
// input must end in SceneError; any other exception, a crash, a sanitizer report or a
// leak is a finding.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "simphant/scene/sweep_detail.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace simphant;
  static const std::string file =
      (std::filesystem::temp_directory_path() / ("simphant_fuzz_design_" + std::to_string(::getpid()))).string();
  {
    std::ofstream f(file, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  static const nlohmann::json columns = {"bodies.a.mass", "gravity[2]", "bodies.b.position[0]"};
  const bool npy = size >= 6 && std::string(reinterpret_cast<const char*>(data), 6) == "\x93NUMPY";
  try {
    scene_detail::read_design_file(file, "/sweep/file", npy ? &columns : nullptr, "/sweep/columns");
  } catch (const SceneError&) {
  }
  return 0;
}
