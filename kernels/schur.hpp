#pragma once
// Per-thread function of the Schur kernel: one thread per (instance, joint a) writes the
// rows of joint a of the regularised Schur matrix and its right-hand side (docs/solver.md,
// The Schur complement and The refined regularised solve):
//   C + E = Phi_q M^-1 Phi_q^T + E,   rhs = Phi_q M^-1 Q - gamma*,
// E_R = eps C_RR (tikhonov_term in simphant/formulas/refined_solve.hpp; fp32: eps at
// least eps_relative, model_view.hpp), and each row's smallest accepted pivot. The rhs
// and coupling products are also used by the cuda-fused path (fused_stage.hpp), which
// stores C in topology-ordered blocks instead, and by the refinement (refine.hpp).
// M is block diagonal, so the block C(a, b) is non-zero only where joints a and b share
// a body k: C(a, b) = sum over shared k of Phi_q,a,k M_k^-1 Phi_q,b,k^T (ModelView's
// coupling list; a mimic row may have two sides at one body k, and then each pair of
// sides at k contributes). Every entry of the thread's rows is written (zeros included), so no
// clearing pass is needed and each entry has one writer.
#include "accelerations.hpp"
#include "batch_state.hpp"
#include "simphant/batch/model_view.hpp"
#include "simphant/formulas/force_math.hpp"
#include "simphant/formulas/refined_solve.hpp"

namespace simphant::batch {

namespace detail {
/// sum_c a[e0 + c] b[c] for the SoA row a (entries e0 .. e0 + 5 of instance i).
template <class T>
SP_HD T dot6(const T* a, int e0, const T* b, int n, int i) {
  T s = soa(a, e0, n, i) * b[0];
  for (int c = 1; c < 6; ++c) s += soa(a, e0 + c, n, i) * b[c];
  return s;
}
}  // namespace detail

/// The non-ground sides of element a in ascending body index, sides of one body in side
/// order (a stable sort): side[0 .. count - 1]; returns count.
template <class T>
SP_HD int sides_by_body(const ModelView<T>& mv, int a, int* side) {
  int count = 0;
  for (int s = 0; s < mv.sides; ++s) {
    const int k = mv.body_of(a, s);
    if (k < 0) continue;
    int p = count++;
    for (; p > 0 && mv.body_of(a, side[p - 1]) > k; --p) side[p] = side[p - 1];
    side[p] = s;
  }
  return count;
}

/// Rows of element a of rhs = Phi_q M^-1 Q - gamma* for instance i: row R at
/// rhs_out[R * rhs_stride]. jac_in (m, mv.jac_cols(), n), Q_in (6 N, n), gamma_star_in
/// (m, n).
template <class T>
SP_HD void schur_rhs_rows(int i, int a, const ModelView<T>& mv, const T* jac_in, const T* Q_in, const T* gamma_star_in,
                          T* rhs_out, std::size_t rhs_stride) {
  const int n = mv.n_instances, oa = mv.row_offset[a], ma = mv.rows_of(a), w = mv.jac_cols();
  for (int r = 0; r < ma; ++r) rhs_out[(oa + r) * rhs_stride] = -soa(gamma_star_in, oa + r, n, i);
  // rhs += Phi_q,a M^-1 Q, one side at a time in ascending body index (sides_by_body).
  int side[kMaxElementSides];
  const int count = sides_by_body(mv, a, side);
  for (int t = 0; t < count; ++t) {
    const int sa = side[t], k = mv.body_of(a, sa);
    T Qk[6], MiQ[6];
    for (int c = 0; c < 6; ++c) Qk[c] = soa(Q_in, 6 * k + c, n, i);
    apply_body_Minv(mv.mass(k, i), mv.inertia_inv_B(k, i), Qk, MiQ);
    for (int r = 0; r < ma; ++r) rhs_out[(oa + r) * rhs_stride] += detail::dot6(jac_in, w * (oa + r) + 6 * sa, MiQ, n, i);
  }
}

/// The residual of the Schur system at a given lambda, rhs - C lambda = Phi_q M^-1 (Q -
/// Phi_q^T lambda) - gamma*, formed without C (body by body the accelerations at lambda,
/// body_acceleration of accelerations.hpp, then the rows), for instance i: row R at
/// r_out[R]. lambda (m): a plain array of a number type L that multiplies T (double with a
/// Dual); qdd (6 N): workspace, on return each body's M^-1 (Q - Phi_q^T lambda). jac_in,
/// Q_in, gamma_star_in as for schur_rhs_rows. With T a Dual and lambda its converged
/// value, the tangents of r are those of rhs - C lambda at fixed lambda: the right-hand
/// side of the tangent-linear system C dlambda = d(rhs) - dC lambda
/// (fused_tangent_factor_solve, fused_solve.hpp).
template <class T, class L>
SP_HD void schur_residual(int i, const ModelView<T>& mv, const T* jac_in, const T* Q_in, const T* gamma_star_in,
                          const L* lambda, T* qdd, T* r_out) {
  const int n = mv.n_instances, cols = mv.jac_cols();
  for (int k = 0; k < mv.n_bodies; ++k)
    body_acceleration(i, k, mv, jac_in, Q_in, [lambda](int R) { return lambda[R]; }, qdd + 6 * k);
  for (int a = 0; a < mv.n_constraints(); ++a) {
    const int oa = mv.row_offset[a];
    for (int r = 0; r < mv.rows_of(a); ++r) {
      T s = -soa(gamma_star_in, oa + r, n, i);
      for (int sa = 0; sa < mv.sides; ++sa) {
        const int k = mv.body_of(a, sa);
        if (k >= 0) s += detail::dot6(jac_in, cols * (oa + r) + 6 * sa, static_cast<const T*>(qdd + 6 * k), n, i);
      }
      r_out[oa + r] = s;
    }
  }
}

/// w[r] = M_k^-1 Phi_q,a,k(r)^T for every row r of element a at its side sa (body k =
/// mv.body_of(a, sa) >= 0) of instance i: the element's rows as the coupling products
/// below use them.
template <class T>
SP_HD void schur_minv_rows(int i, int a, int sa, const ModelView<T>& mv, const T* jac_in, T (*w)[6]) {
  const int n = mv.n_instances, k = mv.body_of(a, sa), oa = mv.row_offset[a], cols = mv.jac_cols();
  const T mass = mv.mass(k, i);
  const Mat3<T> J_inv = mv.inertia_inv_B(k, i);
  for (int r = 0; r < mv.rows_of(a); ++r) {
    T x[6];
    for (int c = 0; c < 6; ++c) x[c] = soa(jac_in, cols * (oa + r) + 6 * sa + c, n, i);
    apply_body_Minv(mass, J_inv, x, w[r]);
  }
}

/// add(r, s, Phi_q,lo,k(r) . w_hi[s]) for every row r of joint lo (side slo) and s < m_hi,
/// with w_hi from schur_minv_rows of the joint it pairs with at the same body k; with
/// lower_triangle (lo's own block) only s <= r.
template <class T, class Add>
SP_HD void schur_coupling_products(int i, int lo, int slo, int m_hi, const T (*w_hi)[6], bool lower_triangle,
                                   const ModelView<T>& mv, const T* jac_in, Add add) {
  const int n = mv.n_instances, olo = mv.row_offset[lo], m_lo = mv.rows_of(lo), cols = mv.jac_cols();
  for (int r = 0; r < m_lo; ++r)
    for (int s = 0; s < (lower_triangle ? r + 1 : m_hi); ++s) add(r, s, detail::dot6(jac_in, cols * (olo + r) + 6 * slo, w_hi[s], n, i));
}

/// The products of coupling e of joint a (joint b sharing body k, ModelView::coupling)
/// for instance i: add(r, s, Phi_q,a,k(r) M_k^-1 Phi_q,b,k(s)^T) for every row r of a and
/// s of b. Each product is formed as (lower joint's row) . M_k^-1 (higher joint's row),
/// so both triangles of C get the same numbers (the ones the CPU reference forms); for
/// two sides of one element at body k (a mimic row, a == b), as (lower side's row) .
/// M_k^-1 (higher side's row).
template <class T, class Add>
SP_HD void schur_coupling(int i, int a, int e, const ModelView<T>& mv, const T* jac_in, Add add) {
  const int b = mv.coupling[3 * e], sa = mv.coupling[3 * e + 1], sb = mv.coupling[3 * e + 2];
  // (lo, slo): the joint whose rows are dotted; (hi, shi): the one M^-1 is applied to,
  // once per row.
  const bool a_low = a < b || (a == b && sa <= sb);
  T w[kMaxJointRows][6];
  schur_minv_rows(i, a_low ? b : a, a_low ? sb : sa, mv, jac_in, w);
  if (a_low)
    schur_coupling_products(i, a, sa, mv.rows_of(b), static_cast<const T(*)[6]>(w), false, mv, jac_in, add);
  else
    schur_coupling_products(i, b, sb, mv.rows_of(a), static_cast<const T(*)[6]>(w), false, mv, jac_in,
                            [&](int r, int s, T v) { add(s, r, v); });
}

/// The relative Tikhonov eps of instance i: max(eps, eps_relative).
template <class T>
SP_HD T schur_epsilon(const ModelView<T>& mv, int i) {
  return lane_max(mv.epsilon(i), mv.eps_relative);
}

/// Rows of joint a of the unregularised C of instance i into C (the instance's m x m
/// column-major matrix): every entry of those rows written, zeros included.
template <class T>
SP_HD void schur_dense_rows(int i, int a, const ModelView<T>& mv, const T* jac_in, T* C) {
  const int m = mv.n_rows, oa = mv.row_offset[a], ma = mv.rows_of(a);
  for (int r = 0; r < ma; ++r)
    for (int col = 0; col < m; ++col) C[static_cast<std::size_t>(col) * m + oa + r] = T(0);
  for (int e = mv.coupling_start[a]; e < mv.coupling_start[a + 1]; ++e) {
    const int ob = mv.row_offset[mv.coupling[3 * e]];
    schur_coupling(i, a, e, mv, jac_in,
                   [&](int r, int s, T v) { C[static_cast<std::size_t>(ob + s) * m + oa + r] += v; });
  }
}

/// Adds E_R = tikhonov_term(eps, C_RR) to the diagonal entries of joint a's rows of C
/// (as schur_dense_rows) and writes their pivot floors and C_RR, row R at
/// floor_out[R * n + i] and diag_out[R * n + i] (diag_out null: not written).
template <class T>
SP_HD void schur_dense_regularise(int i, int a, const ModelView<T>& mv, T eps, T* C, T* floor_out, T* diag_out) {
  const int n = mv.n_instances, m = mv.n_rows, oa = mv.row_offset[a];
  for (int r = 0; r < mv.rows_of(a); ++r) {
    T& d = C[static_cast<std::size_t>(oa + r) * m + oa + r];
    const T reg = tikhonov_term(eps, d);
    soa(floor_out, oa + r, n, i) = pivot_floor(reg, d);
    if (diag_out) soa(diag_out, oa + r, n, i) = d;
    d += reg;
  }
}

/// tid = a * n + i. jac_in (m, mv.jac_cols(), n), Q_in (6 N, n), gamma_star_in (m, n).
/// C_out (n, m, m) column-major per instance, C + E; rhs_out (n, m); floor_out (m, n)
/// the rows' pivot floors, diag_out (m, n) their C_RR. Threads past n J return.
template <class T>
SP_HD void schur_thread(int tid, const ModelView<T>& mv, const T* jac_in, const T* Q_in, const T* gamma_star_in,
                        T* C_out, T* rhs_out, T* floor_out, T* diag_out) {
  const int n = mv.n_instances, m = mv.n_rows;
  if (tid >= n * mv.n_constraints()) return;
  const int i = tid % n, a = tid / n;
  T* C = C_out + static_cast<std::size_t>(i) * m * m;
  schur_rhs_rows(i, a, mv, jac_in, Q_in, gamma_star_in, rhs_out + static_cast<std::size_t>(i) * m, 1);
  schur_dense_rows(i, a, mv, jac_in, C);
  schur_dense_regularise(i, a, mv, schur_epsilon(mv, i), C, floor_out, diag_out);
}

}  // namespace simphant::batch
