// The recorded frame /contacts (I, P, 4) (docs/contact.md, "Outputs";
// sim/contact_frames.hpp), written by `simphant run` for every scene with contact pairs:
//  - a sphere set down on the ground comes to rest: its pair's normal force is its
//    weight, the penetration m g / K (linear law), one contact, no friction;
//  - the same sphere launched sliding: while it slips faster than 100 v_eps the friction
//    force is mu times the normal force (regularised Coulomb, to 1e-3), and once it
//    rolls the friction falls to the rolling resistance's share (none here: below 1 %);
//  - the dataset's dimensions, pair names, component names and units;
//  - Solo-12 in joint coordinates (solver aba): the robot's frames carry the maximal
//    model's bodies, so the four feet's normal forces at rest sum to its weight.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "robot_data.hpp"
#include "solo12_scene.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/io/h5_objects.hpp"
#include "simphant/job/run_job.hpp"

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
