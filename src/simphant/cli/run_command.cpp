// `simphant run SCENE`: the job runner (simphant/job/run_job.hpp) with the CLI's
// reporting: SIGINT / SIGTERM stop the run, a progress bar on a terminal (log lines
// otherwise, from the job runner), the summary as text or, with --json, as one JSON
// object on stdout, and the exit codes of README "Exit codes".
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "progress.hpp"
#include "signals.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/run_summary.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/backend_error.hpp"

namespace simphant::cli {

namespace {

int run(const RunOptions& o) {
  JobHooks hooks;
  hooks.stop_requested = [] { return stop_requested(); };
  hooks.progress_log_interval_s = o.progress_interval_s;
  std::optional<ProgressBar> bar;
  if (isatty(STDERR_FILENO) != 0) {
    hooks.progress = [&bar](const JobProgress& p) {
      if (!bar) {  // started after the first slice, so that its rate and ETA time the step loop alone
        bar.emplace(p.steps_total, p.n_instances);
        return;
      }
      bar->update(p.steps_done, p.sim_time);
    };
  }
  JobResult result = run_job(o.job, hooks);
  if (bar) bar->finish();

  const int sig = stop_signal();
  if (result.summary.at("interrupted").get<bool>() && sig != 0)
    result.summary["stop_signal"] = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
  if (o.json) {
    std::cout << result.summary.dump() << std::endl;
  } else {
    std::fputs(summary_text(result.summary).c_str(), stdout);
    std::fflush(stdout);
  }
  if (result.summary.at("interrupted").get<bool>()) return sig != 0 ? 128 + sig : result.exit_code;
  if (result.exit_code == kExitRunFailed)
    std::fprintf(stderr, "error: no instance finished ok (%d assembly failed, %d diverged)\n",
                 result.summary.at("instances_assembly_failed").get<int>(),
                 result.summary.at("instances_diverged").get<int>());
  return result.exit_code;
}

}  // namespace

int run_command(const RunOptions& options) {
  install_stop_handlers();
  try {
    return run(options);
  } catch (const SceneError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  } catch (const BackendError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitRunFailed;
  } catch (const h5::H5Error& e) {
    std::fprintf(stderr, "error: output: %s\n", e.what());
    return kExitRunFailed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitRunFailed;
  }
}

}  // namespace simphant::cli
