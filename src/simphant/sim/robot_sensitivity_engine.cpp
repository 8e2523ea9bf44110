#include "simphant/sim/robot_sensitivity_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "batch_buffers.hpp"  // kernels/ (a private include directory): kStatusOk
#include "reduced_step.hpp"
#include "simphant/batch/robot_pack.hpp"
#include "simphant/core/thread_pool.hpp"
#include "simphant/formulas/joint_loads.hpp"
#include "simphant/sim/quaternion_sign.hpp"

namespace simphant {

/// One pass of kWidth tangents: one model slot per instance (its numbers carrying the
/// tangents of the instance's parameters), the state, the inputs and the bookkeeping of
/// kernels/reduced_step.hpp, row-major (instance, element).
template <int W>
struct RobotSensitivityEngine<W>::Pass {
  batch::RobotSlots<D> slots;
  std::vector<D> Y, U;
  std::vector<std::int8_t> status, reason;
  std::vector<std::int64_t> status_step, offset;
  int floating = 0, use_cga = 0, integrator = 0;
  double dt = 0;
  ReductionLayout red;                    ///< the reductions differentiated (set_reductions)
  std::vector<double> red_acc, red_tangent;  ///< per instance: red.size(), red.tangent_size() x W

  batch::ReducedBatchView<D> view() {
    batch::ReducedBatchView<D> b;
    b.n_instances = static_cast<int>(status.size());
    slots.point(b);
    b.floating = floating;
    b.use_cga = use_cga;
    b.integrator = integrator;
    b.dt = D(dt);
    b.Y = batch::row_major(Y.data(), slots.ny);
    b.U = batch::row_major(static_cast<const D*>(U.data()), slots.n);
    b.status = status.data();
    b.status_step = status_step.data();
    b.reason = reason.data();
    b.offset = offset.data();
    if (red.any()) {
      b.red = red;
      b.red_acc = red_acc.data();
      b.red_stride_i = red.size();
      b.red_stride_e = 1;
      b.red_tangent = red_tangent.data();
      b.red_tangent_stride_i = static_cast<std::int64_t>(red.tangent_size()) * W;
    }
    return b;
  }

  /// Instance i's accumulators to no samples, their tangents to 0.
  void clear_reductions(std::size_t i) {
    if (!red.any()) return;
    const ReductionAcc a{red_acc.data() + i * static_cast<std::size_t>(red.size()), 1,
                         red_tangent.data() + i * static_cast<std::size_t>(red.tangent_size()) * W};
    reduction_clear(red, a);
    reduction_clear_tangent(red, a, W);
  }
};

/// Per-thread scratch: the step's workspace in Dual numbers and a frame's body records.
template <int W>
struct RobotSensitivityEngine<W>::Worker {
  batch::ReducedStepWorkspace<D, kMaxRobotJoints> ws;
  D records[13 * (kMaxRobotJoints + 1)];
  std::uint8_t branch[kMaxRobotJoints];
};

template <int W>
void RobotSensitivityEngine<W>::branches(std::size_t i, std::uint8_t* out) const {
  const Pass& p = *passes_.front();  // every pass has the same values
  const std::size_t nj = static_cast<std::size_t>(n_joints_), ny = static_cast<std::size_t>(ny_);
  // The state's layout (reduced/robot_view.hpp): q after the base's pose, qd after the base's twist.
  const std::size_t q0 = floating_ ? 7 : 0,
                    v0 = static_cast<std::size_t>(robot_q_size(n_joints_, floating_)) + (floating_ ? 6 : 0);
  for (std::size_t k = 0; k < nj; ++k)
    out[k] = static_cast<std::uint8_t>(
        joint_law_branch(p.slots.joints[i * nj + k], p.U[i * nj + k], p.Y[i * ny + q0 + k], p.Y[i * ny + v0 + k]));
}

template <int W>
double RobotSensitivityEngine<W>::worker_bytes() { return sizeof(Worker); }

template <int W>
double RobotSensitivityEngine<W>::instance_bytes(const Model& m, int S) {
  const double n = m.robot->n(), ny = robot_state_size(m.robot->n(), m.robot->model.floating ? 1 : 0);
  const double slot = n * (sizeof(ReducedLinkParams<D>) + sizeof(cga::CgaLink<D>) + sizeof(RobotJointParams<D>)) +
                      sizeof(RobotBaseParams<D>) + sizeof(Vec3<D>) + sizeof(D) * (1 + ny);
  const double per_pass = slot + sizeof(D) * (ny + n) + 2 + 16;
  const double params = static_cast<double>(batch::robot_flat_params(m).size());
  const double quaternions = m.robot->model.floating ? 4 : 0;  // the base's branch
  return ((S + kWidth - 1) / kWidth) * per_pass + 8.0 * S * (params + ny + n + quaternions);
}

template <int W>
RobotSensitivityEngine<W>::RobotSensitivityEngine(const std::vector<Model>& models, int n_instances,
                                               SensitivitySeeds seeds, int threads)
    : SensitivityEngine(std::move(seeds)), n_(n_instances) {
  const Model& m0 = models.front();
  if (!m0.robot || m0.robot->solver == RobotSolver::Dae || m0.contact_pair_count() > 0)
    throw std::invalid_argument("RobotSensitivityEngine: the model is not a joint-space robot without contact");
  n_joints_ = m0.robot->n();
  floating_ = m0.robot->model.floating ? 1 : 0;
  ny_ = robot_state_size(n_joints_, floating_);
  n_bodies_ = robot_n_bodies(n_joints_, floating_);
  n_model_joints_ = m0.n_joints();
  quaternions_ = state_quaternion_offsets(m0);
  n_drivers_ = m0.n_drivers();
  const int S = n_sensitivities();
  const std::size_t n = static_cast<std::size_t>(n_), np = batch::robot_flat_params(m0).size(),
                    nj = static_cast<std::size_t>(n_joints_), ny = static_cast<std::size_t>(ny_);
  if (S < 1 || seeds_.dparam.size() != static_cast<std::size_t>(S) * n * np ||
      seeds_.dy0.size() != static_cast<std::size_t>(S) * n * ny ||
      seeds_.dinput.size() != static_cast<std::size_t>(S) * n * nj ||
      seeds_.quaternion_ref.size() != static_cast<std::size_t>(S) * n * quaternions_.size() * 4)
    throw std::invalid_argument("RobotSensitivityEngine: the seeds do not fit the batch (" + std::to_string(S) +
                                " parameters, " + std::to_string(n_) + " instances)");
  const int n_pass = (S + kWidth - 1) / kWidth;
  for (int c = 0; c < n_pass; ++c) {
    auto pass = std::make_unique<Pass>();
    Pass& p = *pass;
    p.floating = floating_;
    p.use_cga = m0.robot->solver == RobotSolver::Cga ? 1 : 0;
    p.integrator = static_cast<int>(m0.solver.integrator);
    p.dt = m0.solver.dt;
    p.slots.resize(n_joints_, floating_, n_, 0);
    p.U.assign(n * nj, D(0.0));
    const int width = std::min(kWidth, S - c * kWidth);
    for (std::size_t i = 0; i < n; ++i) {
      const Model& m = models[models.size() == 1 ? 0 : i];
      batch::check_robot_model(m, n_joints_, floating_ == 1, m0.robot->solver, "RobotSensitivityEngine");
      p.slots.write(static_cast<int>(i), m);
      std::size_t q = 0;
      batch::for_each_slot_number(p.slots, static_cast<int>(i), [&](D& x) {
        for (int t = 0; t < width; ++t) x.d[t] = seeds_.dparam[(static_cast<std::size_t>(c * kWidth + t) * n + i) * np + q];
        ++q;
      });
      for (std::size_t k = 0; k < nj; ++k)
        p.slots.cga_links[i * nj + k] = cga::cga_link(p.slots.links[i * nj + k]);  // from the seeded links
      p.slots.runaway[i] = D(0.0);  // the backend checks the runaway bound on its own state
      for (std::size_t e = 0; e < nj; ++e) {
        D& u = p.U[i * nj + e];
        u = D(m.robot->tau[e]);
        for (int t = 0; t < width; ++t) u.d[t] = seeds_.dinput[(static_cast<std::size_t>(c * kWidth + t) * n + i) * nj + e];
      }
    }
    p.Y.assign(n * ny, D(std::numeric_limits<double>::quiet_NaN()));
    p.status.assign(n, batch::kStatusOk);
    p.reason.assign(n, 0);
    p.status_step.assign(n, 0);
    p.offset.assign(n, 0);
    passes_.push_back(std::move(pass));
  }
  n_laws_ = n_joints_;
  crossed_.assign(n, 0);
  branch_.assign(n * nj, 0);
  const int workers = std::min(resolve_thread_count(threads), std::max(1, n_));
  for (int w = 0; w < workers; ++w) workers_.push_back(std::make_unique<Worker>());
  pool_ = std::make_unique<ThreadPool>(workers);
}

template <int W>
RobotSensitivityEngine<W>::~RobotSensitivityEngine() = default;

template <int W>
template <class F>
void RobotSensitivityEngine<W>::each_instance(F f) const {
  pool_->parallel_for(n_, 1, [this, &f](int i0, int i1, int worker) {
    for (int i = i0; i < i1; ++i) f(i, *workers_[static_cast<std::size_t>(worker)]);
  });
}

template <int W>
void RobotSensitivityEngine<W>::set_inputs(const int* ids, int count, const double* u) {
  const std::size_t nj = static_cast<std::size_t>(n_joints_);
  for (const std::unique_ptr<Pass>& p : passes_)
    for (int k = 0; k < count; ++k) {
      const std::size_t i = static_cast<std::size_t>(ids ? ids[k] : k);
      for (std::size_t e = 0; e < nj; ++e) p->U[i * nj + e] = D(u[static_cast<std::size_t>(k) * nj + e]);
    }
  std::uint8_t b[kMaxRobotJoints];
  for (int k = 0; k < count; ++k) {
    const std::size_t i = static_cast<std::size_t>(ids ? ids[k] : k);
    branches(i, b);
    note_branches(i, b, BranchCheck::Inputs);
  }
}

template <int W>
void RobotSensitivityEngine<W>::set_reductions(const ReductionLayout& L) {
  const std::size_t n = static_cast<std::size_t>(n_);
  for (const std::unique_ptr<Pass>& p : passes_) {
    p->red = L;
    p->red_acc.assign(L.any() ? static_cast<std::size_t>(L.size()) * n : 0, 0.0);
    p->red_tangent.assign(L.any() ? static_cast<std::size_t>(L.tangent_size()) * W * n : 0, 0.0);
    for (std::size_t i = 0; i < n; ++i) p->clear_reductions(i);
  }
}

template <int W>
void RobotSensitivityEngine<W>::start(const int* ids, int count, const double* y, const std::int8_t* status,
                                   std::int64_t batch_step) {
  const std::size_t n = static_cast<std::size_t>(n_), ny = static_cast<std::size_t>(ny_);
  for (std::size_t c = 0; c < passes_.size(); ++c) {
    Pass& p = *passes_[c];
    const int width = std::min(kWidth, n_sensitivities() - static_cast<int>(c) * kWidth);
    for (int k = 0; k < count; ++k) {
      const std::size_t i = static_cast<std::size_t>(ids ? ids[k] : k);
      const double* yk = y + static_cast<std::size_t>(k) * ny;
      for (std::size_t e = 0; e < ny; ++e) {
        D& x = p.Y[i * ny + e];
        x = D(yk[e]);
        for (int t = 0; t < width; ++t) x.d[t] = seeds_.dy0[((c * kWidth + static_cast<std::size_t>(t)) * n + i) * ny + e];
      }

      p.status[i] = status[k] == batch::kStatusOk ? batch::kStatusOk : batch::kStatusDiverged;
      p.reason[i] = 0;
      p.status_step[i] = 0;
      p.offset[i] = batch_step;
      p.clear_reductions(i);
    }
  }
  std::uint8_t b[kMaxRobotJoints];
  for (int k = 0; k < count; ++k) {
    const std::size_t i = static_cast<std::size_t>(ids ? ids[k] : k);
    turn_quaternion_seeds(i, n, y + static_cast<std::size_t>(k) * ny, [&](int s, int e) -> double& {
      return passes_[static_cast<std::size_t>(s / kWidth)]->Y[i * ny + static_cast<std::size_t>(e)].d[s % kWidth];
    });
    branches(i, b);
    note_branches(i, b, BranchCheck::Start);
  }
}

template <int W>
void RobotSensitivityEngine<W>::advance(std::int64_t batch_step, int n_steps) {
  // One step at a time, to check the joint laws' branches at every step end.
  each_instance([&](int i, Worker& w) {
    const std::size_t I = static_cast<std::size_t>(i);
    for (int s = 0; s < n_steps && !crossed_[I]; ++s) {  // crossed: NaN until it starts again
      for (const std::unique_ptr<Pass>& p : passes_) batch::reduced_advance_thread(i, p->view(), batch_step + s, 1, w.ws);
      if (passes_.front()->status[I] != batch::kStatusOk) break;
      branches(I, w.branch);
      note_branches(I, w.branch, BranchCheck::Step);
    }
  });
}

template <int W>
bool RobotSensitivityEngine<W>::tangents_valid(std::size_t i, const std::int8_t* status) const {
  bool valid = (!status || status[i] == batch::kStatusOk) && !crossed_[i];
  for (const std::unique_ptr<Pass>& p : passes_) valid = valid && p->status[i] == batch::kStatusOk;
  return valid;
}

template <int W>
void RobotSensitivityEngine<W>::read(double* out, const std::int8_t* status) const {
  const int S = n_sensitivities();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  each_instance([&](int i, Worker& w) {
    const std::size_t I = static_cast<std::size_t>(i);
    const bool valid = tangents_valid(I, status);
    for (std::size_t c = 0; c < passes_.size(); ++c) {
      // Instance i's records into the worker's buffer: element e at records[e].
      batch::reduced_body_states_thread(i, passes_[c]->view(), batch::Strided<D>{w.records, 0, 1}, w.ws);
      const int first = static_cast<int>(c) * kWidth, width = std::min(kWidth, S - first);
      for (int e = 0; e < 13 * n_bodies_; ++e)
        for (int t = 0; t < width; ++t)
          out[(I * 13 * n_bodies_ + static_cast<std::size_t>(e)) * S + first + t] = valid ? w.records[e].d[t] : nan;
    }
  });
}

template <int W>
void RobotSensitivityEngine<W>::read_frame(const FrameSensitivities& out, const std::int8_t* status,
                                        std::int64_t /*batch_step*/) {
  const int S = n_sensitivities();
  const std::size_t n = static_cast<std::size_t>(n_), J = static_cast<std::size_t>(n_model_joints_);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // No constraint forces in joint coordinates: the backend's reactions (and so the joint,
  // bearing and driver loads) are NaN, and so are their derivatives.
  const auto fill = [&](double* o, std::size_t per_instance) {
    if (o) std::fill(o, o + n * per_instance * static_cast<std::size_t>(S), nan);
  };
  fill(out.reactions, J * 6);
  fill(out.joint_loads, J * kJointLoadComponents);
  fill(out.bearing_loads, J * kBearingLoadComponents);
  fill(out.driver_loads, static_cast<std::size_t>(n_drivers_));
  const bool joints = out.joint_q || out.joint_qd || out.joint_tau;
  if (!out.energy && !out.kinetic && !joints) return;
  std::vector<D> energy(passes_.size() * n), kinetic(energy.size());  // (passes, n)
  const std::size_t C = static_cast<std::size_t>(n_joints_);
  each_instance([&](int i, Worker& w) {
    const std::size_t I = static_cast<std::size_t>(i);
    const bool valid = tangents_valid(I, status);
    for (std::size_t c = 0; c < passes_.size(); ++c) {
      const int first = static_cast<int>(c) * kWidth, width = std::min(kWidth, S - first);
      // Tangents of v into o[first + t]; NaN where the instance's are not valid.
      const auto put = [&](double* o, const D& v) {
        for (int t = 0; t < width; ++t) o[first + t] = valid && !std::isnan(v.v) ? v.d[t] : nan;
      };
      if (out.energy || out.kinetic) {
        batch::reduced_energy_thread(i, passes_[c]->view(), energy.data() + c * n, kinetic.data() + c * n, w.ws);
        if (out.energy) put(out.energy + I * S, energy[c * n + I]);
        if (out.kinetic) put(out.kinetic + I * S, kinetic[c * n + I]);
      }
      if (!joints) continue;
      // q, qd and tau of instance i into the worker's records: q[k] at records[k], qd[k]
      // at records[C + k], tau[k] at records[2 C + k] (what read_joint_state records).
      batch::reduced_joint_state_thread(i, passes_[c]->view(), batch::Strided<D>{w.records, 0, 1},
                                        batch::Strided<D>{w.records + C, 0, 1}, batch::Strided<D>{w.records + 2 * C, 0, 1},
                                        w.ws);
      for (std::size_t k = 0; k < C; ++k) {
        const std::size_t o = (I * C + k) * S;
        if (out.joint_q) put(out.joint_q + o, w.records[k]);
        if (out.joint_qd) put(out.joint_qd + o, w.records[C + k]);
        if (out.joint_tau) put(out.joint_tau + o, w.records[2 * C + k]);
      }
    }
  });
}

template <int W>
void RobotSensitivityEngine<W>::read_reductions(double* out, const std::int8_t* status, std::int64_t batch_step) {
  const ReductionLayout& L = passes_.front()->red;
  if (!L.any()) return;
  const int S = n_sensitivities(), C = L.channels;
  const std::size_t n = static_cast<std::size_t>(n_), size = static_cast<std::size_t>(L.size()),
                    tsize = static_cast<std::size_t>(L.tangent_size()) * W;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> acc(size * n), tangent(tsize * n);
  for (std::size_t c = 0; c < passes_.size(); ++c) {
    Pass& p = *passes_[c];
    const int first = static_cast<int>(c) * kWidth, width = std::min(kWidth, S - first);
    each_instance([&](int i, Worker& w) {
      // The stored samples and the current state's (as the backend's read), with tangents.
      batch::reduced_reduce_read_thread(i, p.view(), batch_step, acc.data(), w.ws, tangent.data());
      const std::size_t I = static_cast<std::size_t>(i);
      const bool valid = tangents_valid(I, status);
      const ReductionAcc a{acc.data() + I * size, 1, tangent.data() + I * tsize};
      for (int ch = 0; ch < C; ++ch)
        for (int k = 0; k < width; ++k) {
          double d4[kReductionTangentStats];
          reduction_stats_tangent(L, a, ch, p.dt, k, W, d4);
          for (int st = 0; st < kReductionTangentStats; ++st)
            out[((I * C + static_cast<std::size_t>(ch)) * kReductionTangentStats + st) * S + first + k] =
                valid ? d4[st] : nan;
        }
    });
  }
}

template <int W>
ArrayView RobotSensitivityEngine<W>::state_tangent_view() {
  // Pass.Y: row-major, element e of instance i at i * ny + e.
  return dual_tangent_view<W>(passes_.front()->Y.data(), n_, ny_, ny_, 1, n_sensitivities(), passes_.size());
}

// The widths of SensitivityEngine::pass_width.
template class RobotSensitivityEngine<1>;
template class RobotSensitivityEngine<4>;
template class RobotSensitivityEngine<8>;
template class RobotSensitivityEngine<SensitivityEngine::kMaxWidth>;

}  // namespace simphant
