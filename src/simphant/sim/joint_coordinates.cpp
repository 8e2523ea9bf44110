#include "simphant/sim/joint_coordinates.hpp"

#include <vector>

#include "simphant/formulas/force_math.hpp"
#include "simphant/formulas/joint_law.hpp"
#include "simphant/joints/joint_coordinate.hpp"
#include "simphant/formulas/state.hpp"

namespace simphant {

void dae_joint_coordinates(const Model& model, const double* Y, double* q, double* qd) {
  const int N = model.n_bodies();
  // A revolute joint with a joint law is read as the law reads it, within pi of its q_ref.
  std::vector<const JointLaw<double>*> law(static_cast<std::size_t>(model.n_joints()), nullptr);
  for (const ForceElement& f : model.forces)
    if (f.type == ForceType::Actuator && f.has_joint_law) law[static_cast<std::size_t>(f.joint)] = &f.joint_law;
  for (int k = 0; k < model.n_joints(); ++k) {
    const Joint& jt = model.joints[k];
    const JointLaw<double>* L = law[static_cast<std::size_t>(k)];
    dae_joint_coordinate(jt.type == JointType::Revolute, jt.frame, state_body_kin(Y, N, jt.body_i),
                         state_body_kin(Y, N, jt.body_j), L != nullptr, L ? L->q_ref : 0.0, q[k], qd[k]);
  }
}

namespace {

/// The coordinate q and rate qd that the joint law of actuator e reads at the DAE state Y
/// (formulas/joint_law.hpp).
void joint_law_state(const Model& model, const double* Y, const ForceElement& e, double& q, double& qd) {
  const int N = model.n_bodies();
  const Joint& jt = model.joints[e.joint];
  Vec3d v;
  joint_coordinate_state(e.kind == ActuatorKind::Torque, jt.frame, state_body_kin(Y, N, jt.body_i),
                         state_body_kin(Y, N, jt.body_j), e.joint_law.q_ref, q, qd, v);
}

}  // namespace

void dae_joint_actuator_forces(const Model& model, const double* Y, const double* inputs, double* tau) {
  for (int k = 0; k < model.n_joints(); ++k) tau[k] = 0.0;
  for (const ForceElement& f : model.forces) {
    if (f.type != ForceType::Actuator) continue;
    const double u = inputs ? inputs[f.input_index] : f.value;
    if (!f.has_joint_law) {
      tau[f.joint] = u;
      continue;
    }
    const Joint& jt = model.joints[f.joint];
    tau[f.joint] = dae_joint_law_force(f.joint_law, f.kind == ActuatorKind::Torque, jt.frame,
                                       state_body_kin(Y, model.n_bodies(), jt.body_i),
                                       state_body_kin(Y, model.n_bodies(), jt.body_j), u);
  }
}

int dae_joint_law_count(const Model& model) {
  int n = 0;
  for (const ForceElement& f : model.forces) n += f.type == ForceType::Actuator && f.has_joint_law ? 1 : 0;
  return n;
}

void dae_joint_law_branches(const Model& model, const double* Y, const double* inputs, std::uint8_t* out) {
  int k = 0;
  for (const ForceElement& f : model.forces) {
    if (f.type != ForceType::Actuator || !f.has_joint_law) continue;
    double q, qd;
    joint_law_state(model, Y, f, q, qd);
    out[k++] = static_cast<std::uint8_t>(
        joint_law_branch(f.joint_law.p, inputs ? inputs[f.input_index] : f.value, q, qd));
  }
}

}  // namespace simphant
