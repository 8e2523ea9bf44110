#pragma once
// A test hook of the job runner (docs/reliability.md, "Test hooks"): the environment
// variable SIMPHANT_TEST_HOLD holds a run at a known point until a test releases it, so
// that a test can act on a run (send a signal, kill it, dismiss its job) at that point
// whatever the speed or the load of the machine, instead of waiting a guessed time.
//
//   SIMPHANT_TEST_HOLD=setup:<gate path>     in set-up, before the instance models are
//                                            compiled (the stop-signal handlers of the
//                                            CLI are installed; set-up polls the stop
//                                            flag from here on)
//   SIMPHANT_TEST_HOLD=step=N:<gate path>    at the end of the slice of steps that reaches
//                                            step N (N >= 1; slices are cut so that one
//                                            ends exactly there), after that slice's
//                                            checkpoint and progress report; a resumed
//                                            run that starts at or past N does not hold
//   SIMPHANT_TEST_HOLD=check:<gate path>     `simphant check`, once the scene is read and
//                                            before its analyses (a run ignores it)
//
// One run point and one check point may be given together, separated by ';' (e.g.
// "step=1:hold;check:/tmp/gates/{name}" for a service whose runs and validations are both
// held). "{name}" in the gate path is replaced by the file name of the run's output (e.g.
// "/tmp/gates/{name}" for the shards of a sweep, which share one environment), for a check
// by the scene's name; a relative path is relative to the process's working folder. At the point, the run writes
// "<gate path>.held" (atomically: a temporary file renamed onto it), a JSON object with
// "point", "pid", "steps_done", "steps_total" (at set-up: 0 and 0, or the resumed
// step), "wall_s" (the run's wall time so far, earlier sessions included, as a
// checkpoint's wall_time_s), "loop_wall_s" (the same for the step loop) and, at a step,
// "checkpoint_age_s" (when the held slice's checkpoint check was made: the time since
// the run completed the checkpoint it has on disk, or since its loop started when it has
// none; 0 when that check wrote one); then it waits, polling every 2 ms, until the file
// "<gate path>" exists or a stop is requested (the stop flag of core/stop_flag.hpp, or
// the stop hook): a held run stopped by SIGINT / SIGTERM stops as it would have there.
// A gate that already exists does not hold.
//
// For tests only: a run started with the variable set may wait for ever.
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace simphant::job_detail {

class TestHold {
 public:
  /// Reads SIMPHANT_TEST_HOLD (unset or empty: no hold) for a run, or with check = true
  /// for `simphant check`: the point of that kind, if any. `name` replaces "{name}": the
  /// run's output path (its file name is used), the checked scene's name. Throws
  /// std::invalid_argument naming the variable when its value is not of the forms above.
  static TestHold from_environment(const std::string& name, bool check = false);
  /// Parses `spec` (the variable's value) as from_environment does.
  static TestHold parse(const std::string& spec, const std::string& name, bool check = false);

  bool at_setup() const { return point_ == Point::SetUp; }
  bool at_check() const { return point_ == Point::Check; }
  /// A run whose step loop starts at `done` steps (a resumed run: its checkpoint's)
  /// holds only when done < N.
  void start_loop(std::int64_t done);
  /// The length of the next slice of `k` steps from `done`, cut so that it ends at N.
  std::int64_t clamp(std::int64_t done, std::int64_t k) const;
  /// Whether the run, at `done` steps, has reached the held step (true once).
  bool reached(std::int64_t done);

  /// Writes "<gate>.held" with `where` (the figures above) and "point", "pid" added, then
  /// waits until the gate exists or stop() is true.
  void hold(nlohmann::json where, const std::function<bool()>& stop) const;

  const std::string& gate() const { return gate_; }

 private:
  enum class Point { None, SetUp, Step, Check };
  Point point_ = Point::None;
  std::int64_t step_ = 0;
  bool passed_ = false;
  std::string spec_, gate_;
};

}  // namespace simphant::job_detail
