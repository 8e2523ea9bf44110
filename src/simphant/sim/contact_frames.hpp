#pragma once
// The recorded frame /contacts (I, P, 4) (docs/contact.md, "Outputs"): per instance and
// contact pair (the model's Contact force elements, in model order: joint clearances,
// ground pairs, then the pairs between bodies), computed on the host from a frame's
// states as every backend records them, by the pair function the solvers evaluate
// (contact_pair_wrench, broad phase on), so a frame's values are those the step used at
// that state. Laws without per-contact state only (the scene refuses the impact laws).
#include <string>
#include <vector>

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

}  // namespace simphant
