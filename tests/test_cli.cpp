// The simphant executable end to end: exit codes 0 / 2 / 3, `check --json`, the HDF5
// output of `run`, and a run stopped by SIGTERM leaving a valid file.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

#include "temp_dir.hpp"
#include "process_support.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/sim/bdf_support.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include <hdf5.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path& temp_dir() {
  static const fs::path dir = simphant::test::make_process_temp_dir("cli");
  return dir;
}

/// A one-body pendulum on a revolute hinge, with a mass sweep.
json pendulum(double t_end = 0.1, int record_every = 10) {
  return json::parse(R"({
    "name": "test pendulum",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "mass": 1.0, "inertia": [0.001, 0.02, 0.02], "position": [0.5, 0, 0]}],
    "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "bob",
                "frame": {"origin": [0, 0, 0], "z": [0, 1, 0], "x": [1, 0, 0]}}],
    "solver": {"dt": 0.001, "t_end": 0.1, "record_every": 10},
    "sweep": {"mode": "random", "instances": 2, "seed": 7,
              "parameters": [{"path": "bodies.bob.mass", "dist": "uniform", "low": 0.9, "high": 1.1}]}
  })")
      .patch(json::array({{{"op", "replace"}, {"path", "/solver/t_end"}, {"value", t_end}},
                          {{"op", "replace"}, {"path", "/solver/record_every"}, {"value", record_every}}}));
}

/// Two spherical joints whose anchors cannot both be met: assembly fails.
json impossible() {
  return json::parse(R"({
    "name": "impossible",
    "bodies": [{"name": "bar", "mass": 1.0, "inertia": [0.01, 0.1, 0.1], "position": [0, 0, 0]}],
    "joints": [
      {"name": "a", "type": "spherical", "body_i": "ground", "body_j": "bar",
       "frame_i": {"origin": [0, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]},
       "frame_j": {"origin": [-0.5, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]}},
      {"name": "b", "type": "spherical", "body_i": "ground", "body_j": "bar",
       "frame_i": {"origin": [3, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]},
       "frame_j": {"origin": [0.5, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]}}],
    "solver": {"dt": 0.001, "t_end": 0.01}
  })");
}

std::string write_scene(const std::string& name, const std::string& text) {
  const fs::path p = temp_dir() / name;
  std::ofstream(p) << text;
  return p.string();
}
std::string write_scene(const std::string& name, const json& doc) { return write_scene(name, doc.dump(2)); }

std::string quote(const std::string& s) { return "'" + s + "'"; }

/// Runs `simphant ARGS` through the shell; stdout to `out` (if given), stderr to a file.
int run_simphant(const std::string& args, std::string* out = nullptr) {
  const fs::path out_file = temp_dir() / "stdout.txt", err_file = temp_dir() / "stderr.txt";
  const std::string cmd = quote(SIMPHANT_BINARY) + " " + args + " >" + quote(out_file.string()) + " 2>" +
                          quote(err_file.string());
  const int rc = std::system(cmd.c_str());
  if (out != nullptr) {
    std::ifstream in(out_file);
    out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/// What the last run_simphant() call printed on stderr.
std::string last_stderr() {
  std::ifstream in(temp_dir() / "stderr.txt");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Shape of a dataset, read with the HDF5 C API; empty if it cannot be read.
std::vector<hsize_t> dims_of(hid_t file, const char* name) {
  std::vector<hsize_t> dims;
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  if (d < 0) return dims;
  hid_t s = H5Dget_space(d);
  const int rank = H5Sget_simple_extent_ndims(s);
  if (rank > 0) {
    dims.resize(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(s, dims.data(), nullptr);
  }
  H5Sclose(s);
  H5Dclose(d);
  return dims;
}

double attr_of(hid_t file, const char* name) {
  double v = -1;
  hid_t a = H5Aopen(file, name, H5P_DEFAULT);
  if (a < 0) return v;
  H5Aread(a, H5T_NATIVE_DOUBLE, &v);
  H5Aclose(a);
  return v;
}

std::vector<double> doubles_of(hid_t file, const char* name) {
  const auto dims = dims_of(file, name);
  std::size_t n = dims.empty() ? 0 : 1;
  for (hsize_t d : dims) n *= d;
  std::vector<double> v(n);
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  if (d >= 0 && n > 0) H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  if (d >= 0) H5Dclose(d);
  return v;
}

}  // namespace

TEST(Cli, RunWritesTheOutputLayout) {
  const std::string scene = write_scene("run.json", pendulum(0.1, 10));
  const std::string out = (temp_dir() / "run.h5").string();
  std::string stdout_text;
  ASSERT_EQ(run_simphant("run " + quote(scene) + " --instances 3 --seed 5 --threads 1 --backend cpu --out " + quote(out),
                     &stdout_text),
            0);
  EXPECT_NE(stdout_text.find("instance-steps/s"), std::string::npos) << stdout_text;
  EXPECT_NE(stdout_text.find("ok 3"), std::string::npos) << stdout_text;

  hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  // 100 steps recorded every 10: frames at 0, 10, ..., 100.
  EXPECT_EQ(dims_of(f, "time"), (std::vector<hsize_t>{11}));
  EXPECT_EQ(dims_of(f, "state"), (std::vector<hsize_t>{11, 3, 1, 13}));
  EXPECT_EQ(dims_of(f, "reactions"), (std::vector<hsize_t>{11, 3, 1, 6}));
  EXPECT_EQ(dims_of(f, "constraint_violation"), (std::vector<hsize_t>{11, 3}));
  EXPECT_EQ(dims_of(f, "energy"), (std::vector<hsize_t>{11, 3}));
  EXPECT_EQ(dims_of(f, "status"), (std::vector<hsize_t>{3}));
  EXPECT_EQ(dims_of(f, "status_time"), (std::vector<hsize_t>{3}));
  EXPECT_EQ(dims_of(f, "params/bodies.bob.mass"), (std::vector<hsize_t>{3}));
  for (const char* d : {"assembly/position_residual", "assembly/velocity_residual", "assembly/iterations"})
    EXPECT_EQ(dims_of(f, d), (std::vector<hsize_t>{3})) << d;
  for (double r : doubles_of(f, "assembly/position_residual")) EXPECT_LE(r, 1e-10);  // assembly_tolerance
  const auto time = doubles_of(f, "time");
  EXPECT_NEAR(time.back(), 0.1, 1e-12);
  for (double s : doubles_of(f, "status")) EXPECT_EQ(s, 0.0);
  for (double m : doubles_of(f, "params/bodies.bob.mass")) {
    EXPECT_GE(m, 0.9);
    EXPECT_LE(m, 1.1);
  }
  EXPECT_DOUBLE_EQ(attr_of(f, "seed"), 5.0);
  EXPECT_DOUBLE_EQ(attr_of(f, "interrupted"), 0.0);
  EXPECT_EQ(simphant::h5::read_attr_string(f, "stop_reason"), "completed");
  EXPECT_GT(attr_of(f, "wall_time_s"), 0.0);
  for (const char* a : {"scene", "dt", "t_end", "baumgarte_alpha", "baumgarte_beta", "tikhonov_epsilon",
                        "record_every", "backend", "version", "body_names", "joint_names"})
    EXPECT_GT(H5Aexists(f, a), 0) << a;
  H5Fclose(f);
}

TEST(Cli, FlagsOverrideTheScene) {
  const std::string scene = write_scene("override.json", pendulum(0.1, 10));
  const std::string out = (temp_dir() / "override.h5").string();
  ASSERT_EQ(run_simphant("run " + quote(scene) + " --dt 0.002 --t-end 0.2 --projection velocity --out " + quote(out)), 0);
  hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  // 100 steps of 2 ms recorded every 10; sweep.instances = 2.
  EXPECT_EQ(dims_of(f, "state"), (std::vector<hsize_t>{11, 2, 1, 13}));
  EXPECT_DOUBLE_EQ(attr_of(f, "dt"), 0.002);
  EXPECT_DOUBLE_EQ(attr_of(f, "t_end"), 0.2);
  EXPECT_EQ(simphant::h5::read_attr_string(f, "projection"), "velocity");
  H5Fclose(f);
}

TEST(Cli, DefaultOutputIsTheSceneStemInTheCurrentDirectory) {
  const fs::path dir = temp_dir() / "cwd";
  fs::create_directories(dir);
  const std::string scene = write_scene("stem_scene.json", pendulum(0.02, 5));
  const std::string cmd = "cd " + quote(dir.string()) + " && " + quote(SIMPHANT_BINARY) + " run " + quote(scene) +
                          " >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 0);
  EXPECT_TRUE(fs::exists(dir / "stem_scene.h5"));
}

TEST(Cli, BadInputExits2) {
  json bad = pendulum();
  bad["bodies"][0]["mass"] = -1.0;
  EXPECT_EQ(run_simphant("run " + quote(write_scene("bad_mass.json", bad))), 2);
  EXPECT_EQ(run_simphant("check " + quote(write_scene("bad_mass.json", bad))), 2);
  EXPECT_EQ(run_simphant("check " + quote(write_scene("bad_syntax.json", std::string("{ \"bodies\": [")))), 2);
  EXPECT_EQ(run_simphant("run " + quote((temp_dir() / "no_such_scene.json").string())), 2);
  const std::string good = quote(write_scene("good.json", pendulum()));
  EXPECT_EQ(run_simphant("run " + good + " --bogus-flag"), 2);
  EXPECT_EQ(run_simphant("run " + good + " --backend gpu"), 2);
  EXPECT_EQ(run_simphant("run " + good + " --backend cpu --precision fp32"), 2);
  EXPECT_EQ(run_simphant("run " + good + " --precision fp16"), 2);
  EXPECT_EQ(run_simphant("run " + good + " --out ''"), 2);  // an empty output name
  EXPECT_EQ(run_simphant("run " + good + " --solver aba"), 2);  // not a robot scene
  EXPECT_NE(last_stderr().find("--solver"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("run " + good + " --projection positions"), 2);
  EXPECT_NE(last_stderr().find("--projection"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("run " + good + " --instances 0"), 2);
  EXPECT_EQ(run_simphant("run " + good + " --dt -1"), 2);
  EXPECT_EQ(run_simphant(""), 2);  // no subcommand
  EXPECT_EQ(run_simphant("--help"), 0);
}

// A misspelt subcommand or long option exits 2 with the nearest name; a word near none
// gets no guess; the pass-through subcommands' arguments are not looked into.
TEST(Cli, TypoGetsTheNearestName) {
  const std::string good = quote(write_scene("typo.json", pendulum()));
  EXPECT_EQ(run_simphant("rnu " + good), 2);
  EXPECT_NE(last_stderr().find("'rnu' is not a subcommand; did you mean 'run'?"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("--log-level warn chek " + good), 2);
  EXPECT_NE(last_stderr().find("did you mean 'check'?"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("run " + good + " --instnaces 4"), 2);
  EXPECT_NE(last_stderr().find("'--instnaces' is not an option of 'run'; did you mean '--instances'?"),
            std::string::npos)
      << last_stderr();
  EXPECT_EQ(run_simphant("run " + good + " --out x.h5 --backnd=cpu"), 2);
  EXPECT_NE(last_stderr().find("did you mean '--backend'?"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("frobnicate " + good), 2);
  EXPECT_EQ(last_stderr().find("did you mean"), std::string::npos) << last_stderr();
}

// Bad integrator settings exit 2 naming the flag or the JSON path (docs/scene-format.md,
// "Solver"; docs/solver.md, "Integrators"), before any output is written.
TEST(Cli, BadIntegratorSettingsExit2NamingTheField) {
  const std::string good = quote(write_scene("integ_good.json", pendulum()));
  const std::string out = (temp_dir() / "integ_bad.h5").string();
  fs::remove(out);
  const auto flag = [&](const std::string& args, const std::string& field) {
    EXPECT_EQ(run_simphant("run " + good + " --backend cpu --out " + quote(out) + " " + args), 2) << args;
    EXPECT_NE(last_stderr().find(field), std::string::npos) << args << ": " << last_stderr();
  };
  flag("--integrator leapfrog", "--integrator");
  flag("--rtol 0", "--rtol");
  flag("--rtol -1e-6", "--rtol");
  flag("--rtol nan", "--rtol");
  flag("--atol -1", "--atol");
  flag("--integrator dopri5 --error-estimate", "--error-estimate");
  flag("--integrator bdf --error-estimate", "--error-estimate");
  // bdf on a GPU backend: refused as bad input before any device check.
  EXPECT_EQ(run_simphant("run " + good + " --integrator bdf --backend cuda --out " + quote(out)), 2);
  EXPECT_NE(last_stderr().find("--backend"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("run " + good + " --integrator bdf --backend cuda-fused --out " + quote(out)), 2);
  // The adaptive integrators on cpu-simd (fixed steps only), by flag and by the scene's field.
  EXPECT_EQ(run_simphant("run " + good + " --integrator dopri5 --backend cpu-simd --out " + quote(out)), 2);
  EXPECT_NE(last_stderr().find("--backend"), std::string::npos) << last_stderr();
  const auto scene = [&](const json& solver_patch, const std::string& field, const std::string& extra = "") {
    json doc = pendulum();
    doc["solver"].update(solver_patch);
    const std::string f = quote(write_scene("integ_bad.json", doc));
    EXPECT_EQ(run_simphant("run " + f + " --out " + quote(out) + " " + extra), 2) << solver_patch.dump();
    EXPECT_NE(last_stderr().find(field), std::string::npos) << solver_patch.dump() << ": " << last_stderr();
    if (extra.empty()) {
      EXPECT_EQ(run_simphant("check " + f), 2) << solver_patch.dump();
    }
  };
  scene({{"integrator", "rk5"}}, "/solver/integrator");
  scene({{"integrator", 4}}, "/solver/integrator");
  scene({{"rtol", 0.0}}, "/solver/rtol");
  scene({{"rtol", -1.0}}, "/solver/rtol");
  scene({{"atol", -1e-9}}, "/solver/atol");
  scene({{"min_step", 0.002}}, "/solver/min_step");  // dt = 0.001
  scene({{"max_step", -1.0}}, "/solver/max_step");
  scene({{"first_step", -1.0}}, "/solver/first_step");
  scene({{"rtol", 1e-300}}, "/solver/rtol");                                // below 10 eps
  scene({{"integrator", "dopri5"}, {"first_step", 1e-20}}, "/solver/first_step");  // below 16 eps dt
  scene({{"integrator", "dopri5"}, {"min_step", 1e-5}, {"first_step", 1e-6}}, "/solver/first_step");
  scene({{"error_estimate", "yes"}}, "/solver/error_estimate");
  scene({{"integrator", "dopri5"}, {"error_estimate", true}}, "/solver/error_estimate");
  scene({{"integrator", "dopri5"}}, "--error-estimate", "--error-estimate");
  scene({{"integrator", "bdf"}}, "--backend", "--backend cuda");
  scene({{"integrator", "dopri5"}}, "--backend: cpu-simd runs the fixed-step integrators (rk4, euler, symplectic_euler); integrator dopri5 runs on the cpu backend", "--backend cpu-simd");
  // --dt patched into the scene re-validates min_step against the new dt.
  scene({{"min_step", 5e-4}}, "/solver/min_step", "--dt 1e-4");
  EXPECT_FALSE(fs::exists(out));
}

// The fixed-step integrators run from the flag and the scene key, and differ from RK4.
TEST(Cli, IntegratorFlagSelectsTheMethod) {
  const std::string scene = write_scene("integ_run.json", pendulum(0.1, 10));
  std::vector<double> last;
  for (const char* integ : {"rk4", "euler", "symplectic_euler"}) {
    const std::string out = (temp_dir() / (std::string("integ_") + integ + ".h5")).string();
    ASSERT_EQ(run_simphant("run " + quote(scene) + " --backend cpu --integrator " + integ + " --out " + quote(out)), 0)
        << last_stderr();
    hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    const std::vector<double> state = doubles_of(f, "state");
    H5Fclose(f);
    ASSERT_FALSE(state.empty());
    EXPECT_NE(state, last) << integ;  // another method, another trajectory
    last = state;
  }
}

// `simphant report`: the checks made before Python starts (the report itself: tests/python/test_report.py).
TEST(Cli, ReportBadInputAndMissingPython) {
  EXPECT_EQ(run_simphant("report"), 2);  // no results file
  EXPECT_NE(last_stderr().find("results"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("report run.h5 --quantity torques"), 2);
  EXPECT_NE(last_stderr().find("--quantity"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("report run.h5 -o ''"), 2);
  const fs::path missing = temp_dir() / "no-such-python";
  ASSERT_EQ(setenv("SIMPHANT_PYTHON", missing.c_str(), 1), 0);
  const int rc = run_simphant("report run.h5");
  unsetenv("SIMPHANT_PYTHON");
  EXPECT_EQ(rc, 3);
  EXPECT_NE(last_stderr().find("cannot start the Python interpreter"), std::string::npos) << last_stderr();
  EXPECT_NE(last_stderr().find("SIMPHANT_PYTHON"), std::string::npos) << last_stderr();
}

TEST(Cli, RunFailuresExit3) {
  const std::string good = quote(write_scene("good3.json", pendulum()));
  if (simphant::cuda_device_count() == 0) {  // CI: no GPU; a clear message, no output file
    const fs::path out = temp_dir() / "no_gpu.h5";
    EXPECT_EQ(run_simphant("run " + good + " --backend cuda --out " + quote(out.string())), 3);
    EXPECT_NE(last_stderr().find(simphant::cuda_backend_built() ? "no CUDA device" : "no CUDA support"), std::string::npos)
        << last_stderr();
    EXPECT_EQ(run_simphant("run " + good + " --backend cuda --precision fp32 --out " + quote(out.string())), 3);
    EXPECT_EQ(run_simphant("run " + good + " --backend cuda-fused --out " + quote(out.string())), 3);
    EXPECT_NE(last_stderr().find(simphant::cuda_backend_built() ? "no CUDA device" : "no CUDA support"), std::string::npos)
        << last_stderr();
    EXPECT_FALSE(fs::exists(out));
  }
  EXPECT_EQ(run_simphant("run " + good + " --out /nonexistent-simphant-dir/out.h5"), 3);
  EXPECT_EQ(run_simphant("run " + good + " --out /dev/null"), 3);  // not a regular file: refused, no crash
  EXPECT_NE(last_stderr().find("not a regular file"), std::string::npos) << last_stderr();
  const std::string bad = quote(write_scene("impossible.json", impossible()));
  EXPECT_EQ(run_simphant("run " + bad + " --out " + quote((temp_dir() / "impossible.h5").string())), 3);
  EXPECT_EQ(run_simphant("check " + bad), 3);
}

// Same scene and seed: bit-identical datasets for --threads 1 and 2 (7 differing
// instances of the four-bar, not a multiple of the thread count).
TEST(Cli, OutputIsBitIdenticalForAnyThreadCount) {
  const std::string scene = quote(std::string(SIMPHANT_SOURCE_DIR) + "/examples/four_bar.json");
  std::vector<std::vector<double>> data[2];
  for (int t = 0; t < 2; ++t) {
    const std::string out = (temp_dir() / ("threads" + std::to_string(t + 1) + ".h5")).string();
    ASSERT_EQ(run_simphant("run " + scene + " --instances 7 --t-end 0.05 --seed 3 --threads " + std::to_string(t + 1) +
                       " --out " + quote(out)),
              0);
    hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    for (const char* name : {"/time", "/state", "/reactions", "/constraint_violation", "/energy", "/status_time",
                             "/params/bodies.coupler.mass"})
      data[t].push_back(doubles_of(f, name));
    H5Fclose(f);
  }
  for (std::size_t k = 0; k < data[0].size(); ++k) {
    ASSERT_FALSE(data[0][k].empty()) << "dataset " << k;
    ASSERT_EQ(data[0][k].size(), data[1][k].size());
    EXPECT_EQ(std::memcmp(data[0][k].data(), data[1][k].data(), data[0][k].size() * sizeof(double)), 0)
        << "dataset " << k;
  }
}

// Flags and outputs that cannot work are refused before any work, naming the reason.
TEST(Cli, RefusesBadFlagsAndOutputsBeforeAnyWork) {
  const std::string scene = write_scene("refuse.json", pendulum());
  const std::string good = quote(scene);
  EXPECT_EQ(run_simphant("run " + good + " --dt nan"), 2);
  EXPECT_NE(last_stderr().find("--dt"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("run " + good + " --t-end inf"), 2);
  EXPECT_EQ(run_simphant("run " + good + " --seed -1"), 2);
  EXPECT_NE(last_stderr().find("--seed"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("run " + good + " --instances 1000000000"), 3);  // ~1 TB: more than any test machine
  EXPECT_NE(last_stderr().find("use fewer instances"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("run " + good + " --out " + quote((temp_dir() / "no_such_dir" / "o.h5").string())), 3);
  EXPECT_NE(last_stderr().find("does not exist"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("run " + good + " --out " + quote(temp_dir().string())), 3);
  EXPECT_NE(last_stderr().find("is a folder"), std::string::npos) << last_stderr();
  const std::string before = pendulum().dump(2);
  EXPECT_EQ(run_simphant("run " + good + " --out " + good), 2);  // an input of the run: bad input
  EXPECT_NE(last_stderr().find("is an input of the run"), std::string::npos) << last_stderr();
  std::ifstream in(scene);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), before);
}

// check compiles every instance of the sweep: a sampled negative mass is bad input.
TEST(Cli, CheckValidatesEverySweptInstance) {
  json doc = pendulum();
  doc["sweep"]["instances"] = 50;
  doc["sweep"]["parameters"][0] = json{{"path", "bodies.bob.mass"}, {"dist", "normal"}, {"mean", 0.1}, {"std", 1.0}};
  EXPECT_EQ(run_simphant("check " + quote(write_scene("neg_mass_sweep.json", doc))), 2);
  EXPECT_NE(last_stderr().find("/bodies/0/mass"), std::string::npos) << last_stderr();
  EXPECT_NE(last_stderr().find("instance"), std::string::npos) << last_stderr();
}

// The relative eps treats a 1e5 kg bob (C's diagonal ~1e-5) like a light one: no
// warning at the default. eps = 0.1 without refinement leaves the plain regularised
// solve's error eps / (1 + eps) = 9 % in the constraint accelerations: a warning.
TEST(Cli, CheckWarnsWhenTikhonovEpsilonIsLarge) {
  EXPECT_EQ(run_simphant("check " + quote(write_scene("light.json", pendulum()))), 0);
  EXPECT_EQ(last_stderr().find("tikhonov_epsilon"), std::string::npos) << last_stderr();
  json heavy = pendulum();
  heavy.erase("sweep");
  heavy["bodies"][0]["mass"] = 1e5;
  heavy["bodies"][0]["inertia"] = {100.0, 2000.0, 2000.0};
  EXPECT_EQ(run_simphant("check " + quote(write_scene("heavy.json", heavy))), 0);
  EXPECT_EQ(last_stderr().find("tikhonov_epsilon"), std::string::npos) << last_stderr();
  heavy["solver"]["tikhonov_epsilon"] = 0.1;
  heavy["solver"]["refinement_steps"] = 0;
  const std::string heavy_scene = quote(write_scene("heavy_eps.json", heavy));
  EXPECT_EQ(run_simphant("check " + heavy_scene), 0);
  EXPECT_NE(last_stderr().find("warning: tikhonov_epsilon"), std::string::npos) << last_stderr();
  // The warning is a log message: --log-level error silences it; --json lists it.
  EXPECT_EQ(run_simphant("check " + heavy_scene + " --log-level error"), 0);
  EXPECT_EQ(last_stderr().find("tikhonov_epsilon"), std::string::npos) << last_stderr();
  std::string out;
  ASSERT_EQ(run_simphant("check --json " + heavy_scene, &out), 0);
  const json j = json::parse(out);
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_NE(j["warnings"][0].get<std::string>().find("tikhonov_epsilon"), std::string::npos);
}

TEST(Cli, CheckJson) {
  std::string out;
  ASSERT_EQ(run_simphant("check --json " + quote(write_scene("check.json", pendulum())), &out), 0);
  const json j = json::parse(out);
  ASSERT_TRUE(j.is_object());
  for (const char* key : {"bodies", "joints", "constraint_rows", "rank", "dof", "redundant_rows", "assembly_residual"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["bodies"], json::array({"bob"}));
  ASSERT_EQ(j["joints"].size(), 1u);
  EXPECT_EQ(j["joints"][0]["name"], "hinge");
  EXPECT_EQ(j["joints"][0]["type"], "revolute");
  EXPECT_EQ(j["joints"][0]["rows"], 5);
  EXPECT_EQ(j["constraint_rows"], 5);
  EXPECT_EQ(j["rank"], 5);
  EXPECT_EQ(j["dof"], 1);
  EXPECT_TRUE(j["redundant_rows"].is_array());
  EXPECT_TRUE(j["redundant_rows"].empty());
  EXPECT_LT(j["assembly_residual"].get<double>(), 1e-9);

  // The failed assembly still prints the JSON object (and exits 3).
  ASSERT_EQ(run_simphant("check --json " + quote(write_scene("check_bad.json", impossible())), &out), 3);
  const json k = json::parse(out);
  EXPECT_EQ(k["constraint_rows"], 6);
  EXPECT_GT(k["assembly_residual"].get<double>(), 1e-3);
}

TEST(Cli, CheckTable) {
  std::string out;
  ASSERT_EQ(run_simphant("check " + quote(write_scene("table.json", pendulum())), &out), 0);
  EXPECT_NE(out.find("hinge"), std::string::npos) << out;
  EXPECT_NE(out.find("degrees of freedom"), std::string::npos) << out;
}

TEST(Cli, SigtermLeavesAValidFile) {
  // A run of 10 s simulated (10000 steps), stopped by SIGTERM while the job runner holds
  // it at step 2000 (SIMPHANT_TEST_HOLD, docs/reliability.md "Test hooks").
  const std::string scene = write_scene("long.json", pendulum(10.0, 10));
  const fs::path out = temp_dir() / "long.h5";
  fs::remove(out);
  const std::string out_s = out.string();
  const simphant::test::Hold hold("step=2000", temp_dir() / "long.gate");
  const simphant::test::Child c =
      simphant::test::start_simphant({"run", scene, "--out", out_s, "--threads", "1"}, "/dev/null",
                                     temp_dir() / "long.err", {}, hold.env());
  const pid_t pid = c.pid;
  ASSERT_GE(pid, 0);
  ASSERT_TRUE(hold.wait(&c)) << simphant::test::read_text(c.err_file);
  // The run writes a temporary file beside the output until it ends (README "Output file").
  const fs::path partial = out.parent_path() / (".long.h5.partial-" + std::to_string(pid));
  EXPECT_TRUE(fs::exists(partial));
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFEXITED(wstatus)) << "killed by signal " << WTERMSIG(wstatus);
  EXPECT_EQ(WEXITSTATUS(wstatus), 128 + SIGTERM);

  hid_t f = H5Fopen(out_s.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const auto t = dims_of(f, "time"), s = dims_of(f, "state");
  ASSERT_EQ(t.size(), 1u);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_GE(t[0], 1u);
  EXPECT_EQ(t[0], s[0]);
  EXPECT_EQ(dims_of(f, "energy")[0], t[0]);
  EXPECT_EQ(dims_of(f, "constraint_violation")[0], t[0]);
  EXPECT_EQ(dims_of(f, "reactions")[0], t[0]);
  EXPECT_DOUBLE_EQ(attr_of(f, "interrupted"), 1.0);
  EXPECT_EQ(simphant::h5::read_attr_string(f, "stop_reason"), "signal SIGTERM");
  const auto time = doubles_of(f, "time");
  for (std::size_t k = 1; k < time.size(); ++k) EXPECT_GT(time[k], time[k - 1]);
  EXPECT_EQ(t[0], 201u);  // frame 0, then one every 10 steps up to step 2000
  EXPECT_NEAR(time.back(), 2.0, 1e-9);
  H5Fclose(f);
  EXPECT_FALSE(fs::exists(partial));
}

namespace {

/// The lines of `text` that match `pattern`.
std::vector<std::string> matching_lines(const std::string& text, const std::regex& pattern) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, pattern)) lines.push_back(line);
  return lines;
}

}  // namespace

// `run --json`: one JSON object on stdout, and its figures are those of the HDF5 file.
TEST(Cli, RunJsonAgreesWithTheFile) {
  const std::string scene = write_scene("run_json.json", pendulum(0.1, 10));
  const std::string out = (temp_dir() / "run_json.h5").string();
  std::string text;
  ASSERT_EQ(run_simphant("run " + quote(scene) + " --instances 3 --seed 5 --threads 1 --backend cpu --json --out " +
                             quote(out),
                         &text),
            0);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "one line: " << text;
  const json j = json::parse(text);  // throws on anything after the object
  ASSERT_TRUE(j.is_object());

  namespace h5 = simphant::h5;
  const h5::Handle f = h5::open_file_readonly(out);
  const std::vector<double> time = h5::read_doubles(f.id(), "time");
  const std::vector<double> status = h5::read_doubles(f.id(), "status");
  const std::vector<double> violation = h5::read_doubles(f.id(), "constraint_violation");  // (T, I)
  const std::vector<double> energy = h5::read_doubles(f.id(), "energy");                   // (T, I)
  const std::size_t T = time.size(), I = status.size();
  ASSERT_EQ(I, 3u);
  EXPECT_EQ(j["scene"], scene);
  EXPECT_EQ(j["out"], out);
  EXPECT_EQ(j["backend"].get<std::string>().rfind(h5::read_attr_string(f.id(), "backend"), 0), 0u) << j["backend"];
  EXPECT_EQ(j["seed"].get<double>(), h5::read_attr_double(f.id(), "seed"));
  EXPECT_EQ(j["instances"].get<std::size_t>(), I);
  EXPECT_EQ(j["instances_ok"].get<std::size_t>(), static_cast<std::size_t>(std::count(status.begin(), status.end(), 0.0)));
  EXPECT_EQ(j["instances_assembly_failed"].get<std::size_t>(),
            static_cast<std::size_t>(std::count(status.begin(), status.end(), 1.0)));
  EXPECT_EQ(j["instances_diverged"].get<std::size_t>(),
            static_cast<std::size_t>(std::count(status.begin(), status.end(), 2.0)));
  const auto max_of = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
  EXPECT_EQ(j["assembly_max_position_residual"].get<double>(), max_of(h5::read_doubles(f.id(), "assembly/position_residual")));
  EXPECT_EQ(j["assembly_max_velocity_residual"].get<double>(), max_of(h5::read_doubles(f.id(), "assembly/velocity_residual")));
  EXPECT_EQ(j["assembly_max_iterations"].get<double>(), max_of(h5::read_doubles(f.id(), "assembly/iterations")));
  EXPECT_EQ(j["frames"].get<std::size_t>(), T);
  EXPECT_EQ(j["frames"].get<double>(), h5::read_attr_double(f.id(), "frames"));
  EXPECT_EQ(j["dt_s"].get<double>(), h5::read_attr_double(f.id(), "dt"));
  EXPECT_EQ(j["sim_time_s"].get<double>(), time.back());
  EXPECT_EQ(j["steps"], 100);
  EXPECT_EQ(j["steps_planned"], 100);
  EXPECT_EQ(j["interrupted"].get<bool>(), h5::read_attr_double(f.id(), "interrupted") != 0);
  EXPECT_EQ(j["stop_reason"], "completed");
  EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "completed");
  EXPECT_TRUE(j["stop_signal"].is_null());
  // Every instance is ok: the maxima run over all of them and every frame.
  EXPECT_EQ(j["max_constraint_violation"].get<double>(), max_of(violation));
  double abs_drift = 0, rel_bound = 0;
  for (std::size_t k = 0; k < I; ++k)
    for (std::size_t t = 0; t < T; ++t) {
      const double d = std::abs(energy[t * I + k] - energy[k]);
      abs_drift = std::max(abs_drift, d);
      rel_bound = std::max(rel_bound, d / std::max(std::abs(energy[k]), 1e-12));
    }
  EXPECT_EQ(j["energy_drift_abs_J"].get<double>(), abs_drift);
  EXPECT_GE(j["energy_drift_rel"].get<double>(), 0.0);
  EXPECT_LE(j["energy_drift_rel"].get<double>(), rel_bound);  // its denominator also holds the peak kinetic energy
  // Timing: the file's wall time is taken just before the summary's.
  EXPECT_GE(j["wall_time_s"].get<double>(), h5::read_attr_double(f.id(), "wall_time_s"));
  EXPECT_LE(j["loop_wall_time_s"].get<double>(), j["wall_time_s"].get<double>());
  EXPECT_NEAR(j["throughput_instance_steps_per_s"].get<double>(),
              100.0 * 3 / j["loop_wall_time_s"].get<double>(), 1e-9 * j["throughput_instance_steps_per_s"].get<double>());
}

// No instance ok: exit 3, still one JSON object, the statistics null.
TEST(Cli, RunJsonWithNoInstanceOk) {
  std::string text;
  const std::string bad = quote(write_scene("impossible_json.json", impossible()));
  ASSERT_EQ(run_simphant("run " + bad + " --json --out " + quote((temp_dir() / "impossible_json.h5").string()), &text), 3);
  const json j = json::parse(text);
  EXPECT_EQ(j["instances_ok"], 0);
  EXPECT_EQ(j["instances_assembly_failed"], 1);
  EXPECT_TRUE(j["max_constraint_violation"].is_null());
  EXPECT_TRUE(j["energy_drift_rel"].is_null());
  EXPECT_NE(last_stderr().find("no instance finished ok"), std::string::npos) << last_stderr();
}

// No instance assembled: the text says so (no "diverged" story, no INTERRUPTED: the run
// ended because nothing was left to step).
TEST(Cli, RunTextWhenNoInstanceAssembled) {
  std::string text;
  const std::string bad = quote(write_scene("impossible_text.json", impossible()));
  ASSERT_EQ(run_simphant("run " + bad + " --out " + quote((temp_dir() / "impossible_text.h5").string()), &text), 3);
  EXPECT_NE(text.find("NO INSTANCE OK     no instance assembled: 1 assembly failure; nothing was stepped"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("INTERRUPTED"), std::string::npos) << text;
  EXPECT_NE(last_stderr().find("error: no instance finished ok: no instance assembled: 1 assembly failure; nothing "
                               "was stepped"),
            std::string::npos)
      << last_stderr();
  EXPECT_EQ(last_stderr().find("diverged"), std::string::npos) << last_stderr();
}

// stderr is a file here: progress comes as log lines, at most one per --progress-interval.
TEST(Cli, ProgressLogLinesWhenStderrIsNotATerminal) {
  const std::string scene = quote(write_scene("progress.json", pendulum(2.0, 10)));
  const std::string out = quote((temp_dir() / "progress.h5").string());
  const std::regex line(R"(info: step (\d+)/2000 \((\d+)%\), t = \S+ s, ETA \d+ s)");
  // Interval 0: a line after every slice (a slice never crosses a record point: >= 200 slices).
  ASSERT_EQ(run_simphant("run " + scene + " --threads 1 --progress-interval 0 --out " + out), 0);
  const std::vector<std::string> lines = matching_lines(last_stderr(), line);
  ASSERT_GE(lines.size(), 2u) << last_stderr();
  long previous = 0;
  for (const std::string& l : lines) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(l, m, line));
    const long step = std::stol(m[1].str());
    EXPECT_GT(step, previous) << l;
    EXPECT_LE(step, 2000) << l;
    EXPECT_LE(std::abs(std::stol(m[2].str()) - 100.0 * step / 2000.0), 0.5) << l;  // the percentage, rounded
    previous = step;
  }
  // The default interval (5 s) is longer than this run; --log-level warn and
  // SIMPHANT_LOG_LEVEL=warn silence the lines.
  ASSERT_EQ(run_simphant("run " + scene + " --threads 1 --t-end 0.2 --out " + out), 0);
  EXPECT_EQ(last_stderr().find("info: step"), std::string::npos) << last_stderr();
  ASSERT_EQ(run_simphant("run " + scene + " --threads 1 --progress-interval 0 --log-level warn --out " + out), 0);
  EXPECT_EQ(last_stderr().find("info: step"), std::string::npos) << last_stderr();
  ::setenv("SIMPHANT_LOG_LEVEL", "warn", 1);
  const int rc = run_simphant("run " + scene + " --threads 1 --progress-interval 0 --out " + out);
  ::unsetenv("SIMPHANT_LOG_LEVEL");
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(last_stderr().find("info: step"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("run " + scene + " --log-level loud --out " + out), 2);
  EXPECT_NE(last_stderr().find("--log-level"), std::string::npos) << last_stderr();
}

// --progress-file: the same progress as JSON lines, appended, whatever the log level, and
// a last record at the end of the loop; a file that is an input or the output of the
// run is refused before any work (exit 2) and left as it was.
TEST(Cli, ProgressRecordsInAFile) {
  const std::string scene_path = write_scene("progress_records.json", pendulum(2.0, 10));
  const std::string scene = quote(scene_path);
  const std::string out = quote((temp_dir() / "progress_records.h5").string());
  const fs::path records = temp_dir() / "progress_records.jsonl";
  fs::remove(records);
  ASSERT_EQ(run_simphant("run " + scene + " --threads 1 --progress-interval 0 --log-level warn --progress-file " +
                         quote(records.string()) + " --out " + out),
            0);
  EXPECT_EQ(last_stderr().find("info: step"), std::string::npos) << last_stderr();  // the lines stay the log's
  std::ifstream in(records);
  std::vector<json> r;
  for (std::string line; std::getline(in, line);) r.push_back(json::parse(line));
  ASSERT_GE(r.size(), 3u);
  std::int64_t previous = -1;
  for (const json& x : r) {
    EXPECT_EQ(x.at("steps_total"), 2000);
    EXPECT_EQ(x.at("instances"), 2);  // the pendulum scene's sweep
    EXPECT_GE(x.at("steps_done").get<std::int64_t>(), previous);
    previous = x.at("steps_done").get<std::int64_t>();
    EXPECT_DOUBLE_EQ(x.at("progress").get<double>(), previous / 2000.0);
    EXPECT_NEAR(x.at("sim_time_s").get<double>(), previous * 1e-3, 1e-9);
    EXPECT_GE(x.at("eta_s").get<double>(), 0.0);
    EXPECT_GE(x.at("wall_s").get<double>(), 0.0);
  }
  EXPECT_EQ(r.back().at("steps_done"), 2000);  // the last record, at the end of the loop
  EXPECT_EQ(r.back().at("eta_s"), 0.0);
  // A second run appends.
  ASSERT_EQ(run_simphant("run " + scene + " --threads 1 --t-end 0.1 --progress-file " + quote(records.string()) +
                         " --out " + out),
            0);
  std::ifstream again(records);
  std::size_t n = 0;
  for (std::string line; std::getline(again, line);) ++n;
  EXPECT_GT(n, r.size());
  // The scene or the output named as the progress file: refused, the files unchanged.
  const std::string text = simphant::test::read_text(scene_path);
  EXPECT_EQ(run_simphant("run " + scene + " --progress-file " + scene + " --out " + out), 2);
  EXPECT_NE(last_stderr().find("--progress-file"), std::string::npos) << last_stderr();
  EXPECT_EQ(simphant::test::read_text(scene_path), text);
  EXPECT_EQ(run_simphant("run " + scene + " --progress-file " + out + " --out " + out), 2);
  EXPECT_NE(last_stderr().find("is the run's output file"), std::string::npos) << last_stderr();
}

// A first SIGINT during set-up (a large batch: compiling 100000 instance models, then
// assembling them) stops it within about a second: exit 130, a clear message, no output
// file and an existing one untouched. The signal comes while the job runner holds the
// run in set-up (SIMPHANT_TEST_HOLD, docs/reliability.md "Test hooks"), so it finds the
// CLI's handler installed and the set-up not yet done, whatever the machine's speed.
TEST(Cli, SigintDuringSetUpStopsPromptly) {
  const std::string scene = std::string(SIMPHANT_SOURCE_DIR) + "/examples/four_bar.json";
  const fs::path out = temp_dir() / "set_up.h5";
  std::ofstream(out) << "an earlier result";
  const fs::path err = temp_dir() / "set_up.err";
  const simphant::test::Hold hold("setup", temp_dir() / "set_up.gate");
  const simphant::test::Child c = simphant::test::start_simphant(
      {"run", scene, "--instances", "100000", "--t-end", "0.001", "--out", out.string()}, "/dev/null", err, {},
      hold.env());
  const pid_t pid = c.pid;
  ASSERT_GE(pid, 0);
  ASSERT_TRUE(hold.wait(&c)) << simphant::test::read_text(err);
  ASSERT_EQ(kill(pid, SIGINT), 0);
  const auto t0 = std::chrono::steady_clock::now();
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(WIFEXITED(wstatus)) << "killed by signal " << WTERMSIG(wstatus);
  EXPECT_EQ(WEXITSTATUS(wstatus), 130);
  EXPECT_LT(seconds, 2.0);
  std::ifstream in(err);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("stopped by SIGINT during set-up"), std::string::npos) << text;
  EXPECT_NE(text.find("no output written"), std::string::npos) << text;
  std::ifstream kept(out);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>()), "an earlier result");
}

// The tests' hold (SIMPHANT_TEST_HOLD, docs/reliability.md "Test hooks") in a form it
// does not have: the run is refused before any work, naming the variable.
TEST(Cli, AMalformedTestHoldIsRefused) {
  const std::string scene = write_scene("hold.json", pendulum(0.02, 5));
  for (const std::string bad : {"step=0:g", "step=x:g", "later:g", "setup", "step=5:", "check:a;check:b",
                                "step=1:a;setup:b", "step=1:a;"}) {
    SCOPED_TRACE(bad);
    const simphant::test::Child c = simphant::test::start_simphant(
        {"run", scene, "--out", (temp_dir() / "hold.h5").string()}, "/dev/null", temp_dir() / "hold.err", {},
        {"SIMPHANT_TEST_HOLD=" + bad});
    const simphant::test::Exit e = simphant::test::wait_child(c, 60);
    EXPECT_EQ(e.code, 3);
    const std::string err = simphant::test::read_text(c.err_file);
    EXPECT_NE(err.find("error: SIMPHANT_TEST_HOLD: expected setup:<gate path>, step=N:<gate path> (N >= 1) or "
                       "check:<gate path>"),
              std::string::npos)
        << err;
  }
}

// The check point of the tests' hold: `simphant check` waits after reading the scene, with
// "{name}" the scene's name, and finishes its report once released; the run point given
// beside it (';') does not hold a check, nor the check point a run.
TEST(Cli, CheckIsHeldAtItsTestHold) {
  json doc = pendulum(0.02, 5);
  doc["name"] = "held pendulum";
  const std::string scene = write_scene("check_hold.json", doc);
  const fs::path gates = temp_dir() / "check_gates";
  fs::create_directories(gates);
  const simphant::test::Hold hold("check", gates / "held pendulum");
  const std::vector<std::string> env = {"SIMPHANT_TEST_HOLD=step=1:" + (gates / "run_gate").string() + ";check:" +
                                        (gates / "{name}").string()};
  const simphant::test::Child c =
      simphant::test::start_simphant({"check", scene, "--json"}, temp_dir() / "check_hold.out", temp_dir() / "check_hold.err", {}, env);
  ASSERT_TRUE(hold.wait(&c)) << simphant::test::read_text(c.err_file);
  EXPECT_NE(hold.report().find("\"point\":\"check\""), std::string::npos) << hold.report();
  EXPECT_EQ(simphant::test::read_text(c.out_file), "");  // nothing reported while held
  hold.release();
  const simphant::test::Exit e = simphant::test::wait_child(c, 60);
  EXPECT_EQ(e.code, 0);
  EXPECT_NE(simphant::test::read_text(c.out_file).find("\"name\":\"held pendulum\""), std::string::npos);
  // A run with the same variable passes the check point by (and is held at step 1 only
  // when its own gate is missing: here it exists).
  std::ofstream(gates / "run_gate").put('\n');
  const simphant::test::Child r = simphant::test::start_simphant(
      {"run", scene, "--out", (temp_dir() / "check_hold.h5").string()}, "/dev/null", temp_dir() / "check_hold_run.err", {}, env);
  EXPECT_EQ(simphant::test::wait_child(r, 60).code, 0) << simphant::test::read_text(r.err_file);
}

// Results that cannot be printed are a failure: run --json, check and bench to a full
// stdout exit non-zero with a message on stderr.
TEST(Cli, FullStdoutIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  const std::string scene = quote(write_scene("full_stdout.json", pendulum(0.02, 5)));
  const std::string out = quote((temp_dir() / "full_stdout.h5").string());
  const std::string err = quote((temp_dir() / "stderr.txt").string());
  const auto rc_of = [&](const std::string& args) {
    const int rc = std::system((quote(SIMPHANT_BINARY) + " " + args + " >/dev/full 2>" + err).c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  EXPECT_EQ(rc_of("run " + scene + " --json --out " + out), 3);
  EXPECT_NE(last_stderr().find("writing to stdout failed"), std::string::npos) << last_stderr();
  EXPECT_EQ(rc_of("run " + scene + " --out " + out), 3);
  EXPECT_EQ(rc_of("check " + scene), 3);
  EXPECT_NE(last_stderr().find("writing to stdout failed"), std::string::npos) << last_stderr();
  EXPECT_EQ(rc_of("check --json " + scene), 3);
  EXPECT_EQ(rc_of("bench --models chain_1 --configs cpu1-dense --cpu-sizes 1 --min-seconds 0.01"), 3);
  EXPECT_NE(last_stderr().find("writing to stdout failed"), std::string::npos) << last_stderr();
}

// bench exits 3 when a row failed, naming it; 0 when every row was measured.
TEST(Cli, BenchExitCodeReportsFailedRows) {
  std::string out;
  EXPECT_EQ(run_simphant("bench --models chain_1 --configs cpu1-dense --cpu-sizes 1 --min-seconds 0.01", &out), 0)
      << last_stderr();
  if (simphant::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device runs the GPU row";
  // Its only row: a GPU configuration named on a machine without one.
  EXPECT_EQ(run_simphant("bench --models chain_1 --configs cuda64 --gpu-sizes 1 --min-seconds 0.01", &out), 3);
  EXPECT_NE(last_stderr().find("1 of 1 rows failed"), std::string::npos) << last_stderr();
  EXPECT_NE(last_stderr().find("chain_1 cuda64 x 1"), std::string::npos) << last_stderr();
  // One row of two.
  EXPECT_EQ(run_simphant("bench --models chain_1 --configs cpu1-dense,fused64 --cpu-sizes 1 --gpu-sizes 1 "
                         "--min-seconds 0.01",
                         &out),
            3);
  EXPECT_NE(last_stderr().find("1 of 2 rows failed"), std::string::npos) << last_stderr();
  EXPECT_NE(last_stderr().find("chain_1 fused64 x 1"), std::string::npos) << last_stderr();
  // The default selection leaves the GPU configurations out where they cannot run.
  EXPECT_EQ(run_simphant("bench --models chain_1 --cpu-sizes 1 --min-seconds 0.01", &out), 0) << last_stderr();
  EXPECT_NE(last_stderr().find("GPU configurations are left out"), std::string::npos) << last_stderr();
}

// The bdf integrator at the command line: the stiff example (c dt / m = 30) runs with bdf
// and is refused with rk4 (beyond RK4's stability limit, naming the damping); bdf on a
// cuda backend is bad input naming --backend; in a build without SUNDIALS, bdf is
// refused at load naming the field (docs/solver.md, "The bdf integrator").
TEST(Cli, BdfRunsTheStiffExampleAndIsRefusedWhereItCannotRun) {
  const std::string stiff = quote(std::string(SIMPHANT_SOURCE_DIR) + "/examples/stiff_damper.json");
  const std::string out = quote((temp_dir() / "stiff_damper.h5").string());
  const std::string good = quote(write_scene("good_bdf.json", pendulum()));
  if (!simphant::bdf_available()) {
    EXPECT_EQ(run_simphant("run " + stiff + " --out " + out), 2);
    EXPECT_NE(last_stderr().find("/solver/integrator: bdf needs SUNDIALS"), std::string::npos) << last_stderr();
    EXPECT_EQ(run_simphant("run " + good + " --integrator bdf --out " + out), 2);
    EXPECT_NE(last_stderr().find("--integrator: bdf needs SUNDIALS"), std::string::npos) << last_stderr();
    return;
  }
  EXPECT_EQ(run_simphant("run " + stiff + " --instances 2 --t-end 0.05 --out " + out), 0) << last_stderr();
  EXPECT_EQ(run_simphant("run " + stiff + " --integrator rk4 --instances 2 --t-end 0.05 --out " + out), 2);
  EXPECT_NE(last_stderr().find("/forces/0/damping"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("run " + stiff + " --backend cuda --out " + out), 2);
  EXPECT_NE(last_stderr().find("--backend"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("run " + good + " --integrator bdf --backend cuda-fused --out " + out), 2);
  EXPECT_NE(last_stderr().find("--backend"), std::string::npos) << last_stderr();
  EXPECT_EQ(run_simphant("run " + stiff + " --atol 0 --out " + out), 2);  // CVODE's weights need atol > 0
  EXPECT_NE(last_stderr().find("/solver/atol"), std::string::npos) << last_stderr();
}
