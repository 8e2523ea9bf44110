#include "simphant/urdf/robot_data.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

namespace simphant {

namespace fs = std::filesystem;

namespace {

constexpr const char* kRobotsUnderSite = "cmeel.prefix/share/example-robot-data/robots";

std::mutex g_mutex;
std::string g_setting;  ///< set_robot_data_dir()

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::vector<std::string> split_paths(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(':', start), list.size());
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

/// The minor version of a "python3.<minor>" folder name, or -1.
int python3_minor(const std::string& name) {
  if (name.rfind("python3.", 0) != 0 || name.size() <= 8) return -1;
  int minor = 0;
  for (std::size_t k = 8; k < name.size(); ++k) {
    if (name[k] < '0' || name[k] > '9') return -1;
    minor = 10 * minor + (name[k] - '0');
  }
  return minor;
}

/// The site-packages folders of an installation prefix: lib/python3.*/site-packages
/// and .../dist-packages (newest first), then lib/python3/dist-packages.
void add_prefix_sites(const fs::path& prefix, std::vector<std::string>& sites) {
  std::error_code ec;
  std::vector<std::pair<int, fs::path>> versions;
  for (fs::directory_iterator it(prefix / "lib", ec), end; !ec && it != end; it.increment(ec)) {
    const int minor = python3_minor(it->path().filename().string());
    if (minor >= 0) versions.emplace_back(minor, it->path());
  }
  std::sort(versions.begin(), versions.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& v : versions) {
    sites.push_back((v.second / "site-packages").string());
    sites.push_back((v.second / "dist-packages").string());
  }
  sites.push_back((prefix / "lib/python3/dist-packages").string());
}

/// pyenv's interpreters: $PYENV_VERSION (':'-separated), then the global version file,
/// then every installed version.
void add_pyenv_sites(std::vector<std::string>& sites) {
  std::string root = env("PYENV_ROOT");
  if (root.empty() && !env("HOME").empty()) root = env("HOME") + "/.pyenv";
  if (root.empty()) return;
  const fs::path versions_dir = fs::path(root) / "versions";
  std::error_code ec;
  if (!fs::is_directory(versions_dir, ec)) return;
  std::vector<std::string> names = split_paths(env("PYENV_VERSION"));
  std::ifstream version_file(fs::path(root) / "version");
  for (std::string line; std::getline(version_file, line);)
    if (!line.empty() && line[0] != '#') names.push_back(line);
  std::vector<std::string> all;
  for (fs::directory_iterator it(versions_dir, ec), end; !ec && it != end; it.increment(ec))
    all.push_back(it->path().filename().string());
  std::sort(all.rbegin(), all.rend());
  names.insert(names.end(), all.begin(), all.end());
  for (const std::string& name : names) add_prefix_sites(versions_dir / name, sites);
}

}  // namespace

std::vector<std::string> robot_data_search_sites() {
  std::vector<std::string> sites = split_paths(env("PYTHONPATH"));
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (!env(var).empty()) add_prefix_sites(env(var), sites);
  std::error_code ec;
  for (const std::string& dir : split_paths(env("PATH")))
    if (fs::exists(fs::path(dir) / "python3", ec)) add_prefix_sites(fs::path(dir).parent_path(), sites);
  add_pyenv_sites(sites);
  if (!env("HOME").empty()) add_prefix_sites(fs::path(env("HOME")) / ".local", sites);
  add_prefix_sites("/usr/local", sites);
  add_prefix_sites("/usr", sites);
  // Keep the first of repeated entries.
  std::vector<std::string> unique;
  for (const std::string& s : sites)
    if (std::find(unique.begin(), unique.end(), s) == unique.end()) unique.push_back(s);
  return unique;
}

std::string find_robot_data_dir() {
  std::error_code ec;
  for (const std::string& site : robot_data_search_sites()) {
    const fs::path robots = fs::path(site) / kRobotsUnderSite;
    if (fs::is_directory(robots, ec)) return robots.string();
  }
  return "";
}

void set_robot_data_dir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_setting = dir;
}

std::string example_robot_data_dir() {
  const std::string from_env = env("SIMPHANT_ROBOT_DATA");
  if (!from_env.empty()) return from_env;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_setting.empty()) return g_setting;
  }
  static const std::string found = find_robot_data_dir();
  return found;
}

}  // namespace simphant
