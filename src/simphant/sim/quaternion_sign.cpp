#include "simphant/sim/quaternion_sign.hpp"

#include "simphant/model/robot.hpp"

namespace simphant {

std::vector<int> state_quaternion_offsets(const Model& m) {
  std::vector<int> out;
  if (m.robot && m.robot->solver != RobotSolver::Dae) {
    if (m.robot->model.floating) out.push_back(3);
    return out;
  }
  for (int k = 0; k < m.n_bodies(); ++k) out.push_back(7 * k + 3);
  return out;
}

}  // namespace simphant
