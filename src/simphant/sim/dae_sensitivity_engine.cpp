#include "simphant/sim/dae_sensitivity_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <Eigen/QR>

#include "batch_buffers.hpp"  // kernels/ (a private include directory)
#include "batch_step.hpp"
#include "fused_stage.hpp"
#include "simphant/batch/view_convert.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/coordinate_targets.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/formulas/pivot_watch.hpp"
#include "simphant/model/integrator.hpp"
#include "simphant/sim/joint_coordinates.hpp"
#include "simphant/sim/quaternion_sign.hpp"

namespace simphant {

/// One pass of kWidth tangents: the whole cuda-fused batch in Dual numbers (the arrays
/// of kernels/batch_buffers.hpp, structure of arrays with the instance fastest).
template <int W>
struct DaeSensitivityEngine<W>::Pass {
  std::vector<D> param_shared, param_varied, dy0;
  std::vector<D> Y, y_stage, k[4], phi, jac, gamma_star, Q, C, rhs, lambda, refine, floor, diag, inputs, violation,
      time, runaway, refine_worst, refine_worst_time, pivot_min, pivot_min_time, step_pivot, saved_t[5], frame;
  std::vector<int> recoveries, info, fail, refine_unconverged, saved_i[3];
  std::vector<double> red_acc, red_tangent;  ///< the reductions' accumulators and their tangents
  std::vector<std::int8_t> status, reason;
  std::vector<std::int64_t> status_step, clock_offset;
  batch::ModelView<D> mv{};
  batch::BatchBuffers<D> b{};
};

template <int W>
DaeSensitivityEngine<W>::DaeSensitivityEngine(std::shared_ptr<const std::vector<Model>> models_ptr, int n_instances,
                                           SensitivitySeeds seeds, int threads)
    : SensitivityEngine(std::move(seeds)), n_(n_instances), models_(std::move(models_ptr)),
      pattern_(schur_pattern_of(models_->front())) {
  const std::vector<Model>& models = *models_;
  quaternions_ = state_quaternion_offsets(models.front());
  packed_ = batch::pack_models<double>(models, n_);
  N_ = packed_.n_bodies;
  ny_ = 13 * N_;
  const int S = n_sensitivities(), np = packed_.n_params, m = packed_.n_rows;
  const std::size_t n = static_cast<std::size_t>(n_);
  if (S < 1 || seeds_.dparam.size() != static_cast<std::size_t>(S) * n * np ||
      seeds_.dy0.size() != static_cast<std::size_t>(S) * n * ny_ ||
      seeds_.dinput.size() != static_cast<std::size_t>(S) * n * packed_.n_inputs ||
      seeds_.quaternion_ref.size() != static_cast<std::size_t>(S) * n * quaternions_.size() * 4)
    throw std::invalid_argument("SensitivityEngine: the seeds do not fit the batch (" + std::to_string(S) +
                                " parameters, " + std::to_string(n_) + " instances)");
  // Every parameter is read per instance: a tangent may differ between instances even
  // where the values do not.
  slot_.resize(static_cast<std::size_t>(np));
  for (int p = 0; p < np; ++p) slot_[static_cast<std::size_t>(p)] = p;
  std::vector<std::vector<double>> flat(models.size());
  for (std::size_t k = 0; k < models.size(); ++k) flat[k] = batch::flatten_params(models[k]);
  // The parameters' values for the tangent-linear solve (BatchBuffers::param_values): row
  // 0 shared (none is: every slot is per instance), row 1 + i instance i's by slot.
  std::vector<double> varied(static_cast<std::size_t>(np) * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int q = 0; q < np; ++q)
      varied[static_cast<std::size_t>(q) * n + i] = flat[models.size() == 1 ? 0 : i][static_cast<std::size_t>(q)];
  param_values_ = batch::param_value_rows(flat.front(), varied, n_, np);
  const batch::ModelView<double> host = packed_.host_view();
  const D nan = D(std::numeric_limits<double>::quiet_NaN());
  const int n_pass = (S + kWidth - 1) / kWidth;
  for (int c = 0; c < n_pass; ++c) {
    auto pass = std::make_unique<Pass>();
    Pass& p = *pass;
    p.param_shared.assign(flat.front().begin(), flat.front().end());
    p.param_varied.resize(static_cast<std::size_t>(np) * n);
    p.dy0.assign(static_cast<std::size_t>(ny_) * n, D(0.0));
    for (std::size_t i = 0; i < n; ++i) {
      const std::vector<double>& f = flat[models.size() == 1 ? 0 : i];
      for (int q = 0; q < np; ++q) {
        D& x = p.param_varied[static_cast<std::size_t>(q) * n + i];
        x = D(f[static_cast<std::size_t>(q)]);
        for (int t = 0; t < kWidth && c * kWidth + t < S; ++t)
          x.d[t] = seeds_.dparam[(static_cast<std::size_t>(c * kWidth + t) * n + i) * np + q];
      }
      for (int e = 0; e < ny_; ++e)
        for (int t = 0; t < kWidth && c * kWidth + t < S; ++t)
          p.dy0[static_cast<std::size_t>(e) * n + i].d[t] =
              seeds_.dy0[(static_cast<std::size_t>(c * kWidth + t) * n + i) * ny_ + e];
    }
    p.mv = batch::view_with<D>(host, p.param_shared.data(), slot_.data(), p.param_varied.data());
    const std::size_t sy = static_cast<std::size_t>(ny_) * n, sm = static_cast<std::size_t>(m) * n;
    p.Y = p.dy0;
    for (std::vector<D>* v : {&p.y_stage, &p.k[0], &p.k[1], &p.k[2], &p.k[3]}) v->assign(sy, nan);
    for (std::vector<D>* v : {&p.phi, &p.gamma_star, &p.rhs, &p.lambda, &p.refine, &p.floor, &p.diag}) v->assign(sm, nan);
    p.jac.assign(static_cast<std::size_t>(packed_.jac_cols()) * sm, nan);
    p.Q.assign(static_cast<std::size_t>(6) * N_ * n, nan);
    p.C.assign(static_cast<std::size_t>(pattern_.n_values) * n, nan);
    p.frame.assign(batch::FrameLayout(n_, N_, packed_.n_joints, packed_.n_drivers).size, nan);
    p.inputs.assign(static_cast<std::size_t>(packed_.n_inputs) * n, D(0.0));
    for (std::size_t i = 0; i < n; ++i)
      for (const ForceElement& f : models[models.size() == 1 ? 0 : i].forces)
        if (f.type == ForceType::Actuator) {
          D& u = p.inputs[static_cast<std::size_t>(f.input_index) * n + i];
          u = D(f.value);
          for (int t = 0; t < kWidth && c * kWidth + t < S; ++t)
            u.d[t] = seeds_.dinput[(static_cast<std::size_t>(c * kWidth + t) * n + i) * packed_.n_inputs + f.input_index];
        }
    for (std::vector<D>* v : {&p.violation, &p.time, &p.refine_worst, &p.refine_worst_time, &p.pivot_min_time})
      v->assign(n, D(0.0));
    p.pivot_min.assign(n, no_schur_pivot<D>());
    p.step_pivot.assign(n, no_schur_pivot<D>());
    for (std::vector<D>& v : p.saved_t) v.assign(n, nan);
    for (std::vector<int>& v : p.saved_i) v.assign(n, 0);
    // The backend checks the runaway bound on its own state; the engine never flags it.
    p.runaway.assign(2 * n, D(0.0));
    for (std::size_t i = 0; i < n; ++i) p.runaway[i] = D(std::numeric_limits<double>::infinity());
    for (std::vector<int>* v : {&p.recoveries, &p.info, &p.fail, &p.refine_unconverged}) v->assign(n, 0);
    p.status.assign(n, batch::kStatusOk);
    p.reason.assign(n, 0);
    p.status_step.assign(n, 0);
    p.clock_offset.assign(n, 0);
    batch::BatchBuffers<D>& b = p.b;
    b.Y = p.Y.data();
    b.y_stage = p.y_stage.data();
    for (int s = 0; s < 4; ++s) b.k[s] = p.k[s].data();
    b.phi = p.phi.data();
    b.jac = p.jac.data();
    b.gamma_star = p.gamma_star.data();
    b.Q = p.Q.data();
    b.C = p.C.data();
    b.rhs = p.rhs.data();
    b.lambda = p.lambda.data();
    b.refine = p.refine.data();
    b.refine_worst = p.refine_worst.data();
    b.refine_worst_time = p.refine_worst_time.data();
    b.refine_unconverged = p.refine_unconverged.data();
    b.pivot_min = p.pivot_min.data();
    b.pivot_min_time = p.pivot_min_time.data();
    b.step_pivot = p.step_pivot.data();
    b.saved = {p.saved_t[0].data(), p.saved_t[1].data(), p.saved_t[2].data(), p.saved_t[3].data(),
               p.saved_t[4].data(), p.saved_i[0].data(), p.saved_i[1].data(), p.saved_i[2].data()};
    b.floor = p.floor.data();
    b.diag = p.diag.data();
    b.recoveries = p.recoveries.data();
    b.info = p.info.data();
    b.fail = p.fail.data();
    b.inputs = p.inputs.data();
    b.violation = p.violation.data();
    b.status = p.status.data();
    b.status_step = p.status_step.data();
    b.status_reason = p.reason.data();
    b.runaway = p.runaway.data();
    b.step = nullptr;  // per instance (advance_instance)
    b.lambda_soa = 1;
    b.time = p.time.data();
    b.clock_offset = p.clock_offset.data();
    b.frame = p.frame.data();
    b.param_values = param_values_.data();
    passes_.push_back(std::move(pass));
  }
  // The seeds' projection onto the constraints' tangent (project_seeds): where the
  // assembly solves Phi = 0 alone (no joint coordinates or rates given in joint terms) and
  // densely.
  const Model& m0 = models.front();
  project_seeds_ = m > 0 && !uses_sparse_assembly(m0) && coordinate_targets(m0, false).empty() &&
                   coordinate_targets(m0, true).empty();
  n_laws_ = dae_joint_law_count(models.front());
  crossed_.assign(n, 0);
  branch_.assign(n * static_cast<std::size_t>(n_laws_), 0);
  pool_ = std::make_unique<ThreadPool>(resolve_thread_count(threads));
  scratch_.resize(static_cast<std::size_t>(pool_->size()));
}

template <int W>
void DaeSensitivityEngine<W>::check_branches(std::size_t i, BranchCheck when, Scratch& scratch) {
  if (n_laws_ == 0) return;
  const Pass& p = *passes_.front();  // every pass has the same values
  const std::size_t n = static_cast<std::size_t>(n_), nu = static_cast<std::size_t>(packed_.n_inputs),
                    ny = static_cast<std::size_t>(ny_);
  scratch.y.resize(ny + nu);
  scratch.branch.resize(static_cast<std::size_t>(n_laws_));
  double* y = scratch.y.data();
  double* u = y + ny;
  for (std::size_t e = 0; e < ny; ++e) y[e] = p.Y[e * n + i].v;
  for (std::size_t e = 0; e < nu; ++e) u[e] = p.inputs[e * n + i].v;
  dae_joint_law_branches((*models_)[models_->size() == 1 ? 0 : i], y, u, scratch.branch.data());
  note_branches(i, scratch.branch.data(), when);
}

template <int W>
DaeSensitivityEngine<W>::~DaeSensitivityEngine() = default;

template <int W>
void DaeSensitivityEngine<W>::set_inputs(const int* ids, int count, const double* u) {
  const int nu = packed_.n_inputs;
  const std::size_t n = static_cast<std::size_t>(n_);
  for (const std::unique_ptr<Pass>& p : passes_)
    for (int k = 0; k < count; ++k) {
      const std::size_t i = static_cast<std::size_t>(ids ? ids[k] : k);
      for (int e = 0; e < nu; ++e) p->inputs[static_cast<std::size_t>(e) * n + i] = D(u[static_cast<std::size_t>(k) * nu + e]);
    }
  Scratch scratch;
  for (int k = 0; k < count; ++k) check_branches(static_cast<std::size_t>(ids ? ids[k] : k), BranchCheck::Inputs, scratch);
}

template <int W>
void DaeSensitivityEngine<W>::set_reductions(const ReductionLayout& L) {
  red_ = L;
  const std::size_t n = static_cast<std::size_t>(n_);
  for (const std::unique_ptr<Pass>& p : passes_) {
    p->red_acc.assign(L.any() ? static_cast<std::size_t>(L.size()) * n : 0, 0.0);
    p->red_tangent.assign(L.any() ? static_cast<std::size_t>(L.tangent_size()) * kWidth * n : 0, 0.0);
    p->b.red = L;
    p->b.red_acc = L.any() ? p->red_acc.data() : nullptr;
    p->b.red_tangent = L.any() ? p->red_tangent.data() : nullptr;
    for (std::size_t i = 0; i < n && L.any(); ++i) clear_reductions(*p, i);
  }
}

template <int W>
void DaeSensitivityEngine<W>::clear_reductions(Pass& p, std::size_t i) const {
  const ReductionAcc a{p.red_acc.data() + i, static_cast<std::size_t>(n_), p.red_tangent.data() + i};
  reduction_clear(red_, a);
  reduction_clear_tangent(red_, a, kWidth);
}

template <int W>
void DaeSensitivityEngine<W>::project_seeds(std::size_t i, std::int64_t batch_step) {
  const int m = packed_.n_rows, w = packed_.jac_cols(), nv = 6 * N_;
  const std::size_t n = static_cast<std::size_t>(n_);
  const int ii = static_cast<int>(i);
  std::int64_t step = batch_step;
  const auto element = [&](const std::vector<D>& a, int e) -> const D& { return a[static_cast<std::size_t>(e) * n + i]; };
  // A parameter that moves none of the starting state (a mass, a force, gravity) has
  // nothing to project.
  bool any = false;
  for (const std::unique_ptr<Pass>& p : passes_)
    for (int e = 0; e < ny_ && !any; ++e)
      for (int t = 0; t < W; ++t) any = any || element(p->Y, e).d[t] != 0.0;
  if (!any) return;
  // Phi, Phi_q and gamma* of pass p at the start (the instance's clock at 0), in dual numbers.
  const auto rows = [&](Pass& p) {
    batch::BatchBuffers<D> b = p.b;
    b.step = &step;
    batch::instance_time_thread(ii, p.mv, static_cast<const std::int64_t*>(b.step),
                                static_cast<const std::int64_t*>(b.clock_offset), D(0.0), b.time);
    for (int j = 0; j < p.mv.n_constraints(); ++j)
      batch::joint_rows_thread(j * n_ + ii, p.mv, static_cast<const D*>(b.time), static_cast<const D*>(b.Y), b.phi,
                               b.jac, b.gamma_star);
  };
  // Phi_q (m, 6 N) at the assembled state: the values, the same in every pass.
  Pass& first = *passes_.front();
  rows(first);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(m, nv);
  for (int j = 0; j < first.mv.n_constraints(); ++j)
    for (int r = 0; r < first.mv.rows_of(j); ++r) {
      const int R = first.mv.row_offset[j] + r;
      for (int side = 0; side < first.mv.sides; ++side) {
        const int k = first.mv.body_of(j, side);
        if (k < 0) continue;
        for (int c = 0; c < 6; ++c) A(R, 6 * k + c) += element(first.jac, w * R + 6 * side + c).v;
      }
    }
  // One decomposition serves the instances whose Phi_q is the same (every instance where
  // the sweep moves neither the start nor the joint frames).
  if (!(A.rows() == projection_A_.rows() && A.cols() == projection_A_.cols() && A == projection_A_)) {
    projection_A_ = A;
    projection_cod_.setThreshold(kAssemblyRankThreshold);
    projection_cod_.compute(A);
  }
  const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>& cod = projection_cod_;
  // The minimum-norm corrections of the residuals' tangents (m, W) for the state entries
  // e0 .. e1 - 1 (positions or velocities). A correction at or below 64 eps of the largest
  // starting tangent there is rounding of the residual, not a change (a planar
  // mechanism's out-of-plane rows evaluate to 1e-20 where the seeds are exactly 0): it is
  // dropped, so that such a coordinate keeps its exact-zero tangent (a magnitude |f| at 0
  // has a derivative only where its components' stay 0). So is every correction of a
  // tangent whose entries there are all exactly 0: the compiler and the assembly say the
  // parameter does not move them (a joint's location given in the world frame moves both
  // joint frames, not the bodies), and the residual is then the rounding of the joint
  // frames' own seeds (eps |x| / h of them, sim/sensitivity_seeds.hpp).
  const auto corrections = [&](const Pass& p, const Eigen::MatrixXd& residual, int e0, int e1) {
    Eigen::MatrixXd delta = cod.solve(residual);
    for (int t = 0; t < W; ++t) {
      double scale = 0;
      for (int e = e0; e < e1; ++e) scale = std::max(scale, std::abs(element(p.Y, e).d[t]));
      const double floor = 64 * std::numeric_limits<double>::epsilon() * scale;
      for (Eigen::Index e = 0; e < delta.rows(); ++e)
        if (!(scale > 0 && std::abs(delta(e, t)) > floor)) delta(e, t) = 0.0;
    }
    return delta;
  };
  Eigen::MatrixXd residual(m, W);
  for (const std::unique_ptr<Pass>& pass : passes_) {
    Pass& p = *pass;
    if (&p != &first) rows(p);
    // Positions: the tangent of Phi along the seeds, Phi_q dq + Phi_p, removed in the
    // assembly's coordinates (r (W), the body-frame rotation vector).
    for (int R = 0; R < m; ++R)
      for (int t = 0; t < W; ++t) residual(R, t) = element(p.phi, R).d[t];
    const Eigen::MatrixXd dq = corrections(p, residual, 0, 7 * N_);
    const auto at = [&](int e) -> D& { return p.Y[static_cast<std::size_t>(e) * n + i]; };
    for (int k = 0; k < N_; ++k) {
      const Quat<double> q{at(7 * k + 3).v, at(7 * k + 4).v, at(7 * k + 5).v, at(7 * k + 6).v};
      for (int t = 0; t < W; ++t) {
        for (int c = 0; c < 3; ++c) at(7 * k + c).d[t] -= dq(6 * k + c, t);
        // p' = p (x) (0, dtheta) / 2 for a body-frame rotation dtheta (as a rate, quat_rate).
        const Quat<double> dp = quat_rate(q, Vec3<double>{dq(6 * k + 3, t), dq(6 * k + 4, t), dq(6 * k + 5, t)});
        at(7 * k + 3).d[t] -= dp.w;
        at(7 * k + 4).d[t] -= dp.x;
        at(7 * k + 5).d[t] -= dp.y;
        at(7 * k + 6).d[t] -= dp.z;
        // |p| = 1 at every value of the parameter, so p . p' = 0: the differences' part
        // along p (their rounding and O(h^2)) is removed.
        const double along = q.w * at(7 * k + 3).d[t] + q.x * at(7 * k + 4).d[t] + q.y * at(7 * k + 5).d[t] +
                             q.z * at(7 * k + 6).d[t];
        at(7 * k + 3).d[t] -= along * q.w;
        at(7 * k + 4).d[t] -= along * q.x;
        at(7 * k + 5).d[t] -= along * q.y;
        at(7 * k + 6).d[t] -= along * q.z;
      }
    }
    // Velocities: the tangent of Phi_q qdot + Phi_t (projection_rhs_thread: gamma* = its
    // negative), with the positions' tangents just set, removed in (v (W), omega (B)).
    rows(p);
    batch::projection_rhs_thread(ii, p.mv, kProjectVelocity, static_cast<const D*>(p.time.data()),
                                 static_cast<const D*>(p.Y.data()), static_cast<const D*>(p.phi.data()),
                                 static_cast<const D*>(p.jac.data()), p.Q.data(), p.gamma_star.data());
    for (int R = 0; R < m; ++R)
      for (int t = 0; t < W; ++t) residual(R, t) = -element(p.gamma_star, R).d[t];
    const Eigen::MatrixXd dv = corrections(p, residual, 7 * N_, ny_);
    for (int e = 0; e < nv; ++e)
      for (int t = 0; t < W; ++t) at(7 * N_ + e).d[t] -= dv(e, t);
  }
}

template <int W>
void DaeSensitivityEngine<W>::start(const int* ids, int count, const double* y, const std::int8_t* status,
                              std::int64_t batch_step) {
  const std::size_t n = static_cast<std::size_t>(n_);
  for (int k = 0; k < count; ++k) {
    const std::size_t i = static_cast<std::size_t>(ids ? ids[k] : k);
    for (const std::unique_ptr<Pass>& p : passes_) {
      if (red_.any()) clear_reductions(*p, i);
      const double* yk = y + static_cast<std::size_t>(k) * ny_;
      for (int e = 0; e < ny_; ++e) {
        D& x = p->Y[static_cast<std::size_t>(e) * n + i];
        x = p->dy0[static_cast<std::size_t>(e) * n + i];
        x.v = yk[e];
      }
      p->status[i] = status[k] == batch::kStatusOk ? batch::kStatusOk : batch::kStatusDiverged;
      p->reason[i] = 0;
      p->status_step[i] = batch_step;
      p->clock_offset[i] = batch_step;
    }
    turn_quaternion_seeds(i, n, y + static_cast<std::size_t>(k) * ny_, [&](int s, int e) -> double& {
      return passes_[static_cast<std::size_t>(s / kWidth)]->Y[static_cast<std::size_t>(e) * n + i].d[s % kWidth];
    });
    if (project_seeds_ && status[k] == batch::kStatusOk) project_seeds(i, batch_step);
  }
  Scratch scratch;
  for (int k = 0; k < count; ++k) check_branches(static_cast<std::size_t>(ids ? ids[k] : k), BranchCheck::Start, scratch);
}

template <int W>
void DaeSensitivityEngine<W>::advance_instance(Pass& p, int i, std::int64_t batch_step, int n_steps, Scratch& scratch) {
  const std::size_t c = static_cast<std::size_t>(i);
  if (p.status[c] != batch::kStatusOk || crossed_[c]) return;  // crossed: NaN until it starts again
  p.fail[c] = 0;
  std::int64_t step = batch_step;
  batch::BatchBuffers<D> b = p.b;
  b.step = &step;  // this instance's own counter, as simd::advance_groups keeps it
  const bool euler = p.mv.integrator == static_cast<std::int8_t>(Integrator::Euler) ||
                     p.mv.integrator == static_cast<std::int8_t>(Integrator::SymplecticEuler);
  const D half_dt = D(0.5) * p.mv.dt;
  const D stage_h[4] = {half_dt, half_dt, p.mv.dt, p.mv.dt};
  for (int t = 0; t < n_steps && p.status[c] == batch::kStatusOk; ++t) {
    if (euler) {
      batch::fused_euler_thread(i, p.mv, pattern_.view(), b);
    } else {
      for (int s = 0; s < 4; ++s) batch::fused_stage_thread(i, p.mv, pattern_.view(), b, s, stage_h[s]);
    }
    ++step;
    if (&p == passes_.front().get() && !crossed_[c] && p.status[c] == batch::kStatusOk)
      check_branches(c, BranchCheck::Step, scratch);
  }
}

template <int W>
void DaeSensitivityEngine<W>::advance(std::int64_t batch_step, int n_steps) {
  struct Region {
    DaeSensitivityEngine* engine;
    std::int64_t batch_step;
    int n_steps;
  } region{this, batch_step, n_steps};
  pool_->parallel_for(n_, 1, [r = &region](int i0, int i1, int worker) {
    Scratch& scratch = r->engine->scratch_[static_cast<std::size_t>(worker)];
    for (int i = i0; i < i1; ++i)
      for (const std::unique_ptr<Pass>& p : r->engine->passes_)
        r->engine->advance_instance(*p, i, r->batch_step, r->n_steps, scratch);
  });
}

template <int W>
void DaeSensitivityEngine<W>::read_refinement(RefinementRecord* out) const {
  for (std::size_t i = 0; i < static_cast<std::size_t>(n_); ++i) {
    RefinementRecord r;
    for (const std::unique_ptr<Pass>& p : passes_) {
      RefinementRecord pass;
      pass.unconverged = p->refine_unconverged[i];
      pass.worst = p->refine_worst[i].v;
      pass.worst_time = p->refine_worst_time[i].v;
      r.merge(pass);
    }
    out[i] = r;
  }
}

template <int W>
bool DaeSensitivityEngine<W>::tangents_valid(std::size_t i, const std::int8_t* status) const {
  bool valid = (!status || status[i] == batch::kStatusOk) && !crossed_[i];
  for (const std::unique_ptr<Pass>& p : passes_) valid = valid && p->status[i] == batch::kStatusOk;
  return valid;
}

template <int W>
void DaeSensitivityEngine<W>::read(double* out, const std::int8_t* status) const {
  const int S = n_sensitivities();
  const std::size_t n = static_cast<std::size_t>(n_);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0; i < n; ++i) {
    const bool valid = tangents_valid(i, status);
    for (int k = 0; k < N_; ++k)
      for (int c = 0; c < 13; ++c) {
        // The recorded layout (formulas/state.hpp, state_to_record): r, p from q; v, omega_B from qdot.
        const std::size_t e = static_cast<std::size_t>(c < 7 ? 7 * k + c : 7 * N_ + 6 * k + (c - 7));
        double* o = out + ((i * N_ + k) * 13 + c) * S;
        for (int s = 0; s < S; ++s)
          o[s] = valid ? passes_[static_cast<std::size_t>(s / kWidth)]->Y[e * n + i].d[s % kWidth] : nan;
      }
  }
}

namespace {

/// enqueue_frame's executor on the engine's pool: each launch's threads spread over the
/// workers (the per-thread functions of one launch are independent). The fused path
/// factorises inside its per-thread functions and never asks for a batched Cholesky.
struct PoolExec {
  ThreadPool* pool;
  template <class F>
  void launch(const char*, int n_threads, F f) {
    pool->parallel_for(n_threads, 8, [&f](int t0, int t1, int /*worker*/) {
      for (int t = t0; t < t1; ++t) f(t);
    });
  }
  template <class T>
  void cholesky_factor(int, T**, int*, int) {
    throw std::logic_error("SensitivityEngine: the fused path has no batched Cholesky");
  }
  template <class T>
  void cholesky_solve(int, T**, T**, int) {
    throw std::logic_error("SensitivityEngine: the fused path has no batched Cholesky");
  }
};

}  // namespace

template <int W>
template <class F>
void DaeSensitivityEngine<W>::each_pass_at(std::int64_t batch_step, F f) {
  for (std::size_t c = 0; c < passes_.size(); ++c) {
    std::int64_t step = batch_step;
    batch::BatchBuffers<D> b = passes_[c]->b;
    b.step = &step;
    const SchurPatternView P = pattern_.view();
    f(static_cast<int>(c), *passes_[c], b, P);
  }
}

template <int W>
void DaeSensitivityEngine<W>::read_frame(const FrameSensitivities& out, const std::int8_t* status, std::int64_t batch_step) {
  const int S = n_sensitivities(), J = packed_.n_joints, Dr = packed_.n_drivers;
  const std::size_t n = static_cast<std::size_t>(n_);
  const batch::FrameLayout fl(n_, N_, J, Dr);
  const Model& m0 = models_->front();
  const bool joints = m0.robot && (out.joint_q || out.joint_qd || out.joint_tau);
  std::vector<D> q(static_cast<std::size_t>(joints ? J : 0)), qd(q.size()), tau(q.size());
  // law[k]: the force index of joint k's actuator with a joint law (the last one, as
  // dae_joint_coordinates reads it), or -1.
  std::vector<int> law(q.size(), -1);
  for (int f = 0; joints && f < static_cast<int>(m0.forces.size()); ++f)
    if (m0.forces[f].type == ForceType::Actuator && m0.forces[f].has_joint_law) law[m0.forces[f].joint] = f;
  PoolExec x{pool_.get()};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // A read records nothing, as the backends' reads (enqueue_reduce_read): what the frame's
  // solve records (the refined solves, the rank watch, recoveries, failures) is given back.
  std::vector<D> kept_t(5 * n);
  std::vector<int> kept_i(3 * n);
  const batch::ProjectionSaved<D> kept{kept_t.data(),         kept_t.data() + n,     kept_t.data() + 2 * n,
                                       kept_t.data() + 3 * n, kept_t.data() + 4 * n, kept_i.data(),
                                       kept_i.data() + n,     kept_i.data() + 2 * n};
  each_pass_at(batch_step, [&](int c, Pass& p, const batch::BatchBuffers<D>& b, const SchurPatternView& P) {
    const batch::ProjectionSaved<D> records = batch::projection_records(b);
    for (int i = 0; i < n_; ++i) batch::copy_projection_records(records, kept, i);
    batch::enqueue_frame(x, p.mv, b, &P);
    for (int i = 0; i < n_; ++i) batch::copy_projection_records(kept, records, i);
    const int first = c * kWidth, width = std::min(kWidth, S - first);
    // Tangents t of pass c into out[e * S + first + t]; NaN where the instance's tangents
    // are not valid or the frame's solve failed (NaN values, zero tangents).
    const auto put = [&](double* o, const D& v, bool valid) {
      for (int t = 0; t < width; ++t) o[first + t] = valid && !std::isnan(v.v) ? v.d[t] : nan;
    };
    for (std::size_t i = 0; i < n; ++i) {
      const bool valid = tangents_valid(i, status);
      const auto frame_at = [&](std::size_t offset, std::size_t e) -> const D& { return p.frame[offset + e * n + i]; };
      for (int j = 0; j < J; ++j) {
        D reaction[6];
        for (int e = 0; e < 6; ++e) reaction[e] = frame_at(fl.reactions, static_cast<std::size_t>(6 * j + e));
        const std::size_t ij = i * J + static_cast<std::size_t>(j);
        if (out.reactions)
          for (int e = 0; e < 6; ++e) put(out.reactions + (ij * 6 + e) * S, reaction[e], valid);
        if (!out.joint_loads && !out.bearing_loads) continue;
        D axial_force, axial_moment, loads[kJointLoadComponents], bearing[kBearingLoadComponents];
        batch::driver_axial_loads(
            p.mv, j, [&](int k) { return frame_at(fl.driver_loads, static_cast<std::size_t>(k)); }, axial_force,
            axial_moment);
        joint_loads_from_reaction(p.mv.frame(j, static_cast<int>(i)),
                                  batch::soa_body_kin(static_cast<const D*>(p.Y.data()), n_, static_cast<int>(i), N_,
                                                      p.mv.body_of(j, 0)),
                                  batch::soa_body_kin(static_cast<const D*>(p.Y.data()), n_, static_cast<int>(i), N_,
                                                      p.mv.body_of(j, 1)),
                                  reaction, axial_force, axial_moment, loads);
        bearing_loads_from_joint_loads(loads, bearing);
        const bool ok = valid && !std::isnan(reaction[0].v);
        if (out.joint_loads)
          for (int e = 0; e < kJointLoadComponents; ++e)
            put(out.joint_loads + (ij * kJointLoadComponents + e) * S, loads[e], ok);
        if (out.bearing_loads)
          for (int e = 0; e < kBearingLoadComponents; ++e)
            put(out.bearing_loads + (ij * kBearingLoadComponents + e) * S, bearing[e], ok);
      }
      if (out.driver_loads)
        for (int k = 0; k < Dr; ++k)
          put(out.driver_loads + (i * Dr + static_cast<std::size_t>(k)) * S, frame_at(fl.driver_loads, k), valid);
      if (out.energy) put(out.energy + i * S, frame_at(fl.energy, 0), valid);
      if (out.kinetic) put(out.kinetic + i * S, frame_at(fl.kinetic, 0), valid);
      if (joints) {
        // A robot's joint state (CpuBackend::read_joint_state: joint k is link k's joint, one
        // actuator per joint) from the dual state, frames and laws of this instance.
        const auto kin = [&](int body) {
          return batch::soa_body_kin(static_cast<const D*>(p.Y.data()), n_, static_cast<int>(i), N_, body);
        };
        for (int k = 0; k < J; ++k) {
          const int f = law[static_cast<std::size_t>(k)];
          const D q_ref =
              f >= 0 ? joint_law_from<D>(batch::LawParams<D>{&p.mv, p.mv.force[f].joint_law, static_cast<int>(i)}).q_ref
                     : D(0.0);
          dae_joint_coordinate(m0.joints[k].type == JointType::Revolute, p.mv.frame(k, static_cast<int>(i)),
                               kin(p.mv.body_of(k, 0)), kin(p.mv.body_of(k, 1)), f >= 0, q_ref, q[k], qd[k]);
          tau[k] = D(0.0);
        }
        for (int f = 0; f < p.mv.n_forces; ++f) {
          const batch::ForceTopo& ft = p.mv.force[f];
          if (ft.type != static_cast<int>(ForceType::Actuator)) continue;
          const D u = p.inputs[static_cast<std::size_t>(ft.input_index) * n + i];
          if (ft.joint_law < 0) {
            tau[ft.joint] = u;
            continue;
          }
          tau[ft.joint] = dae_joint_law_force(joint_law_from<D>(batch::LawParams<D>{&p.mv, ft.joint_law, static_cast<int>(i)}),
                                              ft.kind == static_cast<int>(ActuatorKind::Torque),
                                              p.mv.frame(ft.joint, static_cast<int>(i)), kin(p.mv.body_of(ft.joint, 0)),
                                              kin(p.mv.body_of(ft.joint, 1)), u);
        }
        for (int k = 0; k < J; ++k) {
          const std::size_t o = (i * J + static_cast<std::size_t>(k)) * S;
          if (out.joint_q) put(out.joint_q + o, q[k], valid);
          if (out.joint_qd) put(out.joint_qd + o, qd[k], valid);
          if (out.joint_tau) put(out.joint_tau + o, tau[k], valid);
        }
      }
    }
  });
}

template <int W>
void DaeSensitivityEngine<W>::read_reductions(double* out, const std::int8_t* status, std::int64_t batch_step) {
  if (!red_.any()) return;
  const int S = n_sensitivities(), C = red_.channels;
  const std::size_t n = static_cast<std::size_t>(n_);
  PoolExec x{pool_.get()};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> acc(static_cast<std::size_t>(red_.size()) * n),
      tangent(static_cast<std::size_t>(red_.tangent_size()) * kWidth * n);
  each_pass_at(batch_step, [&](int c, Pass& p, const batch::BatchBuffers<D>& b, const SchurPatternView& P) {
    batch::enqueue_reduce_read(x, p.mv, b, acc.data(), &P, tangent.data());
    const double dt = p.mv.dt.v;
    for (std::size_t i = 0; i < n; ++i) {
      const bool valid = tangents_valid(i, status);
      const ReductionAcc a{acc.data() + i, n, tangent.data() + i};
      for (int ch = 0; ch < C; ++ch)
        for (int k = 0; k < kWidth && c * kWidth + k < S; ++k) {
          double d4[kReductionTangentStats];
          reduction_stats_tangent(red_, a, ch, dt, k, kWidth, d4);
          const int s = c * kWidth + k;
          for (int st = 0; st < kReductionTangentStats; ++st)
            out[((i * C + static_cast<std::size_t>(ch)) * kReductionTangentStats + st) * S + s] = valid ? d4[st] : nan;
        }
    }
  });
}

template <int W>
ArrayView DaeSensitivityEngine<W>::state_tangent_view() {
  // Pass.Y: structure of arrays, element e of instance i at e * n + i.
  return dual_tangent_view<W>(passes_.front()->Y.data(), n_, ny_, 1, n_, n_sensitivities(), passes_.size());
}

// The widths of SensitivityEngine::pass_width.
template class DaeSensitivityEngine<1>;
template class DaeSensitivityEngine<4>;
template class DaeSensitivityEngine<8>;
template class DaeSensitivityEngine<SensitivityEngine::kMaxWidth>;

}  // namespace simphant
