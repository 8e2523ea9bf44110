// Reductions over time and joint-frame loads in a run file (io/reductions_writer.hpp,
// io/recorder.hpp; docs/solver.md, "Bearing loads" and "Reductions over time"): the
// layout and attributes, equality with a reduction of every recorded frame, a run stopped
// and resumed, shards merged, and the statically indeterminate components of a
// redundant four-bar.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "simphant/io/h5_file.hpp"
#include "simphant/io/h5_objects.hpp"
#include "simphant/job/merge.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/scene/scene.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using simphant::JobOptions;

namespace {

const fs::path& temp_dir() {
  static const fs::path dir = simphant::test::make_process_temp_dir("reduction_job");
  return dir;
}

// A pendulum whose anchor is off its CoM along the axis (bending), 4 instances, 0.3 s.
std::string pendulum_text() {
  return R"({
    "name": "bearing pendulum",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "mass": 1.0, "inertia": [0.001, 0.02, 0.02], "position": [0.5, 0.1, 0]}],
    "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "bob",
                "frame": {"origin": [0, 0, 0], "z": [0, 1, 0], "x": [1, 0, 0]}}],
    "solver": {"dt": 0.001, "t_end": 0.3, "record_every": 1},
    "sweep": {"mode": "random", "instances": 4, "seed": 7,
              "parameters": [{"path": "bodies.bob.mass", "dist": "uniform", "low": 0.9, "high": 1.1}]}
  })";
}

JobOptions options(const std::string& out_name) {
  JobOptions o;
  o.scene = (temp_dir() / "named_only.json").string();
  o.scene_text = pendulum_text();
  o.threads = 1;
  o.backend = "cpu";
  o.reductions = "all";
  o.checkpoint_every_s = 0;
  o.out = (temp_dir() / out_name).string();
  return o;
}

std::vector<double> read_all(hid_t f, const std::string& path) { return simphant::h5::read_doubles(f, path); }

// Every /reductions/<quantity> that has a per-frame dataset equals max, min, mean, rms
// and the time of the first max of that dataset over its frames (record_every 1: the
// step-start states and the end state), to the rounding of the mean; each group has its
// attributes.
TEST(ReductionJob, EqualReductionOfTheRecordedFrames) {
  const JobOptions o = options("frames.h5");
  ASSERT_EQ(simphant::run_job(o).exit_code, 0);
  const simphant::h5::Handle f = simphant::h5::open_file_readonly(o.out);
  const std::vector<double> time = read_all(f.id(), "time");
  const std::size_t T = time.size();
  ASSERT_EQ(T, 301u);
  for (const std::string q : {"joint_loads", "bearing_loads", "energy", "constraint_violation"}) {
    const std::vector<double> frames = read_all(f.id(), q);
    const std::size_t W = frames.size() / T;  // numbers per frame: I x components
    const std::vector<double> mx = read_all(f.id(), "reductions/" + q + "/max");
    const std::vector<double> mn = read_all(f.id(), "reductions/" + q + "/min");
    const std::vector<double> mean = read_all(f.id(), "reductions/" + q + "/mean");
    const std::vector<double> rms = read_all(f.id(), "reductions/" + q + "/rms");
    const std::vector<double> tmax = read_all(f.id(), "reductions/" + q + "/time_of_max");
    ASSERT_EQ(mx.size(), W) << q;
    EXPECT_EQ(simphant::h5::dataset_dims(f.id(), "reductions/" + q + "/max").size(),
              simphant::h5::dataset_dims(f.id(), q).size() - 1)
        << q;
    for (std::size_t k = 0; k < W; ++k) {
      double a = -INFINITY, b = INFINITY, s = 0, s2 = 0, t = NAN;
      for (std::size_t n = 0; n < T; ++n) {
        const double x = frames[n * W + k];
        if (x > a) {
          a = x;
          t = time[n];
        }
        b = std::min(b, x);
        s += x;
        s2 += x * x;
      }
      EXPECT_EQ(mx[k], a) << q << " " << k;
      EXPECT_EQ(mn[k], b) << q << " " << k;
      EXPECT_EQ(tmax[k], t) << q << " " << k;
      EXPECT_NEAR(mean[k], s / T, 1e-13 * (std::fabs(a) + std::fabs(b))) << q << " " << k;
      EXPECT_NEAR(rms[k], std::sqrt(s2 / T), 1e-13 * (std::fabs(a) + std::fabs(b))) << q << " " << k;
    }
    const simphant::h5::Handle g(H5Gopen2(f.id(), ("reductions/" + q).c_str(), H5P_DEFAULT), H5Gclose);
    EXPECT_EQ(simphant::h5::read_attr_string(g.id(), "sampled"), "every step");
    EXPECT_TRUE(simphant::h5::attr_exists(g.id(), "units"));
    EXPECT_TRUE(simphant::h5::attr_exists(g.id(), "components"));
  }
  // The pendulum's bearing carries a bending moment (its CoM is off the anchor along the axis).
  const std::vector<double> bending = read_all(f.id(), "reductions/bearing_loads/max");
  EXPECT_GT(bending[3], 0.05);
  EXPECT_EQ(simphant::h5::dataset_dims(f.id(), "reductions/reactions/max"), (std::vector<hsize_t>{4, 1, 8}));
  EXPECT_EQ(simphant::h5::dataset_dims(f.id(), "reductions/joint_coordinates/max"), (std::vector<hsize_t>{4, 1}));
  EXPECT_FALSE(simphant::h5::exists(f.id(), "reductions/driver_loads"));  // no drivers
}

// The components of /reductions/reactions and /reductions/joint_loads are the labels of
// the per-frame datasets' component coordinates (one naming style), plus the magnitudes.
TEST(ReductionJob, ComponentLabelsMatchThePerFrameDatasets) {
  const JobOptions o = options("labels.h5");
  ASSERT_EQ(simphant::run_job(o).exit_code, 0);
  const simphant::h5::Handle f = simphant::h5::open_file_readonly(o.out);
  const auto components = [&](const std::string& q) {
    const simphant::h5::Handle g(H5Gopen2(f.id(), ("reductions/" + q).c_str(), H5P_DEFAULT), H5Gclose);
    return simphant::h5::attr_text(g.id(), "components");
  };
  std::vector<std::string> reaction = simphant::h5::read_strings(f.id(), "reaction_component");
  ASSERT_EQ(reaction, (std::vector<std::string>{"f_x", "f_y", "f_z", "tau_x", "tau_y", "tau_z"}));
  EXPECT_EQ(components("reactions"), "['f_x', 'f_y', 'f_z', 'tau_x', 'tau_y', 'tau_z', '|f|', '|tau|']");
  EXPECT_EQ(simphant::h5::read_strings(f.id(), "joint_load_component"),
            (std::vector<std::string>{"f_a", "f_b", "f_v", "m_a", "m_b", "m_v"}));
  EXPECT_EQ(components("joint_loads"), "['f_a', 'f_b', 'f_v', 'm_a', 'm_b', 'm_v']");
}

// A run stopped by a stop request and resumed (its checkpoint carries the accumulators)
// writes the same /reductions, bit for bit, as a run that never stopped.
TEST(ReductionJob, ResumedRunEqualsUninterruptedRun) {
  JobOptions whole = options("whole.h5");
  whole.has_t_end = true;
  whole.t_end = 1.5;
  ASSERT_EQ(simphant::run_job(whole).exit_code, 0);
  JobOptions part = options("part.h5");
  part.has_t_end = true;
  part.t_end = 1.5;
  int calls = 0;
  simphant::JobHooks hooks;
  hooks.progress = [&](const simphant::JobProgress&) { ++calls; };
  hooks.stop_requested = [&] { return calls >= 2; };
  ASSERT_EQ(simphant::run_job(part, hooks).exit_code, 130);
  JobOptions resume;
  resume.resume = part.out;
  resume.threads = 1;
  resume.checkpoint_every_s = 0;
  ASSERT_EQ(simphant::run_job(resume).exit_code, 0);
  const simphant::h5::Handle a = simphant::h5::open_file_readonly(whole.out);
  const simphant::h5::Handle b = simphant::h5::open_file_readonly(part.out);
  for (const std::string q : {"reactions", "joint_loads", "bearing_loads", "energy", "joint_coordinates"})
    for (const std::string s : {"max", "min", "mean", "rms", "time_of_max"}) {
      const std::vector<double> x = read_all(a.id(), "reductions/" + q + "/" + s);
      const std::vector<double> y = read_all(b.id(), "reductions/" + q + "/" + s);
      ASSERT_EQ(x.size(), y.size());
      EXPECT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(double))) << q << "/" << s;
    }
}

// Two shards merged hold the one-shot run's /reductions along the instance axis.
TEST(ReductionJob, MergeConcatenatesAlongTheInstanceAxis) {
  const JobOptions one = options("one.h5");
  ASSERT_EQ(simphant::run_job(one).exit_code, 0);
  simphant::MergeOptions m;
  for (int k = 0; k < 2; ++k) {
    JobOptions s = options("shard" + std::to_string(k) + ".h5");
    s.shard_index = k;
    s.shard_count = 2;
    ASSERT_EQ(simphant::run_job(s).exit_code, 0);
    m.shards.push_back(s.out);
  }
  m.out = (temp_dir() / "merged.h5").string();
  simphant::merge_shards(m);
  const simphant::h5::Handle a = simphant::h5::open_file_readonly(one.out);
  const simphant::h5::Handle b = simphant::h5::open_file_readonly(m.out);
  for (const std::string path : {"reductions/bearing_loads/max", "reductions/energy/time_of_max"}) {
    EXPECT_EQ(read_all(a.id(), path), read_all(b.id(), path)) << path;
    EXPECT_EQ(simphant::h5::dataset_dims(a.id(), path), simphant::h5::dataset_dims(b.id(), path)) << path;
  }
}

// The shipped four-bar (four parallel revolutes: 3 redundant rows) names the statically
// indeterminate components on /joint_loads and /bearing_loads; the pendulum has none.
TEST(ReductionJob, RedundantFourBarMarksIndeterminateLoads) {
  JobOptions o;
  o.scene = std::string(SIMPHANT_SOURCE_DIR) + "/examples/four_bar.json";
  o.threads = 1;
  o.backend = "cpu";
  o.instances = 2;
  o.has_t_end = true;
  o.t_end = 0.01;
  o.checkpoint_every_s = 0;
  o.out = (temp_dir() / "four_bar.h5").string();
  ASSERT_EQ(simphant::run_job(o).exit_code, 0);
  const simphant::h5::Handle f = simphant::h5::open_file_readonly(o.out);
  for (const char* name : {"joint_loads", "bearing_loads"}) {
    const simphant::h5::Handle d(H5Dopen2(f.id(), name, H5P_DEFAULT), H5Dclose);
    ASSERT_TRUE(d.valid()) << name;
    EXPECT_TRUE(simphant::h5::attr_exists(d.id(), "statically_indeterminate")) << name;
  }
  JobOptions plain = options("plain.h5");
  plain.has_t_end = true;
  plain.t_end = 0.01;
  ASSERT_EQ(simphant::run_job(plain).exit_code, 0);
  const simphant::h5::Handle p = simphant::h5::open_file_readonly(plain.out);
  const simphant::h5::Handle d(H5Dopen2(p.id(), "bearing_loads", H5P_DEFAULT), H5Dclose);
  EXPECT_FALSE(simphant::h5::attr_exists(d.id(), "statically_indeterminate"));
}

}  // namespace

namespace {

// The joint-space robot solvers have no constraint forces to reduce: asking for their
// reductions is bad input naming output.reductions (exit code 2 at the CLI); the energy
// is reduced, its max and min bracketing every frame's /energy.
TEST(ReductionJob, JointSpaceSolverRefusesTheConstraintReductions) {
  JobOptions o;
  o.scene = std::string(SIMPHANT_SOURCE_DIR) + "/examples/arm7.json";
  o.solver = "aba";
  o.threads = 1;
  o.backend = "cpu";
  o.instances = 1;
  o.has_t_end = true;
  o.t_end = 0.01;
  o.reductions = "reactions";
  o.checkpoint_every_s = 0;
  o.out = (temp_dir() / "arm7.h5").string();
  try {
    simphant::run_job(o);
    FAIL() << "no error";
  } catch (const simphant::SceneError& e) {
    EXPECT_EQ(e.path(), "output.reductions") << e.what();
    EXPECT_NE(std::string(e.what()).find("energy and contacts"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(o.out));
  o.reductions = "all";
  ASSERT_EQ(simphant::run_job(o).exit_code, 0);
  const simphant::h5::Handle f = simphant::h5::open_file_readonly(o.out);
  EXPECT_FALSE(simphant::h5::exists(f.id(), "reductions/reactions"));
  const std::vector<double> energy = simphant::h5::read_doubles(f.id(), "energy");
  const double max = simphant::h5::read_doubles(f.id(), "reductions/energy/max").at(0),
               min = simphant::h5::read_doubles(f.id(), "reductions/energy/min").at(0);
  for (double e : energy) {
    EXPECT_LE(e, max);
    EXPECT_GE(e, min);
  }
  EXPECT_LT(min, max) << "the arm moved";
}

}  // namespace
