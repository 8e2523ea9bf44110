#include "simphant/dynamics/forces.hpp"

#include <cmath>

namespace simphant {
namespace {

// Adds a world-frame force F_W applied at the world point P_W to body k's
// generalised force [F_W, T_B]: T_B += A^T ((P_W - r) x F_W). Ground (k < 0) ignored.
void add_force_at_point(const Data& d, Eigen::VectorXd& Q, int k, const Vec3d& F_W, const Vec3d& P_W) {
  if (k < 0) return;
  const BodyKin<double>& B = d.kin[k];
  const Vec3d T_B = mul_t(B.A, cross(P_W - B.r, F_W));
  for (int c = 0; c < 3; ++c) {
    Q[6 * k + c] += F_W[c];
    Q[6 * k + 3 + c] += T_B[c];
  }
}

void add_torque_world(const Data& d, Eigen::VectorXd& Q, int k, const Vec3d& T_W) {
  if (k < 0) return;
  const Vec3d T_B = mul_t(d.kin[k].A, T_W);
  for (int c = 0; c < 3; ++c) Q[6 * k + 3 + c] += T_B[c];
}

BodyKin<double> side_kin(const Data& d, int k) { return k < 0 ? ground_kin<double>() : d.kin[k]; }

// World position and velocity of a point fixed in body k (B coordinates from the CoM).
void point_state(const BodyKin<double>& B, const Vec3d& point_B, Vec3d& P_W, Vec3d& V_W) {
  const Vec3d s = mul(B.A, point_B);
  P_W = B.r + s;
  V_W = B.v + cross(B.omega_W, s);
}

}  // namespace

double joint_angle(const Joint& joint, const BodyKin<double>& Bi, const BodyKin<double>& Bj) {
  const Vec3d v_i = mul(Bi.A, joint.frame.v_i);
  const Vec3d a_i = mul(Bi.A, joint.frame.a_i);
  const Vec3d a_j = mul(Bj.A, joint.frame.a_j);
  return std::atan2(dot(cross(a_i, a_j), v_i), dot(a_i, a_j));
}

void compute_forces(const Model& model, Data& d, const double* inputs) {
  Eigen::VectorXd& Q = d.Q;
  Q.setZero();
  // Gravity and the gyroscopic term Q_v = -omega x (J omega), in B.
  for (int k = 0; k < model.n_bodies(); ++k) {
    const Body& b = model.bodies[k];
    const Vec3d& w = d.kin[k].omega_B;
    const Vec3d gyro = -cross(w, mul(b.inertia_B, w));
    for (int c = 0; c < 3; ++c) {
      Q[6 * k + c] += b.mass * model.gravity[c];
      Q[6 * k + 3 + c] += gyro[c];
    }
  }
  for (const ForceElement& f : model.forces) {
    switch (f.type) {
      case ForceType::PointForce: {
        const BodyKin<double>& B = d.kin[f.body];
        const Vec3d F_W = f.world_frame ? f.vec : mul(B.A, f.vec);
        add_force_at_point(d, Q, f.body, F_W, B.r + mul(B.A, f.point_B));
        break;
      }
      case ForceType::Torque: {
        const Vec3d T_W = f.world_frame ? f.vec : mul(d.kin[f.body].A, f.vec);
        add_torque_world(d, Q, f.body, T_W);
        break;
      }
      case ForceType::SpringDamper: {
        Vec3d Pi, Vi, Pj, Vj;
        point_state(side_kin(d, f.body_i), f.point_i, Pi, Vi);
        point_state(side_kin(d, f.body_j), f.point_j, Pj, Vj);
        const Vec3d dvec = Pj - Pi;
        const double L = norm(dvec);
        if (L < 1e-12) break;  // direction undefined: no force (documented)
        const Vec3d e = (1.0 / L) * dvec;
        const double tension = f.stiffness * (L - f.rest) + f.damping * dot(e, Vj - Vi);
        add_force_at_point(d, Q, f.body_i, tension * e, Pi);
        add_force_at_point(d, Q, f.body_j, -tension * e, Pj);
        break;
      }
      case ForceType::RotationalSpringDamper: {
        const Joint& jt = model.joints[f.joint];
        const BodyKin<double> Bi = side_kin(d, jt.body_i), Bj = side_kin(d, jt.body_j);
        const Vec3d v_i = mul(Bi.A, jt.frame.v_i);
        const double theta = joint_angle(jt, Bi, Bj);
        const double theta_dot = dot(Bj.omega_W - Bi.omega_W, v_i);
        const double tau = -f.stiffness * (theta - f.rest) - f.damping * theta_dot;
        add_torque_world(d, Q, jt.body_j, tau * v_i);
        add_torque_world(d, Q, jt.body_i, -tau * v_i);
        break;
      }
      case ForceType::Actuator: {
        const Joint& jt = model.joints[f.joint];
        const BodyKin<double> Bi = side_kin(d, jt.body_i), Bj = side_kin(d, jt.body_j);
        const Vec3d v_i = mul(Bi.A, jt.frame.v_i);
        const double u = inputs ? inputs[f.input_index] : f.value;
        if (f.kind == ActuatorKind::Torque) {
          add_torque_world(d, Q, jt.body_j, u * v_i);
          add_torque_world(d, Q, jt.body_i, -u * v_i);
        } else {
          // Equal and opposite forces along v_i at body_j's anchor: no spurious moment.
          const Vec3d P = Bj.r + mul(Bj.A, jt.frame.u_j);
          add_force_at_point(d, Q, jt.body_j, u * v_i, P);
          add_force_at_point(d, Q, jt.body_i, -u * v_i, P);
        }
        break;
      }
    }
  }
}

double spring_potential(const Model& model, const Data& d) {
  double V = 0;
  for (const ForceElement& f : model.forces) {
    if (f.type == ForceType::SpringDamper) {
      Vec3d Pi, Vi, Pj, Vj;
      point_state(side_kin(d, f.body_i), f.point_i, Pi, Vi);
      point_state(side_kin(d, f.body_j), f.point_j, Pj, Vj);
      const double stretch = norm(Pj - Pi) - f.rest;
      V += 0.5 * f.stiffness * stretch * stretch;
    } else if (f.type == ForceType::RotationalSpringDamper) {
      const Joint& jt = model.joints[f.joint];
      const double dtheta = joint_angle(jt, side_kin(d, jt.body_i), side_kin(d, jt.body_j)) - f.rest;
      V += 0.5 * f.stiffness * dtheta * dtheta;
    }
  }
  return V;
}

}  // namespace simphant
