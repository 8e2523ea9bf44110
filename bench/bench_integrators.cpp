// Cost of the integrators (docs/solver.md, "Choosing an integrator") per unit of simulated
// time at matched accuracy, CPU backend, side by side in one run: for each model (the
// four-bar, the heavy top, the 7-link arm; src/simphant/bench/bench_models.hpp) and each
// target end-state position error (1e-6 m and 1e-9 m), every integrator's setting (dt for
// rk4, euler, symplectic_euler; rtol for dopri5 and bdf, with atol = 1e-3 rtol) is searched
// until the achieved error, max over the bodies of |r(t_end) - r_ref(t_end)| [m], is within
// a factor 1.5 of the target, and that run's cost is reported:
//   wall seconds per simulated second per instance (advance + synchronize on a warm batch,
//   the fastest of repeated runs) and the process CPU time of that run (less disturbed on a
//   shared machine),
//   evaluations of f(t, Y) per simulated second (fixed steps: stages x steps; dopri5:
//   6 per attempted step plus 1 per accepted step with a projection; bdf: not counted by
//   the backend, shown as "-"),
//   accepted and rejected steps per simulated second (Backend::read_step_statistics).
// The reference is RK4 at a step so small that halving it changes the end positions by
// less than 1 % of the smaller target (checked and printed). A setting that would need
// more than --max-steps fixed steps is not run: its cost is extrapolated from the finest
// run at the method's order and marked "extrapolated".
//
//   nice -n 10 bench_integrators [--models four_bar,spinning_top,arm7] [--t-end 1]
//                                [--instances 4] [--threads 1] [--max-steps 400000]
//
// Prints a Markdown table (docs/solver.md keeps the measured one). A measurement, not a test.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "simphant/bench/bench_models.hpp"
#include "simphant/core/host_info.hpp"
#include "simphant/model/integrator.hpp"
#include "simphant/sim/simulator.hpp"

namespace {

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

using simphant::Integrator;
using simphant::Model;
using simphant::Simulator;
using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<std::string> models = {"four_bar", "spinning_top", "arm7"};
  double t_end = 1.0;
  int instances = 4;
  int threads = 1;
  long long max_steps = 400000;
};

/// One run of a model with one integrator setting.
struct Run {
  double setting = 0;        ///< dt [s] (fixed step) or rtol (adaptive)
  double error = 0;          ///< [m] end-state position error against the reference
  double wall_per_sim = 0;   ///< [s] wall per simulated second per instance
  double cpu_per_sim = 0;    ///< [s] process CPU time per simulated second per instance
  double evals_per_sim = -1; ///< evaluations per simulated second (-1: not counted)
  double accepted_per_sim = 0, rejected_per_sim = 0;
  bool ok = true;            ///< every instance ok at the end
  bool extrapolated = false;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

/// Integrates `model` with the given settings to t_end; returns instance 0's body
/// positions (B, 3) at the end in `r` and the run's figures. timed: the wall time is the
/// fastest of repeated runs (else of one).
Run integrate(Model model, Integrator integrator, double setting, const Options& o, long long steps,
              std::vector<double>* r, bool timed = false) {
  model.solver.integrator = integrator;
  const bool adaptive = simphant::is_adaptive(integrator);
  if (adaptive) {
    model.solver.rtol = setting;
    model.solver.atol = 1e-3 * setting;
    model.solver.dt = o.t_end / 10;  // the grid: ten intervals, the steps are the integrator's own
    steps = 10;
  } else {
    model.solver.dt = o.t_end / static_cast<double>(steps);
  }
  model.solver.t_end = o.t_end;
  model.solver.allow_unstable = true;
  simphant::SimulatorOptions so;
  so.backend = "cpu";
  so.threads = o.threads;
  // Timed runs: the batch integrates once untimed (threads started, memory touched), then
  // is reset to its initial state and integrated again until 0.3 s of wall time are
  // spent (at most 20 runs); the fastest run's wall time and process CPU time count (the
  // machine is shared).
  std::unique_ptr<Simulator> sim = Simulator::create({model}, so, o.instances);
  double wall = INFINITY, cpu = INFINITY, spent = 0;
  for (int k = 0; k < (timed ? 21 : 1) && spent < 0.3; ++k) {
    if (k > 0) sim->reset(nullptr, o.instances);
    const double c0 = cpu_seconds();
    const auto t0 = Clock::now();
    sim->advance(static_cast<int>(steps));
    sim->synchronize();
    const double w = std::chrono::duration<double>(Clock::now() - t0).count(), c = cpu_seconds() - c0;
    if (timed && k == 0) continue;  // the warm-up
    wall = std::min(wall, w);
    cpu = std::min(cpu, c);
    spent += w;
  }
  const int B = model.n_bodies();
  std::vector<double> y(static_cast<std::size_t>(o.instances) * B * 13);
  sim->read_states(y.data());
  r->resize(static_cast<std::size_t>(B) * 3);
  for (int b = 0; b < B; ++b)
    for (int c = 0; c < 3; ++c) (*r)[static_cast<std::size_t>(b) * 3 + c] = y[static_cast<std::size_t>(b) * 13 + c];
  const auto N = static_cast<std::size_t>(o.instances);
  std::vector<std::int64_t> acc(N), rej(N);
  sim->read_step_statistics(acc.data(), rej.data(), nullptr, nullptr);
  std::vector<std::int8_t> status(N);
  std::vector<double> status_time(N);
  sim->read_status(status.data(), status_time.data());
  Run run;
  run.setting = adaptive ? setting : model.solver.dt;
  run.wall_per_sim = wall / (o.t_end * o.instances);
  run.cpu_per_sim = cpu / (o.t_end * o.instances);
  run.accepted_per_sim = static_cast<double>(acc[0]) / o.t_end;
  run.rejected_per_sim = static_cast<double>(rej[0]) / o.t_end;
  for (std::int8_t s : status) run.ok = run.ok && s == 0;
  const bool projection = model.solver.projection != simphant::Projection::None;
  switch (integrator) {
    case Integrator::Rk4: run.evals_per_sim = 4.0 * steps / o.t_end; break;
    case Integrator::Euler:
    case Integrator::SymplecticEuler: run.evals_per_sim = 1.0 * steps / o.t_end; break;
    case Integrator::Dopri5:
      run.evals_per_sim = (6.0 * (acc[0] + rej[0]) + (projection ? 1.0 * acc[0] : 0.0)) / o.t_end;
      break;
    default: run.evals_per_sim = -1;
  }
  return run;
}

double position_error(const std::vector<double>& r, const std::vector<double>& ref) {
  double e = 0;
  for (std::size_t b = 0; b + 2 < r.size(); b += 3)
    e = std::max(e, std::hypot(r[b] - ref[b], r[b + 1] - ref[b + 1], r[b + 2] - ref[b + 2]));
  return std::isfinite(e) ? e : INFINITY;
}

/// Searches the setting whose error is within a factor 1.5 of `target` (secant steps in
/// log(error) against log(setting), starting from the method's order).
Run match(const Model& model, Integrator integ, double target, const std::vector<double>& ref, const Options& o) {
  const bool adaptive = simphant::is_adaptive(integ);
  const double order = adaptive ? 1.0 : simphant::integrator_order(integ);
  std::vector<double> r;
  double x = adaptive ? 1e-6 : 1e-3;  // rtol, or dt [s]
  auto run_at = [&](double setting, bool timed = false) {
    long long steps = 0;
    if (!adaptive) steps = std::max<long long>(1, std::llround(o.t_end / setting));
    Run run = integrate(model, integ, setting, o, steps, &r, timed);
    run.error = run.ok ? position_error(r, ref) : INFINITY;
    return run;
  };
  Run last = run_at(x), prev;
  bool have_prev = false;
  for (int it = 0; it < 10; ++it) {
    if (std::isfinite(last.error) && std::fabs(std::log(last.error / target)) < std::log(1.5))
      return run_at(last.setting, true);
    double slope = order;  // d log(error) / d log(setting)
    if (have_prev && std::isfinite(prev.error) && std::isfinite(last.error) && prev.setting != last.setting) {
      const double s = std::log(last.error / prev.error) / std::log(last.setting / prev.setting);
      if (s > 0.3 && s < 8) slope = s;
    }
    double next = std::isfinite(last.error) ? last.setting * std::pow(target / last.error, 1.0 / slope)
                                            : last.setting / 4;  // diverged: a smaller step
    next = std::clamp(next, last.setting / 1000, last.setting * 1000);
    if (!adaptive && o.t_end / next > static_cast<double>(o.max_steps)) {
      // Too many steps to run: extrapolate the cost from the finest affordable run.
      const Run fine = run_at(o.t_end / static_cast<double>(o.max_steps), true);
      Run e = fine;
      const double scale = std::pow(fine.error / target, 1.0 / order);
      e.setting = fine.setting / scale;
      e.error = target;
      e.wall_per_sim *= scale;
      e.cpu_per_sim *= scale;
      e.evals_per_sim *= scale;
      e.accepted_per_sim *= scale;
      e.extrapolated = true;
      return e;
    }
    if (adaptive) next = std::clamp(next, 1e-14, 1e-1);
    prev = last;
    have_prev = true;
    last = run_at(next);
  }
  return last;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--models" && more) {
      o.models = split(argv[++i]);
    } else if (a == "--t-end" && more) {
      o.t_end = std::atof(argv[++i]);
    } else if (a == "--instances" && more) {
      o.instances = std::atoi(argv[++i]);
    } else if (a == "--threads" && more) {
      o.threads = std::atoi(argv[++i]);
    } else if (a == "--max-steps" && more) {
      o.max_steps = std::atoll(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench_integrators [--models a,b] [--t-end 1] [--instances 4] [--threads 1] "
                           "[--max-steps 400000]\n");
      return 2;
    }
  }
  const std::string examples = std::string(SIMPHANT_SOURCE_DIR) + "/examples";
  const double targets[] = {1e-6, 1e-9};
  const Integrator integrators[] = {Integrator::Rk4, Integrator::Euler, Integrator::SymplecticEuler,
                                    Integrator::Dopri5, Integrator::Bdf};
  std::printf("bench_integrators: t_end %g s, %d instances, %d thread(s); %s\n\n", o.t_end, o.instances, o.threads,
              simphant::cpu_model_name().c_str());
  std::printf("| model | target [m] | integrator | setting | achieved error [m] | wall s / sim s / instance | "
              "CPU s / sim s / instance | evaluations / sim s | accepted / rejected steps per sim s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& name : o.models) {
    const Model model = simphant::bench::bench_model(name, examples);
    // The reference: RK4 at dt_ref, checked against RK4 at 2 dt_ref.
    std::vector<double> ref, coarse;
    long long n_ref = std::max<long long>(1, std::llround(o.t_end / 1e-5));
    Options ro = o;
    ro.instances = 1;
    integrate(model, Integrator::Rk4, 0, ro, n_ref, &ref);
    integrate(model, Integrator::Rk4, 0, ro, n_ref / 2, &coarse);
    const double ref_error = position_error(coarse, ref) / 15;  // Richardson: the finer run's error
    std::fprintf(stderr, "%s: reference RK4 dt %.3g s, estimated error %.2e m\n", name.c_str(),
                 o.t_end / static_cast<double>(n_ref), ref_error);
    for (const double target : targets) {
      for (const Integrator integ : integrators) {
        std::string row = "| " + name + " | " + fmt("%.0e", target) + " | " + simphant::integrator_name(integ) + " | ";
        try {
          const Run r = match(model, integ, target, ref, o);
          const bool adaptive = simphant::is_adaptive(integ);
          row += (adaptive ? "rtol " + fmt("%.2g", r.setting) : "dt " + fmt("%.3g", r.setting) + " s") + " | " +
                 (r.extrapolated ? "(extrapolated)" : fmt("%.2e", r.error)) + " | " +
                 fmt("%.3g", r.wall_per_sim) + (r.extrapolated ? " (extrapolated)" : "") + " | " +
                 fmt("%.3g", r.cpu_per_sim) + " | " +
                 (r.evals_per_sim >= 0 ? fmt("%.3g", r.evals_per_sim) : std::string("-")) + " | " +
                 fmt("%.3g", r.accepted_per_sim) + " / " + fmt("%.3g", r.rejected_per_sim) + " |";
        } catch (const std::exception& e) {
          row += "- | not run: " + std::string(e.what()).substr(0, 80) + " | - | - | - | - |";
        }
        std::printf("%s\n", row.c_str());
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
