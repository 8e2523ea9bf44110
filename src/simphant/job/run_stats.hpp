#pragma once
// Run statistics for the summary of a job (`simphant run`, run_job.hpp): per-instance maxima of the
// constraint violation and of the energy drift, reduced over the instances whose final
// status is ok.
//
// Relative energy drift of instance k, over the recorded frames (E = kinetic + gravity
// + spring potential, KE = kinetic energy alone):
//
//   max_t |E_k(t) - E_k(0)| / max(|E_k(0)|, max_t KE_k(t), 1e-12)
//
// The peak kinetic energy is in the denominator because the zero of the gravity
// potential is arbitrary: a pendulum released at its pivot's height has E(0) = 0, and
// |E(0)| alone would turn round-off into a huge "relative" drift. The absolute drift
// max_t |E_k(t) - E_k(0)| [J] is reported beside it.
#include <cstdint>
#include <string>
#include <vector>

namespace simphant {

class RunStats {
 public:
  explicit RunStats(int n_instances);
  /// One recorded frame at time t [s]: each instance's status at the frame (I; 0 ok),
  /// violation (I), total energy (I), kinetic energy (I). An instance whose status is not
  /// ok is left out of the frame: it is frozen at its failure (sim/backend.hpp), so its
  /// later frames are not results of the integration, and a shard that ends when all its
  /// instances have failed (job/merge.hpp) keeps the same figures as the one-shot run.
  void add_frame(double t, const std::int8_t* status, const double* violation, const double* energy,
                 const double* kinetic);

  /// Instance k's relative energy drift (above) over its frames so far; 0 before a second
  /// frame (or when its status was not ok at the first).
  double relative_drift(int k) const;
  /// The frame time [s] of instance k's largest |E - E(0)|; NaN before a second frame.
  double drift_time(int k) const;
  /// E at instance k's last frame minus E(0) [J]; NaN before a second frame (the energy
  /// balance, job/energy_check.hpp).
  double energy_change(int k) const;
  /// The denominator of relative_drift: max(|E(0)|, peak kinetic energy, 1e-12 J).
  double energy_scale(int k) const;

  struct Summary {
    int n_instances = 0, n_ok = 0, n_assembly_failed = 0, n_diverged = 0;
    double max_violation = 0;      ///< over ok instances and frames
    double max_rel_drift = 0;      ///< over ok instances
    double max_abs_drift = 0;      ///< [J], over ok instances
  };
  /// Reduces over the instances whose status is 0 (ok).
  Summary reduce(const std::vector<std::int8_t>& status) const;

  /// Everything add_frame has accumulated, per instance (I) each: stored in a checkpoint
  /// (job/checkpoint.hpp) so that a resumed run reduces to the same summary.
  struct Saved {
    bool have_e0 = false;  ///< a first frame was added (e0 holds its energies)
    std::vector<double> e0, max_violation, max_abs_drift, max_ke, drift_time, e_last;
  };
  Saved save() const { return {have_e0_, e0_, max_violation_, max_abs_drift_, max_ke_, drift_time_, e_last_}; }
  /// Continues from a save() of a RunStats of the same number of instances; throws
  /// std::invalid_argument when an array has another length.
  void restore(const Saved& saved);

 private:
  int n_;
  bool have_e0_ = false;
  std::vector<double> e0_, max_violation_, max_abs_drift_, max_ke_, drift_time_;
  std::vector<double> e_last_;  ///< E at the last frame after E(0) (NaN: none)
};

/// Assembly residuals over the instances that assembled, and how far assembly moved the
/// given initial states (AssemblyResult in sim/backend.hpp).
struct AssemblySummary {
  double max_position_residual = 0;  ///< max |Phi|
  double max_velocity_residual = 0;  ///< max |Phi_q qdot|
  int max_iterations = 0;
  double max_position_change = 0;    ///< max |r - r_0| over instances and bodies [m]
  double max_orientation_change = 0; ///< [rad]
  double max_velocity_change = 0;    ///< max |v - v_0| [m/s]
  double max_angular_velocity_change = 0;  ///< max |omega_B - omega_0B| [rad/s]
  /// Given values that assembly changed by more than 1 % (AssemblyResult::changed_values),
  /// over the assembled instances, and the instances that had any.
  int changed_values = 0, changed_instances = 0;
  /// The swept paths that move joint frames (joints.NAME.frame*...): with them the given
  /// positions cannot fit every instance, and the changes are expected, not warned of.
  std::vector<std::string> swept_frames;
};

}  // namespace simphant
