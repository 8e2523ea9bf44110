#include "simphant/job/refinement_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "simphant/io/h5_file.hpp"

namespace simphant {

RefinementReport refinement_report(const Simulator& sim) {
  std::vector<RefinementRecord> rec(static_cast<std::size_t>(sim.n_instances()));
  sim.read_refinement(rec.data());
  return reduce_refinement(rec);
}

RefinementReport reduce_refinement(const std::vector<RefinementRecord>& rec) {
  RefinementReport r;
  const std::size_t n = rec.size();
  r.unconverged.resize(n);
  r.max_error.resize(n);
  r.max_error_time.resize(n);
  r.min_pivot.resize(n);
  r.min_pivot_time.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    r.unconverged[i] = rec[i].unconverged;
    r.max_error[i] = rec[i].worst;
    r.max_error_time[i] = rec[i].worst_time;
    r.min_pivot[i] = rec[i].min_pivot;
    r.min_pivot_time[i] = rec[i].min_pivot_time;
    r.unconverged_solves += r.unconverged[i];
    r.unconverged_instances += r.unconverged[i] > 0;
    if (std::isnan(r.max_error[i]) || std::isnan(r.max_error_all))
      r.max_error_all = std::nan("");
    else
      r.max_error_all = std::max(r.max_error_all, r.max_error[i]);
    r.singular_instances += !(r.min_pivot[i] >= kSingularRelativePivot);
    r.min_pivot_all = smaller_pivot(r.min_pivot_all, r.min_pivot[i]);
  }
  return r;
}

std::vector<std::string> refinement_warnings(const RefinementReport& r, double tikhonov_epsilon, int refinement_steps) {
  std::vector<int> flagged;
  for (std::size_t i = 0; i < r.unconverged.size(); ++i)
    if (r.unconverged[i] > 0) flagged.push_back(static_cast<int>(i));
  // The largest error first (NaN first of all), then by index.
  std::stable_sort(flagged.begin(), flagged.end(), [&](int a, int b) {
    const double ea = r.max_error[static_cast<std::size_t>(a)], eb = r.max_error[static_cast<std::size_t>(b)];
    return std::isnan(ea) ? !std::isnan(eb) : ea > eb;
  });
  std::vector<std::string> out;
  char buf[1024];
  for (std::size_t k = 0; k < flagged.size() && k < static_cast<std::size_t>(kRefinementWarningsListed); ++k) {
    const auto i = static_cast<std::size_t>(flagged[k]);
    // The run chose its shift so that the refinement contracts well at the start
    // (dynamics/shift_choice.hpp): a solve left unconverged later met a Schur matrix that
    // came close to singular during the run.
    std::snprintf(buf, sizeof buf,
                  "instance %d: %lld refined Schur solves ended above the refinement tolerance (largest relative error "
                  "of the constraint forces %.2e, at t = %.6g s) after solver.refinement_steps = %d corrections at "
                  "tikhonov_epsilon = %.3g: the Schur matrix came close to singular there. Near a configuration "
                  "where Phi_q loses rank (links lining up, as a parallelogram passing its flat position) "
                  "solver.projection: position_velocity keeps the run on the constraint manifold (docs/solver.md, "
                  "\"Singular configurations\"); redundant rows kept (solver.redundant_rows: keep) are removed by "
                  "remove; otherwise raise solver.refinement_steps (docs/solver.md, \"The refined regularised solve\")",
                  flagged[k], static_cast<long long>(r.unconverged[i]), r.max_error[i],
                  r.max_error_time[i], refinement_steps, tikhonov_epsilon);
    out.emplace_back(buf);
  }
  if (flagged.size() > static_cast<std::size_t>(kRefinementWarningsListed))
    out.push_back("... and " + std::to_string(flagged.size() - kRefinementWarningsListed) +
                  " more instances with refined solves above the tolerance (/refinement/unconverged)");
  return out;
}

void write_refinement_report(Recorder& recorder, const RefinementReport& r) {
  const std::vector<hsize_t> shape = {static_cast<hsize_t>(r.unconverged.size())};
  recorder.write_instance_dataset("refinement/unconverged", shape, r.unconverged.data(), {"instance"}, {"1"});
  recorder.write_instance_dataset("refinement/max_error", shape, r.max_error.data(), {"instance"}, {"1"});
  recorder.write_instance_dataset("refinement/max_error_time", shape, r.max_error_time.data(), {"instance"}, {"s"});
  recorder.write_instance_dataset("refinement/min_pivot", shape, r.min_pivot.data(), {"instance"}, {"1"});
  recorder.write_instance_dataset("refinement/min_pivot_time", shape, r.min_pivot_time.data(), {"instance"}, {"s"});
  recorder.write_long_names(
      "refinement", {{"unconverged", "refined Schur solves whose error estimate ended above the tolerance"},
                     {"max_error", "largest relative error estimate of the constraint forces of a refined Schur solve"},
                     {"max_error_time", "instance time of that solve"},
                     {"min_pivot", "smallest relative pivot L_RR^2 / C_RR of a Schur factorisation (rank watch)"},
                     {"min_pivot_time", "instance time of that factorisation"}});
}

std::string sensitivity_refinement_warning(const RefinementReport& r, int refinement_steps) {
  if (r.unconverged_solves == 0) return "";
  // The instance of the largest error (a NaN first).
  std::size_t worst = 0;
  for (std::size_t i = 0; i < r.unconverged.size(); ++i)
    if (r.unconverged[i] > 0 &&
        (r.unconverged[worst] == 0 || (std::isnan(r.max_error[i]) && !std::isnan(r.max_error[worst])) ||
         r.max_error[i] > r.max_error[worst]))
      worst = i;
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "sensitivities: %lld refined Schur solves of the tangents in %d instances ended above the refinement "
                "tolerance after solver.refinement_steps = %d corrections (largest relative error %.2e, instance %zu "
                "at t = %.6g s): those instances' derivatives are off by about that share of their constraint forces' "
                "tangents (/sensitivity_refinement; docs/sensitivities.md, \"Method\"); raise "
                "solver.refinement_steps",
                static_cast<long long>(r.unconverged_solves), r.unconverged_instances, refinement_steps,
                r.max_error[worst], worst, r.max_error_time[worst]);
  return buf;
}

void write_sensitivity_refinement(Recorder& recorder, const RefinementReport& r) {
  const std::vector<hsize_t> shape = {static_cast<hsize_t>(r.unconverged.size())};
  recorder.write_instance_dataset("sensitivity_refinement/unconverged", shape, r.unconverged.data(), {"instance"},
                                  {"1"});
  recorder.write_instance_dataset("sensitivity_refinement/max_error", shape, r.max_error.data(), {"instance"}, {"1"});
  recorder.write_instance_dataset("sensitivity_refinement/max_error_time", shape, r.max_error_time.data(),
                                  {"instance"}, {"s"});
  recorder.write_long_names(
      "sensitivity_refinement",
      {{"unconverged", "refined Schur solves of the tangents (one per parameter) whose error estimate ended above the "
                       "tolerance"},
       {"max_error", "largest relative error estimate of a tangent of the constraint forces"},
       {"max_error_time", "instance time of that solve"}});
}

}  // namespace simphant
