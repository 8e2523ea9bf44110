#pragma once
// A joint-space robot's contact pairs in SIMD lanes (docs/contact.md, "Contact in joint
// coordinates"): RobotLaneContact<Lanes<double, W>>, which robot_derivative calls for a
// group of W instances (simd/reduced_group.hpp). The link kinematics and the generalised
// forces run in the lanes; the collision geometry, which branches on each instance's
// values, runs one lane at a time: for each pair and lane, contact_pair_wrench in double on
// that lane's bodies and its own pair (RobotView::lane_contacts: shapes and law per
// instance), the lanes' wrenches gathered into lane vectors. A lane whose pair does not
// touch adds a zero wrench, and a pair that touches in no lane adds nothing, so each
// lane's forces are those of robot_contact_forces with T = double. Host only.
#include "simphant/math/lanes.hpp"
#include "simphant/reduced/robot_contact.hpp"

namespace simphant {

/// contact_pair_wrench of pair c with shape A on body a and shape B on body b (broad phase
/// on, no impact slots), in double: one lane's pair. True when the shapes touch (at least
/// one contact), with the wrenches on A and B in wa and wb; false (wa, wb untouched)
/// otherwise; a pair the broad phase finds apart (contact_pair_apart) costs no more than
/// that test. Compiled once
/// (simd/reduced_lane_contact.cpp), not again in each x86-64 level of the lane code.
bool robot_lane_pair_wrench(const RobotContactPair<double>& c, const BodyKin<double>& a, const BodyKin<double>& b,
                            BodyWrench<double>& wa, BodyWrench<double>& wb);

template <int W>
struct RobotLaneContact<Lanes<double, W>> {
  using L = Lanes<double, W>;
  static constexpr bool enabled = true;

  /// Lane l of a vector, a matrix and a body's kinematics.
  static Vec3d lane(const Vec3<L>& a, int l) { return {a.x[l], a.y[l], a.z[l]}; }
  static BodyKin<double> lane(const BodyKin<L>& k, int l) {
    BodyKin<double> b;
    b.r = lane(k.r, l);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) b.A.m[i][j] = k.A.m[i][j][l];
    b.v = lane(k.v, l);
    b.omega_B = lane(k.omega_B, l);
    b.omega_W = lane(k.omega_W, l);
    return b;
  }
  static void set(Vec3<L>& a, int l, const Vec3d& v) {
    a.x.set(l, v.x);
    a.y.set(l, v.y);
    a.z.set(l, v.z);
  }

  /// robot_contact_forces for the W instances of the lanes: Q (n) and base_wrench in lanes,
  /// kin left at y's robot_link_kinematics. The pairs' owners are lane 0's (the robot's
  /// topology, the same in every lane of a group).
  template <int Cap>
  static void forces(const RobotView<L>& r, const L* y, L* Q, SpatialForce<L>& base_wrench,
                     RobotLinkKinematics<L, Cap>& kin) {
    using namespace robot_contact_detail;
    base_wrench = SpatialForce<L>{zero3<L>(), zero3<L>()};
    robot_link_kinematics(r, y, kin);
    for (int p = 0; p < r.n_contacts; ++p) {
      const int owner_a = r.lane_contacts[0][p].owner_a, owner_b = r.lane_contacts[0][p].owner_b;
      const BodyKin<L> ka = owner_kin(r, y, kin, owner_a), kb = owner_kin(r, y, kin, owner_b);
      BodyWrench<L> wa{zero3<L>(), zero3<L>(), zero3<L>()}, wb = wa;
      bool touching = false;
      for (int l = 0; l < W; ++l) {
        BodyWrench<double> a, b;
        if (!robot_lane_pair_wrench(r.lane_contacts[l][p], lane(ka, l), lane(kb, l), a, b)) continue;
        touching = true;
        set(wa.force_W, l, a.force_W);
        set(wa.torque_W, l, a.torque_W);
        set(wb.force_W, l, b.force_W);
        set(wb.torque_W, l, b.torque_W);
      }
      if (!touching) continue;
      add_generalised(r, y, kin, owner_a, ka.r, wa, Q, base_wrench);
      add_generalised(r, y, kin, owner_b, kb.r, wb, Q, base_wrench);
    }
  }
};

}  // namespace simphant
