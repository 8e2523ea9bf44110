#pragma once
// Per-thread function of the cuda-fused solve (fused_stage.hpp): one thread evaluates one
// instance and solves its Schur system through the topology-ordered block-sparse
// Cholesky (simphant/formulas/sparse_cholesky.hpp) and the refined regularised solve
// (refine.hpp), with the per-thread functions of the `cuda` path called in a loop over
// the instance's joints and bodies.
#include "batch_buffers.hpp"
#include "body_forces.hpp"
#include "instance_status.hpp"
#include "joint_rows.hpp"
#include "pivot_watch.hpp"
#include "projection.hpp"
#include "refine.hpp"
#include "schur.hpp"
#include "simphant/formulas/sparse_cholesky.hpp"
#include "simphant/math/dual.hpp"
#if !defined(__CUDACC__)
#include <type_traits>
#include <vector>

#include "simphant/batch/view_convert.hpp"
#include "simphant/math/lanes.hpp"
#endif

namespace simphant::batch {

/// The blocks of instance i's C + E (E_R = tikhonov_term(eps, C_RR)) into L (value e at
/// L[e * n]; the diagonal blocks' lower triangles, as sparse_cholesky reads them), the
/// rows' pivot floors into floor (m, n) and their C_RR into diag (m, n); with rhs (m, n)
/// also the right-hand side (null: left alone). Joint by joint: M^-1 is applied to the joint's rows once (per side), and
/// those rows serve its own block and its block with every lower-indexed joint sharing a
/// body, each product formed as schur_coupling forms it (lower joint's row . M^-1 higher
/// joint's row), so the numbers are the CPU reference's.
template <class T>
SP_HD void fused_assemble(int i, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b, T eps,
                          T* L, T* rhs) {
  const int n = mv.n_instances;
  const T* jac = b.jac;
  const std::size_t stride = static_cast<std::size_t>(n);
  for (int e = 0; e < P.n_values; ++e) L[e * stride] = T(0);
  for (int a = 0; a < mv.n_constraints(); ++a) {
    if (rhs) schur_rhs_rows(i, a, mv, jac, static_cast<const T*>(b.Q), static_cast<const T*>(b.gamma_star), rhs, stride);
    T w[kMaxElementSides][kMaxJointRows][6];  // M^-1 Phi_q,a^T at each side's body
    for (int sa = 0; sa < mv.sides; ++sa)
      if (mv.body_of(a, sa) >= 0) schur_minv_rows(i, a, sa, mv, jac, w[sa]);
    const int pa = P.position[a], ma = mv.rows_of(a);
    for (int e = mv.coupling_start[a]; e < mv.coupling_start[a + 1]; ++e) {
      const int lo = mv.coupling[3 * e], sa = mv.coupling[3 * e + 1], slo = mv.coupling[3 * e + 2];
      if (lo > a) continue;  // formed by the higher-indexed joint
      const SchurBlockSlot slot = schur_block_slot(P, P.position[lo], pa);  // (row of lo, row of a)
      const auto put = [&](int r, int s, T v) {
        L[static_cast<std::size_t>(slot.base + r * slot.stride_r + s * slot.stride_s) * stride] += v;
      };
      if (lo == a && slo > sa) {
        // Two sides of one element at a body (a mimic row): (lower side's row) . M^-1
        // (higher side's row), as schur_coupling forms it; entry (r, s) of the own block
        // from a's row s at side sa and row r at side slo, lower triangle.
        schur_coupling_products(i, a, sa, ma, static_cast<const T(*)[6]>(w[slo]), false, mv, jac,
                                [&](int s, int r, T v) {
                                  if (s <= r) put(r, s, v);
                                });
        continue;
      }
      schur_coupling_products(i, lo, slo, ma, static_cast<const T(*)[6]>(w[sa]), lo == a, mv, jac, put);
    }
  }
  for (int p = 0; p < P.n_joints; ++p) {
    const int rp = P.pos_rows[p], base = P.block_value[P.col_start[p]];
    for (int r = 0; r < rp; ++r) {
      T& d = L[static_cast<std::size_t>(base + r * rp + r) * stride];
      const T reg = tikhonov_term(eps, d);
      soa(b.floor, P.pos_row0[p] + r, n, i) = pivot_floor(reg, d);
      soa(b.diag, P.pos_row0[p] + r, n, i) = d;
      d += reg;
    }
  }
}

/// Instance i: lambda from the factor of its regularised Schur matrix in b.C (fused_assemble
/// then sparse_cholesky) and the right-hand side in b.rhs: the solve, then at most
/// mv.refine_steps corrections of the refinement (refine_corrections; b.refine and
/// b.lambda its workspace), lambda left in b.rhs ((m, n)). Returns refine_corrections'
/// relative error estimate. Any T (the SIMD lanes of simd/ included).
template <class T>
SP_HD T fused_lambda(int i, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b) {
  const std::size_t stride = static_cast<std::size_t>(mv.n_instances);
  const T* Lc = b.C + i;
  const T* jac = b.jac;
  T* w = b.rhs + i;
  T* delta = b.refine + i;
  T* lambda = b.lambda + i;
  const int m = mv.n_rows;
  for (int R = 0; R < m; ++R) delta[R * stride] = w[R * stride];
  sparse_solve(P, Lc, stride, delta, stride);
  const auto solve = [&](T* x) { sparse_solve(P, Lc, stride, x, stride); };
  const T rel = refine_corrections(m, mv.refine_steps, stride, w, delta, lambda, solve, [&](const T* x, T* r, T& e2) {
    for (int a = 0; a < mv.n_constraints(); ++a) schur_subtract_rows(i, a, mv, jac, x, stride, r, stride, e2);
  });
  for (int R = 0; R < m; ++R) w[R * stride] = lambda[R * stride];
  return rel;
}

/// Instance i (mv.n_rows > 0), its rows, Phi_q, gamma* and Q evaluated (b.jac, b.gamma_star,
/// b.Q): its regularised Schur matrix and right-hand side assembled (b.C, b.rhs) and
/// factorised (on a rejected pivot again with the shifts recovery_epsilon, counted in
/// b.recoveries), the factor's smallest pivot recorded at the instance time t [s];
/// b.info[i] = 0, or 1 when no attempt factorises. Returns whether one did. Scalar T.
template <class T>
SP_HD bool fused_factor(int i, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b, T t) {
  T* L = b.C + i;
  const T* floor = b.floor + i;
  const std::size_t stride = static_cast<std::size_t>(mv.n_instances);
  const T eps = schur_epsilon(mv, i);
  fused_assemble(i, mv, P, b, eps, L, b.rhs + i);
  bool ok = sparse_cholesky(P, L, stride, floor, stride);
  for (int a = 1; a <= kRecoveryAttempts && !ok; ++a) {
    fused_assemble(i, mv, P, b, recovery_epsilon(eps, a), L, static_cast<T*>(nullptr));
    ok = sparse_cholesky(P, L, stride, floor, stride);
    if (ok) ++b.recoveries[i];
  }
  b.info[i] = ok ? 0 : 1;
  if (ok) sparse_pivot_record(i, mv, P, static_cast<const T*>(L), stride, t, b);
  return ok;
}

#if !defined(__CUDACC__)
template <class T>
void fused_tangent_factor_solve(int i, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b,
                                T t);
#endif

/// Instance i (mv.n_rows > 0), its rows, Phi_q, gamma* and Q evaluated (b.jac, b.gamma_star,
/// b.Q): factorises its regularised Schur matrix in b.C ((P.n_values, n) blocks; on a
/// rejected pivot again with the shifts recovery_epsilon, counted in b.recoveries) and
/// leaves lambda in b.rhs (fused_lambda), the solve recorded at the instance time t [s]
/// (refine_record); b.info[i] = 0, or 1 when no attempt factorises. Scalar T (float,
/// double); a Dual of double on the host solves by fused_tangent_factor_solve (with
/// refinement corrections: mv.refine_steps > 0).
template <class T>
SP_HD void fused_factor_solve(int i, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b, T t) {
#if !defined(__CUDACC__)
  if constexpr (ad::kTangents<T> > 0) {
    if constexpr (std::is_same_v<typename T::value_type, double>)
      if (mv.refine_steps > 0) return fused_tangent_factor_solve(i, mv, P, b, t);
  }
#endif
  if (fused_factor(i, mv, P, b, t)) refine_record(i, fused_lambda(i, mv, P, b), t, b);
}

#if !defined(__CUDACC__)
/// fused_factor_solve for T = Dual<double, W> on the host, by the tangent-linear system
/// (math/dual.hpp: differentiate the converged solve). The values alone are factorised
/// and solved as the double path does it (fused_factor and the refinement of fused_lambda
/// over instance i's values as a batch of one: the same operations, so the same numbers;
/// the pivots accepted on the values alone). Then the tangents of lambda from C dlambda = d(rhs) - dC lambda: its
/// right-hand side is the tangents of rhs - C lambda at the converged lambda, formed
/// without C (schur_residual); the W right-hand sides, in the lanes of one vector, are
/// solved with the values' factor and refined against the values' C, each lane with its
/// own stopping test (refine_corrections; C's coupling products formed once, by the
/// values' refinement: schur_subtract_products). At convergence this is the tangent that
/// the refinement iterated in dual numbers reaches, without C, its factor or the
/// corrections in dual numbers. The solve records of T (b.refine_unconverged,
/// b.refine_worst, b.refine_worst_time) receive one solve per tangent
/// (record_refined_solve; SensitivityEngine::read_refinement): the larger of its own
/// relative error estimate and the values' (its right-hand side is formed at the values'
/// lambda); an unused tangent, all zero, records an error of 0. The pivot records are the
/// values' factorisation's. b.C, b.floor and b.diag are left alone (the factor is
/// the values', in the thread's scratch). Needs mv.refine_steps > 0: without corrections
/// lambda is that of C + E, whose tangent the dual path gives.
template <class T>
void fused_tangent_factor_solve(int i, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b,
                                T t) {
  constexpr int W = ad::kTangents<T>;
  struct Scratch {
    using X = std::conditional_t<W == 1, double, Lanes<double, W>>;  ///< the W tangents of one row
    std::vector<double> jac, Q, gamma_star, L, rhs, lambda, refine, floor, diag;
    std::vector<T> qdd, residual;
    std::vector<X> w, delta, dlambda;
    SchurProducts<double> products;
  };
  thread_local Scratch s;
  const std::size_t n = static_cast<std::size_t>(mv.n_instances);
  const int m = mv.n_rows, np = mv.n_params;
  const auto values = [n, i](std::vector<double>& to, const T* from, std::size_t count) {
    to.resize(count);
    for (std::size_t e = 0; e < count; ++e) to[e] = value_of(from[e * n + static_cast<std::size_t>(i)]);
  };
  // Instance i's values as a batch of one.
  if (!b.param_values) throw std::logic_error("fused_tangent_factor_solve: b.param_values is not set");
  ModelView<double> v = view_with<double>(mv, b.param_values, mv.param_slot,
                                          b.param_values + (static_cast<std::size_t>(i) + 1) * np);
  v.n_instances = 1;
  values(s.jac, b.jac, static_cast<std::size_t>(m) * mv.jac_cols());
  values(s.Q, b.Q, static_cast<std::size_t>(6) * mv.n_bodies);
  values(s.gamma_star, b.gamma_star, static_cast<std::size_t>(m));
  for (std::vector<double>* a : {&s.rhs, &s.lambda, &s.refine, &s.floor, &s.diag})
    a->resize(static_cast<std::size_t>(m));
  s.L.resize(static_cast<std::size_t>(P.n_values));
  double pivot_min = value_of(b.pivot_min[i]), pivot_min_time = value_of(b.pivot_min_time[i]),
         step_pivot = value_of(b.step_pivot[i]), refine_worst = value_of(b.refine_worst[i]),
         refine_worst_time = value_of(b.refine_worst_time[i]);
  BatchBuffers<double> bv{};  // the values' solve records only the rank watch here
  bv.jac = s.jac.data();
  bv.Q = s.Q.data();
  bv.gamma_star = s.gamma_star.data();
  bv.C = s.L.data();
  bv.rhs = s.rhs.data();
  bv.lambda = s.lambda.data();
  bv.refine = s.refine.data();
  bv.floor = s.floor.data();
  bv.diag = s.diag.data();
  bv.status = b.status + i;
  bv.info = b.info + i;
  bv.recoveries = b.recoveries + i;
  bv.pivot_min = &pivot_min;
  bv.pivot_min_time = &pivot_min_time;
  bv.step_pivot = &step_pivot;
  const double tv = value_of(t);
  const bool ok = fused_factor(0, v, P, bv, tv);
  // The records back (no tangents: they are not differentiated).
  b.pivot_min[i] = T(pivot_min);
  b.pivot_min_time[i] = T(pivot_min_time);
  b.step_pivot[i] = T(step_pivot);
  if (!ok) return;
  // lambda as fused_lambda solves it, C's coupling products recorded for the tangents.
  const double* L = s.L.data();
  const auto subtract = [&](const auto* x, auto* r, auto& e2) {
    schur_subtract_products(0, v, static_cast<const double*>(bv.jac), x, 1, r, 1, e2, s.products);
  };
  s.products.clear();
  s.refine = s.rhs;
  sparse_solve(P, L, 1, s.refine.data(), 1);
  const double values_rel = refine_corrections(m, v.refine_steps, 1, s.rhs.data(), s.refine.data(), s.lambda.data(),
                                               [&](double* x) { sparse_solve(P, L, 1, x, 1); }, subtract);
  // The tangents: C dlambda = the tangents of rhs - C lambda at the converged lambda, the
  // W right-hand sides in the lanes of one X, each refined as a double alone would be.
  s.qdd.resize(static_cast<std::size_t>(6) * mv.n_bodies);
  s.residual.resize(static_cast<std::size_t>(m));
  schur_residual(i, mv, static_cast<const T*>(b.jac), static_cast<const T*>(b.Q), static_cast<const T*>(b.gamma_star),
                 static_cast<const double*>(s.lambda.data()), s.qdd.data(), s.residual.data());
  using X = typename Scratch::X;
  const auto lane = [](const X& x, int k) -> double {
    if constexpr (W == 1)
      return x;
    else
      return x[k];
  };
  for (std::vector<X>* a : {&s.w, &s.delta, &s.dlambda}) a->resize(static_cast<std::size_t>(m));
  bool used[W] = {};  // tangent k's right-hand side is not all zero
  for (int R = 0; R < m; ++R) {
    X& w = s.w[static_cast<std::size_t>(R)];
    if constexpr (W == 1)
      w = s.residual[static_cast<std::size_t>(R)].d[0];
    else
      for (int k = 0; k < W; ++k) w.v[k] = s.residual[static_cast<std::size_t>(R)].d[k];
    for (int k = 0; k < W; ++k) used[k] = used[k] || lane(w, k) != 0.0;
    s.delta[static_cast<std::size_t>(R)] = w;
  }
  sparse_solve(P, L, 1, s.delta.data(), 1);
  const X rel = refine_corrections(m, v.refine_steps, 1, s.w.data(), s.delta.data(), s.dlambda.data(),
                                   [&](X* x) { sparse_solve(P, L, 1, x, 1); }, subtract);
  // Each tangent's record: its own estimate, or where the values' is larger (a NaN
  // included) theirs, as its right-hand side was formed at the values' lambda; a tangent
  // whose right-hand side is all zero (a lane no parameter seeds) keeps its own (0).
  for (int k = 0; k < W; ++k) {
    const double own = lane(rel, k);
    const bool values_worse = values_rel > own || values_rel != values_rel;
    record_refined_solve(used[k] && values_worse ? values_rel : own, tv, b.refine_unconverged[i], refine_worst,
                         refine_worst_time);
  }
  for (int R = 0; R < m; ++R) {
    const std::size_t o = static_cast<std::size_t>(R) * n + i;
    for (int k = 0; k < W; ++k) b.rhs[o].d[k] = b.lambda[o].d[k] = lane(s.dlambda[static_cast<std::size_t>(R)], k);
  }
  for (int R = 0; R < m; ++R) {
    const std::size_t o = static_cast<std::size_t>(R) * n + i;
    b.rhs[o].v = b.lambda[o].v = s.lambda[static_cast<std::size_t>(R)];
  }
  b.refine_worst[i] = T(refine_worst);
  b.refine_worst_time[i] = T(refine_worst_time);
}
#endif

/// Instance i = tid: evaluates it at y (13 N, n) and its time h after the current step's
/// start (b.time[i] = instance_time_thread's) into b.phi, b.jac, b.gamma_star, b.Q,
/// factorises its regularised Schur matrix in b.C ((P.n_values, n) blocks; on a rejected
/// pivot again with the shifts recovery_epsilon, counted in b.recoveries) and leaves
/// lambda from the refined solve (refine.hpp, at most mv.refine_steps corrections;
/// b.refine and b.lambda its workspace) in b.rhs ((m, n); b.lambda_soa must be 1), the
/// solve recorded (refine_record); b.info[i] = 0, or 1 when no attempt factorises.
/// Threads past n return. projection_stage >= 0: the solve of that projection stage
/// (projection.hpp: Q = 0, gamma* = -residual) instead. t_stage: null, or (n) each
/// instance's own evaluation time [s] in place of its clock plus h (the adaptive path,
/// kernels/dopri5_batch.hpp).
template <class T>
SP_HD void fused_solve_thread(int tid, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b,
                              const T* y, T h, int projection_stage = -1, const T* t_stage = nullptr) {
  const int n = mv.n_instances;
  if (tid >= n) return;
  const int i = tid;
  if (!t_stage)
    instance_time_thread(i, mv, static_cast<const std::int64_t*>(b.step),
                         static_cast<const std::int64_t*>(b.clock_offset), h, b.time);
  const T* t_inst = t_stage ? t_stage : static_cast<const T*>(b.time);
  for (int j = 0; j < mv.n_constraints(); ++j) joint_rows_thread(j * n + i, mv, t_inst, y, b.phi, b.jac, b.gamma_star);
  if (projection_stage >= 0)
    projection_rhs_thread(i, mv, projection_stage, t_inst, y, static_cast<const T*>(b.phi), static_cast<const T*>(b.jac),
                          b.Q, b.gamma_star);
  else
    for (int k = 0; k < mv.n_bodies; ++k)
      body_forces_thread(k * n + i, mv, t_inst, y, static_cast<const T*>(b.inputs), b.Q);
  if (mv.n_rows == 0) {
    b.info[i] = 0;
    return;
  }
  fused_factor_solve(i, mv, P, b, t_inst[i]);
}

}  // namespace simphant::batch
