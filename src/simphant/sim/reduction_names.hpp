#pragma once
// Names, components and units of the per-instance reductions over time
// (formulas/reductions.hpp; HDF5 /reductions/<quantity>/..., io/reductions_writer.hpp).
#include <string>
#include <vector>

#include "simphant/formulas/reductions.hpp"
#include "simphant/model/model.hpp"

namespace simphant {

/// The dataset name of quantity q: "reactions", "joint_loads", "bearing_loads",
/// "driver_loads", "constraint_violation", "energy", "joint_coordinates", "power", "contacts"
/// (reduction_names() of model/output_settings.hpp, whose order ReductionQuantity follows).
const char* reduction_quantity_name(ReductionQuantity q);

/// The statistic names in read order: "max", "min", "mean", "rms", "time_of_max".
const char* reduction_stat_name(int s);

/// Whether the model is a robot in joint coordinates (solver aba or cga), whose runs
/// have the reductions energy and contacts only (sim/reduced_backend.hpp).
bool joint_space_reductions(const Model& model);

/// Whether a robot in joint coordinates has reduction quantity q: energy and contacts.
bool joint_space_has(ReductionQuantity q);

/// Quantities from their names: "all" (every quantity; driver_loads only when the model
/// has drivers, contacts only when it has contact pairs; for joint_space, a robot in joint
/// coordinates, energy and contacts), "none" or an empty list (none), else each name once.
/// Throws std::invalid_argument naming `where` and the unknown or repeated name, or a
/// quantity joint_space has not.
std::vector<ReductionQuantity> parse_reduction_quantities(const std::vector<std::string>& names, int n_drivers,
                                                          const std::string& where, int n_contact_pairs = 0,
                                                          bool joint_space = false);

/// The check of a joint-space backend's set_reductions (sim/reduced_backend.hpp, the GPU's
/// too): throws BackendError naming `backend` and the first quantity other than energy
/// and contacts.
void check_joint_space_reductions(const std::string& backend, const std::vector<ReductionQuantity>& quantities);

/// Whether a run of this model forms the energy balance (job/energy_check.hpp; docs/
/// solver.md, "Energy balance"), accumulating the power channel for it: a model with an
/// element that can do work -- a driver, a point force, torque or actuator, a
/// spring-damper -- whatever its values (so that every instance and every shard of a
/// design agrees), on a fixed-step integrator (one power sample per step of its own);
/// not a robot in joint coordinates (joint_space_reductions: no power channel).
bool forms_energy_balance(const Model& model);

/// The quantities a run of this model accumulates: its output.reductions (errors name
/// `where`) and power where it forms the energy balance.
std::vector<ReductionQuantity> run_reduction_quantities(const Model& model, const std::string& where);

/// The layout a run of this model accumulates (run_reduction_quantities), for memory
/// estimates: none where the model's output.reductions is refused (the run itself
/// reports that, naming the field).
ReductionLayout estimated_reduction_layout(const Model& model);

/// The layout (make_reduction_layout) of a list of quantities for the model's joints,
/// drivers and contact pairs, sampled by a run of its integrator (grid_samples: all but
/// dopri5, whose samples are its accepted steps' ends).
ReductionLayout reduction_layout_of(const std::vector<ReductionQuantity>& quantities, const Model& model);

/// The trailing component names of one frame of quantity q (reactions: the 8 of
/// formulas/reductions.hpp; joint_loads: f_a f_b f_v m_a m_b m_v; bearing_loads:
/// axial_force radial_force axial_moment bending_moment; driver_loads: the driver names;
/// joint_coordinates: the joint names; contacts: normal_force friction_force penetration
/// count (kContactTable); the scalar quantities: their own name) and their
/// units ([N], [N m], [J], [rad], [m], "1" for dimensionless; a joint coordinate that is
/// not defined: "").
std::vector<std::string> reduction_components(ReductionQuantity q, const Model& model,
                                              const std::vector<std::string>& driver_names);
std::vector<std::string> reduction_units(ReductionQuantity q, const Model& model, const std::vector<std::string>& driver_units);

}  // namespace simphant
