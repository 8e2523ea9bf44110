// How the example-robot-data robots folder is found without running a program
// (simphant/urdf/robot_data.hpp): the environment variable, the setting, the search of
// the usual site-packages folders.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include "simphant/urdf/robot_data.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path& temp_dir() {
  static const fs::path dir = simphant::test::make_process_temp_dir("robot_data");
  return dir;
}

/// Sets (or, with nullptr, unsets) an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

/// Makes <site>/cmeel.prefix/share/example-robot-data/robots and returns it.
std::string make_robots(const fs::path& site) {
  const fs::path robots = site / "cmeel.prefix/share/example-robot-data/robots";
  fs::create_directories(robots);
  return robots.string();
}

}  // namespace

TEST(RobotData, EnvironmentThenSettingThenSearch) {
  ScopedEnv env("SIMPHANT_ROBOT_DATA", "/from/the/environment");
  simphant::set_robot_data_dir("/from/the/setting");
  EXPECT_EQ(simphant::example_robot_data_dir(), "/from/the/environment");
  {
    ScopedEnv none("SIMPHANT_ROBOT_DATA", nullptr);
    EXPECT_EQ(simphant::example_robot_data_dir(), "/from/the/setting");
    simphant::set_robot_data_dir("");
    EXPECT_EQ(simphant::example_robot_data_dir(), simphant::find_robot_data_dir());
  }
}

TEST(RobotData, SearchesPythonPathVirtualEnvAndNewestPythonFirst) {
  const fs::path venv = temp_dir() / "venv";
  make_robots(venv / "lib/python3.9/site-packages");
  const std::string newest = make_robots(venv / "lib/python3.12/site-packages");  // 12 > 9, not "12" < "9"
  ScopedEnv python_path("PYTHONPATH", nullptr);
  ScopedEnv virtual_env("VIRTUAL_ENV", venv.c_str());
  EXPECT_EQ(simphant::find_robot_data_dir(), newest);
  const fs::path site = temp_dir() / "on_python_path";
  const std::string first = make_robots(site);
  const std::string entries = "/nonexistent-simphant-site:" + site.string();
  ScopedEnv python_path2("PYTHONPATH", entries.c_str());
  EXPECT_EQ(simphant::find_robot_data_dir(), first);
  const auto sites = simphant::robot_data_search_sites();
  ASSERT_GE(sites.size(), 2u);
  EXPECT_EQ(sites[0], "/nonexistent-simphant-site");
  EXPECT_EQ(sites[1], site.string());
}

TEST(RobotData, NothingFoundWhenNoSiteHoldsIt) {
  // Only folders without the package: every variable points at an empty folder.
  const fs::path empty = temp_dir() / "empty";
  fs::create_directories(empty);
  ScopedEnv python_path("PYTHONPATH", empty.c_str());
  ScopedEnv virtual_env("VIRTUAL_ENV", empty.c_str());
  ScopedEnv conda("CONDA_PREFIX", nullptr);
  ScopedEnv path("PATH", empty.c_str());
  ScopedEnv pyenv("PYENV_ROOT", empty.c_str());
  ScopedEnv home("HOME", empty.c_str());
  // /usr/local and /usr remain: the test machine must not have the package there.
  bool system_wide = false;
  for (const char* prefix : {"/usr/local/lib", "/usr/lib"}) {
    std::error_code ec;
    for (fs::directory_iterator it(prefix, ec), end; !ec && it != end; it.increment(ec))
      for (const char* site : {"site-packages", "dist-packages"})
        system_wide = system_wide || fs::exists(it->path() / site / "cmeel.prefix/share/example-robot-data/robots");
  }
  if (system_wide) GTEST_SKIP() << "example-robot-data is installed system-wide";
  EXPECT_EQ(simphant::find_robot_data_dir(), "");
}
