#pragma once
// The batched CPU step (backend `cpu-simd`, docs/performance.md): the kernels' per-thread
// functions (kernels/fused_stage.hpp) run on the host over groups of kLaneWidth
// instances, each group's instances in the lanes of one Lanes<double, kLaneWidth> vector
// (math/lanes.hpp). A group runs all the steps of an advance by itself (no barrier
// between stages or steps: instances are independent), so its arrays stay in cache.
#include <cstdint>

#include "batch_buffers.hpp"  // kernels/ (a private include directory)
#include "simphant/batch/model_view.hpp"
#include "simphant/math/lanes.hpp"
#include "simphant/formulas/schur_pattern.hpp"
#include "simphant/simd/dispatch.hpp"

namespace simphant::simd {

/// Instances per group: the lane count of Lanes<double, kLaneWidth>.
constexpr int kLaneWidth = kSimdLanes<double>;

/// A batch in host memory as the batched CPU step reads it.
/// Preconditions: mv.n_instances (= n_pad) is a multiple of kLaneWidth; every SoA array of
/// b (and mv.param_varied) has rows of n_pad doubles starting on 64-byte boundaries;
/// b.lambda_soa = 1; b.C holds P.n_values values per instance (the cuda-fused layout).
/// Instances past the batch's real count (padding) hold a copy of a real instance and
/// are stepped like it; their results are ignored.
struct SimdBatchView {
  batch::ModelView<double> mv;
  /// (mv.n_params, kLaneWidth): each parameter's shared value broadcast to every lane
  /// (the ModelView<Lanes> reads param_shared as Lanes).
  const double* param_shared_lanes = nullptr;
  SchurPatternView P;
  batch::BatchBuffers<double> b;
};

/// Advances the instances of groups [g0, g1) (instances [g0 W, g1 W)) by n_steps fixed
/// steps of mv.integrator (rk4, euler, symplectic_euler), as enqueue_step with the
/// cuda-fused pattern does (kernels/batch_step.hpp), starting at batch step *b.step, which
/// this leaves alone (the caller adds n_steps once every group has run). Each group keeps
/// its own step counter, so groups may run concurrently on different threads.
/// lanes: true runs the SIMD lanes (the code compiled for the best target this CPU has,
/// simd_target()); false runs one instance at a time through the same per-thread
/// functions with T = double (the scalar form of the same path). Both give each instance
/// a result that does not depend on the other instances of its group, equal to round-off
/// (bit for bit where the target has no FMA); simd_group.hpp describes the lane code.
/// Throws std::invalid_argument (lanes = true) when an array the lanes read is not 64-byte
/// aligned or mv.n_instances is not a multiple of kLaneWidth.
void advance_groups(const SimdBatchView& v, int g0, int g1, int n_steps, bool lanes);

}  // namespace simphant::simd
