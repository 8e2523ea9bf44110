#pragma once
// What a run says when instances of a closed-loop mechanism diverge without projection
// (docs/solver.md, "Singular configurations"): such a mechanism that passes a
// configuration where Phi_q loses rank (links lining up, as a parallelogram passing its
// flat position) leaves its branch there, and Baumgarte alone does not bring it back:
// the violation or the kinetic energy then passes its bound (measured on the
// parallelogram chain). The run cannot tell such a passage from another cause of the
// divergence, so the hint says "if" and names the option that carries the passage.
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/model/model.hpp"

namespace simphant {

/// One warning when some instance's final status is diverged with reason
/// constraint_violation or runaway, the model has a closed loop (has_closed_loop) and
/// solver.projection is none: how many, the first of them (by status time) with its
/// reason and time, and solver.projection: position_velocity. "" otherwise.
/// status, reason, time: (I) as Simulator::read_status gives them.
std::string singular_passage_hint(const Model& model, const std::vector<std::int8_t>& status,
                                  const std::vector<std::int8_t>& reason, const std::vector<double>& time);

}  // namespace simphant
