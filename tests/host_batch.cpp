// The host batch of the tests and its steps on the CPU grid, compiled once for every
// test file (tests/host_batch.hpp declares the steps extern).
#include "host_batch.hpp"

namespace simphant::test {

template <class T>
HostBatch<T>::HostBatch(const std::vector<Model>& models, int n_instances, const AssembledBatch& assembled, bool fused_path)
    : fused(fused_path), pattern(schur_pattern_of(models.front())), P(pattern.view()) {
  packed = batch::pack_models<T>(models, n_instances);
  mv = packed.host_view();
  n = n_instances;
  N = packed.n_bodies;
  J = packed.n_joints;
  m = packed.n_rows;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::size_t ny = 13 * static_cast<std::size_t>(N) * n;
  for (std::vector<T>* v : {&Y, &y_stage, &k[0], &k[1], &k[2], &k[3]}) v->assign(ny, nan);
  phi.assign(static_cast<std::size_t>(m) * n, nan);
  jac.assign(static_cast<std::size_t>(packed.jac_cols()) * m * n, nan);  // (m, 6 sides, n)
  gamma_star.assign(static_cast<std::size_t>(m) * n, nan);
  Q.assign(static_cast<std::size_t>(6) * N * n, nan);
  C.assign((fused ? static_cast<std::size_t>(pattern.n_values) : static_cast<std::size_t>(m) * m) * n, nan);
  rhs.assign(static_cast<std::size_t>(m) * n, nan);
  lambda_work.assign(static_cast<std::size_t>(m) * n, nan);
  refine.assign(static_cast<std::size_t>(m) * n, nan);
  refine_worst.assign(n, T(0));
  refine_worst_time.assign(n, T(0));
  refine_unconverged.assign(n, 0);
  pivot_min.assign(n, no_schur_pivot<T>());
  pivot_min_time.assign(n, T(0));
  step_pivot.assign(n, nan);
  for (std::vector<T>& v : saved_t) v.assign(n, nan);
  for (std::vector<int>& v : saved_i) v.assign(n, -7);
  floor.assign(static_cast<std::size_t>(m) * n, nan);
  diag.assign(static_cast<std::size_t>(m) * n, nan);
  recoveries.assign(n, 0);
  inputs.assign(static_cast<std::size_t>(packed.n_inputs) * n, nan);
  violation.assign(n, nan);
  frame.assign(batch::FrameLayout(n, N, J, packed.n_drivers).size, nan);
  time.assign(n, nan);
  clock_offset.assign(n, 0);
  info.assign(n, -7);
  fail.assign(n, 0);
  status = assembled.status;
  status_reason = assembled.reason;
  status_step.assign(n, 0);
  runaway.assign(2 * static_cast<std::size_t>(n), nan);
  for (int i = 0; i < n; ++i)
    for (int e = 0; e < 2; ++e)
      runaway[static_cast<std::size_t>(e) * n + i] = static_cast<T>(assembled.runaway[2 * static_cast<std::size_t>(i) + e]);
  step.assign(1, 0);
  for (int i = 0; i < n; ++i) {
    C_ptrs.push_back(fused ? nullptr : C.data() + static_cast<std::size_t>(i) * m * m);
    rhs_ptrs.push_back(rhs.data() + static_cast<std::size_t>(i) * m);
    for (int e = 0; e < 13 * N; ++e) Y[static_cast<std::size_t>(e) * n + i] = static_cast<T>(assembled.Y[static_cast<std::size_t>(i) * 13 * N + e]);
    const Model& model = models[models.size() == 1 ? 0 : i];
    for (const ForceElement& f : model.forces)
      if (f.type == ForceType::Actuator) inputs[static_cast<std::size_t>(f.input_index) * n + i] = static_cast<T>(f.value);
  }
  b = {Y.data(),   y_stage.data(), {k[0].data(), k[1].data(), k[2].data(), k[3].data()},
       phi.data(), jac.data(),     gamma_star.data(), Q.data(), C.data(), rhs.data(), lambda_work.data(),
       floor.data(), diag.data(), recoveries.data(), C_ptrs.data(), rhs_ptrs.data(),
       info.data(), fail.data(),   inputs.data(), violation.data(), status.data(), status_step.data(),
       status_reason.data(), runaway.data(), step.data(), frame.data(), fused ? 1 : 0, time.data(),
       clock_offset.data(), ReductionLayout{}, nullptr, batch::AdaptiveBuffers<T>{}, refine.data(),
       refine_worst.data(), refine_worst_time.data(), refine_unconverged.data(), pivot_min.data(),
       pivot_min_time.data(), step_pivot.data(),
       batch::ProjectionSaved<T>{saved_t[0].data(), saved_t[1].data(), saved_t[2].data(), saved_t[3].data(),
                                 saved_t[4].data(), saved_i[0].data(), saved_i[1].data(), saved_i[2].data()}};
}

template <class T>
HostBatch<T>::~HostBatch() = default;

template <class T>
void HostBatch<T>::enable_dopri5() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::size_t ny = 13 * static_cast<std::size_t>(N) * n;
  ad_y.assign(ny, nan);
  for (std::vector<T>& k5 : ad_k) k5.assign(ny, nan);
  ad_cont.assign(batch::kDopri5Dense * ny, nan);
  ad_y_grid.assign(ny, nan);
  ad_u.assign(static_cast<std::size_t>(packed.n_inputs) * n, nan);
  ad_scalars.assign(batch::kAdaptiveScalars * static_cast<std::size_t>(n), nan);
  ad_counts.assign(2 * static_cast<std::size_t>(n), -1);
  ad_flag.assign(n, -1);
  ad_unfinished.assign(1, -1);
  batch::AdaptiveBuffers<T>& ad = b.ad;
  ad.y = ad_y.data();
  for (int s = 0; s < 4; ++s) ad.k[s] = k[s].data();
  for (int s = 4; s < batch::kDopri5Stages; ++s) ad.k[s] = ad_k[s - 4].data();
  ad.cont = ad_cont.data();
  ad.y_grid = ad_y_grid.data();
  ad.u = ad_u.data();
  T** fields[] = {&ad.t, &ad.h, &ad.t_old, &ad.h_old, &ad.facold, &ad.t_stage, &ad.h_new, &ad.h_min, &ad.h_max};
  for (int f = 0; f < batch::kAdaptiveScalars; ++f) *fields[f] = ad_scalars.data() + static_cast<std::size_t>(f) * n;
  ad.accepted = ad_counts.data();
  ad.rejected = ad_counts.data() + n;
  ad.flag = ad_flag.data();
  ad.unfinished = ad_unfinished.data();
  for (int i = 0; i < n; ++i) batch::dopri5_restart_thread(i, n, static_cast<const int*>(nullptr), ad);
}

template struct HostBatch<double>;
template struct HostBatch<float>;

}  // namespace simphant::test

namespace simphant::batch {
SIMPHANT_TEST_GRID_STEPS(template, double)
SIMPHANT_TEST_GRID_STEPS(template, float)
}  // namespace simphant::batch
