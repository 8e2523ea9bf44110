#include "simphant/scene/robot_joint_params.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include <Eigen/Dense>

#include "simphant/reduced/crba.hpp"
#include "simphant/reduced/reduced_params.hpp"

namespace simphant {

std::vector<double> joint_effective_inertia(const ReducedModel& rm, const std::vector<double>& q) {
  const int n = rm.nq();
  if (static_cast<int>(q.size()) != n) throw std::invalid_argument("joint_effective_inertia: q must have nq entries");
  std::vector<ReducedLinkParams<double>> links(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) links[static_cast<std::size_t>(k)] = reduced_link_params<double>(rm, k);
  auto ws = std::make_unique<CrbaWorkspace<double>>();  // ~ 40 kB: not on the stack
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> M(n, n);
  crba<double>(n, links.data(), Vec3d{0, 0, 0}, q.data(), nullptr, M.data(), nullptr, *ws);
  // Cholesky by hand to name the joint whose pivot vanishes (M = L L^T, pivots in
  // topological order): a joint that moves no mass (a massless leaf, or two coincident
  // axes joined by a massless link) leaves M singular.
  double scale = 0;
  for (int k = 0; k < n; ++k) scale = std::max(scale, std::abs(M(k, k)));
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(n, n);
  for (int k = 0; k < n; ++k) {
    double d = M(k, k);
    for (int j = 0; j < k; ++j) d -= L(k, j) * L(k, j);
    if (!(d > 1e-12 * scale) || !std::isfinite(d))
      throw std::invalid_argument("the joint-space mass matrix at q0 is singular: joint '" +
                                  rm.links[static_cast<std::size_t>(k)].joint_name +
                                  "' moves no mass that the joints before it do not already move");
    L(k, k) = std::sqrt(d);
    for (int i = k + 1; i < n; ++i) {
      double s = M(i, k);
      for (int j = 0; j < k; ++j) s -= L(i, j) * L(k, j);
      L(i, k) = s / L(k, k);
    }
  }
  // (M^-1)_kk = |L^-1 e_k|^2.
  const Eigen::MatrixXd Linv = L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(n, n));
  std::vector<double> I(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) I[static_cast<std::size_t>(k)] = 1.0 / Linv.col(k).squaredNorm();
  return I;
}

std::vector<RobotJointParams<double>> derive_joint_params(const ReducedModel& rm, const std::vector<double>& I_k,
                                                          const UrdfDynamicsUse& use,
                                                          const std::vector<ServoSpec>& servos,
                                                          double friction_velocity, double dt) {
  const int n = rm.nq();
  std::vector<RobotJointParams<double>> out(static_cast<std::size_t>(n), plain_joint_params<double>());
  const double omega = kLimitOmegaDt / dt;
  for (int k = 0; k < n; ++k) {
    const ReducedLink& l = rm.links[static_cast<std::size_t>(k)];
    RobotJointParams<double>& p = out[static_cast<std::size_t>(k)];
    const double I = I_k[static_cast<std::size_t>(k)];
    if (use.limits) {
      p.effort = l.effort > 0 ? l.effort : 0.0;
      p.velocity = l.velocity > 0 ? l.velocity : 0.0;
      // A continuous joint, or a URDF <limit> with lower >= upper (lower = upper = 0 is
      // what many files write for "not given"), has no position limits.
      if (!l.continuous && l.lower < l.upper) {
        p.limited = 1;
        p.lower = l.lower;
        p.upper = l.upper;
        p.limit_stiffness = I * omega * omega;
        p.limit_damping = 2.0 * I * omega;
      }
    }
    if (use.damping) p.damping = l.damping;
    p.friction_velocity = friction_velocity;
    if (use.friction && l.friction > 0) {
      p.friction = l.friction;
      const double floor = l.friction * dt / (kFrictionSlopeDt * I);
      if (p.friction_velocity < floor) p.friction_velocity = floor;
    }
    if (use.mimic && l.mimic >= 0) {
      p.mimic = l.mimic;
      p.mimic_multiplier = l.mimic_multiplier;
      p.mimic_offset = l.mimic_offset;
    }
  }
  for (const ServoSpec& s : servos) {
    RobotJointParams<double>& p = out[static_cast<std::size_t>(s.joint)];
    p.mode = static_cast<int>(s.mode);
    p.kp = s.mode == ActuatorMode::Position ? s.kp : 0.0;
    p.kd = s.kd;
  }
  return out;
}

}  // namespace simphant
