// Rheonomic drivers (docs/solver.md, "Rheonomic drivers"):
//  - the slider-crank of examples/slider_crank_driven.json driven at constant crank speed:
//    piston position, velocity and acceleration against the closed form x(theta) =
//    r cos(theta) + sqrt(l^2 - r^2 sin^2(theta)) and its exact time derivatives over a
//    revolution, and the driving torque against the virtual-work balance computed
//    independently from the closed-form kinematics;
//  - every motion law type drives a pendulum's revolute: angle and rate follow s, s';
//  - a sweep over the law's speed gives per-instance speeds in the Models, the packed
//    ModelView and the CPU backend's motion;
//  - the batched per-thread functions (cuda and cuda-fused sequences) with per-instance
//    clocks equal the CPU reference stepped on each instance's own time;
//  - bad drivers are refused by `simphant check` with exit code 2, naming the field.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cpu_grid_exec.hpp"
#include "host_batch.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/joints/joint_coordinate.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/cpu_backend.hpp"
#include "temp_dir.hpp"

namespace simphant {
namespace {

using json = nlohmann::json;

json example(const std::string& name) {
  std::ifstream in(std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + name + ".json");
  return json::parse(in);
}

struct Driven {
  Model model;
  Data d;
  std::vector<double> Y;
  explicit Driven(const json& doc) : model(compile_model(doc)), d(model), Y(model.ny()) {
    initial_state(model, Y.data());
    const AssemblyResult a = assemble(model, d, Y.data());
    EXPECT_TRUE(a.ok) << a.message << " residual " << a.position_residual;
  }
};

/// The closed-form slider-crank (crank radius r, conrod l, pin angle psi from the x
/// axis towards z, psi = psi0 - w t for a crank turning at w about +y): positions and
/// their first and second derivatives with respect to psi.
struct SliderCrank {
  double r, l;
  double S, S1, S2;  ///< sqrt(l^2 - r^2 sin^2 psi) and its psi-derivatives
  double x, x1, x2;  ///< piston position [m] along x
  double g1, g2;     ///< conrod angle gamma (about +y, sin gamma = r sin psi / l): d/dpsi, d2/dpsi2
  double s, c;
  SliderCrank(double r_, double l_, double psi) : r(r_), l(l_) {
    s = std::sin(psi);
    c = std::cos(psi);
    S = std::sqrt(l * l - r * r * s * s);
    S1 = -r * r * s * c / S;
    S2 = -r * r * (c * c - s * s) / S - r * r * r * r * s * s * c * c / (S * S * S);
    x = r * c + S;
    x1 = -r * s + S1;
    x2 = -r * c + S2;
    g1 = r * c / S;
    g2 = (-r * s * S - r * c * S1) / (S * S);
  }
};

// The slider-crank driven at w = 2 pi rad/s for one revolution (2000 steps of 0.5 ms).
// RK4's global error after one revolution is O((w dt)^4) ~ 1e-10 of the crank radius
// and the Schur solve's relative error ~ eps = 1e-10 (refined), so 1e-8 on the piston's
// position [m], velocity [m/s] and acceleration [m/s^2] (~0.05, 0.3, 2.5 in size) leaves
// two orders of margin while any wrong sign, missing s'' or Phi_t term fails by O(1).
TEST(Drivers, SliderCrankFollowsTheClosedFormAndTheVirtualWorkTorque) {
  json doc = example("slider_crank_driven");
  doc.erase("sweep");
  Driven run(doc);
  const Model& m = run.model;
  ASSERT_EQ(m.n_drivers(), 1);
  ASSERT_EQ(m.drivers[0].row_offset, m.n_rows - 1);
  const double w = m.laws[0].params[1], dt = m.solver.dt;
  ASSERT_NEAR(w, 2 * M_PI, 1e-15);
  const double r = 0.05, l = 0.2, psi0 = M_PI / 3;
  const int N = m.n_bodies(), piston = m.body_index("piston");
  const double m_crank = m.bodies[0].mass, m_rod = m.bodies[1].mass, m_piston = m.bodies[2].mass;
  const double I_crank = m.bodies[0].inertia_B.m[1][1], I_rod = m.bodies[1].inertia_B.m[1][1];
  const double gz = m.gravity.z, F_gas = -5.0, c_fric = 0.02;
  std::vector<double> Ydot(m.ny());
  const int n = static_cast<int>(std::lround(2 * M_PI / w / dt));
  double worst_x = 0, worst_v = 0, worst_a = 0, worst_tau = 0, tau_scale = 0;
  for (int s = 0; s <= n; ++s) {
    const double t = s * dt;
    const SliderCrank k(r, l, psi0 - w * t);
    ASSERT_TRUE(evaluate(m, run.d, t, run.Y.data(), nullptr, Ydot.data()));
    worst_x = std::max(worst_x, std::fabs(state_r(run.Y.data(), piston).x - k.x));
    worst_v = std::max(worst_v, std::fabs(state_v(run.Y.data(), N, piston).x - (-w * k.x1)));
    worst_a = std::max(worst_a, std::fabs(run.d.qddot[6 * piston] - w * w * k.x2));
    // Virtual work with the pin angle psi as the coordinate (psi' = -w, psi'' = 0):
    // sum_k m_k a_k . dr_k/dpsi + I_k alpha_k dtheta_k/dpsi = Q_psi + tau dphi/dpsi, the
    // crank's rotation about +y being phi = psi0 - psi (dphi/dpsi = -1).
    const double cx1 = -0.5 * r * k.s, cz1 = 0.5 * r * k.c, cx2 = -0.5 * r * k.c, cz2 = -0.5 * r * k.s;  // crank CoM
    const double px1 = -r * k.s, pz1 = r * k.c, px2 = -r * k.c, pz2 = -r * k.s;  // crank pin
    const double rx1 = 0.5 * (px1 + k.x1), rz1 = 0.5 * pz1, rx2 = 0.5 * (px2 + k.x2), rz2 = 0.5 * pz2;  // conrod CoM
    const double inertial = w * w * (m_crank * (cx2 * cx1 + cz2 * cz1) + m_rod * (rx2 * rx1 + rz2 * rz1) +
                                     m_piston * k.x2 * k.x1 + I_rod * k.g2 * k.g1);
    // Gravity on the crank and conrod (the piston does not move in z), the gas load on the
    // piston, and the bearing damper's torque -c phi' on the crank (virtual work -c w dphi).
    const double Q_psi = gz * (m_crank * cz1 + m_rod * rz1) + F_gas * k.x1 + c_fric * w;
    const double tau_ref = Q_psi - inertial;
    (void)I_crank;  // the crank turns at constant speed: no inertia torque
    double tau = 0;
    driver_loads(m, run.d, &tau);
    worst_tau = std::max(worst_tau, std::fabs(tau - tau_ref));
    tau_scale = std::max(tau_scale, std::fabs(tau_ref));
    if (s < n) {
      ASSERT_TRUE(rk4_step(m, run.d, t, run.Y.data(), nullptr, dt)) << "step " << s;
    }
  }
  std::printf("slider-crank over one revolution: max |x - x_ref| %.2e m, |v - v_ref| %.2e m/s, |a - a_ref| %.2e "
              "m/s^2, |tau - tau_ref| %.2e N m (max |tau| %.3f N m)\n",
              worst_x, worst_v, worst_a, worst_tau, tau_scale);
  EXPECT_LT(worst_x, 1e-8);
  EXPECT_LT(worst_v, 1e-8);
  EXPECT_LT(worst_a, 1e-8);
  // The torque is a linear function of the accelerations and the state (errors as
  // above) with coefficients of size m r w^2 ~ 1: the same 1e-8 bound applies [N m].
  EXPECT_GT(tau_scale, 0.1);
  EXPECT_LT(worst_tau, 1e-8);
}

json pendulum_with(const json& law) {
  json doc = example("pendulum");
  doc.erase("sweep");
  doc["drivers"] = json::array({{{"name", "swing"}, {"joint", "hinge"}, {"law", law}}});
  return doc;
}

// Each law type drives the pendulum's hinge for 1 s (1000 steps of 1 ms; the table's
// knots span it: past its end the held value has a slope jump that no motion follows): the hinge
// angle (wrapped against s) and rate follow s, s' to 1e-8 at every step (RK4's error on
// laws with derivatives up to ~(2 pi f)^5 ~ 1e5 is ~1e-12; the assembly meets s(0) and
// s'(0) to 1e-10).
TEST(Drivers, EveryLawTypeDrivesAPendulum) {
  const std::vector<json> laws = {
      {{"type", "constant_speed"}, {"initial", 0.0}, {"speed", 3.0}},
      {{"type", "polynomial"}, {"coefficients", {0.2, 1.0, -2.0, 0.5}}},
      {{"type", "rise"}, {"profile", "345"}, {"start", 0.1}, {"duration", 0.5}, {"initial", 0.0}, {"lift", 1.0}},
      {{"type", "rise"}, {"profile", "cycloidal"}, {"start", 0.1}, {"duration", 0.5}, {"initial", 0.0}, {"lift", -0.7}},
      {{"type", "harmonic"}, {"offset", 0.1}, {"amplitude", 0.5}, {"frequency", 2.0}, {"phase", 0.3}},
      {{"type", "table"}, {"time", {0.0, 0.3, 0.6, 1.0}}, {"value", {0.0, 0.4, -0.2, 0.3}}},
  };
  for (const json& law : laws) {
    Driven run(pendulum_with(law));
    const Model& m = run.model;
    const MotionLaw& ml = m.laws[0];
    const Joint& hinge = m.joints[0];
    const double dt = m.solver.dt;
    double worst_angle = 0, worst_rate = 0;
    for (int s = 0; s <= 1000; ++s) {
      const double t = s * dt;
      double sv, sd, sdd;
      motion_law_eval(ml.type, ml.params.data(), static_cast<int>(ml.params.size()), t, sv, sd, sdd);
      set_kinematics(m, run.d, run.Y.data());
      CoordinateRow<double> c;
      joint_coordinate_row(JointCoordinate::Angle, hinge.frame, ground_kin<double>(), run.d.kin[0], c);
      worst_angle = std::max(worst_angle, std::fabs(wrap_angle(c.value - sv)));
      worst_rate = std::max(worst_rate, std::fabs(c.rate - sd));
      if (s < 1000) {
        ASSERT_TRUE(rk4_step(m, run.d, t, run.Y.data(), nullptr, dt))
            << law.dump() << " step " << s << " reason " << int(run.d.failure) << " start violation "
            << run.d.violation_start;
      }
    }
    std::printf("%s: max |angle - s| %.2e rad, |rate - s'| %.2e rad/s\n", law.dump().c_str(), worst_angle, worst_rate);
    EXPECT_LT(worst_angle, 1e-8) << law.dump();
    EXPECT_LT(worst_rate, 1e-8) << law.dump();
  }
}

// A sweep over drivers.crank_drive.law.speed: each instance's Model holds its sampled
// speed, the packed ModelView stores the speed per instance (and motion_law_value
// reads it), and the CPU backend turns each crank at its own speed.
TEST(Drivers, SweptSpeedIsPerInstance) {
  const Scene scene = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/slider_crank_driven.json");
  const int n = 4;
  const SweepSamples samples = sample_sweep(scene.sweep, n);
  ASSERT_EQ(samples.paths[0], "drivers.crank_drive.law.speed");
  const std::vector<Model> models = build_instance_models(scene, samples);
  batch::PackedModel<double> packed = batch::pack_models<double>(models, n);
  const batch::ModelView<double> mv = packed.host_view();
  const int speed_param = mv.law_param() + mv.law_start[0] + 1;
  EXPECT_GE(mv.param_slot[speed_param], 0) << "the swept speed is stored per instance";
  for (int i = 0; i < n; ++i) {
    const double w = samples.values[0][static_cast<std::size_t>(i)];
    EXPECT_EQ(models[i].laws[0].params[1], w);
    EXPECT_EQ(mv.param(speed_param, i), w);
    double s, sd, sdd;
    batch::motion_law_value(mv, 0, i, 0.25, s, sd, sdd);
    EXPECT_EQ(sd, w);
    EXPECT_DOUBLE_EQ(s, 0.25 * w);
  }
  CpuBackend cpu(std::make_shared<const std::vector<Model>>(models), n, 1);
  const int steps = 100;
  cpu.advance(steps);
  const int N = models[0].n_bodies();
  std::vector<double> states(static_cast<std::size_t>(n) * N * 13);
  cpu.read_states(states.data());
  const double t = steps * models[0].solver.dt;
  for (int i = 0; i < n; ++i) {
    const double* crank = states.data() + static_cast<std::size_t>(i) * N * 13;  // body 0: r, p, v, omega_B
    // omega_B of the crank about its body y (= world y): the driven rate.
    EXPECT_NEAR(crank[7 + 3 + 1], samples.values[0][static_cast<std::size_t>(i)], 1e-8) << "instance " << i;
    (void)t;
  }
}

// Per-instance clocks on the batched paths: instances whose clocks are offset (as after
// a reset or set_state with steps) step on their own time; 40 steps of each GPU path's
// per-thread sequence equal CPU rk4_step from each instance's own start time to 1e-12
// relative (rounding only), and the frame's driver loads equal driver_loads.
TEST(Drivers, BatchedPathsFollowEachInstanceClock) {
  const Scene scene = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/slider_crank_driven.json");
  const int n = 3, steps = 40;
  const std::vector<Model> models = build_instance_models(scene, sample_sweep(scene.sweep, n));
  // Instance clocks one step ahead of and behind the batch's: the assembled state then starts
  // w dt <= 6e-3 rad off its law (within violation_bound = 1e-2), which Baumgarte pulls in.
  const std::int64_t offset[n] = {0, -1, 1};
  for (bool fused : {false, true}) {
    const AssembledBatch asm_batch = assemble_batch(models, n, 1);
    test::HostBatch<double> hb(models, n, asm_batch, fused);
    for (int i = 0; i < n; ++i) hb.clock_offset[static_cast<std::size_t>(i)] = offset[i];
    test::CpuGridExec<double> x;
    for (int s = 0; s < steps; ++s) hb.rk4_step(x);
    hb.frame_at_state(x);
    const int N = hb.N, D = models[0].n_drivers();
    const batch::FrameLayout fl(n, N, hb.J, D);
    for (int i = 0; i < n; ++i) {
      const Model& m = models[i];
      Data d(m, fused ? SchurFactorization::Sparse : SchurFactorization::Dense);
      std::vector<double> Y(asm_batch.Y.begin() + static_cast<std::ptrdiff_t>(i) * m.ny(),
                            asm_batch.Y.begin() + static_cast<std::ptrdiff_t>(i + 1) * m.ny());
      const double dt = m.solver.dt;
      for (int s = 0; s < steps; ++s)
        ASSERT_TRUE(rk4_step(m, d, static_cast<double>(s - offset[i]) * dt, Y.data(), nullptr, dt));
      double worst = 0, scale = 0;
      for (int k = 0; k < N; ++k)
        for (int c = 0; c < 13; ++c) {
          const int e = c < 7 ? 7 * k + c : 7 * N + 6 * k + (c - 7);
          worst = std::max(worst, std::fabs(hb.at(hb.Y, e, n, i) - Y[static_cast<std::size_t>(e)]));
          scale = std::max(scale, std::fabs(Y[static_cast<std::size_t>(e)]));
        }
      EXPECT_LE(worst, 1e-12 * scale) << (fused ? "fused" : "cuda") << " instance " << i;
      std::vector<double> Ydot(m.ny());
      ASSERT_TRUE(evaluate(m, d, static_cast<double>(steps - offset[i]) * dt, Y.data(), nullptr, Ydot.data()));
      double load = 0;
      driver_loads(m, d, &load);
      EXPECT_NEAR(hb.frame[fl.driver_loads + i], load, 1e-9 * std::max(1.0, std::fabs(load)))
          << (fused ? "fused" : "cuda") << " instance " << i;
    }
  }
}

std::string scratch() { return test::make_process_temp_dir("drivers").string(); }

/// Runs `simphant check` on doc; returns the exit code and stderr in err.
int check_scene(const json& doc, std::string& err) {
  const std::string dir = scratch();
  const std::string scene = dir + "/scene.json", err_file = dir + "/stderr.txt";
  std::ofstream(scene) << doc.dump(2);
  const std::string cmd = std::string("'") + SIMPHANT_BINARY + "' check '" + scene + "' >/dev/null 2>'" + err_file + "'";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(err_file);
  err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(Drivers, BadDriversExitTwoNamingTheField) {
  const json law = {{"type", "constant_speed"}, {"speed", 1.0}};
  struct Case {
    json drivers;
    std::string field, reason;
  };
  const std::vector<Case> cases = {
      {json::array({{{"name", "d"}, {"joint", "nope"}, {"law", law}}}), "/drivers/0/joint", "unknown joint"},
      {json::array({{{"name", "d"}, {"joint", "cylinder"}, {"coordinate", "angle"}, {"law", law}}}),
       "/drivers/0/coordinate", "prismatic and has no angle"},
      {json::array({{{"name", "d"}, {"joint", "main_bearing"}, {"coordinate", "slide"}, {"law", law}}}),
       "/drivers/0/coordinate", "revolute and has no slide"},
      {json::array({{{"name", "d"}, {"joint", "main_bearing"}, {"coordinate", "twist"}, {"law", law}}}),
       "/drivers/0/coordinate", "\"angle\" or \"slide\""},
      {json::array({{{"name", "a"}, {"joint", "main_bearing"}, {"law", law}},
                    {{"name", "b"}, {"joint", "main_bearing"}, {"coordinate", "angle"}, {"law", law}}}),
       "/drivers/1/joint", "already driven"},
      {json::array({{{"name", "a"}, {"joint", "main_bearing"}, {"law", law}},
                    {{"name", "a"}, {"joint", "cylinder"}, {"law", law}}}),
       "/drivers/1/name", "duplicate driver name"},
      {json::array({{{"name", "d"},
                     {"joint", "main_bearing"},
                     {"law", {{"type", "table"}, {"time", {0.0, 0.5, 0.5}}, {"value", {0.0, 1.0, 2.0}}}}}}),
       "/drivers/0/law/time/2", "strictly increasing"},
      {json::array({{{"name", "d"}, {"joint", "main_bearing"}, {"law", {{"type", "sine"}}}}}), "/drivers/0/law/type",
       "unknown motion law type"},
      {json::array({{{"name", "d"}, {"joint", "main_bearing"}, {"law", law}, {"speed", 2}}}), "/drivers/0/speed",
       "unknown key"},
  };
  json base = example("slider_crank_driven");
  base.erase("sweep");
  std::string err;
  ASSERT_EQ(check_scene(base, err), 0) << err;
  for (const Case& c : cases) {
    json doc = base;
    doc["drivers"] = c.drivers;
    EXPECT_EQ(check_scene(doc, err), 2) << c.field;
    EXPECT_NE(err.find(c.field), std::string::npos) << err;
    EXPECT_NE(err.find(c.reason), std::string::npos) << err;
  }
  // An initial angle or rate on the driven coordinate contradicts the driver's law:
  // refused at load, naming the joint's initial key and the driver.
  for (const char* key : {"angle", "rate"}) {
    json doc = base;
    std::size_t k = 0;
    while (doc["joints"][k]["name"] != doc["drivers"][0]["joint"]) ++k;
    doc["joints"][k]["initial"] = {{key, 0.5}};
    EXPECT_EQ(check_scene(doc, err), 2) << key;
    const std::string driver = doc["drivers"][0]["name"].get<std::string>();
    EXPECT_NE(err.find("/joints/" + std::to_string(k) + "/initial/" + key), std::string::npos) << err;
    EXPECT_NE(err.find("prescribed by driver \"" + driver + "\" (/drivers/0)"), std::string::npos) << err;
  }
  // A spherical joint has neither coordinate.
  json sph = example("pendulum");
  sph.erase("sweep");
  sph["joints"][0]["type"] = "spherical";
  sph["joints"][0].erase("frame");
  sph["joints"][0]["frame"] = {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}};
  sph["drivers"] = json::array({{{"name", "d"}, {"joint", "hinge"}, {"coordinate", "angle"}, {"law", law}}});
  EXPECT_EQ(check_scene(sph, err), 2);
  EXPECT_NE(err.find("/drivers/0/coordinate"), std::string::npos) << err;
  EXPECT_NE(err.find("spherical"), std::string::npos) << err;
}

// `simphant run` records /driver_loads (T, I, D) and the root attribute driver_names; the
// recorded loads are the CPU backend's read_driver_loads of the same instances.
TEST(Drivers, RunRecordsDriverLoads) {
  json doc = example("slider_crank_driven");
  doc["solver"]["t_end"] = 0.01;
  doc["solver"]["record_every"] = 10;  // 20 steps of 0.5 ms: frames at 0, 10, 20
  const std::string dir = scratch(), scene = dir + "/driven.json", out = dir + "/driven.h5";
  std::ofstream(scene) << doc.dump(2);
  const std::string cmd = std::string("'") + SIMPHANT_BINARY + "' run '" + scene +
                          "' --instances 2 --threads 1 --backend cpu --out '" + out + "' >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  hid_t d = H5Dopen2(f, "driver_loads", H5P_DEFAULT);
  ASSERT_GE(d, 0);
  hid_t sp = H5Dget_space(d);
  hsize_t dims[3] = {0, 0, 0};
  ASSERT_EQ(H5Sget_simple_extent_ndims(sp), 3);
  H5Sget_simple_extent_dims(sp, dims, nullptr);
  EXPECT_EQ(dims[0], 3u);
  EXPECT_EQ(dims[1], 2u);
  EXPECT_EQ(dims[2], 1u);
  std::vector<double> loads(dims[0] * dims[1] * dims[2]);
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, loads.data());
  H5Sclose(sp);
  H5Dclose(d);
  EXPECT_GT(H5Aexists(f, "driver_names"), 0);
  H5Fclose(f);
  // The same two instances on the CPU backend: the first frame's loads.
  const Scene sc = parse_scene(doc.dump());
  const std::vector<Model> models = build_instance_models(sc, sample_sweep(sc.sweep, 2));
  CpuBackend cpu(std::make_shared<const std::vector<Model>>(models), 2, 1);
  double ref[2];
  cpu.read_driver_loads(ref);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(std::isfinite(loads[static_cast<std::size_t>(i)]));
    EXPECT_NEAR(loads[static_cast<std::size_t>(i)], ref[i], 1e-12 * std::max(1.0, std::fabs(ref[i])));
  }
}

}  // namespace
}  // namespace simphant
