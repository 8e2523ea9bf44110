#pragma once
// The energy check of a run (docs/solver.md, "Energy check"). The recorded energy E is
// kinetic + gravity potential + spring potential (/energy). Ideal joints, Baumgarte's
// terms on the constraint manifold and gyroscopic torques do no work, so E is a constant
// of the exact motion when nothing else acts: then an energy error beyond a bound
// derived from the precision (and, for the adaptive integrators, their tolerance) means
// the run has lost the accuracy it reports, and the instance is flagged. Any damper,
// driver, actuator, joint law or applied load makes E change by the work W it does
// (formulas/power_math.hpp); the run then integrates their power inside the step loop
// (the power channel of the reductions over time, Gregory's rule of formulas/reductions.hpp)
// and reports the energy balance E(T) - E(0) - W, an error of the run like a
// conservative model's E(T) - E(0): its integration error plus the quadrature's.
//
// Written per instance to the output, once by the session that ends the run:
//   /energy_check/relative_error (I) [1]  max over the frames of |E(t) - E(0)| / scale
//                                         (RunStats: scale = max(|E(0)|, peak kinetic energy))
//   /energy_check/time           (I) [s]  the frame time of that maximum (NaN: no frame after the first)
//   /energy_check/conservative   (I) int64 1 where the instance's model conserves E
//   /energy_check/work           (I) [J]  W over the run (with a balance)
//   /energy_check/balance        (I) [J]  E(T) - E(0) - W at the last frame (with a balance)
//   /energy_check/balance_relative (I) [1] |balance| / max(|E(0)|, peak kinetic energy, |W|)
// with the attribute `bound` on /energy_check (NaN where no bound applies). A run has a
// balance where forms_energy_balance says so (sim/reduction_names.hpp: a model with an
// element that can do work, whatever the sweep makes of its values, on a fixed-step
// integrator; bdf samples the grid, which resolves neither its steps nor the stiff modes
// it is chosen for) and on the DAE path (a joint-space robot's reductions have no power
// channel); NaN for an instance that is not ok. An ok instance of a model that does not conserve E whose balance passes the
// bound (or is NaN) is flagged as a conservative one is by its energy error.
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/io/recorder.hpp"
#include "simphant/job/run_stats.hpp"
#include "simphant/model/model.hpp"

namespace simphant {

/// Most instances listed by energy_check_warnings (the rest are counted).
constexpr int kEnergyWarningsListed = 10;

/// The elements of a model that change E by their work, each named by its scene path and
/// why, e.g. "forces.crank_damper (damping)", "drivers.crank (rheonomic driver)",
/// "robot joint 'elbow' (servo, limits)" (a robot's actuators carry its joint laws), a
/// contact pair by its element name, "contact ground ball[0] (contact damping, friction or
/// rolling resistance)"; empty when the model conserves E.
std::vector<std::string> energy_sources(const Model& model);

/// The relative bound of the energy check for a run of these settings at this precision
/// ("fp64" | "fp32"): u^(1/3) of the precision's unit roundoff u (fp64 2^-53: 4.8e-6,
/// fp32 2^-24: 3.9e-3) for rk4; max(u^(1/3), 100 rtol) for dopri5 and bdf, whose error follows their
/// tolerance; NaN (no bound) for euler and symplectic_euler, whose energy error is of
/// first order in dt by design (docs/solver.md, "Integrators").
double energy_error_bound(const SolverSettings& solver, const std::string& precision);

/// The check over a run's instances.
struct EnergyCheck {
  double bound = 0;                  ///< energy_error_bound; NaN: none applies
  std::vector<std::int64_t> conservative;  ///< (I) 1 where energy_sources(instance model) is empty
  std::vector<std::string> sources;  ///< energy_sources over the instances, each once, first seen first
  std::vector<double> relative_error, time;  ///< (I) RunStats::relative_drift and its time
  std::vector<int> flagged;          ///< conservative ok instances above the bound, the largest first
  bool balanced = false;             ///< the run integrated the work W (balance_integrator)
  std::vector<double> work, balance, balance_relative;  ///< (I) with balanced: as the datasets above
  std::vector<int> balance_flagged;  ///< ok instances of other models whose balance passed the bound, the largest first
};



/// Per-instance conservation of the n_instances instances (before the run; models as
/// built by build_instance_models: one per instance, or one shared by all).
EnergyCheck energy_account(const std::vector<Model>& models, int n_instances, const std::string& precision);

/// Fills relative_error, time and flagged from the run's statistics and final status
/// (0 ok), and with `work` ((I) [J], W per instance; null: none) sets balanced, the
/// balance and balance_flagged. A NaN error of an ok instance is flagged.
void finish_energy_check(EnergyCheck& check, const RunStats& stats, const std::vector<std::int8_t>& status,
                         const std::vector<double>* work);

/// One warning per flagged instance (at most kEnergyWarningsListed, then a count).
std::vector<std::string> energy_check_warnings(const EnergyCheck& check);

/// Writes the /energy_check datasets above. Throws h5::H5Error when a write fails.
void write_energy_check(Recorder& recorder, const EnergyCheck& check);

}  // namespace simphant
