// Name lookups of Model (model.hpp).
#include "simphant/model/model.hpp"

namespace simphant {

int Model::body_index(const std::string& body_name) const {
  if (body_name == "ground") return kGround;
  for (int k = 0; k < n_bodies(); ++k) {
    if (bodies[static_cast<std::size_t>(k)].name == body_name) return k;
  }
  return -2;
}

int Model::joint_index(const std::string& joint_name) const {
  for (int k = 0; k < n_joints(); ++k) {
    if (joints[static_cast<std::size_t>(k)].name == joint_name) return k;
  }
  return -1;
}

}  // namespace simphant
