#pragma once
// ModelView: the read-only model data of a batch of instances as the batched kernels
// read it (docs/cuda-backend.md): the topology that every instance shares, and a flat vector
// of per-instance parameters of which only the ones the sweep varies are stored per
// instance, structure-of-arrays with the instance index fastest. Plain data with raw
// pointers, so the same struct points into host memory (CPU tests of the per-thread
// functions) or device memory (host/cuda_backend); packed by batch_pack.hpp.
//
// Constraint elements (docs/solver.md, "Rheonomic drivers", "Mimic rows"): the n_joints
// joints, then the n_drivers drivers, each a one-row element between its joint's body_i
// and body_j, then the n_mimics mimic rows, each a one-row element with four sides (the
// follower joint's body_i, body_j, then the leader joint's); joint_type, joint_body,
// row_offset, coupling_start and the body_joint / coupling CSRs run over all
// n_constraints() elements (a driver's joint_type entry is kDriverElement, a mimic's
// kMimicElement). Every element has `sides` sides (Model::element_sides(): 2, or 4 when
// the model has a mimic row; the unused sides of a joint or driver are ground, -1), and
// a row's Phi_q block holds 6 sides columns (jac_cols()): [v (W), omega (B)] per side.
//
// Parameter layout of one instance (n_params = 19 N + 24 J + 16 F + 7 + the laws' + the
// tables' + 19 per joint law + 4 per mimic row + 29 per contact pair + 5 per end stop):
//   body k   at body_param(k):  mass [kg], J_B (9, row-major) [kg m^2], J_B^-1 (9)
//   joint j  at joint_param(j): u_i, v_i, a_i, b_i, u_j, v_j, a_j, b_j (3 each, B or W)
//   force f  at force_param(f): point_B, vec, point_i, point_j (3 each), stiffness,
//                               damping, rest, value
//   global   at global_param(): gravity (3) [m/s^2], baumgarte_alpha, baumgarte_beta,
//                               tikhonov_epsilon, violation_bound
//   law l    at law_param() + law_start[l]: its parameters (formulas/motion_law.hpp; the
//                               count is fixed by the scene's structure)
//   tables   after the laws: each force's stiffness table then damping table, 3 n values
//                               each ([x, y, m2], CharacteristicTable in model/model.hpp),
//                               at ForceTopo::stiffness_table / damping_table
//   joint laws after the tables: each robot joint actuator's kJointLawParams numbers
//                               (joint_law_values in formulas/joint_law.hpp), in force
//                               order, at ForceTopo::joint_law
//   mimic rows after the joint laws, at mimic_param + 4 k for mimic row k: multiplier,
//                               offset, q_ref, leader_q_ref (Model::mimics)
//   contact pairs after the mimic rows, kContactParams each in force order, at
//                               ForceTopo::contact: shape_i size (3), pos_B (3), quat_B
//                               (4, w x y z), shape_j the same, K, n, damping, v_floor, mu,
//                               v_eps, mu_roll, w_eps, margin (ContactPairParams)
//   end stops after the contact pairs, kJointStopParams each in force order, at
//                               ForceTopo::contact: lower, upper, K, n, damping
#include <cstddef>
#include <cstdint>

#include "simphant/contact/contact_law.hpp"
#include "simphant/contact/shapes.hpp"
#include "simphant/core/hd.hpp"
#include "simphant/formulas/joint_law.hpp"
#include "simphant/formulas/motion_law.hpp"
#include "simphant/joints/joint_coordinate.hpp"
#include "simphant/joints/joint_math.hpp"
#include "simphant/math/small.hpp"

namespace simphant::batch {

constexpr int kBodyParams = 19;
constexpr int kJointParams = 24;
constexpr int kForceParams = 16;
constexpr int kGlobalParams = 7;
/// joint_type of a driver's constraint element.
constexpr int kDriverElement = -1;
/// joint_type of a mimic row's constraint element.
constexpr int kMimicElement = -2;
/// Parameters of one mimic row: multiplier, offset, q_ref, leader_q_ref.
constexpr int kMimicParams = 4;
/// Parameters of one contact pair: two shapes (size, pos_B, quat_B: 10 each), the normal
/// law's K, n, damping, v_floor, the friction's mu, v_eps, mu_roll, w_eps, the margin.
constexpr int kContactParams = 29;
/// Parameters of one end-stop element (formulas/joint_stop.hpp): lower, upper [rad | m],
/// the normal law's K, n, damping.
constexpr int kJointStopParams = 5;

/// Topology of one force element (ForceElement in model.hpp without its parameters).
struct ForceTopo {
  int type;         ///< ForceType as int
  int body;         ///< PointForce / Torque
  int world_frame;  ///< PointForce / Torque: 1 if the vector is in W
  int body_i, body_j;  ///< SpringDamper
  int joint;        ///< RotationalSpringDamper / Actuator / JointStop
  int kind;         ///< Actuator: ActuatorKind as int; JointStop: 0 angle, 1 slide
  int input_index;  ///< Actuator
  /// SpringDamper / RotationalSpringDamper: first parameter of the stiffness table and
  /// its knot count (0: the scalar stiffness), the same for the damping table.
  int stiffness_table, stiffness_n, damping_table, damping_n;
  /// PointForce / Torque / Actuator: index of the load's motion law (Model::laws), -1: none.
  int law;
  /// Actuator of a robot joint (ForceElement::has_joint_law): first of its kJointLawParams
  /// parameters (formulas/joint_law.hpp), else -1.
  int joint_law;
  /// Contact (body_i, body_j: the pair's bodies, -1 ground): first of its kContactParams
  /// parameters; JointStop: first of its kJointStopParams; else -1. The shapes' ShapeKind
  /// and the NormalLaw as int.
  int contact, shape_kind_i, shape_kind_j, contact_law;
};

template <class T>
struct ModelView {
  int n_instances, n_bodies, n_joints, n_rows, n_forces, n_inputs, n_params;
  T dt;                         ///< fixed step [s] (shared: not sweepable)
  /// Floor of the relative Tikhonov eps: row R of C gets max(eps, eps_relative) C(R, R)
  /// on its diagonal (refined_solve.hpp). 0 in fp64 (the CPU reference's C exactly);
  /// fp32 sets it (batch_pack.hpp).
  T eps_relative;
  int refine_steps;             ///< solver.refinement_steps, the most refinement corrections (shared: not sweepable)
  /// solver.projection after each step, Projection (model.hpp) as int: 0 none, 1 velocity,
  /// 2 position_velocity, 3 auto (shared: not sweepable; kernels/projection.hpp).
  int projection;
  const int* joint_type;        ///< (n_constraints()) JointType as int, kDriverElement / kMimicElement
  const int* joint_body;        ///< (n_constraints(), sides) body_i, body_j[, body_k, body_l] (-1: ground)
  const int* row_offset;        ///< (n_constraints()) first row of each element
  const int* coupling_start;    ///< (n_constraints() + 1) CSR into coupling
  const int* coupling;          ///< (n_couplings, 3) joint b, side of a, side of b sharing a body
  const int* body_joint_start;  ///< (n_bodies + 1) CSR into body_joint
  /// (n_body_joints, 2) element, side (0: body_i, 1: body_j, 2, 3: a mimic's leader's),
  /// for each body the elements touching it in element order, an element's sides in order.
  const int* body_joint;
  const ForceTopo* force;       ///< (n_forces)
  const T* param_shared;        ///< (n_params) values of instance 0
  const int* param_slot;        ///< (n_params) -1: shared, else the row in param_varied
  const T* param_varied;        ///< (n_varied, n_instances)
  int n_drivers;                ///< drivers (Model::drivers)
  int n_laws;                   ///< motion laws (Model::laws)
  const int* driver;            ///< (n_drivers, 3) joint, coordinate (JointCoordinate), law
  const int* law_type;          ///< (n_laws) MotionLawType as int
  const int* law_start;         ///< (n_laws + 1) first parameter of each law after law_param()
  /// solver.integrator, Integrator (model/integrator.hpp) as int8: 0 rk4, 1 euler,
  /// 2 symplectic_euler, 3 dopri5, 4 bdf (shared: not sweepable; enqueue_step in
  /// batch_step.hpp runs the fixed-step ones).
  std::int8_t integrator;
  /// The adaptive integrators' settings (SolverSettings; shared: not sweepable): relative
  /// and absolute tolerance, smallest, largest and first step [s] (0: the defaults of
  /// model.hpp).
  T rtol, atol, min_step, max_step, first_step;
  /// (n_constraints()) per element the bits of its rows removed as redundant
  /// (Model::removed_rows; remove_rows in joints/joint_math.hpp), 0: none.
  const int* removed_mask;
  /// auto: SolverSettings::auto_projection_pivot (dynamics/auto_projection.hpp; shared).
  T auto_pivot;
  /// Sides of every constraint element (Model::element_sides(): 2, or 4 with a mimic row).
  int sides;
  int n_mimics;                 ///< mimic rows (Model::mimics)
  /// (n_mimics, 4) follower joint, leader joint, coordinate, leader coordinate
  /// (JointCoordinate as int).
  const int* mimic;
  int mimic_param;              ///< first parameter of the mimic rows (kMimicParams each)

  /// Constraint elements: the joints, then the drivers, then the mimic rows.
  SP_HD int n_constraints() const { return n_joints + n_drivers + n_mimics; }
  /// The first mimic element.
  SP_HD int first_mimic() const { return n_joints + n_drivers; }
  /// Columns of one row's Phi_q block: 6 per side.
  SP_HD int jac_cols() const { return 6 * sides; }
  /// The body of side s of element a (-1: ground or unused).
  SP_HD int body_of(int a, int s) const { return joint_body[sides * a + s]; }

  SP_HD int body_param(int k) const { return kBodyParams * k; }
  SP_HD int joint_param(int j) const { return kBodyParams * n_bodies + kJointParams * j; }
  SP_HD int force_param(int f) const { return kBodyParams * n_bodies + kJointParams * n_joints + kForceParams * f; }
  SP_HD int global_param() const { return kBodyParams * n_bodies + kJointParams * n_joints + kForceParams * n_forces; }

  /// Parameter p of instance i.
  SP_HD T param(int p, int i) const {
    const int s = param_slot[p];
    return s < 0 ? param_shared[p] : param_varied[static_cast<std::size_t>(s) * n_instances + i];
  }
  SP_HD Vec3<T> param3(int p, int i) const { return {param(p, i), param(p + 1, i), param(p + 2, i)}; }
  SP_HD Mat3<T> param33(int p, int i) const {
    Mat3<T> A;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) A.m[r][c] = param(p + 3 * r + c, i);
    return A;
  }
  SP_HD T mass(int k, int i) const { return param(body_param(k), i); }
  SP_HD Mat3<T> inertia_B(int k, int i) const { return param33(body_param(k) + 1, i); }
  SP_HD Mat3<T> inertia_inv_B(int k, int i) const { return param33(body_param(k) + 10, i); }
  SP_HD JointFrame<T> frame(int j, int i) const {
    const int p = joint_param(j);
    return {param3(p, i),      param3(p + 3, i),  param3(p + 6, i),  param3(p + 9, i),
            param3(p + 12, i), param3(p + 15, i), param3(p + 18, i), param3(p + 21, i)};
  }
  SP_HD Vec3<T> gravity(int i) const { return param3(global_param(), i); }
  SP_HD T alpha(int i) const { return param(global_param() + 3, i); }
  SP_HD T beta(int i) const { return param(global_param() + 4, i); }
  SP_HD T epsilon(int i) const { return param(global_param() + 5, i); }
  SP_HD T violation_bound(int i) const { return param(global_param() + 6, i); }
  SP_HD int law_param() const { return global_param() + kGlobalParams; }
  /// Rows of constraint element a: its joint type's, or 1 for a driver or a mimic row.
  SP_HD int rows_of(int a) const { return a >= n_joints ? 1 : joint_rows(static_cast<JointType>(joint_type[a])); }
  /// The joint frame of constraint element a (a driver: its joint's; a mimic row: its
  /// follower's) of instance i.
  SP_HD JointFrame<T> constraint_frame(int a, int i) const {
    return frame(a >= first_mimic() ? mimic[4 * (a - first_mimic())] : a >= n_joints ? driver[3 * (a - n_joints)] : a, i);
  }
};

/// Side s (0: shape_i, 1: shape_j) of contact pair ft of instance i (Shape<T>).
template <class T>
SP_HD Shape<T> contact_shape(const ModelView<T>& mv, const ForceTopo& ft, int s, int i) {
  const int p = ft.contact + 10 * s;
  Shape<T> sh;
  sh.kind = static_cast<ShapeKind>(s == 0 ? ft.shape_kind_i : ft.shape_kind_j);
  for (int c = 0; c < 3; ++c) sh.size[c] = mv.param(p + c, i);
  sh.pos_B = mv.param3(p + 3, i);
  sh.quat_B = {mv.param(p + 6, i), mv.param(p + 7, i), mv.param(p + 8, i), mv.param(p + 9, i)};
  return sh;
}

/// The law, friction and margin of contact pair ft of instance i.
template <class T>
SP_HD ContactPairParams<T> contact_params(const ModelView<T>& mv, const ForceTopo& ft, int i) {
  const int p = ft.contact + 20;
  ContactPairParams<T> c;
  c.normal = {ft.contact_law, mv.param(p, i), mv.param(p + 1, i), mv.param(p + 2, i), mv.param(p + 3, i)};
  c.friction = {mv.param(p + 4, i), mv.param(p + 5, i), mv.param(p + 6, i), mv.param(p + 7, i)};
  c.margin = mv.param(p + 8, i);
  return c;
}

/// The normal law of end-stop element ft of instance i; lower and upper get its range.
template <class T>
SP_HD NormalLawParams<T> joint_stop_params(const ModelView<T>& mv, const ForceTopo& ft, int i, T& lower, T& upper) {
  const int p = ft.contact;
  lower = mv.param(p, i);
  upper = mv.param(p + 1, i);
  return {ft.contact_law, mv.param(p + 2, i), mv.param(p + 3, i), mv.param(p + 4, i), T(0)};
}

/// Accessor of parameter base + k of instance i: a motion law's (motion_law_eval_at) or a
/// characteristic table's [x, y, m2] (characteristic_force in formulas/force_math.hpp).
template <class T>
struct LawParams {
  const ModelView<T>* mv;
  int base, i;
  SP_HD T operator()(int k) const { return mv->param(base + k, i); }
};

/// s [rad | m], s' and s'' of motion law `law` of instance i at its time t [s]
/// (formulas/motion_law.hpp).
template <class T>
SP_HD void motion_law_value(const ModelView<T>& mv, int law, int i, T t, T& s, T& sd, T& sdd) {
  const int start = mv.law_start[law];
  motion_law_eval_at(static_cast<MotionLawType>(mv.law_type[law]), LawParams<T>{&mv, mv.law_param() + start, i},
                     mv.law_start[law + 1] - start, t, s, sd, sdd);
}

}  // namespace simphant::batch
