#pragma once
// The scene as the module holds it: shared, immutable once parsed.
#include <memory>
#include <string>
#include <vector>

#include "simphant/scene/scene.hpp"

namespace simphant::python {

struct PyScene {
  std::shared_ptr<const Scene> scene;
  std::string source;  ///< the file it was read from, or "<dict>" / "<string>"
};

/// Actuator names in input order (Model::forces with input_index k -> entry k).
std::vector<std::string> input_names(const Model& m);

}  // namespace simphant::python
