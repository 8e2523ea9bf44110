#pragma once
// Modelled cost of one instance-step (one fixed RK4 step of one instance) of the batched
// GPU paths, for the benchmark's achieved bandwidth and FLOP rate (`simphant bench`,
// docs/benchmarks.md). It is a model, not a measurement: the bench's JSON labels it
// "modelled".
//
// Bytes: the per-instance footprint of each phase of one step, counting every element a
// phase reads once and every element it writes once, as if caches kept everything a
// phase touches and nothing between phases. Shared model data (topology, parameters
// that no instance varies) is read by all instances and counted as zero. Per evaluation
// (4 per step), with V the stored values of C and of its factor:
//   joint_rows     reads y (13 per body), writes Phi, Phi_q (12), gamma*   = 14 m
//   body_forces    reads y (13 N), inputs, writes Q (6 N)
//   schur          reads Phi_q (12 m), Q (6 N), gamma* (m), writes C (V_C), rhs (m)
//   factorisation  reads and writes the factor (2 V_L), writes info
//   solve          reads the factor twice (forward, back: 2 V_L), reads and writes rhs (2 m)
//   accelerations  reads y (10 per body), Phi_q (12 m), Q (6 N), lambda (m), info, writes ydot (13 N)
// plus per step: violation (m + 1), three RK4 stage updates (3 x 39 N), the final one
// (78 N), the commit (26 N + status words).
//   `cuda` (kernels/batch_step.hpp; a launch per phase, cuSOLVER potrf/potrsBatched):
//     V_C = m^2 (every entry of C is written, zeros included), V_L = m (m + 1) / 2.
//   `cuda-fused` (kernels/fused_stage.hpp; one thread per instance runs every phase of a
//     stage, the intermediates in global memory, structure of arrays): V_C = V_L = the
//     values of the block-sparse pattern (SchurPattern::n_values, formulas/schur_pattern.hpp).
//     The caches may keep part of one thread's intermediates between its phases: the
//     figure then overstates the fused path's DRAM traffic.
//
// FLOPs (adds and multiplies count 1, an FMA 2, a divide or square root 1): the
// arithmetic of the per-thread functions, estimated by reading them (constants in
// cost_model.cpp): body kinematics, joint rows per type, forces, the Schur blocks over
// the joint couplings that share a body (sparse Phi_q), the factorisation, the solve,
// the accelerations and the RK4 combination.
//   `cuda`: both triangles of C; dense Cholesky m^3 / 3 and two triangular solves 2 m^2.
//   `cuda-fused`: the lower blocks of C; the block-sparse Cholesky's multiply-adds x 2
//     (SchurPattern::factor_flops) and 4 V_L for the two solves.
#include <string>

#include "simphant/model/model.hpp"

namespace simphant::bench {

struct StepCost {
  double bytes = 0;  ///< modelled device-memory traffic per instance-step [bytes]
  double flops = 0;  ///< modelled floating-point operations per instance-step
};

/// Cost of one instance-step of `model` on backend "cuda", "cuda-fused", "cpu" or
/// "cpu-simd" in precision "fp64" (8-byte elements) or "fp32" (4). The CPU backends run
/// the same per-instance arithmetic: `cpu` with `schur` "dense" has the `cuda` figures,
/// with "sparse" (or "auto" where dynamics/data.cpp picks sparse: m >= 30) the
/// `cuda-fused` ones; `cpu-simd` runs the fused per-thread functions, the `cuda-fused`
/// figures. For the CPU the bytes are what one instance-step touches, not DRAM traffic
/// (a small batch stays in cache); the FLOPs are the same count. Throws
/// std::invalid_argument for another backend, precision or Schur name.
StepCost modelled_step_cost(const Model& model, const std::string& backend, const std::string& precision,
                            const std::string& schur = "auto");

}  // namespace simphant::bench
