#pragma once
// CpuSimdEngine: the stepping of the `cpu-simd` backend (CpuBackend with simd = true;
// docs/performance.md, "The cpu-simd backend"). It holds the batch in host memory as the
// cuda-fused path lays it out on the device (host/cuda_backend_impl.cuh): the models
// packed by batch/batch_pack.hpp (per-instance parameters structure of arrays, the
// topology-ordered Schur pattern, lambda (m, n)), every per-instance array with the
// instance index fastest, rows 64-byte aligned, the instance count padded to a multiple
// of simd::kLaneWidth with copies of the last real instance. advance() moves CpuBackend's
// row-major state in, runs simd::advance_groups over groups of kLaneWidth instances
// spread over a ThreadPool and moves the state back out (CpuBackend then checks the state
// each live instance ends on, as its scalar path does);
// between advances CpuBackend's rows are the state (its reads, set_state, reset,
// checkpoints work on them unchanged).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "simphant/batch/batch_pack.hpp"
#include "simphant/core/thread_pool.hpp"
#include "simphant/formulas/refinement_record.hpp"
#include "simphant/formulas/reductions.hpp"
#include "simphant/formulas/schur_pattern.hpp"
#include "simphant/model/model.hpp"
#include "simphant/simd/simd_step.hpp"

namespace simphant {

/// Why the cpu-simd path cannot run `model`, or "" when it can: it runs the fixed-step
/// integrators (rk4, euler, symplectic_euler) of the DAE path, not dopri5 / bdf (in the
/// words of sim/backend_rules.hpp) nor a robot's joint-space solvers (solver.type aba /
/// cga, naming the field).
std::string cpu_simd_unsupported(const Model& model);

/// Host memory of n elements of T on a 64-byte boundary (one cache line, an AVX-512
/// vector), zero-initialised; the size rounded up to 64 bytes.
template <class T>
class AlignedArray {
 public:
  void assign(std::size_t n) {
    const std::size_t bytes = ((n * sizeof(T) + 63) / 64) * 64 + 64 * (n == 0);
    void* p = std::aligned_alloc(64, bytes);
    if (!p) throw std::bad_alloc();
    std::memset(p, 0, bytes);
    p_.reset(static_cast<T*>(p));
    n_ = n;
  }
  T* data() const { return p_.get(); }
  std::size_t size() const { return n_; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> p_;
  std::size_t n_ = 0;
};

/// CpuBackend's per-instance rows as the engine reads and writes them (n real instances,
/// row-major; docs/state.md): status steps are the instances' own steps, offsets the
/// batch step of each instance's step 0.
struct CpuRows {
  double* Y;                    ///< (n, 13 N) state, read and written
  const double* inputs;         ///< (n, n_inputs)
  std::int8_t* status;          ///< (n) read and written
  std::int64_t* status_step;    ///< (n) read and written
  std::int8_t* reason;          ///< (n) read and written
  const double* runaway;        ///< (n, 2) runaway bound coefficients a, b
  const std::int64_t* offset;   ///< (n)
  ReductionLayout red;          ///< the enabled reductions over time
  double* red_acc;              ///< (n, red.size()) their accumulators (null when none), read and written
};

class CpuSimdEngine {
 public:
  /// models: size 1 (shared) or n_instances, one topology; integrator rk4, euler or
  /// symplectic_euler (cpu_simd_unsupported(models.front()) empty).
  CpuSimdEngine(const std::vector<Model>& models, int n_instances);

  /// The listed instances' parameters from their new models (CpuBackend::set_models;
  /// ids null: instances 0..count-1; models: one per instance, indexed by instance), as
  /// CudaBackend::set_models does (batch::set_instance_params: a shared parameter that now
  /// differs becomes per instance).
  void set_models(const int* ids, int count, const std::vector<Model>& models);

  /// Advances every live instance of `rows` by n_steps steps from batch step step0, as
  /// CpuBackend::advance_fixed does: a failed step marks the instance diverged at that
  /// step with its reason and freezes it at its last good state. (The check of the state
  /// the advance ends on is CpuBackend::end_check, shared with the scalar path.)
  /// Threads: pool's workers take chunks of groups; the result does not depend on them.
  /// Precondition: rows.red is the layout of the last set_reductions (none before any).
  void advance(const CpuRows& rows, std::int64_t step0, int n_steps, ThreadPool& pool);

  /// Allocates the accumulators of the reductions over time `red` (CpuBackend::set_reductions),
  /// so that advance() allocates nothing.
  void set_reductions(const ReductionLayout& red);

  /// Factorisations recovered with a larger Tikhonov shift, summed over the real instances.
  std::int64_t recoveries() const;
  /// The refined solves' record of real instance i since the engine was made, with the
  /// rank watch (formulas/refinement_record.hpp).
  RefinementRecord refinement(int i) const;
  int padded_instances() const { return n_pad_; }
  /// Values of one instance's Schur factor (the pattern's n_values).
  int schur_values() const { return pattern_.n_values; }

 private:
  void allocate();
  /// The aligned copies of packed_'s parameters the groups read, and view_.mv / P on them.
  void copy_params();
  /// Instances [i0, i1) of the padded batch from rows (padding: the last real instance).
  void move_in(const CpuRows& rows, int i0, int i1);
  /// The real instances of [i0, i1) back to rows.
  void move_out(const CpuRows& rows, int i0, int i1) const;

  int n_, n_pad_;
  batch::PackedModel<double> packed_;
  SchurPattern pattern_;
  AlignedArray<double> param_varied_, param_shared_lanes_;
  AlignedArray<double> Y_, y_stage_, k_[4], phi_, jac_, gamma_star_, Q_, C_, rhs_, lambda_, refine_, floor_, diag_,
      inputs_, violation_, runaway_, time_, red_acc_, refine_worst_, refine_worst_time_, pivot_min_, pivot_min_time_, step_pivot_;
  AlignedArray<int> recoveries_, info_, fail_, refine_unconverged_;
  /// The auto projection's saved records (kernels/batch_buffers.hpp, ProjectionSaved).
  AlignedArray<double> saved_step_pivot_, saved_pivot_min_, saved_pivot_min_time_, saved_refine_worst_,
      saved_refine_worst_time_;
  AlignedArray<int> saved_refine_unconverged_, saved_recoveries_, saved_fail_;
  AlignedArray<std::int8_t> status_, reason_;
  AlignedArray<std::int64_t> status_step_, clock_offset_;
  std::int64_t step_ = 0;  ///< the batch step the groups start from (*view_.b.step)
  simd::SimdBatchView view_{};
};

}  // namespace simphant
