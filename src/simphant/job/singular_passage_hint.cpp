#include "simphant/job/singular_passage_hint.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "simphant/formulas/pivot_watch.hpp"
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

std::vector<std::string> singular_passage_warnings(const Model& model, const std::vector<double>& min_pivot,
                                                   const std::vector<double>& min_pivot_time) {
  std::vector<std::string> out;
  if (model.solver.redundant_rows == RedundantRows::Keep && has_closed_loop(model)) return out;
  std::vector<int> flagged;
  for (std::size_t i = 0; i < min_pivot.size(); ++i)
    if (!(min_pivot[i] >= kSingularRelativePivot)) flagged.push_back(static_cast<int>(i));
  if (flagged.empty()) return out;
  // The smallest pivot first (NaN first of all), then by index.
  std::stable_sort(flagged.begin(), flagged.end(), [&](int a, int b) {
    const double pa = min_pivot[static_cast<std::size_t>(a)], pb = min_pivot[static_cast<std::size_t>(b)];
    return std::isnan(pa) ? !std::isnan(pb) : pa < pb;
  });
  const bool projected =
      model.solver.projection == Projection::PositionVelocity || model.solver.projection == Projection::Auto;
  char buf[1024];
  if (projected) {
    std::snprintf(buf, sizeof buf,
                  "%zu instance%s passed near a configuration where Phi_q loses rank (first listed: instance %d at "
                  "t = %.6g s, smallest relative pivot %.2e of the Schur factorisation; /refinement/min_pivot); "
                  "solver.projection: %s held %s on the constraint manifold",
                  flagged.size(), flagged.size() == 1 ? "" : "s", flagged.front(),
                  min_pivot_time[static_cast<std::size_t>(flagged.front())],
                  min_pivot[static_cast<std::size_t>(flagged.front())], projection_name(model.solver.projection),
                  flagged.size() == 1 ? "it" : "them");
    out.emplace_back(buf);
    return out;
  }
  for (std::size_t k = 0; k < flagged.size() && k < static_cast<std::size_t>(kSingularPassagesListed); ++k) {
    const auto i = static_cast<std::size_t>(flagged[k]);
    std::snprintf(buf, sizeof buf,
                  "instance %d passed near a configuration where Phi_q loses rank at t = %.6g s: the smallest "
                  "relative pivot of its Schur factorisation fell to %.2e (below %.0e: a row of Phi_q came within "
                  "about %.1e rad of the others' span; links lining up, as a parallelogram passing its flat "
                  "position). Without projection a mechanism can leave its branch there, and its motion after "
                  "the passage is then not the mechanism's; solver.projection: position_velocity keeps it on the "
                  "constraint manifold (docs/solver.md, \"Singular configurations\")",
                  flagged[k], min_pivot_time[i], min_pivot[i], kSingularRelativePivot, std::sqrt(min_pivot[i]));
    out.emplace_back(buf);
  }
  if (flagged.size() > static_cast<std::size_t>(kSingularPassagesListed))
    out.push_back("... and " + std::to_string(flagged.size() - kSingularPassagesListed) +
                  " more instances passed near a configuration where Phi_q loses rank (/refinement/min_pivot)");
  return out;
}

}  // namespace simphant
