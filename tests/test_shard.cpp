// Shards and merge (README "Command line": `run --shard K/N`, `merge`): the slices of a
// design tile it; a shard's instances are bit-identical to the same instances of the
// one-shot run; the merged file (virtual or copied) equals the one-shot file dataset by
// dataset and attribute by attribute, bit for bit (wall_time_s and the provenance of the start aside: start_time, command_line, device); bad input is
// refused naming what differs, and an existing output is untouched.
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "process_support.hpp"
#include "simphant/io/h5_dims.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/io/h5_objects.hpp"
#include "simphant/job/merge.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/job/shard.hpp"
#include "simphant/scene/scene.hpp"

namespace fs = std::filesystem;
using simphant::JobOptions;
using simphant::MergeError;
using simphant::MergeOptions;
using simphant::SceneError;
using simphant::ShardSlice;

namespace {

const fs::path& temp_dir() {
  static const fs::path dir = simphant::test::make_process_temp_dir("shard");
  return dir;
}

fs::path example(const std::string& name) { return fs::path(SIMPHANT_SOURCE_DIR) / "examples" / name; }

/// A run of `scene` with I instances to t_end into `out`; shard k of n when n > 1.
JobOptions job(const fs::path& scene, const fs::path& out, int instances, double t_end, int k = 0, int n = 1,
               int threads = 1) {
  JobOptions o;
  o.scene = scene.string();
  o.instances = instances;
  o.has_t_end = true;
  o.t_end = t_end;
  o.threads = threads;
  o.backend = "cpu";
  o.out = out.string();
  o.shard_index = k;
  o.shard_count = n;
  return o;
}

/// Runs the one-shot job and its n shards into dir; returns the shard files in order.
std::vector<std::string> run_one_shot_and_shards(const fs::path& scene, const fs::path& dir, int instances,
                                                 double t_end, int n) {
  fs::create_directories(dir);
  // The one-shot run on 2 threads, the shards on 1: the instances do not depend on either.
  EXPECT_EQ(simphant::run_job(job(scene, dir / "one.h5", instances, t_end, 0, 1, 2)).exit_code, 0);
  std::vector<std::string> shards;
  for (int k = 0; k < n; ++k) {
    const fs::path out = dir / ("shard" + std::to_string(k) + ".h5");
    const simphant::JobResult r = simphant::run_job(job(scene, out, instances, t_end, k, n));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.summary.at("shard_index"), k);
    EXPECT_EQ(r.summary.at("instances_total"), instances);
    shards.push_back(out.string());
  }
  return shards;
}

/// Every attribute of `obj` by name, as exact text.
std::map<std::string, std::string> attributes(hid_t obj) {
  std::map<std::string, std::string> m;
  for (const std::string& name : simphant::h5::attr_names(obj)) m[name] = simphant::h5::attr_text(obj, name);
  return m;
}

/// Frames [frame_from, T) of the instances [begin, end) of every (T, I, ...) dataset: where
/// a merged file holds NaN because the shard of those instances ended early, all of them
/// failed (README "Shards and merge").
struct NanFrames {
  long long frame_from = 0, begin = 0, end = 0;
};

/// Compares two files: the same groups and datasets, each with the same type, shape and
/// bytes, and the same attributes on every object (`skip`: root attributes left out),
/// except that in b the elements of `nan` read NaN. Returns the number of datasets compared.
int expect_same_file(const fs::path& a_path, const fs::path& b_path, const std::set<std::string>& skip,
                     const NanFrames& nan = {}) {
  namespace h5 = simphant::h5;
  const h5::Handle a = h5::open_file_readonly(a_path.string());
  const h5::Handle b = h5::open_file_readonly(b_path.string());
  const std::vector<h5::ObjectEntry> oa = h5::list_objects(a.id()), ob = h5::list_objects(b.id());
  EXPECT_EQ(oa.size(), ob.size());
  int datasets = 0;
  for (std::size_t k = 0; k < oa.size() && k < ob.size(); ++k) {
    SCOPED_TRACE(oa[k].path);
    EXPECT_EQ(oa[k].path, ob[k].path);
    EXPECT_EQ(oa[k].group, ob[k].group);
    if (oa[k].path != ob[k].path) continue;
    const h5::Handle xa(H5Oopen(a.id(), oa[k].path.c_str(), H5P_DEFAULT), H5Oclose);
    const h5::Handle xb(H5Oopen(b.id(), ob[k].path.c_str(), H5P_DEFAULT), H5Oclose);
    EXPECT_EQ(attributes(xa.id()), attributes(xb.id()));
    if (oa[k].group) continue;
    const h5::DatasetShape sa = h5::dataset_shape(a.id(), oa[k].path), sb = h5::dataset_shape(b.id(), ob[k].path);
    EXPECT_EQ(sa.dims, sb.dims);
    EXPECT_GT(H5Tequal(sa.file_type.id(), sb.file_type.id()), 0);
    if (H5Tget_class(sa.file_type.id()) == H5T_STRING) {  // labels (/body, ...): by their text
      EXPECT_EQ(h5::read_strings(a.id(), oa[k].path), h5::read_strings(b.id(), ob[k].path));
      ++datasets;
      continue;
    }
    std::vector<unsigned char> da, db;
    h5::read_block(xa.id(), sa, std::vector<hsize_t>(sa.dims.size(), 0), sa.dims, da);
    h5::read_block(xb.id(), sb, std::vector<hsize_t>(sb.dims.size(), 0), sb.dims, db);
    EXPECT_FALSE(da.empty());
    const std::vector<std::string> dims = h5::dimension_names(a.id(), oa[k].path);
    if (nan.end > nan.begin && dims.size() >= 2 && dims[0] == "time" && dims[1] == "instance" && da.size() == db.size()) {
      EXPECT_EQ(sa.element_size, sizeof(double));
      const std::size_t n_inst = sa.dims[1], n = da.size() / sizeof(double), per_frame = n / sa.dims[0];
      std::size_t in_block = 0;
      for (std::size_t e = 0; e < n; ++e) {
        const std::size_t f = e / per_frame, i = e % per_frame / (per_frame / n_inst);
        double vb;
        std::memcpy(&vb, db.data() + e * sizeof(double), sizeof(double));
        if (static_cast<long long>(f) >= nan.frame_from && static_cast<long long>(i) >= nan.begin &&
            static_cast<long long>(i) < nan.end) {
          EXPECT_TRUE(std::isnan(vb)) << "/" << oa[k].path << " frame " << f << " instance " << i;
          ++in_block;
        } else {
          EXPECT_EQ(std::memcmp(da.data() + e * sizeof(double), db.data() + e * sizeof(double), sizeof(double)), 0)
              << "/" << oa[k].path << " frame " << f << " instance " << i;
        }
      }
      EXPECT_GT(in_block, 0u) << "/" << oa[k].path;
    } else {
      EXPECT_TRUE(da == db) << "the bytes of /" << oa[k].path << " differ";
    }
    ++datasets;
  }
  std::map<std::string, std::string> ra = attributes(a.id()), rb = attributes(b.id());
  for (const std::string& s : skip) {
    ra.erase(s);
    rb.erase(s);
  }
  EXPECT_EQ(ra, rb);
  return datasets;
}

double root_double(const fs::path& file, const char* name) {
  const simphant::h5::Handle f = simphant::h5::open_file_readonly(file.string());
  return simphant::h5::read_attr_double(f.id(), name);
}

/// Opens `file` for writing and sets a root attribute (a shard made to look different).
template <class T>
void set_root_attr(const fs::path& file, const char* name, const T& value) {
  simphant::h5::Handle f(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  ASSERT_TRUE(f.valid());
  simphant::h5::write_attr(f.id(), name, value);
}

/// The message of the MergeError that merging `shards` into `out` throws ("" if none).
std::string merge_error(const fs::path& out, const std::vector<std::string>& shards) {
  MergeOptions m;
  m.out = out.string();
  m.shards = shards;
  try {
    simphant::merge_shards(m);
  } catch (const MergeError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ShardSlice, ParsesKOverNAndRefusesTheRest) {
  const ShardSlice s = simphant::parse_shard("2/5");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(simphant::parse_shard("0/1").count, 1);
  for (const char* bad : {"", "3", "3/3", "4/3", "-1/3", "1/-3", "1/0", "a/b", "1/3/5", " 1/3", "1/3x", "1.0/3",
                          "1/99999999999"}) {
    SCOPED_TRACE(bad);
    try {
      simphant::parse_shard(bad);
      ADD_FAILURE() << "accepted";
    } catch (const SceneError& e) {
      EXPECT_EQ(e.path(), "--shard");
    }
  }
}

TEST(ShardSlice, SlicesTileTheDesignInOrder) {
  for (int total : {1, 2, 7, 10, 97, 1000, 2147483647}) {
    for (int count : {1, 2, 3, 4, 8, 13}) {
      if (count > total) {
        EXPECT_THROW(simphant::shard_slice(0, count, total), SceneError);
        continue;
      }
      int next = 0;
      for (int k = 0; k < count; ++k) {
        const ShardSlice s = simphant::shard_slice(k, count, total);
        EXPECT_EQ(s.begin, next) << total << " " << count << " " << k;
        EXPECT_GE(s.size(), total / count);  // sizes differ by at most one
        EXPECT_LE(s.size(), total / count + (total % count != 0 ? 1 : 0));
        next = s.end;
      }
      EXPECT_EQ(next, total);
    }
  }
  EXPECT_THROW(simphant::shard_slice(3, 3, 10), SceneError);
  EXPECT_THROW(simphant::shard_slice(-1, 3, 10), SceneError);
}

TEST(ShardSlice, SamplesAreTheWholeDesignsSlice) {
  const simphant::Scene scene = simphant::load_scene(example("four_bar.json").string());
  const simphant::SweepSamples all = simphant::sample_sweep(scene.sweep, 11);
  const simphant::SweepSamples part = simphant::slice_samples(all, simphant::shard_slice(1, 3, 11));
  EXPECT_EQ(part.first_instance, 3);
  ASSERT_EQ(part.n_instances, 4);
  for (std::size_t p = 0; p < all.values.size(); ++p)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(part.values[p][static_cast<std::size_t>(k)], all.values[p][static_cast<std::size_t>(3 + k)]);
}

// Three shards of a 10-instance Latin hypercube design of the four-bar, merged as virtual
// datasets and as a copy, against the one-shot run: every dataset (state, reactions,
// constraint_violation, energy, time, status, status_time, params/*, assembly/*) and
// every attribute equal bit for bit, wall_time_s (the largest shard's) and the start's provenance aside.
TEST(Merge, ThreeShardsReadLikeTheOneShotRun) {
  const fs::path dir = temp_dir() / "four_bar";
  const std::vector<std::string> shards = run_one_shot_and_shards(example("four_bar.json"), dir, 10, 0.1, 3);
  // A shard's file: its slice and the design's size.
  const simphant::h5::Handle s1 = simphant::h5::open_file_readonly(shards[1]);
  EXPECT_EQ(simphant::h5::attr_text(s1.id(), "instance_offset"), "3");
  EXPECT_EQ(simphant::h5::attr_text(s1.id(), "n_instances"), "3");
  EXPECT_EQ(simphant::h5::attr_text(s1.id(), "n_instances_total"), "10");
  EXPECT_EQ(simphant::h5::attr_text(s1.id(), "shard_count"), "3");

  for (bool copy : {false, true}) {
    SCOPED_TRACE(copy ? "copy" : "virtual");
    MergeOptions m;
    m.out = (dir / (copy ? "copy.h5" : "virtual.h5")).string();
    m.shards = {shards[2], shards[0], shards[1]};  // any order
    m.copy = copy;
    const nlohmann::json s = simphant::merge_shards(m);
    EXPECT_EQ(s.at("instances"), 10);
    EXPECT_EQ(s.at("mode"), copy ? "copy" : "virtual");
    EXPECT_GE(expect_same_file(dir / "one.h5", m.out, {"wall_time_s", "start_time", "command_line", "device"}), 13);
    if (copy) {  // blocks smaller than a frame of /state, and than /params: every block path
      m.out = (dir / "copy_blocks.h5").string();
      m.block_bytes = 50;
      simphant::merge_shards(m);
      expect_same_file(dir / "one.h5", m.out, {"wall_time_s", "start_time", "command_line", "device"});
    }
    double wall = 0;
    for (const std::string& f : shards) wall = std::max(wall, root_double(f, "wall_time_s"));
    EXPECT_EQ(root_double(m.out, "wall_time_s"), wall);
  }
  // The virtual file names its shards relative to its folder: the folder moved and read
  // from elsewhere still reads the same.
  const fs::path moved = temp_dir() / "four_bar_moved";
  fs::create_directories(moved);
  for (const std::string& f : shards) fs::copy_file(f, moved / fs::path(f).filename());
  fs::copy_file(dir / "virtual.h5", moved / "virtual.h5");
  const fs::path cwd = fs::current_path();
  fs::current_path(fs::temp_directory_path());
  expect_same_file(dir / "one.h5", moved / "virtual.h5", {"wall_time_s", "start_time", "command_line", "device"});
  // A shard that is gone reads as the fill value, NaN / -1, never as plausible numbers.
  fs::remove(moved / "shard1.h5");
  {
    const simphant::h5::Handle f = simphant::h5::open_file_readonly((moved / "virtual.h5").string());
    const std::vector<double> energy = simphant::h5::read_doubles(f.id(), "energy");  // (T, 10)
    const std::vector<double> status = simphant::h5::read_doubles(f.id(), "status");
    ASSERT_EQ(status.size(), 10u);
    for (int i = 0; i < 10; ++i) {
      const bool gone = i >= 3 && i < 6;
      EXPECT_EQ(std::isnan(energy[static_cast<std::size_t>(i)]), gone) << i;
      EXPECT_EQ(status[static_cast<std::size_t>(i)], gone ? -1.0 : 0.0) << i;
    }
  }
  fs::current_path(cwd);
}

// A robot scene (joint coordinates: /joint_state/{q, qd, tau} and its joint_names) split
// into shards of unequal size, one per instance at the end.
TEST(Merge, RobotJointStateShards) {
  const fs::path dir = temp_dir() / "panda";
  const std::vector<std::string> shards = run_one_shot_and_shards(example("panda_sweep.json"), dir, 5, 0.03, 4);
  MergeOptions m;
  m.out = (dir / "merged.h5").string();
  m.shards = shards;
  m.copy = true;
  simphant::merge_shards(m);
  EXPECT_GE(expect_same_file(dir / "one.h5", m.out, {"wall_time_s", "start_time", "command_line", "device"}), 16);
  m.out = (dir / "virtual.h5").string();
  m.copy = false;
  simphant::merge_shards(m);
  expect_same_file(dir / "one.h5", m.out, {"wall_time_s", "start_time", "command_line", "device"});
}

// The joint-space robot backend's two CPU forms (scalar `cpu`, SIMD lanes `cpu-simd`)
// differ in rounding, so each records its own name and a merge of shards from both is
// refused naming the backend; the robot shards of one form merge (RobotJointStateShards).
TEST(Merge, RefusesShardsOfTheScalarAndTheLaneRobotForms) {
  const fs::path dir = temp_dir() / "robot_forms";
  fs::create_directories(dir);
  std::vector<std::string> shards;
  for (int k = 0; k < 2; ++k) {
    JobOptions o = job(example("panda_sweep.json"), dir / ("shard" + std::to_string(k) + ".h5"), 16, 0.01, k, 2);
    o.backend = k == 0 ? "cpu" : "cpu-simd";
    const simphant::JobResult r = simphant::run_job(o);
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.summary.at("backend").get<std::string>().rfind(k == 0 ? "reduced-aba (" : "reduced-aba-lanes (", 0), 0u)
        << r.summary.at("backend");
    shards.push_back(o.out);
  }
  const std::string msg = merge_error(dir / "merged.h5", shards);
  EXPECT_NE(msg.find("backend"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reduced-aba-lanes"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(dir / "merged.h5"));
}

/// A pendulum on a grid design of violation_bound: an instance with 1e-300 diverges at its
/// first step, one with 1.0 runs to t_end (0.05 s, a frame every 10 steps of 1 ms).
void write_grid_scene(const fs::path& scene, const std::string& bounds) {
  std::ofstream(scene) << R"({
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "mass": 1.0, "inertia": [0.001, 0.02, 0.02], "position": [0.5, 0, 0]}],
    "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "bob",
                "frame": {"origin": [0, 0, 0], "z": [0, 1, 0], "x": [1, 0, 0]}}],
    "solver": {"dt": 0.001, "t_end": 0.05, "record_every": 10, "violation_bound": 1.0},
    "sweep": {"mode": "grid", "seed": 3, "parameters": [
      {"path": "solver.violation_bound", "dist": "list", "values": )" +
                                 bounds + "}]}}";
}

// Instances 0, 1 and 3 diverge at once, instance 2 does not: shard 0 of 2 holds no
// instance left ok and ends after its first step, as a one-shot run would ("no instance
// alive", exit 3, its frames at t = 0 and at the state it ended on, 1 ms). The merge
// (virtual and copy) equals the one-shot run, status, energy check and root attributes
// included, except that instances 0 and 1 read NaN in the frames after t = 0. The file's
// violation_bound is its first instance's (1e-300 in shard 0, 1 in shard 1): a solver
// setting the sweep varies may differ between shards.
TEST(Merge, GridDesignWithAShardOfDivergedInstances) {
  const fs::path dir = temp_dir() / "grid";
  fs::create_directories(dir);
  const fs::path scene = dir / "grid.json";
  write_grid_scene(scene, "[1e-300, 1e-300, 1.0, 1e-300]");
  EXPECT_EQ(simphant::run_job(job(scene, dir / "one.h5", -1, 0.05, 0, 1, 2)).exit_code, 0);
  const simphant::JobResult r0 = simphant::run_job(job(scene, dir / "s0.h5", -1, 0.05, 0, 2));
  EXPECT_EQ(r0.exit_code, 3);  // none of its own instances ended ok
  EXPECT_EQ(r0.summary.at("stop_reason"), "no instance alive");
  EXPECT_EQ(r0.summary.at("frames"), 2);
  EXPECT_EQ(r0.summary.at("steps"), 1);
  EXPECT_EQ(simphant::run_job(job(scene, dir / "s1.h5", -1, 0.05, 1, 2)).exit_code, 0);
  for (bool copy : {false, true}) {
    SCOPED_TRACE(copy ? "copy" : "virtual");
    MergeOptions m;
    m.out = (dir / (copy ? "copy.h5" : "merged.h5")).string();
    m.shards = {(dir / "s1.h5").string(), (dir / "s0.h5").string()};
    m.copy = copy;
    const nlohmann::json summary = simphant::merge_shards(m);
    EXPECT_EQ(summary.at("frames"), 6);
    EXPECT_GE(expect_same_file(dir / "one.h5", m.out, {"wall_time_s", "start_time", "command_line", "device"},
                               NanFrames{1, 0, 2}),
              10);
    const simphant::h5::Handle f = simphant::h5::open_file_readonly(m.out);
    EXPECT_EQ(simphant::h5::read_doubles(f.id(), "status"), (std::vector<double>{2, 2, 0, 2}));
  }
}

// When every instance of the design diverges, every shard ends as the one-shot run does,
// and the merged file equals it bit for bit ("no instance alive", interrupted = 1).
TEST(Merge, DesignWhoseInstancesAllDiverge) {
  const fs::path dir = temp_dir() / "grid_all";
  fs::create_directories(dir);
  const fs::path scene = dir / "grid.json";
  write_grid_scene(scene, "[1e-300, 1e-300, 1e-300, 1e-300, 1e-300]");
  EXPECT_EQ(simphant::run_job(job(scene, dir / "one.h5", -1, 0.05, 0, 1, 2)).exit_code, 3);
  std::vector<std::string> shards;
  for (int k = 0; k < 2; ++k) {
    shards.push_back((dir / ("s" + std::to_string(k) + ".h5")).string());
    const simphant::JobResult r = simphant::run_job(job(scene, shards.back(), -1, 0.05, k, 2));
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.summary.at("stop_reason"), "no instance alive");
  }
  MergeOptions m;
  m.out = (dir / "merged.h5").string();
  m.shards = shards;
  simphant::merge_shards(m);
  expect_same_file(dir / "one.h5", m.out, {"wall_time_s", "start_time", "command_line", "device"});
  EXPECT_EQ(simphant::h5::attr_text(simphant::h5::open_file_readonly(m.out).id(), "stop_reason"), "no instance alive");
}

TEST(Merge, RefusesBadInputNamingWhatDiffersAndKeepsTheOutput) {
  const fs::path dir = temp_dir() / "bad";
  const fs::path scene = example("four_bar.json");
  const std::vector<std::string> shards = run_one_shot_and_shards(scene, dir, 9, 0.02, 3);
  const fs::path out = dir / "out.h5";
  {
    std::ofstream(out) << "an earlier result";
  }
  auto expect_refused = [&](const std::vector<std::string>& files, std::vector<std::string> words) {
    const std::string msg = merge_error(out, files);
    for (const std::string& w : words) EXPECT_NE(msg.find(w), std::string::npos) << "'" << w << "' not in: " << msg;
    EXPECT_EQ(simphant::test::read_text(out), "an earlier result");
  };
  const fs::path d0 = fs::path(shards[0]), d2 = fs::path(shards[2]);
  expect_refused({shards[0], shards[2]}, {"instances [3, 6) are in no shard given"});
  expect_refused({shards[0], shards[1]}, {"instances [6, 9) are in no shard given"});
  expect_refused({shards[0], shards[1], shards[1], shards[2]}, {"instances [3, 6) are in both"});
  expect_refused({shards[0], shards[1], (dir / "absent.h5").string()}, {"absent.h5", "does not exist"});
  const fs::path text = dir / "text.h5";
  std::ofstream(text) << "not HDF5";
  expect_refused({shards[0], shards[1], text.string()}, {"text.h5", "cannot be read as HDF5"});
  expect_refused({}, {"no shard"});

  // Shards of another seed, scene, t_end or design size.
  JobOptions other = job(scene, dir / "seed.h5", 9, 0.02, 2, 3);
  other.has_seed = true;
  other.seed = 12;
  simphant::run_job(other);
  expect_refused({shards[0], shards[1], other.out}, {"'seed'", "has 11", "has 12"});
  other = job(scene, dir / "t_end.h5", 9, 0.03, 2, 3);
  simphant::run_job(other);
  expect_refused({shards[0], shards[1], other.out}, {"'t_end'", "0.02", "0.03"});
  other = job(scene, dir / "size.h5", 12, 0.02, 2, 3);
  simphant::run_job(other);
  expect_refused({shards[0], shards[1], other.out}, {"n_instances_total", "has 9", "has 12"});
  other = job(example("slider_crank.json"), dir / "scene.h5", 9, 0.02, 2, 3);
  simphant::run_job(other);
  expect_refused({shards[0], shards[1], other.out}, {"'scene'", "differ from character"});
  // Another projection (--projection none), and auto with another threshold (a shard whose
  // first instance started elsewhere; dynamics/auto_projection.hpp).
  other = job(scene, dir / "projection.h5", 9, 0.02, 2, 3);
  other.projection = "none";
  simphant::run_job(other);
  expect_refused({shards[0], shards[1], other.out}, {"'projection'", "has auto", "has none"});
  const fs::path pivot = dir / "pivot.h5";
  fs::copy_file(d2, pivot);
  set_root_attr(pivot, "auto_projection_pivot", 1e-5);
  expect_refused({shards[0], shards[1], pivot.string()}, {"'auto_projection_pivot'", "0.0001", "1e-05"});
  // Another version; a shard that was stopped.
  const fs::path v = dir / "version.h5", stopped = dir / "stopped.h5";
  fs::copy_file(d2, v);
  set_root_attr(v, "version", std::string("0.0.1"));
  expect_refused({shards[0], shards[1], v.string()}, {"'version'", "0.0.1"});
  fs::copy_file(d2, stopped);
  set_root_attr(stopped, "interrupted", 1);
  set_root_attr(stopped, "stop_reason", std::string("signal SIGINT"));
  expect_refused({shards[0], shards[1], stopped.string()}, {"stopped.h5", "did not complete", "signal SIGINT"});
  // OUT as one of the shards.
  EXPECT_NE(merge_error(d0, shards).find("is the shard"), std::string::npos);
  EXPECT_EQ(root_double(d0, "n_instances"), 3.0);
  // OUT left out: the first shard taken for OUT is refused as a shard file, untouched.
  {
    const std::string before = simphant::test::read_text(d0);
    const std::string msg = merge_error(d0, {shards[1], shards[2]});
    EXPECT_NE(msg.find("OUT '" + shards[0] + "' is an existing shard file: give the output file first, e.g. "
                       "simphant merge merged.h5 shard_*.h5"),
              std::string::npos)
        << msg;
    EXPECT_EQ(simphant::test::read_text(d0), before);
  }
  // Shards that differ only in their deflate level merge (as virtual datasets and as a
  // copy) into the one-shot run's data.
  {
    JobOptions packed = job(scene, dir / "packed.h5", 9, 0.02, 2, 3);
    packed.compression = 4;
    ASSERT_EQ(simphant::run_job(packed).exit_code, 0);
    for (bool copy : {false, true}) {
      MergeOptions m;
      m.out = (dir / (copy ? "packed_copy.h5" : "packed_virtual.h5")).string();
      m.shards = {shards[0], shards[1], packed.out};
      m.copy = copy;
      EXPECT_EQ(simphant::merge_shards(m).at("instances"), 9);
      expect_same_file(dir / "one.h5", m.out, {"wall_time_s", "start_time", "command_line", "device"});
    }
  }

  // And the good merge replaces the earlier file.
  MergeOptions m;
  m.out = out.string();
  m.shards = shards;
  simphant::merge_shards(m);
  expect_same_file(dir / "one.h5", out, {"wall_time_s", "start_time", "command_line", "device"});
}

TEST(Merge, CommandLine) {
  const fs::path dir = temp_dir() / "cli";
  fs::create_directories(dir);
  const std::string scene = example("pendulum.json").string();
  auto run = [&](const std::vector<std::string>& args, const std::string& tag) {
    return simphant::test::wait_child(simphant::test::start_simphant(args, dir / (tag + ".out"), dir / (tag + ".err")), 120);
  };
  for (const char* bad : {"3/3", "1/0", "x/2", "1"}) {
    const auto e = run({"run", scene, "--shard", bad, "--out", (dir / "x.h5").string()}, "bad");
    EXPECT_EQ(e.code, 2) << bad;
    EXPECT_NE(simphant::test::read_text(dir / "bad.err").find("--shard"), std::string::npos);
  }
  EXPECT_EQ(run({"run", scene, "-n", "2", "--shard", "2/3", "--out", (dir / "x.h5").string()}, "few").code, 2);
  EXPECT_NE(simphant::test::read_text(dir / "few.err").find("at least one instance"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "x.h5"));
  std::vector<std::string> shards;
  for (int k = 0; k < 2; ++k) {
    shards.push_back((dir / ("s" + std::to_string(k) + ".h5")).string());
    EXPECT_EQ(run({"run", scene, "-n", "5", "--t-end", "0.02", "-j", "1", "--shard", std::to_string(k) + "/2", "--out",
                   shards.back()},
                  "shard")
                  .code,
              0);
  }
  EXPECT_EQ(run({"merge", (dir / "m.h5").string(), shards[0]}, "missing").code, 2);
  EXPECT_NE(simphant::test::read_text(dir / "missing.err").find("instances [2, 5) are in no shard given"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "m.h5"));
  EXPECT_EQ(run({"merge", (dir / "m.h5").string(), shards[1], shards[0], "--copy", "--json"}, "ok").code, 0);
  const nlohmann::json s = nlohmann::json::parse(simphant::test::read_text(dir / "ok.out"));
  EXPECT_EQ(s.at("instances"), 5);
  EXPECT_EQ(s.at("mode"), "copy");
  EXPECT_EQ(root_double(dir / "m.h5", "n_instances"), 5.0);
}
