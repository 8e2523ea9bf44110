#include "simphant/job/step_report.hpp"

#include <algorithm>
#include <limits>

#include "simphant/io/h5_file.hpp"
#include "simphant/model/integrator.hpp"

namespace simphant {

StepReport step_report(const Simulator& sim) {
  StepReport r;
  r.integrator = integrator_name(sim.integrator());
  r.adaptive = is_adaptive(sim.integrator());
  const auto N = static_cast<std::size_t>(sim.n_instances());
  r.accepted_i.resize(N);
  r.rejected_i.resize(N);
  r.min_step_i.resize(N);
  r.max_step_i.resize(N);
  sim.read_step_statistics(r.accepted_i.data(), r.rejected_i.data(), r.min_step_i.data(), r.max_step_i.data());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  r.min_step = nan;
  r.max_step = nan;
  bool any = false;
  for (std::size_t i = 0; i < N; ++i) {
    r.accepted += r.accepted_i[i];
    r.rejected += r.rejected_i[i];
    if (r.accepted_i[i] <= 0) continue;  // no accepted step: no step size to report
    r.min_step = any ? std::min(r.min_step, r.min_step_i[i]) : r.min_step_i[i];
    r.max_step = any ? std::max(r.max_step, r.max_step_i[i]) : r.max_step_i[i];
    any = true;
  }
  return r;
}

void write_step_report(Recorder& recorder, const StepReport& r, bool per_instance) {
  const hid_t f = recorder.file_id();
  h5::write_attr(f, "integrator", r.integrator);
  h5::write_attr(f, "accepted_steps", r.accepted);
  h5::write_attr(f, "rejected_steps", r.rejected);
  h5::write_attr(f, "min_step_s", r.min_step);
  h5::write_attr(f, "max_step_s", r.max_step);
  if (!r.adaptive || !per_instance) return;
  const std::vector<hsize_t> shape = {static_cast<hsize_t>(r.accepted_i.size())};
  recorder.write_instance_dataset("step_statistics/accepted", shape, r.accepted_i.data(), {"instance"}, {"1"});
  recorder.write_instance_dataset("step_statistics/rejected", shape, r.rejected_i.data(), {"instance"}, {"1"});
  recorder.write_instance_dataset("step_statistics/min_step", shape, r.min_step_i.data(), {"instance"}, {"s"});
  recorder.write_instance_dataset("step_statistics/max_step", shape, r.max_step_i.data(), {"instance"}, {"s"});
  recorder.write_long_names(
      "step_statistics", {{"accepted", "accepted internal steps of the adaptive integrator since the instance's reset"},
                          {"rejected", "rejected step attempts of the adaptive integrator since the instance's reset"},
                          {"min_step", "smallest accepted step (0: none accepted)"},
                          {"max_step", "largest accepted step (0: none accepted)"}});
}

}  // namespace simphant
