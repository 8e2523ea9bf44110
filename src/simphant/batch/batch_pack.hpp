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
  double eps_relative = 0;  ///< ModelView::eps_relative
  int refine_steps = 0;     ///< ModelView::refine_steps
  int projection = 0;       ///< ModelView::projection
  double auto_pivot = 0;    ///< ModelView::auto_pivot
  std::int8_t integrator = 0;  ///< ModelView::integrator
  double rtol = 0, atol = 0, min_step = 0, max_step = 0, first_step = 0;  ///< ModelView's, same names
  int n_drivers = 0, n_laws = 0;
  int sides = 2;        ///< ModelView::sides
  int n_mimics = 0;     ///< ModelView::n_mimics
  int mimic_param = 0;  ///< ModelView::mimic_param
  std::vector<int> mimic;  ///< ModelView::mimic
  std::vector<int> joint_type, joint_body, row_offset, coupling_start, coupling, body_joint_start, body_joint;
  std::vector<int> driver, law_type, law_start;  ///< ModelView::driver, law_type, law_start
  std::vector<int> removed_mask;                 ///< ModelView::removed_mask
  std::vector<ForceTopo> force;
  std::vector<T> param_shared;  ///< (n_params)
  std::vector<int> param_slot;  ///< (n_params)
  std::vector<T> param_varied;  ///< (n_varied, n_instances)
  int jac_cols() const { return 6 * sides; }  ///< ModelView::jac_cols
  int n_varied() const { return n_instances ? static_cast<int>(param_varied.size()) / n_instances : 0; }
  /// A view of these host arrays (valid while this object lives and is not resized).
  ModelView<T> host_view() const;
};

/// Number of parameters that differ (bit for bit) between the models: what a batch of
/// them stores per instance. 0 for fewer than two models.
int count_varied_params(const std::vector<Model>& models);

/// The flat parameter vector of one model (layout in model_view.hpp), in double.
std::vector<double> flatten_params(const Model& model);

/// Floor of the relative Tikhonov eps on the fp32 path. A closed loop with redundant rows
/// (the four-bar and slider-crank built from spatial revolutes, Bricard) makes C singular
/// up to eps; the scenes' eps = 1e-10 is far below fp32's resolution of C (2^-24 of its
/// diagonal), so without a floor every factorisation would need the pivot recovery.
/// Measured on the CPU grid emulation (tests/test_kernel_grid.cpp, Fp32) before the solve
/// was refined: with 1e-4 or 1e-5 Bricard diverged within 620 steps, with 1e-6 all nine
/// examples ran 1000 steps; with the refined solve the states stay within 3.3e-6 of the
/// fp64 reference (Bricard 4.5e-5) relative to their largest entry.
constexpr double kFp32RelativeEpsilon = 1e-6;

/// Packs `models` (size 1: shared by all, or n_instances) for n_instances instances.
/// eps_relative: ModelView::eps_relative (default: 0 for double, kFp32RelativeEpsilon
/// for float). Precondition: one topology (Simulator checks it). T: double or float.
template <class T>
PackedModel<T> pack_models(const std::vector<Model>& models, int n_instances, double eps_relative = sizeof(T) == 8 ? 0.0 : kFp32RelativeEpsilon);

extern template PackedModel<double> pack_models<double>(const std::vector<Model>&, int, double);
extern template PackedModel<float> pack_models<float>(const std::vector<Model>&, int, double);

/// Writes one instance's parameters (flatten_params of its new model, n_params values)
/// into a packed batch: a parameter stored per instance takes the instance's value; a
/// shared parameter whose value in T differs (bit for bit) from the shared one becomes
/// per instance: a new row of param_varied, holding the shared value for every other
/// instance, and param_slot points at it. Returns the number of rows added (a device
/// copy of param_slot / param_varied is then out of date in size, not only in values).
/// Throws std::invalid_argument for an instance out of range or a wrong count.
template <class T>
int set_instance_params(PackedModel<T>& packed, int instance, const std::vector<double>& params);

extern template int set_instance_params<double>(PackedModel<double>&, int, const std::vector<double>&);
extern template int set_instance_params<float>(PackedModel<float>&, int, const std::vector<double>&);

}  // namespace simphant::batch
