#include "simphant/sim/host_memory.hpp"

#include <algorithm>

#include "simphant/batch/robot_batch_layout.hpp"
#include "simphant/core/thread_pool.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/coordinate_targets.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/row_qr.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/model/topology.hpp"
#include "simphant/sim/backend.hpp"
#include "simphant/sim/backend_rules.hpp"
#include "simphant/sim/bdf_support.hpp"
#include "simphant/sim/cpu_dopri5.hpp"
#include "simphant/sim/cpu_simd_engine.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/reduced_backend.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {

namespace {

/// Bytes per instance that every backend and the Simulator keep: status (1), status
/// step and batch offset (8 + 8), status reason and the assembly's (1 + 1), the runaway
/// bound's coefficients (16), assembly result, and the instance-id checks of the
/// Simulator and the backend (4 + 4).
constexpr double kInstanceBookkeeping = 1 + 8 + 8 + 2 + 16 + sizeof(AssemblyResult) + 8;

int worker_threads(int threads, long long n_instances) {
  const int t = resolve_thread_count(threads);
  return static_cast<int>(std::min<long long>(t, std::max<long long>(1, n_instances)));
}

}  // namespace

double assembly_decomposition_bytes(const Model& model) {
  const double m = model.n_rows, nv = model.nv();
  if (uses_sparse_assembly(model)) {
    // Phi_q sparse (6 element_sides() entries a row, 12 or 24: value and index) twice (A
    // and A^T in the product), and Phi_q Phi_q^T with its LDL^T, estimated by the sparse
    // Schur matrix and factor of a Data (the same block pattern; the AMD ordering's fill
    // may differ); with a closed loop, whose redundant rows the normal equations cannot
    // take, a row-major copy and the rank-revealing QR of its rows (dynamics/row_qr.hpp).
    const double row = 6.0 * model.element_sides() * 12;  // bytes of one sparse row
    const double loop = has_closed_loop(model) ? row * m + RowQR::bytes_bound(m, nv) : 0.0;
    return 2 * row * m + data_bytes(model, SchurFactorization::Sparse, false) + loop;
  }
  const double given = static_cast<double>(coordinate_targets(model, false).size());
  if (given > 0) {
    // [Phi_q; the given coordinates' rows] and its decomposition, and while both live
    // the dependence test's own stacked copy and decomposition (coordinate_targets.hpp).
    return 8 * (4 * (m + given) * nv + 6 * nv + 3 * (m + given));
  }
  return 8 * (m * nv + 6 * nv + 3 * m);
}

double redundant_search_bytes(const Model& model) {
  if (model.n_rows == 0 || !has_closed_loop(model) || model.solver.redundant_rows != RedundantRows::Remove ||
      (model.robot && model.robot->solver != RobotSolver::Dae))
    return 0;
  const double m = model.n_rows, nv = model.nv();
  // A Data (without the Schur factor; with the dense Phi_q where assembly is dense),
  // assembly's decomposition, and the rank analysis: the sparse Phi_q (6 element_sides()
  // entries a row) and its factorisation (dynamics/row_qr.hpp).
  return data_bytes(model, SchurFactorization::Sparse, !uses_sparse_assembly(model)) +
         assembly_decomposition_bytes(model) + 6.0 * model.element_sides() * 12 * m + RowQR::bytes_bound(m, nv);
}

HostMemory simulator_host_memory(const Model& model, long long n_instances, bool models_per_instance,
                                 int varied_params, const SimulatorOptions& options) {
  HostMemory h;
  h.instances = n_instances;
  h.workers = worker_threads(options.threads, n_instances);
  const double ny = model.ny(), n_inputs = model.n_inputs;
  // Assembly (sim/assemble_batch.cpp): one shared model is assembled once on one thread;
  // per-instance models on every thread, each with its own Data and decomposition.
  const int assembling = models_per_instance ? h.workers : 1;
  // The redundant-row search of a closed loop runs before the batch is assembled, on the
  // first model alone: the set-up's peak is the larger of the two.
  const double assembly =
      std::max(assembling * (data_bytes(model, SchurFactorization::Auto, !uses_sparse_assembly(model)) +
                             assembly_decomposition_bytes(model)),
               redundant_search_bytes(model));

  // The backend Simulator::create takes (sim/backend_rules.hpp).
  const long long auto_n = options.auto_instances > 0 ? options.auto_instances : n_instances;
  const bool bdf = model.solver.integrator == Integrator::Bdf;
  const std::string chosen = choose_backend(model, options.backend, options.schur, auto_n,
                                            options.backend == "auto" && !bdf ? cuda_device_count() : 0);
  const bool cuda = chosen == "cuda" || chosen == "cuda-fused";
  if (model.robot && model.robot->solver != RobotSolver::Dae && cuda) {
    // The host side of the GPU joint-space backend (host/cuda_reduced_backend.cuh): the
    // pinned frame in the device precision, the row staging (state or inputs, doubles),
    // status, reason, status step and id staging, the instance clock; with one model per
    // instance the host copy of the slots (batch/robot_pack.hpp) and the model itself.
    const int n = model.robot->n(), fl = model.robot->model.floating ? 1 : 0;
    const double t = options.precision == "fp32" ? 4 : 8;
    const double robot_ny = robot_state_size(n, fl);
    h.backend = std::string(model.robot->solver == RobotSolver::Cga ? "cuda-reduced-cga" : "cuda-reduced-aba") +
                (options.precision == "fp32" ? "-fp32" : "");
    h.per_instance = kInstanceBookkeeping + t * batch::robot_frame_size(n, fl) + 8 * std::max<double>(robot_ny, n) +
                     1 + 1 + 8 + 4 + 8;
    if (models_per_instance)
      h.per_instance += static_cast<double>(
          batch::robot_batch_bytes_per_instance(n, fl, true, static_cast<std::size_t>(t), model.contact_pair_count()) -
          batch::robot_batch_bytes_per_instance(n, fl, false, static_cast<std::size_t>(t)));
    return h;
  }
  if (model.robot && model.robot->solver != RobotSolver::Dae) {
    h.backend = std::string(model.robot->solver == RobotSolver::Cga ? "reduced-cga" : "reduced-aba") +
                (chosen == "cpu-simd" ? "-lanes" : "");
    h.per_worker = ReducedBackend::worker_bytes();
    h.per_instance = kInstanceBookkeeping + ReducedBackend::instance_bytes(model) +
                     (models_per_instance ? ReducedBackend::model_row_bytes(model) : 0);
    return h;
  }
  if (cuda) {
    // The host side of the cuda backends (host/cuda_backend_impl.cuh): the assembled
    // batch, the pinned frame (states, reactions, violation, energies) in the device
    // precision, input and status staging, and the packed per-instance parameters.
    const double t = options.precision == "fp32" ? 4 : 8;
    h.backend = chosen;
    h.per_instance = kInstanceBookkeeping + 8 * ny + t * (13.0 * model.n_bodies() + 6.0 * model.n_joints() + 3) +
                     8 * n_inputs + 4 + t * varied_params;
    h.assembly = assembly;
    return h;
  }
  const bool simd = chosen == "cpu-simd";
  h.backend = simd ? "cpu-simd" : "cpu";
  h.per_worker = data_bytes(model, simd ? SchurFactorization::Sparse : parse_schur_factorization(options.schur));
  // Y and the kept initial state Y0 (13N each), the inputs, the record of the refined
  // solves and the rank watch (formulas/refinement_record.hpp).
  h.per_instance = kInstanceBookkeeping + 8 * (2 * ny + n_inputs) + sizeof(RefinementRecord);
  if (simd) {
    // CpuSimdEngine's structure of arrays (sim/cpu_simd_engine.cpp, allocate): Y, the
    // stage state and k1..k4 (6 ny), Phi, Phi_q, gamma* (14 m), Q (6 N), the Schur
    // factor's values, rhs, lambda, pivot floors and C_RR (4 m), inputs, violation, runaway
    // (2), time, the reductions' accumulators in double, three int and two int8 and two
    // int64 counters, the per-instance parameters, the rank watch and the step's pivot
    // (3) and the auto projection's saved records (5 double, 3 int); padding to a whole
    // group of lanes is at most simd::kLaneWidth - 1 instances more.
    const double m = model.n_rows;
    const ReductionLayout red = estimated_reduction_layout(model);
    h.per_instance += 8 * (6 * model.ny() + 14 * m + 6.0 * model.n_bodies() + schur_pattern_of(model).n_values + 4 * m +
                           n_inputs + 1 + 2 + 1 + (red.any() ? red.size() : 0) + varied_params + 3 + 5) +
                      3 * 4 + 3 * 4 + 2 + 2 * 8;
  }
  if (model.solver.integrator == Integrator::Dopri5) {
    // The integrator state row (sim/cpu_dopri5.hpp) and the step statistics (4 numbers);
    // the stage scratch per worker.
    h.per_instance += 8.0 * cpu_dopri5_row_size(static_cast<int>(ny), static_cast<int>(n_inputs)) + 8 * 4;
    h.per_worker += 8.0 * cpu_dopri5_worker_doubles(static_cast<int>(ny));
  }
  // bdf: each instance's CVODE memory (sim/bdf_support.hpp).
  if (model.solver.integrator == Integrator::Bdf) h.per_instance += bdf_instance_bytes(model.ny(), model.n_inputs);
  h.assembly = assembly;
  return h;
}

}  // namespace simphant
