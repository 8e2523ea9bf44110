#include "simphant/simd/reduced_lane_contact.hpp"

namespace simphant {

ContactPairWrench<double> robot_lane_pair_wrench(const RobotContactPair<double>& c, const BodyKin<double>& a,
                                                 const BodyKin<double>& b) {
  return contact_pair_wrench(c.shape_a, a, c.shape_b, b, c.params, static_cast<const double*>(nullptr), true);
}

}  // namespace simphant
