#pragma once
// The components of the vectors a run writes per body and per joint, with their units
// (README "Output (HDF5)"; docs/solver.md, "Bearing loads"): one table for the output
// file's labels and `units` attributes, the reductions over time, the load
// indeterminacy's names and, through the Python module (simphant._simphant.components),
// simphant's results and report.
//
//   for (const Component& c : kBearingTable) std::printf("%s [%s]\n", c.name, c.unit);
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace simphant {

struct Component {
  const char* name;
  const char* unit;  ///< SI, as the `units` attributes spell it ("N m", "m/s", "1")
};

/// A body's state (13): r (CoM, world), quaternion p = (w, x, y, z) (body to world),
/// v (CoM, world), omega (body frame).
inline constexpr std::array<Component, 13> kStateTable = {{{"r_x", "m"},
                                                                 {"r_y", "m"},
                                                                 {"r_z", "m"},
                                                                 {"p_w", "1"},
                                                                 {"p_x", "1"},
                                                                 {"p_y", "1"},
                                                                 {"p_z", "1"},
                                                                 {"v_x", "m/s"},
                                                                 {"v_y", "m/s"},
                                                                 {"v_z", "m/s"},
                                                                 {"omega_x", "rad/s"},
                                                                 {"omega_y", "rad/s"},
                                                                 {"omega_z", "rad/s"}}};

/// A joint's reaction (6): the force and torque it applies to its body_j at the anchor,
/// world frame.
inline constexpr std::array<Component, 6> kReactionTable = {
    {{"f_x", "N"}, {"f_y", "N"}, {"f_z", "N"}, {"tau_x", "N m"}, {"tau_y", "N m"}, {"tau_z", "N m"}}};

/// The magnitudes the reductions over time add to a reaction's components.
inline constexpr std::array<Component, 2> kReactionMagnitudeTable = {{{"|f|", "N"}, {"|tau|", "N m"}}};

/// A joint's load on its body_i about body_i's anchor, on the joint frame (a_i, b_i, v_i).
inline constexpr std::array<Component, 6> kJointLoadTable = {
    {{"f_a", "N"}, {"f_b", "N"}, {"f_v", "N"}, {"m_a", "N m"}, {"m_b", "N m"}, {"m_v", "N m"}}};

/// A joint's bearing load: axial force (signed, along v_i), radial force, axial moment
/// (signed), bending moment.
inline constexpr std::array<Component, 4> kBearingTable = {
    {{"axial_force", "N"}, {"radial_force", "N"}, {"axial_moment", "N m"}, {"bending_moment", "N m"}}};

/// A contact pair's record in a frame (docs/contact.md, "Outputs"): the normal force (the
/// sum of F_n over the pair's contacts, >= 0), the magnitude of the sum of its contacts'
/// friction forces, the largest penetration (0 when the pair is apart) and the number of
/// contacts.
inline constexpr std::array<Component, 4> kContactTable = {
    {{"normal_force", "N"}, {"friction_force", "N"}, {"penetration", "m"}, {"count", "1"}}};

/// The names of `table`, in order.
template <std::size_t N>
std::vector<std::string> component_names(const std::array<Component, N>& table) {
  std::vector<std::string> out;
  for (const Component& c : table) out.emplace_back(c.name);
  return out;
}

/// The units of `table`, in order.
template <std::size_t N>
std::vector<std::string> component_units(const std::array<Component, N>& table) {
  std::vector<std::string> out;
  for (const Component& c : table) out.emplace_back(c.unit);
  return out;
}

}  // namespace simphant
