#pragma once
// The compliant contact law (docs/contact.md, "Contact law"): the normal force of a
// contact from its penetration depth and rate, regularised Coulomb friction and rolling
// resistance in the tangent plane, and the rules that combine two materials. Header-only
// SP_HD, one copy of the law for the CPU reference, the SIMD lanes and the GPU. The
// per-thread laws are templates over T = double, float or Lanes<S, W> (math/lanes.hpp):
// they branch only on the law's integer field, values go through lane_select. The
// parameter functions (stiffness, restitution relations) are for scalar T only.
//
// Normal force, delta >= 0 the penetration [m], delta_dot its rate [m/s] (> 0 approaching),
// F >= 0 [N] pushing the bodies apart, 0 where delta <= 0 and clamped at 0 (no pulling):
//   Tsuji (default)    F = K delta^n + D delta^((n-1)/2) delta_dot,  D = 2 zeta sqrt(n m* K)
//                      zeta: the damping ratio against the local tangent stiffness
//                      n K delta^(n-1); e depends on zeta and n only (no state, no v_impact)
//   HuntCrossley       F = K delta^n (1 + c delta_dot),    c fixed [s/m]; e falls with v_impact
//   LankaraniNikravesh F = K delta^n (1 + a delta_dot / v_i),  a = 3 (1 - e^2) / 4
//   Flores             F = K delta^n (1 + a delta_dot / v_i),  a = 8 (1 - e) / (5 e)
//   ExactImpact        F = K delta^n (1 + a delta_dot / v_i),  a = hc_damping_for_restitution(e)
// with v_i = max(v_impact, v_floor), v_impact the approach speed at the start of the
// contact (one slot per contact pair: contact_impact_slot). The four Hunt-Crossley forms
// share one exact restitution relation (hc_restitution): e depends on a = c v_i alone.
//
// Friction, v_t the relative sliding velocity in the tangent plane [m/s]:
//   F_t = -mu F_n v_t / sqrt(|v_t|^2 + v_eps^2)
// Rolling resistance, w_r the relative rolling angular velocity [rad/s]:
//   M_r = -mu_roll F_n w_r / sqrt(|w_r|^2 + w_eps^2)     (mu_roll: a length [m])
//
// Sources: Hertz stiffness, Johnson, Contact Mechanics (1985) eq. 4.22 and section 11.4;
// K. H. Hunt, F. R. E. Crossley, J. Appl. Mech. 42 (1975) 440; H. M. Lankarani,
// P. E. Nikravesh, J. Mech. Des. 112 (1990) 369; P. Flores et al., Multibody Syst. Dyn.
// 25 (2011) 357; Y. Tsuji, T. Tanaka, T. Ishida, Powder Technol. 71 (1992) 239; the exact
// Hunt-Crossley restitution: A. S. Carvalho, J. M. Martins, Mech. Mach. Theory 139 (2019)
// 174; the linear dashpot with no pulling: T. Schwager, T. Poeschel, Granular Matter 9
// (2007) 465.
#include <cmath>

#include "simphant/core/hd.hpp"
#include "simphant/math/lane_ops.hpp"
#include "simphant/math/small.hpp"

namespace simphant {

/// Which form of the normal force.
enum class NormalLaw : int { Tsuji = 0, HuntCrossley = 1, LankaraniNikravesh = 2, Flores = 3, ExactImpact = 4 };

/// Parameters of a contact's normal force (plain data; one per contact pair or per
/// instance). Build them with normal_law_params.
template <class T>
struct NormalLawParams {
  int law;      ///< NormalLaw
  T stiffness;  ///< K [N / m^n], > 0 (Hertz: hertz_stiffness)
  T exponent;   ///< n [1], >= 1 (1.5: Hertz point contact, 1: linear spring)
  T damping;    ///< Tsuji: D [N s / m^((n+1)/2)]; HuntCrossley: c [s/m]; LN, Flores, ExactImpact: a [1]
  T v_floor;    ///< LN, Flores, ExactImpact: lower bound of v_impact [m/s], > 0
};

/// Parameters of friction and rolling resistance (plain data).
template <class T>
struct FrictionParams {
  T mu;       ///< Coulomb coefficient [1], >= 0
  T v_eps;    ///< slip-speed regularisation [m/s], > 0
  T mu_roll;  ///< rolling resistance length [m], >= 0 (M_r = mu_roll F_n)
  T w_eps;    ///< rolling-rate regularisation [rad/s], > 0
};

/// Parameters of one contact pair (plain data; per pair or per instance). The Tsuji law's
/// damping holds the pair's effective mass (normal_law_params with effective_mass).
template <class T>
struct ContactPairParams {
  NormalLawParams<T> normal;   ///< normal force law (contact_law.hpp)
  FrictionParams<T> friction;  ///< Coulomb mu, v_eps; rolling resistance mu_roll [m], w_eps
  T margin;                    ///< collision margin [m] >= 0: near contacts carry no force
};

// x^y for the law's exponents: std::pow for scalars (host and device), per lane for Lanes.
SP_HD double contact_pow(double x, double y) { return std::pow(x, y); }
SP_HD float contact_pow(float x, float y) { return std::pow(x, y); }
template <class S, int W>
struct Lanes;
template <class S, int W>
inline Lanes<S, W> contact_pow(Lanes<S, W> x, Lanes<S, W> y) {
  Lanes<S, W> r;
  for (int l = 0; l < W; ++l) r.set(l, std::pow(x[l], y[l]));
  return r;
}

/// The normal force F [N] >= 0 of law p at penetration delta [m] and rate delta_dot [m/s]
/// (> 0 approaching); v_impact [m/s] is read by the impact laws only (LN, Flores,
/// ExactImpact: contact_impact_speed), pass 0 otherwise. F = 0 where delta <= 0 and where
/// the damping term would pull. Where every lane has n = 1.5 the powers are square roots
/// (cheaper than pow; a lane group with mixed exponents differs from the scalar form by
/// rounding only).
template <class T>
SP_HD T contact_normal_force(const NormalLawParams<T>& p, T delta, T delta_dot, T v_impact) {
  const auto touching = delta > T(0);
  const T d = lane_select(touching, delta, T(0));
  const bool hertz = lane_all(p.exponent == T(1.5));
  T f;
  if (p.law == static_cast<int>(NormalLaw::Tsuji)) {
    const T h = hertz ? lane_sqrt(lane_sqrt(d)) : contact_pow(d, T(0.5) * (p.exponent - T(1)));  // d^((n-1)/2)
    f = h * (p.stiffness * (h * d) + p.damping * delta_dot);
  } else {
    const T dn = hertz ? d * lane_sqrt(d) : contact_pow(d, p.exponent);
    T c = p.damping;
    if (p.law != static_cast<int>(NormalLaw::HuntCrossley)) c = p.damping / lane_max(v_impact, p.v_floor);
    f = p.stiffness * dn * (T(1) + c * delta_dot);
  }
  return lane_select(touching && f > T(0), f, T(0));
}

/// The impact speed that the impact laws read during a step: the pair's slot where it
/// holds one (> 0), else the present rate (the step in which the contact begins).
template <class T>
SP_HD T contact_impact_speed(T slot, T delta_dot) {
  return lane_select(slot > T(0), slot, delta_dot);
}

/// A contact pair's impact-speed slot after an accepted step (not after a stage): 0 out
/// of contact; at the first step in contact max(delta_dot, v_floor); then unchanged.
template <class T>
SP_HD T contact_impact_slot(T slot, T delta, T delta_dot, T v_floor) {
  return lane_select(delta > T(0), lane_select(slot > T(0), slot, lane_max(delta_dot, v_floor)), T(0));
}

/// The tangential part v - (v . n) n of v for the unit contact normal n.
template <class T>
SP_HD Vec3<T> tangential_part(const Vec3<T>& v, const Vec3<T>& n) {
  return v - dot(v, n) * n;
}

/// Regularised Coulomb friction F_t [N] on the body whose relative sliding velocity in
/// the tangent plane is v_t [m/s]: -mu F_n v_t / sqrt(|v_t|^2 + v_eps^2); |F_t| < mu F_n,
/// -> mu F_n for |v_t| >> v_eps, slope mu F_n / v_eps at rest. f_normal < 0 counts as 0.
template <class T>
SP_HD Vec3<T> friction_force(const FrictionParams<T>& p, T f_normal, const Vec3<T>& v_t) {
  const T fn = lane_max(f_normal, T(0));
  const T s = -p.mu * fn / lane_sqrt(dot(v_t, v_t) + p.v_eps * p.v_eps);
  return s * v_t;
}

/// Rolling-resistance torque M_r [N m] against the relative rolling angular velocity w_r
/// [rad/s] (the part of the relative angular velocity in the tangent plane):
/// -mu_roll F_n w_r / sqrt(|w_r|^2 + w_eps^2).
template <class T>
SP_HD Vec3<T> rolling_torque(const FrictionParams<T>& p, T f_normal, const Vec3<T>& w_r) {
  const T fn = lane_max(f_normal, T(0));
  const T s = -p.mu_roll * fn / lane_sqrt(dot(w_r, w_r) + p.w_eps * p.w_eps);
  return s * w_r;
}

// ---- Material pairs ---------------------------------------------------------------------

/// How two materials' coefficients combine into the pair's.
enum class CombineRule : int { GeometricMean = 0, Min = 1, Max = 2, Mean = 3 };

/// The pair's coefficient from a and b (>= 0) by rule r.
template <class T>
SP_HD T combine_coefficient(T a, T b, CombineRule r) {
  if (r == CombineRule::Min) return lane_min(a, b);
  if (r == CombineRule::Max) return lane_max(a, b);
  if (r == CombineRule::Mean) return T(0.5) * (a + b);
  return lane_sqrt(a * b);
}
/// Friction of a pair: sqrt(mu_a mu_b) (either surface at 0, e.g. ice, makes the pair slide).
template <class T>
SP_HD T combine_friction(T mu_a, T mu_b) {
  return combine_coefficient(mu_a, mu_b, CombineRule::GeometricMean);
}
/// Restitution of a pair: min(e_a, e_b) (the more dissipative material decides).
template <class T>
SP_HD T combine_restitution(T e_a, T e_b) {
  return combine_coefficient(e_a, e_b, CombineRule::Min);
}
/// Effective modulus E* = 1 / ((1 - nu_a^2) / E_a + (1 - nu_b^2) / E_b) [Pa].
template <class T>
SP_HD T effective_modulus(T E_a, T nu_a, T E_b, T nu_b) {
  return T(1) / ((T(1) - nu_a * nu_a) / E_a + (T(1) - nu_b * nu_b) / E_b);
}
/// Effective radius R* = 1 / (1 / R_a + 1 / R_b) [m]; a plane has R = +infinity.
template <class T>
SP_HD T effective_radius(T R_a, T R_b) {
  return T(1) / (T(1) / R_a + T(1) / R_b);
}
/// Effective (reduced) mass m* = 1 / (1 / m_a + 1 / m_b) [kg]; the ground has m = +infinity.
template <class T>
SP_HD T effective_mass(T m_a, T m_b) {
  return T(1) / (T(1) / m_a + T(1) / m_b);
}
/// Hertz stiffness of two spheres (or a sphere on a plane), K = 4/3 E* sqrt(R*) [N/m^1.5].
template <class T>
SP_HD T hertz_stiffness(T E_star, T R_star) {
  return T(4) / T(3) * E_star * lane_sqrt(R_star);
}

// ---- Restitution relations (scalar T) ---------------------------------------------------

namespace contact_detail {
/// [ln(1 + a) - ln(1 - e a) - a (1 + e)] / a^2 for a > 0, 0 <= e a < 1: zero exactly where
/// a Hunt-Crossley impact with c v_i = a rebounds with restitution e; increasing in a and
/// in e. The series for a <= 0.1 avoids the cancellation of the logarithms with a (1 + e).
template <class T>
SP_HD T hc_balance(T a, T e) {
  if (a > T(0.1)) return (std::log1p(a) - std::log1p(-e * a) - a * (T(1) + e)) / (a * a);
  // sum_{k>=2} ((-1)^(k+1) + e^k) a^(k-2) / k, terms below 0.1^22 dropped
  T sum = T(0), ak = T(1), ek = e * e, sign = T(-1);
  for (int k = 2; k <= 24; ++k) {
    sum += (sign + ek) * ak / T(k);
    ak *= a;
    ek *= e;
    sign = -sign;
  }
  return sum;
}
/// Bisection of an increasing f on [lo, hi] to the last representable midpoint.
template <class T, class F>
SP_HD T bisect_increasing(F f, T lo, T hi) {
  for (int i = 0; i < 400; ++i) {
    const T mid = T(0.5) * (lo + hi);
    if (!(mid > lo && mid < hi)) break;
    if (f(mid) < T(0))
      lo = mid;
    else
      hi = mid;
  }
  return T(0.5) * (lo + hi);
}
/// Tsuji law, dimensionless (x in delta_max-like units, t in delta / v_impact units):
/// x'' = -max(0, x^q (x^(q+1) + gamma x')), q = (n-1)/2. s = x^(q+1) + gamma x' is the
/// force's sign; acceleration and s at (x, v).
template <class T>
SP_HD void tsuji_rhs(T x, T v, T q, T gamma, T& acc, T& s) {
  const T xc = x > T(0) ? x : T(0);
  const T xq = std::pow(xc, q);
  s = xq * xc + gamma * v;
  const T f = xq * s;
  acc = f > T(0) ? -f : T(0);
}
template <class T>
SP_HD void tsuji_rk4(T& x, T& v, T h, T q, T gamma) {
  T a1, a2, a3, a4, s;
  tsuji_rhs(x, v, q, gamma, a1, s);
  tsuji_rhs(x + T(0.5) * h * v, v + T(0.5) * h * a1, q, gamma, a2, s);
  tsuji_rhs(x + T(0.5) * h * (v + T(0.5) * h * a1), v + T(0.5) * h * a2, q, gamma, a3, s);
  tsuji_rhs(x + h * (v + T(0.5) * h * a2), v + h * a3, q, gamma, a4, s);
  const T v2 = v + T(0.5) * h * a1, v3 = v + T(0.5) * h * a2, v4 = v + h * a3;
  x = x + h / T(6) * (v + T(2) * v2 + T(2) * v3 + v4);
  v = v + h / T(6) * (a1 + T(2) * a2 + T(2) * a3 + a4);
}
}  // namespace contact_detail

/// Exact restitution of the Hunt-Crossley form F = K delta^n (1 + c delta_dot), no
/// pulling, for a = c v_impact >= 0 (any K, n and mass): the root e in (0, 1] of
///   ln((1 + a) / (1 - e a)) = a (1 + e)      (Carvalho & Martins 2019)
/// from m v dv / (1 + c v) = -K delta^n d delta over the compression and the restitution.
/// For small a, e = 1 - 2a/3 + O(a^2). Every law but Tsuji has this relation with its a.
template <class T>
SP_HD T hc_restitution(T a) {
  if (!(a > T(0))) return T(1);
  const T hi = a < T(1) ? T(1) : T(1) / a;
  return contact_detail::bisect_increasing([a](T e) { return contact_detail::hc_balance(a, e); }, T(0), hi);
}

/// The a = c v_impact [1] for which a Hunt-Crossley impact has restitution e (inverse of
/// hc_restitution): 0 for e >= 1, +infinity for e <= 0. ExactImpact uses it; HuntCrossley's
/// fixed c = a / v_ref gives e exactly at the impact speed v_ref only.
template <class T>
SP_HD T hc_damping_for_restitution(T e) {
  if (!(e < T(1))) return T(0);
  if (!(e > T(0))) return T(INFINITY);
  return contact_detail::bisect_increasing([e](T a) { return contact_detail::hc_balance(a, e); }, T(0), T(1) / e);
}

/// Lankarani-Nikravesh (1990): a = 3 (1 - e^2) / 4, exact in the limit e -> 1.
template <class T>
SP_HD T lankarani_nikravesh_damping(T e) {
  return T(0.75) * (T(1) - e * e);
}
/// Flores et al. (2011): a = 8 (1 - e) / (5 e), for 0 < e <= 1.
template <class T>
SP_HD T flores_damping(T e) {
  return T(8) * (T(1) - e) / (T(5) * e);
}

/// Restitution of the Tsuji law with damping ratio zeta >= 0 and exponent n >= 1 (any K,
/// m*, v_impact): the dimensionless impact x'' = -max(0, x^n + 2 zeta sqrt(n) x^((n-1)/2) x'),
/// x(0) = 0, x'(0) = 1 integrated by RK4 (a series start at t = 1e-6, steps 0.02 t growing
/// to 2e-3, the end of contact located by bisection of the last step) until the force
/// vanishes; e = -x' there. Accurate to about 1e-12 in double (n = 1 against the closed form
/// of Schwager & Poeschel; n = 1.5 against an independent integration; tests/
/// test_contact_law.cpp). Costs about 2000 RK4 steps (0.2 ms).
template <class T>
SP_HD T tsuji_restitution(T zeta, T n) {
  if (!(zeta > T(0))) return T(1);
  const T q = T(0.5) * (n - T(1));
  const T gamma = T(2) * zeta * std::sqrt(n);
  T t = T(1e-6);
  // x = t - gamma t^(q+2) / ((q+1)(q+2)), x' = 1 - gamma t^(q+1) / (q+1), up to O(t^(n+1), t^(2q+2))
  const T tq1 = std::pow(t, q + T(1));
  T x = t - gamma * tq1 * t / ((q + T(1)) * (q + T(2)));
  T v = T(1) - gamma * tq1 / (q + T(1));
  for (int step = 0; step < 4000000; ++step) {
    const T h = T(0.02) * t < T(2e-3) ? T(0.02) * t : T(2e-3);
    T x1 = x, v1 = v, acc, s;
    contact_detail::tsuji_rk4(x1, v1, h, q, gamma);
    contact_detail::tsuji_rhs(x1, v1, q, gamma, acc, s);
    if (s <= T(0)) {  // the force vanishes within this step: bisect its length
      T lo = T(0), hi = h;
      for (int i = 0; i < 200; ++i) {
        const T mid = T(0.5) * (lo + hi);
        if (!(mid > lo && mid < hi)) break;
        T xm = x, vm = v;
        contact_detail::tsuji_rk4(xm, vm, mid, q, gamma);
        contact_detail::tsuji_rhs(xm, vm, q, gamma, acc, s);
        if (s <= T(0))
          hi = mid;
        else
          lo = mid;
      }
      T xe = x, ve = v;
      contact_detail::tsuji_rk4(xe, ve, hi, q, gamma);
      return -ve;
    }
    x = x1;
    v = v1;
    t += h;
  }
  return T(0);  // not reached for zeta below ~50
}

/// Restitution of the linear Tsuji law (n = 1: a spring-dashpot that does not pull) with
/// damping ratio 0 <= zeta < 1, in closed form: e = exp(-zeta (pi - 2 asin zeta) /
/// sqrt(1 - zeta^2)) (T. Schwager, T. Poeschel, Granular Matter 9 (2007) 465); e falls from
/// 1 to exp(-2) as zeta goes from 0 to 1.
template <class T>
SP_HD T tsuji_restitution_linear(T zeta) {
  return std::exp(-zeta * (T(3.14159265358979323846) - T(2) * std::asin(zeta)) / std::sqrt(T(1) - zeta * zeta));
}

/// The Tsuji damping ratio zeta for restitution e (inverse of tsuji_restitution): 0 for
/// e >= 1, +infinity for e <= 0. For n = 1.5 and 0.01 <= e < 1 a rational fit in
/// L = -ln e (relative error below 2e-7 against the integration; a few flops); for n = 1
/// and e > exp(-2) bisection of the closed form tsuji_restitution_linear (microseconds);
/// otherwise bisection of tsuji_restitution (about 10 ms: a setup-time call).
template <class T>
SP_HD T tsuji_damping_ratio(T e, T n) {
  if (!(e < T(1))) return T(0);
  if (!(e > T(0))) return T(INFINITY);
  if (n == T(1) && e > std::exp(T(-2)))
    return contact_detail::bisect_increasing([e](T z) { return e - tsuji_restitution_linear(z); }, T(0), T(1));
  if (n == T(1.5) && e >= T(0.01)) {
    const T L = -std::log(e);
    const T num = T(0.29057582136187787) +
                  L * (T(-0.0058104671199652163) + L * (T(0.0015546363641154904) + L * T(5.7786049579923377e-05)));
    const T den = T(1) + L * (T(-0.22264092131930568) + L * (T(0.019006126013331903) + L * T(-0.00061828072160862227)));
    return L * num / den;
  }
  T hi = T(1);
  for (int i = 0; i < 64 && tsuji_restitution(hi, n) > e; ++i) hi *= T(2);
  // tsuji_restitution decreases in zeta: bisect e - e(zeta), which increases
  return contact_detail::bisect_increasing([e, n](T z) { return e - tsuji_restitution(z, n); }, T(0), hi);
}

// ---- Building a law ---------------------------------------------------------------------

/// Parameters of `law` for stiffness K [N/m^n], exponent n, requested restitution e in
/// (0, 1], effective mass m_eff [kg] (Tsuji: the pair's m*, effective_mass), reference
/// impact speed v_ref [m/s] (HuntCrossley: e is exact at this speed) and the impact laws'
/// speed floor v_floor [m/s]. LN and Flores take e as their formula does (their actual
/// restitution: normal_law_restitution).
template <class T>
SP_HD NormalLawParams<T> normal_law_params(NormalLaw law, T K, T n, T e, T m_eff, T v_ref, T v_floor) {
  NormalLawParams<T> p{static_cast<int>(law), K, n, T(0), v_floor};
  if (law == NormalLaw::Tsuji)
    p.damping = T(2) * tsuji_damping_ratio(e, n) * std::sqrt(n * m_eff * K);
  else if (law == NormalLaw::HuntCrossley)
    p.damping = hc_damping_for_restitution(e) / v_ref;
  else if (law == NormalLaw::LankaraniNikravesh)
    p.damping = lankarani_nikravesh_damping(e);
  else if (law == NormalLaw::Flores)
    p.damping = flores_damping(e);
  else
    p.damping = hc_damping_for_restitution(e);
  return p;
}

/// The restitution that law p gives an impact of effective mass m_eff [kg] at speed
/// v_impact [m/s] (no other force): the exact relation of its form.
template <class T>
SP_HD T normal_law_restitution(const NormalLawParams<T>& p, T m_eff, T v_impact) {
  if (p.law == static_cast<int>(NormalLaw::Tsuji))
    return tsuji_restitution(p.damping / (T(2) * std::sqrt(p.exponent * m_eff * p.stiffness)), p.exponent);
  if (p.law == static_cast<int>(NormalLaw::HuntCrossley)) return hc_restitution(p.damping * v_impact);
  return hc_restitution(p.damping * v_impact / (v_impact > p.v_floor ? v_impact : p.v_floor));
}

/// Steady creep speed [m/s] of a body on a slope tan_theta < mu under the regularised law:
/// v_eps tan_theta / sqrt(mu^2 - tan_theta^2) (the speed where mu F_n v / sqrt(v^2 + v_eps^2)
/// balances the downhill weight); +infinity for tan_theta >= mu (it slides).
template <class T>
SP_HD T friction_creep_speed(T mu, T tan_theta, T v_eps) {
  if (!(tan_theta < mu)) return T(INFINITY);
  return v_eps * tan_theta / std::sqrt(mu * mu - tan_theta * tan_theta);
}

}  // namespace simphant
