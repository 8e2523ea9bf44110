#pragma once
// reduced/lane_math.hpp's functions for the SIMD lane vector Lanes<double, W>
// (math/lanes.hpp), host only: sin and cos as branch-free polynomials on all lanes at once
// (a libm call per lane would cost more than the rest of the articulated-body algorithm),
// tanh per lane (friction, only where a lane has it).
//
// lane_sincos: x = k pi/2 + r with k = nearest integer to x 2/pi and r by Cody-Waite
// reduction with fdlibm's three-part pi/2 (33 + 33 + 53 bits: k pio2_1 and k pio2_2 are
// exact for |k| < 2^20), then fdlibm's minimax polynomials for sin and cos on
// [-pi/4, pi/4] (musl's __sin / __cos kernels, errors below 1 ulp there) and the
// quadrant k mod 4 by selects. Accurate to about 1 ulp for |x| < 2^19 pi/2 (8e5 rad; a
// joint angle is far below that); beyond, the reduction loses bits gradually (no failure,
// no branch); NaN and +-inf give NaN. tests/test_reduced_lanes.cpp checks it against
// std::sin / std::cos.
#include <cmath>

#include "simphant/math/lanes.hpp"

namespace simphant {

template <int W>
inline void lane_sincos(Lanes<double, W> x, Lanes<double, W>& s, Lanes<double, W>& c) {
  using L = Lanes<double, W>;
  const L round_magic(6755399441055744.0);  // 1.5 * 2^52: x + magic - magic rounds to an integer
  const L k = (x * L(6.36619772367581382433e-01) + round_magic) - round_magic;  // x 2/pi
  L r = x - k * L(1.57079632673412561417e+00);
  r = r - k * L(6.07710050630396597660e-11);
  r = r - k * L(2.02226624871116645580e-21);
  const L z = r * r, w = z * z;
  // sin(r) (musl __sin, tail 0)
  const L sr = L(8.33333333332248946124e-03) + z * (L(-1.98412698298579493134e-04) + z * L(2.75573137070700676789e-06)) +
               z * w * (L(-2.50507602534068634195e-08) + z * L(1.58969099521155010221e-10));
  const L sin_r = r + (z * r) * (L(-1.66666666666666324348e-01) + z * sr);
  // cos(r) (musl __cos, tail 0)
  const L cr = z * (L(4.16666666666666019037e-02) + z * (L(-1.38888888888741095749e-03) + z * L(2.48015872894767294178e-05))) +
               w * w * (L(-2.75573143513906633035e-07) + z * (L(2.08757232129817482790e-09) + z * L(-1.13596475577881948265e-11)));
  const L hz = L(0.5) * z;
  const L one_minus = L(1) - hz;
  const L cos_r = one_minus + (((L(1) - one_minus) - hz) + z * cr);
  // quadrant q = k mod 4 in {0, 1, 2, 3}
  const L k4 = k * L(0.25);
  L fl = (k4 + round_magic) - round_magic;
  fl = lane_select(fl > k4, fl - L(1), fl);
  const L q = k - L(4) * fl;
  const auto odd = q == L(1) || q == L(3);
  const L sa = lane_select(odd, cos_r, sin_r), ca = lane_select(odd, sin_r, cos_r);
  s = lane_select(q >= L(2), -sa, sa);
  c = lane_select(q == L(1) || q == L(2), -ca, ca);
}

template <int W>
inline Lanes<double, W> lane_tanh(Lanes<double, W> x) {
  return lane_map(x, [](double v) { return std::tanh(v); });
}

}  // namespace simphant
