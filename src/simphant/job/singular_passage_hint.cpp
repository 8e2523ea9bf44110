#include "simphant/job/singular_passage_hint.hpp"

#include <cstdio>

#include "simphant/formulas/runaway.hpp"
#include "simphant/model/topology.hpp"

namespace simphant {

std::string singular_passage_hint(const Model& model, const std::vector<std::int8_t>& status,
                                  const std::vector<std::int8_t>& reason, const std::vector<double>& time) {
  if (model.solver.projection != Projection::None || !has_closed_loop(model)) return "";
  int count = 0, first = -1;
  for (std::size_t i = 0; i < status.size(); ++i) {
    if (status[i] != 2 || (reason[i] != kReasonConstraintViolation && reason[i] != kReasonRunaway)) continue;
    ++count;
    if (first < 0 || time[i] < time[static_cast<std::size_t>(first)]) first = static_cast<int>(i);
  }
  if (count == 0) return "";
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "%d instance%s of this closed-loop mechanism diverged without projection (first: instance %d, %s at "
                "t = %.6g s): if the mechanism passes a configuration where Phi_q loses rank (links lining up, as a "
                "parallelogram passing its flat position), it leaves its branch there; solver.projection: "
                "position_velocity keeps it on the constraint manifold (docs/solver.md, \"Singular configurations\")",
                count, count == 1 ? "" : "s", first,
                reason[static_cast<std::size_t>(first)] == kReasonRunaway ? "runaway" : "constraint_violation",
                time[static_cast<std::size_t>(first)]);
  return buf;
}

}  // namespace simphant
