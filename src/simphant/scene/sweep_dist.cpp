// Inverse CDFs of the sweep distributions (docs/scene-format.md, "Sweep"). The normal
// quantile and cdf come from Boost.Math; the truncated normal is sampled by inverting
// the CDF on [cdf(lo), cdf(hi)], in the lower tail (reflected when lo > mean) where the
// cdf keeps its relative precision.
#include <algorithm>
#include <cfloat>
#include <cmath>

#include <boost/math/distributions/normal.hpp>

#include "simphant/scene/sweep_detail.hpp"

namespace simphant::scene_detail {

namespace {

const boost::math::normal_distribution<double> kStdNormal(0.0, 1.0);
constexpr double kHalfUlp = 0x1p-54;  ///< shifts u in [0, 1) into (0, 1)

struct Standardised {
  double a, b;  ///< truncation bounds in units of sd, possibly reflected
  bool flip;    ///< reflected: x -> -x
};

Standardised standardise(double mean, double sd, double lo, double hi) {
  Standardised s{(lo - mean) / sd, (hi - mean) / sd, false};
  if (s.a > 0) s = {-s.b, -s.a, true};
  return s;
}

double std_quantile(double p) {
  p = std::min(std::max(p, DBL_MIN), 1.0 - 0x1p-53);
  return boost::math::quantile(kStdNormal, p);
}

}  // namespace

double standard_normal_quantile(double u) { return std_quantile(u + kHalfUlp); }

double normal_mass(double mean, double sd, double lo, double hi) {
  const Standardised s = standardise(mean, sd, lo, hi);
  return boost::math::cdf(kStdNormal, s.b) - boost::math::cdf(kStdNormal, s.a);
}

double inverse_cdf(const SweepParameter& p, double u) {
  switch (p.dist) {
    case Distribution::Uniform:
      return std::min(p.low + u * (p.high - p.low), p.high);
    case Distribution::List: {
      const std::size_t n = p.values.size();
      const std::size_t k = std::min(static_cast<std::size_t>(u * static_cast<double>(n)), n - 1);
      return p.values[k];
    }
    case Distribution::Normal:
      break;
  }
  const double v = u + kHalfUlp;
  if (!p.truncated) return p.mean + p.std * std_quantile(v);
  const Standardised s = standardise(p.mean, p.std, p.trunc_low, p.trunc_high);
  const double pa = boost::math::cdf(kStdNormal, s.a);
  const double pb = boost::math::cdf(kStdNormal, s.b);
  double z = std_quantile(pa + v * (pb - pa));
  z = std::min(std::max(z, s.a), s.b);
  if (s.flip) z = -z;
  return std::min(std::max(p.mean + p.std * z, p.trunc_low), p.trunc_high);
}

}  // namespace simphant::scene_detail
