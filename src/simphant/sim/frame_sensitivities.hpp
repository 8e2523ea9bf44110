#pragma once
// Where the derivatives of a recorded frame go (Simulator::read_frame_sensitivities,
// SensitivityEngine::read_frame; docs/sensitivities.md).

namespace simphant {

/// Where Simulator::read_frame_sensitivities writes the derivatives of a recorded frame's
/// quantities with respect to the S parameters (last axis); a null pointer: not wanted.
struct FrameSensitivities {
  double* reactions = nullptr;      ///< (n, J, 6, S): d(/reactions)
  double* joint_loads = nullptr;    ///< (n, J, 6, S): d(/joint_loads)
  double* bearing_loads = nullptr;  ///< (n, J, 4, S): d(/bearing_loads)
  double* driver_loads = nullptr;   ///< (n, D, S): d(/driver_loads)
  double* energy = nullptr;         ///< (n, S): d(/energy)
  double* kinetic = nullptr;        ///< (n, S): d(kinetic energy) (Backend::read_energy's kinetic)
  /// (n, C, S) each, robot scenes (C = Backend::n_joint_coordinates):
  /// d(/joint_state/q), d(/joint_state/qd), d(/joint_state/tau).
  double* joint_q = nullptr;
  double* joint_qd = nullptr;
  double* joint_tau = nullptr;
};

}  // namespace simphant
