// ReducedModel -> maximal-coordinate Model (maximal_from_urdf.hpp).
#include "simphant/urdf/maximal_from_urdf.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "simphant/reduced/forward_kinematics.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {

namespace {

/// A unit vector normal to the unit vector z: z x e normalised, e the coordinate axis
/// least aligned with z (the first on ties). Deterministic.
Vec3d normal_to(const Vec3d& z) {
  int best = 0;
  for (int k = 1; k < 3; ++k)
    if (std::fabs(z[k]) < std::fabs(z[best])) best = k;
  Vec3d e = zero3<double>();
  e[best] = 1.0;
  const Vec3d x = cross(z, e);
  return (1.0 / norm(x)) * x;
}

/// A body of mass m, CoM at c_W with rotation R (body -> W), CoM velocity v_W and
/// angular velocity w_B (body axes). A massless body gets zero inertia and inverse.
Body make_body(const std::string& name, double m, const Mat3d& inertia, const Vec3d& c_W, const Mat3d& R,
               const Vec3d& v_W, const Vec3d& w_B) {
  Body b;
  b.name = name;
  b.mass = m;
  b.inertia_B = inertia;
  b.inertia_inv_B = m > 0 ? inertia_inverse(inertia) : Mat3d{};
  b.r0_W = c_W;
  b.p0 = quat_from_rotation(R);
  b.v0_W = v_W;
  b.omega0_B = w_B;
  return b;
}

/// The base state of a floating model: pose (R_B, p_B) and twist (v_B in W, w_B in B).
struct BaseState {
  Mat3d R = identity3<double>();
  Vec3d p{};
  Vec3d v{};
  Vec3d w{};
};

BaseState base_state(const std::vector<double>& base_q, const std::vector<double>& base_v) {
  BaseState s;
  if (!(base_q.empty() || base_q.size() == 7) || !(base_v.empty() || base_v.size() == 6)) {
    throw std::invalid_argument("maximal_model_from_urdf: base_q and base_v need 7 and 6 entries or none (got " +
                                std::to_string(base_q.size()) + " and " + std::to_string(base_v.size()) + ")");
  }
  if (!base_q.empty()) {
    const Quatd quat{base_q[3], base_q[4], base_q[5], base_q[6]};
    const double n = std::sqrt(quat.w * quat.w + quat.x * quat.x + quat.y * quat.y + quat.z * quat.z);
    if (!(n > 0) || !std::isfinite(n))
      throw std::invalid_argument("maximal_model_from_urdf: base quaternion (w x y z) is zero or not finite");
    s.R = rotation(normalized(quat));
    s.p = {base_q[0], base_q[1], base_q[2]};
  }
  if (!base_v.empty()) {
    s.v = {base_v[0], base_v[1], base_v[2]};
    s.w = {base_v[3], base_v[4], base_v[5]};
  }
  return s;
}

}  // namespace

Model maximal_model_from_urdf(const ReducedModel& rm, const std::vector<double>& q, const std::vector<double>& qdot,
                              const std::vector<double>& base_q, const std::vector<double>& base_v) {
  const int n = rm.nq();
  if (static_cast<int>(q.size()) != n || static_cast<int>(qdot.size()) != n) {
    throw std::invalid_argument("maximal_model_from_urdf: q and qdot need " + std::to_string(n) + " entries (got " +
                                std::to_string(q.size()) + " and " + std::to_string(qdot.size()) + ")");
  }
  const BaseState B = rm.floating ? base_state(base_q, base_v) : BaseState{};
  const std::size_t N = static_cast<std::size_t>(n);
  std::vector<ReducedLinkParams<double>> params(N);
  for (int k = 0; k < n; ++k) params[static_cast<std::size_t>(k)] = reduced_link_params<double>(rm, k);
  // Kinematics relative to the base (B = W for a fixed base; rest state B).
  std::vector<Mat3d> R_B(N);
  std::vector<Vec3d> o_B(N), c_B(N), v_B(N), w_L(N), vo_B(N);
  forward_kinematics_velocity(n, params.data(), q.data(), qdot.data(), R_B.data(), o_B.data(), c_B.data(),
                              v_B.data(), w_L.data(), vo_B.data());

  Model model;
  model.name = rm.name;
  model.gravity = rm.gravity;
  const int first = rm.floating ? 1 : 0;  // body index of link 0
  if (rm.floating) {
    const ReducedBase& b = rm.base;
    // CoM velocity of the base: v_B + R_B (w x com).
    model.bodies.push_back(make_body(b.link, b.mass, b.inertia_com, B.p + mul(B.R, b.com), B.R,
                                     B.v + mul(B.R, cross(B.w, b.com)), B.w));
  }
  int rows = 0;
  for (int k = 0; k < n; ++k) {
    const std::size_t K = static_cast<std::size_t>(k);
    const ReducedLink& l = rm.links[K];
    // Carried to W: x_W = p_B + R_B x_B; a point's velocity v_B + R_B (w_B x x_B + xdot_B);
    // the link's angular velocity in L = R_L^T (w_B + w_rel), w_rel in B = R_BL w_L.
    const Mat3d R_W = spatial_detail::m3_mul(B.R, R_B[K]);
    const Vec3d c_W = B.p + mul(B.R, c_B[K]);
    const Vec3d vc_W = B.v + mul(B.R, cross(B.w, c_B[K]) + v_B[K]);
    const Vec3d w = w_L[K] + mul_t(R_B[K], B.w);
    model.bodies.push_back(make_body(l.name, l.mass, l.inertia_com, c_W, R_W, vc_W, w));

    Joint jt;
    jt.name = l.joint_name;
    jt.type = l.type == ReducedJointType::Prismatic ? JointType::Prismatic : JointType::Revolute;
    jt.body_i = l.parent >= 0 ? l.parent + first : (rm.floating ? 0 : kGround);
    jt.body_j = k + first;
    JointFrame<double>& f = jt.frame;
    f.u_j = -l.com;
    f.v_j = l.axis;
    f.a_j = normal_to(l.axis);
    f.b_j = cross(f.v_j, f.a_j);
    const Vec3d com_parent = l.parent >= 0 ? rm.links[static_cast<std::size_t>(l.parent)].com
                                           : (rm.floating ? rm.base.com : zero3<double>());
    f.u_i = l.p_parent_joint - com_parent;
    f.v_i = mul(l.R_parent_joint, f.v_j);
    f.a_i = mul(l.R_parent_joint, f.a_j);
    f.b_i = cross(f.v_i, f.a_i);
    jt.row_offset = rows;
    rows += joint_rows(jt.type);
    model.joints.push_back(jt);
  }
  model.n_rows = rows;
  return model;
}

void require_dae_masses(const ReducedModel& rm) {
  for (const ReducedLink& l : rm.links) {
    if (l.mass > 0) continue;
    throw UrdfError("URDF robot '" + rm.name + "': link '" + l.name + "' (joint '" + l.joint_name +
                    "'): no mass: solver dae needs mass on every moving link; use solver aba or cga");
  }
}

std::string dae_armature_error(const ReducedModel& rm) {
  for (const ReducedLink& l : rm.links) {
    if (!(l.armature > 0)) continue;
    char value[64];
    const auto end = std::to_chars(value, value + sizeof value, l.armature).ptr;  // shortest round trip
    return "robot joint '" + l.joint_name + "': armature " + std::string(value, end) +
           (l.type == ReducedJointType::Revolute ? " kg m^2" : " kg") +
           " (a rotor inertia on the joint coordinate) is not supported by solver 'dae' (maximal coordinates); use "
           "solver 'aba' or 'cga'";
  }
  return "";
}

}  // namespace simphant
