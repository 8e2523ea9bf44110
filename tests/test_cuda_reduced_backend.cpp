// The GPU joint-space backend (host/cuda_reduced_backend.cuh) against the CPU reduced
// backend (sim/reduced_backend.hpp), which runs the same per-thread step
// (kernels/reduced_step.hpp): Panda, UR5 and a floating-base robot (Solo-12) from
// example-robot-data, aba and cga, two differing instances (state, inputs, a link mass, a
// servo, damping; the CPU-grid twin is tests/test_reduced_step_grid.cpp). Every test calls
// GTEST_SKIP() without a CUDA device (or in a build without CUDA) and without the robots.
//
// Bounds. fp64: 1e-12 relative to the state's scale after 1000 RK4 steps (the same
// arithmetic; the device contracts a * b + c into FMAs, which changes the last bits of a
// step, and the robot's sensitivity over 1 s keeps that within the bound). fp32: after 100
// steps, against the fp64 CPU run, 100 eps_32 per step accumulated over 100 steps
// (eps_32 = 1.19e-7: 1.2e-3 relative) -- a bound derived from the precision, to be
// confirmed on a device (none has run it yet).
#include <gtest/gtest.h>

#if defined(SIMPHANT_WITH_CUDA)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "robot_data.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/host_memory.hpp"
#include "simphant/sim/link_frames.hpp"
#include "simphant/sim/reduced_backend.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

using nlohmann::json;

#if defined(SIMPHANT_WITH_CUDA)
#define SIMPHANT_REQUIRE_CUDA_DEVICE()                                                            \
  if (cuda_device_count() == 0)                                                                   \
  GTEST_SKIP() << "no CUDA device: the GPU joint-space backend is not run"
#else
#define SIMPHANT_REQUIRE_CUDA_DEVICE() GTEST_SKIP() << "a build without CUDA: the GPU joint-space backend is not run"
#endif

/// Two instances of the robot of `urdf` that differ in state, inputs, a link's mass, a
/// servo and damping (as tests/test_reduced_step_grid.cpp).
std::vector<Model> two_instances(const std::string& urdf, const char* solver, bool floating) {
  json doc;
  doc["name"] = "robot";
  doc["robot"] = {{"urdf", urdf}};
  if (floating) doc["robot"]["floating_base"] = true;
  doc["solver"] = {{"type", solver}, {"dt", 1e-3}, {"t_end", 1.0}};
  const Model m = parse_scene(doc.dump()).model;
  const int n = m.robot->n();
  std::vector<Model> out(2, m);
  for (int i = 0; i < 2; ++i) {
    auto r = std::make_shared<RobotJointSpace>(*out[static_cast<std::size_t>(i)].robot);
    for (int k = 0; k < n; ++k) {
      r->q0[static_cast<std::size_t>(k)] = 0.3 * std::sin(1.7 * k + i);
      r->qd0[static_cast<std::size_t>(k)] = 0.5 * std::cos(0.9 * k + 2 * i);
      r->tau[static_cast<std::size_t>(k)] = 0.4 * std::sin(2.3 * k - i);
      r->joints[static_cast<std::size_t>(k)].damping = 0.1 * i;
    }
    if (i == 1) {
      r->model.links[2].mass += 0.7;
      r->joints[0].mode = static_cast<int>(ActuatorMode::Position);
      r->joints[0].kp = 40;
      r->joints[0].kd = 2;
      r->tau[0] = 0.5;
      if (floating) {
        r->base_q0[2] += 0.3;
        r->base_v0[0] = 0.2;
        r->base_v0[5] = -0.4;
      }
    }
    out[static_cast<std::size_t>(i)].robot = r;
  }
  return out;
}

struct Pair {
  std::unique_ptr<Backend> gpu;
  std::unique_ptr<ReducedBackend> cpu;
};

Pair make_backends(const std::vector<Model>& models, const std::string& precision) {
  auto shared = std::make_shared<const std::vector<Model>>(models);
  Pair p;
  p.gpu = make_cuda_reduced_backend(shared, static_cast<int>(models.size()), precision);
  p.cpu = std::make_unique<ReducedBackend>(shared, static_cast<int>(models.size()), 1);
  return p;
}

/// max |a - b| / max(1, max |b|) over the two instances' states.
double state_difference(const Backend& a, const Backend& b) {
  const int N = b.state_size(), I = b.n_instances();
  std::vector<double> ya(static_cast<std::size_t>(N) * I), yb(ya.size());
  a.get_state(nullptr, I, ya.data(), nullptr, nullptr, nullptr, nullptr);
  b.get_state(nullptr, I, yb.data(), nullptr, nullptr, nullptr, nullptr);
  double err = 0, scale = 1;
  for (std::size_t e = 0; e < ya.size(); ++e) {
    scale = std::max(scale, std::abs(yb[e]));
    err = std::max(err, std::abs(ya[e] - yb[e]));
  }
  return err / scale;
}

std::vector<std::string> robots(const std::string& dir) {
  return {dir + "/panda_description/urdf/panda.urdf", dir + "/ur_description/urdf/ur5_robot.urdf"};
}

TEST(CudaReducedBackend, Fp64EqualsCpuAfter1000StepsPandaUr5AndFloatingBase) {
  SIMPHANT_REQUIRE_CUDA_DEVICE();
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  std::vector<std::pair<std::string, bool>> cases;
  for (const std::string& u : robots(dir)) cases.emplace_back(u, false);
  cases.emplace_back(dir + "/solo_description/robots/solo12.urdf", true);
  for (const auto& [urdf, floating] : cases)
    for (const char* solver : {"aba", "cga"}) {
      SCOPED_TRACE(urdf + " " + solver);
      Pair p = make_backends(two_instances(urdf, solver, floating), "fp64");
      for (int chunk = 0; chunk < 10; ++chunk) {
        p.gpu->advance(100);
        p.cpu->advance(100);
      }
      EXPECT_LE(state_difference(*p.gpu, *p.cpu), 1e-12);
      // The reads: body states, energy and joint state (tau = actuator forces).
      const int I = 2, B = static_cast<int>(p.cpu->n_joint_coordinates()) + (floating ? 1 : 0), n = p.cpu->n_joint_coordinates();
      std::vector<double> sg(static_cast<std::size_t>(I) * B * 13), sc(sg.size());
      p.gpu->read_states(sg.data());
      p.cpu->read_states(sc.data());
      for (std::size_t e = 0; e < sg.size(); ++e) EXPECT_NEAR(sg[e], sc[e], 1e-11 * std::max(1.0, std::abs(sc[e])));
      std::vector<double> eg(I), ec(I), kg(I), kc(I);
      p.gpu->read_energy(eg.data(), kg.data());
      p.cpu->read_energy(ec.data(), kc.data());
      for (int i = 0; i < I; ++i) EXPECT_NEAR(eg[static_cast<std::size_t>(i)], ec[static_cast<std::size_t>(i)], 1e-10 * std::max(1.0, std::abs(ec[static_cast<std::size_t>(i)])));
      std::vector<double> qg(static_cast<std::size_t>(I) * n), qdg(qg.size()), tg(qg.size()), qc(qg.size()), qdc(qg.size()), tc(qg.size());
      p.gpu->read_joint_state(qg.data(), qdg.data(), tg.data());
      p.cpu->read_joint_state(qc.data(), qdc.data(), tc.data());
      for (std::size_t e = 0; e < qg.size(); ++e) {
        EXPECT_NEAR(qg[e], qc[e], 1e-12 * std::max(1.0, std::abs(qc[e])));
        EXPECT_NEAR(tg[e], tc[e], 1e-10 * std::max(1.0, std::abs(tc[e])));
      }
    }
}

TEST(CudaReducedBackend, Fp32FollowsTheFp64CpuWithinItsPrecision) {
  SIMPHANT_REQUIRE_CUDA_DEVICE();
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  for (const std::string& urdf : robots(dir)) {
    SCOPED_TRACE(urdf);
    Pair p = make_backends(two_instances(urdf, "aba", false), "fp32");
    EXPECT_STREQ(p.gpu->name(), "cuda-reduced-aba-fp32");
    p.gpu->advance(100);
    p.cpu->advance(100);
    EXPECT_LE(state_difference(*p.gpu, *p.cpu), 100 * 100 * 1.19e-7);
  }
}

// Inputs from device memory (the DLPack path) equal the same inputs from the host; link
// frames on the device equal the conversion of the body states; a state read and written
// back continues bit for bit; reset returns to the initial state; set_models changes one
// instance only.
TEST(CudaReducedBackend, DeviceInputsLinkFramesStateResetAndModels) {
  SIMPHANT_REQUIRE_CUDA_DEVICE();
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  const std::vector<Model> models = two_instances(dir + "/panda_description/urdf/panda.urdf", "aba", false);
  const int n = models[0].robot->n(), I = 2;
  Pair a = make_backends(models, "fp64"), b = make_backends(models, "fp64");
  std::vector<double> u(static_cast<std::size_t>(I) * n);
  for (std::size_t e = 0; e < u.size(); ++e) u[e] = 0.05 * static_cast<double>(e);
  a.gpu->set_inputs(u.data());
  // b: the same inputs from a device array (row-major doubles, the DLPack path), from a
  // runtime of its own as torch or JAX would bring (the primary context is shared).
#if defined(SIMPHANT_WITH_CUDA)
  double* d_u = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_u), u.size() * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_u, u.data(), u.size() * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
  b.gpu->set_inputs_device(d_u);
  b.gpu->synchronize();
  cudaFree(d_u);
#else
  b.gpu->set_inputs(u.data());
#endif
  const ArrayView uv = b.gpu->inputs_view();
  ASSERT_TRUE(uv.device);
  ASSERT_EQ(uv.dtype_bits, 64);
  EXPECT_EQ(uv.strides[0], 1);
  EXPECT_EQ(uv.strides[1], I);
  a.gpu->advance(50);
  b.gpu->advance(50);
  EXPECT_EQ(state_difference(*a.gpu, *b.gpu), 0.0);
  // Link frames: device route vs read_states converted.
  const int F = a.gpu->n_link_frames();
  ASSERT_EQ(F, n);
  std::vector<int> frames = {0, n - 1};
  std::vector<double> lf(static_cast<std::size_t>(I) * 2 * 13), conv(lf.size());
  a.gpu->read_link_frames(frames.data(), 2, lf.data());
  std::vector<double> states(static_cast<std::size_t>(I) * n * 13);
  a.gpu->read_states(states.data());
  for (int i = 0; i < I; ++i)
    link_frames_from_states(models[static_cast<std::size_t>(i)], states.data() + static_cast<std::size_t>(i) * n * 13,
                            frames.data(), 2, conv.data() + static_cast<std::size_t>(i) * 26);
  for (std::size_t e = 0; e < lf.size(); ++e) EXPECT_NEAR(lf[e], conv[e], 1e-12) << e;
  // State round trip.
  const int N = a.gpu->state_size();
  std::vector<double> y(static_cast<std::size_t>(I) * N);
  std::vector<std::int64_t> steps(I), status_steps(I);
  std::vector<std::int8_t> status(I);
  a.gpu->get_state(nullptr, I, y.data(), steps.data(), status.data(), status_steps.data(), nullptr);
  EXPECT_EQ(steps[0], 50);
  b.gpu->set_state(nullptr, I, y.data(), steps.data(), status.data(), status_steps.data(), nullptr);
  a.gpu->advance(30);
  b.gpu->advance(30);
  EXPECT_EQ(state_difference(*a.gpu, *b.gpu), 0.0);
  // Reset of instance 1: its initial state, clock 0; instance 0 untouched.
  const int one = 1;
  std::vector<double> before(static_cast<std::size_t>(N));
  a.gpu->get_state(nullptr, 1, before.data(), nullptr, nullptr, nullptr, nullptr);
  a.gpu->reset(&one, 1);
  std::vector<double> y1(static_cast<std::size_t>(N)), y0(static_cast<std::size_t>(N));
  std::int64_t s1 = -1;
  a.gpu->get_state(&one, 1, y1.data(), &s1, nullptr, nullptr, nullptr);
  EXPECT_EQ(s1, 0);
  for (int k = 0; k < n; ++k) EXPECT_EQ(y1[static_cast<std::size_t>(k)], models[1].robot->q0[static_cast<std::size_t>(k)]);
  a.gpu->get_state(nullptr, 1, y0.data(), nullptr, nullptr, nullptr, nullptr);
  EXPECT_EQ(y0, before);
  // set_models: instance 0 gets instance 1's model; both then run identically.
  a.gpu->set_models(nullptr, 0, nullptr);
  const int zero = 0;
  a.gpu->set_models(&zero, 1, &models[1]);
  a.gpu->reset(&one, 1);
  std::vector<double> same(static_cast<std::size_t>(I) * n);
  for (int k = 0; k < n; ++k) same[static_cast<std::size_t>(k)] = same[static_cast<std::size_t>(n + k)] = 0.1 * k;
  a.gpu->set_inputs(same.data());
  a.gpu->advance(20);
  a.gpu->get_state(nullptr, I, y.data(), nullptr, nullptr, nullptr, nullptr);
  for (int e = 0; e < N; ++e) EXPECT_EQ(y[static_cast<std::size_t>(e)], y[static_cast<std::size_t>(N + e)]) << e;
}

// The Simulator puts robot scenes with solver aba / cga on the GPU for --backend cuda,
// cuda-fused and auto (with a device), and dae robot scenes on the DAE cuda backends with
// joint coordinates read back.
TEST(CudaReducedBackend, SimulatorPicksTheGpuForRobotScenes) {
  SIMPHANT_REQUIRE_CUDA_DEVICE();
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  const std::vector<Model> models = two_instances(dir + "/ur_description/urdf/ur5_robot.urdf", "aba", false);
  for (const char* backend : {"auto", "cuda", "cuda-fused"}) {
    SimulatorOptions o;
    o.backend = backend;
    auto sim = Simulator::create(models, o);
    EXPECT_STREQ(sim->backend_name(), "cuda-reduced-aba") << backend;
  }
  std::vector<Model> dae = models;
  for (Model& m : dae) {
    auto r = std::make_shared<RobotJointSpace>(*m.robot);
    r->solver = RobotSolver::Dae;
    m.robot = r;
  }
  SimulatorOptions o;
  o.backend = "cuda";
  auto sim = Simulator::create(dae, o);
  ASSERT_EQ(sim->n_joint_coordinates(), models[0].robot->n());
  std::vector<double> q(static_cast<std::size_t>(2) * sim->n_joint_coordinates()), qd(q.size()), tau(q.size());
  sim->read_joint_state(q.data(), qd.data(), tau.data());
  for (int k = 0; k < sim->n_joint_coordinates(); ++k)
    EXPECT_NEAR(q[static_cast<std::size_t>(k)], models[0].robot->q0[static_cast<std::size_t>(k)], 1e-9);
}

/// The free-body box of tests/data/urdf/box_object.urdf with its URDF collision box,
/// tilted 0.2 rad about x (its lowest edge 3.44 cm below its centre), its centre 4.5 cm
/// (+ 2 mm for instance i) above the ground: it falls about 1 cm onto an edge.
std::vector<Model> dropped_boxes(const char* solver, int count) {
  std::vector<Model> out;
  for (int i = 0; i < count; ++i) {
    json doc;
    doc["name"] = "box";
    doc["robot"] = {{"urdf", std::string(SIMPHANT_SOURCE_DIR) + "/tests/data/urdf/box_object.urdf"},
                    {"urdf_collision", true},
                    {"base", {{"position", {0, 0, 0.045 + 0.002 * i}}, {"orientation", {std::cos(0.1), std::sin(0.1), 0, 0}}}}};
    doc["contact"] = {{"ground", json::object()},
                      {"materials", {{"default", {{"stiffness", 1e5}, {"exponent", 1.5}, {"restitution", 0.5},
                                                  {"friction", 0.5}, {"slip_speed", 0.05}}}}}};
    doc["solver"] = {{"type", solver}, {"dt", 1e-4}, {"t_end", 0.1}};
    out.push_back(parse_scene(doc.dump()).model);
  }
  return out;
}

// The reductions over time of a robot (energy and contacts) on the GPU against the CPU
// backend, the same per-thread sample (kernels/reduced_step.hpp): fp64 statistics within
// 1e-12 of their scale after 1000 steps of an impact (the bound of the states above), the
// step of the peak normal force the same (the energy's max, flat in free fall, is left to
// rounding); the accumulators read in the CPU's layout and written back continue the
// same; a reset clears them.
TEST(CudaReducedBackend, ReductionsEqualTheCpuBackend) {
  SIMPHANT_REQUIRE_CUDA_DEVICE();
  for (const char* solver : {"aba", "cga"}) {
    SCOPED_TRACE(solver);
    Pair p = make_backends(dropped_boxes(solver, 3), "fp64");
    const std::vector<ReductionQuantity> q{ReductionQuantity::Energy, ReductionQuantity::Contacts};
    p.gpu->set_reductions(q);
    p.cpu->set_reductions(q);
    const ReductionLayout L = p.cpu->reduction_layout();
    ASSERT_EQ(p.gpu->reduction_layout().size(), L.size());
    p.gpu->advance(600);
    p.cpu->advance(600);
    std::vector<double> acc(static_cast<std::size_t>(3 * L.size())), cpu_acc(acc.size());
    p.gpu->get_reduction_state(acc.data());
    p.cpu->get_reduction_state(cpu_acc.data());
    for (std::size_t k = 0; k < acc.size(); ++k) {
      const int el = static_cast<int>(k % static_cast<std::size_t>(L.size()));  // count, then 5 slots per channel
      const bool energy_step = el >= 1 && (el - 1) % kReductionSlots == 4 &&
                               (el - 1) / kReductionSlots == L.offset[static_cast<int>(ReductionQuantity::Energy)];
      if (!energy_step) {
        EXPECT_NEAR(acc[k], cpu_acc[k], 1e-12 * std::max(1.0, std::abs(cpu_acc[k]))) << "accumulator entry " << k;
      }
    }
    p.gpu->set_reduction_state(acc.data());
    p.gpu->advance(400);
    p.cpu->advance(400);
    const std::size_t count = static_cast<std::size_t>(3 * L.channels * kReductionStats);
    std::vector<double> g(count), c(count);
    p.gpu->read_reductions(g.data());
    p.cpu->read_reductions(c.data());
    const int e = L.offset[static_cast<int>(ReductionQuantity::Energy)],
              f = L.offset[static_cast<int>(ReductionQuantity::Contacts)];
    for (std::size_t k = 0; k < count; ++k) {
      const int channel = static_cast<int>(k / kReductionStats) % L.channels;
      if (k % kReductionStats == 4) {
        if (channel == f) {
          EXPECT_EQ(g[k], c[k]) << "time of the peak force, entry " << k;
        }
        continue;
      }
      EXPECT_NEAR(g[k], c[k], 1e-12 * std::max(1.0, std::abs(c[k]))) << "entry " << k;
    }
    EXPECT_EQ(e, 0);
    EXPECT_GT(c[static_cast<std::size_t>(f * kReductionStats)], 1.0) << "the box hit the ground";
    const int id = 1;
    p.gpu->reset(&id, 1);
    p.gpu->read_reductions(g.data());
    EXPECT_EQ(g[static_cast<std::size_t>((L.channels + 1) * kReductionStats)], 0.0) << "reset: no force at the start";
  }
}

/// chain3.urdf (tests/data) as a robot model with `solver`, no example-robot-data needed.
Model chain_model(const char* solver) {
  json doc;
  doc["name"] = "chain3";
  doc["robot"] = {{"urdf", std::string(SIMPHANT_SOURCE_DIR) + "/tests/data/urdf/chain3.urdf"}};
  doc["solver"] = {{"type", solver}, {"dt", 1e-3}, {"t_end", 0.1}};
  return parse_scene(doc.dump()).model;
}

// cuda and cuda-fused give a robot scene the GPU joint-space backend where a device is;
// without one they are refused as for any scene (BackendError naming the missing device
// or CUDA support). fp32 on the CPU reduced backend is refused either way.
TEST(CudaReducedBackendWiring, TheGpuPathRunsOnADeviceElseIsRefusedClearly) {
  const Model m = chain_model("aba");
  for (const char* backend : {"cuda", "cuda-fused"}) {
    SimulatorOptions o;
    o.backend = backend;
    if (cuda_device_count() > 0) {
      EXPECT_NE(std::string(Simulator::create({m}, o, 4)->backend_name()).find("cuda"), std::string::npos) << backend;
      continue;
    }
    try {
      Simulator::create({m}, o, 4);
      ADD_FAILURE() << "no error for " << backend;
    } catch (const BackendError& e) {
      EXPECT_NE(std::string(e.what()).find(cuda_backend_built() ? "no CUDA device" : "no CUDA support"), std::string::npos)
          << e.what();
    }
  }
  SimulatorOptions o;
  o.backend = "cpu";
  o.precision = "fp32";
  EXPECT_THROW(Simulator::create({m}, o, 4), std::invalid_argument);
  o.backend = "auto";  // the GPU joint-space backend on a device, else the CPU reduced backend
  o.precision = "fp64";
  EXPECT_STREQ(Simulator::create({m}, o, 4)->backend_name(), cuda_device_count() > 0 ? "cuda-reduced-aba" : "reduced-aba");
}

// The memory estimates: the GPU joint-space backend's device figure grows with the
// per-instance slots and with the precision, and the host estimate names the backend
// Simulator::create picks for --backend cuda.
TEST(CudaReducedBackendWiring, MemoryEstimates) {
  const Model m = chain_model("cga");
  const std::size_t shared64 = cuda_reduced_bytes_per_instance(m, false, "fp64");
  const std::size_t shared32 = cuda_reduced_bytes_per_instance(m, false, "fp32");
  const std::size_t own64 = cuda_reduced_bytes_per_instance(m, true, "fp64");
  EXPECT_LT(shared32, shared64);
  // A slot holds at least the three links' parameters (mass, CoM, inertia, frames: 26 numbers each).
  EXPECT_GE(own64 - shared64, 3 * 26 * sizeof(double));
  EXPECT_THROW(cuda_reduced_bytes_per_instance(m, false, "fp16"), std::invalid_argument);
  // The reductions' accumulators and their read copy, in double.
  Model with_reductions = dropped_boxes("aba", 1).front();
  const std::size_t plain = cuda_reduced_bytes_per_instance(with_reductions, false, "fp32");
  with_reductions.output.reductions = {"energy", "contacts"};
  const ReductionLayout L = reduction_layout_of({ReductionQuantity::Energy, ReductionQuantity::Contacts}, with_reductions);
  EXPECT_EQ(cuda_reduced_bytes_per_instance(with_reductions, false, "fp32") - plain, 2 * sizeof(double) * L.size());
  EXPECT_THROW(cuda_reduced_bytes_per_instance(chain_model("dae"), false, "fp64"), std::invalid_argument);
  SimulatorOptions o;
  o.backend = "cuda";
  o.precision = "fp32";
  const HostMemory h = simulator_host_memory(m, 100, false, 0, o), hp = simulator_host_memory(m, 100, true, 4, o);
  EXPECT_EQ(h.backend, "cuda-reduced-cga-fp32");
  EXPECT_GT(h.per_instance, 0);
  EXPECT_GT(hp.per_instance, h.per_instance);
  o.backend = "cpu";
  o.precision = "fp64";
  EXPECT_EQ(simulator_host_memory(m, 100, false, 0, o).backend, "reduced-cga");
}

}  // namespace
}  // namespace simphant
