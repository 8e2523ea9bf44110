// Checkpoint and resume (job/checkpoint.hpp, docs/checkpoints.md): a run stopped by
// SIGINT, SIGTERM or SIGKILL and continued with `simphant run --resume` ends with a file
// equal to an uninterrupted run's, dataset by dataset and attribute by attribute, bit for
// bit (only the root's wall_time_s and the provenance of the start differ: start_time, command_line, git_commit); after SIGKILL at a random moment the
// checkpoint file opens and holds all but at most one checkpoint interval of the work;
// bad resume input is refused with exit code 2 naming what differs, nothing written
// lost. The robot solvers (reduced aba / cga and dae on a robot) resume through the
// library call.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "h5_compare.hpp"
#include "process_support.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/checkpoint.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

namespace fs = std::filesystem;
namespace h5 = simphant::h5;
using nlohmann::json;
using namespace simphant::test;

namespace {

const fs::path& temp_dir() {
  static const fs::path dir = simphant::test::make_process_temp_dir("checkpoint");
  return dir;
}

const std::string kScene = std::string(SIMPHANT_SOURCE_DIR) + "/examples/four_bar.json";
// Six instances of the four-bar's Latin-hypercube sweep (joint positions and masses
// differ), 8 s at dt = 1 ms: about a second of one thread.
const std::vector<std::string> kRunArgs = {"--instances", "6", "--t-end", "8", "--threads", "1", "--json"};
constexpr double kInterval = 0.1;  // [s] --checkpoint-every of the interrupted runs

std::vector<std::string> run_args(const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"run", kScene};
  a.insert(a.end(), kRunArgs.begin(), kRunArgs.end());
  a.insert(a.end(), {"--out", out.string()});
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

Exit run(const std::vector<std::string>& args, const std::string& tag, double timeout_s = 120) {
  return wait_child(start_simphant(args, temp_dir() / (tag + ".out"), temp_dir() / (tag + ".err")), timeout_s);
}
std::string err_of(const std::string& tag) { return read_text(temp_dir() / (tag + ".err")); }
json summary_of(const std::string& tag) { return json::parse(read_text(temp_dir() / (tag + ".out"))); }

/// The uninterrupted run (once per test program) and how long it took.
struct Reference {
  fs::path file;
  json summary;
  double seconds = 0;
};
const Reference& reference() {
  static const Reference r = [] {
    Reference ref;
    ref.file = temp_dir() / "reference.h5";
    const Exit e = run(run_args(ref.file, {"--checkpoint-every", "0"}), "reference");
    EXPECT_EQ(e.code, 0) << err_of("reference");
    ref.summary = summary_of("reference");
    ref.seconds = e.seconds;
    return ref;
  }();
  return r;
}

/// The figures of two summaries that must agree (all but timings and resume counters).
void expect_same_figures(const json& a, const json& b) {
  for (const char* k : {"instances", "instances_ok", "instances_diverged", "steps", "frames", "sim_time_s",
                        "max_constraint_violation", "energy_drift_rel", "energy_drift_abs_J", "stop_reason", "seed",
                        "assembly_max_position_residual", "assembly_max_iterations"})
    EXPECT_EQ(a.at(k), b.at(k)) << k;
}

void expect_equal_files(const fs::path& a, const fs::path& b) {
  const std::vector<std::string> diff = file_differences(a.string(), b.string(), {"/@wall_time_s", "/@start_time", "/@command_line", "/@git_commit"});
  std::string list;
  for (const std::string& d : diff) list += d + "\n";
  EXPECT_TRUE(diff.empty()) << list;
}

std::string file_bytes(const fs::path& p) { return read_text(p); }

struct Stored {
  std::int64_t steps_done = 0, frames = 0;
  double wall_s = 0;
};
/// The /checkpoint group's position, read from `file` (throws h5::H5Error when it cannot).
Stored stored_point(const fs::path& file) {
  const h5::Handle f = h5::open_file_readonly(file.string());
  const h5::Handle g(H5Gopen2(f.id(), "checkpoint", H5P_DEFAULT), H5Gclose);
  if (!g.valid()) throw h5::H5Error("no /checkpoint in " + file.string());
  Stored s;
  s.steps_done = h5::read_attr_int64(g.id(), "steps_done");
  s.frames = h5::read_attr_int64(g.id(), "frames");
  s.wall_s = h5::read_attr_double(g.id(), "wall_time_s");
  EXPECT_EQ(h5::dataset_dims(f.id(), "time").at(0), static_cast<hsize_t>(s.frames));  // the frames it holds
  return s;
}

}  // namespace

// The reference differs between instances (else a mix-up of instances could not show).
TEST(Checkpoint, ReferenceInstancesDiffer) {
  const h5::Handle f = h5::open_file_readonly(reference().file.string());
  const std::vector<double> energy = h5::read_doubles(f.id(), "energy");
  const hsize_t I = h5::dataset_dims(f.id(), "energy").at(1);
  ASSERT_EQ(I, 6u);
  const std::size_t last = energy.size() - I;
  for (hsize_t k = 1; k < I; ++k) EXPECT_NE(energy[last], energy[last + k]) << k;
}

// SIGINT and SIGTERM: the run records what it reached and stores its state in the
// output; SIGKILL: the checkpoint file beside the output opens and is resumed. Each
// resumed file equals the uninterrupted one.
TEST(Checkpoint, ResumeAfterSigintSigtermSigkillIsBitIdentical) {
  const Reference& ref = reference();
  for (const int sig : {SIGINT, SIGTERM, SIGKILL}) {
    const std::string tag = "signal_" + std::to_string(sig);
    const fs::path out = temp_dir() / (tag + ".h5");
    const fs::path ckpt = simphant::checkpoint_file_name(out.string());
    const Child c = start_simphant(run_args(out, {"--checkpoint-every", std::to_string(kInterval)}),
                                   temp_dir() / (tag + ".out"), temp_dir() / (tag + ".err"));
    ASSERT_TRUE(wait_for_file(ckpt, 60)) << read_text(c.err_file);
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    ::kill(c.pid, sig);
    const Exit e = wait_child(c, 60);
    if (sig == SIGKILL) {
      EXPECT_FALSE(e.exited);
      EXPECT_FALSE(fs::exists(out));
      const Stored s = stored_point(ckpt);
      EXPECT_GT(s.steps_done, 0);
    } else {
      ASSERT_TRUE(e.exited) << read_text(c.err_file);
      EXPECT_EQ(e.code, 128 + sig);
      EXPECT_FALSE(fs::exists(ckpt));  // the output holds the newer state
      const h5::Handle f = h5::open_file_readonly(out.string());
      EXPECT_EQ(h5::read_attr_int64(f.id(), "interrupted"), 1);
      EXPECT_TRUE(h5::exists(f.id(), "checkpoint"));
      EXPECT_TRUE(simphant::resumable(out.string()));
    }
    const Exit r = run({"run", "--resume", out.string(), "--threads", "1", "--json"}, tag + "_resume");
    ASSERT_EQ(r.code, 0) << err_of(tag + "_resume");
    expect_equal_files(ref.file, out);
    const json s = summary_of(tag + "_resume");
    expect_same_figures(ref.summary, s);
    EXPECT_GT(s.at("resumed_from_step").get<std::int64_t>(), 0);
    EXPECT_LT(s.at("resumed_from_step").get<std::int64_t>(), s.at("steps").get<std::int64_t>());
    EXPECT_FALSE(fs::exists(ckpt));
    EXPECT_FALSE(fs::exists(simphant::test::partial_file(out, c.pid)));  // the killed run's, removed
    EXPECT_FALSE(simphant::resumable(out.string()));
  }
}

// SIGKILL at 20 random moments (seeded): each time the checkpoint file opens and holds
// the work up to at most one checkpoint interval (plus one slice of steps and the
// checkpoint's own write) before the kill, and resuming it ends with the reference file.
// A kill before the first checkpoint leaves nothing to resume: refused with exit code 2.
TEST(Checkpoint, TwentyRandomKills) {
  const Reference& ref = reference();
  std::mt19937 rng(20261201);
  // Kill moments over the run, from before the first checkpoint to near the end (0.9 of
  // its length). The length is the reference run's until a run finishes before its kill
  // moment: the reference may have run on a busier machine (ctest starts it beside other
  // tests), and the later moments are then drawn within 0.9 of that moment, so that most
  // kills still land mid-run.
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  double horizon = 0.9 * ref.seconds;
  // Slack beyond the interval: a slice of steps (about 50 ms, run_job.hpp) and writing
  // the checkpoint (about 10 ms for these 2 MB), with room for a loaded machine (measured
  // at most 0.06 s beyond the interval at a load of 11 on 2 cores). The kill time is
  // taken from the parent's clock, which also counts the process start before the run's
  // clock begins (loading the libraries: up to several tenths of a second on a loaded
  // machine with the CUDA libraries linked), so each round measures that start just
  // before, as the time `simphant --version` takes, and allows it on top.
  constexpr double kSlack = 0.25;
  int resumed = 0, refused = 0, finished = 0;
  double max_lost = 0;
  for (int i = 0; i < 20; ++i) {
    const std::string tag = "kill_" + std::to_string(i);
    const fs::path out = temp_dir() / (tag + ".h5");
    const fs::path ckpt = simphant::checkpoint_file_name(out.string());
    const double at = 0.02 + unit(rng) * (horizon - 0.02);
    const auto t_version = std::chrono::steady_clock::now();
    run({"--version"}, tag + "_version");
    const double start_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_version).count();
    const auto t0 = std::chrono::steady_clock::now();
    const Child c = start_simphant(run_args(out, {"--checkpoint-every", std::to_string(kInterval)}),
                                   temp_dir() / (tag + ".out"), temp_dir() / (tag + ".err"));
    std::this_thread::sleep_until(t0 + std::chrono::duration<double>(at));
    ::kill(c.pid, SIGKILL);
    const double killed_at = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const Exit e = wait_child(c, 60);
    if (e.exited) {  // finished before the kill (a fast moment of the machine): nothing to check
      EXPECT_EQ(e.code, 0) << read_text(c.err_file);
      horizon = std::max(0.3, std::min(horizon, 0.9 * at));
      ++finished;
      continue;
    }
    if (!fs::exists(ckpt)) {
      EXPECT_LT(killed_at, kInterval + kSlack + start_s + 0.5) << "no checkpoint after " << killed_at << " s";
      const Exit r = run({"run", "--resume", out.string()}, tag + "_resume");
      EXPECT_EQ(r.code, 2) << err_of(tag + "_resume");
      ++refused;
      continue;
    }
    const Stored s = stored_point(ckpt);  // opens: a complete file
    const double lost = killed_at - start_s - s.wall_s;
    max_lost = std::max(max_lost, lost);
    EXPECT_LE(lost, kInterval + kSlack) << "killed at " << killed_at << " s, checkpoint at " << s.wall_s
                                        << " s, process start " << start_s << " s";
    const Exit r = run({"run", "--resume", out.string(), "--threads", "1", "--json"}, tag + "_resume");
    ASSERT_EQ(r.code, 0) << err_of(tag + "_resume");
    expect_equal_files(ref.file, out);
    expect_same_figures(ref.summary, summary_of(tag + "_resume"));
    ++resumed;
    fs::remove(out);
  }
  std::printf("random kills: %d resumed, %d before the first checkpoint, %d finished first; most wall time lost %.3f s "
              "(interval %.2f s)\n", resumed, refused, finished, max_lost, kInterval);
  EXPECT_GE(resumed, 10);
}

// Bad resume input: exit code 2 naming what differs; the checkpoint and the output stay
// as they were, and the right resume then still works.
TEST(Checkpoint, BadResumeIsRefusedAndNothingIsLost) {
  const Reference& ref = reference();
  // A missing output.
  EXPECT_EQ(run({"run", "--resume", (temp_dir() / "missing.h5").string()}, "missing").code, 2);
  EXPECT_NE(err_of("missing").find("--resume: "), std::string::npos) << err_of("missing");
  EXPECT_NE(err_of("missing").find("no such file"), std::string::npos) << err_of("missing");
  // A completed run.
  const std::string ref_bytes = file_bytes(ref.file);
  EXPECT_EQ(run({"run", "--resume", ref.file.string()}, "completed").code, 2);
  EXPECT_NE(err_of("completed").find("the run completed"), std::string::npos) << err_of("completed");
  EXPECT_EQ(file_bytes(ref.file), ref_bytes);
  // Neither a scene nor --resume.
  EXPECT_EQ(run({"run"}, "no_scene").code, 2);

  // An interrupted run to resume.
  const fs::path out = temp_dir() / "bad.h5";
  const fs::path ckpt = simphant::checkpoint_file_name(out.string());
  const Child c = start_simphant(run_args(out, {"--checkpoint-every", std::to_string(kInterval)}),
                                 temp_dir() / "bad.out", temp_dir() / "bad.err");
  ASSERT_TRUE(wait_for_file(ckpt, 60)) << read_text(c.err_file);
  ::kill(c.pid, SIGKILL);
  wait_child(c, 60);
  const std::string ckpt_bytes = file_bytes(ckpt);

  struct Case {
    std::vector<std::string> extra;
    std::string names;
  };
  const fs::path other_scene = temp_dir() / "other.json";
  {
    json j = json::parse(read_text(kScene));
    j["sweep"]["seed"] = 12;
    std::ofstream(other_scene) << j.dump(2);
  }
  for (const Case& k : std::vector<Case>{{{"--seed", "5"}, "--seed: the run to resume"},
                                         {{"--instances", "7"}, "--instances: the run to resume"},
                                         {{"--t-end", "9"}, "--t-end: the run to resume"},
                                         {{"--dt", "0.002"}, "--dt: the run to resume"},
                                         {{"--shard", "1/2"}, "--shard: the run to resume"},
                                         {{"--out", (temp_dir() / "elsewhere.h5").string()}, "--out: "},
                                         {{other_scene.string()}, "scene: " + other_scene.string() + " differs"}}) {
    std::vector<std::string> args = {"run", "--resume", out.string()};
    args.insert(args.end(), k.extra.begin(), k.extra.end());
    EXPECT_EQ(run(args, "conflict").code, 2) << k.names << ": " << err_of("conflict");
    EXPECT_NE(err_of("conflict").find(k.names), std::string::npos) << err_of("conflict");
    EXPECT_EQ(file_bytes(ckpt), ckpt_bytes);
    EXPECT_FALSE(fs::exists(out));
  }

  // A checkpoint of another version, and of another format: patched into copies.
  const fs::path saved = temp_dir() / "bad_checkpoint_saved.h5";
  fs::copy_file(ckpt, saved);
  for (const auto& [attr, value, names] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"version", "0.0.1-other", "written by simphant 0.0.1-other, this is simphant " SIMPHANT_VERSION},
           {"format", "99", "checkpoint format 99"}}) {
    fs::copy_file(saved, ckpt, fs::copy_options::overwrite_existing);
    {
      const h5::Handle f = h5::open_file_readwrite(ckpt.string());
      const h5::Handle g(H5Gopen2(f.id(), "checkpoint", H5P_DEFAULT), H5Gclose);
      if (attr == "format") {
        h5::write_attr(g.id(), attr, std::int64_t{99});
      } else {
        h5::write_attr(g.id(), attr, value);
      }
    }
    const std::string patched = file_bytes(ckpt);
    EXPECT_EQ(run({"run", "--resume", out.string()}, "version").code, 2) << err_of("version");
    EXPECT_NE(err_of("version").find(names), std::string::npos) << err_of("version");
    EXPECT_EQ(file_bytes(ckpt), patched);
  }

  // The untouched checkpoint still resumes to the reference.
  fs::copy_file(saved, ckpt, fs::copy_options::overwrite_existing);
  const Exit r = run({"run", "--resume", out.string(), "--threads", "1", "--json"}, "bad_resume");
  ASSERT_EQ(r.code, 0) << err_of("bad_resume");
  expect_equal_files(ref.file, out);
  // Resuming the resumed (completed) run is refused, the file untouched.
  const std::string done_bytes = file_bytes(out);
  EXPECT_EQ(run({"run", "--resume", out.string()}, "again").code, 2);
  EXPECT_EQ(file_bytes(out), done_bytes);
}

// The library call, on robot scenes (reduced aba / cga in joint coordinates, dae on the
// cpu backend) with a sweep of the initial joint rates: stopped through the stop hook,
// the output stores its state; copying the periodic checkpoint file while the run goes
// on stands for a kill. Both resume to the uninterrupted file.
TEST(Checkpoint, RobotScenesResumeThroughTheLibrary) {
  json scene = json::parse(read_text(std::string(SIMPHANT_SOURCE_DIR) + "/examples/arm7.json"));
  scene["solver"]["t_end"] = 0.3;
  scene["sweep"] = json::parse(R"({"mode": "random", "instances": 3, "seed": 5, "parameters": [
      {"path": "robot.qd0[0]", "dist": "normal", "mean": 0.0, "std": 0.3},
      {"path": "robot.tau[1]", "dist": "uniform", "low": -1.0, "high": 1.0}]})");
  for (const std::string solver : {"aba", "cga", "dae"}) {
    simphant::JobOptions o;
    o.scene = std::string(SIMPHANT_SOURCE_DIR) + "/examples/arm7.json";  // its folder holds arm7.urdf
    o.scene_text = scene.dump();
    o.solver = solver;
    o.threads = 1;
    o.checkpoint_every_s = 0;
    o.out = (temp_dir() / ("robot_ref_" + solver + ".h5")).string();
    const simphant::JobResult ref = simphant::run_job(o);
    ASSERT_EQ(ref.exit_code, 0);

    // Stopped after a few slices: the state goes into the output.
    o.out = (temp_dir() / ("robot_" + solver + ".h5")).string();
    o.checkpoint_every_s = 1e-9;  // a checkpoint after every slice
    const std::string snapshot = (temp_dir() / ("robot_snapshot_" + solver + ".h5")).string();
    int slices = 0;
    simphant::JobHooks hooks;
    hooks.progress = [&](const simphant::JobProgress&) {
      if (++slices == 2) fs::copy_file(simphant::checkpoint_file_name(o.out), snapshot);
    };
    hooks.stop_requested = [&] { return slices >= 4; };
    const simphant::JobResult stopped = simphant::run_job(o, hooks);
    ASSERT_EQ(stopped.exit_code, 130);
    ASSERT_LT(stopped.summary.at("steps").get<std::int64_t>(), ref.summary.at("steps").get<std::int64_t>());
    EXPECT_GE(stopped.summary.at("checkpoints").get<int>(), 2);

    simphant::JobOptions r;
    r.resume = o.out;
    r.threads = 1;
    const simphant::JobResult resumed = simphant::run_job(r);
    ASSERT_EQ(resumed.exit_code, 0);
    expect_equal_files(ref.out_file, o.out);
    expect_same_figures(ref.summary, resumed.summary);

    // The earlier periodic checkpoint, as a kill would leave it (the output from before).
    fs::remove(o.out);
    fs::copy_file(snapshot, simphant::checkpoint_file_name(o.out));
    const simphant::JobResult from_snapshot = simphant::run_job(r);
    ASSERT_EQ(from_snapshot.exit_code, 0);
    EXPECT_LT(from_snapshot.summary.at("resumed_from_step").get<std::int64_t>(),
              resumed.summary.at("resumed_from_step").get<std::int64_t>());
    expect_equal_files(ref.out_file, o.out);
    expect_same_figures(ref.summary, from_snapshot.summary);
  }
}

// The batch clock of a restored batch: after set_steps_taken(s), time() is bit for bit
// the time of a batch that advanced s steps, and stays so as it advances; the instance
// clocks do not move.
TEST(Checkpoint, SimulatorClockContinues) {
  const simphant::Scene scene = simphant::load_scene(kScene);
  const simphant::SweepSamples samples = simphant::sample_sweep(scene.sweep, 2);
  simphant::SimulatorOptions options;
  options.backend = "cpu";
  options.threads = 1;
  auto a = simphant::Simulator::create(simphant::build_instance_models(scene, samples), options);
  auto b = simphant::Simulator::create(simphant::build_instance_models(scene, samples), options);
  a->advance(1234);
  std::vector<std::int64_t> steps_before(2), steps_after(2);
  b->get_state(nullptr, 2, nullptr, steps_before.data(), nullptr, nullptr, nullptr);
  b->set_steps_taken(1234);
  b->get_state(nullptr, 2, nullptr, steps_after.data(), nullptr, nullptr, nullptr);
  EXPECT_EQ(steps_after, steps_before);
  EXPECT_EQ(b->steps_taken(), 1234);
  EXPECT_EQ(b->time(), a->time());
  a->advance(766);
  b->advance(766);
  EXPECT_EQ(b->steps_taken(), 2000);
  EXPECT_EQ(b->time(), a->time());
}

// A checkpoint that cannot be written (here its temporary name is taken by a folder) is
// reported and skipped: the run goes on to the same file as without checkpoints.
TEST(Checkpoint, AFailedCheckpointDoesNotStopTheRun) {
  const Reference& ref = reference();
  simphant::JobOptions o;
  o.scene = kScene;
  o.instances = 6;
  o.has_t_end = true;
  o.t_end = 8;
  o.threads = 1;
  o.out = (temp_dir() / "blocked.h5").string();
  o.checkpoint_every_s = 1e-9;
  const fs::path blocked = simphant::checkpoint_file_name(o.out) + ".tmp";
  fs::create_directories(blocked / "x");
  const simphant::JobResult r = simphant::run_job(o);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.summary.at("checkpoints"), 0);
  EXPECT_FALSE(fs::exists(simphant::checkpoint_file_name(o.out)));
  expect_equal_files(ref.file, o.out);
  expect_same_figures(ref.summary, r.summary);
  fs::remove_all(blocked);
}
