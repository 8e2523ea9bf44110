#include "simphant/sim/joint_load_frames.hpp"

#include <cstddef>

#include "simphant/formulas/joint_loads.hpp"
#include "simphant/sim/recorded_body_kin.hpp"

namespace simphant {

void joint_load_frames(const std::vector<Model>& models, int n, const double* states, const double* reactions,
                       const double* driver_loads, double* loads, double* bearing) {
  const Model& m0 = models.front();
  const int B = m0.n_bodies(), J = m0.n_joints(), D = m0.n_drivers();
  for (int i = 0; i < n; ++i) {
    const Model& model = models[models.size() == 1 ? 0 : static_cast<std::size_t>(i)];
    const double* rec = states + static_cast<std::size_t>(i) * B * 13;
    for (int j = 0; j < J; ++j) {
      const Joint& jt = model.joints[j];
      const std::size_t ij = static_cast<std::size_t>(i) * J + j;
      double l[kJointLoadComponents], b[kBearingLoadComponents], axial_force = 0, axial_moment = 0;
      for (int k = 0; driver_loads && k < D; ++k)
        if (model.drivers[k].joint == j)
          (model.drivers[k].coordinate == JointCoordinate::Angle ? axial_moment : axial_force) +=
              driver_loads[static_cast<std::size_t>(i) * D + k];
      joint_loads_from_reaction(jt.frame, recorded_body_kin(rec, jt.body_i), recorded_body_kin(rec, jt.body_j),
                                reactions + 6 * ij, axial_force, axial_moment, l);
      bearing_loads_from_joint_loads(l, b);
      if (loads)
        for (int c = 0; c < kJointLoadComponents; ++c) loads[kJointLoadComponents * ij + c] = l[c];
      if (bearing)
        for (int c = 0; c < kBearingLoadComponents; ++c) bearing[kBearingLoadComponents * ij + c] = b[c];
    }
  }
}

}  // namespace simphant
