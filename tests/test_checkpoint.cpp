// Checkpoint and resume (job/checkpoint.hpp, docs/checkpoints.md): a run stopped by
// SIGINT, SIGTERM or SIGKILL and continued with `simphant run --resume` ends with a file
// equal to an uninterrupted run's, dataset by dataset and attribute by attribute, bit for
// bit (only the root's wall_time_s and the provenance of the start differ: start_time, command_line, git_commit); after SIGKILL at a random step the
// checkpoint file opens and holds all but at most one checkpoint interval of the work;
// bad resume input is refused with exit code 2 naming what differs, nothing written
// lost. The robot solvers (reduced aba / cga and dae on a robot) resume through the
// library call. The runs are signalled or killed while the job runner holds them at a
// known point (SIMPHANT_TEST_HOLD, job/test_hold.hpp), never after a guessed time.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "h5_compare.hpp"
#include "process_support.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/checkpoint.hpp"
#include "simphant/job/resume.hpp"
#include "simphant/job/input_digests.hpp"
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
// differ), 4 s at dt = 1 ms: about half a second of one thread. Under the sanitizers
// (SIMPHANT_SANITIZED_TESTS), where the same run takes about ten seconds, 2 s: the held
// step below stays inside the run.
#ifdef SIMPHANT_SANITIZED_TESTS
constexpr double kTEnd = 2;  // [s]
#else
constexpr double kTEnd = 4;  // [s]
#endif
const std::vector<std::string> kRunArgs = {"--instances", "6", "--t-end", std::to_string(kTEnd), "--threads", "1",
                                           "--json"};
constexpr double kInterval = 0.1;  // [s] --checkpoint-every of the randomly killed runs
// A checkpoint after every slice of steps (--checkpoint-every of the runs held at a step
// and then stopped or killed): the held slice's checkpoint is at the held step.
const std::string kEverySlice = "1e-9";
// Where the runs stopped by a signal are held (of the 4000 steps; 2000 under the sanitizers).
constexpr std::int64_t kHoldStep = 1500;

std::vector<std::string> run_args(const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"run", kScene};
  a.insert(a.end(), kRunArgs.begin(), kRunArgs.end());
  a.insert(a.end(), {"--out", out.string()});
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

/// Starts the run `args`, held (SIMPHANT_TEST_HOLD) at `point`, and waits until it is
/// held there: its ".held" report.
json start_held(const std::vector<std::string>& args, const std::string& tag, const Hold& hold, Child& c) {
  c = start_simphant(args, temp_dir() / (tag + ".out"), temp_dir() / (tag + ".err"), {}, hold.env());
  if (!hold.wait(&c)) {
    ADD_FAILURE() << tag << ": not held at " << hold.point << ": " << read_text(c.err_file);
    return json();
  }
  return json::parse(hold.report());
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
                        "max_constraint_violation", "energy_drift_rel", "energy_drift_abs_J", "energy_balance_rel",
                        "energy_balance_abs_J", "energy_work_abs_J", "stop_reason", "seed",
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

/// Removes `out` and its checkpoint file (left by an earlier round of a repeated test).
void remove_outputs(const fs::path& out) {
  fs::remove(out);
  fs::remove(simphant::checkpoint_file_name(out.string()));
}

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
// resumed file equals the uninterrupted one. The signal reaches the run held at step
// kHoldStep (SIMPHANT_TEST_HOLD), after that slice's checkpoint.
TEST(Checkpoint, ResumeAfterSigintSigtermSigkillIsBitIdentical) {
  const Reference& ref = reference();
  for (const int sig : {SIGINT, SIGTERM, SIGKILL}) {
    const std::string tag = "signal_" + std::to_string(sig);
    const fs::path out = temp_dir() / (tag + ".h5");
    const fs::path ckpt = simphant::checkpoint_file_name(out.string());
    remove_outputs(out);
    const Hold hold("step=" + std::to_string(kHoldStep), temp_dir() / (tag + ".gate"));
    Child c;
    const json held = start_held(run_args(out, {"--checkpoint-every", kEverySlice}), tag, hold, c);
    ASSERT_FALSE(held.is_null());
    EXPECT_EQ(held.at("steps_done"), kHoldStep);
    EXPECT_EQ(held.at("pid"), c.pid);
    ::kill(c.pid, sig);
    const Exit e = wait_child(c, 60);
    if (sig == SIGKILL) {
      EXPECT_FALSE(e.exited);
      EXPECT_FALSE(fs::exists(out));
      EXPECT_EQ(stored_point(ckpt).steps_done, kHoldStep);
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
    EXPECT_EQ(s.at("resumed_from_step"), kHoldStep);
    EXPECT_FALSE(fs::exists(ckpt));
    EXPECT_FALSE(fs::exists(simphant::test::partial_file(out, c.pid)));  // the killed run's, removed
    EXPECT_FALSE(simphant::resumable(out.string()));
  }
}

// SIGKILL at 20 random steps (seeded) and once in set-up, each time while the run is
// held there (SIMPHANT_TEST_HOLD), with a checkpoint every kInterval of wall time. By the
// run's own clock (its ".held" report), a run has never gone an interval without
// completing a checkpoint, so the work a kill loses is at most one interval plus the
// checkpoint's own write (the report's wall_s against the checkpoint's wall_time_s, the
// moment its state was taken). A run killed after a checkpoint leaves a checkpoint file
// that opens and resumes to the reference file; a run killed before its first checkpoint
// (in set-up, or before its loop had run an interval) leaves nothing to resume: refused
// with exit code 2. Which of the two a random step gives depends on the machine's speed;
// what each must satisfy does not.
TEST(Checkpoint, TwentyRandomKills) {
  const Reference& ref = reference();
  const std::int64_t total = ref.summary.at("steps").get<std::int64_t>();
  std::mt19937 rng(20261201);
  std::uniform_int_distribution<std::int64_t> random_step(1, total * 9 / 10);
  int resumed = 0, refused = 0;
  double max_lost = 0, max_write = 0;
  std::vector<std::string> points = {"setup"};
  for (int i = 0; i < 20; ++i) points.push_back("step=" + std::to_string(random_step(rng)));
  for (std::size_t i = 0; i < points.size(); ++i) {
    SCOPED_TRACE(points[i]);
    const std::string tag = "kill_" + std::to_string(i);
    const fs::path out = temp_dir() / (tag + ".h5");
    const fs::path ckpt = simphant::checkpoint_file_name(out.string());
    remove_outputs(out);
    const Hold hold(points[i], temp_dir() / (tag + ".gate"));
    Child c;
    const json held = start_held(run_args(out, {"--checkpoint-every", std::to_string(kInterval)}), tag, hold, c);
    ASSERT_FALSE(held.is_null());
    ::kill(c.pid, SIGKILL);
    const Exit e = wait_child(c, 60);
    EXPECT_FALSE(e.exited);
    // Since the checkpoint on disk was completed (or the loop started): under an interval.
    const double age = held.value("checkpoint_age_s", 0.0);
    EXPECT_LT(age, kInterval) << held.dump();
    if (!fs::exists(ckpt)) {
      const Exit r = run({"run", "--resume", out.string()}, tag + "_resume");
      EXPECT_EQ(r.code, 2) << err_of(tag + "_resume");
      ++refused;
      continue;
    }
    const Stored s = stored_point(ckpt);  // opens: a complete file
    EXPECT_GT(s.steps_done, 0);
    EXPECT_LE(s.steps_done, held.at("steps_done").get<std::int64_t>());
    const double lost = held.at("wall_s").get<double>() - s.wall_s;  // the age and the checkpoint's write
    EXPECT_GE(lost, age) << "held at " << held.dump() << ", checkpoint at " << s.wall_s << " s";
    max_lost = std::max(max_lost, lost);
    max_write = std::max(max_write, lost - age);
    const Exit r = run({"run", "--resume", out.string(), "--threads", "1", "--json"}, tag + "_resume");
    ASSERT_EQ(r.code, 0) << err_of(tag + "_resume");
    expect_equal_files(ref.file, out);
    const json summary = summary_of(tag + "_resume");
    expect_same_figures(ref.summary, summary);
    EXPECT_EQ(summary.at("resumed_from_step"), s.steps_done);
    ++resumed;
    fs::remove(out);
  }
  std::printf("random kills: %d resumed, %d before the first checkpoint; most wall time lost %.3f s (interval "
              "%.2f s; a checkpoint's write took up to %.3f s of it)\n", resumed, refused, max_lost, kInterval, max_write);
  EXPECT_GE(refused, 1);  // the kill in set-up
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
  const fs::path saved = temp_dir() / "bad_checkpoint_saved.h5";
  remove_outputs(out);
  fs::remove(saved);
  {
    const Hold hold("step=" + std::to_string(kHoldStep), temp_dir() / "bad.gate");
    Child c;
    ASSERT_FALSE(start_held(run_args(out, {"--checkpoint-every", kEverySlice}), "bad", hold, c).is_null());
    ::kill(c.pid, SIGKILL);
    wait_child(c, 60);
  }
  ASSERT_TRUE(fs::exists(ckpt));
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

// A resumed run continues only with the files its run read: a changed URDF, a changed
// mesh the URDF names or a changed visual mesh of a body is refused (SceneError
// "--resume" naming the file, exit 2 from the CLI) and nothing is written; restored, the
// resume completes and equals the uninterrupted run.
TEST(Checkpoint, ResumeRefusesChangedInputFiles) {
  const fs::path dir = temp_dir() / "inputs";
  fs::create_directories(dir / "meshes");
  const auto write = [](const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; };
  fs::copy_file(std::string(SIMPHANT_SOURCE_DIR) + "/tests/data/urdf/mesh_arm.urdf", dir / "one.urdf");
  write(dir / "meshes" / "arm.stl", "solid arm\nendsolid arm\n");
  json robot = {{"robot", {{"urdf", "one.urdf"}, {"q0", {0.3}}}}, {"solver", {{"type", "aba"}, {"dt", 0.001}, {"t_end", 0.05}}}};
  write(dir / "robot.json", robot.dump());
  json bob = json::parse(read_text(std::string(SIMPHANT_SOURCE_DIR) + "/examples/pendulum.json"));
  bob["solver"]["t_end"] = 0.05;
  bob["bodies"][0]["visual"] = {{"type", "mesh"}, {"file", "meshes/bob.stl"}};
  write(dir / "meshes" / "bob.stl", "solid bob\nendsolid bob\n");
  write(dir / "bob.json", bob.dump());

  struct Case {
    std::string scene;
    std::vector<fs::path> files;
  };
  for (const Case& c : {Case{"robot", {dir / "one.urdf", dir / "meshes" / "arm.stl"}}, Case{"bob", {dir / "meshes" / "bob.stl"}}}) {
    simphant::JobOptions o;
    o.scene = (dir / (c.scene + ".json")).string();
    o.threads = 1;
    o.out = (dir / (c.scene + "_ref.h5")).string();
    const simphant::JobResult ref = simphant::run_job(o);
    ASSERT_EQ(ref.exit_code, 0);
    o.out = (dir / (c.scene + ".h5")).string();
    int slices = 0;
    simphant::JobHooks hooks;
    hooks.progress = [&](const simphant::JobProgress&) { ++slices; };
    hooks.stop_requested = [&] { return slices >= 1; };
    ASSERT_EQ(simphant::run_job(o, hooks).exit_code, 130);
    const std::string stopped = read_text(o.out);
    simphant::JobOptions r;
    r.resume = o.out;
    r.threads = 1;
    for (const fs::path& f : c.files) {
      const std::string original = read_text(f);
      write(f, original + "<!-- changed -->\n");
      try {
        simphant::run_job(r);
        ADD_FAILURE() << "the resume did not notice the changed " << f;
      } catch (const simphant::SceneError& e) {
        EXPECT_EQ(e.path(), "--resume") << e.what();
        EXPECT_NE(std::string(e.what()).find(f.string() + ": changed since the run to resume read it"), std::string::npos)
            << e.what();
      }
      EXPECT_EQ(read_text(o.out), stopped);  // nothing written
      write(f, original);
    }
    ASSERT_EQ(simphant::run_job(r).exit_code, 0);
    expect_equal_files(ref.out_file, o.out);
  }
}

// The comparison itself: a file added to or dropped from the inputs, a file that appeared
// since, and an unreadable record are refused, each naming the file or the record.
TEST(Checkpoint, InputDigestsNameWhatDiffers) {
  using simphant::job_detail::check_input_digests;
  using simphant::job_detail::input_digests;
  const fs::path a = temp_dir() / "digest_a.txt", b = temp_dir() / "digest_b.txt";
  std::ofstream(a) << "a";
  fs::remove(b);
  const std::string only_a = input_digests({a.string()}), a_and_b = input_digests({a.string(), b.string()});
  EXPECT_NE(a_and_b.find("missing"), std::string::npos) << a_and_b;
  EXPECT_NO_THROW(check_input_digests("", {a.string()}, "x.h5"));  // an output without the record
  EXPECT_NO_THROW(check_input_digests(a_and_b, {a.string(), b.string()}, "x.h5"));
  const auto refused = [](const std::string& recorded, const std::vector<std::string>& files, const std::string& what) {
    try {
      check_input_digests(recorded, files, "x.h5");
      ADD_FAILURE() << "not refused: " << what;
    } catch (const simphant::SceneError& e) {
      EXPECT_EQ(e.path(), "--resume");
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused(only_a, {a.string(), b.string()}, b.string() + ": the scene names it now");
  refused(a_and_b, {a.string()}, b.string() + ": the run to resume read it");
  std::ofstream(b) << "b";
  refused(a_and_b, {a.string(), b.string()}, b.string() + ": changed since the run to resume read it (CRC-64 now ");
  refused("[1]", {a.string()}, "cannot be read");
  refused("{", {a.string()}, "cannot be read");
}

// The checkpoint stores the --backend value of the backend that ran, not the request:
// a robot run started with auto on 8 instances steps in SIMD lanes (reduced-aba-lanes),
// its checkpoint says cpu-simd, and the resumed run (auto again) takes that form, not
// whatever auto would choose where it resumes.
TEST(Checkpoint, StoredBackendIsTheFormThatRan) {
  using simphant::job_detail::backend_option;
  EXPECT_EQ(backend_option("reduced-aba", "auto"), "cpu");
  EXPECT_EQ(backend_option("reduced-cga-lanes", "auto"), "cpu-simd");
  EXPECT_EQ(backend_option("cuda-reduced-aba-fp32", "auto"), "cuda");
  for (const char* b : {"cpu", "cpu-simd", "cuda", "cuda-fused"}) EXPECT_EQ(backend_option(b, "auto"), b);

  json scene = json::parse(read_text(std::string(SIMPHANT_SOURCE_DIR) + "/examples/arm7.json"));
  scene["solver"]["type"] = "aba";
  scene["solver"]["t_end"] = 0.2;
  simphant::JobOptions o;
  o.scene = std::string(SIMPHANT_SOURCE_DIR) + "/examples/arm7.json";
  o.scene_text = scene.dump();
  o.instances = 8;
  o.threads = 1;
  o.checkpoint_every_s = 1e-9;
  o.out = (temp_dir() / "robot_backend_form.h5").string();
  int slices = 0;
  simphant::JobHooks hooks;
  hooks.progress = [&](const simphant::JobProgress&) { ++slices; };
  hooks.stop_requested = [&] { return slices >= 2; };
  const simphant::JobResult stopped = simphant::run_job(o, hooks);
  ASSERT_EQ(stopped.exit_code, 130);
  EXPECT_EQ(stopped.summary.at("backend").get<std::string>().rfind("reduced-aba-lanes", 0), 0u);
  {
    const simphant::h5::Handle f = simphant::h5::open_file_readonly(o.out);
    const simphant::h5::Handle g(H5Gopen2(f.id(), "checkpoint", H5P_DEFAULT), H5Gclose);
    ASSERT_TRUE(g.valid());
    EXPECT_EQ(json::parse(simphant::h5::read_attr_string(g.id(), "options")).at("backend"), "cpu-simd");
  }
  simphant::JobOptions r;
  r.resume = o.out;
  r.threads = 1;
  const simphant::JobResult resumed = simphant::run_job(r);
  ASSERT_EQ(resumed.exit_code, 0);
  EXPECT_EQ(resumed.summary.at("backend").get<std::string>().rfind("reduced-aba-lanes", 0), 0u);
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
  o.t_end = kTEnd;
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
