#include "simphant/scene/robot_joint_params.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <stdexcept>

#include <Eigen/Dense>

#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/crba.hpp"
#include "simphant/reduced/reduced_params.hpp"

namespace simphant {

namespace {

/// c^T M(q)^-1 c for the joint forces c (n): the joint accelerations M^-1 c that c
/// produces from rest without gravity, one ABA call (a floating base free). NaN when M(q)
/// is singular.
double inverse_inertia_along(const ReducedModel& rm, const std::vector<ReducedLinkParams<double>>& links,
                             const std::vector<double>& q, const std::vector<double>& c, AbaWorkspace<double>& ws) {
  const int n = rm.nq();
  const std::vector<double> zero(static_cast<std::size_t>(n), 0.0);
  std::vector<double> qdd(static_cast<std::size_t>(n), 0.0);
  const Vec3d o{0, 0, 0};
  if (rm.floating) {
    const RobotBaseParams<double> base{rm.base.mass, rm.base.com, rm.base.inertia_com};
    Vec3d vdot_B, omegadot_B;
    aba_floating(n, links.data(), base, o, o, Quatd{1, 0, 0, 0}, o, o, q.data(), zero.data(), c.data(), vdot_B,
                 omegadot_B, qdd.data(), ws);
  } else {
    aba(n, links.data(), o, q.data(), zero.data(), c.data(), qdd.data(), ws);
  }
  double w = 0;
  for (int k = 0; k < n; ++k) w += c[static_cast<std::size_t>(k)] * qdd[static_cast<std::size_t>(k)];
  return w;
}

}  // namespace

std::vector<double> joint_effective_inertia(const ReducedModel& rm, const std::vector<double>& q) {
  const int n = rm.nq();
  if (static_cast<int>(q.size()) != n) throw std::invalid_argument("joint_effective_inertia: q must have nq entries");
  std::vector<ReducedLinkParams<double>> links(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) links[static_cast<std::size_t>(k)] = reduced_link_params<double>(rm, k);
  auto ws = std::make_unique<CrbaWorkspace<double>>();  // ~ 40 kB: not on the stack
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> M(n, n);
  crba<double>(n, links.data(), Vec3d{0, 0, 0}, q.data(), nullptr, M.data(), nullptr, *ws);
  // Cholesky by hand to name the joint whose pivot vanishes (M = L L^T, pivots in
  // topological order): a joint that moves no mass (a massless leaf, or two coincident
  // axes joined by a massless link) leaves M singular.
  double scale = 0;
  for (int k = 0; k < n; ++k) scale = std::max(scale, std::abs(M(k, k)));
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(n, n);
  for (int k = 0; k < n; ++k) {
    double d = M(k, k);
    for (int j = 0; j < k; ++j) d -= L(k, j) * L(k, j);
    if (!(d > 1e-12 * scale) || !std::isfinite(d))
      throw std::invalid_argument("the joint-space mass matrix at q0 is singular: joint '" +
                                  rm.links[static_cast<std::size_t>(k)].joint_name +
                                  "' moves no mass that the joints before it do not already move");
    L(k, k) = std::sqrt(d);
    for (int i = k + 1; i < n; ++i) {
      double s = M(i, k);
      for (int j = 0; j < k; ++j) s -= L(i, j) * L(k, j);
      L(i, k) = s / L(k, k);
    }
  }
  std::vector<double> I(static_cast<std::size_t>(n));
  if (!rm.floating) {
    // (M^-1)_kk = |L^-1 e_k|^2.
    const Eigen::MatrixXd Linv = L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(n, n));
    for (int k = 0; k < n; ++k) I[static_cast<std::size_t>(k)] = 1.0 / Linv.col(k).squaredNorm();
    return I;
  }
  // A free base: (M^-1)_kk of the whole (6 + n) system is the joint acceleration that a
  // unit force on joint k alone produces from rest without gravity, one floating ABA call
  // (Featherstone ch. 9) per joint. It is <= the fixed-base value (the base gives way).
  auto aws = std::make_unique<AbaWorkspace<double>>();
  std::vector<double> e(static_cast<std::size_t>(n), 0.0);
  for (int k = 0; k < n; ++k) {
    e[static_cast<std::size_t>(k)] = 1.0;
    I[static_cast<std::size_t>(k)] = 1.0 / inverse_inertia_along(rm, links, q, e, *aws);
    e[static_cast<std::size_t>(k)] = 0.0;
  }
  return I;
}

namespace {

/// The kInertiaSamples configurations of joint_inertia_lower_bound: each joint uniform in
/// [lower, upper], or [-pi, pi] without position limits, drawn joint by joint.
std::vector<std::vector<double>> sampled_configurations(const ReducedModel& rm) {
  const int n = rm.nq();
  // std::mt19937_64's sequence is fixed by the C++ standard (unlike the distributions),
  // so the samples, and the gains, are the same with every standard library.
  std::mt19937_64 rng(0x5eed);
  std::vector<std::vector<double>> out(kInertiaSamples, std::vector<double>(static_cast<std::size_t>(n)));
  for (std::vector<double>& q : out)
    for (int k = 0; k < n; ++k) {
      const ReducedLink& l = rm.links[static_cast<std::size_t>(k)];
      const bool limited = !l.continuous && l.lower < l.upper;
      const double lo = limited ? l.lower : -M_PI, hi = limited ? l.upper : M_PI;
      const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1)
      q[static_cast<std::size_t>(k)] = lo + (hi - lo) * u;
    }
  return out;
}

/// The minimum over the sampled configurations alone (q0 not included).
std::vector<double> sampled_inertia_minimum(const ReducedModel& rm) {
  const int n = rm.nq();
  std::vector<double> I(static_cast<std::size_t>(n), std::numeric_limits<double>::infinity());
  for (const std::vector<double>& q : sampled_configurations(rm)) {
    try {
      const std::vector<double> Is = joint_effective_inertia(rm, q);
      for (int k = 0; k < n; ++k)
        I[static_cast<std::size_t>(k)] = std::min(I[static_cast<std::size_t>(k)], Is[static_cast<std::size_t>(k)]);
    } catch (const std::invalid_argument&) {
      // A configuration where the mass matrix is singular (coincident axes of a massless
      // link): no finite gain is stable next to it; the other samples stand.
    }
  }
  return I;
}

/// The bytes of everything the mass matrix depends on: the cache key of a robot model
/// (a sweep compiles one model per instance, most of them with the same links).
std::string inertia_key(const ReducedModel& rm) {
  std::string key;
  const auto put = [&key](const void* p, std::size_t bytes) { key.append(static_cast<const char*>(p), bytes); };
  for (int k = 0; k < rm.nq(); ++k) {
    const ReducedLinkParams<double> p = reduced_link_params<double>(rm, k);
    const ReducedLink& l = rm.links[static_cast<std::size_t>(k)];
    put(&p, sizeof p);
    const double range[3] = {l.continuous ? 1.0 : 0.0, l.lower, l.upper};
    put(range, sizeof range);
  }
  const int floating = rm.floating ? 1 : 0;
  put(&floating, sizeof floating);
  if (rm.floating) {
    const RobotBaseParams<double> b{rm.base.mass, rm.base.com, rm.base.inertia_com};
    put(&b, sizeof b);
  }
  return key;
}

/// compute() cached under key (a sweep compiles one model per instance, most of them with
/// the same links); bounded, as a sweep over masses has a key per instance.
template <class F>
std::vector<double> cached(const std::string& key, F compute) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<double>> cache;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  std::vector<double> value = compute();
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= 256) cache.clear();
  cache.emplace(key, value);
  return value;
}

}  // namespace

std::vector<double> joint_inertia_lower_bound(const ReducedModel& rm, const std::vector<double>& q0) {
  std::vector<double> I = joint_effective_inertia(rm, q0);
  const std::vector<double> sampled = cached("inertia " + inertia_key(rm), [&rm] { return sampled_inertia_minimum(rm); });
  for (std::size_t k = 0; k < I.size(); ++k) I[k] = std::min(I[k], sampled[k]);
  return I;
}


LimitMode limit_mode(const ReducedLink& link, double dt, bool solreflimit) {
  const LimitMode step{kLimitOmegaDt / dt, 1.0};
  const double tc = link.limit_time_constant, zeta = link.limit_damping_ratio;
  if (!solreflimit || !(tc > 0) || !(zeta > 0)) return step;
  const LimitMode asked{1.0 / (tc * zeta), zeta};
  const double fastest = asked.omega * (zeta > 1 ? zeta + std::sqrt(zeta * zeta - 1) : 1.0);
  return fastest <= step.omega ? asked : step;
}

std::vector<RobotJointParams<double>> derive_joint_params(const ReducedModel& rm, const std::vector<double>& I_k,
                                                          const UrdfDynamicsUse& use,
                                                          const std::vector<ServoSpec>& servos,
                                                          double friction_velocity, double dt) {
  const int n = rm.nq();
  std::vector<RobotJointParams<double>> out(static_cast<std::size_t>(n), plain_joint_params<double>());
  for (int k = 0; k < n; ++k) {
    const ReducedLink& l = rm.links[static_cast<std::size_t>(k)];
    RobotJointParams<double>& p = out[static_cast<std::size_t>(k)];
    const double I = I_k[static_cast<std::size_t>(k)];
    if (use.effort) {
      p.effort = l.effort > 0 ? l.effort : 0.0;
      p.velocity = l.velocity > 0 ? l.velocity : 0.0;
    }
    if (use.limits) {
      // A continuous joint, or a URDF <limit> with lower >= upper (lower = upper = 0 is
      // what many files write for "not given"), has no position limits.
      if (!l.continuous && l.lower < l.upper) {
        p.limited = 1;
        p.lower = l.lower;
        p.upper = l.upper;
        const LimitMode mode = limit_mode(l, dt, use.solreflimit);
        p.limit_stiffness = I * mode.omega * mode.omega;
        p.limit_damping = 2.0 * mode.damping_ratio * I * mode.omega;
      }
    }
    if (use.damping) p.damping = l.damping;
    p.stiffness = l.stiffness;  // the file's joint spring (MJCF), part of the model as armature is
    p.spring_q = l.spring_q;
    p.friction_velocity = friction_velocity;
    if (use.friction && l.friction > 0) {
      p.friction = l.friction;
      const double floor = l.friction * dt / (kFrictionSlopeDt * I);
      if (p.friction_velocity < floor) p.friction_velocity = floor;
    }
    if (use.mimic && l.mimic >= 0) {
      p.mimic = l.mimic;
      p.mimic_multiplier = l.mimic_multiplier;
      p.mimic_offset = l.mimic_offset;
    }
  }
  for (const ServoSpec& s : servos) {
    RobotJointParams<double>& p = out[static_cast<std::size_t>(s.joint)];
    p.mode = static_cast<int>(s.mode);
    p.kp = s.mode == ActuatorMode::Position ? s.kp : 0.0;
    p.kd = s.kd;
  }
  return out;
}

}  // namespace simphant
