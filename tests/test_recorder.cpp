// Recorder / h5_file: the HDF5 layout of item 9, read back with the HDF5 C API.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <hdf5.h>

#include "simphant/io/h5_file.hpp"
#include "simphant/io/recorder.hpp"

namespace fs = std::filesystem;
using namespace simphant;

namespace {

fs::path temp_file(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("simphant_test_recorder_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

RecorderInfo make_info(int n, int n_bodies, int n_joints) {
  RecorderInfo info;
  info.n_instances = n;
  for (int b = 0; b < n_bodies; ++b) info.body_names.push_back("body" + std::to_string(b));
  for (int j = 0; j < n_joints; ++j) info.joint_names.push_back("joint" + std::to_string(j));
  info.scene_text = "{\"name\": \"test\"}";
  info.scene_file = "test.json";
  info.solver.dt = 0.002;
  info.solver.t_end = 1.5;
  info.solver.record_every = 5;
  info.backend = "cpu";
  info.seed = 42;
  return info;
}

/// Frame f, instance k, entry e: a value that identifies all three.
double value(int f, std::size_t flat) { return 1000.0 * f + static_cast<double>(flat); }

void record_frames(Recorder& rec, int frames, int n, int B, int J) {
  for (int f = 0; f < frames; ++f) {
    std::vector<double> states(static_cast<std::size_t>(n) * B * 13), reactions(static_cast<std::size_t>(n) * J * 6),
        violation(n), energy(n);
    for (std::size_t i = 0; i < states.size(); ++i) states[i] = value(f, i);
    for (std::size_t i = 0; i < reactions.size(); ++i) reactions[i] = -value(f, i);
    for (int k = 0; k < n; ++k) {
      violation[k] = 1e-12 * (f + 1) * (k + 1);
      energy[k] = 10.0 + f + 0.5 * k;
    }
    rec.record(0.01 * f, states.data(), reactions.data(), violation.data(), energy.data());
  }
}

}  // namespace

TEST(Recorder, WritesTheLayoutAndReadsBack) {
  const int n = 3, B = 2, J = 1, T = 4;
  const fs::path path = temp_file("layout.h5");
  {
    Recorder rec(path.string(), make_info(n, B, J));
    rec.write_params({"bodies.body0.mass", "joints.joint0.frame.origin[0]"}, {{1.0, 1.1, 1.2}, {0.3, 0.31, 0.32}});
    record_frames(rec, T, n, B, J);
    EXPECT_EQ(rec.frames(), T);
    const std::vector<std::int8_t> status{0, 1, 2};
    const std::vector<double> status_time{0.0, 0.0, 0.02};
    const std::vector<std::int8_t> reason{0, 5, 3};
    rec.finalize(status.data(), status_time.data(), reason.data(), 1.25, "completed");
  }
  h5::Handle f = h5::open_file_readonly(path.string());
  EXPECT_EQ(h5::dataset_dims(f.id(), "time"), (std::vector<hsize_t>{T}));
  EXPECT_EQ(h5::dataset_dims(f.id(), "state"), (std::vector<hsize_t>{T, n, B, 13}));
  EXPECT_EQ(h5::dataset_dims(f.id(), "reactions"), (std::vector<hsize_t>{T, n, J, 6}));
  EXPECT_EQ(h5::dataset_dims(f.id(), "constraint_violation"), (std::vector<hsize_t>{T, n}));
  EXPECT_EQ(h5::dataset_dims(f.id(), "energy"), (std::vector<hsize_t>{T, n}));
  EXPECT_EQ(h5::dataset_dims(f.id(), "status"), (std::vector<hsize_t>{n}));
  EXPECT_EQ(h5::dataset_dims(f.id(), "status_time"), (std::vector<hsize_t>{n}));

  const auto time = h5::read_doubles(f.id(), "time");
  for (int t = 0; t < T; ++t) EXPECT_DOUBLE_EQ(time[t], 0.01 * t);
  const auto state = h5::read_doubles(f.id(), "state");
  const std::size_t per_frame = static_cast<std::size_t>(n) * B * 13;
  for (int t = 0; t < T; ++t)
    for (std::size_t i = 0; i < per_frame; ++i) ASSERT_DOUBLE_EQ(state[t * per_frame + i], value(t, i));
  const auto reactions = h5::read_doubles(f.id(), "reactions");
  EXPECT_DOUBLE_EQ(reactions[1 * n * J * 6 + 7], -value(1, 7));
  const auto energy = h5::read_doubles(f.id(), "energy");
  EXPECT_DOUBLE_EQ(energy[2 * n + 1], 12.5);

  // /status is int8 in the file.
  {
    h5::Handle d(H5Dopen2(f.id(), "status", H5P_DEFAULT), H5Dclose);
    ASSERT_TRUE(d.valid());
    h5::Handle t(H5Dget_type(d.id()), H5Tclose);
    EXPECT_EQ(H5Tget_size(t.id()), 1u);
    std::vector<std::int8_t> status(n);
    ASSERT_GE(H5Dread(d.id(), H5T_NATIVE_INT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, status.data()), 0);
    EXPECT_EQ(status, (std::vector<std::int8_t>{0, 1, 2}));
  }
  EXPECT_DOUBLE_EQ(h5::read_doubles(f.id(), "status_time")[2], 0.02);
  // /status_reason is int8 too, with the names of its codes (7) as an attribute.
  {
    h5::Handle d(H5Dopen2(f.id(), "status_reason", H5P_DEFAULT), H5Dclose);
    ASSERT_TRUE(d.valid());
    std::vector<std::int8_t> reason(n);
    ASSERT_GE(H5Dread(d.id(), H5T_NATIVE_INT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, reason.data()), 0);
    EXPECT_EQ(reason, (std::vector<std::int8_t>{0, 5, 3}));
    h5::Handle a(H5Aopen(d.id(), "codes", H5P_DEFAULT), H5Aclose);
    ASSERT_TRUE(a.valid());
    h5::Handle space(H5Aget_space(a.id()), H5Sclose);
    ASSERT_EQ(H5Sget_simple_extent_npoints(space.id()), 7);
    h5::Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.id(), H5T_VARIABLE);
    H5Tset_cset(type.id(), H5T_CSET_UTF8);
    std::vector<char*> names(7, nullptr);
    ASSERT_GE(H5Aread(a.id(), type.id(), names.data()), 0);
    EXPECT_STREQ(names[0], "none");
    EXPECT_STREQ(names[3], "runaway");
    EXPECT_STREQ(names[5], "assembly_failure");
    EXPECT_STREQ(names[6], "step_size_underflow");
    h5::Handle mem_space(H5Aget_space(a.id()), H5Sclose);
    H5Dvlen_reclaim(type.id(), mem_space.id(), H5P_DEFAULT, names.data());
  }

  h5::Handle params(H5Gopen2(f.id(), "params", H5P_DEFAULT), H5Gclose);
  ASSERT_TRUE(params.valid());
  EXPECT_EQ(h5::read_doubles(params.id(), "bodies.body0.mass"), (std::vector<double>{1.0, 1.1, 1.2}));
  EXPECT_EQ(h5::read_doubles(params.id(), "joints.joint0.frame.origin[0]"), (std::vector<double>{0.3, 0.31, 0.32}));

  EXPECT_EQ(h5::read_attr_string(f.id(), "scene"), "{\"name\": \"test\"}");
  EXPECT_EQ(h5::read_attr_string(f.id(), "backend"), "cpu");
  EXPECT_EQ(h5::read_attr_string(f.id(), "version"), SIMPHANT_VERSION);
  EXPECT_DOUBLE_EQ(h5::read_attr_double(f.id(), "dt"), 0.002);
  EXPECT_DOUBLE_EQ(h5::read_attr_double(f.id(), "t_end"), 1.5);
  EXPECT_DOUBLE_EQ(h5::read_attr_double(f.id(), "record_every"), 5);
  EXPECT_DOUBLE_EQ(h5::read_attr_double(f.id(), "seed"), 42);
  EXPECT_DOUBLE_EQ(h5::read_attr_double(f.id(), "n_instances"), n);
  EXPECT_DOUBLE_EQ(h5::read_attr_double(f.id(), "wall_time_s"), 1.25);
  EXPECT_DOUBLE_EQ(h5::read_attr_double(f.id(), "interrupted"), 0);
  EXPECT_DOUBLE_EQ(h5::read_attr_double(f.id(), "frames"), T);
  EXPECT_EQ(h5::read_attr_string(f.id(), "projection"), "auto");  // solver.projection's default
  for (const char* a : {"baumgarte_alpha", "baumgarte_beta", "tikhonov_epsilon", "violation_bound", "scene_file",
                        "body_names", "joint_names"})
    EXPECT_TRUE(h5::attr_exists(f.id(), a)) << a;

  // body_names: a (B) array of variable-length strings.
  h5::Handle attr(H5Aopen(f.id(), "body_names", H5P_DEFAULT), H5Aclose);
  h5::Handle space(H5Aget_space(attr.id()), H5Sclose);
  EXPECT_EQ(H5Sget_simple_extent_npoints(space.id()), B);
  f.reset();
  fs::remove(path);
}

TEST(Recorder, NoJointsGivesAnEmptyJointDimension) {
  const fs::path path = temp_file("no_joints.h5");
  {
    Recorder rec(path.string(), make_info(2, 1, 0));
    record_frames(rec, 3, 2, 1, 0);
    const std::vector<std::int8_t> status{0, 0};
    const std::vector<double> status_time{0, 0};
    rec.finalize(status.data(), status_time.data(), status.data(), 0.1, "signal SIGINT");
  }
  h5::Handle f = h5::open_file_readonly(path.string());
  EXPECT_EQ(h5::dataset_dims(f.id(), "reactions"), (std::vector<hsize_t>{3, 2, 0, 6}));
  EXPECT_EQ(h5::dataset_dims(f.id(), "state"), (std::vector<hsize_t>{3, 2, 1, 13}));
  EXPECT_DOUBLE_EQ(h5::read_attr_double(f.id(), "interrupted"), 1);
  f.reset();
  fs::remove(path);
}

TEST(Recorder, FileIsValidWithoutFinalize) {
  // A writer that stops between two frames (destroyed without finalize, as at SIGKILL)
  // leaves every T dataset with the same number of frames: the first frame (written at
  // once) and the whole chunks written so far; the buffered frames are lost. flush()
  // writes them.
  const fs::path path = temp_file("unfinished.h5");
  for (const bool flushed : {false, true}) {
    SCOPED_TRACE(flushed ? "flushed" : "not flushed");
    hsize_t K = 0;
    {
      Recorder rec(path.string(), make_info(4, 2, 2));
      K = rec.chunk_frames();
      record_frames(rec, 7, 4, 2, 2);
      EXPECT_EQ(rec.frames(), 7);
      if (flushed) rec.flush();
    }
    ASSERT_EQ(K, Recorder::kMaxChunkFrames);  // 4 x 2 x 13 doubles per frame: the cap
    h5::Handle f = h5::open_file_readonly(path.string());
    const auto t = h5::dataset_dims(f.id(), "time");
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0], flushed ? 7u : 1u);
    for (const char* name : {"state", "reactions", "constraint_violation", "energy"})
      EXPECT_EQ(h5::dataset_dims(f.id(), name)[0], t[0]) << name;
    EXPECT_DOUBLE_EQ(h5::read_attr_double(f.id(), "frames"), static_cast<double>(t[0]));
    EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "running");
    f.reset();
    fs::remove(path);
  }
}

// Frames are written a chunk at a time, aligned to the chunks: with K frames per chunk,
// the file holds 1 + m K frames after 1 + m K + r records (r < K), and every T dataset
// the same count; finalize() writes the rest.
TEST(Recorder, WritesWholeChunksAndFinalizeWritesTheRest) {
  // 20 instances x 20 bodies x 13 doubles = 41.6 kB per frame: K = 1 MiB / 41.6 kB = 25.
  const int n = 20, B = 20, J = 1;
  const fs::path path = temp_file("chunks.h5");
  {
    Recorder rec(path.string(), make_info(n, B, J));
    const hsize_t K = rec.chunk_frames();
    ASSERT_EQ(K, (std::uint64_t{1} << 20) / (8u * n * B * 13));
    record_frames(rec, static_cast<int>(2 * K + 3), n, B, J);  // frames 0 .. 2K+2
    {
      // HDF5 1.10 opens a file that another handle of this process writes only with the
      // same flags: read it through a second read-write open.
      const h5::Handle f = h5::open_file_readwrite(path.string());
      EXPECT_EQ(h5::dataset_dims(f.id(), "time")[0], 2 * K);  // frame 0 alone, then [1, K), [K, 2K)
      EXPECT_EQ(h5::dataset_dims(f.id(), "state")[0], 2 * K);
    }
    const std::vector<std::int8_t> status(n, 0);
    const std::vector<double> status_time(n, 0.0);
    rec.finalize(status.data(), status_time.data(), status.data(), 1.0, "completed");
  }
  const h5::Handle f = h5::open_file_readonly(path.string());
  const auto state = h5::read_doubles(f.id(), "state");
  const std::size_t per_frame = static_cast<std::size_t>(n) * B * 13;
  const std::size_t T = h5::dataset_dims(f.id(), "time")[0];
  ASSERT_EQ(state.size(), T * per_frame);
  for (std::size_t t = 0; t < T; ++t) ASSERT_EQ(state[t * per_frame + 5], value(static_cast<int>(t), 5)) << t;
  EXPECT_DOUBLE_EQ(h5::read_attr_double(f.id(), "frames"), static_cast<double>(T));
}

// Frames recorded more than kFlushSeconds after the last write are written at the next
// record(): a killed run loses at most the frames of the last second (and fewer than K).
TEST(Recorder, BufferedFramesAreWrittenAfterASecond) {
  const fs::path path = temp_file("late.h5");
  {
    Recorder rec(path.string(), make_info(2, 1, 1));
    record_frames(rec, 3, 2, 1, 1);  // frame 0 written, 1 and 2 buffered
    const auto frames_in_file = [&] {
      const h5::Handle f = h5::open_file_readwrite(path.string());
      return h5::dataset_dims(f.id(), "time")[0];
    };
    EXPECT_EQ(frames_in_file(), 1u);
    std::this_thread::sleep_for(std::chrono::duration<double>(Recorder::kFlushSeconds + 0.05));
    record_frames(rec, 1, 2, 1, 1);
    EXPECT_EQ(frames_in_file(), 4u);
  }
  fs::remove(path);
}

TEST(Recorder, LargeFramesAreChunkedAlongInstances) {
  // 20000 instances x 4 bodies x 13 doubles = 8.3 MB per frame: more than one chunk.
  const int n = 20000, B = 4, J = 3;
  const fs::path path = temp_file("large.h5");
  {
    Recorder rec(path.string(), make_info(n, B, J));
    record_frames(rec, 2, n, B, J);
  }
  h5::Handle f = h5::open_file_readonly(path.string());
  EXPECT_EQ(h5::dataset_dims(f.id(), "state"), (std::vector<hsize_t>{2, n, B, 13}));
  const auto state = h5::read_doubles(f.id(), "state");
  const std::size_t per_frame = static_cast<std::size_t>(n) * B * 13;
  EXPECT_DOUBLE_EQ(state[per_frame + per_frame - 1], value(1, per_frame - 1));
  f.reset();
  fs::remove(path);
}

TEST(Recorder, UnwritablePathThrows) {
  EXPECT_THROW(Recorder("/nonexistent-dir-simphant/out.h5", make_info(1, 1, 0)), h5::H5Error);
}

TEST(H5File, AttributesAreReplaced) {
  const fs::path path = temp_file("attrs.h5");
  {
    h5::Handle f = h5::create_file(path.string());
    h5::write_attr(f.id(), "x", 1.0);
    h5::write_attr(f.id(), "x", 2.0);            // same type: in place
    h5::write_attr(f.id(), "x", std::string("three"));  // other type: replaced
    h5::write_attr(f.id(), "names", std::vector<std::string>{"a", "bb"});
    EXPECT_EQ(h5::read_attr_string(f.id(), "x"), "three");
  }
  h5::Handle f = h5::open_file_readonly(path.string());
  EXPECT_EQ(h5::read_attr_string(f.id(), "x"), "three");
  EXPECT_TRUE(h5::attr_exists(f.id(), "names"));
  EXPECT_FALSE(h5::attr_exists(f.id(), "missing"));
  EXPECT_THROW(h5::open_file_readonly((path.parent_path() / "missing.h5").string()), h5::H5Error);
  f.reset();
  fs::remove(path);
}

// Continuing a file (a resumed run, job/checkpoint.hpp): the frames after the given
// count are dropped, the next record() appends after them, and the file says "running"
// until finalize(); a count beyond the file's frames is refused.
TEST(Recorder, ContinuesAFileAfterItsFirstFrames) {
  const int n = 3, B = 2, J = 1;
  const fs::path path = temp_file("continued.h5");
  {
    Recorder rec(path.string(), make_info(n, B, J));
    record_frames(rec, 4, n, B, J);
    std::vector<std::int8_t> status(n, 0);
    std::vector<double> status_time(n, 0.0);
    rec.finalize(status.data(), status_time.data(), status.data(), 1.0, "signal SIGINT");
  }
  {
    Recorder rec(path.string(), make_info(n, B, J), 2);
    EXPECT_EQ(rec.frames(), 2);
    {
      const h5::Handle f = h5::open_file_readonly(path.string());
      EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "running");
      EXPECT_EQ(h5::read_attr_double(f.id(), "interrupted"), 1.0);
    }
    // Frame 2 again, with the values of frame 7, so that a kept old frame 2 would show.
    std::vector<double> states(static_cast<std::size_t>(n) * B * 13), reactions(static_cast<std::size_t>(n) * J * 6),
        violation(n, 0.0), energy(n, 0.0);
    for (std::size_t i = 0; i < states.size(); ++i) states[i] = value(7, i);
    rec.record(0.07, states.data(), reactions.data(), violation.data(), energy.data());
    std::vector<std::int8_t> status(n, 0);
    std::vector<double> status_time(n, 0.0);
    rec.finalize(status.data(), status_time.data(), status.data(), 2.0, "completed");
  }
  const h5::Handle f = h5::open_file_readonly(path.string());
  for (const char* name : {"time", "state", "reactions", "constraint_violation", "energy"})
    EXPECT_EQ(h5::dataset_dims(f.id(), name).at(0), 3u) << name;
  const std::vector<double> time = h5::read_doubles(f.id(), "time");
  EXPECT_EQ(time, (std::vector<double>{0.0, 0.01, 0.07}));
  const std::vector<double> state = h5::read_doubles(f.id(), "state");
  const std::size_t frame = static_cast<std::size_t>(n) * B * 13;
  EXPECT_EQ(state[frame + 5], value(1, 5));
  EXPECT_EQ(state[2 * frame + 5], value(7, 5));
  EXPECT_EQ(h5::read_attr_double(f.id(), "frames"), 3.0);
  EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "completed");
  EXPECT_THROW(Recorder(path.string(), make_info(n, B, J), 4), h5::H5Error);        // holds 3
  EXPECT_THROW(Recorder(path.string(), make_info(n, B + 1, J), 2), h5::H5Error);    // another frame shape
}
