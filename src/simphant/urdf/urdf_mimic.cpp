// resolve_mimics (urdf_detail.hpp): URDF <mimic> -> ReducedLink::mimic, mimic_multiplier,
// mimic_offset. A chain of mimics (a follows b, b follows c) is resolved to the leader c
// by composing the affine maps; what has no coordinate to follow is an error.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <urdf_model/model.h>

#include "simphant/urdf/urdf_detail.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant::urdf_detail {

namespace {

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

}  // namespace

void resolve_mimics(const urdf::ModelInterface& model, ReducedModel& rm, const std::string& prefix) {
  const int n = rm.nq();
  std::map<std::string, int> index;  // moving joint name -> link index
  for (int k = 0; k < n; ++k) index[rm.links[static_cast<std::size_t>(k)].joint_name] = k;

  // Direct mimics: follows[k] = the link whose coordinate link k's joint names (-1 none),
  // with q_k = mult[k] q_follows[k] + off[k].
  std::vector<int> follows(static_cast<std::size_t>(n), -1);
  std::vector<double> mult(static_cast<std::size_t>(n), 1.0), off(static_cast<std::size_t>(n), 0.0);
  for (int k = 0; k < n; ++k) {
    const ReducedLink& l = rm.links[static_cast<std::size_t>(k)];
    const urdf::JointConstSharedPtr j = model.getJoint(l.joint_name);
    if (!j || !j->mimic) continue;
    const urdf::JointMimic& m = *j->mimic;
    const std::string where = prefix + ": joint '" + l.joint_name + "': mimic";
    if (!std::isfinite(m.multiplier) || !std::isfinite(m.offset))
      throw UrdfError(where + ": multiplier and offset must be finite (got " + fmt(m.multiplier) + ", " +
                      fmt(m.offset) + ")");
    if (m.joint_name == l.joint_name) throw UrdfError(where + ": the joint mimics itself");
    const auto it = index.find(m.joint_name);
    if (it == index.end()) {
      const urdf::JointConstSharedPtr t = model.getJoint(m.joint_name);
      if (!t) throw UrdfError(where + ": no joint '" + m.joint_name + "'");
      throw UrdfError(where + ": joint '" + m.joint_name + "' has no coordinate to follow (only revolute, continuous "
                      "and prismatic joints can be mimicked)");
    }
    follows[static_cast<std::size_t>(k)] = it->second;
    mult[static_cast<std::size_t>(k)] = m.multiplier;
    off[static_cast<std::size_t>(k)] = m.offset;
  }

  // Chains: follow to a leader that mimics nothing, composing
  // q_a = m_a (m_b q_c + o_b) + o_a = (m_a m_b) q_c + (m_a o_b + o_a).
  for (int k = 0; k < n; ++k) {
    if (follows[static_cast<std::size_t>(k)] < 0) continue;
    int leader = follows[static_cast<std::size_t>(k)];
    double a = mult[static_cast<std::size_t>(k)], b = off[static_cast<std::size_t>(k)];
    std::string chain = rm.links[static_cast<std::size_t>(k)].joint_name;
    for (int steps = 0; follows[static_cast<std::size_t>(leader)] >= 0; ++steps) {
      chain += " -> " + rm.links[static_cast<std::size_t>(leader)].joint_name;
      if (leader == k || steps > n)
        throw UrdfError(prefix + ": joint '" + rm.links[static_cast<std::size_t>(k)].joint_name +
                        "': mimic: a cycle of mimic joints (" + chain + "): no joint of it has a free coordinate");
      const std::size_t L = static_cast<std::size_t>(leader);
      b = a * off[L] + b;
      a = a * mult[L];
      leader = follows[L];
    }
    ReducedLink& l = rm.links[static_cast<std::size_t>(k)];
    l.mimic = leader;
    l.mimic_multiplier = a;
    l.mimic_offset = b;
  }
}

}  // namespace simphant::urdf_detail
