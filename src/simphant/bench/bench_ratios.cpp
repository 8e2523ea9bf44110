#include "simphant/bench/bench_ratios.hpp"

#include <set>

namespace simphant::bench {

namespace {

/// The ok row of (model, config, instances), or nullptr.
const BenchRow* find_row(const std::vector<BenchRow>& rows, const std::string& model, const std::string& config,
                         int instances) {
  for (const BenchRow& r : rows)
    if (r.status == "ok" && r.model == model && r.config.name == config && r.instances == instances) return &r;
  return nullptr;
}

/// The same-size ratios config / baseline for each (config, baseline) pair.
void same_size(const std::vector<BenchRow>& rows, const char* kind,
               const std::vector<std::pair<const char*, const char*>>& pairs, std::vector<BenchRatio>& out) {
  for (const auto& [config, baseline] : pairs)
    for (const BenchRow& r : rows) {
      if (r.status != "ok" || r.config.name != config) continue;
      const BenchRow* b = find_row(rows, r.model, baseline, r.instances);
      if (b) out.push_back({kind, r.model, r.instances, config, baseline, r.instance_steps_per_s / b->instance_steps_per_s});
    }
}

/// gpu/cpu: per model and GPU configuration, its best row vs the best all-threads cpu row
/// at the largest CPU size.
void gpu_vs_cpu(const std::vector<BenchRow>& rows, std::vector<BenchRatio>& out) {
  std::set<std::string> models;
  for (const BenchRow& r : rows) models.insert(r.model);
  for (const std::string& model : models) {
    const BenchRow* cpu = nullptr;
    for (const BenchRow& r : rows) {
      if (r.status != "ok" || r.model != model || r.config.gpu() || r.config.threads != 0) continue;
      if (!cpu || r.instances > cpu->instances ||
          (r.instances == cpu->instances && r.instance_steps_per_s > cpu->instance_steps_per_s))
        cpu = &r;
    }
    if (!cpu) continue;
    std::set<std::string> gpu_configs;
    for (const BenchRow& r : rows)
      if (r.model == model && r.config.gpu()) gpu_configs.insert(r.config.name);
    for (const std::string& config : gpu_configs) {
      const BenchRow* best = nullptr;
      for (const BenchRow& r : rows)
        if (r.status == "ok" && r.model == model && r.config.name == config &&
            (!best || r.instance_steps_per_s > best->instance_steps_per_s))
          best = &r;
      if (best)
        out.push_back({"gpu/cpu", model, best->instances, config,
                       cpu->config.name + "@" + std::to_string(cpu->instances),
                       best->instance_steps_per_s / cpu->instance_steps_per_s});
    }
  }
}

/// cga/aba: each ok row of a model "<robot>_cga" vs "<robot>_aba", same config and size.
void cga_vs_aba(const std::vector<BenchRow>& rows, std::vector<BenchRatio>& out) {
  for (const BenchRow& r : rows) {
    if (r.status != "ok" || r.solver != "cga" || r.model.size() < 4) continue;
    const std::string aba = r.model.substr(0, r.model.size() - 4) + "_aba";
    const BenchRow* b = find_row(rows, aba, r.config.name, r.instances);
    if (b && b->solver == "aba")
      out.push_back({"cga/aba", r.model, r.instances, r.config.name, aba, r.instance_steps_per_s / b->instance_steps_per_s});
  }
}

}  // namespace

std::vector<BenchRatio> bench_ratios(const std::vector<BenchRow>& rows) {
  std::vector<BenchRatio> out;
  same_size(rows, "sparse/dense", {{"cpu1-sparse", "cpu1-dense"}, {"cpu-sparse", "cpu-dense"}}, out);
  same_size(rows, "threads_all/threads_1",
            {{"cpu-dense", "cpu1-dense"}, {"cpu-sparse", "cpu1-sparse"}, {"cpu-simd", "cpu1-simd"}}, out);
  same_size(rows, "simd/scalar",
            {{"cpu1-simd", "cpu1-dense"}, {"cpu1-simd", "cpu1-sparse"}, {"cpu-simd", "cpu-dense"},
             {"cpu-simd", "cpu-sparse"}},
            out);
  same_size(rows, "fused/cuda", {{"fused64", "cuda64"}, {"fused32", "cuda32"}}, out);
  same_size(rows, "fp32/fp64", {{"cuda32", "cuda64"}, {"fused32", "fused64"}}, out);
  gpu_vs_cpu(rows, out);
  cga_vs_aba(rows, out);
  return out;
}

}  // namespace simphant::bench
