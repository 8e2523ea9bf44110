#include "simphant/sim/cpu_backend.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "simphant/dynamics/euler.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/sim/assemble_batch.hpp"
#include "simphant/sim/cpu_simd_engine.hpp"
#include "simphant/sim/joint_coordinates.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "simphant/sim/step_statistics.hpp"
#include "simphant/model/topology.hpp"

namespace simphant {

namespace {

/// Each actuator's model value (its default input) into u (n_inputs).
void default_inputs(const Model& model, double* u) {
  for (const ForceElement& f : model.forces)
    if (f.type == ForceType::Actuator) u[f.input_index] = f.value;
}

}  // namespace

void CpuSimdEngineDeleter::operator()(CpuSimdEngine* e) const { delete e; }

template <class Body>
void CpuBackend::for_each_instance(const Body& body) const {
  pool_->parallel_for(n_instances_, parallel_chunk(n_instances_, 1, threads_), [&](int begin, int end, int worker) {
    for (int i = begin; i < end; ++i) body(i, worker);
  });
}

CpuBackend::CpuBackend(std::shared_ptr<const std::vector<Model>> models, int n_instances, int threads,
                       SchurFactorization schur, bool simd)
    : models_(std::move(models)), n_instances_(n_instances), ids_(n_instances) {
  if (!models_ || models_->empty()) throw std::invalid_argument("CpuBackend: no model");
  if (models_->size() != 1 && static_cast<int>(models_->size()) != n_instances_)
    throw std::invalid_argument("CpuBackend: models must be 1 or one per instance");
  const Model& m0 = models_->front();
  if (simd) {
    const std::string why = cpu_simd_unsupported(m0);
    if (!why.empty()) throw std::invalid_argument("backend cpu-simd: " + why + " (use backend cpu)");
    if (schur == SchurFactorization::Dense)
      throw std::invalid_argument("backend cpu-simd: schur 'dense' applies to the cpu backend; cpu-simd factorises "
                                  "the topology-ordered sparse Schur complement (schur 'auto' or 'sparse')");
    schur = SchurFactorization::Sparse;  // the reads factorise as the step does
  }
  threads_ = resolve_thread_count(threads);
  threads_ = std::min(threads_, std::max(1, n_instances_));
  pool_ = std::make_unique<ThreadPool>(threads_);
  ny_ = m0.ny();
  n_inputs_ = m0.n_inputs;
  dt_ = m0.solver.dt;
  integrator_ = m0.solver.integrator;
  accepted_.assign(n_instances_, 0);
  refinement_.assign(static_cast<std::size_t>(n_instances_), RefinementRecord{});
  rejected_.assign(n_instances_, 0);
  min_step_.assign(n_instances_, 0.0);
  max_step_.assign(n_instances_, 0.0);
  inputs_.assign(static_cast<size_t>(n_instances_) * n_inputs_, 0.0);
  status_step_.assign(n_instances_, 0);
  offset_.assign(n_instances_, 0);
  // Each worker's Data is made in place and never moved (dynamics/data.hpp).
  workers_.reserve(static_cast<std::size_t>(threads_));
  for (int t = 0; t < threads_; ++t) workers_.push_back(std::make_unique<Data>(m0, schur));
  for (int i = 0; i < n_instances_; ++i) default_inputs(model_of(i), inputs_.data() + static_cast<size_t>(i) * n_inputs_);
  AssembledBatch assembled = assemble_batch(*models_, n_instances_, threads_);
  Y0_ = assembled.Y;
  Y_ = std::move(assembled.Y);
  assembly_ = std::move(assembled.results);
  status_ = std::move(assembled.status);
  reason0_ = assembled.reason;
  reason_ = std::move(assembled.reason);
  runaway_ = std::move(assembled.runaway);
  if (simd) engine_.reset(new CpuSimdEngine(*models_, n_instances_));
}

CpuBackend::~CpuBackend() = default;

std::int64_t CpuBackend::factorisation_recoveries() const {
  std::int64_t total = 0;
  for (const std::unique_ptr<Data>& d : workers_) total += d->factorisation_recoveries;
  return total + (engine_ ? engine_->recoveries() : 0);
}

void CpuBackend::read_refinement(RefinementRecord* out) const {
  for (int i = 0; i < n_instances_; ++i) {
    RefinementRecord r = refinement_[static_cast<std::size_t>(i)];
    if (engine_) r.merge(engine_->refinement(i));
    out[i] = r;
  }
}

std::string CpuBackend::details() const {
  const std::string threads = std::to_string(threads_) + " thread" + (threads_ == 1 ? "" : "s");
  if (engine_)
    return "cpu-simd, instances in groups of " + std::to_string(simd::kLaneWidth) + " SIMD lanes (target " +
           simd::simd_target() + ", " + std::to_string(engine_->padded_instances()) + " instances with padding), " +
           threads + ", topology-ordered sparse Schur factorisation (" + std::to_string(engine_->schur_values()) +
           " values)";
  return "cpu, " + threads + ", " + (workers_.front()->sparse_schur ? "topology-ordered sparse" : "dense") +
         " Schur factorisation";
}

void CpuBackend::set_inputs(const double* u) { std::copy(u, u + inputs_.size(), inputs_.begin()); }

void CpuBackend::advance(int n_steps) {
  switch (integrator_) {
    case Integrator::Dopri5: advance_dopri5(n_steps); return;
    case Integrator::Bdf: advance_bdf(n_steps); return;
    default: advance_fixed(n_steps); return;
  }
}

void CpuBackend::advance_fixed(int n_steps) {
  const std::int64_t step0 = steps_;
  if (engine_) {
    if (n_steps >= 0) {
      const CpuRows rows{Y_.data(), inputs_.data(), status_.data(), status_step_.data(), reason_.data(), runaway_.data(),
                         offset_.data(), red_layout_, red_layout_.any() ? red_acc_.data() : nullptr};
      engine_->advance(rows, step0, n_steps, *pool_);
      // The state each live instance ends on, checked as the scalar path checks it.
      for_each_instance([&](int i, int worker) {
        if (status_[i] == static_cast<std::int8_t>(InstanceStatus::Ok)) end_check(i, worker, step0 + n_steps);
      });
    }
    steps_ += n_steps;
    return;
  }
  const EulerKind euler = integrator_ == Integrator::SymplecticEuler ? EulerKind::Symplectic : EulerKind::Explicit;
  for_each_instance([&](int i, int worker) {
    if (status_[i] != static_cast<std::int8_t>(InstanceStatus::Ok)) return;
    const Model& model = model_of(i);
    Data& d = *workers_[static_cast<std::size_t>(worker)];
    const RefinementScope scope(d.refinement, refinement_[static_cast<std::size_t>(i)]);
    double* Y = Y_.data() + static_cast<size_t>(i) * ny_;
    const double* u = n_inputs_ ? inputs_.data() + static_cast<size_t>(i) * n_inputs_ : nullptr;
    const double a = runaway_[2 * static_cast<size_t>(i)], b = runaway_[2 * static_cast<size_t>(i) + 1];
    int s = 0;
    for (; s < n_steps; ++s) {
      // A failed step leaves Y at the last good state: the instance is frozen there. The
      // runaway bound is taken at the end of the step, on the batch clock (docs/solver.md).
      const double kinetic_bound = runaway_kinetic_bound(a, b, static_cast<double>(step0 + s + 1) * dt_);
      ReductionSink sink{&red_layout_, red_layout_.any() ? red_acc_.data() + static_cast<size_t>(i) * red_layout_.size() : nullptr,
                         static_cast<double>(step0 + s - offset_[i])};
      const double t = instance_time(i, step0 + s);
      const ReductionSink* sk = red_layout_.any() ? &sink : nullptr;
      const bool ok = integrator_ == Integrator::Rk4 ? rk4_step(model, d, t, Y, u, dt_, kinetic_bound, sk)
                                                     : euler_step(euler, model, d, t, Y, u, dt_, kinetic_bound, sk);
      if (!ok) {
        status_[i] = static_cast<std::int8_t>(InstanceStatus::Diverged);
        status_step_[i] = step0 + s - offset_[i];
        reason_[i] = d.failure;
        break;
      }
    }
    if (s == n_steps) end_check(i, worker, step0 + n_steps);
  });
  steps_ += n_steps;
}

void CpuBackend::end_check(int i, int worker, std::int64_t batch_step) {
  Data& d = *workers_[static_cast<std::size_t>(worker)];
  const Model& model = model_of(i);
  set_kinematics(model, d, Y_.data() + static_cast<size_t>(i) * ny_);
  evaluate_constraints(model, d, instance_time(i, batch_step));
  const double v = max_violation(d);
  if (!(v <= model.solver.violation_bound)) {
    status_[i] = static_cast<std::int8_t>(InstanceStatus::Diverged);
    status_step_[i] = batch_step - offset_[i];
    reason_[i] = std::isnan(v) ? kReasonNonFinite : kReasonConstraintViolation;
  }
}

Data& CpuBackend::evaluate_at_state(int i, int worker) const {
  Data& d = *workers_[static_cast<std::size_t>(worker)];
  const Model& model = model_of(i);
  const double* Y = Y_.data() + static_cast<size_t>(i) * ny_;
  const double* u = n_inputs_ ? inputs_.data() + static_cast<size_t>(i) * n_inputs_ : nullptr;
  double* scratch = d.k1.data();
  if (!evaluate(model, d, instance_time(i, steps_), Y, u, scratch)) d.lambda.setConstant(std::nan(""));
  return d;
}

void CpuBackend::read_states(double* out) const {
  const int N = models_->front().n_bodies();
  for (int i = 0; i < n_instances_; ++i)
    state_to_record(Y_.data() + static_cast<size_t>(i) * ny_, N, out + static_cast<size_t>(i) * 13 * N);
}

void CpuBackend::read_reactions(double* out) const {
  const int nj = models_->front().n_joints();
  for_each_instance([&](int i, int worker) {
    const Data& d = evaluate_at_state(i, worker);
    joint_reactions(model_of(i), d, out + static_cast<size_t>(i) * 6 * nj);
  });
}

void CpuBackend::read_driver_loads(double* out) const {
  const int nd = n_drivers();
  if (nd == 0) return;
  for_each_instance([&](int i, int worker) {
    const Data& d = evaluate_at_state(i, worker);
    driver_loads(model_of(i), d, out + static_cast<size_t>(i) * nd);
  });
}

void CpuBackend::read_constraint_violation(double* out) const {
  for_each_instance([&](int i, int worker) {
    Data& d = *workers_[static_cast<std::size_t>(worker)];
    set_kinematics(model_of(i), d, Y_.data() + static_cast<size_t>(i) * ny_);
    evaluate_constraints(model_of(i), d, instance_time(i, steps_));
    out[i] = max_violation(d);
  });
}

void CpuBackend::read_energy(double* total, double* kinetic) const {
  for_each_instance([&](int i, int worker) {
    Data& d = *workers_[static_cast<std::size_t>(worker)];
    set_kinematics(model_of(i), d, Y_.data() + static_cast<size_t>(i) * ny_);
    total[i] = total_energy(model_of(i), d);
    if (kinetic) kinetic[i] = kinetic_energy(model_of(i), d);
  });
}

void CpuBackend::read_step_statistics(std::int64_t* accepted, std::int64_t* rejected, double* min_step,
                                      double* max_step) const {
  if (!is_adaptive(integrator_)) {
    std::vector<std::int64_t> steps(static_cast<std::size_t>(n_instances_));
    for (int i = 0; i < n_instances_; ++i) steps[static_cast<std::size_t>(i)] = steps_ - offset_[i];
    fixed_step_statistics(n_instances_, steps.data(), status_.data(), status_step_.data(), dt_, accepted, rejected,
                          min_step, max_step);
    return;
  }
  if (accepted) std::copy(accepted_.begin(), accepted_.end(), accepted);
  if (rejected) std::copy(rejected_.begin(), rejected_.end(), rejected);
  if (min_step) std::copy(min_step_.begin(), min_step_.end(), min_step);
  if (max_step) std::copy(max_step_.begin(), max_step_.end(), max_step);
}

int CpuBackend::integrator_state_size() const {
  switch (integrator_) {
    case Integrator::Dopri5: return dopri5_state_size();
    case Integrator::Bdf: return bdf_state_size();
    default: return 0;
  }
}

void CpuBackend::get_integrator_state(double* out) const {
  if (integrator_ == Integrator::Dopri5) get_dopri5_state(out);
  if (integrator_ == Integrator::Bdf) get_bdf_state(out);
}

void CpuBackend::set_integrator_state(const double* in) {
  if (integrator_ == Integrator::Dopri5) set_dopri5_state(in);
  if (integrator_ == Integrator::Bdf) set_bdf_state(in);
}

void CpuBackend::restart_integrator(int i) {
  const std::size_t k = static_cast<std::size_t>(i);
  accepted_[k] = rejected_[k] = 0;
  min_step_[k] = max_step_[k] = 0.0;
  if (integrator_ == Integrator::Dopri5) restart_dopri5(i);
  if (integrator_ == Integrator::Bdf) restart_bdf(i);
}

void CpuBackend::read_status(std::int8_t* status, double* status_time, std::int8_t* reason) const {
  std::copy(status_.begin(), status_.end(), status);
  if (reason) std::copy(reason_.begin(), reason_.end(), reason);
  for (int i = 0; i < n_instances_; ++i) status_time[i] = static_cast<double>(status_step_[i]) * dt_;
}

int CpuBackend::n_joint_coordinates() const {
  const Model& m0 = models_->front();
  return m0.robot ? m0.n_joints() : 0;
}

void CpuBackend::read_joint_state(double* q, double* qd, double* tau) const {
  const int n = n_joint_coordinates();
  if (n == 0) return;
  for (int i = 0; i < n_instances_; ++i) {
    const std::size_t o = static_cast<std::size_t>(i) * n;
    dae_joint_coordinates(model_of(i), Y_.data() + static_cast<std::size_t>(i) * ny_, q + o, qd + o);
    // Robot models carry one actuator per joint (scene/robot_compile.cpp): its force after
    // the servo law, effort clamp and velocity cut.
    dae_joint_actuator_forces(model_of(i), Y_.data() + static_cast<std::size_t>(i) * ny_,
                              n_inputs_ > 0 ? inputs_.data() + static_cast<std::size_t>(i) * n_inputs_ : nullptr, tau + o);
  }
}

void CpuBackend::get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                           std::int64_t* status_steps, std::int8_t* reasons) const {
  ids_.check("get_state", ids, count);
  for (int k = 0; k < count; ++k) {
    const int i = InstanceIds::at(ids, k);
    if (y) std::copy_n(Y_.data() + static_cast<size_t>(i) * ny_, ny_, y + static_cast<size_t>(k) * ny_);
    if (steps) steps[k] = steps_ - offset_[i];
    if (status) status[k] = status_[i];
    if (status_steps) status_steps[k] = status_step_[i];
    if (reasons) reasons[k] = reason_[i];
  }
}

void CpuBackend::set_state(const int* ids, int count, const double* y, const std::int64_t* steps,
                           const std::int8_t* status, const std::int64_t* status_steps, const std::int8_t* reasons) {
  ids_.check("set_state", ids, count);
  check_status_reasons("set_state", count, status, reasons);
  for (int k = 0; k < count; ++k) {
    const int i = InstanceIds::at(ids, k);
    if (y) std::copy_n(y + static_cast<size_t>(k) * ny_, ny_, Y_.data() + static_cast<size_t>(i) * ny_);
    if (steps) offset_[i] = steps_ - steps[k];
    if (status) status_[i] = status[k];
    if (status_steps) status_step_[i] = status_steps[k];
    if (status) reason_[i] = reason_after_set(status_[i], reason_[i], reasons != nullptr, reasons ? reasons[k] : kReasonNone);
    if (y || steps) restart_integrator(i);
  }
}

void CpuBackend::reset(const int* ids, int count) {
  ids_.check("reset", ids, count);
  for (int k = 0; k < count; ++k) {
    const int i = InstanceIds::at(ids, k);
    std::copy_n(Y0_.data() + static_cast<size_t>(i) * ny_, ny_, Y_.data() + static_cast<size_t>(i) * ny_);
    offset_[i] = steps_;
    status_[i] = static_cast<std::int8_t>(assembly_[i].ok ? InstanceStatus::Ok : InstanceStatus::AssemblyFailed);
    reason_[i] = reason0_[i];
    status_step_[i] = 0;
    restart_integrator(i);
    if (red_layout_.any()) reduction_clear(red_layout_, {red_acc_.data() + static_cast<size_t>(i) * red_layout_.size(), 1});
  }
}

void CpuBackend::set_models(const int* ids, int count, const Model* models) {
  ids_.check("set_models", ids, count);
  check_models_join(models_->front(), models, count, [ids](int k) { return InstanceIds::at(ids, k); });
  if (count == 0) return;
  std::vector<Model> fresh(models, models + count);
  const AssembledBatch assembled = assemble_batch(fresh, count, threads_);
  if (!owned_models_) {  // copy on write: from here on one model per instance
    auto own = std::make_shared<std::vector<Model>>();
    own->reserve(static_cast<size_t>(n_instances_));
    for (int i = 0; i < n_instances_; ++i) own->push_back(model_of(i));
    owned_models_ = own.get();
    models_ = std::move(own);
  }
  for (int k = 0; k < count; ++k) {
    const int i = InstanceIds::at(ids, k);
    (*owned_models_)[static_cast<size_t>(i)] = std::move(fresh[static_cast<size_t>(k)]);
    std::copy_n(assembled.Y.data() + static_cast<size_t>(k) * ny_, ny_, Y0_.data() + static_cast<size_t>(i) * ny_);
    assembly_[i] = assembled.results[static_cast<size_t>(k)];
    reason0_[i] = assembled.reason[static_cast<size_t>(k)];
    runaway_[2 * static_cast<size_t>(i)] = assembled.runaway[2 * static_cast<size_t>(k)];
    runaway_[2 * static_cast<size_t>(i) + 1] = assembled.runaway[2 * static_cast<size_t>(k) + 1];
    default_inputs(model_of(i), inputs_.data() + static_cast<size_t>(i) * n_inputs_);
  }
  if (engine_) engine_->set_models(ids, count, *models_);
  reset(ids, count);
}

void CpuBackend::set_inputs(const int* ids, int count, const double* u) {
  ids_.check("set_inputs", ids, count);
  for (int k = 0; k < count; ++k)
    std::copy_n(u + static_cast<size_t>(k) * n_inputs_, n_inputs_,
                inputs_.data() + static_cast<size_t>(InstanceIds::at(ids, k)) * n_inputs_);
}

void CpuBackend::set_reductions(const std::vector<ReductionQuantity>& quantities) {
  red_layout_ = reduction_layout_of(quantities, models_->front());
  const std::size_t w = static_cast<std::size_t>(red_layout_.size());
  red_acc_.assign(red_layout_.any() ? static_cast<std::size_t>(n_instances_) * w : 0, 0.0);
  if (engine_) engine_->set_reductions(red_layout_);
  if (red_layout_.any())
    for (int i = 0; i < n_instances_; ++i) reduction_clear(red_layout_, {red_acc_.data() + i * w, 1});
}

void CpuBackend::read_reductions(double* out) const {
  if (!red_layout_.any()) return;
  const int w = red_layout_.size(), C = red_layout_.channels;
  for_each_instance([&](int i, int worker) {
    // The current state's sample is added to a copy: the stored accumulator stays the
    // step loop's.
    std::vector<double> row(red_acc_.begin() + static_cast<std::ptrdiff_t>(i) * w,
                            red_acc_.begin() + static_cast<std::ptrdiff_t>(i + 1) * w);
    if (status_[i] == static_cast<std::int8_t>(InstanceStatus::Ok)) {
      Data& d = *workers_[static_cast<std::size_t>(worker)];
      const Model& model = model_of(i);
      const double* u = n_inputs_ ? inputs_.data() + static_cast<size_t>(i) * n_inputs_ : nullptr;
      const double t = instance_time(i, steps_);
      if (evaluate(model, d, t, Y_.data() + static_cast<size_t>(i) * ny_, u, d.k1.data()))
        sample_reductions(model, d, t, u, red_layout_, row.data(), static_cast<double>(steps_ - offset_[i]));
    }
    const ReductionAcc acc{row.data(), 1};
    for (int c = 0; c < C; ++c) reduction_stats(red_layout_, acc, c, dt_, out + (static_cast<size_t>(i) * C + c) * kReductionStats);
  });
}

void CpuBackend::get_reduction_state(double* acc) const { std::copy(red_acc_.begin(), red_acc_.end(), acc); }

void CpuBackend::set_reduction_state(const double* acc) { std::copy_n(acc, red_acc_.size(), red_acc_.begin()); }

ArrayView CpuBackend::state_view() { return matrix_view(Y_.data(), n_instances_, ny_, false, false); }

ArrayView CpuBackend::inputs_view() { return matrix_view(inputs_.data(), n_instances_, n_inputs_, false, false); }

}  // namespace simphant
