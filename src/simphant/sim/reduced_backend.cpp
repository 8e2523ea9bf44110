#include "simphant/sim/reduced_backend.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "simphant/dynamics/runaway.hpp"
#include "simphant/model/topology.hpp"
#include "simphant/reduced/forward_kinematics.hpp"
#include "simphant/sim/step_statistics.hpp"

namespace simphant {

/// Per-thread scratch, fixed size (kMaxRobotJoints links).
struct ReducedBackend::Worker {
  AbaWorkspace<double> aba;
  cga::CgaWorkspace<double> cga;
  double k[4][2 * kMaxRobotJoints];  ///< RK4 stages dy/dt
  double y[2 * kMaxRobotJoints];     ///< stage state
  Mat3d R[kMaxRobotJoints];
  Vec3d o[kMaxRobotJoints], c[kMaxRobotJoints], vc[kMaxRobotJoints], w[kMaxRobotJoints], vo[kMaxRobotJoints];
};

double ReducedBackend::worker_bytes() { return sizeof(Worker); }

double ReducedBackend::model_row_bytes(const Model& model) {
  const double n = model.robot ? model.robot->n() : 0;
  return n * (sizeof(ReducedLinkParams<double>) + sizeof(cga::CgaLink<double>)) + sizeof(Vec3d);
}

ReducedBackend::ReducedBackend(std::shared_ptr<const std::vector<Model>> models, int n_instances, int threads)
    : models_(std::move(models)), n_instances_(n_instances), ids_(n_instances) {
  if (!models_ || models_->empty()) throw std::invalid_argument("ReducedBackend: no model");
  if (models_->size() != 1 && static_cast<int>(models_->size()) != n_instances_)
    throw std::invalid_argument("ReducedBackend: models must be 1 or one per instance");
  const Model& m0 = models_->front();
  if (!m0.robot || m0.robot->solver == RobotSolver::Dae)
    throw std::invalid_argument("ReducedBackend: the model has no robot with solver aba or cga");
  solver_ = m0.robot->solver;
  n_ = m0.robot->n();
  dt_ = m0.solver.dt;
  threads_ = threads > 0 ? threads : std::max(1, omp_get_num_procs());
  threads_ = std::min(threads_, std::max(1, n_instances_));
  const std::size_t n = static_cast<std::size_t>(n_);
  for (const Model& m : *models_) check_model(m, "ReducedBackend");
  links_.resize(models_->size() * n);
  cga_links_.resize(models_->size() * n);
  gravity_.resize(models_->size());
  for (std::size_t s = 0; s < models_->size(); ++s) write_model_rows(s, (*models_)[s]);
  Y_.resize(static_cast<std::size_t>(n_instances_) * 2 * n);
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
  for (int t = 0; t < threads_; ++t) workers_.push_back(std::make_unique<Worker>());
}

void ReducedBackend::read_step_statistics(std::int64_t* accepted, std::int64_t* rejected, double* min_step,
                                          double* max_step) const {
  std::vector<std::int64_t> steps(static_cast<std::size_t>(n_instances_));
  for (int i = 0; i < n_instances_; ++i) steps[static_cast<std::size_t>(i)] = steps_ - offset_[static_cast<std::size_t>(i)];
  fixed_step_statistics(n_instances_, steps.data(), status_.data(), status_step_.data(), dt_, accepted, rejected,
                        min_step, max_step);
}

void ReducedBackend::check_model(const Model& m, const std::string& who) const {
  if (!m.robot || m.robot->n() != n_ || m.robot->solver != solver_)
    throw std::invalid_argument(who + ": every instance needs the same robot and solver");
  if (m.solver.integrator != Integrator::Rk4)
    throw std::invalid_argument(who + ": the joint-space solvers run rk4 only (integrator '" +
                                integrator_name(m.solver.integrator) + "')");
  if (n_ < 1 || n_ > kMaxRobotJoints)
    throw std::invalid_argument(who + ": the robot has " + std::to_string(n_) + " joints (1 .. " +
                                std::to_string(kMaxRobotJoints) + ")");
  const std::size_t sz = static_cast<std::size_t>(n_);
  if (m.robot->q0.size() != sz || m.robot->qd0.size() != sz || m.robot->tau.size() != sz ||
      static_cast<int>(m.robot->model.links.size()) != n_)
    throw std::invalid_argument(who + ": q0, qd0, tau and the links need one entry per joint");
}

void ReducedBackend::write_model_rows(std::size_t slot, const Model& m) {
  gravity_[slot] = m.robot->model.gravity;
  for (int k = 0; k < n_; ++k) {
    const std::size_t r = slot * static_cast<std::size_t>(n_) + static_cast<std::size_t>(k);
    links_[r] = reduced_link_params<double>(m.robot->model, k);
    cga_links_[r] = cga::cga_link(links_[r]);
  }
}

ReducedBackend::~ReducedBackend() = default;

std::string ReducedBackend::details() const {
  return std::string(name()) + " (" + robot_solver_name(solver_) + ", joint coordinates, " + std::to_string(n_) +
         (n_ == 1 ? " joint" : " joints") + ", RK4, " + std::to_string(threads_) + " CPU threads)";
}

void ReducedBackend::set_inputs(const double* u) { std::copy(u, u + inputs_.size(), inputs_.begin()); }

void ReducedBackend::joint_accelerations(int i, const double* q, const double* qd, double* qdd, Worker& w) const {
  const std::size_t m = static_cast<std::size_t>(model_of(i));
  const double* tau = inputs_.data() + static_cast<std::size_t>(i) * n_;
  if (solver_ == RobotSolver::Cga)
    cga::cga_aba(n_, cga_links_.data() + m * n_, gravity_[m], q, qd, tau, qdd, w.cga);
  else
    aba(n_, links_.data() + m * n_, gravity_[m], q, qd, tau, qdd, w.aba);
}

void ReducedBackend::advance(int n_steps) {
  const std::int64_t step0 = steps_;
  const int n = n_, N = 2 * n_;
  const double h = dt_;
#pragma omp parallel for schedule(static) num_threads(threads_)
  for (int i = 0; i < n_instances_; ++i) {
    if (status_[i] != static_cast<std::int8_t>(InstanceStatus::Ok)) continue;
    Worker& w = *workers_[omp_get_thread_num()];
    double* Y = Y_.data() + static_cast<std::size_t>(i) * N;
    for (int s = 0; s < n_steps; ++s) {
      // Stage derivatives: k = [qd, qdd(q, qd)] at Y, Y + h/2 k1, Y + h/2 k2, Y + h k3.
      const double c[4] = {0.0, 0.5 * h, 0.5 * h, h};
      for (int st = 0; st < 4; ++st) {
        const double* y = Y;
        if (st > 0) {
          for (int j = 0; j < N; ++j) w.y[j] = Y[j] + c[st] * w.k[st - 1][j];
          y = w.y;
        }
        std::copy(y + n, y + N, w.k[st]);
        joint_accelerations(i, y, y + n, w.k[st] + n, w);
      }
      bool finite = true;
      for (int j = 0; j < N; ++j) {
        const double next = Y[j] + (h / 6.0) * (w.k[0][j] + 2.0 * w.k[1][j] + 2.0 * w.k[2][j] + w.k[3][j]);
        finite = finite && std::isfinite(next);
        w.y[j] = next;
      }
      // A given runaway bound (solver.runaway_kinetic_energy) is tested on the kinetic
      // energy of the new state; robots carry actuators, so none is derived here
      // (docs/solver.md, "Runaway bound").
      const double K_max = (*models_)[static_cast<std::size_t>(model_of(i))].solver.runaway_kinetic_energy;
      const bool runaway = finite && K_max > 0 && kinetic_energy(i, w.y, w) > K_max;
      if (!finite || runaway) {  // freeze at the last good state
        status_[i] = static_cast<std::int8_t>(InstanceStatus::Diverged);
        status_step_[i] = step0 + s - offset_[i];
        reason_[i] = runaway ? kReasonRunaway : kReasonNonFinite;
        break;
      }
      std::copy(w.y, w.y + N, Y);
    }
  }
  steps_ += n_steps;
}

void ReducedBackend::read_states(double* out) const {
  const int n = n_;
#pragma omp parallel for schedule(static) num_threads(threads_)
  for (int i = 0; i < n_instances_; ++i) {
    Worker& w = *workers_[omp_get_thread_num()];
    const double* Y = Y_.data() + static_cast<std::size_t>(i) * 2 * n;
    forward_kinematics_velocity(n, links_.data() + static_cast<std::size_t>(model_of(i)) * n, Y, Y + n, w.R, w.o, w.c,
                                w.vc, w.w, w.vo);
    double* o = out + static_cast<std::size_t>(i) * 13 * n;
    for (int k = 0; k < n; ++k, o += 13) {
      const Quatd p = quat_from_rotation(w.R[k]);
      const double rec[13] = {w.c[k].x, w.c[k].y, w.c[k].z, p.w, p.x, p.y, p.z, w.vc[k].x, w.vc[k].y, w.vc[k].z,
                              w.w[k].x, w.w[k].y, w.w[k].z};
      std::copy(rec, rec + 13, o);
    }
  }
}

void ReducedBackend::read_reactions(double* out) const {
  const std::size_t count = static_cast<std::size_t>(n_instances_) * models_->front().n_joints() * 6;
  std::fill(out, out + count, std::numeric_limits<double>::quiet_NaN());
}

void ReducedBackend::read_constraint_violation(double* out) const { std::fill(out, out + n_instances_, 0.0); }

double ReducedBackend::kinetic_energy(int i, const double* Y, Worker& w) const {
  const int n = n_;
  const ReducedLinkParams<double>* L = links_.data() + static_cast<std::size_t>(model_of(i)) * n;
  forward_kinematics_velocity(n, L, Y, Y + n, w.R, w.o, w.c, w.vc, w.w, w.vo);
  double T = 0;
  for (int k = 0; k < n; ++k)
    T += 0.5 * L[k].mass * dot(w.vc[k], w.vc[k]) + 0.5 * dot(w.w[k], mul(L[k].inertia_com, w.w[k]));
  return T;
}

void ReducedBackend::read_energy(double* total, double* kinetic) const {
  const int n = n_;
#pragma omp parallel for schedule(static) num_threads(threads_)
  for (int i = 0; i < n_instances_; ++i) {
    Worker& w = *workers_[omp_get_thread_num()];
    const std::size_t m = static_cast<std::size_t>(model_of(i));
    const ReducedLinkParams<double>* L = links_.data() + m * n;
    const double* Y = Y_.data() + static_cast<std::size_t>(i) * 2 * n;
    const double T = kinetic_energy(i, Y, w);  // leaves the kinematics in w
    double V = 0;
    for (int k = 0; k < n; ++k) V -= L[k].mass * dot(gravity_[m], w.c[k]);
    total[i] = T + V;
    if (kinetic) kinetic[i] = T;
  }
}

void ReducedBackend::read_status(std::int8_t* status, double* status_time, std::int8_t* reason) const {
  std::copy(status_.begin(), status_.end(), status);
  if (reason) std::copy(reason_.begin(), reason_.end(), reason);
  for (int i = 0; i < n_instances_; ++i) status_time[i] = static_cast<double>(status_step_[i]) * dt_;
}

void ReducedBackend::read_joint_state(double* q, double* qd, double* tau) const {
  const std::size_t n = static_cast<std::size_t>(n_);
  for (int i = 0; i < n_instances_; ++i) {
    const double* Y = Y_.data() + static_cast<std::size_t>(i) * 2 * n;
    std::copy(Y, Y + n, q + i * n);
    std::copy(Y + n, Y + 2 * n, qd + i * n);
    std::copy(inputs_.data() + i * n, inputs_.data() + (i + 1) * n, tau + i * n);
  }
}

void ReducedBackend::get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                               std::int64_t* status_steps, std::int8_t* reasons) const {
  ids_.check("get_state", ids, count);
  const std::size_t N = 2 * static_cast<std::size_t>(n_);
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
  const std::size_t N = 2 * static_cast<std::size_t>(n_);
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
  const std::size_t n = static_cast<std::size_t>(n_);
  for (int k = 0; k < count; ++k) {
    const int i = InstanceIds::at(ids, k);
    const RobotJointSpace& r = *(*models_)[static_cast<std::size_t>(model_of(i))].robot;
    double* y = Y_.data() + static_cast<std::size_t>(i) * 2 * n;
    std::copy(r.q0.begin(), r.q0.end(), y);
    std::copy(r.qd0.begin(), r.qd0.end(), y + n);
    offset_[i] = steps_;
    status_[i] = static_cast<std::int8_t>(InstanceStatus::Ok);
    reason_[i] = kReasonNone;
    status_step_[i] = 0;
  }
}

void ReducedBackend::set_models(const int* ids, int count, const Model* models) {
  ids_.check("set_models", ids, count);
  check_models_join(models_->front(), models, count, [ids](int k) { return InstanceIds::at(ids, k); });
  for (int k = 0; k < count; ++k)
    check_model(models[k], "set_models: models[" + std::to_string(k) + "] (instance " +
                               std::to_string(InstanceIds::at(ids, k)) + ")");
  if (count == 0) return;
  if (!owned_models_) {  // copy on write: from here on one model (and link rows) per instance
    auto own = std::make_shared<std::vector<Model>>();
    own->reserve(static_cast<std::size_t>(n_instances_));
    for (int i = 0; i < n_instances_; ++i) own->push_back((*models_)[static_cast<std::size_t>(model_of(i))]);
    if (models_->size() == 1 && n_instances_ > 1) {
      const std::vector<ReducedLinkParams<double>> links0 = links_;
      const std::vector<cga::CgaLink<double>> cga0 = cga_links_;
      links_.clear();
      cga_links_.clear();
      for (int i = 0; i < n_instances_; ++i) {
        links_.insert(links_.end(), links0.begin(), links0.end());
        cga_links_.insert(cga_links_.end(), cga0.begin(), cga0.end());
      }
      gravity_.assign(static_cast<std::size_t>(n_instances_), gravity_.front());
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

ArrayView ReducedBackend::state_view() { return matrix_view(Y_.data(), n_instances_, 2 * n_, false, false); }

ArrayView ReducedBackend::inputs_view() { return matrix_view(inputs_.data(), n_instances_, n_, false, false); }

}  // namespace simphant
