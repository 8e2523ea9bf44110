#pragma once
// The centre of mass of each instance from a frame's body states (Backend::read_states),
// computed on the host from every backend's frames, with each instance's own masses.
#include <vector>

#include "simphant/model/model.hpp"

namespace simphant {

/// states (n, B, 13) as Backend::read_states; models one shared or one per instance.
/// out (n, 3) [m], W: sum_b m_b r_b / sum_b m_b over the model's moving bodies (a robot's
/// links and its floating base; the ground and a fixed base are not bodies). NaN for an
/// instance whose body positions are not finite. Throws std::invalid_argument for a model
/// whose bodies have no mass in all.
void centres_of_mass(const std::vector<Model>& models, int n, const double* states, double* out);

}  // namespace simphant
