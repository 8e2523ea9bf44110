// CpuBackend's adaptive Dormand-Prince 5(4) integrator (docs/solver.md, "Dormand-Prince
// 5(4)"): each live instance integrates Y' = f(t, Y) with its own steps (the method's
// arithmetic in formulas/dopri5.hpp), and the state at each grid time steps * dt comes
// from the continuous extension of the step that covers it; steps are never clipped to
// the grid, so the integration runs past the last grid time by up to one step and
// continues from there on the next advance().
#include <algorithm>
#include <cmath>
#include <cstring>

#include "simphant/formulas/dopri5.hpp"
#include "simphant/formulas/projection_math.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/projection.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/dynamics/step_common.hpp"
#include "simphant/sim/cpu_backend.hpp"
#include "simphant/sim/cpu_dopri5.hpp"

namespace simphant {

namespace {

// One instance's integrator state, get/set_integrator_state's row: a header of kHeader
// numbers, then y (ny), k1 (ny), the dense-output coefficients r1..r5 (5 ny) and the
// actuator inputs the integration ran with (n_inputs).
enum Slot : int {
  kPhase = 0,         ///< 0: start afresh (first-step estimate), 1: running
  kTime,              ///< t [s], the instance time of y (>= the instance's grid time)
  kStep,              ///< h [s], the next step to try
  kLastStart,         ///< [s] start of the last accepted step (its dense output covers [t - h_last, t])
  kLastStep,          ///< [s] size of the last accepted step (0: none since the start)
  kFacOld,            ///< the controller's facold (dopri5::ControllerState)
  kLastRejected,      ///< the controller's last_rejected
  kAccepted,          ///< step statistics since the instance's last reset
  kRejected,
  kMinStep,
  kMaxStep,
  kHeader
};

}  // namespace

/// Per-instance state of the dopri5 integration and per-worker scratch.
struct CpuDopri5State {
  int ny = 0, n_inputs = 0, row = 0;
  std::vector<double> rows;        ///< (n_instances, row): the layout of Slot, then y, k1, r1..r5, u
  std::vector<double> scratch;     ///< (threads, 8 ny): k2..k7, the stage state, y1
  double* of(int i) { return rows.data() + static_cast<std::size_t>(i) * row; }
  const double* of(int i) const { return rows.data() + static_cast<std::size_t>(i) * row; }
};

void CpuDopri5StateDeleter::operator()(CpuDopri5State* s) const { delete s; }

namespace {

/// Where the parts of one instance's row live.
struct Row {
  double* h;   ///< header (Slot)
  double* y;   ///< (ny) state at h[kTime]
  double* k1;  ///< (ny) f(t, y): the next step's first stage
  double* r[5];  ///< (ny each) continuous extension of the last accepted step
  double* u;   ///< (n_inputs) inputs the integration ran with
};

Row row_of(CpuDopri5State& s, int i) {
  double* b = s.of(i);
  const std::size_t ny = static_cast<std::size_t>(s.ny);
  Row r{b, b + kHeader, b + kHeader + ny, {}, b + kHeader + 7 * ny};
  for (int j = 0; j < 5; ++j) r.r[j] = b + kHeader + (2 + j) * ny;
  return r;
}

/// Normalises the N body quaternions of Y (13N) in place (docs/solver.md: unit after each step).
void normalise_quaternions(int n_bodies, double* Y) {
  for (int k = 0; k < n_bodies; ++k) {
    const Quatd p = normalized(state_p(Y, k));
    Y[7 * k + 3] = p.w; Y[7 * k + 4] = p.x; Y[7 * k + 5] = p.y; Y[7 * k + 6] = p.z;
  }
}

/// The state at instance time `target` (t_last_start < target <= t): y itself when the
/// integration stands exactly there, else the last step's continuous extension at
/// theta = (target - t_last_start) / h_last with unit quaternions.
void grid_state(const Row& r, int ny, int n_bodies, double target, double* out) {
  if (target == r.h[kTime] || !(r.h[kLastStep] > 0)) {
    std::copy_n(r.y, ny, out);
    return;
  }
  const double theta = (target - r.h[kLastStart]) / r.h[kLastStep];
  const double* rc[5] = {r.r[0], r.r[1], r.r[2], r.r[3], r.r[4]};
  dopri5::dense_output<double>(ny, 1, theta, rc, out);
  normalise_quaternions(n_bodies, out);
}

}  // namespace

int cpu_dopri5_row_size(int ny, int n_inputs) { return kHeader + 7 * ny + n_inputs; }

int cpu_dopri5_worker_doubles(int ny) { return 8 * ny; }

int CpuBackend::dopri5_state_size() const { return cpu_dopri5_row_size(ny_, n_inputs_); }

void CpuBackend::restart_dopri5(int i) {
  if (!dopri5_) return;  // not made yet: every instance starts afresh
  double* h = row_of(*dopri5_, i).h;
  h[kPhase] = 0.0;
  h[kAccepted] = h[kRejected] = h[kMinStep] = h[kMaxStep] = 0.0;
}

void CpuBackend::get_dopri5_state(double* out) const {
  const std::size_t row = static_cast<std::size_t>(dopri5_state_size());
  if (!dopri5_) {  // never advanced: every instance starts afresh
    std::fill_n(out, row * static_cast<std::size_t>(n_instances_), 0.0);
    return;
  }
  std::copy(dopri5_->rows.begin(), dopri5_->rows.end(), out);
}

void CpuBackend::set_dopri5_state(const double* in) {
  if (!dopri5_) {
    dopri5_.reset(new CpuDopri5State);
    dopri5_->ny = ny_;
    dopri5_->n_inputs = n_inputs_;
    dopri5_->row = dopri5_state_size();
    dopri5_->scratch.assign(static_cast<std::size_t>(threads_) * cpu_dopri5_worker_doubles(ny_), 0.0);
  }
  const std::size_t row = static_cast<std::size_t>(dopri5_->row);
  dopri5_->rows.assign(in, in + row * static_cast<std::size_t>(n_instances_));
  for (int i = 0; i < n_instances_; ++i) {
    const double* h = dopri5_->of(i);
    const std::size_t k = static_cast<std::size_t>(i);
    accepted_[k] = static_cast<std::int64_t>(h[kAccepted]);
    rejected_[k] = static_cast<std::int64_t>(h[kRejected]);
    min_step_[k] = h[kMinStep];
    max_step_[k] = h[kMaxStep];
  }
}

void CpuBackend::advance_dopri5(int n_steps) {
  if (!dopri5_) {
    std::vector<double> fresh(static_cast<std::size_t>(dopri5_state_size()) * static_cast<std::size_t>(n_instances_), 0.0);
    set_dopri5_state(fresh.data());
  }
  CpuDopri5State& S = *dopri5_;
  const std::int64_t step0 = steps_;
  const int ny = ny_;
  // Instances take very different numbers of steps: small chunks balance them.
  const int chunk = parallel_chunk(n_instances_, n_steps, pool_->size());
  pool_->parallel_for(n_instances_, chunk, [&](int i0, int i1, int worker) {
    for (int i = i0; i < i1; ++i) {
      if (status_[i] != static_cast<std::int8_t>(InstanceStatus::Ok)) continue;
      const Model& model = model_of(i);
      const SolverSettings& sv = model.solver;
      const int N = model.n_bodies();
      Data& d = *workers_[static_cast<std::size_t>(worker)];
      const RefinementScope scope(d.refinement, refinement_[static_cast<std::size_t>(i)]);
      double* Y = Y_.data() + static_cast<std::size_t>(i) * ny;
      const double* u = n_inputs_ ? inputs_.data() + static_cast<std::size_t>(i) * n_inputs_ : nullptr;
      const double a = runaway_[2 * static_cast<std::size_t>(i)], b = runaway_[2 * static_cast<std::size_t>(i) + 1];
      const double off = static_cast<double>(offset_[i]) * dt_;  // batch time = instance time + off
      const Row r = row_of(S, i);
      double* w = S.scratch.data() + static_cast<std::size_t>(worker) * cpu_dopri5_worker_doubles(ny);
      double* ks = w;                  // k2..k7 (6 ny)
      double* ys = w + 6 * ny;         // stage state
      double* y1 = w + 7 * ny;         // the step's 5th-order solution
      const double* k[7] = {r.k1, ks, ks + ny, ks + 2 * ny, ks + 3 * ny, ks + 4 * ny, ks + 5 * ny};
      double* acc = red_layout_.any() ? red_acc_.data() + static_cast<std::size_t>(i) * red_layout_.size() : nullptr;
      const auto sink_at = [&](double t) { return ReductionSink{&red_layout_, acc, t / dt_}; };
      dopri5::ControllerState<double> cs{r.h[kFacOld], static_cast<int>(r.h[kLastRejected])};
      std::int64_t n_acc = accepted_[i], n_rej = rejected_[i];  // restart_integrator clears them
      double t = r.h[kTime], h = r.h[kStep];

      // Freezes the instance at grid step `grid` (Y holds that grid time's state).
      const auto fail = [&](std::int64_t grid, std::int8_t reason) {
        status_[i] = static_cast<std::int8_t>(InstanceStatus::Diverged);
        status_step_[i] = grid - offset_[i];
        reason_[i] = reason;
      };
      // (Re)starts the integration from Y at the instance's grid time: k1 evaluated and
      // checked (begin_step: violation, evaluation, reduction sample), the dense output
      // dropped; a fresh start also takes the first step from solver.first_step or the
      // estimate.
      const auto start = [&](bool fresh) {
        r.h[kTime] = t = instance_time(i, step0);
        std::copy_n(Y, ny, r.y);
        std::copy_n(u, n_inputs_, r.u);
        r.h[kLastStep] = 0.0;
        const ReductionSink sink = sink_at(t);
        if (!begin_step(model, d, t, r.y, u, acc ? &sink : nullptr)) return false;
        std::copy_n(d.k1.data(), ny, r.k1);
        if (!fresh) return true;
        cs = dopri5::ControllerState<double>{};
        if (sv.first_step > 0) {
          h = sv.max_step > 0 ? std::min(sv.first_step, sv.max_step) : sv.first_step;
        } else {
          double d1 = 0;
          const double h0 = dopri5::first_step_trial<double>(ny, 1, r.y, r.k1, sv.atol, sv.rtol, sv.max_step, &d1);
          for (int e = 0; e < ny; ++e) ys[e] = r.y[e] + h0 * r.k1[e];
          double* f1 = ks;
          if (!evaluate(model, d, t + h0, ys, u, f1)) std::fill_n(f1, ny, std::nan(""));  // falls back to 1e-3 h0
          h = dopri5::first_step_final<double>(ny, 1, r.y, r.k1, f1, h0, d1, sv.atol, sv.rtol, sv.max_step);
        }
        return true;
      };

      bool ok = true;
      if (r.h[kPhase] == 0.0) {
        ok = start(true);
        if (ok) r.h[kPhase] = 1.0;  // else a revived instance starts afresh again
        else fail(step0, d.failure);
      } else {
        // Y or the inputs written since the last advance (state_view, set_inputs): Y is no
        // longer the integration's grid state, or the integration past the grid time ran
        // with other inputs. Y written: start afresh as set_state does; inputs changed:
        // restart from the grid state keeping h and the controller.
        grid_state(r, ny, N, instance_time(i, step0), ys);
        const bool y_written = std::memcmp(ys, Y, sizeof(double) * static_cast<std::size_t>(ny)) != 0;
        const bool u_changed = n_inputs_ && std::memcmp(u, r.u, sizeof(double) * static_cast<std::size_t>(n_inputs_)) != 0;
        if (y_written) {
          n_acc = n_rej = 0;
          min_step_[i] = max_step_[i] = 0.0;
        }
        if (y_written || u_changed) {
          ok = start(y_written);
          if (!ok) {
            r.h[kPhase] = 0.0;  // a revived instance starts afresh
            fail(step0, d.failure);
          }
        }
      }

      for (int s = 0; ok && s < n_steps; ++s) {
        const double target = instance_time(i, step0 + s + 1);
        while (t < target) {
          if (!(h >= dopri5::step_floor(t, dt_, sv.min_step))) {  // NaN too
            fail(step0 + s, kReasonStepSizeUnderflow);
            ok = false;
            break;
          }
          // Stages 2..7; a failed evaluation or stage projection makes the error NaN (a
          // rejection: the step may simply have been too large).
          bool stages_ok = true;
          double violation_end = 0;
          for (int st = 2; st <= 7 && stages_ok; ++st) {
            double* state = st == 7 ? y1 : ys;
            const double ts = t + dopri5::node<double>(st) * h;
            dopri5::stage_state<double>(st, ny, 1, h, r.y, k, state);
            if (st < 7 && !project_stage_state(model, d, ts, state)) stages_ok = false;
            else if (!evaluate(model, d, ts, state, u, ks + (st - 2) * ny)) stages_ok = false;
            if (st == 7) violation_end = model.n_rows > 0 ? max_violation(d) : 0.0;
          }
          const double err = stages_ok ? dopri5::error_norm<double>(ny, 1, h, r.y, y1, k, sv.atol, sv.rtol) : std::nan("");
          double h_new = h;
          if (!dopri5::control_step(err, h, sv.max_step, &cs, &h_new)) {
            ++n_rej;
            h = h_new;
            continue;
          }
          // Accepted: the candidate (unit quaternions) passes finish_step's checks and
          // projection, then becomes the next step's start, checked as every step's start
          // is (begin_step: violation bound, evaluation, reduction sample). Without a
          // projection the 7th stage's evaluation is that start's (FSAL; project() and the
          // checks leave d as the 7th stage left it); with one the projected state is
          // evaluated afresh.
          const double t1 = t + h;
          std::copy_n(y1, ny, ys);
          normalise_quaternions(N, ys);
          if (!finish_step(model, d, t1, ys, runaway_kinetic_bound(a, b, t1 + off), ys)) {
            fail(step0 + s, d.failure);
            ok = false;
            break;
          }
          double* k7 = ks + 5 * ny;
          double* rr[5] = {r.r[0], r.r[1], r.r[2], r.r[3], r.r[4]};
          if (!projects_adaptive_step(static_cast<int>(sv.projection)) || model.n_rows == 0) {
            if (!(violation_end <= sv.violation_bound)) {
              fail(step0 + s, std::isnan(violation_end) ? kReasonNonFinite : kReasonConstraintViolation);
              ok = false;
              break;
            }
            if (acc) sample_reductions(model, d, t1, u, red_layout_, acc, t1 / dt_);
            // Hairer's continuous extension of the step as computed: it ends at y1, whose
            // normalised quaternions are the new start's.
            dopri5::dense_coefficients<double>(ny, 1, h, r.y, y1, k, rr);
          } else {
            const ReductionSink sink = sink_at(t1);
            if (!begin_step(model, d, t1, ys, u, acc ? &sink : nullptr)) {
              fail(step0 + s, d.failure);
              ok = false;
              break;
            }
            std::copy_n(d.k1.data(), ny, k7);
            // The extension runs to the projected state with the derivative there:
            // continuous across steps, its end the next start (docs/solver.md).
            dopri5::dense_coefficients<double>(ny, 1, h, r.y, ys, k, rr);
          }
          std::copy_n(ys, ny, r.y);
          std::copy_n(k7, ny, r.k1);
          ++n_acc;
          if (n_acc == 1 || h < min_step_[i]) min_step_[i] = h;
          if (n_acc == 1 || h > max_step_[i]) max_step_[i] = h;
          r.h[kLastStart] = t;
          r.h[kLastStep] = h;
          r.h[kTime] = t = t1;  // grid_state reads it
          h = h_new;
        }
        if (!ok) break;
        grid_state(r, ny, N, target, Y);
      }
      if (ok) {
        // Each step checks its start state; the grid state the batch ends on is checked here.
        set_kinematics(model, d, Y);
        evaluate_constraints(model, d, instance_time(i, step0 + n_steps));
        const double v = max_violation(d);
        if (!(v <= sv.violation_bound)) fail(step0 + n_steps, std::isnan(v) ? kReasonNonFinite : kReasonConstraintViolation);
      }
      r.h[kTime] = t;
      r.h[kStep] = h;
      r.h[kFacOld] = cs.facold;
      r.h[kLastRejected] = cs.last_rejected;
      r.h[kAccepted] = static_cast<double>(n_acc);
      r.h[kRejected] = static_cast<double>(n_rej);
      r.h[kMinStep] = min_step_[i];
      r.h[kMaxStep] = max_step_[i];
      accepted_[i] = n_acc;
      rejected_[i] = n_rej;
    }
  });
  steps_ += n_steps;
}

}  // namespace simphant
