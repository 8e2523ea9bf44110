// mujoco_step_loop: MuJoCo's own C loop over mj_step, timed, for the side-by-side with
// SimPhant (bench/mujoco_compare.py, docs/benchmarks.md "MuJoCo"). No Python in the
// timed loop: this is the per-step cost of MuJoCo itself, the basis of the ratios
// (mujoco.rollout adds a state copy and its own bookkeeping per step).
//
// Not part of the CMake build (MuJoCo is an optional, benchmark-only dependency):
// bench/mujoco_bench.sh compiles it with g++ -O2 against the pip wheel's headers
// (mujoco/include) and library (mujoco/libmujoco.so.*), without -march=native (the
// wheel's library is what it is; this file only runs the loop).
//
//   mujoco_step_loop MODEL [--qpos v,..] [--qvel v,..] [--qfrc v,..] [--rk4] [--dt S]
//                    [--steps N] [--min-seconds S] [--repeats R] [--threads T]
//
// MODEL: an MJCF (.xml) or a compiled model (.mjb, mj_saveModel: mujoco_compare.py saves
// the model it configured, so that the C loop and mujoco.rollout step the same model).
// --rk4 / --dt override the model's integrator / timestep. The initial state: qpos
// (default the model's qpos0), qvel (default 0), qfrc_applied (default 0), then
// mj_forward. After an untimed warm-up of up to 1000 steps, each repeat resets to that
// state and times --steps calls of mj_step (when --steps is 0, the count is grown from
// 1000 until one run lasts >= --min-seconds).
// --threads T > 1: T threads, each with its own mjData, each running the same repeat at
// once; the repeat's rate is the sum of the threads' steps over the slowest thread's time.
//
// Output (stdout, one JSON object):
//   {"mujoco_version": "4.0.0", "model": MODEL, "nq": .., "nv": .., "integrator": 1 (mjINT_RK4),
//    "timestep": .., "threads": T, "steps": N, "seconds": [per repeat],
//    "steps_per_s": [per repeat], "steps_per_s_median": .., "steps_per_s_best": ..,
//    "final_qpos": [state after the last repeat of thread 0]}
// Errors: a message on stderr naming the argument, exit 2.
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "error: mujoco_step_loop: %s\n", what.c_str());
  std::exit(2);
}

std::vector<double> parse_list(const char* flag, const char* s) {
  std::vector<double> v;
  const char* p = s;
  while (*p) {
    char* end = nullptr;
    const double x = std::strtod(p, &end);
    if (end == p || !std::isfinite(x)) fail(std::string(flag) + ": not a comma-separated list of numbers: '" + s + "'");
    v.push_back(x);
    p = end;
    if (*p == ',') ++p;
    else if (*p) fail(std::string(flag) + ": unexpected '" + std::string(1, *p) + "' in '" + s + "'");
  }
  return v;
}

double parse_number(const char* flag, const char* s, double lo) {
  char* end = nullptr;
  const double x = std::strtod(s, &end);
  if (end == s || *end || !std::isfinite(x) || x < lo)
    fail(std::string(flag) + ": expected a number >= " + std::to_string(lo) + ", got '" + s + "'");
  return x;
}

struct Options {
  std::string model;
  std::vector<double> qpos, qvel, qfrc;
  bool rk4 = false;
  double dt = 0;
  long steps = 0;
  double min_seconds = 0.3;
  int repeats = 5;
  int threads = 1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) fail(a + ": needs a value");
      return argv[++i];
    };
    if (a == "--qpos") o.qpos = parse_list("--qpos", value());
    else if (a == "--qvel") o.qvel = parse_list("--qvel", value());
    else if (a == "--qfrc") o.qfrc = parse_list("--qfrc", value());
    else if (a == "--rk4") o.rk4 = true;
    else if (a == "--dt") o.dt = parse_number("--dt", value(), 1e-12);
    else if (a == "--steps") o.steps = static_cast<long>(parse_number("--steps", value(), 0));
    else if (a == "--min-seconds") o.min_seconds = parse_number("--min-seconds", value(), 0);
    else if (a == "--repeats") o.repeats = static_cast<int>(parse_number("--repeats", value(), 1));
    else if (a == "--threads") o.threads = static_cast<int>(parse_number("--threads", value(), 1));
    else if (a == "-h" || a == "--help") {
      std::puts("mujoco_step_loop MODEL(.xml|.mjb) [--qpos v,..] [--qvel v,..] [--qfrc v,..] [--rk4] [--dt S] "
                "[--steps N] [--min-seconds S] [--repeats R] [--threads T]");
      std::exit(0);
    } else if (!a.empty() && a[0] == '-') fail("unknown option " + a);
    else if (o.model.empty()) o.model = a;
    else fail("more than one MODEL: '" + o.model + "' and '" + a + "'");
  }
  if (o.model.empty()) fail("MODEL: missing (an .xml or .mjb file)");
  return o;
}

mjModel* load(const Options& o) {
  mjModel* m = nullptr;
  const bool mjb = o.model.size() > 4 && o.model.compare(o.model.size() - 4, 4, ".mjb") == 0;
  if (mjb) {
    m = mj_loadModel(o.model.c_str(), nullptr);
    if (!m) fail("MODEL: cannot load the compiled model '" + o.model + "'");
  } else {
    char err[1000] = "";
    m = mj_loadXML(o.model.c_str(), nullptr, err, sizeof err);
    if (!m) fail("MODEL: cannot load '" + o.model + "': " + err);
  }
  if (o.rk4) m->opt.integrator = mjINT_RK4;
  if (o.dt > 0) m->opt.timestep = o.dt;
  auto check = [&](const char* flag, const std::vector<double>& v, int n) {
    if (!v.empty() && static_cast<int>(v.size()) != n)
      fail(std::string(flag) + ": " + std::to_string(v.size()) + " values, the model needs " + std::to_string(n));
  };
  check("--qpos", o.qpos, m->nq);
  check("--qvel", o.qvel, m->nv);
  check("--qfrc", o.qfrc, m->nv);
  return m;
}

void reset(const mjModel* m, mjData* d, const Options& o) {
  mj_resetData(m, d);
  if (!o.qpos.empty()) std::copy(o.qpos.begin(), o.qpos.end(), d->qpos);
  if (!o.qvel.empty()) std::copy(o.qvel.begin(), o.qvel.end(), d->qvel);
  if (!o.qfrc.empty()) std::copy(o.qfrc.begin(), o.qfrc.end(), d->qfrc_applied);
  mj_forward(m, d);
}

/// Seconds of `steps` mj_step calls from the reset state.
double timed_run(const mjModel* m, mjData* d, const Options& o, long steps) {
  reset(m, d, o);
  const Clock::time_point t0 = Clock::now();
  for (long s = 0; s < steps; ++s) mj_step(m, d);
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void print_list(const char* key, const std::vector<double>& v, const char* sep) {
  std::printf("\"%s\": [", key);
  for (std::size_t i = 0; i < v.size(); ++i) std::printf("%s%.17g", i ? ", " : "", v[i]);
  std::printf("]%s", sep);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  mjModel* m = load(o);
  std::vector<mjData*> data(static_cast<std::size_t>(o.threads));
  for (mjData*& d : data) d = mj_makeData(m);

  long steps = o.steps;
  if (steps == 0) {  // grow until one run lasts min_seconds
    steps = 1000;
    for (;;) {
      const double t = timed_run(m, data[0], o, steps);
      if (t >= o.min_seconds || steps >= 100000000L) break;
      steps = static_cast<long>(steps * std::max(2.0, 1.2 * o.min_seconds / std::max(t, 1e-6)));
    }
  }
  for (mjData* d : data) timed_run(m, d, o, std::min(steps, 1000L));  // warm-up: first touch of the data
  std::vector<double> seconds, rates;
  for (int r = 0; r < o.repeats; ++r) {
    std::vector<double> t(data.size());
    if (data.size() == 1) {
      t[0] = timed_run(m, data[0], o, steps);
    } else {
      std::vector<std::thread> pool;
      for (std::size_t k = 0; k < data.size(); ++k)
        pool.emplace_back([&, k] { t[k] = timed_run(m, data[k], o, steps); });
      for (std::thread& th : pool) th.join();
    }
    const double slowest = *std::max_element(t.begin(), t.end());
    seconds.push_back(slowest);
    rates.push_back(static_cast<double>(steps) * static_cast<double>(data.size()) / slowest);
  }
  std::vector<double> qpos(data[0]->qpos, data[0]->qpos + m->nq);
  std::printf("{\"mujoco_version\": \"%s\", \"model\": \"%s\", \"nq\": %ld, \"nv\": %ld, \"integrator\": %d, "
              "\"timestep\": %.17g, \"threads\": %d, \"steps\": %ld, ",
              mj_versionString(), o.model.c_str(), static_cast<long>(m->nq), static_cast<long>(m->nv), static_cast<int>(m->opt.integrator), m->opt.timestep,
              o.threads, steps);
  print_list("seconds", seconds, ", ");
  print_list("steps_per_s", rates, ", ");
  std::printf("\"steps_per_s_median\": %.17g, \"steps_per_s_best\": %.17g, ", median(rates),
              *std::max_element(rates.begin(), rates.end()));
  print_list("final_qpos", qpos, "}\n");
  for (mjData* d : data) mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
