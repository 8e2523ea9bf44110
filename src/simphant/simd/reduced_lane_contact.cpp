// The lanes' per-lane functions in double (simd/reduced_lane_contact.hpp,
// simd/reduced_group.hpp), compiled once at the baseline level.
#include "simphant/simd/reduced_lane_contact.hpp"
#include "simphant/simd/reduced_group.hpp"

namespace simphant {

bool robot_lane_pair_wrench(const RobotContactPair<double>& c, const BodyKin<double>& a, const BodyKin<double>& b,
                            BodyWrench<double>& wa, BodyWrench<double>& wb) {
  if (contact_pair_apart(c.shape_a, a, c.shape_b, b, c.params.margin)) return false;
  const ContactPairWrench<double> w = robot_contact_detail::pair_wrench(c, a, b);
  if (w.contacts.count == 0) return false;
  wa = w.a;
  wb = w.b;
  return true;
}

namespace simd {

void reduced_lane_sample(const batch::ReducedBatchView<double>& b, int i, const double* y, double step,
                         RobotWorkspace<double, kMaxReducedLinks>& ws) {
  batch::reduced_reduce_sample(batch::reduced_robot_view(b, i), b.red, y, batch::reduced_reduction_acc(b, i), step, ws);
}

}  // namespace simd
}  // namespace simphant
