#pragma once
// The global error estimate of a fixed-step run (solver.error_estimate, `--error-estimate`;
// docs/solver.md, "Error estimate of a fixed-step run"): the job integrates a second batch
// of the same instances (the same models and the same assembled initial state) at dt/2,
// 2k steps for each k of the main batch, and at the end compares the two by Richardson
// extrapolation.
//
// With a method of order p the global error of a solution at step h behaves as
// y_h - y = C h^p + O(h^(p+1)), so y_h - y_(h/2) = C h^p (1 - 2^-p) and the error of the
// recorded (step dt) solution is
//
//   e_dt ~ (y_dt - y_(dt/2)) * 2^p / (2^p - 1)
//
// (the dt/2 solution's own error is that difference times 1 / (2^p - 1)); E. Hairer,
// S. P. Norsett, G. Wanner, "Solving Ordinary Differential Equations I", 2nd ed.,
// Section II.4, "Richardson extrapolation". The estimate holds where the error is in its
// asymptotic regime (C h^p dominates); the factor is 16/15 for RK4, 2 for the Euler methods.
//
// Written per instance into the output:
//   /error_estimate/position    (I) [m]    max over the bodies of |r_dt - r_(dt/2)| * factor
//   /error_estimate/orientation (I) [rad]  max over the bodies of the rotation angle between
//                                          p_dt and p_(dt/2), times the factor
// NaN for an instance that failed assembly or diverged in either batch. A run stopped on
// request (to be resumed) keeps the dt/2 batch in its checkpoint and writes no estimate;
// the session that ends the run writes it. Attributes of both:
// units, long_name, method ("Richardson extrapolation against a dt/2 run"), order (p),
// factor (2^p / (2^p - 1)), dt_s and t_s (the time compared).
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "simphant/io/recorder.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {

/// The factor that turns y_h - y_(h/2) into the error of y_h for a method of order p >= 1:
/// 2^p / (2^p - 1). Throws std::invalid_argument for p < 1.
double richardson_factor(int order);

/// Rotation angle [rad] between two unit quaternions (w, x, y, z), in [0, pi]: accurate
/// down to round-off for small angles (2 atan2(|vec(p* q)|, |scalar(p* q)|)).
double quaternion_angle(const double* p, const double* q);

/// Per-instance estimates from the two batches' body states (n, n_bodies, 13 as
/// Simulator::read_states: r_W, p (w x y z), v_W, omega_B) and statuses (n; 0 ok):
/// position[i], orientation[i] as in the layout above (NaN where either status is not ok or
/// a state is not finite).
void richardson_estimate(const double* states_dt, const double* states_half, const std::int8_t* status_dt,
                         const std::int8_t* status_half, int n, int n_bodies, int order, double* position,
                         double* orientation);

/// The largest estimates over the instances (NaN entries skipped; NaN when every one is).
struct ErrorEstimateSummary {
  double max_position = std::numeric_limits<double>::quiet_NaN();     ///< [m]
  double max_orientation = std::numeric_limits<double>::quiet_NaN();  ///< [rad]
};

/// The dt/2 batch of a run with solver.error_estimate.
class HalfStepRun {
 public:
  /// models: the main batch's instance models (copies; their dt is halved here), options:
  /// the main Simulator's. Creates the second Simulator and gives every instance the main
  /// batch's assembled state and status (so both start from the same state whatever the
  /// assembly would give at another dt). Throws as Simulator::create.
  HalfStepRun(std::vector<Model> models, const SimulatorOptions& options, const Simulator& main);
  /// Queues 2 k steps of dt/2.
  void advance(int k) { sim_->advance(2 * k); }
  Simulator& simulator() { return *sim_; }
  const Simulator& simulator() const { return *sim_; }
  /// Writes /error_estimate/{position, orientation} comparing the main batch's current state
  /// with this one's (both at the same time; once per file, by the session that ends the
  /// run) and returns their largest values. Throws h5::H5Error when a write fails.
  ErrorEstimateSummary write(Recorder& recorder, const Simulator& main, int order) const;

 private:
  std::unique_ptr<Simulator> sim_;
};

}  // namespace simphant
