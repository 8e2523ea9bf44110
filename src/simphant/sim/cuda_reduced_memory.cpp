// cuda_reduced_bytes_per_instance (sim/cuda_factory.hpp): pure arithmetic over the GPU
// joint-space backend's array sizes (batch/robot_batch_layout.hpp) and the reductions'
// accumulators, compiled in every build so that the memory estimates need no device.
#include <stdexcept>

#include "simphant/batch/robot_batch_layout.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/reduction_names.hpp"

namespace simphant {

std::size_t cuda_reduced_bytes_per_instance(const Model& model, bool models_per_instance, const std::string& precision) {
  if (!model.robot || model.robot->solver == RobotSolver::Dae)
    throw std::invalid_argument("cuda_reduced_bytes_per_instance: not a robot model with solver aba or cga");
  if (precision != "fp64" && precision != "fp32")
    throw std::invalid_argument("cuda_reduced_bytes_per_instance: unknown precision '" + precision + "' (fp64 or fp32)");
  // The reductions' accumulators and the copy a read samples into, in double.
  const ReductionLayout red = estimated_reduction_layout(model);
  return batch::robot_batch_bytes_per_instance(model.robot->n(), model.robot->model.floating ? 1 : 0,
                                               models_per_instance, precision == "fp32" ? 4 : 8,
                                               model.contact_pair_count()) +
         (red.any() ? 2 * sizeof(double) * static_cast<std::size_t>(red.size()) : 0);
}

}  // namespace simphant
