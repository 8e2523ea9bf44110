#pragma once
// Applied, spring and gyroscopic forces (docs/solver.md, Forces):
// Q = Q_e + Q_v with Q_v the gyroscopic term -omega x (J omega) in B.
// Generalised force per body: [F (W) [N], T (B, about the CoM) [N m]].
#include "simphant/dynamics/data.hpp"
#include "simphant/math/small.hpp"

namespace simphant {

/// Fills d.Q from the kinematics in d.kin (call after the kinematics are set).
/// inputs: (model.n_inputs) actuator values, or nullptr for the models' defaults.
void compute_forces(const Model& model, Data& d, double t, const double* inputs);

/// Relative rotation angle of body_j about joint axis v_i, in (-pi, pi], zero at the
/// initial configuration (where a_i = a_j): atan2((a_i x a_j) . v_i, a_i . a_j).
double joint_angle(const Joint& joint, const BodyKin<double>& Bi, const BodyKin<double>& Bj);

/// Potential energy of the springs [J] at the kinematics in d.kin.
double spring_potential(const Model& model, const Data& d);

}  // namespace simphant
