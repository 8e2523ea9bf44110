// ReducedModel -> maximal-coordinate Model (maximal_from_urdf.hpp).
#include "simphant/urdf/maximal_from_urdf.hpp"

#include <cmath>
#include <stdexcept>


#include "simphant/reduced/forward_kinematics.hpp"
#include "simphant/reduced/reduced_params.hpp"

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

}  // namespace

Model maximal_model_from_urdf(const ReducedModel& rm, const std::vector<double>& q, const std::vector<double>& qdot) {
  const int n = rm.nq();
  if (static_cast<int>(q.size()) != n || static_cast<int>(qdot.size()) != n) {
    throw std::invalid_argument("maximal_model_from_urdf: q and qdot need " + std::to_string(n) + " entries (got " +
                                std::to_string(q.size()) + " and " + std::to_string(qdot.size()) + ")");
  }
  std::vector<ReducedLinkParams<double>> params(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) params[static_cast<std::size_t>(k)] = reduced_link_params<double>(rm, k);
  std::vector<Mat3d> R_W(params.size());
  std::vector<Vec3d> o_W(params.size()), c_W(params.size()), v_W(params.size()), w_B(params.size()),
      vo_W(params.size());
  forward_kinematics_velocity(n, params.data(), q.data(), qdot.data(), R_W.data(), o_W.data(), c_W.data(),
                              v_W.data(), w_B.data(), vo_W.data());

  Model model;
  model.name = rm.name;
  model.gravity = rm.gravity;
  int rows = 0;
  for (int k = 0; k < n; ++k) {
    const ReducedLink& l = rm.links[static_cast<std::size_t>(k)];
    Body b;
    b.name = l.name;
    b.mass = l.mass;
    b.inertia_B = l.inertia_com;
    b.inertia_inv_B = inertia_inverse(l.inertia_com);
    b.r0_W = c_W[static_cast<std::size_t>(k)];
    b.p0 = quat_from_rotation(R_W[static_cast<std::size_t>(k)]);
    b.v0_W = v_W[static_cast<std::size_t>(k)];
    b.omega0_B = w_B[static_cast<std::size_t>(k)];
    model.bodies.push_back(b);

    Joint jt;
    jt.name = l.joint_name;
    jt.type = l.type == ReducedJointType::Prismatic ? JointType::Prismatic : JointType::Revolute;
    jt.body_i = l.parent < 0 ? kGround : l.parent;
    jt.body_j = k;
    JointFrame<double>& f = jt.frame;
    f.u_j = -l.com;
    f.v_j = l.axis;
    f.a_j = normal_to(l.axis);
    f.b_j = cross(f.v_j, f.a_j);
    const Vec3d com_parent = l.parent < 0 ? zero3<double>() : rm.links[static_cast<std::size_t>(l.parent)].com;
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

}  // namespace simphant
