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
  const Projection p = model.solver.projection;
  if ((p != Projection::None && p != Projection::Auto) || !has_closed_loop(model)) return "";
  int count = 0, first = -1;
  for (std::size_t i = 0; i < status.size(); ++i) {
    if (status[i] != 2 || (reason[i] != kReasonConstraintViolation && reason[i] != kReasonRunaway)) continue;
    ++count;
    if (first < 0 || time[i] < time[static_cast<std::size_t>(first)]) first = static_cast<int>(i);
  }
  if (count == 0) return "";
  char how[160];
  if (p == Projection::None)
    std::snprintf(how, sizeof how, "without projection");
  else
    std::snprintf(how, sizeof how, "with solver.projection auto (it projects a step only where the rank watch falls "
                                   "below auto_projection_pivot = %.0e)", model.solver.auto_projection_pivot);
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "%d instance%s of this closed-loop mechanism diverged %s (first: instance %d, %s at "
                "t = %.6g s): if the mechanism passes a configuration where Phi_q loses rank (links lining up, as a "
                "parallelogram passing its flat position), it leaves its branch there; solver.projection: "
                "position_velocity keeps it on the constraint manifold (docs/solver.md, \"Singular configurations\")",
                count, count == 1 ? "" : "s", how, first,
                reason[static_cast<std::size_t>(first)] == kReasonRunaway ? "runaway" : "constraint_violation",
                time[static_cast<std::size_t>(first)]);
  return buf;
}

bool rank_watch_tells(const Model& model) {
  return !(model.solver.redundant_rows == RedundantRows::Keep && has_closed_loop(model));
}

std::vector<std::string> singular_passage_warnings(const Model& model, const std::vector<double>& min_pivot,
                                                   const std::vector<double>& min_pivot_time) {
  std::vector<std::string> out;
  if (!rank_watch_tells(model)) return out;
  // Flagged instances, held on the manifold (position_velocity projects every step; auto the
  // steps below its pivot) or not.
  const Projection p = model.solver.projection;
  const auto held = [&](std::size_t i) {
    return p == Projection::PositionVelocity ||
           (p == Projection::Auto && min_pivot[i] < model.solver.auto_projection_pivot);
  };
  std::vector<int> kept, loose;
  for (std::size_t i = 0; i < min_pivot.size(); ++i)
    if (!(min_pivot[i] >= kSingularRelativePivot)) (held(i) ? kept : loose).push_back(static_cast<int>(i));
  // The smallest pivot first (NaN first of all), then by index.
  const auto by_pivot = [&](int a, int b) {
    const double pa = min_pivot[static_cast<std::size_t>(a)], pb = min_pivot[static_cast<std::size_t>(b)];
    return std::isnan(pa) ? !std::isnan(pb) : pa < pb;
  };
  std::stable_sort(kept.begin(), kept.end(), by_pivot);
  std::stable_sort(loose.begin(), loose.end(), by_pivot);
  char buf[1024];
  if (!kept.empty()) {
    const auto f = static_cast<std::size_t>(kept.front());
    std::snprintf(buf, sizeof buf,
                  "%zu instance%s passed near a configuration where Phi_q loses rank (first listed: instance %d at "
                  "t = %.6g s, smallest relative pivot %.2e of the Schur factorisation; /refinement/min_pivot); "
                  "solver.projection: %s held %s on the constraint manifold",
                  kept.size(), kept.size() == 1 ? "" : "s", kept.front(), min_pivot_time[f], min_pivot[f],
                  projection_name(p), kept.size() == 1 ? "it" : "them");
    out.emplace_back(buf);
  }
  for (std::size_t k = 0; k < loose.size() && k < static_cast<std::size_t>(kSingularPassagesListed); ++k) {
    const auto i = static_cast<std::size_t>(loose[k]);
    std::snprintf(buf, sizeof buf,
                  "instance %d passed near a configuration where Phi_q loses rank at t = %.6g s: the smallest "
                  "relative pivot of its Schur factorisation fell to %.2e (below %.0e: a row of Phi_q came within "
                  "about %.1e rad of the others' span; links lining up, as a parallelogram passing its flat "
                  "position). Without projection a mechanism can leave its branch there, and its motion after "
                  "the passage is then not the mechanism's; solver.projection: position_velocity keeps it on the "
                  "constraint manifold (docs/solver.md, \"Singular configurations\")",
                  loose[k], min_pivot_time[i], min_pivot[i], kSingularRelativePivot, std::sqrt(min_pivot[i]));
    out.emplace_back(buf);
  }
  if (loose.size() > static_cast<std::size_t>(kSingularPassagesListed))
    out.push_back("... and " + std::to_string(loose.size() - kSingularPassagesListed) +
                  " more instances passed near a configuration where Phi_q loses rank (/refinement/min_pivot)");
  return out;
}

}  // namespace simphant
