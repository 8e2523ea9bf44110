#pragma once
// Which joint-load components are statically indeterminate (docs/solver.md, "Bearing
// loads"): where Phi_q has redundant rows (dynamics/constraint_analysis.hpp), the
// multipliers are unique only up to the left null space of Phi_q -- self-stresses mu
// with Phi_q^T mu = 0, which move no body -- and the regularised solve picks the
// minimum-norm lambda among them, not the physical one (which depends on the
// compliance of the parts). A joint-load component is indeterminate when some
// self-stress, taken as lambda, loads it (joint_reaction and joint_loads_from_reaction
// of mu); the others are the same for every lambda that gives the motion.
#include <array>
#include <string>
#include <vector>

#include "simphant/dynamics/data.hpp"

namespace simphant {

struct LoadIndeterminacy {
  int self_stresses = 0;  ///< dimension of the left null space of Phi_q (m - rank: the redundant rows)
  std::vector<std::array<bool, 6>> loads;    ///< (J) per joint-load component f_a .. m_v
  std::vector<std::array<bool, 4>> bearing;  ///< (J) per bearing component
};

/// Relative size below which a self-stress's load on a component counts as zero: its
/// load over the largest load that self-stress puts on any component of any joint.
constexpr double kIndeterminacyTolerance = 1e-8;

/// The analysis at Y (13N): the self-stresses from the rank analysis of Phi_q
/// (dynamics/row_qr.hpp: one per redundant row, that row against the rows kept before it;
/// together they span the left null space), each self-stress's joint loads. Every entry
/// false when Phi_q has full row rank. Throws Interrupted on a stop request.
LoadIndeterminacy analyse_load_indeterminacy(const Model& model, Data& d, const double* Y);

/// Attribute text per affected joint, "<joint name>: <component> <component> ...", with
/// the component names of /joint_loads (bearing = false: f_a f_b f_v m_a m_b m_v) or
/// /bearing_loads (axial_force radial_force axial_moment bending_moment); empty when
/// none is indeterminate.
std::vector<std::string> indeterminate_components(const Model& model, const LoadIndeterminacy& a, bool bearing);

}  // namespace simphant
