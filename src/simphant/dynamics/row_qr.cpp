#include "simphant/dynamics/row_qr.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <utility>

#include <Eigen/Householder>

#include "simphant/core/stop_flag.hpp"

namespace simphant {

namespace {
/// Rows between two polls of the stop flag.
constexpr int kStopPoll = 64;
}  // namespace

RowQR::RowQR(const Eigen::SparseMatrix<double, Eigen::RowMajor>& Phi_q, bool interruptible) {
  const auto m = static_cast<int>(Phi_q.rows());
  n_ = static_cast<int>(Phi_q.cols());
  ConstraintAnalysis& a = analysis_;
  a.rows = m;
  a.dof = n_;
  if (m == 0) return;
  // The largest finite row norm (a row holding NaN or inf is never kept: its remainder
  // does not compare greater than the tolerance).
  double scale = 0;
  for (int k = 0; k < m; ++k) {
    const double norm = Phi_q.row(k).norm();
    if (std::isfinite(norm) && norm > scale) scale = norm;
  }
  const double tol = kConstraintRankTolerance * scale;
  a.remainders.reserve(static_cast<std::size_t>(m));

  // touching[p]: the reflections that act on coordinate p, in their order.
  std::vector<std::vector<int>> touching(static_cast<std::size_t>(n_));
  std::vector<int> kept_at(static_cast<std::size_t>(n_), -1);  // coordinate -> kept index whose pivot it is
  std::vector<int> in_row(static_cast<std::size_t>(n_), -1);   // coordinate -> the row whose support holds it
  std::vector<int> done;                                        // reflection -> the last row it was applied to
  std::vector<double> x(static_cast<std::size_t>(n_), 0.0);    // the row being reduced
  std::vector<int> support;
  std::priority_queue<int, std::vector<int>, std::greater<int>> pending;
  Eigen::VectorXd essential;

  for (int k = 0; k < m; ++k) {
    if (interruptible && k % kStopPoll == 0) throw_if_stop_requested("constraint analysis");
    support.clear();
    auto add = [&](int p, int after) {
      if (in_row[static_cast<std::size_t>(p)] == k) return;
      in_row[static_cast<std::size_t>(p)] = k;
      support.push_back(p);
      for (int t : touching[static_cast<std::size_t>(p)])
        if (t > after) pending.push(t);
    };
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(Phi_q, k); it; ++it)
      if (it.value() != 0) {
        x[static_cast<std::size_t>(it.col())] = it.value();
        add(static_cast<int>(it.col()), -1);
      }
    // The earlier reflections in their order, each where it meets the row's support
    // (a reflection that does not meet it leaves the row as it is).
    done.resize(reflectors_.size(), -1);
    while (!pending.empty()) {
      const int t = pending.top();
      pending.pop();
      if (done[static_cast<std::size_t>(t)] == k) continue;
      done[static_cast<std::size_t>(t)] = k;
      const Reflector& h = reflectors_[static_cast<std::size_t>(t)];
      double s = 0;
      for (std::size_t i = 0; i < h.at.size(); ++i) s += h.v[i] * x[static_cast<std::size_t>(h.at[i])];
      s *= h.tau;
      for (std::size_t i = 0; i < h.at.size(); ++i) {
        x[static_cast<std::size_t>(h.at[i])] -= s * h.v[i];
        add(h.at[i], t);
      }
    }
    // Its remainder: the part on the coordinates no reflection has taken as pivot.
    std::vector<int> free;
    double remainder2 = 0;
    for (int p : support)
      if (kept_at[static_cast<std::size_t>(p)] < 0) {
        free.push_back(p);
        remainder2 += x[static_cast<std::size_t>(p)] * x[static_cast<std::size_t>(p)];
      }
    const double remainder = std::sqrt(remainder2);
    a.remainders.push_back(scale > 0 ? remainder / scale : remainder);
    Coordinates on_pivots;
    for (int p : support)
      if (kept_at[static_cast<std::size_t>(p)] >= 0)
        on_pivots.emplace_back(kept_at[static_cast<std::size_t>(p)], x[static_cast<std::size_t>(p)]);
    if (!(remainder > tol)) {  // NaN counts as redundant
      a.redundant_rows.push_back(k);
      redundant_.push_back(std::move(on_pivots));
    } else {
      // A reflection of the free coordinates onto the lowest of them, the pivot.
      std::sort(free.begin(), free.end());
      Eigen::VectorXd f(static_cast<Eigen::Index>(free.size()));
      for (std::size_t i = 0; i < free.size(); ++i) f[static_cast<Eigen::Index>(i)] = x[static_cast<std::size_t>(free[i])];
      essential.resize(f.size() - 1);
      double tau = 0, beta = 0;
      f.makeHouseholder(essential, tau, beta);
      const int t = static_cast<int>(reflectors_.size());
      Reflector h;
      h.tau = tau;
      if (tau != 0) {
        h.at = free;
        h.v.assign(1, 1.0);
        for (Eigen::Index i = 0; i < essential.size(); ++i) h.v.push_back(essential[i]);
        for (int p : free) touching[static_cast<std::size_t>(p)].push_back(t);
      }
      reflectors_.push_back(std::move(h));
      on_pivots.emplace_back(t, beta);
      r_.push_back(std::move(on_pivots));
      pivot_.push_back(free.front());
      kept_row_.push_back(k);
      kept_at[static_cast<std::size_t>(free.front())] = t;
    }
    for (int p : support) x[static_cast<std::size_t>(p)] = 0;
  }
  a.rank = static_cast<int>(kept_row_.size());
  a.dof = n_ - a.rank;
}

void RowQR::apply_q(Eigen::VectorXd& x) const {
  for (auto t = static_cast<std::ptrdiff_t>(reflectors_.size()) - 1; t >= 0; --t) {
    const Reflector& h = reflectors_[static_cast<std::size_t>(t)];
    if (h.tau == 0) continue;
    double s = 0;
    for (std::size_t i = 0; i < h.at.size(); ++i) s += h.v[i] * x[h.at[i]];
    s *= h.tau;
    for (std::size_t i = 0; i < h.at.size(); ++i) x[h.at[i]] -= s * h.v[i];
  }
}

Eigen::VectorXd RowQR::null_space_combination() const {
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n_);
  std::vector<char> pivot(static_cast<std::size_t>(n_), 0);
  for (int p : pivot_) pivot[static_cast<std::size_t>(p)] = 1;
  int k = 0;
  for (int p = 0; p < n_; ++p)
    if (!pivot[static_cast<std::size_t>(p)]) {
      z[p] = (k % 2 ? -1.0 : 1.0) / (1.0 + k);
      ++k;
    }
  apply_q(z);
  return z;
}

Eigen::VectorXd RowQR::min_norm_solution(const Eigen::VectorXd& b) const {
  // R^T w = b_kept (R^T lower triangular in the kept order) on the pivots, w = 0
  // elsewhere; dq = Q w.
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n_);
  for (std::size_t t = 0; t < r_.size(); ++t) {
    double rhs = b[kept_row_[t]], diagonal = 0;
    for (const auto& [i, value] : r_[t]) {
      if (i == static_cast<int>(t)) {
        diagonal = value;
      } else {
        rhs -= value * w[pivot_[static_cast<std::size_t>(i)]];
      }
    }
    w[pivot_[t]] = rhs / diagonal;
  }
  apply_q(w);
  return w;
}

Eigen::VectorXd RowQR::self_stress(int k) const {
  const std::vector<int>& red = analysis_.redundant_rows;
  const auto it = std::lower_bound(red.begin(), red.end(), k);
  Eigen::VectorXd mu = Eigen::VectorXd::Zero(analysis_.rows);
  if (it == red.end() || *it != k) return mu;
  // R c = y, y the reduced row on the pivots (back substitution by columns of R).
  std::vector<double> y(r_.size(), 0.0);
  for (const auto& [i, value] : redundant_[static_cast<std::size_t>(it - red.begin())]) y[static_cast<std::size_t>(i)] = value;
  mu[k] = 1;
  for (auto t = static_cast<std::ptrdiff_t>(r_.size()) - 1; t >= 0; --t) {
    const Coordinates& column = r_[static_cast<std::size_t>(t)];
    double diagonal = 0;
    for (const auto& [i, value] : column)
      if (i == t) diagonal = value;
    const double c = y[static_cast<std::size_t>(t)] / diagonal;
    if (c == 0) continue;
    mu[kept_row_[static_cast<std::size_t>(t)]] = -c;
    for (const auto& [i, value] : column)
      if (i < t) y[static_cast<std::size_t>(i)] -= value * c;
  }
  return mu;
}

}  // namespace simphant
