#include "simphant/sim/assemble_batch.hpp"

#include <algorithm>
#include <memory>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/dynamics/runaway_bound.hpp"

namespace simphant {

AssembledBatch assemble_batch(const std::vector<Model>& models, int n_instances, ThreadPool& pool) {
  const Model& m0 = models.front();
  const int ny = m0.ny();
  AssembledBatch out;
  out.Y.assign(static_cast<std::size_t>(n_instances) * ny, 0.0);
  out.results.resize(n_instances);
  out.status.assign(n_instances, static_cast<std::int8_t>(InstanceStatus::Ok));
  out.reason.assign(n_instances, kReasonNone);
  out.runaway.assign(static_cast<std::size_t>(n_instances) * 2, 0.0);
  // One shared model: every instance starts from the same state, so it is assembled once
  // and copied (the same numbers as assembling each instance: assembly is deterministic).
  if (models.size() == 1 && n_instances > 1) {
    ThreadPool one_thread(1);
    const AssembledBatch one = assemble_batch(models, 1, one_thread);
    pool.parallel_for(n_instances, 1024, [&](int begin, int end, int) {
      for (int i = begin; i < end; ++i) {
        std::copy(one.Y.begin(), one.Y.end(), out.Y.begin() + static_cast<std::ptrdiff_t>(i) * ny);
        out.results[i] = one.results[0];
        out.status[i] = one.status[0];
        out.reason[i] = one.reason[0];
        out.runaway[2 * static_cast<std::size_t>(i)] = one.runaway[0];
        out.runaway[2 * static_cast<std::size_t>(i) + 1] = one.runaway[1];
      }
    });
    return out;
  }
  // Each worker's Data is made in place on the worker's first instance and never moved
  // (dynamics/data.hpp); a worker touches only its own slot.
  std::vector<std::unique_ptr<Data>> workers(static_cast<std::size_t>(pool.size()));
  // Newton's iterations vary between instances: chunks of one instance balance them.
  pool.parallel_for(n_instances, 1, [&](int begin, int end, int worker) {
    std::unique_ptr<Data>& slot = workers[static_cast<std::size_t>(worker)];
    if (!slot) slot = std::make_unique<Data>(m0);
    Data& d = *slot;
    for (int i = begin; i < end; ++i) {
      const Model& model = models[models.size() == 1 ? 0 : i];
      double* Y = out.Y.data() + static_cast<std::size_t>(i) * ny;
      initial_state(model, Y);
      out.results[i] = assemble(model, d, Y);
      if (!out.results[i].ok) {
        out.status[i] = static_cast<std::int8_t>(InstanceStatus::AssemblyFailed);
        out.reason[i] = kReasonAssemblyFailure;
      }
      const RunawayCoefficients c = runaway_coefficients(model, d, Y);
      out.runaway[2 * static_cast<std::size_t>(i)] = c.a;
      out.runaway[2 * static_cast<std::size_t>(i) + 1] = c.b;
    }
  });
  return out;
}

AssembledBatch assemble_batch(const std::vector<Model>& models, int n_instances, int threads) {
  ThreadPool pool(std::min(resolve_thread_count(threads), std::max(1, n_instances)));
  return assemble_batch(models, n_instances, pool);
}

}  // namespace simphant
