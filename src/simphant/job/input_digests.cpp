#include "simphant/job/input_digests.hpp"

#include <nlohmann/json.hpp>

#include "simphant/core/crc64.hpp"
#include "simphant/core/input_file.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant::job_detail {

namespace {

/// The CRC-64 of a file's bytes, or "missing" when it cannot be read.
std::string digest(const std::string& file) {
  try {
    return crc64_hex(read_input_file(file));
  } catch (const InputFileError&) {
    return "missing";
  }
}

}  // namespace

std::string input_digests(const std::vector<std::string>& files) {
  nlohmann::json list = nlohmann::json::array();
  for (const std::string& f : files) list.push_back({f, digest(f)});
  return list.dump();
}

void check_input_digests(const std::string& recorded, const std::vector<std::string>& files,
                         const std::string& source) {
  if (recorded.empty()) return;
  nlohmann::json list;
  try {
    list = nlohmann::json::parse(recorded);
  } catch (const nlohmann::json::exception& e) {
    throw SceneError("--resume", source + ": its record of the input files cannot be read: " + e.what());
  }
  std::vector<std::pair<std::string, std::string>> then;
  for (const nlohmann::json& e : list) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_string())
      throw SceneError("--resume", source + ": its record of the input files cannot be read (" + e.dump() + ")");
    then.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
  }
  for (const auto& [file, crc] : then) {
    bool named = false;
    for (const std::string& f : files) named = named || f == file;
    if (!named)
      throw SceneError("--resume", file + ": the run to resume read it (recorded in " + source +
                                       ") and the scene no longer names it; start a new run");
    const std::string now = digest(file);
    if (now != crc)
      throw SceneError("--resume", file + ": changed since the run to resume read it (CRC-64 now " + now +
                                       ", recorded in " + source + ": " + crc + "); restore it, or start a new run");
  }
  for (const std::string& f : files) {
    bool recorded_here = false;
    for (const auto& t : then) recorded_here = recorded_here || t.first == f;
    if (!recorded_here)
      throw SceneError("--resume", f + ": the scene names it now and the run to resume did not read it (" + source +
                                       "); start a new run");
  }
}

}  // namespace simphant::job_detail
