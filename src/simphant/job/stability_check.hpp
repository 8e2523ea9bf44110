#pragma once
// The step-size stability check at load (dynamics/stability.hpp; docs/solver.md,
// "Step-size stability", "Integrators"): `simphant run` warns of a mode within a factor 2
// of the fixed-step integrator's stability limit and refuses (exit 2) a dt beyond it
// unless solver.allow_unstable is true; `simphant check` prints the estimate.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/model/model.hpp"

namespace simphant {

struct StabilityCheck {
  /// {"dt_s", "allow_unstable", "integrator", "modes": [{field, name, lambda_re, lambda_im
  /// (1/s), lambda_dt (|lambda| dt), effective_inverse_mass, dt_max_s (the integrator's
  /// refusal limit: its stability limit; explicit Euler's 2 / |lambda|), ratio (dt /
  /// dt_max_s), instance, verdict ("ok", "warn", "unstable")}]}, slowest-to-stable first.
  /// The adaptive integrators (dopri5, bdf) choose their own steps: no modes.
  nlohmann::json estimate;
  /// One per mode above kStabilityWarnRatio: within the limit, or beyond it when
  /// solver.allow_unstable is true (else the refusal below says it); with explicit Euler
  /// also one per mode it amplifies (|1 + lambda dt| > 1) inside the refusal limit.
  std::vector<std::string> warnings;
  std::string refused_field;   ///< JSON pointer of the first unstable mode's field; "" if none
  std::string refused_reason;  ///< its message (without the field)
};

/// Estimates the modes of models[0] at its assembled state and, with its effective
/// masses, those of every other instance's parameters (rescale_modes); `doc` (the
/// scene document) names the fields. Models without constraint rows and spring-dampers
/// have no modes. Robot scenes integrated in joint coordinates (aba, cga) have no
/// Baumgarte mode. A robot scene adds one mode per joint with joint forces
/// (robot_joint_modes, dynamics/robot_stability.hpp), made from each instance's own
/// gains and effective inertia. A model that does not assemble is estimated at its last
/// iterate. A scene with contact adds three modes per contact pair per instance
/// (contact_modes, dynamics/contact_stability.hpp): the normal force (refused beyond its
/// limit as a spring; warned of below kContactStepsWarn steps per contact) and the
/// friction and rolling resistance (bounded forces: warned of, never refused).
StabilityCheck check_step_stability(const std::vector<Model>& models, const nlohmann::json& doc);

}  // namespace simphant
