// The output file of `simphant run` (README "Output file", docs/reliability.md): written
// through a temporary file and renamed when the run ends; an existing file untouched
// until then; one run per output (lock); no input of the run taken as its output; every
// early end marked (interrupted, stop_reason); SIGKILL leaving a recognisable temporary
// file; a full disk or a file size limit a clean write error (exit 3, the file marked),
// never a crash.
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "process_support.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/output_file.hpp"

namespace fs = std::filesystem;
namespace h5 = simphant::h5;
using nlohmann::json;
using namespace simphant::test;

namespace {

const fs::path& temp_dir() {
  static const fs::path dir = simphant::test::make_process_temp_dir("output");
  return dir;
}

/// A one-body pendulum; `instances` copies (no sweep), t_end and record_every as given.
json pendulum(double t_end, int record_every = 10, int instances = 2) {
  json j = json::parse(R"({
    "name": "output pendulum",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "mass": 1.0, "inertia": [0.001, 0.02, 0.02], "position": [0.5, 0, 0]}],
    "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "bob",
                "frame": {"origin": [0, 0, 0], "z": [0, 1, 0], "x": [1, 0, 0]}}],
    "solver": {"dt": 0.001, "t_end": 0.1, "record_every": 10}
  })");
  j["solver"]["t_end"] = t_end;
  j["solver"]["record_every"] = record_every;
  j["sweep"] = {{"instances", instances}};
  return j;
}

fs::path write_file(const std::string& name, const std::string& text) {
  const fs::path p = temp_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

/// Runs simphant to the end (at most timeout_s).
Exit run(const std::vector<std::string>& args, const std::string& tag, double timeout_s = 300) {
  return wait_child(start_simphant(args, temp_dir() / (tag + ".out"), temp_dir() / (tag + ".err")), timeout_s);
}
std::string err_of(const std::string& tag) { return read_text(temp_dir() / (tag + ".err")); }

/// Files in the output folder whose name starts with "." + stem (temporary and lock files).
std::vector<std::string> leftovers(const fs::path& target) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(target.parent_path()))
    if (e.path().filename().string().rfind("." + target.filename().string(), 0) == 0)
      found.push_back(e.path().filename().string());
  return found;
}

/// Every T dataset of a run's file holds the same number of frames; returns it.
hsize_t frames_of(const h5::Handle& f) {
  const hsize_t T = h5::dataset_dims(f.id(), "time").at(0);
  for (const char* name : {"state", "reactions", "constraint_violation", "energy"})
    EXPECT_EQ(h5::dataset_dims(f.id(), name).at(0), T) << name;
  EXPECT_EQ(h5::read_attr_double(f.id(), "frames"), static_cast<double>(T));
  return T;
}

}  // namespace

TEST(OutputFile, LockTemporaryAndRename) {
  const fs::path target = temp_dir() / "unit.h5";
  write_file("unit.h5", "old contents");
  {
    simphant::OutputFile a(target.string());
    EXPECT_EQ(fs::path(a.temp_path()), partial_file(target, ::getpid()));
    EXPECT_EQ(fs::path(a.lock_path()), temp_dir() / ".unit.h5.lock");
    // A second claim of the same output fails, naming the output, the lock and this process.
    try {
      simphant::OutputFile b(target.string());
      ADD_FAILURE() << "no OutputBusy";
    } catch (const simphant::OutputBusy& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(target.string()), std::string::npos) << what;
      EXPECT_NE(what.find("pid " + std::to_string(::getpid())), std::string::npos) << what;
      EXPECT_NE(what.find(".unit.h5.lock"), std::string::npos) << what;
    }
    std::ofstream(a.temp_path()) << "new contents";
    EXPECT_EQ(read_text(target), "old contents");  // untouched until the commit
    a.commit();
    EXPECT_EQ(read_text(target), "new contents");
    EXPECT_FALSE(fs::exists(a.temp_path()));
  }
  EXPECT_TRUE(leftovers(target).empty());
  {
    // Not committed: the temporary file goes, the target stays.
    simphant::OutputFile c(target.string());
    std::ofstream(c.temp_path()) << "abandoned";
  }
  EXPECT_EQ(read_text(target), "new contents");
  EXPECT_TRUE(leftovers(target).empty());
  {
    simphant::OutputFile d(target.string());
    std::ofstream(d.temp_path()) << "kept";
    d.keep_temporary();
    EXPECT_TRUE(fs::exists(d.temp_path()));
    simphant::OutputFile e(target.string());  // the lock is free again
    fs::remove(d.temp_path());
  }
}

// A symbolic link as the output leads to the file it names, also when that file does not
// exist yet (a dangling link, a chain of two links): the lock and the temporary file are
// the target's, so a run writing the target and a run given the link exclude each other.
TEST(OutputFile, LinkTakesTheLockOfItsTarget) {
  const fs::path target = temp_dir() / "linked_target.h5";
  fs::remove(target);
  fs::create_symlink("linked_target.h5", temp_dir() / "dangling.h5");
  fs::create_symlink(temp_dir() / "dangling.h5", temp_dir() / "chain.h5");
  for (const char* link : {"dangling.h5", "chain.h5"}) {
    EXPECT_EQ(fs::path(simphant::resolve_output_links((temp_dir() / link).string())), fs::weakly_canonical(target))
        << link;
    simphant::OutputFile writing(target.string());
    EXPECT_THROW(simphant::OutputFile((temp_dir() / link).string()), simphant::OutputBusy) << link;
  }
  {
    simphant::OutputFile through_link((temp_dir() / "chain.h5").string());
    EXPECT_EQ(fs::path(through_link.target()), fs::weakly_canonical(target));
    EXPECT_THROW(simphant::OutputFile(target.string()), simphant::OutputBusy);
    std::ofstream(through_link.temp_path()) << "written through the link";
    through_link.commit();
  }
  EXPECT_EQ(read_text(target), "written through the link");
  EXPECT_TRUE(fs::is_symlink(temp_dir() / "dangling.h5"));  // the links stay links
  EXPECT_TRUE(fs::is_symlink(temp_dir() / "chain.h5"));
}

// A second run on the output of a run still writing it: refused with the path and the
// other run's pid (exit 3), nothing clobbered; the first run's file lands when it ends.
// The first run is held at step 50 (SIMPHANT_TEST_HOLD, docs/reliability.md "Test
// hooks") while the second one starts, then stopped by SIGINT.
TEST(OutputFile, SecondRunOnTheSameOutputIsRefused) {
  const fs::path scene = write_file("long.json", pendulum(1.0).dump());
  const fs::path target = temp_dir() / "shared.h5";
  write_file("shared.h5", "an earlier result");
  const Hold hold("step=50", temp_dir() / "shared.gate");
  const Child first = start_simphant({"run", scene.string(), "--threads", "1", "--out", target.string()},
                                     temp_dir() / "first.out", temp_dir() / "first.err", {}, hold.env());
  ASSERT_TRUE(hold.wait(&first)) << read_text(first.err_file);
  ASSERT_TRUE(fs::exists(partial_file(target, first.pid)));
  const Exit second = run({"run", scene.string(), "--threads", "1", "--out", target.string()}, "second", 60);
  EXPECT_TRUE(second.exited);
  EXPECT_EQ(second.code, 3);
  const std::string err = err_of("second");
  EXPECT_NE(err.find(target.string()), std::string::npos) << err;
  EXPECT_NE(err.find("pid " + std::to_string(first.pid)), std::string::npos) << err;
  EXPECT_EQ(read_text(target), "an earlier result");  // never truncated while the first run writes
  ::kill(first.pid, SIGINT);
  const Exit e = wait_child(first, 60);
  ASSERT_TRUE(e.exited) << read_text(first.err_file);
  EXPECT_EQ(e.code, 130);
  const h5::Handle f = h5::open_file_readonly(target.string());
  EXPECT_EQ(h5::read_attr_double(f.id(), "interrupted"), 1.0);
  EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "signal SIGINT");
  EXPECT_GE(frames_of(f), 1u);
  EXPECT_TRUE(leftovers(target).empty());
}

// The scene, a body's visual mesh, the robot's URDF and the meshes it names are never
// outputs: bad input (2), under any name for the same file, and the file stays as it was.
TEST(OutputFile, InputsAreRefusedAsOutput) {
  const std::string scene_text = pendulum(0.01).dump();
  const fs::path scene = write_file("input.json", scene_text);
  fs::create_directories(temp_dir() / "sub");
  fs::create_symlink(scene, temp_dir() / "link_to_scene.json");
  for (const fs::path& out : {scene, temp_dir() / "sub" / ".." / "input.json", temp_dir() / "link_to_scene.json"}) {
    const Exit e = run({"run", scene.string(), "--out", out.string()}, "input");
    EXPECT_EQ(e.code, 2) << out;
    EXPECT_NE(err_of("input").find("--out"), std::string::npos) << err_of("input");
    EXPECT_NE(err_of("input").find("is an input of the run"), std::string::npos) << err_of("input");
  }
  EXPECT_EQ(read_text(scene), scene_text);

  // A body's visual mesh (relative to the scene's folder), also through a link: an input
  // of the run, although the dynamics do not read it.
  json with_mesh = pendulum(0.01);
  with_mesh["bodies"][0]["visual"] = {{"type", "mesh"}, {"file", "bob.stl"}};
  const fs::path mesh_scene = write_file("mesh_scene.json", with_mesh.dump());
  const fs::path mesh = write_file("bob.stl", "solid bob\nendsolid bob\n");
  fs::create_symlink(mesh, temp_dir() / "link_to_mesh.stl");
  for (const fs::path& out : {mesh, temp_dir() / "link_to_mesh.stl"}) {
    const Exit e = run({"run", mesh_scene.string(), "--out", out.string()}, "mesh_input");
    EXPECT_EQ(e.code, 2) << out << ": " << err_of("mesh_input");
    EXPECT_NE(err_of("mesh_input").find("is an input of the run"), std::string::npos) << err_of("mesh_input");
  }
  EXPECT_EQ(read_text(mesh), "solid bob\nendsolid bob\n");

  // A robot scene: its URDF and a mesh the URDF names.
  fs::create_directories(temp_dir() / "robot" / "meshes");
  const fs::path urdf_file = temp_dir() / "robot" / "one.urdf";
  fs::copy_file(std::string(SIMPHANT_SOURCE_DIR) + "/tests/data/urdf/mesh_arm.urdf", urdf_file);
  const std::string urdf = read_text(urdf_file);
  std::ofstream(temp_dir() / "robot" / "meshes" / "arm.stl") << "solid arm\nendsolid arm\n";
  const fs::path robot_scene = temp_dir() / "robot" / "one.json";
  std::ofstream(robot_scene) << json{{"robot", {{"urdf", "one.urdf"}}}, {"solver", {{"type", "aba"}, {"dt", 0.001}, {"t_end", 0.01}}}}.dump();
  const Exit ok = run({"run", robot_scene.string(), "--out", (temp_dir() / "robot" / "one.h5").string()}, "robot");
  ASSERT_EQ(ok.code, 0) << err_of("robot");
  for (const fs::path& out : {urdf_file, temp_dir() / "robot" / "meshes" / "arm.stl"}) {
    const Exit e = run({"run", robot_scene.string(), "--out", out.string()}, "robot_input");
    EXPECT_EQ(e.code, 2) << out << ": " << err_of("robot_input");
    EXPECT_NE(err_of("robot_input").find("is an input of the run"), std::string::npos) << err_of("robot_input");
  }
  EXPECT_EQ(read_text(urdf_file), urdf);
  EXPECT_EQ(read_text(temp_dir() / "robot" / "meshes" / "arm.stl"), "solid arm\nendsolid arm\n");
}

// SIGKILL: no chance to close; the earlier file stays, the temporary file is left beside
// it, recognisable by name and marked interrupted / "running" inside, and the next run
// on the same output is not blocked by the dead run's lock. Killed while held at step
// 200 (SIMPHANT_TEST_HOLD, docs/reliability.md "Test hooks").
TEST(OutputFile, SigkillLeavesARecognisableTemporaryFile) {
  const fs::path scene = write_file("killed.json", pendulum(1.0).dump());
  const fs::path target = temp_dir() / "killed.h5";
  write_file("killed.h5", "an earlier result");
  const Hold hold("step=200", temp_dir() / "killed.gate");
  const Child c = start_simphant({"run", scene.string(), "--threads", "1", "--out", target.string()},
                                 temp_dir() / "killed.out", temp_dir() / "killed.err", {}, hold.env());
  const fs::path partial = partial_file(target, c.pid);
  ASSERT_TRUE(hold.wait(&c)) << read_text(c.err_file);
  ::kill(c.pid, SIGKILL);
  const Exit e = wait_child(c, 60);
  EXPECT_FALSE(e.exited);
  EXPECT_EQ(read_text(target), "an earlier result");
  ASSERT_TRUE(fs::exists(partial));
  {
    const h5::Handle f = h5::open_file_readonly(partial.string());  // flushed after every frame
    EXPECT_EQ(h5::read_attr_double(f.id(), "interrupted"), 1.0);
    EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "running");
    EXPECT_GE(frames_of(f), 1u);
  }
  const Exit next = run({"run", scene.string(), "--t-end", "0.01", "--out", target.string()}, "after_kill");
  EXPECT_EQ(next.code, 0) << err_of("after_kill");
  const h5::Handle f = h5::open_file_readonly(target.string());
  EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "completed");
  EXPECT_EQ(h5::read_attr_double(f.id(), "interrupted"), 0.0);
  fs::remove(partial);
}

// SIGHUP (a closed terminal) stops the run as SIGINT does: 128 + 1, the file marked.
// Sent while the run is held at step 100 (SIMPHANT_TEST_HOLD).
TEST(OutputFile, SighupMarksTheFile) {
  const fs::path scene = write_file("hup.json", pendulum(1.0).dump());
  const fs::path target = temp_dir() / "hup.h5";
  const Hold hold("step=100", temp_dir() / "hup.gate");
  const Child c = start_simphant({"run", scene.string(), "--threads", "1", "--json", "--out", target.string()},
                                 temp_dir() / "hup.out", temp_dir() / "hup.err", {}, hold.env());
  ASSERT_TRUE(hold.wait(&c)) << read_text(c.err_file);
  ::kill(c.pid, SIGHUP);
  const Exit e = wait_child(c, 60);
  ASSERT_TRUE(e.exited);
  EXPECT_EQ(e.code, 128 + SIGHUP);
  const json summary = json::parse(read_text(c.out_file));
  EXPECT_EQ(summary["stop_reason"], "signal SIGHUP");
  EXPECT_EQ(summary["stop_signal"], "SIGHUP");
  EXPECT_EQ(summary["steps"], 100);
  const h5::Handle f = h5::open_file_readonly(target.string());
  EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "signal SIGHUP");
}

// Every instance diverged: the run ends there (no more steps or frames), exit 3, the file
// valid and marked "no instance alive".
TEST(OutputFile, RunEndsWhenNoInstanceIsAlive) {
  json doc = pendulum(100.0, 10, 3);  // 1e5 steps planned
  doc["solver"]["violation_bound"] = 1e-300;  // every state violates it: all diverge in the first slice
  const fs::path scene = write_file("dead.json", doc.dump());
  const fs::path target = temp_dir() / "dead.h5";
  const Exit e = run({"run", scene.string(), "--threads", "1", "--json", "--out", target.string()}, "dead", 60);
  ASSERT_TRUE(e.exited);
  EXPECT_EQ(e.code, 3) << err_of("dead");
  EXPECT_NE(err_of("dead").find("no instance finished ok"), std::string::npos) << err_of("dead");
  const json summary = json::parse(read_text(temp_dir() / "dead.out"));
  EXPECT_EQ(summary["stop_reason"], "no instance alive");
  EXPECT_EQ(summary["interrupted"], true);
  EXPECT_EQ(summary["instances_diverged"], 3);
  EXPECT_LT(summary["steps"].get<long>(), 1000);
  const h5::Handle f = h5::open_file_readonly(target.string());
  EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "no instance alive");
  EXPECT_EQ(h5::read_attr_double(f.id(), "interrupted"), 1.0);
  EXPECT_LE(frames_of(f), 3u);
}

namespace {

/// A tmpfs of `bytes` mounted on a fresh folder while it lives (root and a kernel that
/// allows it); dir is empty, with the reason in why, when it cannot be mounted.
struct SmallDisk {
  fs::path dir;
  std::string why;
  SmallDisk(const std::string& name, std::size_t bytes) {
    const fs::path d = temp_dir() / name;
    fs::create_directories(d);
    const std::string options = "size=" + std::to_string(bytes);
    if (::mount("tmpfs", d.c_str(), "tmpfs", 0, options.c_str()) != 0) {
      why = std::string("cannot mount a small tmpfs here (") + std::strerror(errno) +
            "): the full-disk cases need root and a kernel that allows it";
      return;
    }
    dir = d;
  }
  ~SmallDisk() {
    if (!dir.empty()) ::umount2(dir.c_str(), MNT_DETACH);
  }
};

}  // namespace

// A disk that fills up during the run: the run stops before the frame that does not fit,
// names ENOSPC and the output, exits 3, and the file is complete up to there and marked.
// Then a disk too full for the file's first bytes: the same error, no file, no crash.
TEST(OutputFile, DiskFullStopsTheRunAndMarksTheFile) {
  const SmallDisk small("small_disk", 8u << 20);
  if (small.dir.empty()) GTEST_SKIP() << small.why;
  const fs::path& disk = small.dir;
  // 20000 instances: ~3.4 MB per frame; 101 frames would need ~340 MB.
  const fs::path scene = write_file("big_frames.json", pendulum(0.1, 1, 20000).dump());
  const fs::path target = disk / "full.h5";
  const Exit e = run({"run", scene.string(), "--threads", "2", "--json", "--out", target.string()}, "full", 120);
  ASSERT_TRUE(e.exited) << "killed by signal " << e.code;
  EXPECT_EQ(e.code, 3);
  const std::string err = err_of("full");
  EXPECT_NE(err.find("disk full (ENOSPC): " + target.string()), std::string::npos) << err;
  const json summary = json::parse(read_text(temp_dir() / "full.out"));
  EXPECT_EQ(summary["interrupted"], true);
  EXPECT_EQ(summary["stop_reason"], "disk full (ENOSPC): " + target.string());
  {
    const h5::Handle f = h5::open_file_readonly(target.string());
    EXPECT_EQ(h5::read_attr_double(f.id(), "interrupted"), 1.0);
    EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "disk full (ENOSPC): " + target.string());
    const hsize_t T = frames_of(f);
    EXPECT_GE(T, 1u);
    EXPECT_LT(T, 101u);
    EXPECT_EQ(h5::read_doubles(f.id(), "status").size(), 20000u);
    EXPECT_EQ(summary["frames"], T);
  }
  EXPECT_TRUE(leftovers(target).empty());
  fs::remove(target);

  // Nearly full while the output is set up (the file created, its first datasets, the
  // first frames): never a crash; either no output and ENOSPC named, or a readable file
  // marked with what it holds.
  const fs::path small_scene = write_file("set_up.json", pendulum(0.05, 1, 500).dump());
  for (const std::size_t free_kib : {16, 64, 192, 320, 512, 1024}) {
    SCOPED_TRACE("free " + std::to_string(free_kib) + " KiB");
    fs::remove(disk / "filler");
    struct statvfs st {};
    ASSERT_EQ(::statvfs(disk.c_str(), &st), 0);
    const std::size_t available = static_cast<std::size_t>(st.f_bavail) * st.f_frsize;
    ASSERT_GT(available, free_kib << 10);
    {
      std::ofstream filler(disk / "filler", std::ios::binary);
      const std::string block(available - (free_kib << 10), 'x');
      filler.write(block.data(), static_cast<std::streamsize>(block.size()));
    }
    const fs::path out = disk / "set_up.h5";
    const Exit x = run({"run", small_scene.string(), "--threads", "1", "--out", out.string()}, "set_up", 120);
    ASSERT_TRUE(x.exited) << "killed by signal " << x.code;
    EXPECT_EQ(x.code, 3);
    EXPECT_NE(err_of("set_up").find("disk full (ENOSPC): " + out.string()), std::string::npos) << err_of("set_up");
    if (fs::exists(out)) {
      const h5::Handle f = h5::open_file_readonly(out.string());
      EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "disk full (ENOSPC): " + out.string());
      frames_of(f);
    }
    EXPECT_TRUE(leftovers(out).empty());
    fs::remove(out);
  }

  // Full: the temporary file cannot even be set up.
  {
    std::ofstream filler(disk / "filler", std::ios::binary | std::ios::app);
    const std::string block(1 << 12, 'x');
    while (filler.write(block.data(), block.size())) {
    }
  }
  const fs::path no_room = disk / "no_room.h5";
  const Exit g = run({"run", scene.string(), "--out", no_room.string()}, "no_room", 120);
  ASSERT_TRUE(g.exited) << "killed by signal " << g.code;
  EXPECT_EQ(g.code, 3);
  EXPECT_NE(err_of("no_room").find("ENOSPC"), std::string::npos) << err_of("no_room");
  EXPECT_FALSE(fs::exists(no_room));
  EXPECT_TRUE(leftovers(no_room).empty());
}

// A file size limit (ulimit -f): as a full disk, the run stops before the frame that
// would pass it, names EFBIG and the output (exit 3), and the file is complete up to
// there and marked. SIGXFSZ never kills the run.
TEST(OutputFile, FileSizeLimitStopsTheRunAndMarksTheFile) {
  const fs::path scene = write_file("limited.json", pendulum(0.1, 1, 2000).dump());
  const fs::path target = temp_dir() / "limited.h5";
  const Child c = start_simphant({"run", scene.string(), "--threads", "1", "--out", target.string()},
                                 temp_dir() / "limited.out", temp_dir() / "limited.err", [] {
                                   const rlimit limit{4u << 20, 4u << 20};
                                   ::setrlimit(RLIMIT_FSIZE, &limit);
                                 });
  const Exit e = wait_child(c, 120);
  ASSERT_TRUE(e.exited) << "killed by signal " << e.code;
  EXPECT_EQ(e.code, 3);
  const std::string err = read_text(c.err_file);
  EXPECT_NE(err.find("file size limit exceeded (EFBIG): " + target.string()), std::string::npos) << err;
  const h5::Handle f = h5::open_file_readonly(target.string());
  EXPECT_EQ(h5::read_attr_double(f.id(), "interrupted"), 1.0);
  EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "file size limit exceeded (EFBIG): " + target.string());
  const hsize_t T = frames_of(f);
  EXPECT_GE(T, 1u);
  EXPECT_LT(T, 101u);
  EXPECT_TRUE(leftovers(target).empty());
}
