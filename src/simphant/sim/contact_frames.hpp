#pragma once
// The recorded frame /contacts (I, P, 4) (docs/contact.md, "Outputs"): per instance and
// contact pair (the model's Contact force elements, in model order: joint clearances,
// ground pairs, then the pairs between bodies), computed on the host from a frame's
// states as every backend records them, by the pair function the solvers evaluate
// (contact_pair_wrench, broad phase on), so a frame's values are those the step used at
// that state. Laws without per-contact state only (the scene refuses the impact laws).
#include <string>
#include <vector>

#include "simphant/contact/collide.hpp"
#include "simphant/model/components.hpp"
#include "simphant/model/model.hpp"

namespace simphant {

/// Components of one pair in a frame: kContactTable (model/components.hpp).
constexpr int kContactRecordComponents = static_cast<int>(kContactTable.size());

/// The pairs' names (P), model order ("contact ground ball[0]", "clearance wrist_pin").
std::vector<std::string> contact_pair_names(const Model& model);

/// states (n, B, 13) as Backend::read_states; models one shared or one per instance (a
/// pair's shapes and law per instance). out (n, P, kContactRecordComponents). An
/// instance whose states are not finite gets NaN.
void contact_frames(const std::vector<Model>& models, int n, const double* states, double* out);

/// Numbers of one contact point of contact_points: its position (W) [m], the unit normal
/// from the pair's shape A to shape B (W), and its normal force [N] (>= 0, on B along the
/// normal).
constexpr int kContactPointComponents = 7;

/// The contact points of each pair at a frame's states, for drawing them: out (n, P,
/// kMaxContacts, kContactPointComponents), pairs as contact_frames orders them, a pair's
/// contacts in the slots [0, count) (contact/collide.hpp: the point midway between the
/// two surfaces), NaN in the slots past its count and for an instance whose states are
/// not finite. Their normal forces sum to contact_frames' normal_force.
void contact_points(const std::vector<Model>& models, int n, const double* states, double* out);

/// Numbers of one pair in contact_wrenches: its force (W) [N], then its moment about the
/// origin of W (W) [N m].
constexpr int kContactWrenchComponents = 6;

/// The contact wrench of each pair at a frame's states: out (n, P,
/// kContactWrenchComponents), pairs as contact_frames orders them. Each is the sum of the
/// pair's contact forces (normal, friction and rolling resistance) on the body of its
/// shape B (the second shape of the pair's name: a robot link in a ground pair), as the
/// step applies them (contact_pair_wrench, the step's pair function), with its moment
/// about W's origin, so that the wrenches of several pairs add and move to a point c as
/// (f, tau - c x f). Shape A's body takes the opposite wrench. Zero for a pair apart, NaN
/// for an instance whose states are not finite.
void contact_wrenches(const std::vector<Model>& models, int n, const double* states, double* out);

}  // namespace simphant
