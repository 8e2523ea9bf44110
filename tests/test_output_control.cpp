// Output control (docs/scene-format.md "Output", io/recorder.hpp): the scene's "output"
// section and the run flags that override it, the datasets selected, frames every /
// first_last / none, deflate compression, dimension scales and units, provenance, a
// run stopped by SIGINT with frames in the buffer, and resume / merge with these layouts.
// Every file is read back with the h5 helpers and compared with an every-frame run.
#include <signal.h>

#include <cstring>
#include <functional>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "h5_compare.hpp"
#include "process_support.hpp"
#include "temp_dir.hpp"
#include "simphant/io/h5_dims.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/io/h5_objects.hpp"
#include "simphant/job/merge.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/scene/scene.hpp"

namespace fs = std::filesystem;
namespace h5 = simphant::h5;
using nlohmann::json;
using namespace simphant;
using namespace simphant::test;

namespace {

const fs::path& temp_dir() {
  static const fs::path dir = make_process_temp_dir("output_control");
  return dir;
}

const std::string kSliderCrank = std::string(SIMPHANT_SOURCE_DIR) + "/examples/slider_crank.json";

json slider_crank() {
  std::ifstream in(kSliderCrank);
  return json::parse(in);
}

fs::path write_scene(const std::string& name, const json& doc) {
  const fs::path p = temp_dir() / name;
  std::ofstream(p) << doc.dump(2);
  return p;
}

/// A short slider-crank run through the library: 4 instances, 0.1 s (200 steps, 6 frames
/// at record_every 40).
JobResult run(const fs::path& out, const std::function<void(JobOptions&)>& tweak = {}, const json& doc = slider_crank()) {
  JobOptions o;
  o.scene = kSliderCrank;
  o.scene_text = doc.dump();
  o.out = out.string();
  o.instances = 4;
  o.has_t_end = true;
  o.t_end = 0.1;
  o.threads = 1;
  o.checkpoint_every_s = 0;
  if (tweak) tweak(o);
  return run_job(o);
}

std::set<std::string> dataset_paths(const fs::path& file) {
  const h5::Handle f = h5::open_file_readonly(file.string());
  std::set<std::string> out;
  for (const h5::ObjectEntry& e : h5::list_objects(f.id()))
    if (!e.group) out.insert(e.path);
  return out;
}

/// The frames [first, first + count) of a T dataset as doubles.
std::vector<double> frames_of(const fs::path& file, const std::string& path, hsize_t first, hsize_t count) {
  const h5::Handle f = h5::open_file_readonly(file.string());
  const h5::DatasetShape shape = h5::dataset_shape(f.id(), path);
  std::vector<hsize_t> start(shape.dims.size(), 0), n = shape.dims;
  start[0] = first;
  n[0] = count;
  const h5::Handle d(H5Dopen2(f.id(), path.c_str(), H5P_DEFAULT), H5Dclose);
  std::vector<unsigned char> bytes;
  h5::read_block(d.id(), shape, start, n, bytes);
  std::vector<double> out(bytes.size() / sizeof(double));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

const std::vector<std::string> kFrameDatasets = {"time", "state", "reactions", "constraint_violation", "energy"};

}  // namespace

TEST(OutputSettings, ParsedFromTheSceneWithErrorsNamingThePath) {
  json doc = slider_crank();
  EXPECT_EQ(parse_scene(doc.dump()).model.output.datasets, frame_dataset_names());  // the defaults
  EXPECT_EQ(parse_scene(doc.dump()).model.output.frames, FrameSelection::Every);
  EXPECT_TRUE(parse_scene(doc.dump()).model.output.reductions.empty());
  EXPECT_EQ(parse_scene(doc.dump()).model.output.compression, 0);

  doc["output"] = {{"datasets", {"energy", "state"}}, {"frames", "first_last"}, {"reductions", "all"}, {"compression", 6}};
  const OutputSettings s = parse_scene(doc.dump()).model.output;
  EXPECT_EQ(s.datasets, (std::vector<std::string>{"state", "energy"}));  // in the file's order
  EXPECT_EQ(s.frames, FrameSelection::FirstLast);
  EXPECT_EQ(s.reductions, reduction_names());
  EXPECT_EQ(s.compression, 6);
  doc["output"] = {{"reductions", {"energy", "joint_loads"}}};
  EXPECT_EQ(parse_scene(doc.dump()).model.output.reductions, (std::vector<std::string>{"joint_loads", "energy"}));

  const auto error_of = [&](const json& output) {
    json d = slider_crank();
    d["output"] = output;
    try {
      parse_scene(d.dump());
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string unknown = error_of({{"datasets", {"state", "velocities"}}});
  EXPECT_EQ(unknown.rfind("/output/datasets/1: unknown dataset \"velocities\" (valid: state, reactions,", 0), 0u) << unknown;
  EXPECT_NE(unknown.find("bearing_loads, contacts, contact_impulses, state_sensitivities, reaction_sensitivities, joint_load_sensitivities, "
                         "bearing_load_sensitivities, driver_load_sensitivities, energy_sensitivities, joint_state_sensitivities)"), std::string::npos) << unknown;
  EXPECT_EQ(error_of({{"datasets", {"state", "state"}}}), "/output/datasets/1: \"state\" is listed twice");
  EXPECT_EQ(error_of({{"compression", 10}}), "/output/compression: must be a deflate level 0..9 (0: none; got 10)");
  EXPECT_EQ(error_of({{"compression", -1}}), "/output/compression: must be a deflate level 0..9 (0: none; got -1)");
  EXPECT_EQ(error_of({{"compression", 2.5}}), "/output/compression: must be an integer (got 2.5)");
  EXPECT_EQ(error_of({{"frames", "last"}}), "/output/frames: must be one of every, first_last, none (got \"last\")");
  EXPECT_NE(error_of({{"reductions", "some"}}).find("/output/reductions: must be \"none\", \"all\" or a list"),
            std::string::npos);
  EXPECT_NE(error_of({{"reductions", {"energy", "speed"}}}).find("/output/reductions/1: unknown quantity \"speed\""),
            std::string::npos);
  EXPECT_NE(error_of({{"datasets", "state"}}).find("/output/datasets: must be an array"), std::string::npos);
  EXPECT_NE(error_of({{"level", 3}}).find("/output/level: unknown key"), std::string::npos);
}

TEST(OutputSettings, FlagsOverrideTheSceneAndNameThemselves) {
  json doc = slider_crank();
  doc["output"] = {{"frames", "none"}, {"compression", 2}};
  apply_output_flags(doc, "energy, state", "every", "none", 9);
  const OutputSettings s = parse_scene(doc.dump()).model.output;
  EXPECT_EQ(s.datasets, (std::vector<std::string>{"state", "energy"}));
  EXPECT_EQ(s.frames, FrameSelection::Every);
  EXPECT_EQ(s.compression, 9);
  apply_output_flags(doc, "", "", "reactions,energy", std::nullopt);  // only the given ones change
  EXPECT_EQ(parse_scene(doc.dump()).model.output.reductions, (std::vector<std::string>{"reactions", "energy"}));
  EXPECT_EQ(parse_scene(doc.dump()).model.output.compression, 9);

  const auto error_of = [&](const std::string& datasets, const std::string& frames, const std::string& reductions,
                            std::optional<int> compression) {
    json d = slider_crank();
    try {
      apply_output_flags(d, datasets, frames, reductions, compression);
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("state,speed", "", "", std::nullopt).rfind("--datasets: unknown dataset \"speed\" (valid: state,", 0), 0u);
  EXPECT_EQ(error_of("state,,energy", "", "", std::nullopt),
            "--datasets: an empty name in the list 'state,,energy' (names separated by commas)");
  EXPECT_EQ(error_of("", "most", "", std::nullopt), "--frames: must be one of every, first_last, none (got \"most\")");
  EXPECT_EQ(error_of("", "", "energy,x", std::nullopt).rfind("--reductions: unknown quantity \"x\"", 0), 0u);
  EXPECT_EQ(error_of("", "", "", 12), "--compression: must be a deflate level 0..9 (0: none; got 12)");
  // -1 is a level like any other: refused, not taken as "the scene's".
  EXPECT_EQ(error_of("", "", "", -1), "--compression: must be a deflate level 0..9 (0: none; got -1)");
}

// Selected datasets only; every dataset's axes named by dimension scales and a units
// attribute on each; the coordinates' labels; the provenance attributes.
TEST(OutputFile, DatasetsDimensionsUnitsAndProvenance) {
  const fs::path all = temp_dir() / "all.h5", some = temp_dir() / "some.h5";
  ASSERT_EQ(run(all, [](JobOptions& o) {
              o.command_line = "simphant run slider_crank.json";
              o.git_commit = "abc123";
            }).exit_code, 0);
  ASSERT_EQ(run(some, [](JobOptions& o) { o.datasets = "energy,state"; }).exit_code, 0);

  const std::set<std::string> present = dataset_paths(all), selected = dataset_paths(some);
  for (const std::string& d : kFrameDatasets) EXPECT_EQ(present.count(d), 1u) << d;
  for (const char* d : {"time", "state", "energy"}) EXPECT_EQ(selected.count(d), 1u) << d;
  for (const char* d : {"reactions", "constraint_violation"}) EXPECT_EQ(selected.count(d), 0u) << d;
  EXPECT_EQ(frames_of(all, "state", 0, 6), frames_of(some, "state", 0, 6));

  const h5::Handle f = h5::open_file_readonly(all.string());
  using V = std::vector<std::string>;
  EXPECT_EQ(h5::dimension_names(f.id(), "state"), (V{"time", "instance", "body", "state_component"}));
  EXPECT_EQ(h5::dimension_names(f.id(), "reactions"), (V{"time", "instance", "joint", "reaction_component"}));
  EXPECT_EQ(h5::dimension_names(f.id(), "energy"), (V{"time", "instance"}));
  EXPECT_EQ(h5::dimension_names(f.id(), "time"), (V{"time"}));
  EXPECT_EQ(h5::read_strings(f.id(), "body"), (V{"crank", "conrod", "piston"}));
  EXPECT_EQ(h5::read_strings(f.id(), "state_component")[10], "omega_x");
  EXPECT_EQ(h5::read_doubles(f.id(), "instance"), (std::vector<double>{0, 1, 2, 3}));
  // Every dataset: each axis named, and units (sweep parameters of known keys).
  for (const std::string& path : present) {
    SCOPED_TRACE(path);
    for (const std::string& n : h5::dimension_names(f.id(), path)) EXPECT_FALSE(n.empty());
    const h5::Handle d(H5Dopen2(f.id(), path.c_str(), H5P_DEFAULT), H5Dclose);
    // Labels (string coordinates: body, joint, the component names) have no units; an
    // actuator's value is a force or a torque (its kind).
    const h5::Handle type(H5Dget_type(d.id()), H5Tclose);
    const bool labels = H5Tget_class(type.id()) == H5T_STRING;
    if (!labels && path != "params/forces.motor.value") {
      EXPECT_TRUE(h5::attr_exists(d.id(), "units"));
    }
  }
  const auto units = [&](const std::string& path) {
    const h5::Handle d(H5Dopen2(f.id(), path.c_str(), H5P_DEFAULT), H5Dclose);
    return h5::attr_text(d.id(), "units");
  };
  EXPECT_EQ(units("time"), "s");
  EXPECT_EQ(units("energy"), "J");
  EXPECT_EQ(units("reactions"), "['N', 'N', 'N', 'N m', 'N m', 'N m']");
  EXPECT_EQ(units("state"), "['m', 'm', 'm', '1', '1', '1', '1', 'm/s', 'm/s', 'm/s', 'rad/s', 'rad/s', 'rad/s']");
  EXPECT_EQ(units("params/bodies.piston.mass"), "kg");
  EXPECT_EQ(units("params/forces.gas_load.force[0]"), "N");
  EXPECT_EQ(units("assembly/orientation_change"), "rad");
  EXPECT_EQ(units("status_time"), "s");

  EXPECT_EQ(h5::read_attr_string(f.id(), "command_line"), "simphant run slider_crank.json");
  EXPECT_EQ(h5::read_attr_string(f.id(), "git_commit"), "abc123");
  EXPECT_FALSE(h5::read_attr_string(f.id(), "host").empty());
  EXPECT_EQ(h5::read_attr_string(f.id(), "device").rfind("cpu, 1 thread", 0), 0u);
  const std::string start = h5::read_attr_string(f.id(), "start_time");  // 2026-12-01T12:00:00Z
  ASSERT_EQ(start.size(), 20u) << start;
  EXPECT_EQ(start[4], '-');
  EXPECT_EQ(start[10], 'T');
  EXPECT_EQ(start[19], 'Z');
  EXPECT_EQ(h5::read_attr_string(f.id(), "output_frames"), "every");
  EXPECT_EQ(h5::attr_text(f.id(), "output_compression"), "0");
}

// "first_last": the first and the final frame, equal bit for bit to those of the
// every-frame run; "none": no T dataset, the rest written.
TEST(OutputFile, FirstLastAndNoFrames) {
  const fs::path every = temp_dir() / "every.h5", ends = temp_dir() / "first_last.h5", none = temp_dir() / "none.h5";
  ASSERT_EQ(run(every).exit_code, 0);
  json doc = slider_crank();
  doc["output"] = {{"frames", "first_last"}};
  const JobResult r = run(ends, {}, doc);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.summary.at("frames"), 2);
  const hsize_t T = h5::dataset_dims(h5::open_file_readonly(every.string()).id(), "time")[0];
  ASSERT_EQ(T, 6u);
  for (const std::string& d : kFrameDatasets) {
    SCOPED_TRACE(d);
    EXPECT_EQ(h5::dataset_dims(h5::open_file_readonly(ends.string()).id(), d)[0], 2u);
    EXPECT_EQ(frames_of(ends, d, 0, 1), frames_of(every, d, 0, 1));
    EXPECT_EQ(frames_of(ends, d, 1, 1), frames_of(every, d, T - 1, 1));
  }

  ASSERT_EQ(run(none, [](JobOptions& o) { o.frames = "none"; }).exit_code, 0);
  const std::set<std::string> paths = dataset_paths(none);
  for (const std::string& d : kFrameDatasets) EXPECT_EQ(paths.count(d), 0u) << d;
  for (const char* d : {"status", "status_time", "status_reason", "params/bodies.piston.mass",
                        "assembly/position_residual", "instance", "body"})
    EXPECT_EQ(paths.count(d), 1u) << d;
  const h5::Handle f = h5::open_file_readonly(none.string());
  EXPECT_EQ(h5::read_attr_int64(f.id(), "frames"), 0);
  EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "completed");
  EXPECT_EQ(h5::dimension_names(f.id(), "status"), std::vector<std::string>{"instance"});
}

// Deflate: a compressible run (identical instances, many frames) shrinks; the values
// read back exactly; the filters are on the T datasets.
// A t_end that is not a whole number of steps: the root attribute t_end keeps the
// requested value, t_end_simulated is the time the run stepped to (its last frame).
// The constraint violation's units are the same honest string in both places.
TEST(OutputFile, SimulatedEndTimeAndViolationUnits) {
  const fs::path out = temp_dir() / "t_end.h5";
  // dt 0.0005 s (the scene's): 0.10015 s is 200.3 steps, run as 200 steps to 0.1 s.
  ASSERT_EQ(run(out, [](JobOptions& o) {
              o.t_end = 0.10015;
              o.reductions = "constraint_violation";
            }).exit_code,
            0);
  const h5::Handle f = h5::open_file_readonly(out.string());
  EXPECT_EQ(h5::read_attr_double(f.id(), "t_end"), 0.10015);
  EXPECT_EQ(h5::read_attr_double(f.id(), "t_end_simulated"), 200 * 0.0005);
  EXPECT_EQ(h5::read_doubles(f.id(), "time").back(), 200 * 0.0005);
  const std::string units = "m or 1 (max over position rows [m] and orientation rows [1])";
  const h5::Handle d(H5Dopen2(f.id(), "constraint_violation", H5P_DEFAULT), H5Dclose);
  EXPECT_EQ(h5::read_attr_string(d.id(), "units"), units);
  const h5::Handle g(H5Gopen2(f.id(), "reductions/constraint_violation", H5P_DEFAULT), H5Gclose);
  EXPECT_EQ(h5::attr_text(g.id(), "units"), "['" + units + "']");
}

TEST(OutputFile, CompressionShrinksAndRoundTripsExactly) {
  json doc = slider_crank();
  doc.erase("sweep");  // identical instances: compressible across the instance axis
  doc["solver"]["record_every"] = 1;
  const fs::path plain = temp_dir() / "plain.h5", packed = temp_dir() / "packed.h5";
  const auto tweak = [](int level) {
    return [level](JobOptions& o) {
      o.instances = 16;
      o.t_end = 0.25;
      o.compression = level;
    };
  };
  ASSERT_EQ(run(plain, tweak(0), doc).exit_code, 0);
  ASSERT_EQ(run(packed, tweak(6), doc).exit_code, 0);
  const auto plain_bytes = fs::file_size(plain), packed_bytes = fs::file_size(packed);
  // 501 frames x 16 x (3 x 13 + 4 x 6 + 2) doubles = 4.2 MB raw; measured 5.3 MB vs 0.21 MB (identical
  // instances: shuffle + deflate find the repeats along the instance axis).
  EXPECT_LT(packed_bytes * 4, plain_bytes) << packed_bytes << " vs " << plain_bytes;
  EXPECT_TRUE(file_differences(plain.string(), packed.string(), {"/@wall_time_s", "/@start_time", "/@output_compression"})
                  .empty());
  const h5::Handle f = h5::open_file_readonly(packed.string());
  const h5::Handle d(H5Dopen2(f.id(), "state", H5P_DEFAULT), H5Dclose);
  const h5::Handle dcpl(H5Dget_create_plist(d.id()), H5Pclose);
  ASSERT_EQ(H5Pget_nfilters(dcpl.id()), 2);
  unsigned flags = 0, values[4] = {};
  std::size_t n_values = 4;
  EXPECT_EQ(H5Pget_filter2(dcpl.id(), 0, &flags, &n_values, values, 0, nullptr, nullptr), H5Z_FILTER_SHUFFLE);
  n_values = 4;
  EXPECT_EQ(H5Pget_filter2(dcpl.id(), 1, &flags, &n_values, values, 0, nullptr, nullptr), H5Z_FILTER_DEFLATE);
  EXPECT_EQ(values[0], 6u);
  hsize_t chunk[4] = {};
  ASSERT_EQ(H5Pget_chunk(dcpl.id(), 4, chunk), 4);
  EXPECT_EQ(chunk[0], (1u << 20) / (8u * 16 * 3 * 13));  // the largest frame, /state: 5 kB; 210 frames a chunk
  EXPECT_EQ(chunk[1], 16u);
}

// The CLI: the flags override the scene; bad values exit 2 naming the field.
TEST(OutputFile, CommandLineOverridesAndBadValues) {
  json doc = slider_crank();
  doc["output"] = {{"frames", "none"}, {"datasets", {"state"}}};
  doc["solver"]["t_end"] = 0.05;
  doc["sweep"]["instances"] = 2;
  const fs::path scene = write_scene("cli.json", doc), out = temp_dir() / "cli.h5";
  const auto run_cli = [&](std::vector<std::string> args, const std::string& tag) {
    std::vector<std::string> a = {"run", scene.string(), "--threads", "1", "--out", out.string()};
    a.insert(a.end(), args.begin(), args.end());
    return wait_child(start_simphant(a, temp_dir() / (tag + ".out"), temp_dir() / (tag + ".err")), 120);
  };
  ASSERT_EQ(run_cli({}, "scene_only").code, 0);
  EXPECT_EQ(dataset_paths(out).count("state"), 0u);  // the scene's frames: none
  ASSERT_EQ(run_cli({"--frames", "every", "--datasets", "energy", "--compression", "1"}, "flags").code, 0);
  const std::set<std::string> paths = dataset_paths(out);
  EXPECT_EQ(paths.count("energy"), 1u);
  EXPECT_EQ(paths.count("state"), 0u);  // --datasets replaces the scene's list
  {
    const h5::Handle f = h5::open_file_readonly(out.string());
    EXPECT_EQ(h5::attr_text(f.id(), "output_compression"), "1");
    EXPECT_NE(h5::read_attr_string(f.id(), "command_line").find("--frames every --datasets energy"), std::string::npos);
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--compression", "12"}, "error: --compression: must be a deflate level 0..9"},
      {{"--compression", "-1"}, "error: --compression: must be a deflate level 0..9 (0: none; got -1)"},
      {{"--datasets", "state,torque"}, "error: --datasets: unknown dataset \"torque\" (valid: state, reactions"},
      {{"--frames", "odd"}, "error: --frames: must be one of every, first_last, none"},
      {{"--reductions", "max"}, "error: --reductions: unknown quantity \"max\""},
  };
  for (const auto& [args, message] : bad) {
    SCOPED_TRACE(args[0]);
    const Exit e = run_cli(args, "bad");
    EXPECT_EQ(e.code, 2);
    EXPECT_NE(read_text(temp_dir() / "bad.err").find(message), std::string::npos) << read_text(temp_dir() / "bad.err");
  }
  doc["output"] = {{"compression", 11}};
  const fs::path bad_scene = write_scene("bad_output.json", doc);
  const Exit e = wait_child(start_simphant({"run", bad_scene.string(), "--out", out.string()}, temp_dir() / "bs.out",
                                           temp_dir() / "bs.err"),
                            60);
  EXPECT_EQ(e.code, 2);
  EXPECT_NE(read_text(temp_dir() / "bs.err").find("/output/compression: must be a deflate level 0..9 (0: none; got 11)"),
            std::string::npos);
}

// SIGINT while frames are in the buffer: the stopped run's file holds every frame
// recorded (the buffer written), each T dataset the same count, = the frames attribute.
// The signal comes while the job runner holds the run at step 300 (SIMPHANT_TEST_HOLD,
// docs/reliability.md "Test hooks").
TEST(OutputFile, SigintWithBufferedFramesLeavesEqualFrameCounts) {
  json doc = slider_crank();
  doc["solver"]["record_every"] = 1;
  doc["solver"]["t_end"] = 1.0;  // 2000 steps, stopped at step 300
  doc["sweep"]["instances"] = 2;
  const fs::path scene = write_scene("sigint.json", doc), out = temp_dir() / "sigint.h5";
  const Hold hold("step=300", temp_dir() / "sigint.gate");
  const Child c = start_simphant({"run", scene.string(), "--threads", "1", "--json", "--compression", "3", "--out",
                                  out.string()},
                                 temp_dir() / "sigint.out", temp_dir() / "sigint.err", {}, hold.env());
  ASSERT_TRUE(hold.wait(&c)) << read_text(c.err_file);
  ::kill(c.pid, SIGINT);
  const Exit e = wait_child(c, 60);
  ASSERT_TRUE(e.exited);
  EXPECT_EQ(e.code, 128 + SIGINT);
  const json summary = json::parse(read_text(c.out_file));
  const h5::Handle f = h5::open_file_readonly(out.string());
  const hsize_t T = h5::dataset_dims(f.id(), "time")[0];
  EXPECT_EQ(T, 301u);  // frame 0 and one per step up to the held step
  for (const std::string& d : kFrameDatasets) EXPECT_EQ(h5::dataset_dims(f.id(), d)[0], T) << d;
  EXPECT_EQ(h5::read_attr_int64(f.id(), "frames"), static_cast<std::int64_t>(T));
  EXPECT_EQ(summary.at("frames"), T);
  // Every step recorded, plus nothing else: frame k at k dt.
  const std::vector<double> time = h5::read_doubles(f.id(), "time");
  for (std::size_t k = 0; k < time.size(); ++k) ASSERT_NEAR(time[k], 5e-4 * static_cast<double>(k), 1e-12) << k;
  EXPECT_EQ(h5::read_attr_string(f.id(), "stop_reason"), "signal SIGINT");
}

// A first_last run stopped on request and resumed ends as the uninterrupted first_last
// run, bit for bit; so does a compressed every-frame run stopped inside a chunk.
TEST(OutputFile, ResumeKeepsTheLayouts) {
  for (const std::string frames : {"first_last", "every"}) {
    SCOPED_TRACE(frames);
    const auto tweak = [&](JobOptions& o) {
      o.scene_text.clear();  // the scene file's text, as the resumed run stores it
      o.frames = frames;
      o.compression = 2;
      o.t_end = 0.3;
    };
    const fs::path whole = temp_dir() / ("whole_" + frames + ".h5"), stopped = temp_dir() / ("stopped_" + frames + ".h5");
    ASSERT_EQ(run(whole, tweak).exit_code, 0);
    JobOptions o;
    o.scene = kSliderCrank;
    o.out = stopped.string();
    o.instances = 4;
    o.has_t_end = true;
    o.threads = 1;
    o.checkpoint_every_s = 0;
    tweak(o);
    JobHooks hooks;
    int slices = 0;
    hooks.progress = [&](const JobProgress&) { ++slices; };
    hooks.stop_requested = [&] { return slices >= 1; };  // after the first slice (about 50 ms of steps)
    const JobResult r = run_job(o, hooks);
    ASSERT_EQ(r.exit_code, 130);
    ASSERT_LT(r.summary.at("steps").get<std::int64_t>(), 600);
    JobOptions again;
    again.resume = stopped.string();
    again.threads = 1;
    again.checkpoint_every_s = 0;
    ASSERT_EQ(run_job(again).exit_code, 0);
    const std::vector<std::string> diff =
        file_differences(whole.string(), stopped.string(), {"/@wall_time_s", "/@start_time", "/@command_line"});
    std::string list;
    for (const std::string& d : diff) list += d + "\n";
    EXPECT_TRUE(diff.empty()) << list;
  }
}

// Shards with compression and first_last frames merge (virtual and copied) into the
// one-shot run's file: values, dimension scales and (copied) filters.
TEST(OutputFile, MergeKeepsScalesAndCompression) {
  const fs::path dir = temp_dir() / "merge";
  fs::create_directories(dir);
  const auto tweak = [](int k, int n) {
    return [k, n](JobOptions& o) {
      o.instances = 5;
      o.frames = "first_last";
      o.compression = 4;
      o.shard_index = k;
      o.shard_count = n;
    };
  };
  ASSERT_EQ(run(dir / "one.h5", tweak(0, 1)).exit_code, 0);
  MergeOptions m;
  for (int k = 0; k < 2; ++k) {
    const fs::path s = dir / ("s" + std::to_string(k) + ".h5");
    ASSERT_EQ(run(s, tweak(k, 2)).exit_code, 0);
    m.shards.push_back(s.string());
  }
  for (const bool copy : {false, true}) {
    SCOPED_TRACE(copy ? "copy" : "virtual");
    m.copy = copy;
    m.out = (dir / (copy ? "copy.h5" : "virtual.h5")).string();
    merge_shards(m);
    const std::vector<std::string> diff = file_differences((dir / "one.h5").string(), m.out,
                                                           {"/@wall_time_s", "/@start_time", "/@command_line"});
    std::string list;
    for (const std::string& d : diff) list += d + "\n";
    EXPECT_TRUE(diff.empty()) << list;
    const h5::Handle f = h5::open_file_readonly(m.out);
    EXPECT_EQ(h5::read_doubles(f.id(), "instance"), (std::vector<double>{0, 1, 2, 3, 4}));
    EXPECT_EQ(h5::dimension_names(f.id(), "state"),
              (std::vector<std::string>{"time", "instance", "body", "state_component"}));
    if (copy) {
      const h5::Handle d(H5Dopen2(f.id(), "state", H5P_DEFAULT), H5Dclose);
      const h5::Handle dcpl(H5Dget_create_plist(d.id()), H5Pclose);
      EXPECT_EQ(H5Pget_nfilters(dcpl.id()), 2);
    }
  }
}
