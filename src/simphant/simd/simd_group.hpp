#pragma once
// One group of kLaneWidth instances stepped in the SIMD lanes (simd_step.hpp): the
// sequence of fused_stage_thread / fused_euler_thread (kernels/fused_stage.hpp) with the
// shared per-thread math run once per group with T = Lanes<double, kLaneWidth> where it
// is the same arithmetic for every instance (joints' rows, the bodies' gravity and
// gyroscopic terms, the Schur assembly, the block-sparse factorisation and solves, the
// refinement, the accelerations, the stage updates), and with T = double once per lane
// on the same memory (instance g W + l of the n_pad-instance views) for the per-instance
// bookkeeping and the rare paths: instance times, drivers' rows (motion laws) and mimic
// rows (the angles' wrap, wrap_angle, is scalar), the force
// elements, projection right-hand sides and corrections, factorisations that reject a
// pivot (with their recovery, fused_factor_solve), violation, reductions and the commit.
//
// A lane's arithmetic depends on its own instance only, so its result does not depend on
// the lane or group it runs in. It equals the scalar form to round-off: the operations
// are the same, in the same order, except where the target contracts a * b + c into an
// FMA.
//
// Private to simd_step.cpp, whose target_clones entry inlines all of it (flatten).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fused_stage.hpp"  // kernels/
#include "simphant/batch/view_convert.hpp"
#include "simphant/simd/simd_step.hpp"

namespace simphant::simd {

using L8 = Lanes<double, kLaneWidth>;

/// The two views of one batch: per instance (T = double, n_pad instances) and per group
/// (T = L8, n_pad / W "instances"), over the same memory.
struct GroupContext {
  const SimdBatchView* v;
  batch::ModelView<L8> mvL;
  batch::BatchBuffers<L8> bL;
  /// (n_bodies) 1 where a force element may act on the body: its Q is summed per lane by
  /// body_forces_thread; 0: gravity and the gyroscopic term only, in the lanes.
  const unsigned char* scalar_forces;
  bool any_scalar_forces;
  /// (n_bodies) the per-lane force code's kinematics of each body (one group at a time).
  BodyKin<double>* kin_scratch;
  unsigned char* kin_known;  ///< (n_bodies) which of kin_scratch are computed
};

template <class T>
T* as_lanes(T* p) = delete;
inline L8* as_lanes(double* p) { return reinterpret_cast<L8*>(p); }
inline const L8* as_lanes(const double* p) { return reinterpret_cast<const L8*>(p); }

/// The group view of v; scalar_forces and kin (sized here) back GroupContext::scalar_forces
/// and kin_scratch.
inline GroupContext make_group_context(const SimdBatchView& v, std::vector<unsigned char>& scalar_forces,
                                       std::vector<BodyKin<double>>& kin) {
  const batch::ModelView<double>& mv = v.mv;
  GroupContext c{};
  c.v = &v;
  // The topology and settings of mv; each parameter read as lanes: the shared ones
  // broadcast (param_shared_lanes), the varied ones kLaneWidth instances at a time.
  batch::ModelView<L8>& m = c.mvL;
  m = batch::view_with<L8>(mv, as_lanes(v.param_shared_lanes), mv.param_slot, as_lanes(mv.param_varied));
  m.n_instances = mv.n_instances / kLaneWidth;

  const batch::BatchBuffers<double>& b = v.b;
  batch::BatchBuffers<L8>& o = c.bL;
  o.Y = as_lanes(b.Y);
  o.y_stage = as_lanes(b.y_stage);
  for (int s = 0; s < 4; ++s) o.k[s] = as_lanes(b.k[s]);
  o.phi = as_lanes(b.phi);
  o.jac = as_lanes(b.jac);
  o.gamma_star = as_lanes(b.gamma_star);
  o.Q = as_lanes(b.Q);
  o.C = as_lanes(b.C);
  o.rhs = as_lanes(b.rhs);
  o.lambda = as_lanes(b.lambda);
  o.refine = as_lanes(b.refine);
  o.floor = as_lanes(b.floor);
  o.diag = as_lanes(b.diag);
  o.inputs = as_lanes(b.inputs);
  o.violation = as_lanes(b.violation);
  o.runaway = as_lanes(b.runaway);
  o.time = as_lanes(b.time);
  o.lambda_soa = 1;
  // The per-instance integer arrays stay per instance: only the per-lane code uses them.

  auto aligned = [](const void* p, const char* what) {
    if (reinterpret_cast<std::uintptr_t>(p) % alignof(L8) != 0)
      throw std::invalid_argument(std::string("simd::advance_groups: ") + what + " is not 64-byte aligned");
  };
  const std::pair<const double*, const char*> arrays[] = {
      {b.Y, "b.Y"},         {b.y_stage, "b.y_stage"}, {b.k[0], "b.k[0]"},   {b.k[1], "b.k[1]"},
      {b.k[2], "b.k[2]"},   {b.k[3], "b.k[3]"},       {b.phi, "b.phi"},     {b.jac, "b.jac"},
      {b.gamma_star, "b.gamma_star"}, {b.Q, "b.Q"},   {b.C, "b.C"},         {b.rhs, "b.rhs"},
      {b.lambda, "b.lambda"}, {b.refine, "b.refine"}, {b.floor, "b.floor"},   {b.diag, "b.diag"}, {b.inputs, "b.inputs"}, {b.violation, "b.violation"},
      {b.runaway, "b.runaway"}, {b.time, "b.time"},   {mv.param_varied, "mv.param_varied"},
      {v.param_shared_lanes, "param_shared_lanes"}};
  for (const auto& a : arrays) aligned(a.first, a.second);
  if (mv.n_instances % kLaneWidth != 0)
    throw std::invalid_argument("simd::advance_groups: mv.n_instances is not a multiple of kLaneWidth");
  scalar_forces.assign(static_cast<std::size_t>(mv.n_bodies), 0);
  auto mark = [&](int k) {
    if (k >= 0 && k < mv.n_bodies) scalar_forces[static_cast<std::size_t>(k)] = 1;
  };
  for (int f = 0; f < mv.n_forces; ++f) {
    const batch::ForceTopo& ft = mv.force[f];
    switch (ft.type) {
      case 0:
      case 1:
        mark(ft.body);
        break;
      case 2:  // SpringDamper
      case 5:  // Contact
        mark(ft.body_i);
        mark(ft.body_j);
        break;
      default:  // a joint's spring or actuator (with a robot joint's law or not): its joint's bodies
        if (ft.joint >= 0) {
          mark(mv.body_of(ft.joint, 0));
          mark(mv.body_of(ft.joint, 1));
        }
        break;
    }
  }
  c.scalar_forces = scalar_forces.data();
  c.any_scalar_forces = false;
  for (int k = 0; k < mv.n_bodies; ++k) c.any_scalar_forces = c.any_scalar_forces || scalar_forces[k] != 0;
  kin.resize(static_cast<std::size_t>(mv.n_bodies));
  c.kin_scratch = kin.data();
  scalar_forces.resize(2 * static_cast<std::size_t>(mv.n_bodies));  // the second half: kin_known
  c.scalar_forces = scalar_forces.data();
  c.kin_known = scalar_forces.data() + mv.n_bodies;
  return c;
}

struct GroupState;

/// The solve a group step calls at each evaluation (group_solve, or simd_step.cpp's copy
/// of it per target): the rows, forces and lambda of the group at y (projection_stage:
/// -1, or the projection stage whose right-hand side is formed).
using GroupSolve = void (*)(GroupState& s, const double* y, double h, int projection_stage);

/// One group's state while it steps: the scalar buffers with the group's own step counter.
struct GroupState {
  const GroupContext* c;
  const batch::ModelView<double>* mv;  ///< per instance (n_pad)
  batch::BatchBuffers<double> b;       ///< per instance, step -> step
  std::int64_t step;
  int g, base;                         ///< group, its first instance g W
  GroupSolve solve;                    ///< group_solve or a copy of it
};

// The per-lane parts (T = double on instance g W + l) are kept out of line
// ([[gnu::noinline]]: flatten leaves them alone), so that they are compiled once, for the
// baseline target, and not once per clone: they are rare or cheap next to the lane code.
// Each begins with a compiler memory barrier: the lane code reads as Lanes the memory
// that they write as double (and the reverse), and the barrier stops the compiler's
// type-based alias analysis of the call (a callee that only stores doubles leaves Lanes
// values alone) from keeping Lanes values across it or moving Lanes stores past it.
#define SP_LANES_BARRIER() asm volatile("" ::: "memory")

/// instance_time_thread for every lane of the group.
[[gnu::noinline]] inline void lanes_instance_time(GroupState& s, double h) {
  SP_LANES_BARRIER();
  for (int l = 0; l < kLaneWidth; ++l)
    batch::instance_time_thread(s.base + l, *s.mv, static_cast<const std::int64_t*>(s.b.step),
                                static_cast<const std::int64_t*>(s.b.clock_offset), h, s.b.time);
}

/// The drivers' rows (motion laws of time) and the mimic rows (the angles' wrap is
/// scalar) for every lane of the group.
[[gnu::noinline]] inline void lanes_element_rows(GroupState& s, const double* y) {
  SP_LANES_BARRIER();
  const batch::ModelView<double>& mv = *s.mv;
  batch::BatchBuffers<double>& b = s.b;
  for (int j = mv.n_joints; j < mv.n_constraints(); ++j)
    for (int l = 0; l < kLaneWidth; ++l) {
      if (j < mv.first_mimic())
        batch::joint_rows_of_driver(s.base + l, j, mv, static_cast<const double*>(b.time), y, b.phi, b.jac,
                                    b.gamma_star);
      else
        batch::joint_rows_of_mimic(s.base + l, j, mv, y, b.phi, b.jac, b.gamma_star);
    }
}

/// projection_rhs_thread for every lane of the group.
[[gnu::noinline]] inline void lanes_projection_rhs(GroupState& s, int projection_stage, const double* y) {
  SP_LANES_BARRIER();
  batch::BatchBuffers<double>& b = s.b;
  for (int l = 0; l < kLaneWidth; ++l)
    batch::projection_rhs_thread(s.base + l, *s.mv, projection_stage, static_cast<const double*>(b.time), y,
                                 static_cast<const double*>(b.phi), static_cast<const double*>(b.jac), b.Q,
                                 b.gamma_star);
}

/// body_forces_thread of every body with force elements (GroupContext::scalar_forces) for
/// every lane of the group, each body's kinematics computed once per lane (body_forces_of).
[[gnu::noinline]] inline void lanes_body_forces(GroupState& s, const double* y) {
  SP_LANES_BARRIER();
  const batch::ModelView<double>& mv = *s.mv;
  batch::BatchBuffers<double>& b = s.b;
  const int n = mv.n_instances, N = mv.n_bodies;
  BodyKin<double>* kin = s.c->kin_scratch;
  unsigned char* known = s.c->kin_known;
  for (int l = 0; l < kLaneWidth; ++l) {
    const int i = s.base + l;
    for (int k = 0; k < N; ++k) known[k] = 0;
    const auto kin_of = [&](int k) {
      if (k < 0) return ground_kin<double>();
      if (!known[k]) {
        kin[k] = batch::soa_body_kin(y, n, i, N, k);
        known[k] = 1;
      }
      return kin[k];
    };
    for (int k = 0; k < N; ++k)
      if (s.c->scalar_forces[k])
        batch::body_forces_of(i, k, mv, static_cast<const double*>(b.time), static_cast<const double*>(b.inputs), kin_of,
                              b.Q);
  }
}

/// The group's rows, Phi_q, gamma* and Q (or a projection stage's right-hand side) at y,
/// its time h after the step's start (fused_solve_thread's evaluation).
inline void group_rows_forces(GroupState& s, const double* y, double h, int projection_stage) {
  const batch::ModelView<double>& mv = *s.mv;
  const batch::ModelView<L8>& mvL = s.c->mvL;
  const batch::BatchBuffers<L8>& bL = s.c->bL;
  const int g = s.g;
  const L8* yL = as_lanes(y);
  lanes_instance_time(s, h);
  for (int j = 0; j < mv.n_joints; ++j) batch::joint_rows_of_joint(g, j, mvL, yL, bL.phi, bL.jac, bL.gamma_star);
  if (mv.n_drivers + mv.n_mimics > 0) lanes_element_rows(s, y);
  if (projection_stage >= 0) {
    lanes_projection_rhs(s, projection_stage, y);
    return;
  }
  const int nG = mvL.n_instances;
  if (s.c->any_scalar_forces) lanes_body_forces(s, y);
  for (int k = 0; k < mv.n_bodies; ++k) {
    if (s.c->scalar_forces[k]) continue;
    const int o = 7 * mv.n_bodies + 6 * k;
    const Vec3<L8> w = {batch::soa(yL, o + 3, nG, g), batch::soa(yL, o + 4, nG, g), batch::soa(yL, o + 5, nG, g)};
    L8 Qk[6];
    batch::body_base_wrench(g, k, mvL, w, Qk);
    for (int c = 0; c < 6; ++c) batch::soa(bL.Q, 6 * k + c, nG, g) = Qk[c];
  }
}

/// Lane l's factor of its regularised Schur matrix made the identity (pivot floors 0), so
/// that the group's factorisation goes through for the other lanes.
[[gnu::noinline]] inline void neutralise_lane(const GroupState& s, int l) {
  SP_LANES_BARRIER();
  const SchurPatternView& P = s.c->v->P;
  const std::size_t n = static_cast<std::size_t>(s.mv->n_instances), i = static_cast<std::size_t>(s.base + l);
  double* C = s.b.C;
  for (int e = 0; e < P.n_values; ++e) C[e * n + i] = 0.0;
  for (int p = 0; p < P.n_joints; ++p) {
    const int rp = P.pos_rows[p], base = P.block_value[P.col_start[p]];
    for (int r = 0; r < rp; ++r) {
      C[static_cast<std::size_t>(base + r * rp + r) * n + i] = 1.0;
      s.b.floor[static_cast<std::size_t>(P.pos_row0[p] + r) * n + i] = 0.0;
    }
  }
}

/// Which lanes' own scalar factorisation rejects a pivot (bad[l]).
[[gnu::noinline]] inline void lanes_find_rejected(GroupState& s, bool* bad) {
  SP_LANES_BARRIER();
  const batch::ModelView<double>& mv = *s.mv;
  const SchurPatternView& P = s.c->v->P;
  const std::size_t n = static_cast<std::size_t>(mv.n_instances);
  for (int l = 0; l < kLaneWidth; ++l) {
    const int i = s.base + l;
    double* Li = s.b.C + i;
    batch::fused_assemble(i, mv, P, s.b, batch::schur_epsilon(mv, i), Li, static_cast<double*>(nullptr));
    bad[l] = !sparse_cholesky(P, Li, n, static_cast<const double*>(s.b.floor + i), n);
  }
}

/// fused_factor_solve of lane l (with the recovery), recorded at the lane's time.
[[gnu::noinline]] inline void lane_factor_solve(GroupState& s, int l) {
  SP_LANES_BARRIER();
  batch::fused_factor_solve(s.base + l, *s.mv, s.c->v->P, s.b, s.b.time[s.base + l]);
}

/// refine_record and the rank watch (pivot_record) of the lanes solved in the lanes
/// (done[l]), each with its own relative error estimate rel[l] (fused_lambda's) and
/// smallest relative pivot rho[l] at its time.
[[gnu::noinline]] inline void lanes_record_refinement(GroupState& s, const double* rel, const double* rho,
                                                      const bool* done) {
  SP_LANES_BARRIER();
  for (int l = 0; l < kLaneWidth; ++l) {
    if (!done[l]) continue;
    const int i = s.base + l;
    batch::pivot_record(i, rho[l], s.b.time[i], s.b);
    batch::refine_record(i, rel[l], s.b.time[i], s.b);
  }
}

/// fused_lambda of the group, and its lanes' records (lanes_record_refinement of done;
/// the smallest relative pivots in the lanes, sparse_smallest_pivot).
inline void group_lambda(GroupState& s, const bool* done) {
  double rel[kLaneWidth], rho[kLaneWidth];
  const batch::BatchBuffers<L8>& bL = s.c->bL;
  const std::size_t strideL = static_cast<std::size_t>(s.c->mvL.n_instances);
  const L8 p = sparse_smallest_pivot(s.c->v->P, static_cast<const L8*>(bL.C + s.g), strideL,
                                     static_cast<const L8*>(bL.diag + s.g), strideL);
  const L8 r = batch::fused_lambda(s.g, s.c->mvL, s.c->v->P, bL);
  for (int l = 0; l < kLaneWidth; ++l) {
    rel[l] = r[l];
    rho[l] = p[l];
  }
  lanes_record_refinement(s, rel, rho, done);
}

/// group_factor_solve after the group's factorisation rejected a pivot in some lane:
/// which lanes, each decided by its own scalar factorisation; those solved per lane by
/// fused_factor_solve (with the recovery), the others again in the lanes.
inline void group_factor_solve_rejected(GroupState& s) {
  const batch::ModelView<L8>& mvL = s.c->mvL;
  const batch::BatchBuffers<L8>& bL = s.c->bL;
  const SchurPatternView& P = s.c->v->P;
  const int g = s.g;
  const std::size_t strideL = static_cast<std::size_t>(mvL.n_instances);
  bool bad[kLaneWidth];
  lanes_find_rejected(s, bad);
  L8* L = bL.C + g;
  batch::fused_assemble(g, mvL, P, bL, batch::schur_epsilon(mvL, g), L, bL.rhs + g);
  for (int l = 0; l < kLaneWidth; ++l)
    if (bad[l]) neutralise_lane(s, l);
  const bool lanes_ok = sparse_cholesky(P, L, strideL, static_cast<const L8*>(bL.floor + g), strideL);
  if (lanes_ok) {
    bool done[kLaneWidth];
    for (int l = 0; l < kLaneWidth; ++l) done[l] = !bad[l];
    group_lambda(s, done);
  }
  // A pivot within round-off of its floor that the lanes reject and the scalar form
  // accepts: every lane of the group per lane.
  for (int l = 0; l < kLaneWidth; ++l) {
    if (lanes_ok && !bad[l]) {
      s.b.info[s.base + l] = 0;
      continue;
    }
    lane_factor_solve(s, l);
  }
}

/// The group's lambda from its evaluated rows (fused_factor_solve in the lanes). A lane
/// whose factorisation rejects a pivot (decided by that lane's own scalar factorisation)
/// is solved per lane by fused_factor_solve with its recovery; the others keep the lane
/// arithmetic, so no lane's result depends on the other lanes of its group.
inline void group_factor_solve(GroupState& s) {
  const batch::ModelView<double>& mv = *s.mv;
  const batch::ModelView<L8>& mvL = s.c->mvL;
  const batch::BatchBuffers<L8>& bL = s.c->bL;
  const SchurPatternView& P = s.c->v->P;
  const int g = s.g;
  if (mv.n_rows == 0) {
    for (int l = 0; l < kLaneWidth; ++l) s.b.info[s.base + l] = 0;
    return;
  }
  const std::size_t strideL = static_cast<std::size_t>(mvL.n_instances);
  const L8 eps = batch::schur_epsilon(mvL, g);
  L8* L = bL.C + g;
  batch::fused_assemble(g, mvL, P, bL, eps, L, bL.rhs + g);
  if (sparse_cholesky(P, L, strideL, static_cast<const L8*>(bL.floor + g), strideL)) {
    bool done[kLaneWidth];
    for (bool& d : done) d = true;
    group_lambda(s, done);
    for (int l = 0; l < kLaneWidth; ++l) s.b.info[s.base + l] = 0;
    return;
  }
  group_factor_solve_rejected(s);
}

/// fused_solve_thread for the group.
inline void group_solve(GroupState& s, const double* y, double h, int projection_stage) {
  group_rows_forces(s, y, h, projection_stage);
  group_factor_solve(s);
}

/// accelerations_thread for every body of the group: ydot from lambda in b.rhs.
inline void group_accelerations(GroupState& s, const double* y, double* ydot) {
  const batch::ModelView<L8>& mvL = s.c->mvL;
  const batch::BatchBuffers<L8>& bL = s.c->bL;
  if (mvL.n_rows > 0)
    for (int l = 0; l < kLaneWidth; ++l)
      if (s.b.info[s.base + l] != 0) s.b.fail[s.base + l] = 1;
  for (int k = 0; k < mvL.n_bodies; ++k)
    batch::accelerations_body(s.g, k, mvL, as_lanes(y), static_cast<const L8*>(bL.jac), static_cast<const L8*>(bL.Q),
                              static_cast<const L8*>(bL.rhs), 1, as_lanes(ydot));
}

/// violation_thread and reduce_thread (the start state's sample) for every lane.
[[gnu::noinline]] inline void lanes_violation_reduce(GroupState& s) {
  SP_LANES_BARRIER();
  const batch::ModelView<double>& mv = *s.mv;
  batch::BatchBuffers<double>& b = s.b;
  for (int l = 0; l < kLaneWidth; ++l) {
    const int i = s.base + l;
    batch::violation_thread(i, mv, static_cast<const double*>(b.phi), b.violation);
    batch::reduce_thread(i, mv, b.red, static_cast<const double*>(b.Y), static_cast<const double*>(b.time),
                         static_cast<const double*>(b.inputs), static_cast<const double*>(b.jac),
                         static_cast<const double*>(b.rhs), 1, static_cast<const int*>(b.info),
                         static_cast<const double*>(b.violation), static_cast<const std::int8_t*>(b.status),
                         static_cast<const std::int64_t*>(b.step), b.red_acc);
  }
}

/// projection_apply_step_thread of one stage (correction dq) for every lane.
[[gnu::noinline]] inline void lanes_projection_apply(GroupState& s, int kind, const double* dq) {
  SP_LANES_BARRIER();
  for (int l = 0; l < kLaneWidth; ++l)
    batch::projection_apply_step_thread(s.base + l, *s.mv, kind, dq, s.b, s.b.y_stage);
}

/// step_pivot_reset for every lane (the start of a step).
[[gnu::noinline]] inline void lanes_step_pivot_reset(GroupState& s) {
  SP_LANES_BARRIER();
  for (int l = 0; l < kLaneWidth; ++l) batch::step_pivot_reset(s.base + l, s.b);
}

/// Whether a projection of this step runs for the group: always for none (nothing then),
/// velocity and position_velocity; for auto, when some lane projects (instance_projection).
[[gnu::noinline]] inline bool lanes_project(const GroupState& s) {
  SP_LANES_BARRIER();
  if (s.mv->projection != kProjectionAuto) return true;
  for (int l = 0; l < kLaneWidth; ++l)
    if (batch::instance_projection(*s.mv, s.b.step_pivot[s.base + l]) != 0) return true;
  return false;
}

/// auto: projection_save_thread (before a projection's solves) or projection_restore_thread
/// (after them) for every lane.
[[gnu::noinline]] inline void lanes_projection_records(GroupState& s, bool save) {
  SP_LANES_BARRIER();
  if (s.mv->projection != kProjectionAuto) return;
  for (int l = 0; l < kLaneWidth; ++l) {
    if (save)
      batch::projection_save_thread(s.base + l, *s.mv, s.b);
    else
      batch::projection_restore_thread(s.base + l, *s.mv, s.b);
  }
}

/// commit_step_thread for every lane.
[[gnu::noinline]] inline void lanes_commit(GroupState& s) {
  SP_LANES_BARRIER();
  batch::BatchBuffers<double>& b = s.b;
  for (int l = 0; l < kLaneWidth; ++l)
    batch::commit_step_thread(s.base + l, *s.mv, static_cast<const double*>(b.violation),
                              static_cast<const double*>(b.y_stage), static_cast<const std::int64_t*>(b.step),
                              static_cast<const double*>(b.runaway), b.fail, b.Y, b.status, b.status_step,
                              b.status_reason);
}

/// detail::fused_evaluate for the group.
inline void group_evaluate(GroupState& s, int stage, const double* y, double c) {
  batch::BatchBuffers<double>& b = s.b;
  if (stage == 0) lanes_step_pivot_reset(s);
  s.solve(s, y, c, -1);
  if (stage == 0) lanes_violation_reduce(s);
  group_accelerations(s, y, b.k[stage]);
}

/// detail::fused_project_commit for the group.
inline void group_project_commit(GroupState& s) {
  const batch::ModelView<double>& mv = *s.mv;
  batch::BatchBuffers<double>& b = s.b;
  int kind[batch::kMaxProjectionStages];
  const int count = mv.n_rows > 0 && lanes_project(s) ? batch::projection_stages(mv.projection, kind) : 0;
  if (count > 0) lanes_projection_records(s, true);
  for (int p = 0; p < count; ++p) {
    s.solve(s, b.y_stage, mv.dt, kind[p]);
    group_accelerations(s, b.y_stage, b.k[0]);
    lanes_projection_apply(s, kind[p], b.k[0]);
  }
  if (count > 0) lanes_projection_records(s, false);
  lanes_commit(s);
}

/// fused_stage_thread's stage s for the group (h: the next stage's offset).
inline void group_rk4_stage(GroupState& s, int stage, double h) {
  const batch::ModelView<double>& mv = *s.mv;
  const batch::ModelView<L8>& mvL = s.c->mvL;
  const batch::BatchBuffers<L8>& bL = s.c->bL;
  batch::BatchBuffers<double>& b = s.b;
  const int nG = mvL.n_instances, N = mv.n_bodies, g = s.g;
  const double* y = stage == 0 ? b.Y : b.y_stage;
  const double c = stage == 0 ? 0.0 : stage == 3 ? mv.dt : 0.5 * mv.dt;
  group_evaluate(s, stage, y, c);
  if (stage < 3) {
    for (int k = 0; k < N; ++k)
      batch::rk4_stage_thread(k * nG + g, mvL, L8(h), static_cast<const L8*>(bL.Y), static_cast<const L8*>(bL.k[stage]),
                              bL.y_stage);
    if (mv.n_rows > 0 && (projects_stage_states(mv.projection) || mv.projection == kProjectionAuto) &&
        lanes_project(s)) {
      lanes_projection_records(s, true);
      s.solve(s, b.y_stage, h, kProjectVelocity);
      group_accelerations(s, b.y_stage, b.k[3]);
      lanes_projection_apply(s, kProjectVelocity, b.k[3]);
      lanes_projection_records(s, false);
    }
    return;
  }
  for (int k = 0; k < N; ++k)
    batch::rk4_final_thread(k * nG + g, mvL, static_cast<const L8*>(bL.Y), static_cast<const L8*>(bL.k[0]),
                            static_cast<const L8*>(bL.k[1]), static_cast<const L8*>(bL.k[2]),
                            static_cast<const L8*>(bL.k[3]), bL.y_stage);
  group_project_commit(s);
}

/// fused_euler_thread for the group.
inline void group_euler_step(GroupState& s) {
  const batch::ModelView<L8>& mvL = s.c->mvL;
  const batch::BatchBuffers<L8>& bL = s.c->bL;
  const int nG = mvL.n_instances;
  group_evaluate(s, 0, s.b.Y, 0.0);
  for (int k = 0; k < mvL.n_bodies; ++k)
    batch::euler_final_thread(k * nG + s.g, mvL, static_cast<const L8*>(bL.Y), static_cast<const L8*>(bL.k[0]),
                              bL.y_stage);
  group_project_commit(s);
}

/// Group g's n_steps steps (advance_groups' contract), each evaluation's solve through
/// solve.
inline void advance_group(const GroupContext& c, int g, int n_steps, GroupSolve solve = group_solve) {
  GroupState s{&c, &c.v->mv, c.v->b, *c.v->b.step, g, g * kLaneWidth, solve};
  s.b.step = &s.step;
  const batch::ModelView<double>& mv = c.v->mv;
  const bool euler = mv.integrator == static_cast<std::int8_t>(Integrator::Euler) ||
                     mv.integrator == static_cast<std::int8_t>(Integrator::SymplecticEuler);
  const double half_dt = 0.5 * mv.dt;
  const double stage_h[4] = {half_dt, half_dt, mv.dt, mv.dt};
  for (int t = 0; t < n_steps; ++t) {
    if (euler) {
      group_euler_step(s);
    } else {
      for (int st = 0; st < 4; ++st) group_rk4_stage(s, st, stage_h[st]);
    }
    ++s.step;
  }
}

}  // namespace simphant::simd

#undef SP_LANES_BARRIER
