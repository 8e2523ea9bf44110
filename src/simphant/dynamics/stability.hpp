#pragma once
// Step-size stability of the fixed-step integrators for the fastest modes of a model
// (docs/solver.md, "Step-size stability" and "Integrators"): the Baumgarte error dynamics Phi'' + 2 alpha Phi' + beta^2 Phi = 0,
// each translational spring-damper with the effective mass along its line in the
// constrained system, and each rotational spring-damper with the effective inertia about
// its joint's axis. A mode with eigenvalue lambda is stable for a step h when
// |R(h lambda)| <= 1, R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24 (RK4's stability function:
// real-axis limit h |lambda| <= 2.785, imaginary-axis limit 2 sqrt(2)); explicit Euler
// and symplectic Euler have their own limits (integrator_stable_step).
#include <complex>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "simphant/dynamics/data.hpp"
#include "simphant/model/integrator.hpp"

namespace simphant {

/// dt / dt_max above which a mode is warned of: half the stability limit. RK4 is stable
/// there but its error for that mode is already large (|R(h lambda)| near e^{h lambda} fails).
constexpr double kStabilityWarnRatio = 0.5;

/// The largest h |lambda| for which |R(h lambda)| <= 1 on all of (0, h] along the ray of
/// lambda (2.785... on the negative real axis, 2 sqrt(2) on the imaginary one); +inf for
/// lambda = 0 or Re lambda > 0 (a mode that grows in the exact dynamics too).
double rk4_stability_radius(std::complex<double> lambda);

/// Constraint rows up to which the spring-dampers' effective masses are projected onto
/// the constrained system (a dense pseudo-inverse of the m x m Schur matrix, O(m^3));
/// above, the unconstrained inverse mass j M^-1 j^T, an upper bound, is used.
constexpr int kMaxProjectedRows = 1000;

/// Which model field sets a mode. SlipSpeed and RollingSpeed: a contact's friction and
/// rolling resistance (dynamics/contact_stability.hpp), bounded forces whose slip stalls
/// or oscillates rather than blows up beyond the limit.
enum class StabilityField { BaumgarteAlpha, BaumgarteBeta, Stiffness, Damping, SlipSpeed, RollingSpeed };

/// One mode of the model.
struct StabilityMode {
  StabilityField field = StabilityField::BaumgarteAlpha;
  int force = -1;               ///< index in Model::forces (spring-dampers), -1 for Baumgarte
  int joint = -1;               ///< robot joint (dynamics/robot_stability.hpp), -1 otherwise
  std::complex<double> lambda;  ///< the mode's fastest eigenvalue [1/s]
  double inverse_mass = 0;      ///< effective 1/m [1/kg] or 1/J [1/(kg m^2)] (spring-dampers)
  /// The mode's characteristic polynomial s^2 + p s + q: p = 2 alpha [1/s], q = beta^2
  /// [1/s^2] (Baumgarte) or p = c w, q = k w (spring-dampers).
  double p = 0, q = 0;
  double dt_max = 0;            ///< largest stable step [s] of RK4: rk4_stability_radius / |lambda|
  /// Contact modes (force of type Contact): the reference impact speed [m/s] and the
  /// normal force [N] the mode is linearised at (dynamics/contact_stability.hpp).
  double contact_speed = 0, contact_force = 0;
};

/// The largest step [s] at which `integrator` runs the mode m without amplifying it,
/// the linear stability limit on its 2 x 2 system x'' + p x' + q x = 0:
///   rk4:              m.dt_max (rk4_stability_radius / |lambda|);
///   symplectic_euler: v+ = v + h (-q x - p v), x+ = x + h v+ has det = 1 - h p and
///                     trace 2 - h p - h^2 q; both eigenvalues lie in the unit disc iff
///                     h^2 q + 2 h p <= 4, i.e. h <= (sqrt(p^2 + 4 q) - p) / q
///                     (undamped: omega h <= 2; a pure damper: h p <= 2);
///   euler:            |1 + h lambda| <= 1 for both roots: 2 |Re lambda| / |lambda|^2 for
///                     an oscillating mode (0 when undamped: explicit Euler amplifies
///                     every undamped oscillation by sqrt(1 + h^2 omega^2) per step), and
///                     2 / |lambda| of the fastest root for an overdamped or real one;
///   dopri5, bdf:      +inf (their error control sets the step; docs/solver.md).
double integrator_stable_step(Integrator integrator, const StabilityMode& m);

/// The step [s] above which explicit Euler amplifies the mode by more than |h lambda| - 1
/// per step for its fastest root: 2 / |lambda| (the refusal limit of the check at load; below it and
/// above integrator_stable_step, the mode grows by |1 + h lambda| per step).
double euler_blowup_step(const StabilityMode& m);

/// |1 + h lambda|, explicit Euler's amplification of the mode's fastest root per step h.
double euler_gain(const StabilityMode& m, double h);

/// Whether the model has a spring-damper (translational or rotational) with stiffness or
/// damping: the modes that need the assembled state.
bool has_spring_dampers(const Model& model);

/// The modes of `model` at its assembled state Y (13N), slowest last. Baumgarte modes
/// only when the model has constraint rows; a spring-damper whose line (or axis) the
/// constraints hold fixed (effective inverse mass <= 1e-12 of the unconstrained one) has
/// none. The effective inverse mass is w = j^T (M^-1 - M^-1 Phi_q^T C^+ Phi_q M^-1) j,
/// C = Phi_q M^-1 Phi_q^T (pseudo-inverse: redundant rows), j the row of the spring's
/// length rate (or the joint angle's rate) in the velocity coordinates; zero-length
/// springs take the largest eigenvalue of the 3x3 point inverse mass (above
/// kMaxProjectedRows rows: without the projection). d: a workspace.
std::vector<StabilityMode> stability_modes(const Model& model, Data& d, const double* Y);

/// Per body k, the 6 x 6 block of the constrained inverse mass
/// M^-1 - M^-1 Phi_q^T C^+ Phi_q M^-1 (C = Phi_q M^-1 Phi_q^T, pseudo-inverse) in its
/// velocity coordinates (v (W), omega_B) at state Y (13N): how the body's twist answers a
/// wrench on it while the constraints hold. Without rows, or above kMaxProjectedRows,
/// the free block diag(1/m I, J_B^-1), an upper bound. d: a workspace.
std::vector<Eigen::Matrix<double, 6, 6>> body_mobilities(const Model& model, Data& d, const double* Y);

/// The same modes with the parameters of another instance's model (same topology):
/// alpha, beta, stiffness and damping (mode_stiffness, mode_damping) from `other`, the effective inverse masses kept
/// (sweeps: the geometry and masses of the analysed instance stand for all).
std::vector<StabilityMode> rescale_modes(const std::vector<StabilityMode>& modes, const Model& other);

/// The stiffness [N/m | N m/rad] a spring-damper's mode is analysed with: the scalar
/// stiffness, or for a tabulated characteristic its largest |slope| (the spline's
/// derivative at the knots, at its extremum inside each interval, and the end slopes that
/// continue it): the fastest linearisation over the whole table, whatever deflection the
/// run reaches. The same for the damping [N s/m | N m s/rad].
double mode_stiffness(const ForceElement& f);
double mode_damping(const ForceElement& f);

/// Largest |d force / dq| of a tabulated characteristic (n >= 2).
double largest_slope(const CharacteristicTable& t);

/// The mode's eigenvalue from alpha, beta (Baumgarte) or stiffness k, damping c and the
/// effective inverse mass w: the root of largest modulus of s^2 + 2 alpha s + beta^2
/// (resp. s^2 + c w s + k w), with the field that dominates it.
StabilityMode baumgarte_mode(double alpha, double beta);
StabilityMode spring_mode(int force, double stiffness, double damping, double w);

}  // namespace simphant
