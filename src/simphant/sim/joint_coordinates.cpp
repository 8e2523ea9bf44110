#include "simphant/sim/joint_coordinates.hpp"

#include <cmath>

#include "simphant/dynamics/state.hpp"

namespace simphant {

void dae_joint_coordinates(const Model& model, const double* Y, double* q, double* qd) {
  const int N = model.n_bodies();
  for (int k = 0; k < model.n_joints(); ++k) {
    const Joint& jt = model.joints[k];
    const BodyKin<double> Bi = state_body_kin(Y, N, jt.body_i), Bj = state_body_kin(Y, N, jt.body_j);
    const JointFrame<double>& f = jt.frame;
    const Vec3d v = mul(Bi.A, f.v_i);
    if (jt.type == JointType::Revolute) {
      const Vec3d ai = mul(Bi.A, f.a_i), bi = mul(Bi.A, f.b_i), aj = mul(Bj.A, f.a_j);
      q[k] = std::atan2(dot(aj, bi), dot(aj, ai));
      qd[k] = dot(Bj.omega_W - Bi.omega_W, v);
    } else {
      const Vec3d arm_i = mul(Bi.A, f.u_i), arm_j = mul(Bj.A, f.u_j);
      q[k] = dot(Bj.r + arm_j - Bi.r - arm_i, v);
      const Vec3d vel = Bj.v + cross(Bj.omega_W, arm_j) - Bi.v - cross(Bi.omega_W, arm_i);
      qd[k] = dot(vel, v);
    }
  }
}

}  // namespace simphant
