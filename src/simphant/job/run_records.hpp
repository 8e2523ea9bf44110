#pragma once
// What the job runner (job/run_job.hpp) writes into a run's file besides the frames: the
// recorder's description of the run, the assembly record, the load indeterminacy, the
// failed instances of the summary and the stop reason of a failed write.
#include <string>
#include <vector>

#include "simphant/io/h5_file.hpp"
#include "simphant/io/recorder.hpp"
#include "simphant/job/job_options.hpp"
#include "simphant/job/run_stats.hpp"
#include "simphant/job/run_summary.hpp"
#include "simphant/job/shard.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant::job_detail {

/// Whether the run records /joint_loads and /bearing_loads: a backend with the DAE state
/// (13 numbers per body: joint reactions exist) and joints.
bool records_joint_loads(const Simulator& sim);

/// Whether the run records /contact_impulses: output.datasets selects it and the step
/// loop samples the contact forces every step (ContactImpulses::applies: the contacts
/// reductions over time on a backend with them, a fixed-step integrator).
bool records_contact_impulses(const Simulator& sim);

/// The drivers' names, and the units of their loads: "N m" for an angle, "N" for a slide.
std::vector<std::string> driver_names(const Model& model);
std::vector<std::string> driver_units(const Model& model);

/// Names the joint-load components that redundant rows leave statically indeterminate at
/// instance 0's state (dynamics/load_indeterminacy.hpp) in the attribute
/// statically_indeterminate of /joint_loads and /bearing_loads (where the file has them)
/// (frame datasets) or of their /reductions groups (reductions); nothing when none is.
void write_indeterminacy(hid_t file, const Simulator& sim, bool reductions);

/// The recorder's description of the run (io/recorder.hpp): its names, scene, solver
/// settings (`solver`: the run's), backend, design, provenance and frame datasets.
RecorderInfo recorder_info(const Simulator& sim, const Scene& scene, const JobOptions& o, const SolverSettings& solver,
                           const ShardSlice& shard, const std::string& start_time, const std::string& input_files);

/// Writes /assembly/* (unless recorder is null: a resumed run's file has them) and
/// returns the maxima over the instances that assembled and the count of the values the
/// scene gave that assembly changed by more than 1 % (kGivenValueChange in
/// dynamics/assembly.hpp). Unless the sweep moves joint frames (swept_paths holds a
/// joints.NAME.frame* path: a tolerance study, where the given positions cannot fit every
/// instance), appends a warning for each such value, naming the instance, the body, the
/// given and the achieved value (the first few; the rest counted).
AssemblySummary record_assembly(const Simulator& sim, Recorder* recorder, const std::vector<std::string>& swept_paths,
                                std::vector<std::string>& warnings);

/// The first kFailedListed failed instances by status time, then index.
std::vector<FailedInstance> first_failed(const std::vector<std::int8_t>& status, const std::vector<double>& status_time,
                                         const std::vector<std::int8_t>& reason, const std::vector<AssemblyResult>& assembly);

/// The stop_reason of a failed write of `out`, naming the system error when there is one.
std::string write_failure(const h5::H5Error& e, const std::string& out);

}  // namespace simphant::job_detail
