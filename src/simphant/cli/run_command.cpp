// `simphant run SCENE`: the job runner (simphant/job/run_job.hpp) with the CLI's
// reporting: SIGINT / SIGTERM / SIGHUP stop the run (signals.hpp), a progress bar on a
// terminal (log lines otherwise, from the job runner), the summary as text or, with
// --json, as one JSON object on stdout, and the exit codes of README "Exit codes".
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "progress.hpp"
#include "signals.hpp"
#include "stdout_check.hpp"
#include "simphant/core/stop_flag.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/output_file.hpp"
#include "simphant/job/run_summary.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/backend_error.hpp"

namespace simphant::cli {

namespace {

int run(const RunOptions& o) {
  JobHooks hooks;
  hooks.stop_requested = [] { return stop_requested(); };
  hooks.stop_reason = [] { return "signal " + stop_signal_name(); };
  hooks.progress_log_interval_s = o.progress_interval_s;
  hooks.progress_file = o.progress_file;
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
  const bool signalled = result.exit_code == 130 && sig != 0;
  if (signalled) result.summary["stop_signal"] = stop_signal_name();
  if (o.json) {
    std::cout << result.summary.dump() << '\n';
  } else {
    std::fputs(summary_text(result.summary).c_str(), stdout);
  }
  if (signalled) return finish_stdout(128 + sig);
  if (!result.output_error.empty()) {
    std::fprintf(stderr,
                 "error: output: %s; the run stopped there and %s holds the %lld frames written before "
                 "(interrupted = 1, stop_reason)\n",
                 result.output_error.c_str(), result.out_file.c_str(),
                 static_cast<long long>(result.summary.at("frames").get<std::int64_t>()));
  } else if (result.exit_code == kExitRunFailed) {
    std::fprintf(stderr, "error: no instance finished ok: %s\n", no_instance_ok_text(result.summary).c_str());
  }
  return finish_stdout(result.exit_code);
}

}  // namespace

int run_command(const RunOptions& options) {
  install_stop_handlers();
  try {
    return run(options);
  } catch (const SceneError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  } catch (const Interrupted& e) {
    // During set-up: nothing was computed, no output written (an existing file untouched).
    const int sig = stop_signal();
    std::fprintf(stderr, "error: stopped by %s during set-up (%s): no output written\n",
                 sig != 0 ? stop_signal_name().c_str() : "a stop request", e.what());
    return sig != 0 ? 128 + sig : 130;
  } catch (const OutputBusy& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitRunFailed;
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
