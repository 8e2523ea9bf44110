// Name references of a scene's sections (scene/name_index.hpp).
#include "simphant/scene/name_index.hpp"

#include "simphant/model/model.hpp"
#include "simphant/scene/json_access.hpp"

namespace simphant::scene_detail {

int body_ref(const json& obj, const std::string& path, const char* key, const NameIndex& bodies) {
  const std::string p = child_path(path, key);
  const std::string name = as_string(require_key(obj, path, key), p);
  if (name == "ground") return kGround;
  const int k = bodies.find(name, -2);
  if (k == -2) throw SceneError(p, "unknown body \"" + name + "\"");
  return k;
}

}  // namespace simphant::scene_detail
