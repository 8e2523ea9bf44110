#include "simphant/dynamics/forces.hpp"

#include <cmath>
#include <utility>

#include "simphant/contact/contact_wrench.hpp"
#include "simphant/formulas/joint_stop.hpp"
#include "simphant/formulas/force_math.hpp"
#include "simphant/formulas/power_math.hpp"

namespace simphant {
namespace {

// Adds a world-frame force F_W applied at the world point P_W to body k's generalised
// force [F_W, T_B]. Ground (k < 0) ignored.
void add_force_at_point(const Data& d, Eigen::VectorXd& Q, int k, const Vec3d& F_W, const Vec3d& P_W) {
  if (k < 0) return;
  const Vec3d T_B = torque_B_of_force_at(d.kin[k], F_W, P_W);
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

PointerParams<double> table_params(const CharacteristicTable& t) { return {t.p.data()}; }

/// The contact wrenches of a Contact element at d's kinematics (with the broad phase, as
/// the per-thread body forces: kernels/body_forces.hpp).
ContactPairWrench<double> contact_wrench(const Data& d, const ForceElement& f) {
  return contact_pair_wrench(f.shape_i, side_kin(d, f.body_i), f.shape_j, side_kin(d, f.body_j), f.contact,
                             static_cast<const double*>(nullptr), true);
}

/// s(t) of motion law `law` (Model::laws) at the instance time t [s].
double law_value(const Model& model, int law, double t) {
  const MotionLaw& l = model.laws[static_cast<std::size_t>(law)];
  double s = 0, sd = 0, sdd = 0;
  motion_law_eval(l.type, l.params.data(), static_cast<int>(l.params.size()), t, s, sd, sdd);
  return s;
}

/// Adds the wrench of a generalised joint force (formulas/joint_law.hpp) to joint jt's
/// body_j, then body_i (ground ignored).
void add_joint_load(const Data& d, Eigen::VectorXd& Q, const Joint& jt, const JointLoad<double>& J) {
  for (const bool on_j : {true, false}) {
    const int k = on_j ? jt.body_j : jt.body_i;
    if (k < 0) continue;
    Vec3d F_W, T_B;
    joint_load_wrench(J, on_j, d.kin[k], F_W, T_B);
    for (int c = 0; c < 3; ++c) {
      Q[6 * k + c] += F_W[c];
      Q[6 * k + 3 + c] += T_B[c];
    }
  }
}

/// A generalised force u along joint jt's axis v_i: a torque u v_i on body_j and -u v_i on
/// body_i, or (force) equal and opposite forces u v_i at body_j's anchor, so that no spurious
/// moment arises (actuators, end stops).
void add_axis_load(const Data& d, Eigen::VectorXd& Q, const Joint& jt, bool torque, double u) {
  const BodyKin<double> Bi = side_kin(d, jt.body_i), Bj = side_kin(d, jt.body_j);
  const Vec3d v_i = mul(Bi.A, jt.frame.v_i);
  if (torque) {
    add_torque_world(d, Q, jt.body_j, u * v_i);
    add_torque_world(d, Q, jt.body_i, -u * v_i);
  } else {
    const Vec3d P = Bj.r + mul(Bj.A, jt.frame.u_j);
    add_force_at_point(d, Q, jt.body_j, u * v_i, P);
    add_force_at_point(d, Q, jt.body_i, -u * v_i, P);
  }
}

/// An end-stop element's generalised force along its coordinate (formulas/joint_stop.hpp);
/// elastic (optional) gets its elastic part.
double stop_force(const Model& model, const Data& d, const ForceElement& f, double* elastic = nullptr) {
  const Joint& jt = model.joints[f.joint];
  double q, qd;
  joint_stop_coordinate(f.kind == ActuatorKind::Torque, jt.frame, side_kin(d, jt.body_i), side_kin(d, jt.body_j),
                        joint_stop_middle(f.lower, f.upper), q, qd);
  return joint_stop_force(f.contact.normal, f.lower, f.upper, q, qd, elastic);
}

/// A robot joint's law (ForceElement::has_joint_law) with input u: its joint's wrenches.
void add_joint_law(const Data& d, Eigen::VectorXd& Q, const Joint& jt, const ForceElement& f, double u) {
  JointLoad<double> self;
  joint_law_loads(f.joint_law, u, f.kind == ActuatorKind::Torque, jt.frame, side_kin(d, jt.body_i),
                  side_kin(d, jt.body_j), self);
  add_joint_load(d, Q, jt, self);
}

}  // namespace

void compute_forces(const Model& model, Data& d, double t, const double* inputs) {
  Eigen::VectorXd& Q = d.Q;
  Q.setZero();
  // Gravity and the gyroscopic term Q_v = -omega x (J omega), in B.
  for (int k = 0; k < model.n_bodies(); ++k) {
    const Body& b = model.bodies[k];
    const Vec3d& w = d.kin[k].omega_B;
    const Vec3d gyro = gyroscopic_torque(b.inertia_B, w);
    for (int c = 0; c < 3; ++c) {
      Q[6 * k + c] += b.mass * model.gravity[c];
      Q[6 * k + 3 + c] += gyro[c];
    }
  }
  for (const ForceElement& f : model.forces) {
    switch (f.type) {
      case ForceType::PointForce: {
        const BodyKin<double>& B = d.kin[f.body];
        const Vec3d vec = f.law >= 0 ? law_value(model, f.law, t) * f.vec : f.vec;  // docs/scene-format.md
        const Vec3d F_W = f.world_frame ? vec : mul(B.A, vec);
        add_force_at_point(d, Q, f.body, F_W, B.r + mul(B.A, f.point_B));
        break;
      }
      case ForceType::Torque: {
        const Vec3d vec = f.law >= 0 ? law_value(model, f.law, t) * f.vec : f.vec;
        const Vec3d T_W = f.world_frame ? vec : mul(d.kin[f.body].A, vec);
        add_torque_world(d, Q, f.body, T_W);
        break;
      }
      case ForceType::SpringDamper: {
        Vec3d Pi, Vi, Pj, Vj, F_i;
        body_point_state(side_kin(d, f.body_i), f.point_i, Pi, Vi);
        body_point_state(side_kin(d, f.body_j), f.point_j, Pj, Vj);
        if (!spring_damper_force(table_params(f.stiffness_table), f.stiffness_table.n(), f.stiffness,
                                 table_params(f.damping_table), f.damping_table.n(), f.damping, f.rest, Pi, Vi, Pj,
                                 Vj, F_i))
          break;  // documented
        add_force_at_point(d, Q, f.body_i, F_i, Pi);
        add_force_at_point(d, Q, f.body_j, -F_i, Pj);
        break;
      }
      case ForceType::RotationalSpringDamper: {
        const Joint& jt = model.joints[f.joint];
        const BodyKin<double> Bi = side_kin(d, jt.body_i), Bj = side_kin(d, jt.body_j);
        Vec3d v_i;
        const double tau = rotational_spring_torque(table_params(f.stiffness_table), f.stiffness_table.n(), f.stiffness,
                                                    table_params(f.damping_table), f.damping_table.n(), f.damping,
                                                    f.rest, jt.frame, Bi, Bj, v_i);
        add_torque_world(d, Q, jt.body_j, tau * v_i);
        add_torque_world(d, Q, jt.body_i, -tau * v_i);
        break;
      }
      case ForceType::Actuator: {
        double u = inputs ? inputs[f.input_index] : f.value;
        if (f.law >= 0) u += law_value(model, f.law, t);  // the input plus s(t)
        if (f.has_joint_law)
          add_joint_law(d, Q, model.joints[f.joint], f, u);
        else
          add_axis_load(d, Q, model.joints[f.joint], f.kind == ActuatorKind::Torque, u);
        break;
      }
      case ForceType::JointStop:
        add_axis_load(d, Q, model.joints[f.joint], f.kind == ActuatorKind::Torque, stop_force(model, d, f));
        break;
      case ForceType::Contact: {
        const ContactPairWrench<double> w = contact_wrench(d, f);
        for (const auto& [k, W] : {std::pair<int, const BodyWrench<double>&>{f.body_i, w.a}, {f.body_j, w.b}}) {
          if (k < 0) continue;
          for (int c = 0; c < 3; ++c) {
            Q[6 * k + c] += W.force_W[c];
            Q[6 * k + 3 + c] += W.torque_B[c];
          }
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
      body_point_state(side_kin(d, f.body_i), f.point_i, Pi, Vi);
      body_point_state(side_kin(d, f.body_j), f.point_j, Pj, Vj);
      V += characteristic_potential(table_params(f.stiffness_table), f.stiffness_table.n(), f.stiffness,
                                    norm(Pj - Pi) - f.rest);
    } else if (f.type == ForceType::RotationalSpringDamper) {
      const Joint& jt = model.joints[f.joint];
      const double theta = coordinate_angle_value(jt.frame, side_kin(d, jt.body_i), side_kin(d, jt.body_j));
      V += characteristic_potential(table_params(f.stiffness_table), f.stiffness_table.n(), f.stiffness,
                                    theta - f.rest);
    } else if (f.type == ForceType::Contact) {
      V += contact_pair_potential(contact_wrench(d, f), f.contact);
    } else if (f.type == ForceType::JointStop) {
      const Joint& jt = model.joints[f.joint];
      double q, qd;
      joint_stop_coordinate(f.kind == ActuatorKind::Torque, jt.frame, side_kin(d, jt.body_i), side_kin(d, jt.body_j),
                            joint_stop_middle(f.lower, f.upper), q, qd);
      V += joint_stop_potential(f.contact.normal, f.lower, f.upper, q);
    }
  }
  return V;
}

double nonconservative_power(const Model& model, const Data& d, double t, const double* inputs) {
  double P = 0;
  for (const ForceElement& f : model.forces) {
    switch (f.type) {
      case ForceType::PointForce:
      case ForceType::Torque: {
        const BodyKin<double>& B = d.kin[f.body];
        const Vec3d vec = f.law >= 0 ? law_value(model, f.law, t) * f.vec : f.vec;
        const Vec3d V_W = f.world_frame ? vec : mul(B.A, vec);
        P += f.type == ForceType::PointForce ? point_force_power(B, V_W, B.r + mul(B.A, f.point_B))
                                             : dot(V_W, B.omega_W);
        break;
      }
      case ForceType::SpringDamper: {
        Vec3d Pi, Vi, Pj, Vj;
        body_point_state(side_kin(d, f.body_i), f.point_i, Pi, Vi);
        body_point_state(side_kin(d, f.body_j), f.point_j, Pj, Vj);
        P += spring_damping_power(table_params(f.damping_table), f.damping_table.n(), f.damping, Pi, Vi, Pj, Vj);
        break;
      }
      case ForceType::RotationalSpringDamper: {
        const Joint& jt = model.joints[f.joint];
        P += rotational_damping_power(table_params(f.damping_table), f.damping_table.n(), f.damping, jt.frame,
                                      side_kin(d, jt.body_i), side_kin(d, jt.body_j));
        break;
      }
      case ForceType::Actuator: {
        const Joint& jt = model.joints[f.joint];
        const BodyKin<double> Bi = side_kin(d, jt.body_i), Bj = side_kin(d, jt.body_j);
        double u = inputs ? inputs[f.input_index] : f.value;
        if (f.law >= 0) u += law_value(model, f.law, t);
        if (!f.has_joint_law) {
          P += actuator_power(f.kind == ActuatorKind::Torque, u, jt.frame, Bi, Bj);
          break;
        }
        JointLoad<double> self;
        joint_law_loads(f.joint_law, u, f.kind == ActuatorKind::Torque, jt.frame, Bi, Bj, self);
        P += joint_load_power(self, Bi, Bj);
        break;
      }
      case ForceType::Contact:
        P += contact_pair_dissipation_power(contact_wrench(d, f), f.contact, side_kin(d, f.body_i),
                                            side_kin(d, f.body_j));
        break;
      case ForceType::JointStop: {  // its damping: the force less its elastic part
        const Joint& jt = model.joints[f.joint];
        double elastic = 0;
        const double u = stop_force(model, d, f, &elastic);
        P += actuator_power(f.kind == ActuatorKind::Torque, u - elastic, jt.frame, side_kin(d, jt.body_i),
                            side_kin(d, jt.body_j));
        break;
      }
    }
  }
  for (int k = 0; k < model.n_drivers(); ++k) {
    const int a = model.n_joints() + k;
    const ConstraintElement e = model.constraint(a);
    const double* jac = &d.rows[a].jac[0][0];
    P += driver_power(d.lambda[e.row_offset], [&](int c) { return jac[c]; }, side_kin(d, e.body_i),
                      side_kin(d, e.body_j));
  }
  return P;
}

}  // namespace simphant
