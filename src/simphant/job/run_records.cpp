#include "simphant/job/run_records.hpp"

#include <algorithm>
#include <cerrno>

#include "simphant/core/host_info.hpp"
#include "simphant/dynamics/load_indeterminacy.hpp"
#include "simphant/job/contact_impulses.hpp"
#include "simphant/model/components.hpp"
#include "simphant/sim/contact_frames.hpp"

namespace simphant::job_detail {

namespace {

/// Most warnings of values assembly changed (AssemblyResult::changed_values) listed (the
/// rest are counted).
constexpr int kChangeWarningsListed = 5;

}  // namespace

std::vector<std::string> driver_names(const Model& model) {
  std::vector<std::string> names;
  for (const Driver& dr : model.drivers) names.push_back(dr.name);
  return names;
}

std::vector<std::string> driver_units(const Model& model) {
  std::vector<std::string> units;
  for (const Driver& dr : model.drivers) units.push_back(dr.coordinate == JointCoordinate::Angle ? "N m" : "N");
  return units;
}

bool records_joint_loads(const Simulator& sim) {
  return sim.model().n_joints() > 0 && sim.state_size() == 13 * sim.model().n_bodies();
}

bool records_contact_impulses(const Simulator& sim) {
  const std::vector<std::string>& selected = sim.model().output.datasets;
  return ContactImpulses::applies(sim) &&
         std::find(selected.begin(), selected.end(), "contact_impulses") != selected.end();
}

void write_indeterminacy(hid_t file, const Simulator& sim, bool reductions) {
  if (!records_joint_loads(sim)) return;
  // From the full Phi_q: a removed redundant row's load is as indeterminate as the rest
  // of its self-stress (dynamics/redundant_rows.hpp).
  Model model = sim.model();
  model.removed_rows.clear();
  const int first = 0;
  std::vector<double> y(static_cast<std::size_t>(sim.state_size()));
  sim.get_state(&first, 1, y.data(), nullptr, nullptr, nullptr, nullptr);
  Data d(model);
  const LoadIndeterminacy a = analyse_load_indeterminacy(model, d, y.data());
  for (const bool bearing : {false, true}) {
    const std::vector<std::string> text = indeterminate_components(model, a, bearing);
    if (text.empty()) continue;
    const std::string name = bearing ? "bearing_loads" : "joint_loads";
    const std::string path = reductions ? "reductions/" + name : name;
    if (h5::exists(file, path)) {
      const h5::Handle obj(H5Oopen(file, path.c_str(), H5P_DEFAULT), H5Oclose);
      if (obj.valid()) h5::write_attr(obj.id(), "statically_indeterminate", text);
    }
  }
}

RecorderInfo recorder_info(const Simulator& sim, const Scene& scene, const JobOptions& o, const SolverSettings& solver,
                           const ShardSlice& shard, const std::string& start_time, const std::string& input_files) {
  RecorderInfo info;
  info.input_files = input_files;
  if (shard.count > 1) {
    info.shard_index = shard.index;
    info.shard_count = shard.count;
    info.instance_offset = shard.begin;
    info.n_instances_total = shard.total;
  }
  info.n_instances = sim.n_instances();
  for (const Body& b : sim.model().bodies) info.body_names.push_back(b.name);
  for (const Joint& j : sim.model().joints) info.joint_names.push_back(j.name);
  info.scene_text = scene.text;
  info.scene_file = o.scene;
  info.solver = solver;
  info.backend = sim.backend_name();
  info.seed = scene.sweep.seed;
  const SweepSpec& sweep = scene.sweep;
  if (!sweep.parameters.empty()) info.sweep_mode = sweep_mode_name(sweep.mode);
  info.saltelli_base = sweep.saltelli_base;
  info.saltelli_second_order = sweep.saltelli_second_order ? 1 : 0;
  info.sweep_design_file = sweep.design_file;
  info.sweep_design_crc64 = sweep.design_crc64;
  info.params_problem = salib_problem(sweep);
  info.output = scene.model.output;
  if (sim.n_joint_coordinates() > 0) {
    info.joint_coordinate_names = info.joint_names;  // joint k = coordinate k
    for (const Joint& j : sim.model().joints)
      info.joint_coordinate_units.push_back(j.type == JointType::Prismatic ? "m" : "rad");
  }
  info.git_commit = o.git_commit;
  info.buffer_frames = static_cast<hsize_t>(std::max(0, o.record_buffer_frames));
  info.command_line = o.command_line;
  info.host = host_name();
  // A device backend's details name the GPU; a CPU backend's the threads, so add the CPU.
  info.device = sim.backend_details();
  if (info.device.rfind("cuda", 0) != 0) info.device += "; " + cpu_model_name();
  info.start_time = start_time;
  // The drivers' loads (contract of docs/solver.md, "Rheonomic drivers"): the torque
  // [N m] or force [N] each driver applies to its joint's body_j along the joint axis.
  if (sim.n_drivers() > 0) {
    info.driver_names = driver_names(sim.model());
    const std::vector<std::string> units = driver_units(sim.model());
    info.frame_datasets.push_back({"driver_loads", "driver_loads",
                                   {static_cast<hsize_t>(sim.n_instances()), static_cast<hsize_t>(sim.n_drivers())},
                                   {"instance", "driver"}, units,
                                   "torque or force each driver applies to its joint's body_j along the joint axis",
                                   {{"driver", info.driver_names}}});
  }
  // The joint-frame loads, on the backends that integrate the constraint forces (the
  // DAE state: 13 numbers per body), computed on the host from each frame's states and
  // reactions (sim/joint_load_frames.hpp).
  if (records_joint_loads(sim)) {
    const auto I = static_cast<hsize_t>(sim.n_instances()), J = static_cast<hsize_t>(sim.model().n_joints());
    info.frame_datasets.push_back({"joint_loads", "joint_loads", {I, J, 6}, {"instance", "joint", "joint_load_component"},
                                   component_units(kJointLoadTable),
                                   "force and moment each joint applies to its body_i about body_i's anchor, on its "
                                   "joint frame (a_i, b_i, v_i)",
                                   {{"joint_load_component", component_names(kJointLoadTable)}}});
    info.frame_datasets.push_back(
        {"bearing_loads", "bearing_loads", {I, J, 4}, {"instance", "joint", "bearing_component"},
         component_units(kBearingTable),
         "axial force, radial force, axial moment and bending moment of each joint on its body_i",
         {{"bearing_component", component_names(kBearingTable)}}});
  }
  // The forward sensitivities of the state (docs/sensitivities.md), per parameter.
  if (const int S = sim.n_sensitivities(); S > 0) {
    const auto I = static_cast<hsize_t>(sim.n_instances()), B = static_cast<hsize_t>(sim.model().n_bodies());
    info.frame_datasets.push_back(
        {"state_sensitivities", "state_sensitivities", {I, B, 13, static_cast<hsize_t>(S)},
         {"instance", "body", "state_component", "parameter"}, {"state unit / parameter unit"},
         "d(state)/d(parameter): the derivative of each body state entry (the layout of /state) with respect to each "
         "sensitivities.parameters value, in the state's unit per the parameter's scene unit",
         {{"parameter", sim.sensitivity_paths()}}});
    if (const auto J = static_cast<hsize_t>(sim.model().n_joints()); J > 0)
      info.frame_datasets.push_back(
          {"reaction_sensitivities", "reaction_sensitivities", {I, J, 6, static_cast<hsize_t>(S)},
           {"instance", "joint", "reaction_component", "parameter"}, {"reaction unit / parameter unit"},
           "d(reactions)/d(parameter): the derivative of each joint's reaction (the layout of /reactions) with respect "
           "to each sensitivities.parameters value, in the reaction's unit per the parameter's scene unit",
           {{"parameter", sim.sensitivity_paths()}}});
    const auto P = static_cast<hsize_t>(S);
    if (const auto J = static_cast<hsize_t>(sim.model().n_joints()); J > 0 && records_joint_loads(sim)) {
      info.frame_datasets.push_back(
          {"joint_load_sensitivities", "joint_load_sensitivities", {I, J, 6, P},
           {"instance", "joint", "joint_load_component", "parameter"}, {"joint load unit / parameter unit"},
           "d(joint_loads)/d(parameter): the derivative of each joint's load on its joint frame (the layout of "
           "/joint_loads, the frame's own motion included) with respect to each sensitivities.parameters value",
           {{"joint_load_component", component_names(kJointLoadTable)}, {"parameter", sim.sensitivity_paths()}}});
      info.frame_datasets.push_back(
          {"bearing_load_sensitivities", "bearing_load_sensitivities", {I, J, 4, P},
           {"instance", "joint", "bearing_component", "parameter"}, {"bearing load unit / parameter unit"},
           "d(bearing_loads)/d(parameter): the derivative of each joint's axial and radial force and axial and "
           "bending moment (the layout of /bearing_loads) with respect to each sensitivities.parameters value",
           {{"bearing_component", component_names(kBearingTable)}, {"parameter", sim.sensitivity_paths()}}});
    }
    if (sim.n_drivers() > 0)
      info.frame_datasets.push_back(
          {"driver_load_sensitivities", "driver_load_sensitivities",
           {I, static_cast<hsize_t>(sim.n_drivers()), P}, {"instance", "driver", "parameter"},
           {"driver load unit / parameter unit"},
           "d(driver_loads)/d(parameter): the derivative of each driver's torque or force with respect to each "
           "sensitivities.parameters value",
           {{"driver", driver_names(sim.model())}, {"parameter", sim.sensitivity_paths()}}});
    info.frame_datasets.push_back(
        {"energy_sensitivities", "energy_sensitivities", {I, P}, {"instance", "parameter"}, {"J / parameter unit"},
         "d(energy)/d(parameter): the derivative of the kinetic, gravity and spring potential energy with respect "
         "to each sensitivities.parameters value",
         {{"parameter", sim.sensitivity_paths()}}});
    if (const auto C = static_cast<hsize_t>(sim.n_joint_coordinates()); C > 0) {
      const std::vector<std::string> dims = {"instance", "joint_coordinate", "parameter"};
      for (const auto& [name, what] : {std::pair<const char*, const char*>{"q", "joint position"},
                                       {"qd", "joint rate"},
                                       {"tau", "applied joint torque / force"}})
        info.frame_datasets.push_back(
            {"joint_state_sensitivities", std::string("joint_state_sensitivities/") + name, {I, C, P}, dims,
             {std::string(what) + " unit / parameter unit"},
             std::string("d(joint_state/") + name + ")/d(parameter): the derivative of each " + what +
                 " (the layout of /joint_state/" + name + ") with respect to each sensitivities.parameters value",
             {{"parameter", sim.sensitivity_paths()}}});
    }
  }
  if (records_contact_impulses(sim))
    info.frame_datasets.push_back(
        {"contact_impulses", "contact_impulses",
         {static_cast<hsize_t>(sim.n_instances()), static_cast<hsize_t>(sim.model().contact_pair_count())},
         {"instance", "contact_pair"}, {"N s"},
         "per contact pair: its normal impulse over the interval since the previous frame, the normal force "
         "integrated by the trapezoid rule over every step (0 at the first frame)",
         {{"contact_pair", contact_pair_names(sim.model())}}});
  // The contact pairs, computed on the host from each frame's states (sim/contact_frames.hpp).
  if (const int P = sim.model().contact_pair_count(); P > 0) {
    info.frame_datasets.push_back(
        {"contacts", "contacts", {static_cast<hsize_t>(sim.n_instances()), static_cast<hsize_t>(P),
                                  static_cast<hsize_t>(kContactRecordComponents)},
         {"instance", "contact_pair", "contact_component"}, component_units(kContactTable),
         "per contact pair: the normal force (sum over its contacts), the magnitude of its friction force, its "
         "largest penetration and its number of contacts",
         {{"contact_pair", contact_pair_names(sim.model())}, {"contact_component", component_names(kContactTable)}}});
  }
  return info;
}

AssemblySummary record_assembly(const Simulator& sim, Recorder* recorder, const std::vector<std::string>& swept_paths,
                                std::vector<std::string>& warnings) {
  AssemblySummary assembly;
  for (const std::string& p : swept_paths)
    if (p.rfind("joints.", 0) == 0 && p.find(".frame") != std::string::npos) assembly.swept_frames.push_back(p);
  const bool warn = assembly.swept_frames.empty();
  std::vector<double> pos, vel, dpos, drot, dvel, domega;
  std::vector<std::int32_t> iters;
  int instance = 0, changed = 0;
  for (const AssemblyResult& a : sim.assembly()) {
    pos.push_back(a.position_residual);
    vel.push_back(a.velocity_residual);
    iters.push_back(a.iterations);
    dpos.push_back(a.position_change);
    drot.push_back(a.orientation_change);
    dvel.push_back(a.velocity_change);
    domega.push_back(a.angular_velocity_change);
    if (a.ok) {
      assembly.max_position_residual = std::max(assembly.max_position_residual, a.position_residual);
      assembly.max_velocity_residual = std::max(assembly.max_velocity_residual, a.velocity_residual);
      assembly.max_iterations = std::max(assembly.max_iterations, a.iterations);
      assembly.max_position_change = std::max(assembly.max_position_change, a.position_change);
      assembly.max_orientation_change = std::max(assembly.max_orientation_change, a.orientation_change);
      assembly.max_velocity_change = std::max(assembly.max_velocity_change, a.velocity_change);
      assembly.max_angular_velocity_change = std::max(assembly.max_angular_velocity_change, a.angular_velocity_change);
      assembly.changed_instances += a.changed_values.empty() ? 0 : 1;
      for (const std::string& change : a.changed_values)
        if (changed++ < kChangeWarningsListed && warn)
          warnings.push_back("instance " + std::to_string(instance) + ", " + change +
                             ": assembly moved it onto Phi = 0 / Phi_q qdot = 0 (the given values do not fit the "
                             "joints)");
    }
    ++instance;
  }
  assembly.changed_values = changed;
  if (changed > kChangeWarningsListed && warn)
    warnings.push_back("... and " + std::to_string(changed - kChangeWarningsListed) +
                       " more given values assembly changed by more than 1 % (/assembly/position_change, "
                       "/assembly/velocity_change, ...)");
  if (recorder) {
    recorder->write_assembly(pos, vel, iters);
    recorder->write_assembly_changes(dpos, drot, dvel, domega);
  }
  return assembly;
}

std::vector<FailedInstance> first_failed(const std::vector<std::int8_t>& status, const std::vector<double>& status_time,
                                         const std::vector<std::int8_t>& reason, const std::vector<AssemblyResult>& assembly) {
  std::vector<FailedInstance> failed;
  for (std::size_t i = 0; i < status.size(); ++i)
    if (status[i] != 0)
      failed.push_back({static_cast<int>(i), status[i], reason[i], status_time[i],
                        status[i] == static_cast<std::int8_t>(InstanceStatus::AssemblyFailed) ? assembly[i].message : ""});
  const std::size_t k = std::min<std::size_t>(failed.size(), kFailedListed);
  std::partial_sort(failed.begin(), failed.begin() + static_cast<std::ptrdiff_t>(k), failed.end(),
                    [](const FailedInstance& a, const FailedInstance& b) {
                      return a.time_s != b.time_s ? a.time_s < b.time_s : a.instance < b.instance;
                    });
  failed.resize(k);
  return failed;
}

std::string write_failure(const h5::H5Error& e, const std::string& out) {
  switch (e.sys_errno()) {
    case ENOSPC: return "disk full (ENOSPC): " + out;
    case EDQUOT: return "disk quota exceeded (EDQUOT): " + out;
    case EFBIG: return "file size limit exceeded (EFBIG): " + out;
    default: return "write error: " + out + ": " + e.what();
  }
}

}  // namespace simphant::job_detail
