#pragma once
// Packs per-instance Models into the batched form the kernels read (model_view.hpp):
// the shared topology, the flat parameter vector of every instance, and the split into
// shared values and the parameters that differ between instances (SoA, instance
// fastest). Host-side; host/cuda_backend uploads the arrays, CPU tests point a
// ModelView at them directly.
#include <vector>

#include "simphant/batch/model_view.hpp"
#include "simphant/model/model.hpp"

namespace simphant::batch {

template <class T>
struct PackedModel {
  int n_instances = 0, n_bodies = 0, n_joints = 0, n_rows = 0, n_forces = 0, n_inputs = 0, n_params = 0;
  double dt = 0;
  std::vector<int> joint_type, joint_body, row_offset, coupling_start, coupling, body_joint_start, body_joint;
  std::vector<ForceTopo> force;
  std::vector<T> param_shared;  ///< (n_params)
  std::vector<int> param_slot;  ///< (n_params)
  std::vector<T> param_varied;  ///< (n_varied, n_instances)
  int n_varied() const { return n_instances ? static_cast<int>(param_varied.size()) / n_instances : 0; }
  /// A view of these host arrays (valid while this object lives and is not resized).
  ModelView<T> host_view() const;
};

/// The flat parameter vector of one model (layout in model_view.hpp), in double.
std::vector<double> flatten_params(const Model& model);

/// Packs `models` (size 1: shared by all, or n_instances) for n_instances instances.
/// Precondition: one topology (Simulator checks it). T: double or float.
template <class T>
PackedModel<T> pack_models(const std::vector<Model>& models, int n_instances);

extern template PackedModel<double> pack_models<double>(const std::vector<Model>&, int);
extern template PackedModel<float> pack_models<float>(const std::vector<Model>&, int);

}  // namespace simphant::batch
