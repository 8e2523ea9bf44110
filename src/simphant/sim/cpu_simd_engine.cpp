#include "simphant/sim/cpu_simd_engine.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "simphant/dynamics/data.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/sim/backend_rules.hpp"

namespace simphant {

namespace {

constexpr int W = simd::kLaneWidth;

}  // namespace

std::string cpu_simd_unsupported(const Model& model) {
  if (model.robot && model.robot->solver != RobotSolver::Dae)
    return std::string("solver.type '") + robot_solver_name(model.robot->solver) +
           "' runs in joint coordinates (the joint-space backend, in SIMD lanes on cpu-simd); this engine runs the DAE path (solver.type 'dae')";
  // The integrator: the backend rules' words (sim/backend_rules.hpp).
  if (const std::optional<BackendRefusal> r = refuse_backend_settings({"cpu-simd", "fp64", model.solver.integrator}))
    return r->reason;
  return "";
}

CpuSimdEngine::CpuSimdEngine(const std::vector<Model>& models, int n_instances)
    : n_(n_instances), n_pad_((n_instances + W - 1) / W * W) {
  if (n_instances <= 0) throw std::invalid_argument("CpuSimdEngine: no instance");
  const std::string why = cpu_simd_unsupported(models.front());
  if (!why.empty()) throw std::invalid_argument(why);
  pattern_ = schur_pattern_of(models.front());
  // Packed for the real instances, as the cuda-fused path packs them.
  packed_ = batch::pack_models<double>(models, n_);
  copy_params();
  allocate();
}

void CpuSimdEngine::set_models(const int* ids, int count, const std::vector<Model>& models) {
  for (int k = 0; k < count; ++k) {
    const int i = ids ? ids[k] : k;
    batch::set_instance_params(packed_, i, batch::flatten_params(models[static_cast<std::size_t>(i)]));
  }
  copy_params();
}

void CpuSimdEngine::copy_params() {
  // The per-instance parameters in aligned rows of n_pad, padding with the last real instance.
  const std::size_t n = static_cast<std::size_t>(n_), np = static_cast<std::size_t>(n_pad_);
  const std::size_t n_varied = static_cast<std::size_t>(packed_.n_varied());
  param_varied_.assign(n_varied * np);
  for (std::size_t r = 0; r < n_varied; ++r)
    for (std::size_t i = 0; i < np; ++i)
      param_varied_.data()[r * np + i] = packed_.param_varied[r * n + std::min(i, n - 1)];
  // Each shared parameter broadcast to the W lanes (ModelView<Lanes> reads param_shared as Lanes).
  const std::size_t P = packed_.param_shared.size();
  param_shared_lanes_.assign(P * W);
  for (std::size_t k = 0; k < P; ++k)
    for (int l = 0; l < W; ++l) param_shared_lanes_.data()[k * W + l] = packed_.param_shared[k];
  view_.mv = packed_.host_view();
  view_.mv.n_instances = n_pad_;
  view_.mv.param_varied = param_varied_.data();
  view_.param_shared_lanes = param_shared_lanes_.data();
  view_.P = pattern_.view();
}

void CpuSimdEngine::allocate() {
  const std::size_t np = static_cast<std::size_t>(n_pad_);
  const std::size_t ny = 13 * static_cast<std::size_t>(packed_.n_bodies), m = static_cast<std::size_t>(packed_.n_rows);
  Y_.assign(ny * np);
  y_stage_.assign(ny * np);
  for (AlignedArray<double>& k : k_) k.assign(ny * np);
  phi_.assign(m * np);
  jac_.assign(static_cast<std::size_t>(packed_.jac_cols()) * m * np);  // (m, 6 sides, n_pad)
  gamma_star_.assign(m * np);
  Q_.assign(6 * static_cast<std::size_t>(packed_.n_bodies) * np);
  C_.assign(static_cast<std::size_t>(pattern_.n_values) * np);
  rhs_.assign(m * np);
  lambda_.assign(m * np);
  refine_.assign(m * np);
  floor_.assign(m * np);
  diag_.assign(m * np);
  inputs_.assign(static_cast<std::size_t>(packed_.n_inputs) * np);
  violation_.assign(np);
  runaway_.assign(2 * np);
  time_.assign(np);
  recoveries_.assign(np);
  refine_worst_.assign(np);
  refine_worst_time_.assign(np);
  refine_unconverged_.assign(np);
  pivot_min_.assign(np);
  pivot_min_time_.assign(np);
  std::fill(pivot_min_.data(), pivot_min_.data() + np, no_schur_pivot<double>());
  step_pivot_.assign(np);
  std::fill(step_pivot_.data(), step_pivot_.data() + np, no_schur_pivot<double>());
  for (AlignedArray<double>* a : {&saved_step_pivot_, &saved_pivot_min_, &saved_pivot_min_time_, &saved_refine_worst_,
                                  &saved_refine_worst_time_})
    a->assign(np);
  for (AlignedArray<int>* a : {&saved_refine_unconverged_, &saved_recoveries_, &saved_fail_}) a->assign(np);
  info_.assign(np);
  fail_.assign(np);
  status_.assign(np);
  reason_.assign(np);
  status_step_.assign(np);
  clock_offset_.assign(np);
  batch::BatchBuffers<double>& b = view_.b;
  b = batch::BatchBuffers<double>{};
  b.Y = Y_.data();
  b.y_stage = y_stage_.data();
  for (int s = 0; s < 4; ++s) b.k[s] = k_[s].data();
  b.phi = phi_.data();
  b.jac = jac_.data();
  b.gamma_star = gamma_star_.data();
  b.Q = Q_.data();
  b.C = C_.data();
  b.rhs = rhs_.data();
  b.lambda = lambda_.data();
  b.refine = refine_.data();
  b.refine_worst = refine_worst_.data();
  b.refine_worst_time = refine_worst_time_.data();
  b.refine_unconverged = refine_unconverged_.data();
  b.pivot_min = pivot_min_.data();
  b.pivot_min_time = pivot_min_time_.data();
  b.step_pivot = step_pivot_.data();
  b.saved = {saved_step_pivot_.data(),   saved_pivot_min_.data(),         saved_pivot_min_time_.data(),
             saved_refine_worst_.data(), saved_refine_worst_time_.data(), saved_refine_unconverged_.data(),
             saved_recoveries_.data(),   saved_fail_.data()};
  b.floor = floor_.data();
  b.diag = diag_.data();
  b.recoveries = recoveries_.data();
  b.info = info_.data();
  b.fail = fail_.data();
  b.inputs = inputs_.data();
  b.violation = violation_.data();
  b.status = status_.data();
  b.status_step = status_step_.data();
  b.status_reason = reason_.data();
  b.runaway = runaway_.data();
  b.step = &step_;
  b.lambda_soa = 1;
  b.time = time_.data();
  b.clock_offset = clock_offset_.data();
}

void CpuSimdEngine::move_in(const CpuRows& r, int i0, int i1) {
  const std::size_t np = static_cast<std::size_t>(n_pad_);
  const int ny = 13 * packed_.n_bodies, nu = packed_.n_inputs, w = r.red.any() ? r.red.size() : 0;
  for (int i = i0; i < i1; ++i) {
    const std::size_t s = static_cast<std::size_t>(std::min(i, n_ - 1));  // padding: the last real instance
    const std::size_t c = static_cast<std::size_t>(i);
    for (int e = 0; e < ny; ++e) Y_.data()[e * np + c] = r.Y[s * ny + e];
    for (int e = 0; e < nu; ++e) inputs_.data()[e * np + c] = r.inputs[s * nu + e];
    // The device path counts status steps and the maxima's times on the batch clock;
    // CpuBackend on the instance's own (batch step - offset).
    status_.data()[c] = r.status[s];
    reason_.data()[c] = r.reason[s];
    status_step_.data()[c] = r.status_step[s] + r.offset[s];
    clock_offset_.data()[c] = r.offset[s];
    runaway_.data()[c] = r.runaway[2 * s];
    runaway_.data()[np + c] = r.runaway[2 * s + 1];
    fail_.data()[c] = 0;
    for (int e = 0; e < w; ++e) red_acc_.data()[e * np + c] = r.red_acc[s * w + e];
    for (int ch = 0; ch < r.red.channels; ++ch)
      red_acc_.data()[static_cast<std::size_t>(1 + kReductionSlots * ch + 4) * np + c] += static_cast<double>(r.offset[s]);
  }
}

void CpuSimdEngine::move_out(const CpuRows& r, int i0, int i1) const {
  const std::size_t np = static_cast<std::size_t>(n_pad_);
  const int ny = 13 * packed_.n_bodies, w = r.red.any() ? r.red.size() : 0;
  for (int i = i0; i < std::min(i1, n_); ++i) {
    const std::size_t c = static_cast<std::size_t>(i);
    for (int e = 0; e < ny; ++e) r.Y[c * ny + e] = Y_.data()[e * np + c];
    r.status[c] = status_.data()[c];
    r.reason[c] = reason_.data()[c];
    r.status_step[c] = status_step_.data()[c] - r.offset[c];
    for (int e = 0; e < w; ++e) r.red_acc[c * w + e] = red_acc_.data()[e * np + c];
    for (int ch = 0; ch < r.red.channels; ++ch)
      r.red_acc[c * w + 1 + kReductionSlots * ch + 4] -= static_cast<double>(r.offset[c]);
  }
}

void CpuSimdEngine::set_reductions(const ReductionLayout& red) {
  const std::size_t w = red.any() ? static_cast<std::size_t>(red.size()) : 0;
  red_acc_.assign(w * static_cast<std::size_t>(n_pad_));
  view_.b.red = red;
  view_.b.red_acc = w ? red_acc_.data() : nullptr;
}

void CpuSimdEngine::advance(const CpuRows& rows, std::int64_t step0, int n_steps, ThreadPool& pool) {
  const std::size_t w = rows.red.any() ? static_cast<std::size_t>(rows.red.size()) : 0;
  if (red_acc_.size() != w * static_cast<std::size_t>(n_pad_))
    throw std::logic_error("CpuSimdEngine::advance: the reductions' layout was not set (set_reductions)");
  step_ = step0;
  const int groups = n_pad_ / W;
  // One group per chunk: a group's arrays (a few 10 KB) stay in its worker's cache from
  // the move in through every step to the move out; workers take the next group when free.
  // The region's arguments behind one pointer: a capture that fits std::function's local
  // storage, so that advance() allocates nothing (tests/test_no_allocation.cpp).
  struct Region {
    CpuSimdEngine* engine;
    const CpuRows* rows;
    int n_steps;
  } region{this, &rows, n_steps};
  pool.parallel_for(groups, 1, [r = &region](int g0, int g1, int /*worker*/) {
    const int i0 = g0 * W, i1 = g1 * W;
    r->engine->move_in(*r->rows, i0, i1);
    simd::advance_groups(r->engine->view_, g0, g1, r->n_steps, true);
    r->engine->move_out(*r->rows, i0, i1);
  });
  step_ = step0 + n_steps;
}

std::int64_t CpuSimdEngine::recoveries() const {
  std::int64_t total = 0;
  for (int i = 0; i < n_; ++i) total += recoveries_.data()[i];
  return total;
}

RefinementRecord CpuSimdEngine::refinement(int i) const {
  RefinementRecord r;
  r.unconverged = refine_unconverged_.data()[i];
  r.worst = refine_worst_.data()[i];
  r.worst_time = refine_worst_time_.data()[i];
  r.min_pivot = pivot_min_.data()[i];
  r.min_pivot_time = pivot_min_time_.data()[i];
  return r;
}

}  // namespace simphant
