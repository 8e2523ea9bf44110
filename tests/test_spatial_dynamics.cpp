// Spatial-vector recursive dynamics (reduced/rnea.hpp, crba.hpp, aba.hpp) on seeded
// random kinematic trees: ABA inverts RNEA; ABA agrees with a dense solve of CRBA's
// M; M is SPD and equals both dtau/dqdd and the mass matrix assembled here from
// independent forward kinematics (geometric Jacobians, Eigen); kinetic energy; the bias
// against Lagrange's equations by finite differences; closed-form one-link cases.
//
// Tolerances (fp64, eps = 2.2e-16): the algorithms are O(n) / O(n d) sums of products of
// O(1) quantities, so their rounding error is a few hundred eps times the data scale;
// the comparisons ABA vs RNEA and ABA vs M^-1(...) lose a further factor cond(M)
// (<= 1e4 for these trees: masses 0.5-3 kg, link offsets <= 0.5 m), hence 1e-10
// relative. Exact identities (M vs dtau/dqdd with the step 1, M vs Jacobian M, kinetic
// energy) hold to 1e-12 relative. Central differences with step h have truncation
// error O(h^2) and rounding error O(eps / h); h = 1e-5 balances them near 1e-10, so
// those checks use 1e-8 relative. (Measured worst cases over all trees: 1.7e-13 for the
// 1e-10 checks, 2e-15 for the 1e-12 ones, 6.4e-10 for the 1e-8 one.)
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/crba.hpp"
#include "simphant/reduced/rnea.hpp"

namespace simphant {
namespace {

using Links = std::vector<ReducedLinkParams<double>>;
using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

const Vec3d kGravity{0.0, 0.0, -9.81};

Vector3d ev(const Vec3d& a) { return {a.x, a.y, a.z}; }
Matrix3d em(const Mat3d& A) {
  Matrix3d M;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) M(i, j) = A.m[i][j];
  return M;
}
Mat3d sm(const Matrix3d& M) {
  Mat3d A;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A.m[i][j] = M(i, j);
  return A;
}
Vec3d sv(const Vector3d& a) { return {a.x(), a.y(), a.z()}; }

Matrix3d random_rotation(std::mt19937_64& g) {
  std::normal_distribution<double> nd(0.0, 1.0);
  Eigen::Quaterniond p(nd(g), nd(g), nd(g), nd(g));
  return p.normalized().toRotationMatrix();
}

Vector3d random_unit(std::mt19937_64& g) {
  std::normal_distribution<double> nd(0.0, 1.0);
  return Vector3d(nd(g), nd(g), nd(g)).normalized();
}

/// A random tree of n links: parent uniform in [-1, k-1] (chain: k-1), oblique unit axes,
/// random R_parent_joint and offsets, about one joint in three prismatic (at least one
/// for n >= 3), masses 0.5-3 kg, CoM within 0.3 m, SPD inertias with principal
/// moments satisfying the triangle inequality.
Links random_tree(std::mt19937_64& g, int n, bool chain) {
  std::uniform_real_distribution<double> u01(0.0, 1.0), off(-0.5, 0.5), com(-0.3, 0.3), mass(0.5, 3.0),
      mom(0.01, 0.1);
  Links links(n);
  for (int k = 0; k < n; ++k) {
    ReducedLinkParams<double>& l = links[k];
    l.parent = chain ? k - 1 : std::uniform_int_distribution<int>(-1, k - 1)(g);
    l.type = (u01(g) < 1.0 / 3.0 || (n >= 3 && k == n / 2)) ? 1 : 0;
    l.R_parent_joint = sm(random_rotation(g));
    l.p_parent_joint = {off(g), off(g), off(g)};
    l.axis = sv(random_unit(g));
    l.mass = mass(g);
    l.com = {com(g), com(g), com(g)};
    const double d0 = mom(g), d1 = mom(g), d2 = mom(g), dmax = std::max({d0, d1, d2});
    const Matrix3d R = random_rotation(g);
    const Matrix3d Ic = R * Vector3d(d0 + dmax, d1 + dmax, d2 + dmax).asDiagonal() * R.transpose();
    l.inertia_com = sm(Ic);
  }
  return links;
}

VectorXd random_vector(std::mt19937_64& g, int n, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = u(g);
  return x;
}

// ---- the algorithms under test, wrapped for Eigen vectors ---------------------------

struct Algorithms {
  std::unique_ptr<RneaWorkspace<double>> rws = std::make_unique<RneaWorkspace<double>>();
  std::unique_ptr<CrbaWorkspace<double>> cws = std::make_unique<CrbaWorkspace<double>>();
  std::unique_ptr<AbaWorkspace<double>> aws = std::make_unique<AbaWorkspace<double>>();

  VectorXd rnea(const Links& L, const VectorXd& q, const VectorXd& qd, const VectorXd& qdd, Vec3d gr = kGravity) {
    VectorXd tau(L.size());
    simphant::rnea(int(L.size()), L.data(), gr, q.data(), qd.data(), qdd.data(), tau.data(), *rws);
    return tau;
  }
  VectorXd aba(const Links& L, const VectorXd& q, const VectorXd& qd, const VectorXd& tau, Vec3d gr = kGravity) {
    VectorXd qdd(L.size());
    simphant::aba(int(L.size()), L.data(), gr, q.data(), qd.data(), tau.data(), qdd.data(), *aws);
    return qdd;
  }
  void crba(const Links& L, const VectorXd& q, const VectorXd& qd, MatrixXd& M, VectorXd& bias) {
    const int n = int(L.size());
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Mr(n, n);
    bias.resize(n);
    simphant::crba(n, L.data(), kGravity, q.data(), qd.data(), Mr.data(), bias.data(), *cws);
    M = Mr;
  }
};

// ---- independent forward kinematics (Eigen, homogeneous transforms) ------------------

struct Kinematics {
  std::vector<Matrix3d> R;   // link frame orientation in W
  std::vector<Vector3d> o;   // link frame origin in W
  std::vector<Vector3d> z;   // joint axis in W
  std::vector<Vector3d> xc;  // CoM in W
};

Kinematics forward_kinematics(const Links& L, const VectorXd& q) {
  const int n = int(L.size());
  Kinematics K;
  K.R.resize(n);
  K.o.resize(n);
  K.z.resize(n);
  K.xc.resize(n);
  for (int k = 0; k < n; ++k) {
    const ReducedLinkParams<double>& l = L[k];
    const Matrix3d Rp = l.parent < 0 ? Matrix3d::Identity() : K.R[l.parent];
    const Vector3d op = l.parent < 0 ? Vector3d::Zero() : K.o[l.parent];
    const Matrix3d Rj = Rp * em(l.R_parent_joint);  // joint frame at q = 0, in W
    K.z[k] = Rj * ev(l.axis);
    if (l.type == 0) {
      K.R[k] = Rj * Eigen::AngleAxisd(q[k], ev(l.axis)).toRotationMatrix();
      K.o[k] = op + Rp * ev(l.p_parent_joint);
    } else {
      K.R[k] = Rj;
      K.o[k] = op + Rp * ev(l.p_parent_joint) + K.z[k] * q[k];
    }
    K.xc[k] = K.o[k] + K.R[k] * ev(l.com);
  }
  return K;
}

/// Geometric Jacobians of link k: angular velocity (Jw) and CoM velocity (Jv) in W.
void jacobians(const Links& L, const Kinematics& K, int k, MatrixXd& Jw, MatrixXd& Jv) {
  const int n = int(L.size());
  Jw = MatrixXd::Zero(3, n);
  Jv = MatrixXd::Zero(3, n);
  for (int j = k; j >= 0; j = L[j].parent) {
    if (L[j].type == 0) {
      Jw.col(j) = K.z[j];
      Jv.col(j) = K.z[j].cross(K.xc[k] - K.o[j]);  // the axis passes through the joint origin
    } else {
      Jv.col(j) = K.z[j];
    }
  }
}

/// M = sum_k m_k Jv^T Jv + Jw^T (R I_com R^T) Jw.
MatrixXd jacobian_mass_matrix(const Links& L, const VectorXd& q) {
  const int n = int(L.size());
  const Kinematics K = forward_kinematics(L, q);
  MatrixXd M = MatrixXd::Zero(n, n), Jw, Jv;
  for (int k = 0; k < n; ++k) {
    jacobians(L, K, k, Jw, Jv);
    const Matrix3d IW = K.R[k] * em(L[k].inertia_com) * K.R[k].transpose();
    M += L[k].mass * Jv.transpose() * Jv + Jw.transpose() * IW * Jw;
  }
  return M;
}

/// Sum of the link kinetic energies 1/2 m |v_c|^2 + 1/2 w^T I_W w [J].
double kinetic_energy(const Links& L, const VectorXd& q, const VectorXd& qd) {
  const Kinematics K = forward_kinematics(L, q);
  double T = 0;
  MatrixXd Jw, Jv;
  for (int k = 0; k < int(L.size()); ++k) {
    jacobians(L, K, k, Jw, Jv);
    const Vector3d w = Jw * qd, vc = Jv * qd;
    const Matrix3d IW = K.R[k] * em(L[k].inertia_com) * K.R[k].transpose();
    T += 0.5 * L[k].mass * vc.squaredNorm() + 0.5 * w.dot(IW * w);
  }
  return T;
}

/// Potential energy -sum m g . x_c [J].
double potential_energy(const Links& L, const VectorXd& q) {
  const Kinematics K = forward_kinematics(L, q);
  double V = 0;
  for (int k = 0; k < int(L.size()); ++k) V -= L[k].mass * ev(kGravity).dot(K.xc[k]);
  return V;
}

template <class D>
double inf_norm(const Eigen::MatrixBase<D>& x) {
  return x.size() ? x.cwiseAbs().maxCoeff() : 0.0;
}

struct Case {
  int n;
  bool chain;
};
// Sizes 1, 2, 7 (random parents and a chain) and a 20-link branching tree.
const Case kCases[] = {{1, false}, {2, false}, {2, true}, {7, false}, {7, true}, {20, false}};
constexpr int kSeeds = 8;

template <class F>
void for_each_tree(F&& f) {
  for (const Case& c : kCases)
    for (int s = 0; s < kSeeds; ++s) {
      std::mt19937_64 g(1000 * c.n + 17 * s + (c.chain ? 7 : 0));
      const Links L = random_tree(g, c.n, c.chain);
      SCOPED_TRACE(testing::Message() << "n=" << c.n << " chain=" << c.chain << " seed=" << s);
      f(g, L);
    }
}

TEST(SpatialDynamics, TwentyLinkTreeBranches) {
  std::mt19937_64 g(1000 * 20 + 0);
  const Links L = random_tree(g, 20, false);
  std::vector<int> children(20, 0);
  int prismatic = 0;
  for (const auto& l : L) {
    if (l.parent >= 0) ++children[l.parent];
    prismatic += l.type;
  }
  EXPECT_GT(*std::max_element(children.begin(), children.end()), 1);
  EXPECT_GT(prismatic, 0);
}

// (a) ABA(q, qd, RNEA(q, qd, qdd)) == qdd.
TEST(SpatialDynamics, AbaInvertsRnea) {
  Algorithms alg;
  for_each_tree([&](std::mt19937_64& g, const Links& L) {
    const int n = int(L.size());
    const VectorXd q = random_vector(g, n, M_PI), qd = random_vector(g, n, 2.0), qdd = random_vector(g, n, 5.0);
    const VectorXd tau = alg.rnea(L, q, qd, qdd);
    const VectorXd qdd2 = alg.aba(L, q, qd, tau);
    EXPECT_LE(inf_norm(qdd2 - qdd), 1e-10 * inf_norm(qdd));
  });
}

// (b) ABA == M^-1 (tau - bias) with CRBA's M and bias; (c) M symmetric positive definite.
TEST(SpatialDynamics, AbaMatchesCrbaSolve) {
  Algorithms alg;
  for_each_tree([&](std::mt19937_64& g, const Links& L) {
    const int n = int(L.size());
    const VectorXd q = random_vector(g, n, M_PI), qd = random_vector(g, n, 2.0), tau = random_vector(g, n, 10.0);
    MatrixXd M;
    VectorXd bias;
    alg.crba(L, q, qd, M, bias);
    EXPECT_EQ(inf_norm(M - M.transpose()), 0.0);  // both halves written from one value
    Eigen::SelfAdjointEigenSolver<MatrixXd> eig(M);
    EXPECT_GT(eig.eigenvalues().minCoeff(), 0.0);
    EXPECT_LT(eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff(), 1e6);  // the tolerance argument
    Eigen::LLT<MatrixXd> llt(M);
    ASSERT_EQ(llt.info(), Eigen::Success);
    const VectorXd qdd_ref = llt.solve(tau - bias);
    const VectorXd qdd = alg.aba(L, q, qd, tau);
    EXPECT_LE(inf_norm(qdd - qdd_ref), 1e-10 * inf_norm(qdd_ref));
    // bias = RNEA(q, qd, 0)
    EXPECT_LE(inf_norm(bias - alg.rnea(L, q, qd, VectorXd::Zero(n))), 1e-12 * (1 + inf_norm(bias)));
  });
}

// (f) dtau/dqdd by differences == M (tau is affine in qdd: the step 1 is exact up to rounding).
TEST(SpatialDynamics, MassMatrixIsDtauDqdd) {
  Algorithms alg;
  for_each_tree([&](std::mt19937_64& g, const Links& L) {
    const int n = int(L.size());
    const VectorXd q = random_vector(g, n, M_PI), qd = random_vector(g, n, 2.0), qdd = random_vector(g, n, 5.0);
    MatrixXd M, D(n, n);
    VectorXd bias;
    alg.crba(L, q, qd, M, bias);
    for (int j = 0; j < n; ++j) {
      VectorXd p = qdd, m = qdd;
      p[j] += 1.0;
      m[j] -= 1.0;
      D.col(j) = 0.5 * (alg.rnea(L, q, qd, p) - alg.rnea(L, q, qd, m));
    }
    EXPECT_LE(inf_norm(D - M), 1e-12 * (inf_norm(M) + inf_norm(alg.rnea(L, q, qd, qdd))));
  });
}

// (e) 1/2 qd^T M qd == sum of link kinetic energies from independent forward kinematics,
// and M itself == sum m Jv^T Jv + Jw^T I_W Jw.
TEST(SpatialDynamics, KineticEnergyAndJacobianMassMatrix) {
  Algorithms alg;
  for_each_tree([&](std::mt19937_64& g, const Links& L) {
    const int n = int(L.size());
    const VectorXd q = random_vector(g, n, M_PI), qd = random_vector(g, n, 2.0);
    MatrixXd M;
    VectorXd bias;
    alg.crba(L, q, qd, M, bias);
    const double T = 0.5 * qd.dot(M * qd), T_ref = kinetic_energy(L, q, qd);
    EXPECT_NEAR(T, T_ref, 1e-12 * T_ref);
    const MatrixXd MJ = jacobian_mass_matrix(L, q);
    EXPECT_LE(inf_norm(M - MJ), 1e-12 * inf_norm(MJ));
  });
}

// The bias against Lagrange's equations, all by central differences of the independent
// M(q) (Jacobians) and V(q): C qd + g = Mdot qd - 1/2 d(qd^T M qd)/dq + dV/dq.
TEST(SpatialDynamics, BiasMatchesLagrange) {
  Algorithms alg;
  const double h = 1e-5;
  for_each_tree([&](std::mt19937_64& g, const Links& L) {
    const int n = int(L.size());
    const VectorXd q = random_vector(g, n, M_PI), qd = random_vector(g, n, 2.0);
    const VectorXd bias = alg.rnea(L, q, qd, VectorXd::Zero(n));
    const MatrixXd Mdot = (jacobian_mass_matrix(L, q + h * qd) - jacobian_mass_matrix(L, q - h * qd)) / (2 * h);
    VectorXd ref = Mdot * qd;
    for (int i = 0; i < n; ++i) {
      VectorXd p = q, m = q;
      p[i] += h;
      m[i] -= h;
      const double dT = (qd.dot(jacobian_mass_matrix(L, p) * qd) - qd.dot(jacobian_mass_matrix(L, m) * qd)) / (2 * h);
      const double dV = (potential_energy(L, p) - potential_energy(L, m)) / (2 * h);
      ref[i] += -0.5 * dT + dV;
    }
    EXPECT_LE(inf_norm(bias - ref), 1e-8 * (1 + inf_norm(ref)));
  });
}

// (d) Closed form: a pendulum about a horizontal axis, CoM at distance l from the axis.
TEST(SpatialDynamics, PendulumClosedForm) {
  Algorithms alg;
  const double m = 1.7, l = 0.6, Ixx = 0.04, gz = 9.81;
  for (double yaw : {0.0, 0.7, 2.5}) {
    Links L(1);
    L[0].parent = -1;
    L[0].type = 0;
    L[0].R_parent_joint = sm(Eigen::AngleAxisd(yaw, Vector3d::UnitZ()).toRotationMatrix());  // axis stays horizontal
    L[0].p_parent_joint = {0.1, -0.2, 0.3};
    L[0].axis = {1, 0, 0};
    L[0].mass = m;
    L[0].com = {0, 0, -l};  // hanging at q = 0
    L[0].inertia_com = sm(Vector3d(Ixx, 0.05, 0.06).asDiagonal().toDenseMatrix());
    for (double qv : {0.0, 0.3, -1.2, 2.9}) {
      VectorXd q(1), qd(1), tau(1);
      q << qv;
      qd << 1.3;  // a single fixed axis: the rate adds no torque
      tau << 0.0;
      const double J = Ixx + m * l * l;
      const double qdd_ref = -m * gz * l * std::sin(qv) / J;
      EXPECT_NEAR(alg.aba(L, q, qd, tau)[0], qdd_ref, 1e-13 * (1 + std::abs(qdd_ref)));
      VectorXd qdd(1);
      qdd << 0.8;
      EXPECT_NEAR(alg.rnea(L, q, qd, qdd)[0], J * 0.8 + m * gz * l * std::sin(qv), 1e-13 * 10);
      MatrixXd M;
      VectorXd bias;
      alg.crba(L, q, qd, M, bias);
      EXPECT_NEAR(M(0, 0), J, 1e-14 * J);
    }
  }
}

// (d) Closed form: one prismatic joint along gravity: qdd = tau/m + g . axis_W.
TEST(SpatialDynamics, PrismaticAlongGravity) {
  Algorithms alg;
  std::mt19937_64 g(7);
  for (int trial = 0; trial < 4; ++trial) {
    Links L = random_tree(g, 1, false);
    L[0].type = 1;
    const Matrix3d R = em(L[0].R_parent_joint);
    L[0].axis = sv(R.transpose() * Vector3d::UnitZ());  // world axis +z (up)
    const double m = L[0].mass;
    VectorXd q(1), qd(1), tau(1);
    q << 0.4 * trial - 0.5;
    qd << -0.7;
    tau << 3.0 * trial - 2.0;
    const double qdd_ref = tau[0] / m - 9.81;
    EXPECT_NEAR(alg.aba(L, q, qd, tau)[0], qdd_ref, 1e-13 * 10);
    VectorXd qdd(1);
    qdd << qdd_ref;
    EXPECT_NEAR(alg.rnea(L, q, qd, qdd)[0], tau[0], 1e-13 * 30);
    MatrixXd M;
    VectorXd bias;
    alg.crba(L, q, qd, M, bias);
    EXPECT_NEAR(M(0, 0), m, 1e-14 * m);
    EXPECT_NEAR(bias[0], m * 9.81, 1e-13 * 30);
  }
}

// Spatial algebra identities: X^-1 undoes X, power is frame-invariant, transform of a
// rigid inertia equals the articulated transform of the same 6x6.
TEST(SpatialDynamics, AlgebraIdentities) {
  std::mt19937_64 g(3);
  std::uniform_real_distribution<double> u(-1, 1);
  auto rv = [&] { return Vec3d{u(g), u(g), u(g)}; };
  for (int t = 0; t < 20; ++t) {
    const SpatialTransform<double> X{sm(random_rotation(g)), rv()};
    const SpatialMotion<double> m{rv(), rv()};
    const SpatialForce<double> f{rv(), rv()};
    const SpatialMotion<double> m2 = apply_inverse(X, apply(X, m));
    EXPECT_NEAR(norm(m2.ang - m.ang) + norm(m2.lin - m.lin), 0, 1e-14);
    const SpatialMotion<double> m3 = apply(inverse(X), apply(X, m));
    EXPECT_NEAR(norm(m3.ang - m.ang) + norm(m3.lin - m.lin), 0, 1e-14);
    // (X m) . (X^* f) = m . f and (X m) . f' = m . (X^T f')
    EXPECT_NEAR(spatial_dot(apply(X, m), apply_force(X, f)), spatial_dot(m, f), 1e-13);
    EXPECT_NEAR(spatial_dot(apply(X, m), f), spatial_dot(m, apply_transpose(X, f)), 1e-13);
    // compose: (X2 X1) m = X2 (X1 m)
    const SpatialTransform<double> X2{sm(random_rotation(g)), rv()};
    const SpatialMotion<double> a = apply(compose(X2, X), m), b = apply(X2, apply(X, m));
    EXPECT_NEAR(norm(a.ang - b.ang) + norm(a.lin - b.lin), 0, 1e-13);
    // crf = -crm^T: (v x m) . f = -m . (v x* f)
    const SpatialMotion<double> v{rv(), rv()};
    EXPECT_NEAR(spatial_dot(crm(v, m), f), -spatial_dot(m, crf(v, f)), 1e-13);
    // X^T I X v = X^T (I (X v)) for rigid and articulated forms
    const Matrix3d Rc = random_rotation(g);
    const RigidInertia<double> I = rigid_inertia(1.3, rv(), sm(Rc * Vector3d(0.2, 0.3, 0.4).asDiagonal() * Rc.transpose()));
    const SpatialForce<double> p1 = mul(transform_transpose(X, I), m);
    const SpatialForce<double> p2 = apply_transpose(X, mul(I, apply(X, m)));
    const SpatialForce<double> p3 = mul(transform_transpose(X, articulated(I)), m);
    EXPECT_NEAR(norm(p1.ang - p2.ang) + norm(p1.lin - p2.lin), 0, 1e-13);
    EXPECT_NEAR(norm(p3.ang - p2.ang) + norm(p3.lin - p2.lin), 0, 1e-13);
    // the structured I S products equal the general ones
    for (int type : {0, 1}) {
      ReducedLinkParams<double> l{};
      l.type = type;
      l.axis = sv(random_unit(g));
      const SpatialMotion<double> S = joint_motion(l, 1.0);
      const ArticulatedInertia<double> A = transform_transpose(X, articulated(I));
      const SpatialForce<double> u1 = inertia_times_joint(l, A), u2 = mul(A, S);
      const SpatialForce<double> w1 = inertia_times_joint(l, I), w2 = mul(I, S);
      EXPECT_NEAR(norm(u1.ang - u2.ang) + norm(u1.lin - u2.lin), 0, 1e-13);
      EXPECT_NEAR(norm(w1.ang - w2.ang) + norm(w1.lin - w2.lin), 0, 1e-13);
      EXPECT_EQ(joint_force(l, f), spatial_dot(S, f));
    }
  }
}

// The templates instantiate for fp32 (the GPU's fast path) and agree with fp64.
TEST(SpatialDynamics, FloatInstantiation) {
  std::mt19937_64 g(11);
  const Links L = random_tree(g, 7, true);
  std::vector<ReducedLinkParams<float>> Lf(7);
  for (int k = 0; k < 7; ++k) {
    const auto& l = L[k];
    Lf[k] = {l.parent, l.type, cast33<float>(l.R_parent_joint), cast3<float>(l.p_parent_joint), cast3<float>(l.axis),
             float(l.mass), cast3<float>(l.com), cast33<float>(l.inertia_com), float(l.armature)};
  }
  const VectorXd q = random_vector(g, 7, 1.0), qd = random_vector(g, 7, 1.0), tau = random_vector(g, 7, 1.0);
  Algorithms alg;
  const VectorXd qdd = alg.aba(L, q, qd, tau);
  std::vector<float> qf(7), qdf(7), tf(7), qddf(7), tau2(7), Mf(49), bf(7);
  for (int k = 0; k < 7; ++k) {
    qf[k] = float(q[k]);
    qdf[k] = float(qd[k]);
    tf[k] = float(tau[k]);
  }
  auto aws = std::make_unique<AbaWorkspace<float>>();
  auto rws = std::make_unique<RneaWorkspace<float>>();
  auto cws = std::make_unique<CrbaWorkspace<float>>();
  const Vec3<float> gf{0.f, 0.f, -9.81f};
  aba(7, Lf.data(), gf, qf.data(), qdf.data(), tf.data(), qddf.data(), *aws);
  rnea(7, Lf.data(), gf, qf.data(), qdf.data(), qddf.data(), tau2.data(), *rws);
  crba(7, Lf.data(), gf, qf.data(), qdf.data(), Mf.data(), bf.data(), *cws);
  for (int k = 0; k < 7; ++k) {
    EXPECT_NEAR(qddf[k], qdd[k], 1e-3 * (1 + inf_norm(qdd)));
    EXPECT_NEAR(tau2[k], tf[k], 1e-3 * (1 + inf_norm(tau)));
  }
}

}  // namespace
}  // namespace simphant
