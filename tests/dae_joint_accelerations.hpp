#pragma once
// Test helper: joint accelerations of a URDF robot's maximal model (urdf/maximal_from_urdf.hpp)
// from the DAE body accelerations of evaluate() (dynamics/evaluate.hpp).
#include <vector>

#include "simphant/dynamics/data.hpp"
#include "simphant/model/model.hpp"

namespace simphant::test {

/// Joint accelerations from the DAE body accelerations (dynamics/evaluate.hpp's d.qddot:
/// per body [a_W, omegadot_B]). With v the joint axis in W (fixed in body i, so
/// dv/dt = omega_i x v):
///  revolute : qd = (w_j - w_i) . v  =>  qdd = (A_j wdot_Bj - A_i wdot_Bi) . v + (w_j - w_i) . (w_i x v)
///  prismatic: qd = (dP_j - dP_i) . v =>  qdd = (ddP_j - ddP_i) . v + (dP_j - dP_i) . (w_i x v),
///             ddP = a + wdot x arm + w x (w x arm), arm = A u  (d/dt(A wdot_B) = A wdot_B as A w_B x w_B = 0)
inline std::vector<double> dae_joint_accelerations(const Model& model, const Data& d) {
  std::vector<double> out;
  for (const Joint& jt : model.joints) {
    const BodyKin<double> Bi = jt.body_i < 0 ? ground_kin<double>() : d.kin[jt.body_i];
    const BodyKin<double>& Bj = d.kin[jt.body_j];
    auto acc = [&](int b, const BodyKin<double>& B, Vec3d& a, Vec3d& wdot) {
      a = zero3<double>();
      wdot = zero3<double>();
      if (b < 0) return;
      const double* x = d.qddot.data() + 6 * b;
      a = {x[0], x[1], x[2]};
      wdot = mul(B.A, Vec3d{x[3], x[4], x[5]});
    };
    Vec3d ai, wi_dot, aj, wj_dot;
    acc(jt.body_i, Bi, ai, wi_dot);
    acc(jt.body_j, Bj, aj, wj_dot);
    const Vec3d v = mul(Bi.A, jt.frame.v_i), vdot = cross(Bi.omega_W, v);
    if (jt.type == JointType::Revolute) {
      out.push_back(dot(wj_dot - wi_dot, v) + dot(Bj.omega_W - Bi.omega_W, vdot));
    } else {
      const Vec3d arm_i = mul(Bi.A, jt.frame.u_i), arm_j = mul(Bj.A, jt.frame.u_j);
      auto point_acc = [](const Vec3d& a, const Vec3d& wd, const Vec3d& w, const Vec3d& arm) {
        return a + cross(wd, arm) + cross(w, cross(w, arm));
      };
      const Vec3d dP = Bj.v + cross(Bj.omega_W, arm_j) - Bi.v - cross(Bi.omega_W, arm_i);
      const Vec3d ddP = point_acc(aj, wj_dot, Bj.omega_W, arm_j) - point_acc(ai, wi_dot, Bi.omega_W, arm_i);
      out.push_back(dot(ddP, v) + dot(dP, vdot));
    }
  }
  return out;
}

}  // namespace simphant::test
