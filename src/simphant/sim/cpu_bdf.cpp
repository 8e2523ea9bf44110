// CpuBackend's bdf integrator (docs/solver.md, "The bdf integrator"): each instance has
// its own CVODE memory (sim/cvode_instance.hpp), made on its first advance and freed with
// the backend; the instances are spread over the worker threads as for the fixed-step
// integrators, each thread evaluating with its own Data. advance(n) integrates each live
// instance to its next n grid times, and at each grid time
//   - the output state is CVODE's interpolant there, quaternions renormalised and
//     model.solver.projection applied (CVODE itself carries on from its own history,
//     which its projection step keeps on the manifold);
//   - the violation bound and the runaway bound are checked on that state, as after an
//     RK4 step;
//   - reductions over time are sampled at the grid times, the state at the start of each
//     grid interval, as the fixed-step integrators sample each step's start state.
// CVODE restarts (order 1, first-step estimate) at the instance's time from its current
// state when the instance was reset, written (set_state, state_view, set_models) or its
// actuator inputs changed since the last output: CVODE may have stepped past the last
// grid time, and the inputs hold over a grid interval.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/projection.hpp"
#include "simphant/dynamics/reduce_sample.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/sim/bdf_support.hpp"
#include "simphant/sim/cpu_backend.hpp"
#include "simphant/sim/cvode_instance.hpp"

namespace simphant {

bool bdf_available() { return true; }

struct CpuBdfState {
  CpuBdfState(int n_instances, int ny, int n_inputs)
      : cvode(static_cast<std::size_t>(n_instances)),
        restart(static_cast<std::size_t>(n_instances), 1),
        last_y(static_cast<std::size_t>(n_instances) * ny, 0.0),
        last_u(static_cast<std::size_t>(n_instances) * n_inputs, 0.0) {}
  std::vector<std::unique_ptr<CvodeInstance>> cvode;  ///< (n_instances), made on the instance's first advance
  std::vector<char> restart;                          ///< (n_instances) restart CVODE before the next step
  std::vector<double> last_y;                         ///< (n_instances, ny) the state at the last output
  std::vector<double> last_u;                         ///< (n_instances, n_inputs) the inputs of the last advance
};

void CpuBdfStateDeleter::operator()(CpuBdfState* s) const { delete s; }

namespace {

/// The output state at a grid time, as after an RK4 step: quaternions renormalised, then
/// solver.projection (dynamics/projection.hpp). Returns kReasonNone, or
/// factorisation_failure / non_finite.
std::int8_t finish_output(const Model& model, Data& d, double t, double* Y) {
  for (int k = 0; k < model.n_bodies(); ++k) {
    const Quatd p = normalized(state_p(Y, k));
    Y[7 * k + 3] = p.w; Y[7 * k + 4] = p.x; Y[7 * k + 5] = p.y; Y[7 * k + 6] = p.z;
  }
  if (!project(model, d, t, Y)) return kReasonFactorisationFailure;
  for (int i = 0; i < model.ny(); ++i)
    if (!std::isfinite(Y[i])) return kReasonNonFinite;
  return kReasonNone;
}

}  // namespace

void CpuBackend::advance_bdf(int n_steps) {
  if (!bdf_) bdf_.reset(new CpuBdfState(n_instances_, ny_, n_inputs_));
  CpuBdfState& S = *bdf_;
  const std::int64_t step0 = steps_;
  const double eps = std::numeric_limits<double>::epsilon();
  std::atomic<int> alloc_failed{0};
  // Instances take very different numbers of steps: small chunks balance them.
  const int chunk = parallel_chunk(n_instances_, n_steps, pool_->size());
  pool_->parallel_for(n_instances_, chunk, [&](int i0, int i1, int worker) {
    for (int i = i0; i < i1; ++i) {
      if (status_[i] != static_cast<std::int8_t>(InstanceStatus::Ok)) continue;
      const std::size_t iy = static_cast<std::size_t>(i) * ny_, iu = static_cast<std::size_t>(i) * n_inputs_;
      const Model& model = model_of(i);
      Data& d = *workers_[static_cast<std::size_t>(worker)];
      const RefinementScope scope(d.refinement, refinement_[static_cast<std::size_t>(i)]);
      double* Y = Y_.data() + iy;
      const double* u = n_inputs_ ? inputs_.data() + iu : nullptr;
      const double a = runaway_[2 * static_cast<size_t>(i)], b = runaway_[2 * static_cast<size_t>(i) + 1];
      std::unique_ptr<CvodeInstance>& cv = S.cvode[static_cast<std::size_t>(i)];
      if (!cv) {
        try {
          cv = std::make_unique<CvodeInstance>(ny_);
        } catch (const std::exception&) {
          ++alloc_failed;
          continue;
        }
      }
      const auto stop = [&](std::int64_t batch_step, std::int8_t why) {
        status_[i] = static_cast<std::int8_t>(InstanceStatus::Diverged);
        status_step_[i] = batch_step - offset_[i];
        reason_[i] = why;
      };
      const double t0 = instance_time(i, step0);
      const bool same = cv->started() && cv->output_time() == t0 && std::equal(Y, Y + ny_, S.last_y.begin() + iy) &&
                        std::equal(u, u + n_inputs_, S.last_u.begin() + iu);
      if (S.restart[static_cast<std::size_t>(i)] || !same) {
        if (!cv->restart(model.solver, t0, Y)) {
          stop(step0, kReasonStepSizeUnderflow);
          continue;
        }
        S.restart[static_cast<std::size_t>(i)] = 0;
        std::copy_n(u, n_inputs_, S.last_u.begin() + iu);
      }
      const BdfProblem problem{&model, &d, u};
      BdfStepStats stats;
      double* ys = d.y_stage.data();
      for (int s = 0; s < n_steps; ++s) {
        if (red_layout_.any()) {  // the grid interval's start state (docs/solver.md, "Reductions over time")
          const double t_start = instance_time(i, step0 + s);
          if (evaluate(model, d, t_start, Y, u, d.k1.data()))
            sample_reductions(model, d, t_start, u, red_layout_, red_acc_.data() + static_cast<std::size_t>(i) * red_layout_.size(),
                              static_cast<double>(step0 + s - offset_[i]));
        }
        const double t_out = instance_time(i, step0 + s + 1);
        const double floor = std::max(model.solver.min_step, 16.0 * eps * std::max(std::abs(t_out), dt_));
        std::int8_t why = cv->advance_to(problem, t_out, floor, ys, stats);
        if (why == kReasonNone) why = finish_output(model, d, t_out, ys);
        if (why == kReasonNone) {
          set_kinematics(model, d, ys);
          evaluate_constraints(model, d, t_out);
          const double v = model.n_rows > 0 ? max_violation(d) : 0.0;
          if (!(v <= model.solver.violation_bound))
            why = std::isnan(v) ? kReasonNonFinite : kReasonConstraintViolation;
          else if (kinetic_energy(model, d) > runaway_kinetic_bound(a, b, static_cast<double>(step0 + s + 1) * dt_))
            why = kReasonRunaway;
        }
        if (why != kReasonNone) {  // Y stays at the last good grid state
          stop(step0 + s, why);
          break;
        }
        std::copy_n(ys, ny_, Y);
      }
      std::copy_n(Y, ny_, S.last_y.begin() + iy);
      if (stats.accepted > 0) {
        min_step_[i] = accepted_[i] > 0 ? std::min(min_step_[i], stats.min_step) : stats.min_step;
        max_step_[i] = accepted_[i] > 0 ? std::max(max_step_[i], stats.max_step) : stats.max_step;
      }
      accepted_[i] += stats.accepted;
      rejected_[i] += stats.rejected;
    }
  });
  steps_ += n_steps;
  if (alloc_failed.load() > 0)
    throw BackendError("integrator 'bdf': CVODE could not allocate the memory of " + std::to_string(alloc_failed.load()) +
                       " instance(s)");
}

// CVODE's history (its Nordsieck array, order and step) cannot be written back, so none is
// kept for checkpoints: a resumed run restarts CVODE at the checkpoint's time from the
// checkpoint's state (docs/state.md), which continues within the tolerances but not
// bit-identically.
int CpuBackend::bdf_state_size() const { return 0; }
void CpuBackend::get_bdf_state(double* out) const { (void)out; }
void CpuBackend::set_bdf_state(const double* in) { (void)in; }

void CpuBackend::restart_bdf(int i) {
  if (bdf_) bdf_->restart[static_cast<std::size_t>(i)] = 1;
}

}  // namespace simphant
