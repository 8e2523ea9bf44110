#pragma once
// What assembling one instance gives (dynamics/assembly.hpp): read by the backends
// (sim/backend.hpp), the run's records and its summary.
#include <string>
#include <vector>

namespace simphant {

/// Result of assembling one instance (positions onto Phi = 0, velocities onto
/// Phi_q qdot = 0).
struct AssemblyResult {
  bool ok = false;
  int iterations = 0;
  double position_residual = 0;  ///< max |Phi| after assembly [m or 1]
  double velocity_residual = 0;  ///< max |Phi_q qdot| after projection
  /// Why assembly failed (empty when ok, or when it failed without one of the messages of
  /// dynamics/assembly.hpp, e.g. a stall).
  std::string message;
  // How far assembly moved the given initial state, max over the bodies:
  double position_change = 0;          ///< |r - r_0| [m]
  double orientation_change = 0;       ///< rotation angle between p and p_0 [rad]
  double velocity_change = 0;          ///< |v - v_0| [m/s]
  double angular_velocity_change = 0;  ///< |omega_B - omega_0B| [rad/s]
  /// The body whose given (non-zero) velocity the projection changed most in relative
  /// terms, max(|v - v_0| / |v_0|, |omega - omega_0| / |omega_0|) over the non-zero ones;
  /// -1 when no body was given a velocity.
  int velocity_change_body = -1;
  double velocity_change_rel = 0;  ///< that relative change
  /// One line per value the scene gave that assembly changed by more than 1 %
  /// (kGivenValueChange in dynamics/assembly.hpp), naming the body, the quantity, the
  /// given and the achieved value; the run summary lists them as warnings.
  std::vector<std::string> changed_values;
};

}  // namespace simphant
