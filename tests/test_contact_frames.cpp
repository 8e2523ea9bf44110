// The recorded frame /contacts (I, P, 4) (docs/contact.md, "Outputs";
// sim/contact_frames.hpp), written by `simphant run` for every scene with contact pairs:
//  - a sphere set down on the ground comes to rest: its pair's normal force is its
//    weight, the penetration m g / K (linear law), one contact, no friction;
//  - the same sphere launched sliding: while it slips faster than 100 v_eps the friction
//    force is mu times the normal force (regularised Coulomb, to 1e-3), and once it
//    rolls the friction falls to the rolling resistance's share (none here: below 1 %);
//  - the dataset's dimensions, pair names, component names and units;
//  - Solo-12 in joint coordinates (solver aba): the robot's frames carry the maximal
//    model's bodies, so the four feet's normal forces at rest sum to its weight;
//  - contact_points: a box pressed into the ground has its four corner contacts midway
//    between the surfaces, normals up, normal forces summing to its pair's normal_force;
//    a pair apart and an instance with a non-finite state are NaN;
//  - contact_wrenches: on a box pressed into the ground and a ball pressed into the box,
//    both sliding, each pair's wrench on its shape B equals the sum over its contacts of
//    the normal and friction forces and their moments about W's origin taken from the
//    contact points (and rolling torques), and shape A's body takes the opposite; a pair
//    apart is zero and an instance with a non-finite state NaN;
//  - centres_of_mass: the mass-weighted mean of the bodies' positions, per instance;
//  - the reductions over time /reductions/contacts (sampled every step): a ball's impact
//    peak against the closed form of the linear spring-dashpot, found between frames a
//    thousand steps apart, and equal to the maximum of frames recorded every step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "robot_data.hpp"
#include "solo12_scene.hpp"
#include "simphant/contact/contact_law.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/io/h5_objects.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/contact/contact_wrench.hpp"
#include "simphant/sim/centre_of_mass.hpp"
#include "simphant/sim/contact_frames.hpp"
#include "simphant/sim/recorded_body_kin.hpp"

namespace simphant {
namespace {

using json = nlohmann::json;

std::filesystem::path temp_dir() {
  const std::filesystem::path d = std::filesystem::temp_directory_path() / "simphant_contact_frames";
  std::filesystem::create_directories(d);
  return d;
}

/// Runs `doc` on the cpu backend into <name>.h5 and returns the file's /contacts
/// (T x I x P x 4, flattened) with its frame count.
std::vector<double> run_contacts(const json& doc, const std::string& name, std::size_t& frames) {
  JobOptions o;
  o.scene = (temp_dir() / (name + ".json")).string();
  o.scene_text = doc.dump();
  o.threads = 1;
  o.backend = "cpu";
  o.out = (temp_dir() / (name + ".h5")).string();
  std::filesystem::remove(o.out);
  o.checkpoint_every_s = 0;
  const JobResult r = run_job(o, JobHooks{});
  EXPECT_EQ(r.exit_code, 0) << name;
  const h5::Handle f = h5::open_file_readonly(o.out);
  const std::vector<double> c = h5::read_doubles(f.id(), "contacts");
  const std::vector<double> t = h5::read_doubles(f.id(), "time");
  frames = t.size();
  return c;
}

/// A 1 kg ball of radius 5 cm on the ground (linear law K = 1e5 N/m, e = 0.3, mu = 0.5,
/// v_eps = 1 mm/s), its centre at height z, moving at vx along x.
json ball(double z, double vx, double t_end) {
  return {{"name", "ball"},
          {"gravity", {0, 0, -9.81}},
          {"bodies",
           {{{"name", "ball"},
             {"mass", 1.0},
             {"inertia", {1e-3, 1e-3, 1e-3}},
             {"position", {0, 0, z}},
             {"velocity", {vx, 0, 0}},
             {"collision", {{"type", "sphere"}, {"radius", 0.05}}}}}},
          {"contact",
           {{"ground", json::object()},
            {"materials",
             {{"default",
               {{"stiffness", 1e5}, {"exponent", 1}, {"restitution", 0.3}, {"friction", 0.5}, {"slip_speed", 1e-3}}}}}}},
          {"solver", {{"dt", 1e-4}, {"t_end", t_end}, {"record_every", 10}}}};
}

TEST(ContactFrames, ABallAtRestCarriesItsWeight) {
  const double m = 1, g = 9.81, K = 1e5;
  std::size_t T = 0;
  const std::vector<double> c = run_contacts(ball(0.05, 0, 1.0), "rest", T);
  ASSERT_EQ(c.size(), T * 4);
  const double* last = c.data() + (T - 1) * 4;
  EXPECT_NEAR(last[0], m * g, 1e-6 * m * g) << "normal force";
  EXPECT_LT(last[1], 1e-9) << "no friction at rest on level ground";
  EXPECT_NEAR(last[2], m * g / K, 1e-9) << "penetration";
  EXPECT_EQ(last[3], 1) << "one contact";
  // Before the drop (the ball's surface touching the ground at t = 0): no force.
  EXPECT_EQ(c[0], 0);
}

TEST(ContactFrames, SlidingFrictionIsMuTimesTheNormalForce) {
  const double mu = 0.5, v0 = 1.0, g = 9.81;
  std::size_t T = 0;
  // Set down at its rest penetration, sliding at 1 m/s without spin: it slips for
  // 2 v0 / (7 mu g) = 58 ms, then rolls.
  const std::vector<double> c = run_contacts(ball(0.05 - g / 1e5, v0, 0.2), "slide", T);
  ASSERT_EQ(c.size(), T * 4);
  int sliding = 0, rolling = 0;
  for (std::size_t f = 1; f < T; ++f) {
    const double t = 1e-3 * f, slip = v0 - 3.5 * mu * g * t;  // until rolling: v - R omega
    const double* p = c.data() + 4 * f;
    if (slip > 0.1) {  // 100 v_eps
      EXPECT_NEAR(p[1] / p[0], mu, 1e-3 * mu) << "t = " << t;
      ++sliding;
    } else if (t > 0.08) {
      EXPECT_LT(p[1], 0.01 * mu * p[0]) << "t = " << t;
      ++rolling;
    }
  }
  EXPECT_GT(sliding, 20);
  EXPECT_GT(rolling, 50);
}

TEST(ContactFrames, DatasetDescribesItsPairsAndComponents) {
  std::size_t T = 0;
  run_contacts(ball(0.05, 0, 0.01), "describe", T);
  const h5::Handle f = h5::open_file_readonly((temp_dir() / "describe.h5").string());
  const h5::Handle d(H5Dopen2(f.id(), "contacts", H5P_DEFAULT), H5Dclose);
  const h5::Handle space(H5Dget_space(d.id()), H5Sclose);
  hsize_t dims[4] = {0, 0, 0, 0};
  ASSERT_EQ(H5Sget_simple_extent_ndims(space.id()), 4);
  H5Sget_simple_extent_dims(space.id(), dims, nullptr);
  EXPECT_EQ(dims[0], T);
  EXPECT_EQ(dims[1], 1u);  // instances
  EXPECT_EQ(dims[2], 1u);  // pairs
  EXPECT_EQ(dims[3], 4u);
  EXPECT_EQ(h5::read_strings(f.id(), "contact_pair"), std::vector<std::string>{"contact ground ball[0]"});
  EXPECT_EQ(h5::read_strings(f.id(), "contact_component"),
            (std::vector<std::string>{"normal_force", "friction_force", "penetration", "count"}));
  EXPECT_EQ(h5::attr_text(d.id(), "units"), "['N', 'N', 'm', '1']");
}

/// The normal force of a ball of mass m falling onto a linear spring-dashpot (stiffness K,
/// damping D) under gravity g, in contact from t = 0 with penetration delta0 and approach
/// speed v0: m delta'' = m g - K delta - D delta' while the force is positive, so
/// F(t) = K delta + D delta' with delta = m g / K + x, x the damped oscillation from
/// x(0) = delta0 - m g / K, x'(0) = v0. Returns F; the penetration in `delta`.
double dashpot_force(double m, double K, double D, double g, double delta0, double v0, double t, double& delta) {
  const double w = std::sqrt(K / m), zeta = D / (2 * std::sqrt(K * m)), wd = w * std::sqrt(1 - zeta * zeta);
  const double A = delta0 - m * g / K, B = (v0 + zeta * w * A) / wd, e = std::exp(-zeta * w * t);
  const double c = std::cos(wd * t), s = std::sin(wd * t);
  const double x = e * (A * c + B * s);
  const double xd = e * ((B * wd - zeta * w * A) * c - (A * wd + zeta * w * B) * s);
  delta = m * g / K + x;
  return K * delta + D * xd;
}

/// What a run with output.reductions "contacts" wrote: /reductions/contacts/max and
/// time_of_max (I x P x 4), the frames' /contacts (T x I x P x 4) and /time (T).
struct ContactReduction {
  std::vector<double> max, time_of_max, frames, time;
};

ContactReduction run_contact_reduction(json doc, const std::string& name) {
  doc["output"] = {{"reductions", {"contacts"}}};
  ContactReduction r;
  std::size_t T = 0;
  r.frames = run_contacts(doc, name, T);
  const h5::Handle f = h5::open_file_readonly((temp_dir() / (name + ".h5")).string());
  r.time = h5::read_doubles(f.id(), "time");
  r.max = h5::read_doubles(f.id(), "reductions/contacts/max");
  r.time_of_max = h5::read_doubles(f.id(), "reductions/contacts/time_of_max");
  return r;
}

TEST(ContactReductions, ImpactPeakBetweenFramesMatchesTheDashpotClosedForm) {
  // The ball starts in contact (1 nm deep, so that the law's damping acts from the first
  // stage on) falling at 1 m/s; the linear law with Tsuji's damping at n = 1 is the
  // spring-dashpot K delta + D delta', D = 2 zeta sqrt(m K).
  const double m = 1, g = 9.81, K = 1e5, R = 0.05, v0 = 1.0, dt = 1e-4;
  json doc = ball(R - 1e-9, 0, 0.03);
  doc["bodies"][0]["velocity"] = {0, 0, -v0};
  doc["contact"]["materials"]["default"]["restitution"] = 0.9;  // the peak mid-contact, not at the onset
  doc["solver"]["record_every"] = 1000;  // frames at t = 0 and the end only
  const double delta0 = R - (R - 1e-9);
  const ContactReduction sparse = run_contact_reduction(doc, "peak_sparse");
  ASSERT_EQ(sparse.max.size(), 4u);
  // The closed form's peak: the force's maximum over a grid 1000 times finer than dt.
  const double zeta = tsuji_damping_ratio(0.9, 1.0), D = 2 * zeta * std::sqrt(K * m);
  double F_max = 0, t_max = 0, delta_max = 0;
  for (int k = 0; k <= 200000; ++k) {
    double delta = 0;
    const double t = 1e-7 * k, F = dashpot_force(m, K, D, g, delta0, v0, t, delta);
    if (F > F_max) F_max = F, t_max = t;
    delta_max = std::max(delta_max, delta);
  }
  // The step grid samples the peak within half a step of it: below it by at most
  // (omega dt / 2)^2 / 2 of it (the force's curvature at its maximum, omega^2 F_max, with
  // omega = sqrt(K / m)); RK4's own error on this linear motion is far smaller (1e-8).
  const double omega = std::sqrt(K / m), sampling = 0.5 * std::pow(0.5 * omega * dt, 2);
  EXPECT_LE(sparse.max[0], F_max * (1 + 1e-7));
  EXPECT_GE(sparse.max[0], F_max * (1 - sampling - 1e-7));
  EXPECT_NEAR(sparse.time_of_max[0], t_max, dt);
  EXPECT_LE(sparse.max[2], delta_max * (1 + 1e-7));
  EXPECT_GE(sparse.max[2], delta_max * (1 - sampling - 1e-7)) << "the largest penetration";
  EXPECT_EQ(sparse.max[3], 1) << "one contact";
  // The last frame, 300 steps on, is in flight after the rebound.
  ASSERT_EQ(sparse.time.size(), 2u);
  EXPECT_EQ(sparse.frames[4], 0);

  // Recorded every step, the frames' maximum is the reduction's, at the same time: the
  // same pair function on the same states (the steps' start states and the end state).
  doc["solver"]["record_every"] = 1;
  const ContactReduction dense = run_contact_reduction(doc, "peak_dense");
  std::size_t arg = 0;
  for (std::size_t k = 0; k < dense.time.size(); ++k)
    if (dense.frames[4 * k] > dense.frames[4 * arg]) arg = k;
  EXPECT_EQ(dense.max[0], dense.frames[4 * arg]);
  EXPECT_NEAR(dense.time_of_max[0], dense.time[arg], 1e-12);
  EXPECT_EQ(dense.max[0], sparse.max[0]) << "recording does not change the run";
  EXPECT_EQ(dense.time_of_max[0], sparse.time_of_max[0]);
}

/// The ball of ball() and a 2 kg box of 0.2 x 0.3 x 0.1 m (body 1); the states place them.
json ball_and_box() {
  json doc = ball(1.0, 0, 0.1);
  doc["bodies"].push_back({{"name", "box"},
                           {"mass", 2.0},
                           {"inertia", {1e-2, 1e-2, 1e-2}},
                           {"position", {0, 0, 0.049}},
                           {"collision", {{"type", "box"}, {"size", {0.2, 0.3, 0.1}}}}});
  return doc;
}

TEST(ContactPoints, ABoxPressedIntoTheGroundHasItsFourCorners) {
  // The box 1 mm into the ground, turned 0.3 rad about z, and the ball 1 m above it;
  // instance 1 with a NaN state.
  const Scene scene = parse_scene(ball_and_box().dump());
  const std::vector<std::string> names = contact_pair_names(scene.model);
  ASSERT_EQ(names.size(), 3u);  // ground-ball, ground-box, ball-box
  const double c = std::cos(0.15), s = std::sin(0.15), depth = 1e-3, yaw = 0.3;
  std::vector<double> states(2 * 2 * 13, 0.0);
  const double ball_state[13] = {0, 0, 1.0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const double box_state[13] = {0.5, -0.2, 0.05 - depth, c, 0, 0, s, 0.1, 0, 0, 0, 0, 0};
  std::copy(ball_state, ball_state + 13, states.begin());
  std::copy(box_state, box_state + 13, states.begin() + 13);
  std::fill(states.begin() + 26, states.end(), std::nan(""));
  const std::vector<Model> models{scene.model};
  std::vector<double> frames(2 * 3 * kContactRecordComponents), points(2 * 3 * kMaxContacts * 7);
  contact_frames(models, 2, states.data(), frames.data());
  contact_points(models, 2, states.data(), points.data());
  const int box_pair = static_cast<int>(std::find(names.begin(), names.end(), "contact ground box[0]") - names.begin());
  ASSERT_LT(box_pair, 3);
  ASSERT_EQ(frames[box_pair * 4 + 3], 4) << "four corners";
  double sum = 0;
  std::vector<bool> corner(4, false);
  for (int k = 0; k < 4; ++k) {
    const double* p = points.data() + (box_pair * kMaxContacts + k) * 7;
    EXPECT_NEAR(p[2], -depth / 2, 1e-15) << "midway between the ground and the corner";
    EXPECT_EQ(p[3], 0);
    EXPECT_EQ(p[4], 0);
    EXPECT_EQ(p[5], 1) << "the normal from the ground (A) to the box (B)";
    EXPECT_GT(p[6], 0);
    sum += p[6];
    // the corner in the box's axes: (x, y) turned back by the yaw
    const double dx = p[0] - 0.5, dy = p[1] + 0.2;
    const double bx = std::cos(yaw) * dx + std::sin(yaw) * dy, by = -std::sin(yaw) * dx + std::cos(yaw) * dy;
    EXPECT_NEAR(std::abs(bx), 0.1, 1e-12);
    EXPECT_NEAR(std::abs(by), 0.15, 1e-12);
    corner[(bx > 0 ? 1 : 0) + (by > 0 ? 2 : 0)] = true;
  }
  EXPECT_EQ(std::count(corner.begin(), corner.end(), true), 4) << "each corner once";
  EXPECT_NEAR(sum, frames[box_pair * 4 + 0], 1e-12 * sum) << "the pair's normal force";
  for (int p = 0; p < 3; ++p) {
    const int used = p == box_pair ? 4 : 0;  // the ball touches nothing
    for (int k = used; k < kMaxContacts; ++k)
      for (int j = 0; j < 7; ++j) EXPECT_TRUE(std::isnan(points[(p * kMaxContacts + k) * 7 + j])) << p << " " << k;
  }
  for (std::size_t j = 3 * kMaxContacts * 7; j < points.size(); ++j) EXPECT_TRUE(std::isnan(points[j])) << j;
}

TEST(ContactWrenches, EqualTheirContactsForcesAndMomentsAndActOppositelyOnShapeA) {
  // The box 1 mm into the ground, turned 0.3 rad about z and sliding at 0.1 m/s, the ball
  // 1 mm into its top, moving at 0.3 m/s and spinning; instance 1 with a NaN state.
  json doc = ball_and_box();
  doc["contact"]["materials"]["default"]["rolling_friction"] = 1e-3;
  const Scene scene = parse_scene(doc.dump());
  const std::vector<std::string> names = contact_pair_names(scene.model);
  ASSERT_EQ(names.size(), 3u);  // ground-ball, ground-box, ball-box
  const double c = std::cos(0.15), s = std::sin(0.15), depth = 1e-3;
  std::vector<double> states(2 * 2 * 13, 0.0);
  const double ball_state[13] = {0.52, -0.21, 0.1 - depth + 0.05 - depth, 1, 0, 0, 0, 0.3, 0.05, 0, 2, -1, 3};
  const double box_state[13] = {0.5, -0.2, 0.05 - depth, c, 0, 0, s, 0.1, 0, 0, 0, 0, 0};
  std::copy(ball_state, ball_state + 13, states.begin());
  std::copy(box_state, box_state + 13, states.begin() + 13);
  std::fill(states.begin() + 26, states.end(), std::nan(""));
  const std::vector<Model> models{scene.model};
  std::vector<double> w(2 * 3 * kContactWrenchComponents);
  contact_wrenches(models, 2, states.data(), w.data());
  int touching = 0;
  int p = 0;
  for (const ForceElement& f : scene.model.forces) {
    if (f.type != ForceType::Contact) continue;
    const BodyKin<double> ka = recorded_body_kin(states.data(), f.body_i), kb = recorded_body_kin(states.data(), f.body_j);
    const ContactPairWrench<double> pw =
        contact_pair_wrench(f.shape_i, ka, f.shape_j, kb, f.contact, static_cast<const double*>(nullptr), true);
    // The forces on B at each contact point and the rolling torques, summed here.
    Vec3d force{0, 0, 0}, moment{0, 0, 0};
    for (int k = 0; k < pw.contacts.count; ++k) {
      const Vec3d fk = pw.normal_force[k] * pw.contacts.contact[k].normal_W + pw.friction_W[k];
      force = force + fk;
      moment = moment + cross(pw.contacts.contact[k].point_W, fk) + pw.rolling_W[k];
    }
    const double* got = w.data() + p * kContactWrenchComponents;
    const double scale = std::max(1.0, norm(force));
    const double expected[6] = {force.x, force.y, force.z, moment.x, moment.y, moment.z};
    for (int j = 0; j < 6; ++j) EXPECT_NEAR(got[j], expected[j], 1e-12 * scale) << names[p] << " component " << j;
    // Shape A's body: the opposite wrench, its torque moved from A's centre to W's origin.
    const Vec3d fa = pw.a.force_W, ta = pw.a.torque_W + cross(ka.r, fa);
    const double opposite[6] = {-fa.x, -fa.y, -fa.z, -ta.x, -ta.y, -ta.z};
    for (int j = 0; j < 6; ++j) EXPECT_NEAR(got[j], opposite[j], 1e-12 * scale) << names[p] << " A, component " << j;
    if (pw.contacts.count > 0) {
      ++touching;
      // B is the box in both: the ground pushes it up, the ball (A, above it) down
      EXPECT_GT(f.body_i == kGround ? force.z : -force.z, 0) << names[p] << " pushes B away from A";
      EXPECT_GT(std::hypot(force.x, force.y), 0) << names[p] << " slides: friction";
    } else {
      for (int j = 0; j < 6; ++j) EXPECT_EQ(got[j], 0) << names[p] << " apart";
    }
    ++p;
  }
  EXPECT_EQ(touching, 2) << "the box on the ground and the ball on the box; the ball is off the ground";
  for (std::size_t j = 3 * kContactWrenchComponents; j < w.size(); ++j) EXPECT_TRUE(std::isnan(w[j])) << j;

  // The centre of mass of the ball (1 kg) and the box (2 kg); NaN for instance 1.
  std::vector<double> com(6);
  centres_of_mass(models, 2, states.data(), com.data());
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(com[j], (1.0 * ball_state[j] + 2.0 * box_state[j]) / 3.0, 1e-15) << j;
    EXPECT_TRUE(std::isnan(com[3 + j])) << j;
  }
}

TEST(ContactFrames, Solo12InJointCoordinatesStandsOnItsFeet) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  json doc = test::solo12_doc("aba", 0.245, 1e-4, 0.01);
  doc["solver"]["t_end"] = 1.0;
  doc["solver"]["record_every"] = 1000;
  std::size_t T = 0;
  const std::vector<double> c = run_contacts(doc, "solo12", T);
  ASSERT_EQ(c.size(), T * 4 * 4);
  double load = 0;
  for (int p = 0; p < 4; ++p) {
    const double* v = c.data() + (T - 1) * 16 + 4 * p;
    EXPECT_EQ(v[3], 1) << "foot " << p << " touches";
    load += v[0];
  }
  // Solo-12's mass from its URDF: 2.5 kg (the base and the twelve links).
  EXPECT_NEAR(load, 2.5 * 9.81, 1e-2 * 2.5 * 9.81) << "the feet carry the weight (quasi-static after 1 s)";
}

}  // namespace
}  // namespace simphant
