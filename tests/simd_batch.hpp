#pragma once
// A fused-path batch in host memory as the batched CPU step (simd/simd_step.hpp) reads
// it: HostBatch's arrays (host_batch.hpp, NaN-filled, cuda-fused layout) copied into
// 64-byte aligned storage, n_pad instances (a multiple of simd::kLaneWidth), and the
// SimdBatchView over them.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "host_batch.hpp"
#include "simphant/simd/simd_step.hpp"

namespace simphant::test {

struct SimdBatch {
  using L8 = Lanes<double, simd::kLaneWidth>;
  HostBatch<double> hb;
  std::vector<std::vector<L8>> store;  // L8's alignment (64 bytes) makes every block aligned
  std::vector<double> param_shared_lanes;
  simd::SimdBatchView view;

  /// models: 1 or n_pad instance models; n_pad a multiple of kLaneWidth.
  SimdBatch(const std::vector<Model>& models, int n_pad)
      : hb(models, n_pad, assemble_batch(models, n_pad, 1), /*fused_path=*/true) {
    view.mv = hb.mv;
    view.P = hb.P;
    view.b = hb.b;
    batch::BatchBuffers<double>& b = view.b;
    double** fields[] = {&b.Y,   &b.y_stage, &b.k[0],    &b.k[1],         &b.k[2],   &b.k[3],  &b.phi,
                         &b.jac, &b.gamma_star, &b.Q,    &b.C,            &b.rhs,    &b.lambda, &b.floor,
                         &b.inputs, &b.violation, &b.runaway, &b.time, &b.refine, &b.diag};
    const std::vector<double>* sources[] = {&hb.Y,   &hb.y_stage, &hb.k[0],      &hb.k[1], &hb.k[2],
                                            &hb.k[3], &hb.phi,    &hb.jac,       &hb.gamma_star, &hb.Q,
                                            &hb.C,   &hb.rhs,     &hb.lambda_work, &hb.floor, &hb.inputs,
                                            &hb.violation, &hb.runaway, &hb.time, &hb.refine, &hb.diag};
    for (std::size_t f = 0; f < std::size(fields); ++f) *fields[f] = aligned_copy(*sources[f]);
    view.mv.param_varied = aligned_copy(hb.packed.param_varied);
    param_shared_lanes.resize(hb.packed.param_shared.size() * simd::kLaneWidth);
    for (std::size_t p = 0; p < hb.packed.param_shared.size(); ++p)
      for (int l = 0; l < simd::kLaneWidth; ++l) param_shared_lanes[p * simd::kLaneWidth + l] = hb.packed.param_shared[p];
    view.param_shared_lanes = aligned_copy(param_shared_lanes);
  }
  SimdBatch(const SimdBatch&) = delete;
  SimdBatch& operator=(const SimdBatch&) = delete;

  int n() const { return view.mv.n_instances; }
  int groups() const { return n() / simd::kLaneWidth; }
  /// Element e of instance i of the state Y.
  double Y(int e, int i) const { return view.b.Y[static_cast<std::size_t>(e) * n() + i]; }
  double* Y_ptr() { return view.b.Y; }

  /// Every group's n_steps steps, the batch step advanced after.
  void advance(int n_steps, bool lanes) {
    simd::advance_groups(view, 0, groups(), n_steps, lanes);
    *view.b.step += n_steps;
  }

 private:
  double* aligned_copy(const std::vector<double>& v) {
    store.emplace_back((v.size() + simd::kLaneWidth - 1) / simd::kLaneWidth + 1);
    double* p = reinterpret_cast<double*>(store.back().data());
    if (!v.empty()) std::memcpy(p, v.data(), v.size() * sizeof(double));
    return p;
  }
};

}  // namespace simphant::test
