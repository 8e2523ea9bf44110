#include "simphant/sim/reduced_backend.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "simphant/reduced/forward_kinematics.hpp"

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

ReducedBackend::ReducedBackend(std::shared_ptr<const std::vector<Model>> models, int n_instances, int threads)
    : models_(std::move(models)), n_instances_(n_instances) {
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
  for (const Model& m : *models_) {
    if (!m.robot || m.robot->n() != n_ || m.robot->solver != solver_)
      throw std::invalid_argument("ReducedBackend: every instance needs the same robot and solver");
    if (n_ < 1 || n_ > kMaxRobotJoints)
      throw std::invalid_argument("ReducedBackend: the robot has " + std::to_string(n_) + " joints (1 .. " +
                                  std::to_string(kMaxRobotJoints) + ")");
    const std::size_t sz = static_cast<std::size_t>(n_);
    if (m.robot->q0.size() != sz || m.robot->qd0.size() != sz || m.robot->tau.size() != sz ||
        static_cast<int>(m.robot->model.links.size()) != n_)
      throw std::invalid_argument("ReducedBackend: q0, qd0, tau and the links need one entry per joint");
    gravity_.push_back(m.robot->model.gravity);
    for (int k = 0; k < n_; ++k) {
      links_.push_back(reduced_link_params<double>(m.robot->model, k));
      cga_links_.push_back(cga::cga_link(links_.back()));
    }
  }
  Y_.resize(static_cast<std::size_t>(n_instances_) * 2 * n);
  inputs_.resize(static_cast<std::size_t>(n_instances_) * n);
  for (int i = 0; i < n_instances_; ++i) {
    const RobotJointSpace& r = *(*models_)[static_cast<std::size_t>(model_of(i))].robot;
    double* y = Y_.data() + static_cast<std::size_t>(i) * 2 * n;
    std::copy(r.q0.begin(), r.q0.end(), y);
    std::copy(r.qd0.begin(), r.qd0.end(), y + n);
    std::copy(r.tau.begin(), r.tau.end(), inputs_.data() + static_cast<std::size_t>(i) * n);
  }
  status_.assign(static_cast<std::size_t>(n_instances_), static_cast<std::int8_t>(InstanceStatus::Ok));
  status_time_.assign(static_cast<std::size_t>(n_instances_), 0.0);
  AssemblyResult ok;
  ok.ok = true;
  assembly_.assign(static_cast<std::size_t>(n_instances_), ok);
  for (int t = 0; t < threads_; ++t) workers_.push_back(std::make_unique<Worker>());
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
      if (!finite) {  // freeze at the last finite state
        status_[i] = static_cast<std::int8_t>(InstanceStatus::Diverged);
        status_time_[i] = static_cast<double>(step0 + s) * h;
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

void ReducedBackend::read_energy(double* total, double* kinetic) const {
  const int n = n_;
#pragma omp parallel for schedule(static) num_threads(threads_)
  for (int i = 0; i < n_instances_; ++i) {
    Worker& w = *workers_[omp_get_thread_num()];
    const std::size_t m = static_cast<std::size_t>(model_of(i));
    const ReducedLinkParams<double>* L = links_.data() + m * n;
    const double* Y = Y_.data() + static_cast<std::size_t>(i) * 2 * n;
    forward_kinematics_velocity(n, L, Y, Y + n, w.R, w.o, w.c, w.vc, w.w, w.vo);
    double T = 0, V = 0;
    for (int k = 0; k < n; ++k) {
      T += 0.5 * L[k].mass * dot(w.vc[k], w.vc[k]) + 0.5 * dot(w.w[k], mul(L[k].inertia_com, w.w[k]));
      V -= L[k].mass * dot(gravity_[m], w.c[k]);
    }
    total[i] = T + V;
    if (kinetic) kinetic[i] = T;
  }
}

void ReducedBackend::read_status(std::int8_t* status, double* status_time) const {
  std::copy(status_.begin(), status_.end(), status);
  std::copy(status_time_.begin(), status_time_.end(), status_time);
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

}  // namespace simphant
