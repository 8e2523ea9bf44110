#pragma once
// Assembly: moves positions onto Phi(q, 0) = 0 by Newton iterations with the minimum-norm
// correction dq = -Phi_q^+ Phi (complete orthogonal decomposition, so rank-deficient
// Phi_q such as Bricard's works), then projects velocities onto Phi_q qdot = -Phi_t
// (zero but for the rheonomic drivers' rows: docs/solver.md, "Rheonomic drivers") with the
// minimum-norm correction. Time t = 0: an instance's clock starts at its assembled state. Rotational corrections are body-frame rotation vectors
// applied as p <- p * exp(dtheta / 2).
#include <string>

#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/assembly_result.hpp"

namespace simphant {

/// Stall test of the Newton iteration: it gives up when max |Phi| has not fallen below
/// kAssemblyStallFactor times its value kAssemblyStallWindow iterations before. Newton
/// converges quadratically near a regular solution and linearly with rate about 1/2 at a
/// singular one (a rank-deficient Phi_q such as Bricard's): both gain far more than a
/// factor 2 in 10 iterations, while an unreachable configuration (a least-squares
/// minimum with Phi != 0) or a cycling iterate does not.
constexpr int kAssemblyStallWindow = 10;
constexpr double kAssemblyStallFactor = 0.5;

/// Relative rank threshold of the assembly's complete orthogonal decompositions (Eigen's
/// setThreshold): a pivot of the column-pivoted QR of Phi_q below 1e-10 of the largest
/// counts as zero, so a redundant row (a planar mechanism's out-of-plane rows) gets no
/// correction.
constexpr double kAssemblyRankThreshold = 1e-10;

/// Constraint rows above which assembly solves its minimum-norm corrections sparsely
/// (uses_sparse_assembly): the dense decomposition of Phi_q (m, 6N) costs O(m^2 6N) time
/// and two m x 6N matrices (a 1000-body chain, m = 5000: about a minute and 480 MB per
/// decomposition), the sparse normal equations O(N) for a chain.
constexpr int kDenseAssemblyRows = 1000;
/// Smallest pivot of the sparse LDL^T of Phi_q Phi_q^T, relative to the largest, that
/// the sparse path accepts: the normal equations square Phi_q's condition number, so
/// this keeps it below 1e5 (about 1e-11 relative error in the correction in fp64, and
/// the Newton iteration corrects its own error).
constexpr double kSparseAssemblyPivot = 1e-10;

/// Whether assemble() takes the sparse path for `model`: more than kDenseAssemblyRows
/// rows and no joint coordinates or rates given in joint terms (those rows are solved
/// with the dense decomposition).
bool uses_sparse_assembly(const Model& model);

/// Relative change of a value the scene gave (a body's position, orientation, velocity,
/// angular velocity) above which assembly reports it in AssemblyResult::changed_values.
constexpr double kGivenValueChange = 0.01;

/// Assembles Y (13N) in place. The minimum-norm corrections -A^+ r come from a complete
/// orthogonal decomposition of A (dense), or, where uses_sparse_assembly, from
/// A^T (A A^T)^-1 r with a sparse LDL^T of A A^T (Eigen's SimplicialLDLT, AMD ordering)
/// and one refinement step; where that factorisation fails or a pivot falls below
/// kSparseAssemblyPivot of the largest (Phi_q loses rank there), the dense one serves
/// that step. Joint coordinates and rates given in joint terms
/// (Joint::initial; dynamics/coordinate_targets.hpp) are extra rows: the Newton
/// iterations solve [Phi; coord - value] = 0 (to assembly_tolerance in both) and the
/// velocity projection [Phi_q; coord_q] qdot = [0; rate], so the result has exactly the
/// given values and the rest is placed consistently (minimum-norm corrections). A given
/// coordinate or rate whose row does not raise the rank of the joints' rows and the
/// targets before it (more values given than the mechanism's mobility) fails with
/// res.message naming the joint; so does a value the iteration cannot reach (naming the
/// joint with the largest coordinate error). Fails otherwise (ok = false; Y holds the
/// last iterate) if max |Phi| does not reach model.solver.assembly_tolerance within
/// assembly_max_iterations, when
/// the iteration stalls (kAssemblyStallWindow), on NaN, when it converged to a flipped
/// root of a joint's orientation rows (flipped_joint_message: res.message says which
/// joint), or when a stop is requested
/// (core/stop_flag.hpp: polled before every iteration; the caller tells this case apart
/// with stop_requested()). res.iterations is the number of Newton steps taken.
AssemblyResult assemble(const Model& model, Data& d, double* Y);

/// The orientation rows of the revolute, prismatic, cylindrical, planar and fixed joints
/// (dot products of frame axes, docs/solver.md "Joints") also vanish when z_j = -z_i
/// (and, for fixed and prismatic, x_j = -x_i): 180 deg away from the joint's
/// orientation. At a state with Phi = 0 (d.kin set), returns a message naming the first
/// joint at such a flipped root (z_i . z_j <= 0, or x_i . x_j <= 0 where x is
/// constrained), or "" when there is none.
std::string flipped_joint_message(const Model& model, const Data& d);

/// Initial state Y (13N) from the bodies' initial values.
void initial_state(const Model& model, double* Y);

// The rank analysis of Phi_q (`simphant check`) is in dynamics/constraint_analysis.hpp.

}  // namespace simphant
