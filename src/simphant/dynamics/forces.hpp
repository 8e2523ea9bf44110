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

/// Potential energy of the springs [J] at the kinematics in d.kin.
double spring_potential(const Model& model, const Data& d);

/// Power [W] of the loads, drives and dampers at time t [s] (formulas/power_math.hpp):
/// the force elements' non-conservative parts at the kinematics in d.kin (inputs as
/// compute_forces) and the drivers' constraint forces from d.lambda and d.rows (call
/// after the solve). The kernels' nonconservative_power (kernels/power.hpp) sums alike.
double nonconservative_power(const Model& model, const Data& d, double t, const double* inputs);

}  // namespace simphant
