#pragma once
// One instance's implicit BDF integration by SUNDIALS' CVODE (docs/solver.md, "The bdf
// integrator"): variable-order (1 to 5), variable-step BDF on Y' = f(t, Y) of evaluate()
// (dynamics/evaluate.hpp), Newton iteration with the dense direct linear solver
// (SUNDenseMatrix + SUNLinSol_Dense) on CVODE's difference-quotient Jacobian, scalar
// relative / absolute tolerances on every component of Y (positions, quaternion
// components, velocities, angular velocities). After every step CVODE's projection
// interface (CVodeSetProjFn) renormalises the quaternions, applies model.solver.projection
// and projects the quaternion part of the local error estimate onto the tangent space of
// |p| = 1. The state at an output time comes from CVODE's interpolating polynomial
// (CVodeGetDky): steps are never clipped to the output grid.
//
// Compiled only with SUNDIALS (CMake SIMPHANT_SUNDIALS); no SUNDIALS header is included
// here, CVODE's memory lives in the Impl.
#include <cstdint>
#include <limits>
#include <memory>

#include "simphant/dynamics/data.hpp"

namespace simphant {

/// What the right-hand side and the projection of one instance need during one advance:
/// the instance's model, the worker's Data (workspace only) and the instance's actuator
/// inputs (n_inputs, or null), held constant over the advance.
struct BdfProblem {
  const Model* model = nullptr;
  Data* d = nullptr;
  const double* inputs = nullptr;
};

/// Step statistics of one advance_to: accepted steps, rejected step attempts (error-test
/// failures plus Newton convergence failures) and the smallest and largest accepted step
/// [s] (+inf and 0 when no step was accepted).
struct BdfStepStats {
  std::int64_t accepted = 0;
  std::int64_t rejected = 0;
  double min_step = std::numeric_limits<double>::infinity();
  double max_step = 0;
};

/// The most internal steps CVODE may take to reach one output time from the previous one
/// (CVODE's own mxstep default per CV_NORMAL call, 500, times ten): more is a stall and
/// stops the instance with step_size_underflow.
constexpr long kBdfMaxStepsPerInterval = 5000;

/// The coefficient of CVODE's Newton convergence test (CVodeSetNonlinConvCoef; CVODE's
/// default 0.1). Off the constraint manifold a mechanism with redundant rows has an
/// ill-conditioned f (the Tikhonov-regularised Schur solve), its difference-quotient
/// Jacobian is poor, and with 0.1 the Newton iteration stops early on a wrong solution:
/// measured on the four-bar's sweep, 1000 instances, 0.1 s, rtol 1e-6, no projection,
/// max |Phi| 4.9e-3 with 0.1 and 4.4e-6 with 1e-3, for 7 % more time on a projected run
/// (docs/solver.md, "The bdf integrator").
constexpr double kBdfNonlinConvCoef = 1e-3;

class CvodeInstance {
 public:
  /// Creates the SUNContext, the vectors, the dense matrix and linear solver and the
  /// CVODE memory for a state of ny numbers. Throws std::runtime_error when SUNDIALS
  /// cannot allocate them.
  explicit CvodeInstance(int ny);
  ~CvodeInstance();
  CvodeInstance(const CvodeInstance&) = delete;
  CvodeInstance& operator=(const CvodeInstance&) = delete;

  /// (Re)starts the integration at instance time t [s] from Y (ny) with the settings'
  /// rtol, atol, max_step (0: no bound) and first_step (0: CVODE's estimate): order 1,
  /// the history forgotten (CVodeInit the first time, CVodeReInit after). Returns false
  /// when CVODE refuses the settings.
  bool restart(const SolverSettings& settings, double t, const double* Y);

  /// Whether restart() has succeeded once.
  bool started() const;

  /// The time [s] of the last output (restart's t, then each advance_to's t_out).
  double output_time() const;

  /// Integrates from the current internal time until it has passed t_out [s] and writes
  /// the interpolated state at t_out into Y_out (ny; quaternions as CVODE has them:
  /// the caller renormalises). min_step [s]: CVODE's hmin for these steps (CVodeSetMinStep).
  /// Returns kReasonNone, or why it stopped (formulas/runaway.hpp): non_finite or
  /// factorisation_failure when evaluate() or the projection kept failing,
  /// step_size_underflow when CVODE failed at its minimum step (error test or Newton
  /// convergence failures), took more than kBdfMaxStepsPerInterval steps or met another
  /// error. Y_out is unchanged on failure. The steps taken (also by a failed call) are
  /// added to `stats`.
  std::int8_t advance_to(const BdfProblem& problem, double t_out, double min_step, double* Y_out,
                         BdfStepStats& stats);

  struct Impl;  ///< CVODE's memory and the callbacks' context (cvode_instance.cpp)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace simphant
