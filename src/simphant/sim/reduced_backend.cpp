#include "simphant/sim/reduced_backend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

#include "reduced_step.hpp"
#include "simphant/batch/robot_pack.hpp"
#include "simphant/core/thread_pool.hpp"
#include "simphant/simd/simd_step.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/model/topology.hpp"
#include "simphant/simd/reduced_lanes.hpp"
#include "simphant/simd/dispatch.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "simphant/sim/step_statistics.hpp"

namespace simphant {

bool ReducedBackend::lanes_for(const std::string& backend, long long auto_instances) {
  return backend == "cpu-simd" || (backend == "auto" && auto_instances >= simd::kLaneWidth);
}

/// Per-thread scratch of the per-thread functions, fixed size (kMaxRobotJoints links).
struct ReducedBackend::Worker {
  batch::ReducedStepWorkspace<double, kMaxRobotJoints> ws;
  simd::ReducedLanesScratchPtr lanes;  ///< the lane path's scratch (lanes mode only)
};

double ReducedBackend::worker_bytes() {
  return sizeof(Worker) + simd::reduced_lanes_scratch_bytes(kMaxRobotJoints);  // the largest lane scratch
}

double ReducedBackend::model_row_bytes(const Model& model) {
  const double n = model.robot ? model.robot->n() : 0;
  const double floating = model.robot && model.robot->model.floating ? 1 : 0;
  return n * (sizeof(ReducedLinkParams<double>) + sizeof(cga::CgaLink<double>) + sizeof(RobotJointParams<double>)) +
         sizeof(RobotBaseParams<double>) + sizeof(Vec3d) + sizeof(double) +
         static_cast<double>(model.contact_pair_count()) * sizeof(RobotContactPair<double>) +
         8.0 * robot_state_size(static_cast<int>(n), static_cast<int>(floating));
}

double ReducedBackend::instance_bytes(const Model& model) {
  const int n = model.robot ? model.robot->n() : 0;
  const int floating = model.robot && model.robot->model.floating ? 1 : 0;
  // the state, the inputs (the status and its bookkeeping: host_memory.cpp's
  // kInstanceBookkeeping), the reductions' accumulator and the copy a read samples into
  const ReductionLayout red = estimated_reduction_layout(model);
  return 8.0 * (robot_state_size(n, floating) + n + (red.any() ? 2 * red.size() : 0));
}

ReducedBackend::ReducedBackend(std::shared_ptr<const std::vector<Model>> models, int n_instances, int threads,
                               bool lanes)
    : models_(std::move(models)), lanes_(lanes), n_instances_(n_instances), ids_(n_instances) {
  if (!models_ || models_->empty()) throw std::invalid_argument("ReducedBackend: no model");
  if (models_->size() != 1 && static_cast<int>(models_->size()) != n_instances_)
    throw std::invalid_argument("ReducedBackend: models must be 1 or one per instance");
  const Model& m0 = models_->front();
  if (!m0.robot || m0.robot->solver == RobotSolver::Dae)
    throw std::invalid_argument("ReducedBackend: the model has no robot with solver aba or cga");
  solver_ = m0.robot->solver;
  integrator_ = m0.solver.integrator;
  n_ = m0.robot->n();
  floating_ = m0.robot->model.floating ? 1 : 0;
  state_size_ = robot_state_size(n_, floating_);
  dt_ = m0.solver.dt;
  n_contacts_ = m0.contact_pair_count();
  threads_ = resolve_thread_count(threads);
  // no more workers than work items (groups of 8 in lanes mode)
  threads_ = std::min(threads_, std::max(1, lanes_ ? simd::reduced_group_count(n_instances_) : n_instances_));
  for (const Model& m : *models_) check_model(m, "ReducedBackend");
  const std::size_t slots = models_->size(), n = static_cast<std::size_t>(n_);
  links_.resize(slots * n);
  cga_links_.resize(slots * n);
  joints_.resize(slots * n);
  base_.resize(slots);
  gravity_.resize(slots);
  runaway_.resize(slots);
  y_init_.resize(slots * static_cast<std::size_t>(state_size_));
  contacts_.resize(slots * static_cast<std::size_t>(n_contacts_));
  for (std::size_t s = 0; s < slots; ++s) write_model_rows(s, (*models_)[s]);
  Y_.resize(static_cast<std::size_t>(n_instances_) * static_cast<std::size_t>(state_size_));
  inputs_.resize(static_cast<std::size_t>(n_instances_) * n);
  status_.resize(static_cast<std::size_t>(n_instances_));
  status_step_.resize(static_cast<std::size_t>(n_instances_));
  reason_.resize(static_cast<std::size_t>(n_instances_));
  offset_.resize(static_cast<std::size_t>(n_instances_));
  for (int i = 0; i < n_instances_; ++i) {
    const RobotJointSpace& r = *(*models_)[static_cast<std::size_t>(model_of(i))].robot;
    std::copy(r.tau.begin(), r.tau.end(), inputs_.data() + static_cast<std::size_t>(i) * n);
  }
  reset(nullptr, n_instances_);
  AssemblyResult ok;
  ok.ok = true;
  assembly_.assign(static_cast<std::size_t>(n_instances_), ok);
  for (int t = 0; t < threads_; ++t) {
    workers_.push_back(std::make_unique<Worker>());
    if (lanes_) workers_.back()->lanes = simd::make_reduced_lanes_scratch(n_);
  }
  pool_ = std::make_unique<ThreadPool>(threads_);
}

ReducedBackend::~ReducedBackend() = default;

batch::ReducedBatchView<double> ReducedBackend::view() const {
  batch::ReducedBatchView<double> b;
  b.n_instances = n_instances_;
  b.n = n_;
  b.floating = floating_;
  b.use_cga = solver_ == RobotSolver::Cga ? 1 : 0;
  b.integrator = static_cast<int>(integrator_);
  b.dt = dt_;
  b.n_slots = static_cast<int>(models_->size());
  b.links = links_.data();
  b.cga_links = cga_links_.data();
  b.joints = joints_.data();
  b.base = base_.data();
  b.gravity = gravity_.data();
  b.runaway_kinetic_energy = runaway_.data();
  b.y_init = y_init_.data();
  b.n_contacts = n_contacts_;
  b.contacts = contacts_.data();
  // The per-thread functions write through these; const reads never reach a writing function.
  auto* self = const_cast<ReducedBackend*>(this);
  b.Y = batch::row_major(self->Y_.data(), state_size_);
  b.U = batch::row_major(static_cast<const double*>(inputs_.data()), n_);
  b.status = self->status_.data();
  b.status_step = self->status_step_.data();
  b.reason = self->reason_.data();
  b.offset = self->offset_.data();
  if (red_layout_.any()) {
    b.red = red_layout_;
    b.red_acc = self->red_acc_.data();
    b.red_stride_i = red_layout_.size();
    b.red_stride_e = 1;
  }
  return b;
}

void ReducedBackend::read_step_statistics(std::int64_t* accepted, std::int64_t* rejected, double* min_step,
                                          double* max_step) const {
  std::vector<std::int64_t> steps(static_cast<std::size_t>(n_instances_));
  for (int i = 0; i < n_instances_; ++i) steps[static_cast<std::size_t>(i)] = steps_ - offset_[static_cast<std::size_t>(i)];
  fixed_step_statistics(n_instances_, steps.data(), status_.data(), status_step_.data(), dt_, accepted, rejected,
                        min_step, max_step);
}

void ReducedBackend::check_model(const Model& m, const std::string& who) const {
  if (!m.robot || m.robot->n() != n_ || m.robot->solver != solver_ || (m.robot->model.floating ? 1 : 0) != floating_)
    throw std::invalid_argument(who + ": every instance needs the same robot, base and solver");
  if (m.solver.integrator != integrator_)
    throw std::invalid_argument(who + ": every instance needs the same integrator");
  if (m.solver.integrator != Integrator::Rk4 && m.solver.integrator != Integrator::Euler &&
      m.solver.integrator != Integrator::SymplecticEuler)
    throw std::invalid_argument(who + ": the joint-space solvers run the fixed-step integrators rk4, euler and "
                                      "symplectic_euler (integrator '" + integrator_name(m.solver.integrator) + "')");
  if (n_ < 0 || n_ > kMaxRobotJoints)
    throw std::invalid_argument(who + ": the robot has " + std::to_string(n_) + " joints (0 .. " +
                                std::to_string(kMaxRobotJoints) + ")");
  const RobotJointSpace& r = *m.robot;
  const std::size_t sz = static_cast<std::size_t>(n_);
  if (r.q0.size() != sz || r.qd0.size() != sz || r.tau.size() != sz || r.joints.size() != sz ||
      static_cast<int>(r.model.links.size()) != n_)
    throw std::invalid_argument(who + ": q0, qd0, tau, joints and the links need one entry per joint");
  if (floating_ && (r.base_q0.size() != 7 || r.base_v0.size() != 6))
    throw std::invalid_argument(who + ": a floating base needs base_q0 (7) and base_v0 (6)");
  int followers = 0;
  for (int k = 0; k < n_; ++k) {
    const int l = r.joints[static_cast<std::size_t>(k)].mimic;
    if (l < 0) continue;
    ++followers;
    if (l >= n_ || l == k || r.joints[static_cast<std::size_t>(l)].mimic >= 0)
      throw std::invalid_argument(who + ": joint " + std::to_string(k) + " mimics joint " + std::to_string(l) +
                                  ", which must be another joint that follows none");
  }
  if (m.contact_pair_count() != n_contacts_)
    throw std::invalid_argument(who + ": every instance needs the same contact pairs (" +
                                std::to_string(m.contact_pair_count()) + " against " + std::to_string(n_contacts_) + ")");
  if (followers > kMaxRobotMimic)
    throw std::invalid_argument(who + ": " + std::to_string(followers) + " mimic joints (at most " +
                                std::to_string(kMaxRobotMimic) + ")");
}

void ReducedBackend::write_model_rows(std::size_t slot, const Model& m) {
  const RobotJointSpace& r = *m.robot;
  gravity_[slot] = r.model.gravity;
  runaway_[slot] = m.solver.runaway_kinetic_energy;
  const ReducedBase& b = r.model.base;
  base_[slot] = {b.mass, b.com, b.inertia_com};
  for (int k = 0; k < n_; ++k) {
    const std::size_t row = slot * static_cast<std::size_t>(n_) + static_cast<std::size_t>(k);
    links_[row] = reduced_link_params<double>(r.model, k);
    cga_links_[row] = cga::cga_link(links_[row]);
    joints_[row] = r.joints[static_cast<std::size_t>(k)];
  }
  double* y = y_init_.data() + slot * static_cast<std::size_t>(state_size_);
  if (floating_) {
    y = std::copy(r.base_q0.begin(), r.base_q0.end(), y);
    y = std::copy(r.q0.begin(), r.q0.end(), y);
    y = std::copy(r.base_v0.begin(), r.base_v0.end(), y);
  } else {
    y = std::copy(r.q0.begin(), r.q0.end(), y);
  }
  std::copy(r.qd0.begin(), r.qd0.end(), y);
  const std::vector<RobotContactPair<double>> pairs = batch::robot_contact_pairs<double>(m);
  std::copy(pairs.begin(), pairs.end(), contacts_.begin() + static_cast<std::ptrdiff_t>(slot) * n_contacts_);
}

std::string ReducedBackend::details() const {
  return std::string(name()) + " (" + robot_solver_name(solver_) + ", joint coordinates, " + std::to_string(n_) +
         (n_ == 1 ? " joint" : " joints") + (floating_ ? ", floating base, " : ", ") + integrator_name(integrator_) +
         ", " + std::to_string(threads_) + (threads_ == 1 ? " CPU thread, " : " CPU threads, ") +
         (lanes_ ? std::string("SIMD lanes of 8 (") + simd::simd_target() + ")" : std::string("scalar")) +
         ")";
}

void ReducedBackend::set_inputs(const double* u) { std::copy(u, u + inputs_.size(), inputs_.begin()); }

namespace {
/// Chunk of a parallel_for over `items` on `threads` workers: about four chunks per
/// worker, so a worker slowed by another process takes fewer (results do not depend on it).
int chunk_of(int items, int threads) { return std::max(1, items / (4 * threads)); }
}  // namespace

void ReducedBackend::advance(int n_steps) {
  // The regions' bodies capture two pointers (this and the call's arguments), which
  // std::function holds without allocating: the step loop allocates nothing.
  struct Call {
    batch::ReducedBatchView<double> b;
    std::int64_t step0;
    int n_steps;
  } const call{view(), steps_, n_steps};
  if (lanes_) {
    const int groups = simd::reduced_group_count(n_instances_);
    pool_->parallel_for(groups, chunk_of(groups, threads_), [this, &call](int g0, int g1, int worker) {
      simd::reduced_advance_groups(call.b, g0, g1, call.step0, call.n_steps, true, *workers_[worker]->lanes);
    });
  } else {
    pool_->parallel_for(n_instances_, chunk_of(n_instances_, threads_), [this, &call](int i0, int i1, int worker) {
      for (int i = i0; i < i1; ++i)
        batch::reduced_advance_thread(i, call.b, call.step0, call.n_steps, workers_[worker]->ws);
    });
  }
  steps_ += n_steps;
}

void ReducedBackend::read_states(double* out) const {
  const batch::ReducedBatchView<double> b = view();
  const batch::Strided<double> o = batch::row_major(out, 13 * robot_n_bodies(n_, floating_));
  pool_->parallel_for(n_instances_, chunk_of(n_instances_, threads_), [&](int i0, int i1, int worker) {
    for (int i = i0; i < i1; ++i) batch::reduced_body_states_thread(i, b, o, workers_[worker]->ws);
  });
}

void ReducedBackend::read_reactions(double* out) const {
  const std::size_t count = static_cast<std::size_t>(n_instances_) * models_->front().n_joints() * 6;
  std::fill(out, out + count, std::numeric_limits<double>::quiet_NaN());
}

void ReducedBackend::read_constraint_violation(double* out) const { std::fill(out, out + n_instances_, 0.0); }

void ReducedBackend::read_energy(double* total, double* kinetic) const {
  const batch::ReducedBatchView<double> b = view();
  pool_->parallel_for(n_instances_, chunk_of(n_instances_, threads_), [&](int i0, int i1, int worker) {
    for (int i = i0; i < i1; ++i) batch::reduced_energy_thread(i, b, total, kinetic, workers_[worker]->ws);
  });
}

void ReducedBackend::set_reductions(const std::vector<ReductionQuantity>& quantities) {
  check_joint_space_reductions(name(), quantities);
  red_layout_ = reduction_layout_of(quantities, models_->front());
  red_acc_.assign(red_layout_.any() ? static_cast<std::size_t>(n_instances_) * red_layout_.size() : 0, 0.0);
  const batch::ReducedBatchView<double> b = view();
  for (int i = 0; i < n_instances_ && red_layout_.any(); ++i) reduction_clear(red_layout_, batch::reduced_reduction_acc(b, i));
}

void ReducedBackend::read_reductions(double* out) const {
  if (!red_layout_.any()) return;
  const batch::ReducedBatchView<double> b = view();
  const int w = red_layout_.size(), C = red_layout_.channels;
  std::vector<double> copy(red_acc_.size());
  pool_->parallel_for(n_instances_, chunk_of(n_instances_, threads_), [&](int i0, int i1, int worker) {
    for (int i = i0; i < i1; ++i) {
      batch::reduced_reduce_read_thread(i, b, steps_, copy.data(), workers_[worker]->ws);
      for (int c = 0; c < C; ++c)
        reduction_stats(red_layout_, {copy.data() + static_cast<std::size_t>(i) * w, 1}, c, dt_,
                        out + (static_cast<std::size_t>(i) * C + c) * kReductionStats);
    }
  });
}

void ReducedBackend::get_reduction_state(double* acc) const { std::copy(red_acc_.begin(), red_acc_.end(), acc); }

void ReducedBackend::set_reduction_state(const double* acc) { std::copy_n(acc, red_acc_.size(), red_acc_.begin()); }

void ReducedBackend::read_status(std::int8_t* status, double* status_time, std::int8_t* reason) const {
  std::copy(status_.begin(), status_.end(), status);
  if (reason) std::copy(reason_.begin(), reason_.end(), reason);
  for (int i = 0; i < n_instances_; ++i) status_time[i] = static_cast<double>(status_step_[i]) * dt_;
}

void ReducedBackend::read_joint_state(double* q, double* qd, double* tau) const {
  const batch::ReducedBatchView<double> b = view();
  const batch::Strided<double> Q = batch::row_major(q, n_), QD = batch::row_major(qd, n_),
                               TAU = batch::row_major(tau, n_);
  pool_->parallel_for(n_instances_, chunk_of(n_instances_, threads_), [&](int i0, int i1, int worker) {
    for (int i = i0; i < i1; ++i) batch::reduced_joint_state_thread(i, b, Q, QD, TAU, workers_[worker]->ws);
  });
}

void ReducedBackend::get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                               std::int64_t* status_steps, std::int8_t* reasons) const {
  ids_.check("get_state", ids, count);
  const std::size_t N = static_cast<std::size_t>(state_size_);
  for (int k = 0; k < count; ++k) {
    const int i = InstanceIds::at(ids, k);
    if (y) std::copy_n(Y_.data() + i * N, N, y + k * N);
    if (steps) steps[k] = steps_ - offset_[i];
    if (status) status[k] = status_[i];
    if (status_steps) status_steps[k] = status_step_[i];
    if (reasons) reasons[k] = reason_[i];
  }
}

void ReducedBackend::set_state(const int* ids, int count, const double* y, const std::int64_t* steps,
                               const std::int8_t* status, const std::int64_t* status_steps,
                               const std::int8_t* reasons) {
  ids_.check("set_state", ids, count);
  check_status_reasons("set_state", count, status, reasons);
  const std::size_t N = static_cast<std::size_t>(state_size_);
  for (int k = 0; k < count; ++k) {
    const int i = InstanceIds::at(ids, k);
    if (y) std::copy_n(y + k * N, N, Y_.data() + i * N);
    if (steps) offset_[i] = steps_ - steps[k];
    if (status) status_[i] = status[k];
    if (status_steps) status_step_[i] = status_steps[k];
    if (status) reason_[i] = reason_after_set(status_[i], reason_[i], reasons != nullptr, reasons ? reasons[k] : kReasonNone);
  }
}

void ReducedBackend::reset(const int* ids, int count) {
  ids_.check("reset", ids, count);
  const batch::ReducedBatchView<double> b = view();
  for (int k = 0; k < count; ++k) batch::reduced_reset_thread(k, b, ids, count, steps_);
}

void ReducedBackend::set_models(const int* ids, int count, const Model* models) {
  ids_.check("set_models", ids, count);
  check_models_join(models_->front(), models, count, [ids](int k) { return InstanceIds::at(ids, k); });
  for (int k = 0; k < count; ++k)
    check_model(models[k], "set_models: models[" + std::to_string(k) + "] (instance " +
                               std::to_string(InstanceIds::at(ids, k)) + ")");
  if (count == 0) return;
  if (!owned_models_) {  // copy on write: from here on one model (and one slot) per instance
    auto own = std::make_shared<std::vector<Model>>();
    own->reserve(static_cast<std::size_t>(n_instances_));
    for (int i = 0; i < n_instances_; ++i) own->push_back((*models_)[static_cast<std::size_t>(model_of(i))]);
    if (models_->size() == 1 && n_instances_ > 1) {
      const auto repeat = [this](auto& rows) {
        const auto one = rows;
        rows.clear();
        for (int i = 0; i < n_instances_; ++i) rows.insert(rows.end(), one.begin(), one.end());
      };
      repeat(links_);
      repeat(cga_links_);
      repeat(joints_);
      repeat(base_);
      repeat(gravity_);
      repeat(runaway_);
      repeat(y_init_);
      repeat(contacts_);
    }
    owned_models_ = own.get();
    models_ = std::move(own);
  }
  const std::size_t n = static_cast<std::size_t>(n_);
  for (int k = 0; k < count; ++k) {
    const int i = InstanceIds::at(ids, k);
    Model& m = (*owned_models_)[static_cast<std::size_t>(i)];
    m = models[k];
    write_model_rows(static_cast<std::size_t>(i), m);
    std::copy(m.robot->tau.begin(), m.robot->tau.end(), inputs_.data() + static_cast<std::size_t>(i) * n);
  }
  reset(ids, count);
}

void ReducedBackend::set_inputs(const int* ids, int count, const double* u) {
  ids_.check("set_inputs", ids, count);
  const std::size_t n = static_cast<std::size_t>(n_);
  for (int k = 0; k < count; ++k) std::copy_n(u + k * n, n, inputs_.data() + InstanceIds::at(ids, k) * n);
}

ArrayView ReducedBackend::state_view() { return matrix_view(Y_.data(), n_instances_, state_size_, false, false); }

ArrayView ReducedBackend::inputs_view() { return matrix_view(inputs_.data(), n_instances_, n_, false, false); }

}  // namespace simphant
