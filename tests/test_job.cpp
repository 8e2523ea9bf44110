// The job runner and the scene check as library calls (simphant/job/): options and
// errors, progress and stop hooks, a file bit-identical to the CLI's, and the logger.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "simphant/core/stop_flag.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/check_scene.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/job/run_summary.hpp"
#include "simphant/log/log.hpp"
#include "simphant/scene/scene.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using simphant::JobHooks;
using simphant::JobOptions;
using simphant::JobProgress;
using simphant::JobResult;

namespace {

const fs::path& temp_dir() {
  static const fs::path dir = simphant::test::make_process_temp_dir("job");
  return dir;
}

/// A one-body pendulum with a mass sweep over 3 instances; t_end = 0.2 s, dt = 1 ms.
std::string pendulum_text() {
  return R"({
    "name": "job pendulum",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "mass": 1.0, "inertia": [0.001, 0.02, 0.02], "position": [0.5, 0, 0]}],
    "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "bob",
                "frame": {"origin": [0, 0, 0], "z": [0, 1, 0], "x": [1, 0, 0]}}],
    "solver": {"dt": 0.001, "t_end": 0.2, "record_every": 10},
    "sweep": {"mode": "random", "instances": 3, "seed": 7,
              "parameters": [{"path": "bodies.bob.mass", "dist": "uniform", "low": 0.9, "high": 1.1}]}
  })";
}

JobOptions text_options(const std::string& out_name) {
  JobOptions o;
  o.scene = (temp_dir() / "named_only.json").string();  // names the source; no such file
  o.scene_text = pendulum_text();
  o.threads = 1;
  o.backend = "cpu";
  o.out = (temp_dir() / out_name).string();
  return o;
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace

TEST(Job, RunsFromSceneTextAndReportsProgress) {
  const JobOptions o = text_options("text.h5");
  std::vector<JobProgress> seen;
  JobHooks hooks;
  hooks.progress = [&](const JobProgress& p) { seen.push_back(p); };
  const JobResult r = simphant::run_job(o, hooks);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out_file, o.out);
  EXPECT_EQ(r.summary["instances"], 3);
  EXPECT_EQ(r.summary["instances_ok"], 3);
  EXPECT_EQ(r.summary["steps"], 200);
  EXPECT_EQ(r.summary["frames"], 21);
  EXPECT_EQ(r.summary["interrupted"], false);
  EXPECT_EQ(r.summary["stop_reason"], "completed");
  EXPECT_EQ(r.summary["factorisation_recoveries"], 0);  // a pendulum: C is regular
  ASSERT_FALSE(seen.empty());
  for (std::size_t k = 0; k < seen.size(); ++k) {
    EXPECT_EQ(seen[k].steps_total, 200);
    EXPECT_EQ(seen[k].n_instances, 3);
    EXPECT_NEAR(seen[k].sim_time, 0.001 * static_cast<double>(seen[k].steps_done), 1e-12);
    if (k > 0) {
      EXPECT_GT(seen[k].steps_done, seen[k - 1].steps_done);
    }
  }
  EXPECT_EQ(seen.back().steps_done, 200);
  const simphant::h5::Handle f = simphant::h5::open_file_readonly(o.out);
  EXPECT_EQ(simphant::h5::read_attr_string(f.id(), "scene"), o.scene_text);
  EXPECT_EQ(simphant::h5::read_attr_string(f.id(), "scene_file"), o.scene);
}

TEST(Job, StopRequestEndsTheRunLikeSigint) {
  JobOptions o = text_options("stopped.h5");
  o.has_t_end = true;
  o.t_end = 100.0;  // 1e5 steps: stopped long before
  int calls = 0;
  JobHooks hooks;
  hooks.progress = [&](const JobProgress&) { ++calls; };
  hooks.stop_requested = [&] { return calls >= 3; };
  const JobResult r = simphant::run_job(o, hooks);
  EXPECT_EQ(r.exit_code, 130);
  EXPECT_EQ(r.summary["interrupted"], true);
  EXPECT_LT(r.summary["steps"].get<long>(), 100000);
  EXPECT_EQ(r.summary["steps_planned"], 100000);
  EXPECT_EQ(r.summary["stop_reason"], "stop requested");
  const simphant::h5::Handle f = simphant::h5::open_file_readonly(o.out);
  EXPECT_EQ(simphant::h5::read_attr_double(f.id(), "interrupted"), 1.0);
  EXPECT_EQ(simphant::h5::read_attr_string(f.id(), "stop_reason"), "stop requested");
  EXPECT_EQ(simphant::h5::read_doubles(f.id(), "time").back(), r.summary["sim_time_s"].get<double>());
}

// The hook's reason becomes the file's stop_reason; the process-wide stop flag stops the
// step loop as the hook does, and stops set-up before any output exists.
TEST(Job, StopReasonAndStopFlag) {
  JobOptions o = text_options("reason.h5");
  o.has_t_end = true;
  o.t_end = 100.0;
  int calls = 0;
  JobHooks hooks;
  hooks.progress = [&](const JobProgress&) {
    if (++calls == 2) simphant::request_stop();
  };
  hooks.stop_reason = [] { return std::string("signal SIGUSR1"); };
  const JobResult r = simphant::run_job(o, hooks);
  simphant::clear_stop_request();
  EXPECT_EQ(r.exit_code, 130);
  EXPECT_EQ(r.summary["stop_reason"], "signal SIGUSR1");
  {
    const simphant::h5::Handle f = simphant::h5::open_file_readonly(o.out);
    EXPECT_EQ(simphant::h5::read_attr_string(f.id(), "stop_reason"), "signal SIGUSR1");
  }

  JobOptions early = text_options("never_started.h5");
  simphant::request_stop();
  EXPECT_THROW(simphant::run_job(early), simphant::Interrupted);
  simphant::clear_stop_request();
  EXPECT_FALSE(fs::exists(early.out));
  for (const auto& e : fs::directory_iterator(temp_dir()))
    EXPECT_EQ(e.path().filename().string().find(".never_started.h5"), std::string::npos) << e.path();
}

// The library and the CLI run one code path: the same scene and seed give the same bytes.
TEST(Job, FileIsBitIdenticalToTheCli) {
  const std::string scene = (temp_dir() / "same.json").string();
  std::ofstream(scene) << pendulum_text();
  JobOptions o;
  o.scene = scene;
  o.has_seed = true;
  o.seed = 11;
  o.instances = 5;
  o.out = (temp_dir() / "library.h5").string();
  ASSERT_EQ(simphant::run_job(o).exit_code, 0);
  const std::string cli_out = (temp_dir() / "cli.h5").string();
  const std::string cmd = quote(SIMPHANT_BINARY) + " run " + quote(scene) + " --seed 11 --instances 5 --out " +
                          quote(cli_out) + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const simphant::h5::Handle a = simphant::h5::open_file_readonly(o.out);
  const simphant::h5::Handle b = simphant::h5::open_file_readonly(cli_out);
  for (const char* name : {"time", "state", "reactions", "constraint_violation", "energy", "status", "status_time",
                           "params/bodies.bob.mass", "assembly/position_residual"}) {
    const std::vector<double> x = simphant::h5::read_doubles(a.id(), name), y = simphant::h5::read_doubles(b.id(), name);
    ASSERT_FALSE(x.empty()) << name;
    ASSERT_EQ(x.size(), y.size()) << name;
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(double)), 0) << name;
  }
}

// Bad options are SceneErrors naming the option, raised before any output file exists.
TEST(Job, BadOptionsNameTheOption) {
  const auto error_path = [](const JobOptions& o) -> std::string {
    try {
      simphant::run_job(o);
    } catch (const simphant::SceneError& e) {
      return e.path();
    }
    return "(no SceneError)";
  };
  JobOptions o = text_options("never.h5");
  o.backend = "gpu";
  EXPECT_EQ(error_path(o), "--backend");
  o = text_options("never.h5");
  o.precision = "fp32";
  EXPECT_EQ(error_path(o), "--precision");
  o = text_options("never.h5");
  o.instances = 0;
  EXPECT_EQ(error_path(o), "--instances");
  o = text_options("never.h5");
  o.solver = "aba";  // not a robot scene
  EXPECT_EQ(error_path(o), "--solver");
  o = text_options("never.h5");
  o.has_dt = true;
  o.dt = NAN;
  EXPECT_EQ(error_path(o), "--dt");
  o = text_options("never.h5");
  o.has_dt = true;
  o.dt = -1;
  EXPECT_EQ(error_path(o), "/solver/dt");  // the scene's own check, after the override
  o = text_options("never.h5");
  o.scene.clear();
  o.out.clear();  // text without a name: no <scene stem>.h5 to default to
  EXPECT_EQ(error_path(o), "--out");
  o = text_options("never.h5");
  o.scene_text = "{\"bodies\": [";
  EXPECT_EQ(error_path(o), o.scene);  // unparsable JSON names the source
  EXPECT_FALSE(fs::exists(temp_dir() / "never.h5"));
}

TEST(Job, CheckSceneReportsTheAnalysis) {
  const simphant::Scene scene = simphant::parse_scene(pendulum_text());
  const json c = simphant::check_scene(scene);
  EXPECT_EQ(c["bodies"], json::array({"bob"}));
  EXPECT_EQ(c["joints"][0]["body_i"], "ground");
  EXPECT_EQ(c["joints"][0]["body_j"], "bob");
  EXPECT_EQ(c["constraint_rows"], 5);
  EXPECT_EQ(c["rank"], 5);
  EXPECT_EQ(c["dof"], 1);
  EXPECT_EQ(c["assembly_ok"], true);
  EXPECT_EQ(c["instances"], 3);
  EXPECT_TRUE(c["warnings"].empty());
  // A swept instance with a negative mass is refused, naming the instance.
  json doc = json::parse(pendulum_text());
  doc["sweep"]["parameters"][0] = json{{"path", "bodies.bob.mass"}, {"dist", "list"}, {"values", {1.0, -1.0}}};
  try {
    simphant::check_scene(simphant::parse_scene(doc.dump()));
    ADD_FAILURE() << "no SceneError";
  } catch (const simphant::SceneError& e) {
    EXPECT_EQ(e.path(), "/bodies/0/mass");
    EXPECT_NE(std::string(e.what()).find("(sampled bodies.bob.mass = -1)"), std::string::npos) << e.what();
  }
}

// A refined Schur solve that ends above the tolerance is reported per instance, never
// silently: the job pendulum with a point-mass bob (inertia 1e-9 kg m^2: the relative
// shift is a few per cent of the rod's tension mode; the run lowers eps to 1e-12 for it,
// dynamics/shift_choice.hpp) and at most 2 refinement corrections records every solve
// above the tolerance in /refinement/unconverged (largest estimates 1.5e-9 to 2.5e-9,
// measured), counts them in the summary and warns naming the instance; with the default
// refinement nothing is recorded.
TEST(Job, UnconvergedRefinementIsReportedPerInstance) {
  for (int steps : {2, -1}) {
    json doc = json::parse(pendulum_text());
    doc["bodies"][0]["inertia"] = {1e-9, 1e-9, 1e-9};
    doc["solver"]["t_end"] = 0.5;  // the rod leaves the horizontal (a joint-frame axis, where no shift is felt)
    if (steps >= 0) doc["solver"]["refinement_steps"] = steps;
    JobOptions o = text_options(steps >= 0 ? "refine_2.h5" : "refine_default.h5");
    o.scene_text = doc.dump();
    const JobResult r = simphant::run_job(o, JobHooks{});
    ASSERT_EQ(r.exit_code, 0);
    const simphant::h5::Handle f = simphant::h5::open_file_readonly(o.out);
    const std::vector<double> unconverged = simphant::h5::read_doubles(f.id(), "refinement/unconverged");
    const std::vector<double> max_error = simphant::h5::read_doubles(f.id(), "refinement/max_error");
    ASSERT_EQ(unconverged.size(), 3u);
    int warned = 0;
    for (const json& w : r.summary["warnings"])
      warned += w.get<std::string>().find("refined Schur solves ended above the refinement tolerance") != std::string::npos;
    if (steps == 2) {
      EXPECT_EQ(r.summary["refinement_unconverged_instances"], 3);
      EXPECT_GT(r.summary["refinement_max_error"].get<double>(), 3.7e-11);
      EXPECT_EQ(warned, 3);
      double total = 0;
      for (int i = 0; i < 3; ++i) {
        // At most every RK4 stage (the rod starts horizontal at rest, along a joint-frame
        // axis, where its tension row is unshifted and the first solves converge).
        const double steps_run = std::round(0.5 / doc["solver"]["dt"].get<double>());
        EXPECT_GT(unconverged[i], 0) << i;
        EXPECT_LE(unconverged[i], 4 * steps_run) << i;
        EXPECT_GT(max_error[i], 3.7e-11) << i;
        total += unconverged[i];
      }
      EXPECT_EQ(r.summary["refinement_unconverged_solves"].get<double>(), total);
    } else {
      EXPECT_EQ(r.summary["refinement_unconverged_solves"], 0);
      EXPECT_LE(r.summary["refinement_max_error"].get<double>(), 3.7e-11);
      EXPECT_EQ(warned, 0);
      for (int i = 0; i < 3; ++i) EXPECT_EQ(unconverged[i], 0) << i;
    }
  }
}

TEST(Log, LevelsByName) {
  const std::string before = simphant::log_level();
  simphant::set_log_level("warn");
  EXPECT_EQ(simphant::log_level(), "warn");
  EXPECT_FALSE(simphant::logger().should_log(spdlog::level::info));
  simphant::set_log_level("debug");
  EXPECT_TRUE(simphant::logger().should_log(spdlog::level::debug));
  simphant::set_log_level("off");
  EXPECT_EQ(simphant::log_level(), "off");
  EXPECT_THROW(simphant::set_log_level("loud"), std::invalid_argument);
  simphant::set_log_level(before);
}

namespace simphant {
namespace {

// The four-bar's tolerance sweep moves its joint frames, so the given rocker orientation
// cannot fit every instance: the changes are one summary line, not a warning per value
// (its default run changed 11 values of 11 instances by more than 1 %). The same wrong
// orientation without a sweep of frames is a warning per value, naming the instance and
// the body (the first few listed).
TEST(Job, AssemblyChangesOfAToleranceSweepAreOneLine) {
  std::ifstream in(std::string(SIMPHANT_SOURCE_DIR) + "/examples/four_bar.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["solver"]["t_end"] = 0.01;
  JobOptions o;
  o.scene = (temp_dir() / "four_bar_tolerance.json").string();
  o.scene_text = doc.dump();
  o.threads = 1;
  o.backend = "cpu";
  o.out = (temp_dir() / "four_bar_tolerance.h5").string();
  JobResult r = run_job(o, JobHooks{});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_GT(r.summary["assembly_changed_values"].get<int>(), 0);
  EXPECT_FALSE(r.summary["assembly_swept_frames"].empty());
  for (const nlohmann::json& w : r.summary["warnings"])
    EXPECT_EQ(w.get<std::string>().find("assembly moved it"), std::string::npos) << w;
  const std::string text = summary_text(r.summary);
  EXPECT_NE(text.find("by more than 1 %, as the sweep of joints."), std::string::npos) << text;

  doc["sweep"]["parameters"] = nlohmann::json::array(
      {{{"path", "bodies.rocker.mass"}, {"dist", "uniform"}, {"low", 0.4}, {"high", 0.5}}});
  doc["bodies"][2]["orientation"] = {1.0, 0.0, 0.0, 0.0};  // the rocker turned away from its joints
  o.scene_text = doc.dump();
  o.out = (temp_dir() / "four_bar_misfit.h5").string();
  r = run_job(o, JobHooks{});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.summary["assembly_swept_frames"].empty());
  int warned = 0;
  for (const nlohmann::json& w : r.summary["warnings"])
    warned += w.get<std::string>().find("assembly moved it onto Phi = 0") != std::string::npos;
  EXPECT_GT(warned, 0) << r.summary["warnings"];
}

}  // namespace
}  // namespace simphant
