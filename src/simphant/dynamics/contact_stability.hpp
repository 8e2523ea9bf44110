#pragma once
// Step-size stability of the compliant contacts (docs/contact.md, "Step size"): per
// contact pair, the normal force linearised at a reference penetration and the friction
// and rolling resistance linearised at zero slip, each with an upper bound of the
// effective inverse mass at the contact point. The modes join the step-size check of
// dynamics/stability.hpp (same eigenvalue form s^2 + p s + q, same integrator limits).
//
// The reference load. Contact does not act at load time, so the check takes the load of
// the hardest contact the run can reach without work done by springs, drivers or
// actuators: an impact at the reference speed
//   v_ref = sqrt(v_0^2 + 2 |g| H)
// (v_0 the largest initial speed of a point of a shape-bearing body, H the drop along g
// from the highest lowest point of a shape to the lowest point of any shape or of the
// ground below one), or contact.impact_speed when the scene gives it; and at rest, the
// weight of the bodies that joints connect to either side, all on the one contact. A pair
// with effective inverse mass w_n along the normal reaches, without damping,
//   delta_imp = ((n + 1) v_ref^2 / (2 w_n K))^(1 / (n + 1)),   delta_rest = (F_rest / K)^(1/n),
// delta = max of the two, F_n = K delta^n; its normal mode is s^2 + c w_n s + k w_n = 0 with
// the tangent stiffness k = n K delta^(n-1) and the damping c of the law at delta
// (Tsuji: D delta^((n-1)/2); Hunt-Crossley: c_HC K delta^n). Friction at slip speeds
// below v_eps is a damper mu F_n / v_eps on the contact point's tangential motion (inverse
// mass w_t), rolling resistance a damper mu_roll F_n / w_eps on the relative rotation
// (inverse inertia w_r). The friction modes are bounded by |F_t| <= mu F_n whatever the
// step: beyond their limit the slip stalls (RK4: R(h lambda) > 1 on the real axis, the
// stages overshoot and a sliding body never reaches rolling or sticking) or oscillates
// inside the bound, a wrong answer but not a blow-up (the check warns); the normal
// mode's force is not bounded (the check refuses as for springs).
//
// The inverse masses are upper bounds at any contact point of the shape. A free body's:
// w = 1/m + L^2 lambda_max(J_B^-1), L the lever of the contact point about the centre of
// mass, |shape origin| + bounding radius (a sphere's normal passes through its centre:
// L = |shape origin| for w_n). A body in a constraint: the same bound from its
// constrained mobility (side_mass in contact_stability.cpp), at the first instance's
// assembled state for every instance (as the spring-dampers' effective masses).
#include <vector>

#include "simphant/dynamics/stability.hpp"
#include "simphant/model/model.hpp"

namespace simphant {

/// Steps per contact duration (pi / |lambda| of the normal mode) below which the check
/// warns: RK4's restitution error falls like dt^(5/4), 2e-4 at 200 steps per contact
/// (tests/test_contact_dae.cpp), about 1 % at 10.
constexpr double kContactStepsWarn = 10;

/// The reference impact speed v_ref [m/s] of `model` from its initial state Y (13N):
/// model.contact_impact_speed when > 0, else sqrt(v_0^2 + 2 |g| H) as above (shapes'
/// lowest points: their centre minus their bounding radius along g). 0 when the model
/// has no contact pair.
double contact_reference_speed(const Model& model, const double* Y);

/// The contact modes of `model` at initial state Y (13N): for every contact force element,
/// in model order, three modes (fields Stiffness or Damping for the normal force,
/// SlipSpeed, RollingSpeed), a mode whose coefficient is 0 with lambda = 0 and
/// dt_max = +inf, so that every instance of a sweep has the same list. mobility
/// (body_mobilities, dynamics/stability.hpp; nullptr: none): the constrained inverse mass
/// blocks, used for the bodies in a joint, driver or mimic row (a robot's legs: their
/// free-body bound is far above what the joints let the contact point feel).
std::vector<StabilityMode> contact_modes(const Model& model, const double* Y,
                                        const std::vector<Eigen::Matrix<double, 6, 6>>* mobility = nullptr);

/// A contact pair that touches at a state: its index in Model::forces, its largest depth
/// [m] and its normal force [N] (the sum over its contacts).
struct ContactOverlap {
  int force = -1;
  double depth = 0, normal_force = 0;
};

/// The contact pairs of `model` that touch at state Y (13N), by the solvers' pair function
/// (contact_pair_wrench); the load-time check warns of those that start pressed together
/// harder than the load it assumes (job/stability_check.cpp).
std::vector<ContactOverlap> contact_overlaps(const Model& model, const double* Y);

}  // namespace simphant
