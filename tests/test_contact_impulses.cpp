// The recorded frame /contact_impulses (I, P) (docs/contact.md, "Outputs";
// job/contact_impulses.hpp): each pair's normal impulse over the interval since the
// previous frame, from the step loop's samples of the contact force (the contacts
// reductions over time):
//  - a ball at rest on the ground: every frame's impulse is its weight times the frame's
//    duration (1e-9 relative), 0 at the first frame;
//  - a ball bouncing off the ground (undamped linear law, no friction) with frames every
//    7 steps, so that frame boundaries cut through the 10 ms impact: per frame, the
//    impulse less gravity's equals the change of the ball's momentum between the frames,
//    within the quadrature's error (below); over the run the impulses sum to the change of
//    momentum plus gravity's impulse m g T;
//  - a robot in joint coordinates (a free-body box, aba and cga, scalar and in SIMD
//    lanes) at rest on its four corners: as the ball;
//  - the dataset is written only where the step loop samples the contact forces (the
//    contacts reductions, a fixed-step integrator): not without them;
//  - a run stopped between frames and resumed writes the same impulses, bit for bit, as
//    a run that never stopped (its checkpoint carries the last frame's sums);
//  - with frames first_last the last frame's interval starts at the first frame: its
//    impulse is the sum of every frame's of the same run recorded in full.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/io/h5_file.hpp"
#include "simphant/io/h5_objects.hpp"
#include "simphant/job/run_job.hpp"
#include "temp_dir.hpp"

namespace simphant {
namespace {

using json = nlohmann::json;

const std::filesystem::path& temp_dir() {
  static const std::filesystem::path dir = test::make_process_temp_dir("contact_impulses");
  return dir;
}

constexpr double kMass = 1.0, kG = 9.81, kK = 1e5, kDt = 1e-4;

/// A 1 kg ball of radius 5 cm, its centre at height z moving down at v, on the ground
/// (linear law K = 1e5 N/m, restitution e, no friction), frames every `every` steps.
json ball(double z, double v, double e, int every, double t_end) {
  return {{"name", "ball"},
          {"gravity", {0, 0, -kG}},
          {"bodies",
           {{{"name", "ball"},
             {"mass", kMass},
             {"inertia", {1e-3, 1e-3, 1e-3}},
             {"position", {0, 0, z}},
             {"velocity", {0, 0, -v}},
             {"collision", {{"type", "sphere"}, {"radius", 0.05}}}}}},
          {"contact",
           {{"ground", json::object()},
            {"materials",
             {{"default", {{"stiffness", kK}, {"exponent", 1}, {"restitution", e}, {"friction", 0.0}}}}}}},
          {"solver", {{"dt", kDt}, {"t_end", t_end}, {"record_every", every}}},
          {"output", {{"reductions", {"contacts"}}}}};
}

JobOptions options(const json& doc, const std::string& name) {
  JobOptions o;
  o.scene = (temp_dir() / (name + ".json")).string();
  o.scene_text = doc.dump();
  o.threads = 1;
  o.backend = "cpu";
  o.checkpoint_every_s = 0;
  o.out = (temp_dir() / (name + ".h5")).string();
  std::filesystem::remove(o.out);
  return o;
}

struct Recorded {
  std::vector<double> time, impulses, state;  ///< (T), (T, 1, 1), (T, 1, 1, 13)
};

Recorded read_run(const std::string& out) {
  const h5::Handle f = h5::open_file_readonly(out);
  Recorded r;
  r.time = h5::read_doubles(f.id(), "time");
  r.impulses = h5::read_doubles(f.id(), "contact_impulses");
  r.state = h5::read_doubles(f.id(), "state");
  return r;
}

TEST(ContactImpulses, ABallAtRestTakesItsWeightTimesTheFrame) {
  const JobOptions o = options(ball(0.05 - kMass * kG / kK, 0, 0.3, 10, 0.5), "rest");
  ASSERT_EQ(run_job(o).exit_code, 0);
  const Recorded r = read_run(o.out);
  ASSERT_EQ(r.impulses.size(), r.time.size());
  EXPECT_EQ(r.impulses[0], 0) << "no interval before the first frame";
  for (std::size_t k = 1; k < r.time.size(); ++k)
    EXPECT_NEAR(r.impulses[k], kMass * kG * (r.time[k] - r.time[k - 1]), 1e-9 * kMass * kG * 1e-3) << k;
}

/// The box of tests/data/urdf/box_object.urdf (0.5 kg, 0.2 x 0.1 x 0.05 m, its collision
/// box centred on its centre of mass), a free body in joint coordinates (solver aba or
/// cga), resting flat on the ground on its four bottom corners, each at the penetration
/// m g / (4 K) of the linear law, frames every `every` steps.
constexpr double kBoxMass = 0.5;
json box_at_rest(const std::string& solver, int every) {
  return {{"name", "box"},
          {"robot",
           {{"urdf", std::string(SIMPHANT_SOURCE_DIR) + "/tests/data/urdf/box_object.urdf"},
            {"urdf_collision", true},
            {"base", {{"position", {0, 0, 0.025 - kBoxMass * kG / (4 * kK)}}}}}},
          {"contact",
           {{"ground", json::object()},
            {"materials",
             {{"default", {{"stiffness", kK}, {"exponent", 1}, {"restitution", 0.3}, {"friction", 0.5}}}}}}},
          {"solver", {{"type", solver}, {"dt", kDt}, {"t_end", 0.05}, {"record_every", every}}},
          {"output", {{"reductions", {"contacts"}}}}};
}

TEST(ContactImpulses, ARobotAtRestTakesItsWeightTimesTheFrame) {
  for (const char* solver : {"aba", "cga"})
    for (const char* backend : {"cpu", "cpu-simd"}) {
      SCOPED_TRACE(std::string(solver) + " " + backend);
      JobOptions o = options(box_at_rest(solver, 10), std::string("robot_rest_") + solver + "_" + backend);
      o.backend = backend;
      ASSERT_EQ(run_job(o).exit_code, 0);
      const Recorded r = read_run(o.out);
      ASSERT_EQ(r.impulses.size(), r.time.size());
      EXPECT_EQ(r.impulses[0], 0);
      for (std::size_t k = 1; k < r.time.size(); ++k)
        EXPECT_NEAR(r.impulses[k], kBoxMass * kG * (r.time[k] - r.time[k - 1]), 1e-9 * kBoxMass * kG * 1e-3) << k;
      const h5::Handle f = h5::open_file_readonly(o.out);
      const std::vector<double> peak = h5::read_doubles(f.id(), "reductions/contacts/max");
      ASSERT_EQ(peak.size(), 4u) << "one pair: normal force, friction force, penetration, count";
      EXPECT_NEAR(peak[0], kBoxMass * kG, 1e-9 * kBoxMass * kG);
      EXPECT_EQ(peak[3], 4.0) << "the four bottom corners";
    }
}

TEST(ContactImpulses, ABounceBalancesTheMomentumFrameByFrame) {
  // 1 m/s onto the ground, e = 1: a half sine of 9.9 ms (omega = sqrt(K / m) = 316 rad/s).
  const double v = 1.0;
  const JobOptions o = options(ball(0.0501, v, 1.0, 7, 0.02), "bounce");
  ASSERT_EQ(run_job(o).exit_code, 0);
  const Recorded r = read_run(o.out);
  const std::size_t T = r.time.size();
  ASSERT_GT(T, 20u);
  // Quadrature error of a frame (the trapezoid over the step-start samples against RK4's
  // own integration of the force): the kink of F at the first touch, slope jump K v,
  // gives at most K v dt^2 / 4 in the step that holds it; the smooth part at most
  // (steps) dt^3 max|F''| / 12 with |F''| <= K v omega (both rules err alike: twice that):
  // 2.9e-4 N s; measured 1.0e-4 at worst, and 6.5e-5 over the whole bounce.
  const double omega = std::sqrt(kK / kMass);
  const double bound = kK * v * kDt * kDt / 4 + 2 * 7 * std::pow(kDt, 3) * kK * v * omega / 12;
  double total = 0;
  int touching = 0;
  for (std::size_t k = 1; k < T; ++k) {
    const double dt_frame = r.time[k] - r.time[k - 1];
    const double dp = kMass * (r.state[13 * k + 9] - r.state[13 * (k - 1) + 9]);  // v_z
    EXPECT_NEAR(r.impulses[k] - kMass * kG * dt_frame, dp, bound) << "frame " << k;
    total += r.impulses[k];
    touching += r.impulses[k] > 0.01 ? 1 : 0;
  }
  EXPECT_GT(touching, 10) << "the impact spans many frames";
  const double dp_all = kMass * (r.state[13 * (T - 1) + 9] - r.state[9]);
  EXPECT_NEAR(total, dp_all + kMass * kG * (r.time[T - 1] - r.time[0]), 3 * bound);
}

TEST(ContactImpulses, WrittenOnlyWithTheContactSamples) {
  json doc = ball(0.05, 0, 0.3, 10, 0.01);
  doc.erase("output");
  const JobOptions o = options(doc, "no_reductions");
  ASSERT_EQ(run_job(o).exit_code, 0);
  const h5::Handle f = h5::open_file_readonly(o.out);
  EXPECT_TRUE(h5::exists(f.id(), "contacts"));
  EXPECT_FALSE(h5::exists(f.id(), "contact_impulses")) << "no step samples of the contact force";
}

TEST(ContactImpulses, FirstLastFramesHoldTheWholeRunsImpulse) {
  json doc = ball(0.0501, 1.0, 0.5, 7, 0.02);
  const JobOptions every = options(doc, "every");
  ASSERT_EQ(run_job(every).exit_code, 0);
  doc["output"]["frames"] = "first_last";
  const JobOptions ends = options(doc, "first_last");
  ASSERT_EQ(run_job(ends).exit_code, 0);
  const Recorded a = read_run(every.out), b = read_run(ends.out);
  ASSERT_EQ(b.impulses.size(), 2u);
  double sum = 0;
  for (double j : a.impulses) sum += j;
  EXPECT_EQ(b.impulses[0], 0);
  EXPECT_NEAR(b.impulses[1], sum, 1e-12 * sum) << "the intervals' sums add up (rounding of the differences)";
}

TEST(ContactImpulses, ResumedRunEqualsUninterruptedRun) {
  const json doc = ball(0.0501, 1.0, 0.5, 7, 0.02);
  const JobOptions whole = options(doc, "whole");
  ASSERT_EQ(run_job(whole).exit_code, 0);
  const JobOptions part = options(doc, "part");
  int calls = 0;
  JobHooks hooks;
  hooks.progress = [&](const JobProgress&) { ++calls; };
  hooks.stop_requested = [&] { return calls >= 2; };
  ASSERT_EQ(run_job(part, hooks).exit_code, 130);
  JobOptions resume;
  resume.resume = part.out;
  resume.threads = 1;
  resume.checkpoint_every_s = 0;
  ASSERT_EQ(run_job(resume).exit_code, 0);
  const Recorded a = read_run(whole.out), b = read_run(part.out);
  ASSERT_EQ(a.impulses.size(), b.impulses.size());
  EXPECT_EQ(0, std::memcmp(a.impulses.data(), b.impulses.data(), a.impulses.size() * sizeof(double)));
}

}  // namespace
}  // namespace simphant
