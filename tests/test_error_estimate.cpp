// The fixed-step error estimate (job/error_estimate.hpp) and the integrator's step figures
// of a run (job/step_report.hpp):
//  - the Richardson factor and the small-angle accuracy of the quaternion angle;
//  - the estimate against the true global error of a closed-form case (two undamped
//    linear oscillators: a slider on a prismatic joint pulled by a spring, and a rotor on a
//    revolute joint through its centre of mass with a rotational spring) for rk4 and euler;
//  - NaN for a diverged instance; checkpoint and resume keep the dt/2 batch;
//  - the summary figures, root attributes and `--json` keys of a fixed-step run; the step
//    figures of merged shards of an adaptive run; the memory estimate of the dt/2 batch.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "h5_compare.hpp"
#include "process_support.hpp"
#include "temp_dir.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/checkpoint.hpp"
#include "simphant/job/resume.hpp"
#include "simphant/job/error_estimate.hpp"
#include "simphant/job/memory_estimate.hpp"
#include "simphant/job/merge.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/scene/scene.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr double kPi = 3.14159265358979323846;

const fs::path& temp_dir() {
  static const fs::path dir = simphant::test::make_process_temp_dir("error_estimate");
  return dir;
}

// Slider: m = 1 kg on a prismatic joint along world x, pulled by a spring of stiffness
// k = m w^2 and rest length L from the origin; released at rest at x = L + A:
//   x(t) = L + A cos(w t).
// Rotor: I_zz = 0.1 kg m^2 on a revolute joint about world z through its centre of mass,
// a rotational spring k_r = I_zz w^2; starts at angle 0 with omega_z = w0:
//   theta(t) = (w0 / w) sin(w t).
// w = 2 pi rad/s; no gravity. t_end = 1.125 s (w t = 2 pi + pi / 4), where neither the
// amplitude nor the phase part of the leading error term vanishes.
constexpr double kOmega = 2 * kPi, kL = 1.0, kA = 0.2, kW0 = 1.0, kIzz = 0.1, kTEnd = 1.125;

json oscillators(const std::string& integrator, double dt) {
  return json{
      {"name", "two oscillators"},
      {"gravity", {0.0, 0.0, 0.0}},
      {"bodies",
       {{{"name", "slider"}, {"mass", 1.0}, {"inertia", {0.01, 0.01, 0.01}}, {"position", {kL + kA, 0.0, 0.0}}},
        {{"name", "rotor"},
         {"mass", 1.0},
         {"inertia", {0.05, 0.05, kIzz}},
         {"position", {0.0, 2.0, 0.0}},
         {"angular_velocity", {0.0, 0.0, kW0}}}}},
      {"joints",
       {{{"name", "rail"}, {"type", "prismatic"}, {"body_i", "ground"}, {"body_j", "slider"},
         {"frame", {{"origin", {kL + kA, 0.0, 0.0}}, {"z", {1.0, 0.0, 0.0}}, {"x", {0.0, 0.0, 1.0}}}}},
        {{"name", "axle"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "rotor"},
         {"frame", {{"origin", {0.0, 2.0, 0.0}}, {"z", {0.0, 0.0, 1.0}}, {"x", {1.0, 0.0, 0.0}}}}}}},
      {"forces",
       {{{"name", "spring"}, {"type", "spring_damper"}, {"body_i", "ground"}, {"point_i", {0.0, 0.0, 0.0}},
         {"body_j", "slider"}, {"point_j", {0.0, 0.0, 0.0}}, {"stiffness", kOmega * kOmega}, {"rest_length", kL}},
        {{"name", "torsion"}, {"type", "rotational_spring_damper"}, {"joint", "axle"},
         {"stiffness", kIzz * kOmega * kOmega}}}},
      {"solver",
       {{"dt", dt}, {"t_end", kTEnd}, {"record_every", 10}, {"tikhonov_epsilon", 1e-12},
        {"integrator", integrator}, {"error_estimate", true}}},
      {"sweep", {{"instances", 2}}}};
}

simphant::JobOptions options_for(const json& scene, const std::string& out) {
  simphant::JobOptions o;
  o.scene = (temp_dir() / "oscillators.json").string();  // names the source; no such file
  o.scene_text = scene.dump();
  o.threads = 1;
  o.backend = "cpu";
  o.checkpoint_every_s = 0;
  o.out = (temp_dir() / out).string();
  return o;
}

std::vector<double> read_doubles(hid_t f, const std::string& path) {
  std::size_t n = 1;
  for (hsize_t d : simphant::h5::dataset_dims(f, path)) n *= d;
  std::vector<double> v(n);
  simphant::h5::read_dataset(f, path, H5T_NATIVE_DOUBLE, v.data(), n);
  return v;
}

struct Estimate {
  std::vector<double> position, orientation;     ///< (I) the file's estimates
  std::vector<double> true_position, true_orientation;  ///< (I) against the closed form
};

/// Runs the scene and compares the last frame with the closed form.
Estimate run_oscillators(const std::string& integrator, double dt, const std::string& out) {
  const simphant::JobResult r = simphant::run_job(options_for(oscillators(integrator, dt), out));
  EXPECT_EQ(r.exit_code, 0);
  simphant::h5::Handle f = simphant::h5::open_file_readonly(r.out_file);
  Estimate e;
  e.position = read_doubles(f.id(), "error_estimate/position");
  e.orientation = read_doubles(f.id(), "error_estimate/orientation");
  const std::vector<hsize_t> dims = simphant::h5::dataset_dims(f.id(), "state");  // (T, I, B, 13)
  const std::vector<double> state = read_doubles(f.id(), "state");
  const std::vector<double> time = read_doubles(f.id(), "time");
  const double t = time.back();
  EXPECT_NEAR(t, kTEnd, 1e-12);
  const std::size_t I = dims[1], B = dims[2];
  const double x = kL + kA * std::cos(kOmega * t), theta = kW0 / kOmega * std::sin(kOmega * t);
  const double exact_q[4] = {std::cos(theta / 2), 0.0, 0.0, std::sin(theta / 2)};
  const double identity[4] = {1.0, 0.0, 0.0, 0.0};
  for (std::size_t i = 0; i < I; ++i) {
    const double* slider = &state[((dims[0] - 1) * I + i) * B * 13];
    const double* rotor = slider + 13;
    const double dr_slider = std::hypot(slider[0] - x, slider[1], slider[2]);
    const double dr_rotor = std::hypot(rotor[0], rotor[1] - 2.0, rotor[2]);
    e.true_position.push_back(std::max(dr_slider, dr_rotor));
    e.true_orientation.push_back(std::max(simphant::quaternion_angle(slider + 3, identity),
                                          simphant::quaternion_angle(rotor + 3, exact_q)));
  }
  const simphant::h5::Handle d(H5Dopen2(f.id(), "error_estimate/position", H5P_DEFAULT), H5Dclose);
  EXPECT_EQ(simphant::h5::read_attr_string(d.id(), "units"), "m");
  EXPECT_EQ(simphant::h5::read_attr_string(d.id(), "method"), "Richardson extrapolation against a dt/2 run");
  EXPECT_EQ(simphant::h5::read_attr_int64(d.id(), "order"), integrator == "rk4" ? 4 : 1);
  return e;
}

}  // namespace

TEST(ErrorEstimate, RichardsonFactorAndQuaternionAngle) {
  EXPECT_DOUBLE_EQ(simphant::richardson_factor(1), 2.0);
  EXPECT_DOUBLE_EQ(simphant::richardson_factor(4), 16.0 / 15.0);
  EXPECT_THROW(simphant::richardson_factor(0), std::invalid_argument);
  // A rotation of 1e-9 rad about an oblique axis, and 2.5 rad: the angle to round-off.
  for (const double angle : {1e-9, 2.5}) {
    const double ax = 1 / std::sqrt(3.0), s = std::sin(angle / 2), c = std::cos(angle / 2);
    const double p[4] = {std::cos(0.3), std::sin(0.3), 0.0, 0.0};  // a start orientation
    // q = p * (c, s ax (1, 1, 1))
    const double r[4] = {c, s * ax, s * ax, s * ax};
    const double q[4] = {p[0] * r[0] - p[1] * r[1] - p[2] * r[2] - p[3] * r[3],
                         p[0] * r[1] + p[1] * r[0] + p[2] * r[3] - p[3] * r[2],
                         p[0] * r[2] - p[1] * r[3] + p[2] * r[0] + p[3] * r[1],
                         p[0] * r[3] + p[1] * r[2] - p[2] * r[1] + p[3] * r[0]};
    EXPECT_NEAR(simphant::quaternion_angle(p, q), angle, 1e-15 + 4e-16 * angle) << angle;
    const double minus_q[4] = {-q[0], -q[1], -q[2], -q[3]};  // the same rotation
    EXPECT_NEAR(simphant::quaternion_angle(p, minus_q), angle, 1e-15 + 4e-16 * angle) << angle;
  }
}

// The estimate is the global error of the recorded (dt) solution within a factor 1.5 of the
// true one, for positions (the slider) and orientations (the rotor), with RK4 and both Euler
// methods.
TEST(ErrorEstimate, MatchesTheTrueErrorOfAClosedFormCase) {
  for (const auto& [integrator, dt] : {std::pair{std::string("rk4"), 0.0125}, std::pair{std::string("euler"), 1.25e-4},
                                       std::pair{std::string("symplectic_euler"), 1.25e-4}}) {
    const Estimate e = run_oscillators(integrator, dt, "oscillators_" + integrator + ".h5");
    ASSERT_EQ(e.position.size(), 2u);
    EXPECT_EQ(e.position[0], e.position[1]);  // two instances of one model: the same numbers
    for (std::size_t i = 0; i < 1; ++i) {
      const double rp = e.position[i] / e.true_position[i], ro = e.orientation[i] / e.true_orientation[i];
      std::printf("%s dt %g: position error %.3e m, estimate %.3e m (ratio %.3f); orientation error %.3e rad, "
                  "estimate %.3e rad (ratio %.3f)\n",
                  integrator.c_str(), dt, e.true_position[i], e.position[i], rp, e.true_orientation[i],
                  e.orientation[i], ro);
      EXPECT_GT(rp, 1 / 1.5) << integrator;
      EXPECT_LT(rp, 1.5) << integrator;
      if (integrator == "symplectic_euler") {
        // Symplectic Euler's first-order error of a linear oscillator is periodic, not
        // secular (the method is the exact flow of a modified oscillator, Hairer, Lubich,
        // Wanner, "Geometric Numerical Integration", IX.1): for the rotor (theta(0) = 0) it
        // vanishes at this t_end, leaving e = C dt^2, which the order-1 estimate scales by
        // 2 (1 - 1/4) = 1.5 (measured 1.500).
        EXPECT_NEAR(ro, 1.5, 0.02) << integrator;
      } else {
        EXPECT_GT(ro, 1 / 1.5) << integrator;
        EXPECT_LT(ro, 1.5) << integrator;
      }
    }
  }
}

// Stopped after a few slices and resumed: the dt/2 batch travels in the checkpoint, and the
// resumed file equals the uninterrupted one, estimates included.
TEST(ErrorEstimate, ResumedRunEqualsTheUninterruptedOne) {
  simphant::JobOptions o = options_for(oscillators("rk4", 0.0125), "resume_ref.h5");
  const simphant::JobResult ref = simphant::run_job(o);
  ASSERT_EQ(ref.exit_code, 0);
  o.out = (temp_dir() / "resume.h5").string();
  int slices = 0;
  simphant::JobHooks hooks;
  hooks.progress = [&](const simphant::JobProgress&) { ++slices; };
  hooks.stop_requested = [&] { return slices >= 3; };
  const simphant::JobResult stopped = simphant::run_job(o, hooks);
  ASSERT_EQ(stopped.exit_code, 130);
  ASSERT_LT(stopped.summary.at("steps").get<std::int64_t>(), ref.summary.at("steps").get<std::int64_t>());
  EXPECT_TRUE(stopped.summary.at("error_estimate_position_m").is_null());  // written by the session that ends the run
  {
    simphant::h5::Handle f = simphant::h5::open_file_readonly(o.out);
    EXPECT_TRUE(simphant::h5::exists(f.id(), "checkpoint/error_estimate/y"));
  }
  simphant::JobOptions r;
  r.resume = o.out;
  r.threads = 1;
  const simphant::JobResult resumed = simphant::run_job(r);
  ASSERT_EQ(resumed.exit_code, 0);
  const std::vector<std::string> diff = simphant::test::file_differences(
      ref.out_file, o.out, {"/@wall_time_s", "/@start_time", "/@command_line", "/@git_commit"});
  std::string list;
  for (const std::string& d : diff) list += d + "\n";
  EXPECT_TRUE(diff.empty()) << list;
  EXPECT_EQ(ref.summary.at("error_estimate_position_m"), resumed.summary.at("error_estimate_position_m"));
}

// An instance that diverges gets NaN; the others keep their estimate.
TEST(ErrorEstimate, DivergedInstanceGetsNaN) {
  json scene = oscillators("rk4", 0.0125);
  // Instance 1's spring is so stiff that RK4 at dt = 0.0125 s blows up (w dt = 125).
  scene["sweep"] = {{"mode", "grid"},
                    {"parameters", {{{"path", "forces.spring.stiffness"}, {"dist", "list"}, {"values", {kOmega * kOmega, 1e8}}}}}};
  scene["solver"]["allow_unstable"] = true;
  const simphant::JobResult r = simphant::run_job(options_for(scene, "diverged.h5"));
  ASSERT_EQ(r.summary.at("instances_diverged"), 1);
  simphant::h5::Handle f = simphant::h5::open_file_readonly(r.out_file);
  const std::vector<double> pos = read_doubles(f.id(), "error_estimate/position");
  const std::vector<double> rot = read_doubles(f.id(), "error_estimate/orientation");
  std::vector<std::int8_t> status(2);
  simphant::h5::read_dataset(f.id(), "status", H5T_NATIVE_INT8, status.data(), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(std::isnan(pos[i]), status[i] != 0) << i;
    EXPECT_EQ(std::isnan(rot[i]), status[i] != 0) << i;
  }
}

// A fixed-step run's step figures: accepted = steps per instance, rejected 0, min = max = dt,
// in the summary, the root attributes and `simphant run --json`; no /step_statistics.
TEST(StepReport, FixedStepRunFigures) {
  json scene = oscillators("rk4", 0.0125);
  scene["solver"].erase("error_estimate");
  const simphant::JobResult r = simphant::run_job(options_for(scene, "fixed.h5"));
  ASSERT_EQ(r.exit_code, 0);
  const std::int64_t steps = r.summary.at("steps").get<std::int64_t>();
  EXPECT_EQ(steps, 90);
  EXPECT_EQ(r.summary.at("integrator"), "rk4");
  EXPECT_EQ(r.summary.at("accepted_steps"), 2 * steps);
  EXPECT_EQ(r.summary.at("rejected_steps"), 0);
  EXPECT_EQ(r.summary.at("min_step_s"), 0.0125);
  EXPECT_EQ(r.summary.at("max_step_s"), 0.0125);
  EXPECT_TRUE(r.summary.at("error_estimate_position_m").is_null());
  {
    simphant::h5::Handle f = simphant::h5::open_file_readonly(r.out_file);
    EXPECT_EQ(simphant::h5::read_attr_string(f.id(), "integrator"), "rk4");
    EXPECT_EQ(simphant::h5::read_attr_int64(f.id(), "accepted_steps"), 2 * steps);
    EXPECT_EQ(simphant::h5::read_attr_int64(f.id(), "rejected_steps"), 0);
    EXPECT_EQ(simphant::h5::read_attr_double(f.id(), "min_step_s"), 0.0125);
    EXPECT_EQ(simphant::h5::read_attr_double(f.id(), "max_step_s"), 0.0125);
    EXPECT_FALSE(simphant::h5::exists(f.id(), "step_statistics"));
    EXPECT_FALSE(simphant::h5::exists(f.id(), "error_estimate"));
  }
  // The CLI: the same keys in --json, and the text summary's line.
  const fs::path scene_file = temp_dir() / "fixed_cli.json";
  {
    std::FILE* out = std::fopen(scene_file.c_str(), "w");
    ASSERT_NE(out, nullptr);
    const std::string text = scene.dump();
    std::fwrite(text.data(), 1, text.size(), out);
    std::fclose(out);
  }
  const auto cli = [&](const std::vector<std::string>& extra, const std::string& tag, std::string* out) {
    std::vector<std::string> args = {"run", scene_file.string(), "--backend", "cpu", "--threads", "1", "--out",
                                     (temp_dir() / (tag + ".h5")).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const simphant::test::Child c =
        simphant::test::start_simphant(args, temp_dir() / (tag + ".out"), temp_dir() / (tag + ".err"));
    const simphant::test::Exit e = simphant::test::wait_child(c, 120);
    *out = simphant::test::read_text(c.out_file);
    return e.exited ? e.code : -1;
  };
  std::string json_out, text_out;
  ASSERT_EQ(cli({"--json"}, "fixed_cli", &json_out), 0) << json_out;
  const json j = json::parse(json_out);
  EXPECT_EQ(j.at("integrator"), "rk4");
  EXPECT_EQ(j.at("accepted_steps"), 2 * steps);
  EXPECT_EQ(j.at("rejected_steps"), 0);
  EXPECT_EQ(j.at("min_step_s"), 0.0125);
  EXPECT_EQ(j.at("max_step_s"), 0.0125);
  ASSERT_EQ(cli({"--error-estimate"}, "fixed_cli_text", &text_out), 0) << text_out;
  EXPECT_NE(text_out.find("integrator         rk4: 180 accepted, 0 rejected steps"), std::string::npos) << text_out;
  EXPECT_NE(text_out.find("error estimate     max "), std::string::npos) << text_out;
}

// The memory estimate counts the dt/2 batch: a second Simulator and copy of the models.
TEST(ErrorEstimate, MemoryEstimateCountsTheHalfStepBatch) {
  json scene = oscillators("rk4", 0.0125);
  scene["sweep"] = {{"mode", "random"}, {"instances", 1000},
                    {"parameters", {{{"path", "bodies.slider.mass"}, {"dist", "uniform"}, {"low", 0.9}, {"high", 1.1}}}}};
  simphant::JobOptions o = options_for(scene, "memory.h5");
  const simphant::MemoryEstimate with = simphant::estimate_run_memory(simphant::parse_scene(scene.dump()), o);
  scene["solver"]["error_estimate"] = false;
  const simphant::MemoryEstimate without = simphant::estimate_run_memory(simphant::parse_scene(scene.dump()), o);
  EXPECT_EQ(without.error_estimate, 0.0);
  EXPECT_GE(with.error_estimate, with.models + with.simulator.total());
  EXPECT_NEAR(with.total() - without.total(), with.error_estimate, 1e-6 * with.total());
  EXPECT_NE(with.describe().find("error estimate (dt/2 batch)"), std::string::npos) << with.describe();
}

// Shards of an adaptive run merged: the step counts add up, the step range spans the
// shards', the per-instance /step_statistics are merged like any (I) dataset.
TEST(StepReport, MergedShardsAddTheirSteps) {
  json scene = oscillators("dopri5", 0.0125);
  scene["solver"].erase("error_estimate");
  scene["sweep"] = {{"mode", "grid"},
                    {"parameters", {{{"path", "forces.spring.stiffness"}, {"dist", "list"},
                                     {"values", {kOmega * kOmega, 4 * kOmega * kOmega, 9 * kOmega * kOmega}}}}}};
  simphant::MergeOptions m;
  m.out = (temp_dir() / "merged.h5").string();
  std::int64_t accepted = 0, rejected = 0;
  double lo = INFINITY, hi = 0;
  for (int k = 0; k < 2; ++k) {
    simphant::JobOptions o = options_for(scene, "shard" + std::to_string(k) + ".h5");
    o.shard_index = k;
    o.shard_count = 2;
    const simphant::JobResult r = simphant::run_job(o);
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.summary.at("integrator"), "dopri5");
    accepted += r.summary.at("accepted_steps").get<std::int64_t>();
    rejected += r.summary.at("rejected_steps").get<std::int64_t>();
    lo = std::min(lo, r.summary.at("min_step_s").get<double>());
    hi = std::max(hi, r.summary.at("max_step_s").get<double>());
    m.shards.push_back(r.out_file);
  }
  simphant::merge_shards(m);
  simphant::h5::Handle f = simphant::h5::open_file_readonly(m.out);
  EXPECT_EQ(simphant::h5::read_attr_int64(f.id(), "accepted_steps"), accepted);
  EXPECT_EQ(simphant::h5::read_attr_int64(f.id(), "rejected_steps"), rejected);
  EXPECT_EQ(simphant::h5::read_attr_double(f.id(), "min_step_s"), lo);
  EXPECT_EQ(simphant::h5::read_attr_double(f.id(), "max_step_s"), hi);
  std::vector<std::int64_t> per(3);
  simphant::h5::read_dataset(f.id(), "step_statistics/accepted", H5T_NATIVE_INT64, per.data(), 3);
  EXPECT_EQ(per[0] + per[1] + per[2], accepted);
  EXPECT_LT(per[0], per[2]);  // the stiffer spring takes more steps
}
