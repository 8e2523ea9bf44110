// Robot scenes (docs/robots.md): the "robot" section, its errors, sweeps over it, the
// reduced backend's reads and `simphant run --solver` writing /joint_state. Uses a small
// URDF written by the test (a continuous joint about z and a prismatic joint along an
// oblique axis), so it needs no robot package.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "simphant/model/robot.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/reduced_backend.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* kUrdf = R"(<robot name="arm2">
  <link name="base"/>
  <link name="a"><inertial><origin xyz="0.2 0 0" rpy="0 0 0"/><mass value="1.5"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial></link>
  <link name="b"><inertial><origin xyz="0 0 -0.1" rpy="0.1 0 0"/><mass value="0.5"/>
    <inertia ixx="0.004" ixy="0.0001" ixz="0" iyy="0.003" iyz="0" izz="0.002"/></inertial></link>
  <joint name="j1" type="continuous"><parent link="base"/><child link="a"/>
    <origin xyz="0 0 0.3" rpy="0 0.3 0"/><axis xyz="0 0 1"/></joint>
  <joint name="j2" type="prismatic"><parent link="a"/><child link="b"/>
    <origin xyz="0.4 0 0" rpy="0 0 0"/><axis xyz="0 0.6 0.8"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
</robot>)";

/// A folder with arm2.urdf, removed at the end of the test.
struct TempDir {
  fs::path dir;
  TempDir() {
    dir = fs::temp_directory_path() / ("simphant_robot_scene_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
    std::ofstream(dir / "arm2.urdf") << kUrdf;
  }
  ~TempDir() { fs::remove_all(dir); }
  std::string urdf() const { return (dir / "arm2.urdf").string(); }
};

json base_doc(const std::string& urdf, const char* solver = "aba") {
  json doc;
  doc["name"] = "arm2";
  doc["robot"] = {{"urdf", urdf}, {"q0", {0.3, 0.1}}, {"qd0", {1.0, -0.5}}, {"tau", {0.2, 0.0}},
                  {"payload", {{"link", "b"}, {"mass", 0.25}, {"com", {0, 0, -0.2}}}}};
  doc["solver"] = {{"type", solver}, {"dt", 1e-3}, {"t_end", 0.2}, {"record_every", 50}};
  return doc;
}

/// The SceneError path of compiling `doc`, "" when it compiles.
std::string error_path(const json& doc, std::string* what = nullptr) {
  try {
    parse_scene(doc.dump());
  } catch (const SceneError& e) {
    if (what) *what = e.what();
    return e.path();
  }
  return "";
}

TEST(RobotScene, CompilesToTheMaximalModelWithItsJointSpace) {
  TempDir t;
  const Scene s = parse_scene(base_doc(t.urdf()).dump());
  ASSERT_TRUE(s.model.robot);
  const RobotJointSpace& r = *s.model.robot;
  EXPECT_EQ(r.solver, RobotSolver::Aba);
  EXPECT_EQ(r.n(), 2);
  EXPECT_EQ(s.model.n_bodies(), 2);
  EXPECT_EQ(s.model.n_joints(), 2);
  EXPECT_EQ(s.model.n_inputs, 2);
  EXPECT_EQ(s.model.forces[1].kind, ActuatorKind::Force);
  EXPECT_DOUBLE_EQ(s.model.forces[0].value, 0.2);
  // Payload: 0.25 kg at (0, 0, -0.2) in b's frame merged into b (mass, CoM).
  EXPECT_DOUBLE_EQ(r.model.links[1].mass, 0.75);
  EXPECT_NEAR(r.model.links[1].com.z, (0.5 * -0.1 + 0.25 * -0.2) / 0.75, 1e-15);
  EXPECT_DOUBLE_EQ(s.model.bodies[1].mass, 0.75);
  EXPECT_DOUBLE_EQ(r.model.gravity.z, -9.81);
}

TEST(RobotScene, BadInputNamesTheJsonPath) {
  TempDir t;
  json d = base_doc(t.urdf());
  std::string what;
  d["robot"]["q0"] = {0.1};
  EXPECT_EQ(error_path(d, &what), "/robot/q0");
  EXPECT_NE(what.find("j1, j2"), std::string::npos) << what;
  d = base_doc(t.urdf());
  d["robot"]["payload"]["link"] = "nosuch";
  EXPECT_EQ(error_path(d, &what), "/robot/payload/link");
  EXPECT_NE(what.find("nosuch"), std::string::npos) << what;
  d = base_doc(t.urdf());
  d["robot"]["payload"]["mass"] = -1;
  EXPECT_EQ(error_path(d), "/robot/payload/mass");
  d["robot"]["payload"]["mass"] = 0;  // a zero mass still has its com validated
  d["robot"]["payload"]["com"] = "junk";
  EXPECT_EQ(error_path(d), "/robot/payload/com");
  d = base_doc((t.dir / "missing.urdf").string());
  EXPECT_EQ(error_path(d, &what), "/robot/urdf");
  std::ofstream(t.dir / "bad.urdf") << R"(<robot name="r"><link name="base"/><link name="a"/>
    <joint name="j1" type="continuous"><parent link="base"/><child link="a"/></joint></robot>)";
  d = base_doc((t.dir / "bad.urdf").string());
  EXPECT_EQ(error_path(d, &what), "/robot/urdf");
  EXPECT_NE(what.find("link 'a'"), std::string::npos) << what;
  d = base_doc("example-robot-data:no_such_robot/robot.urdf");
  EXPECT_EQ(error_path(d, &what), "/robot/urdf");
  EXPECT_NE(what.find("example-robot-data"), std::string::npos) << what;
  d = base_doc(t.urdf());
  d["solver"]["type"] = "featherstone";
  EXPECT_EQ(error_path(d), "/solver/type");
  d = base_doc(t.urdf());
  d["bodies"] = json::array();
  EXPECT_EQ(error_path(d), "/bodies");
  d = base_doc(t.urdf());
  d["robot"]["extra"] = 1;
  EXPECT_EQ(error_path(d), "/robot/extra");
  // aba / cga need a robot.
  json plain = {{"bodies", {{{"name", "b"}, {"mass", 1.0}, {"inertia", {1, 1, 1}}, {"position", {0, 0, 0}}}}},
                {"solver", {{"type", "cga"}, {"dt", 1e-3}, {"t_end", 1.0}}}};
  EXPECT_EQ(error_path(plain), "/solver/type");
  plain["solver"]["type"] = "dae";
  EXPECT_EQ(error_path(plain), "");
}

// The joint-space solvers run the fixed-step integrators (rk4, euler, symplectic_euler):
// an adaptive one is refused naming /solver/integrator; the maximal-coordinate solver
// (dae) takes any of them. The reduced backend refuses such a model too.
TEST(RobotScene, JointSpaceSolversRunTheFixedStepIntegrators) {
  TempDir t;
  for (const char* solver : {"aba", "cga"}) {
    json d = base_doc(t.urdf(), solver);
    d["solver"]["integrator"] = "dopri5";
    std::string what;
    EXPECT_EQ(error_path(d, &what), "/solver/integrator") << solver;
    EXPECT_NE(what.find("fixed-step integrators rk4, euler and symplectic_euler"), std::string::npos) << what;
    for (const char* fixed : {"rk4", "euler", "symplectic_euler"}) {
      d["solver"]["integrator"] = fixed;
      EXPECT_EQ(error_path(d), "") << solver << " " << fixed;
    }
  }
  json d = base_doc(t.urdf(), "dae");
  d["solver"]["integrator"] = "dopri5";
  EXPECT_EQ(error_path(d), "");
  Model m = parse_scene(base_doc(t.urdf(), "aba").dump()).model;
  m.solver.integrator = Integrator::Dopri5;
  EXPECT_THROW(ReducedBackend(std::make_shared<const std::vector<Model>>(std::vector<Model>{m}), 1, 1),
               std::invalid_argument);
}

TEST(RobotScene, RelativeUrdfPathIsRelativeToTheSceneFile) {
  TempDir t;
  std::ofstream(t.dir / "scene.json") << base_doc("arm2.urdf").dump();
  const Scene s = load_scene((t.dir / "scene.json").string());
  ASSERT_TRUE(s.model.robot);
  EXPECT_TRUE(fs::equivalent(s.model.robot->urdf_path, t.urdf()));
}

TEST(RobotScene, PayloadMassAndInitialRatesAreSweepable) {
  TempDir t;
  json d = base_doc(t.urdf());
  d["sweep"] = {{"mode", "grid"},
                {"parameters",
                 {{{"path", "robot.payload.mass"}, {"dist", "list"}, {"values", {0.0, 1.0}}},
                  {{"path", "robot.qd0[1]"}, {"dist", "list"}, {"values", {0.1, 0.2, 0.3}}}}}};
  const Scene s = parse_scene(d.dump());
  const SweepSamples samples = sample_sweep(s.sweep);
  const std::vector<Model> models = build_instance_models(s, samples);
  ASSERT_EQ(models.size(), 6u);
  for (std::size_t i = 0; i < models.size(); ++i) {
    const double m = samples.values[0][i], qd1 = samples.values[1][i];
    EXPECT_DOUBLE_EQ(models[i].robot->model.links[1].mass, 0.5 + m);
    EXPECT_DOUBLE_EQ(models[i].robot->qd0[1], qd1);
  }
  // Each instance's reduced state and DAE initial state start from its own values.
  auto sim = Simulator::create(models, {});
  std::vector<double> q(12), qd(12), tau(12);
  sim->read_joint_state(q.data(), qd.data(), tau.data());
  for (std::size_t i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(qd[2 * i + 1], samples.values[1][i]);
}

TEST(RobotScene, ReducedBackendReadsMatchTheDaeInitialState) {
  TempDir t;
  json d = base_doc(t.urdf());
  d["robot"]["tau"] = {0.0, 0.0};
  for (const char* solver : {"aba", "cga"}) {
    SCOPED_TRACE(solver);
    d["solver"]["type"] = solver;
    auto red = Simulator::create({parse_scene(d.dump()).model}, {});
    d["solver"]["type"] = "dae";
    auto dae = Simulator::create({parse_scene(d.dump()).model}, {});
    EXPECT_STREQ(red->backend_name(), solver == std::string("aba") ? "reduced-aba" : "reduced-cga");
    std::vector<double> y1(26), y2(26), r(12);
    red->read_states(y1.data());
    dae->read_states(y2.data());
    for (int k = 0; k < 26; ++k) EXPECT_NEAR(y1[k], y2[k], 1e-12) << k;
    red->read_reactions(r.data());
    EXPECT_TRUE(std::isnan(r[0]));
    double e0 = 0, e1 = 0, viol = 1;
    red->read_energy(&e0);
    dae->read_energy(&e1);
    EXPECT_NEAR(e0, e1, 1e-12);
    red->advance(200);
    red->read_energy(&e1);
    red->read_constraint_violation(&viol);
    EXPECT_NEAR(e1, e0, 1e-9);  // no torque: energy conserved up to RK4 error
    EXPECT_EQ(viol, 0.0);
  }
}

/// Dimensions of a dataset, empty if it does not exist.
std::vector<hsize_t> dims_of(const std::string& file, const char* name) {
  std::vector<hsize_t> out;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return out;
  if (H5Lexists(f, "joint_state", H5P_DEFAULT) > 0 || std::string(name).find('/') == std::string::npos) {
    const hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
    if (ds >= 0) {
      const hid_t sp = H5Dget_space(ds);
      out.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(sp)));
      H5Sget_simple_extent_dims(sp, out.data(), nullptr);
      H5Sclose(sp);
      H5Dclose(ds);
    }
  }
  H5Fclose(f);
  return out;
}

TEST(RobotScene, RunWritesJointStateWithEachSolver) {
  TempDir t;
  json d = base_doc(t.urdf(), "aba");
  d["sweep"] = {{"mode", "random"}, {"instances", 3}, {"seed", 1},
                {"parameters", {{{"path", "robot.payload.mass"}, {"dist", "uniform"}, {"low", 0.0}, {"high", 1.0}}}}};
  std::ofstream(t.dir / "arm.json") << d.dump();
  for (const char* solver : {"dae", "aba", "cga"}) {
    SCOPED_TRACE(solver);
    const std::string out = (t.dir / (std::string(solver) + ".h5")).string();
    const std::string cmd = std::string(SIMPHANT_BINARY) + " run " + (t.dir / "arm.json").string() + " --solver " +
                            solver + " --out " + out + " > " + (t.dir / "log.txt").string() + " 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    EXPECT_EQ(dims_of(out, "joint_state/q"), (std::vector<hsize_t>{5, 3, 2}));
    EXPECT_EQ(dims_of(out, "joint_state/tau"), (std::vector<hsize_t>{5, 3, 2}));
    EXPECT_EQ(dims_of(out, "state"), (std::vector<hsize_t>{5, 3, 2, 13}));
  }
}

// Robot scenes run on the GPU backends too (docs/cuda-backend.md, "Robots"). Without a
// device, naming one fails as for any scene: exit 3 naming the missing device (or CUDA
// support), before any file; aba / cga with an adaptive integrator is bad input (exit 2)
// at load on any machine and backend, naming /solver/integrator.
TEST(RobotScene, GpuBackendsWithoutADeviceFailWithExit3) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device runs robot scenes (tests/test_cuda_reduced_backend.cpp)";
  TempDir t;
  for (const char* solver : {"dae", "aba"}) {
    std::ofstream(t.dir / "arm.json") << base_doc(t.urdf(), solver).dump();
    for (const char* backend : {"cuda", "cuda-fused"}) {
      SCOPED_TRACE(std::string(solver) + " " + backend);
      const std::string out = (t.dir / "gpu.h5").string();
      const std::string log = (t.dir / "log.txt").string();
      const std::string cmd = std::string(SIMPHANT_BINARY) + " run " + (t.dir / "arm.json").string() + " --backend " +
                              backend + " --out " + out + " > " + log + " 2>&1";
      const int status = std::system(cmd.c_str());
      ASSERT_TRUE(WIFEXITED(status)) << cmd;
      EXPECT_EQ(WEXITSTATUS(status), 3) << cmd;
      std::ifstream in(log);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      EXPECT_NE(text.find(cuda_backend_built() ? "no CUDA device" : "no CUDA support"), std::string::npos) << text;
      EXPECT_FALSE(std::filesystem::exists(out));
    }
  }
}

TEST(RobotScene, AdaptiveIntegratorOnTheGpuJointSpaceSolversIsExit2) {
  TempDir t;
  nlohmann::json doc = base_doc(t.urdf(), "aba");
  doc["solver"]["integrator"] = "dopri5";
  std::ofstream(t.dir / "arm.json") << doc.dump();
  const std::string out = (t.dir / "gpu.h5").string();
  const std::string log = (t.dir / "log.txt").string();
  const std::string cmd = std::string(SIMPHANT_BINARY) + " run " + (t.dir / "arm.json").string() +
                          " --backend cuda --out " + out + " > " + log + " 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << cmd;
  EXPECT_EQ(WEXITSTATUS(status), 2) << cmd;
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("/solver/integrator"), std::string::npos) << text;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace simphant
