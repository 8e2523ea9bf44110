#include "simphant/bench/bench_config.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace simphant::bench {

const std::vector<BenchConfig>& all_bench_configs() {
  static const std::vector<BenchConfig> configs = {
      {"cpu1-dense", "cpu", "fp64", 1, "dense"},        {"cpu1-sparse", "cpu", "fp64", 1, "sparse"},
      {"cpu1-simd", "cpu-simd", "fp64", 1, "auto"},
      {"cpu-dense", "cpu", "fp64", 0, "dense"},         {"cpu-sparse", "cpu", "fp64", 0, "sparse"},
      {"cpu-simd", "cpu-simd", "fp64", 0, "auto"},
      {"cuda64", "cuda", "fp64", 0, "auto"},            {"cuda32", "cuda", "fp32", 0, "auto"},
      {"fused64", "cuda-fused", "fp64", 0, "auto"},     {"fused32", "cuda-fused", "fp32", 0, "auto"},
  };
  return configs;
}

std::vector<BenchConfig> select_bench_configs(const std::vector<std::string>& names, bool with_simd) {
  static const std::map<std::string, std::vector<std::string>> groups = {
      {"cpu1", {"cpu1-dense", "cpu1-sparse", "cpu1-simd"}},
      {"cpu", {"cpu-dense", "cpu-sparse", "cpu-simd"}},
      {"cpu-all", {"cpu1-dense", "cpu1-sparse", "cpu1-simd", "cpu-dense", "cpu-sparse", "cpu-simd"}},
      {"simd", {"cpu1-simd", "cpu-simd"}},
      {"cuda", {"cuda64", "cuda32"}},
      {"fused", {"fused64", "fused32"}},
      {"gpu", {"cuda64", "cuda32", "fused64", "fused32"}},
  };
  const std::vector<BenchConfig>& all = all_bench_configs();
  std::vector<bool> chosen(all.size(), false);
  // A group (or "all") leaves the cpu-simd configurations out when !with_simd; a
  // configuration named on its own is always chosen.
  auto choose = [&](const std::string& name, bool from_group) {
    for (std::size_t c = 0; c < all.size(); ++c)
      if ((all[c].name == name || name == "all") && (with_simd || !from_group || all[c].backend != "cpu-simd"))
        chosen[c] = true;
  };
  for (const std::string& name : names) {
    const auto g = groups.find(name);
    const bool known = name == "all" || g != groups.end() ||
                       std::any_of(all.begin(), all.end(), [&](const BenchConfig& c) { return c.name == name; });
    if (!known) {
      std::string valid;
      for (const BenchConfig& c : all) valid += c.name + ", ";
      throw std::invalid_argument("unknown bench configuration '" + name + "' (" + valid +
                                  "or a group: cpu1, cpu, cpu-all, simd, cuda, fused, gpu, all)");
    }
    if (g != groups.end())
      for (const std::string& n : g->second) choose(n, true);
    else
      choose(name, name == "all");
  }
  std::vector<BenchConfig> out;
  for (std::size_t c = 0; c < all.size(); ++c)
    if (chosen[c]) out.push_back(all[c]);
  return out;
}

}  // namespace simphant::bench
