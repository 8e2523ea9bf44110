// simphant: command-line entry point (CLI11). See README.md "Command line".
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>


#include "commands.hpp"
#include "git_commit.hpp"
#include "typo_hint.hpp"
#include "simphant/job/shard.hpp"
#include "simphant/log/log.hpp"

#ifndef SIMPHANT_VERSION
#define SIMPHANT_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  using namespace simphant::cli;
  CLI::App app{"SimPhant: many instances of one constrained multibody model, integrated in lockstep", "simphant"};
  app.set_version_flag("--version", SIMPHANT_VERSION);
  app.require_subcommand(1);
  // Options of the app itself (--log-level) are accepted after the subcommand too.
  app.fallthrough();
  std::string log_level;
  CLI::Option* log_level_opt =
      app.add_option("--log-level", log_level,
                     "Diagnostics on stderr: trace | debug | info | warn | error | off (default info, or the "
                     "environment variable SIMPHANT_LOG_LEVEL)")
          ->check(CLI::IsMember({"trace", "debug", "info", "warn", "warning", "error", "critical", "off"}));

  RunOptions ro;
  CLI::App* run = app.add_subcommand("run", "Sample the sweep, assemble and integrate every instance, write HDF5");
  run->add_option("scene", ro.job.scene, "Scene file (JSON, docs/scene-format.md); optional with --resume");
  run->add_option("--instances,-n", ro.job.instances, "Number of instances (overrides sweep.instances)")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  // A finite positive number; range checks against the scene follow in the scene's
  // validation (dt > 0, t_end >= dt), which names the solver key.
  const CLI::Validator finite(
      [](std::string& s) {
        double x = 0;
        return CLI::detail::lexical_cast(s, x) && std::isfinite(x) ? std::string()
                                                                   : "must be a finite number, got '" + s + "'";
      },
      "FINITE");
  CLI::Option* dt = run->add_option("--dt", ro.job.dt, "Step of the fixed-step integrators, output grid spacing of the adaptive ones [s] (overrides solver.dt)")->check(finite);
  CLI::Option* t_end = run->add_option("--t-end", ro.job.t_end, "End time [s] (overrides solver.t_end)")->check(finite);
  CLI::Option* seed = run->add_option("--seed", ro.job.seed, "Sweep seed, 0 .. 2^64-1 (overrides sweep.seed)")
                          ->check(CLI::Validator(
                              [](std::string& s) {
                                // strtoull accepts "-1" (wrapping) and clamps 2^64 and more (ERANGE).
                                errno = 0;
                                char* end = nullptr;
                                std::strtoull(s.c_str(), &end, 10);
                                const bool ok = !s.empty() && s.find('-') == std::string::npos && end && *end == '\0' &&
                                                errno != ERANGE;
                                return ok ? std::string() : "must be an integer in 0 .. 2^64-1, got '" + s + "'";
                              },
                              "SEED"));
  run->add_option("--threads,-j", ro.job.threads, "CPU worker threads (0 = every CPU this process may use: its affinity mask, capped by a cgroup CPU quota)")
      ->check(CLI::Range(0, 4096));
  run->add_option("--backend", ro.job.backend,
                  "Backend: auto (on a CUDA device cuda or cuda-fused, by the measured crossover; else cpu-simd where "
                  "it runs the scene, else cpu) | cpu | cpu-simd | cuda | cuda-fused")
      ->check(CLI::IsMember({"auto", "cpu", "cpu-simd", "cuda", "cuda-fused"}));
  run->add_option("--precision", ro.job.precision, "Floating point of the cuda backend: fp64 | fp32 (cpu: fp64 only)")
      ->check(CLI::IsMember({"fp64", "fp32"}));
  run->add_option("--solver", ro.job.solver,
                  "Robot scenes: dae (maximal coordinates) | aba | cga (joint coordinates); overrides solver.type")
      ->check(CLI::IsMember({"dae", "aba", "cga"}));
  run->add_option("--projection", ro.job.projection,
                  "Projection onto the constraint manifold after each step: none | velocity | position_velocity "
                  "(overrides solver.projection; docs/solver.md)")
      ->check(CLI::IsMember({"none", "velocity", "position_velocity", "auto"}));
  run->add_option("--integrator", ro.job.integrator,
                  "Integrator: rk4 | euler | symplectic_euler (fixed step dt) | dopri5 | bdf (adaptive, output at the "
                  "grid of dt; bdf: cpu only) (overrides solver.integrator; docs/solver.md \"Integrators\")")
      ->check(CLI::IsMember({"rk4", "euler", "symplectic_euler", "dopri5", "bdf"}));
  // Range and finiteness are checked by the job runner (check_options), which names the flag.
  run->add_option_function<double>(
      "--rtol", [&ro](const double& v) { ro.job.rtol = v; },
      "Adaptive integrators: relative error tolerance, > 0 (overrides solver.rtol)");
  run->add_option_function<double>(
      "--atol", [&ro](const double& v) { ro.job.atol = v; },
      "Adaptive integrators: absolute error tolerance, >= 0 (overrides solver.atol)");
  run->add_flag("--error-estimate", ro.job.error_estimate,
                "Fixed-step integrators: run the batch again at dt/2 and store the estimated global error of the "
                "positions at the end (sets solver.error_estimate)");
  run->add_option("--sensitivities", ro.job.sensitivities,
                  "Forward sensitivities of the state with respect to these scene values: comma-separated sweep paths, "
                  "e.g. bodies.crank.mass,joints.j1.frame_i.origin[0] (replaces sensitivities.parameters; writes "
                  "/state_sensitivities, the derivatives of the reactions, joint, bearing and driver loads, energy and a "
                  "robot's joint state, and with reductions /reduction_sensitivities; docs/sensitivities.md)");
  run->add_option("--out,-o", ro.job.out, "Output HDF5 file (default: <scene stem>.h5 in the current directory)")
      ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("must not be empty") : std::string(); },
                             "PATH"));
  // Output control (docs/scene-format.md "Output"): checked by the job runner, whose
  // errors name the flag and list the valid names.
  run->add_option("--datasets", ro.job.datasets,
                  "Per-frame datasets to write, comma-separated (state, reactions, constraint_violation, energy, "
                  "joint_state, driver_loads, joint_loads, bearing_loads, contacts, contact_impulses, and the "
                  "sensitivities' datasets; overrides output.datasets)");
  run->add_option("--frames", ro.job.frames,
                  "Frames to record: every | first_last | none (overrides output.frames)");
  run->add_option("--reductions", ro.job.reductions,
                  "Quantities reduced over time per instance: none | all | comma-separated names (overrides "
                  "output.reductions)");
  run->add_option_function<int>(
      "--compression", [&ro](const int& level) { ro.job.compression = level; },
      "Deflate level 0..9 of the frame datasets, with shuffle (0: none; overrides output.compression)");
  run->add_option("--checkpoint-every", ro.job.checkpoint_every_s,
                  "Seconds of wall time between checkpoints beside the output, from which --resume continues after "
                  "a kill (default 300; 0: none; docs/checkpoints.md)")
      ->check(CLI::Range(0.0, 1e9));
  run->add_option("--resume", ro.job.resume,
                  "Continue the interrupted run whose output is this file, from its last checkpoint (the scene and "
                  "options are the run's)")
      ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("must not be empty") : std::string(); },
                             "OUT.h5"));
  std::string shard;
  CLI::Option* shard_opt =
      run->add_option("--shard", shard,
                      "K/N: run shard K (0 .. N-1) of N, the instances [K*I/N, (K+1)*I/N) of the design, into a "
                      "shard file for `simphant merge`")
          ->check(CLI::Validator(
              [](std::string& s) {
                try {
                  simphant::parse_shard(s);
                  return std::string();
                } catch (const simphant::SceneError& e) {
                  return e.reason();
                }
              },
              "K/N"));
  run->add_flag("--json", ro.json, "Print the summary as one JSON object on stdout instead of the text");
  run->add_option("--progress-interval", ro.progress_interval_s,
                  "Seconds between progress log lines when stderr is not a terminal (default 5; 0: every slice)")
      ->check(CLI::Range(0.0, 1e6));
  run->add_option("--progress-file", ro.progress_file,
                  "Append progress records to this file, one JSON object a line, every --progress-interval "
                  "seconds and at the end of the step loop (for programs that follow the run)");

  CheckOptions co;
  CLI::App* check = app.add_subcommand("check", "Validate a scene, assemble one instance, analyse its constraints");
  check->add_option("scene", co.scene, "Scene file (JSON)")->required();
  check->add_flag("--json", co.json, "Print one JSON object instead of the table");

  MergeCliOptions mo;
  CLI::App* merge = app.add_subcommand(
      "merge", "Merge the shard files of one design (run --shard K/N) into one file that reads like the one-shot run's");
  merge->add_option("out", mo.merge.out, "The merged HDF5 file")->required();
  merge->add_option("shards", mo.merge.shards, "The shard files, in any order")->required();
  merge->add_flag("--copy", mo.merge.copy,
                  "Copy the shards' data into a self-contained file (default: virtual datasets over the shards, "
                  "which must stay where they are relative to OUT)");
  merge->add_flag("--json", mo.json, "Print the summary as one JSON object");

  BenchCliOptions bo;
  CLI::App* bench = add_bench_subcommand(app, bo);

  ReportCliOptions rpo;
  CLI::App* report = add_report_subcommand(app, rpo);
  CLI::App* serve = add_serve_subcommand(app);
  CLI::App* view = add_view_subcommand(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help / version (rc 0) or the error
    if (rc != 0)
      for (const std::string& hint : typo_hints(app, argc, argv)) std::fprintf(stderr, "%s\n", hint.c_str());
    return rc == 0 ? kExitOk : kExitBadInput;
  }
  if (log_level_opt->count() > 0) {
    simphant::set_log_level(log_level);
    // The Python commands (report, serve, view) take it as their default level; their own
    // --log-level, given after the subcommand, still wins.
    setenv("SIMPHANT_LOG_LEVEL", log_level.c_str(), 1);
  }
  ro.job.has_dt = dt->count() > 0;
  ro.job.has_t_end = t_end->count() > 0;
  ro.job.has_seed = seed->count() > 0;
  if (shard_opt->count() > 0) {
    const simphant::ShardSlice slice = simphant::parse_shard(shard);
    ro.job.shard_index = slice.index;
    ro.job.shard_count = slice.count;
  }

  if (*run && ro.job.scene.empty() && ro.job.resume.empty()) {
    std::fprintf(stderr, "error: run: a SCENE file, or --resume OUT.h5, is required\nRun with --help for more information.\n");
    return kExitBadInput;
  }
  if (*run) {
    // Provenance of the output (root attributes command_line, git_commit).
    for (int k = 0; k < argc; ++k) {
      std::string a = argv[k];
      if (a.empty() || a.find_first_of(" \t\"'\\$") != std::string::npos) {  // shell-quoted
        std::string q = "'";
        for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
        a = q + "'";
      }
      ro.job.command_line += (k > 0 ? " " : "") + a;
    }
    ro.job.git_commit = simphant::cli::git_commit();
    return run_command(ro);
  }
  if (*check) return check_command(co);
  if (*merge) return merge_command(mo);
  if (*bench) return bench_command(bo);
  if (*report) return report_command(rpo);
  if (*serve) return serve_command(*serve);
  if (*view) return view_command(*view);
  return kExitBadInput;
}
