#include "simphant/sim/robot_queries.hpp"

#include <Eigen/Dense>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "simphant/model/robot.hpp"
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/crba.hpp"
#include "simphant/reduced/forward_kinematics.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/reduced/rnea.hpp"

namespace simphant {
namespace {

using MatX = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The robot in the plain-data form of the recursions.
struct Tree {
  std::vector<ReducedLinkParams<double>> links;
  bool floating = false;
  RobotBaseParams<double> base{};
  Vec3d gravity{};
  int n = 0;   ///< joints
  int nq = 0;  ///< n (+ 7: p_B, quat_B)
  int nv = 0;  ///< n (+ 6: v_B, omega_B)
};

Tree tree_of(const Model& model, const char* what) {
  if (!model.robot) throw std::invalid_argument(std::string(what) + ": the scene has no robot (docs/robots.md)");
  const ReducedModel& r = model.robot->model;
  if (r.nq() > kMaxReducedLinks)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(r.nq()) + " joints, more than the " +
                                std::to_string(kMaxReducedLinks) + " the recursions' workspaces hold");
  Tree t;
  t.n = r.nq();
  for (int k = 0; k < t.n; ++k) t.links.push_back(reduced_link_params<double>(r, k));
  t.floating = r.floating;
  t.base = {r.base.mass, r.base.com, r.base.inertia_com};
  t.gravity = r.gravity;
  t.nq = t.n + (t.floating ? 7 : 0);
  t.nv = t.n + (t.floating ? 6 : 0);
  return t;
}

/// Frame poses at q: frames 0 .. n-1 the links, n the floating base.
struct Poses {
  std::vector<Mat3d> R;
  std::vector<Vec3d> o;
  Mat3d R_B = identity3<double>();
  Vec3d p_B{0.0, 0.0, 0.0};
};

void poses(const Tree& t, const double* q, Poses& p) {
  p.R.resize(static_cast<std::size_t>(t.n) + 1);
  p.o.resize(static_cast<std::size_t>(t.n) + 1);
  if (t.floating) {
    p.p_B = {q[0], q[1], q[2]};
    const Quatd quat{q[3], q[4], q[5], q[6]};
    p.R_B = rotation(normalized(quat));
    forward_kinematics_floating(t.n, t.links.data(), p.p_B, quat, q + 7, p.R.data(), p.o.data());
  } else {
    forward_kinematics(t.n, t.links.data(), q, p.R.data(), p.o.data());
  }
  p.R[static_cast<std::size_t>(t.n)] = p.R_B;
  p.o[static_cast<std::size_t>(t.n)] = p.p_B;
}

void check_frames(const char* what, const Tree& t, const int* frames, int count) {
  const int F = t.n + (t.floating ? 1 : 0);
  for (int c = 0; c < count; ++c)
    if (frames[c] < 0 || frames[c] >= F)
      throw std::invalid_argument(std::string(what) + ": frame index " + std::to_string(frames[c]) + " out of [0, " +
                                  std::to_string(F) + ")");
}

/// The (6, nv) Jacobian of frame k (robot_link_jacobians) into J, row-major.
void frame_jacobian(const Tree& t, const Poses& p, int k, double* J) {
  const int nv = t.nv, off = t.floating ? 6 : 0;
  for (int e = 0; e < 6 * nv; ++e) J[e] = 0.0;
  const Vec3d& o_k = p.o[static_cast<std::size_t>(k)];
  for (int j = k < t.n ? k : -1; j >= 0; j = t.links[static_cast<std::size_t>(j)].parent) {  // the path to the base
    const ReducedLinkParams<double>& L = t.links[static_cast<std::size_t>(j)];
    const Vec3d z = mul(p.R[static_cast<std::size_t>(j)], L.axis);
    const bool revolute = L.type == static_cast<int>(ReducedJointType::Revolute);
    const Vec3d lin = revolute ? cross(z, o_k - p.o[static_cast<std::size_t>(j)]) : z;
    const Vec3d ang = revolute ? z : Vec3d{0.0, 0.0, 0.0};
    const double col[6] = {lin.x, lin.y, lin.z, ang.x, ang.y, ang.z};
    for (int r = 0; r < 6; ++r) J[r * nv + off + j] = col[r];
  }
  if (!t.floating) return;
  // v_o = v_B + (R_B omega_B) x r, omega = R_B omega_B (+ the joints'), r = o_k - p_B:
  // d v_o / d v_B = I, d v_o / d omega_B = -[r]x R_B, d omega / d omega_B = R_B.
  const Vec3d r = o_k - p.p_B;
  for (int c = 0; c < 3; ++c) {
    const Vec3d e{c == 0 ? 1.0 : 0.0, c == 1 ? 1.0 : 0.0, c == 2 ? 1.0 : 0.0};
    const Vec3d Rc = mul(p.R_B, e);  // column c of R_B
    const Vec3d lin = cross(Rc, r);
    J[0 * nv + c] = e.x;
    J[1 * nv + c] = e.y;
    J[2 * nv + c] = e.z;
    J[0 * nv + 3 + c] = lin.x;
    J[1 * nv + 3 + c] = lin.y;
    J[2 * nv + 3 + c] = lin.z;
    J[3 * nv + 3 + c] = Rc.x;
    J[4 * nv + 3 + c] = Rc.y;
    J[5 * nv + 3 + c] = Rc.z;
  }
}

Eigen::Matrix3d eig(const Mat3d& a) {
  Eigen::Matrix3d m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = a.m[i][j];
  return m;
}

Eigen::Matrix3d skew(const Vec3d& v) {
  Eigen::Matrix3d s;
  s << 0.0, -v.z, v.y, v.z, 0.0, -v.x, -v.y, v.x, 0.0;
  return s;
}

/// A floating-base robot's mass matrix in the velocity coordinates (v_B, omega_B, qd)
/// from its kinetic energy, T = 1/2 nu^T M nu = sum over the bodies of
/// 1/2 (m |v_c|^2 + omega^T I_W omega), with v_c = J_c nu, omega = J_w nu, plus
/// 1/2 a_k qd_k^2 of each joint's armature (robot_kinematics.hpp, robot_kinetic_energy).
MatX floating_mass_matrix(const Tree& t, const Poses& p) {
  const int nv = t.nv;
  MatX M = MatX::Zero(nv, nv);
  MatX J(6, nv);
  const auto add_body = [&](double mass, const Vec3d& com_L, const Mat3d& inertia_com, const Mat3d& R, int frame) {
    frame_jacobian(t, p, frame, J.data());
    const Eigen::Matrix3d Rw = eig(R);
    const Vec3d arm = mul(R, com_L);
    const MatX Jw = J.bottomRows(3);
    const MatX Jc = J.topRows(3) - skew(arm) * Jw;  // v_c = v_o + omega x arm
    M += mass * Jc.transpose() * Jc + Jw.transpose() * (Rw * eig(inertia_com) * Rw.transpose()) * Jw;
  };
  for (int k = 0; k < t.n; ++k) {
    const ReducedLinkParams<double>& L = t.links[static_cast<std::size_t>(k)];
    add_body(L.mass, L.com, L.inertia_com, p.R[static_cast<std::size_t>(k)], k);
  }
  add_body(t.base.mass, t.base.com, t.base.inertia_com, p.R_B, t.n);
  MatX S = 0.5 * (M + M.transpose());  // symmetric to the last bit (a new matrix: no aliasing)
  for (int k = 0; k < t.n; ++k) S(6 + k, 6 + k) += t.links[static_cast<std::size_t>(k)].armature;
  return S;
}

/// A floating-base robot's accelerations (vdot_B, omegadot_B, qdd) = the time derivative of
/// (v_B, omega_B, qd) under joint forces tau_joints (n) and no load on the base (ABA).
Eigen::VectorXd floating_aba(const Tree& t, const double* q, const double* qd, const double* tau_joints,
                             AbaWorkspace<double, kMaxReducedLinks>& ws) {
  Eigen::VectorXd a(t.nv);
  Vec3d vdot{}, omegadot{};
  aba_floating(t.n, t.links.data(), t.base, t.gravity, Vec3d{q[0], q[1], q[2]}, Quatd{q[3], q[4], q[5], q[6]},
               Vec3d{qd[0], qd[1], qd[2]}, Vec3d{qd[3], qd[4], qd[5]}, q + 7, qd + 6, tau_joints, vdot, omegadot,
               a.data() + 6, ws);
  a.head<6>() << vdot.x, vdot.y, vdot.z, omegadot.x, omegadot.y, omegadot.z;
  return a;
}

}  // namespace

void robot_forward_kinematics(const Model& model, int batch, const double* q, const int* frames, int count,
                              double* out) {
  const Tree t = tree_of(model, "forward_kinematics");
  check_frames("forward_kinematics", t, frames, count);
  Poses p;
  for (int b = 0; b < batch; ++b) {
    poses(t, q + static_cast<std::size_t>(b) * t.nq, p);
    for (int c = 0; c < count; ++c) {
      const std::size_t k = static_cast<std::size_t>(frames[c]);
      const Quatd r = quat_from_rotation(p.R[k]);
      const double rec[7] = {p.o[k].x, p.o[k].y, p.o[k].z, r.w, r.x, r.y, r.z};
      double* dst = out + (static_cast<std::size_t>(b) * count + c) * 7;
      for (int e = 0; e < 7; ++e) dst[e] = rec[e];
    }
  }
}

void robot_link_jacobians(const Model& model, int batch, const double* q, const int* frames, int count, double* out) {
  const Tree t = tree_of(model, "link_jacobians");
  check_frames("link_jacobians", t, frames, count);
  Poses p;
  for (int b = 0; b < batch; ++b) {
    poses(t, q + static_cast<std::size_t>(b) * t.nq, p);
    for (int c = 0; c < count; ++c)
      frame_jacobian(t, p, frames[c], out + (static_cast<std::size_t>(b) * count + c) * 6 * t.nv);
  }
}

void robot_mass_matrix(const Model& model, int batch, const double* q, double* out) {
  const Tree t = tree_of(model, "mass_matrix");
  const std::size_t nv2 = static_cast<std::size_t>(t.nv) * t.nv;
  if (t.floating) {
    Poses p;
    for (int b = 0; b < batch; ++b) {
      poses(t, q + static_cast<std::size_t>(b) * t.nq, p);
      Eigen::Map<MatX>(out + b * nv2, t.nv, t.nv) = floating_mass_matrix(t, p);
    }
    return;
  }
  auto ws = std::make_unique<CrbaWorkspace<double>>();
  for (int b = 0; b < batch; ++b)
    crba(t.n, t.links.data(), t.gravity, q + static_cast<std::size_t>(b) * t.n, static_cast<const double*>(nullptr),
         out + b * nv2, static_cast<double*>(nullptr), *ws);
}

void robot_inverse_dynamics(const Model& model, int batch, const double* q, const double* qd, const double* qdd,
                            double* out) {
  const Tree t = tree_of(model, "inverse_dynamics");
  if (t.floating) {
    // M nudot + h = Q with h = -M a0, a0 the accelerations under no load (ABA): Q = M (nudot - a0).
    auto ws = std::make_unique<AbaWorkspace<double, kMaxReducedLinks>>();
    const std::vector<double> zero(static_cast<std::size_t>(t.n), 0.0);
    Poses p;
    for (int b = 0; b < batch; ++b) {
      const double* qb = q + static_cast<std::size_t>(b) * t.nq;
      const std::size_t at = static_cast<std::size_t>(b) * t.nv;
      poses(t, qb, p);
      const Eigen::VectorXd a0 = floating_aba(t, qb, qd + at, zero.data(), *ws);
      Eigen::Map<Eigen::VectorXd>(out + at, t.nv) =
          floating_mass_matrix(t, p) * (Eigen::Map<const Eigen::VectorXd>(qdd + at, t.nv) - a0);
    }
    return;
  }
  auto ws = std::make_unique<RneaWorkspace<double>>();
  for (int b = 0; b < batch; ++b) {
    const std::size_t at = static_cast<std::size_t>(b) * t.n;
    rnea(t.n, t.links.data(), t.gravity, q + at, qd + at, qdd + at, out + at, *ws);
  }
}

void robot_forward_dynamics(const Model& model, int batch, const double* q, const double* qd, const double* tau,
                            double* out) {
  const Tree t = tree_of(model, "forward_dynamics");
  auto ws = std::make_unique<AbaWorkspace<double, kMaxReducedLinks>>();
  if (t.floating) {
    // ABA with the joint forces; a load on the base coordinates adds M^-1 (Q_B, 0).
    Poses p;
    for (int b = 0; b < batch; ++b) {
      const double* qb = q + static_cast<std::size_t>(b) * t.nq;
      const std::size_t at = static_cast<std::size_t>(b) * t.nv;
      Eigen::VectorXd a = floating_aba(t, qb, qd + at, tau + at + 6, *ws);
      Eigen::VectorXd load = Eigen::VectorXd::Zero(t.nv);
      for (int e = 0; e < 6; ++e) load[e] = tau[at + static_cast<std::size_t>(e)];
      if (load.head<6>().squaredNorm() > 0.0) {
        poses(t, qb, p);
        a += floating_mass_matrix(t, p).llt().solve(load);
      }
      Eigen::Map<Eigen::VectorXd>(out + at, t.nv) = a;
    }
    return;
  }
  for (int b = 0; b < batch; ++b) {
    const std::size_t at = static_cast<std::size_t>(b) * t.n;
    aba(t.n, t.links.data(), t.gravity, q + at, qd + at, tau + at, out + at, *ws);
  }
}

}  // namespace simphant
