// make_floating_base / make_fixed_base (urdf_import.hpp).
#include <string>

#include "simphant/urdf/urdf_detail.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {

void make_floating_base(ReducedModel& rm) {
  if (rm.floating) return;
  const std::string where = "URDF robot '" + rm.name + "': link '" + rm.base.link + "' (the base, with the links fixed to it)";
  if (!(rm.base.mass > 0))
    throw UrdfError(where + ": no usable mass (no <inertial> with mass > 0, or a bad one: see the import's "
                    "warnings); a floating base needs mass > 0 and a positive definite inertia");
  urdf_detail::check_inertia(rm.base.inertia_com, where);
  rm.floating = true;
}

void make_fixed_base(ReducedModel& rm) { rm.floating = false; }

}  // namespace simphant
