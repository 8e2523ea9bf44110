// Bad scene input at the edges (docs/reliability.md): files that are not regular or too
// large, NUL bytes in the text and in strings, text after the document, sweep ranges
// that overflow, instance counts beyond memory, solver bounds, axes near the double
// range and robot payloads that overflow. Each is a SceneError naming the file or the
// JSON path, never a crash, a hang or a non-finite value.
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include "simphant/core/input_file.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path& temp_dir() {
  static const fs::path dir = simphant::test::make_process_temp_dir("input_limits");
  return dir;
}

json pendulum() {
  return json::parse(R"({
    "name": "limits",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "mass": 1.0, "inertia": [0.001, 0.02, 0.02], "position": [0.5, 0, 0]}],
    "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "bob",
                "frame": {"origin": [0, 0, 0], "z": [0, 1, 0], "x": [1, 0, 0]}}],
    "forces": [{"name": "motor", "type": "actuator", "joint": "hinge", "kind": "torque"}],
    "solver": {"dt": 0.001, "t_end": 0.01},
    "sweep": {"mode": "random", "instances": 4, "seed": 3,
              "parameters": [{"path": "bodies.bob.mass", "dist": "uniform", "low": 0.9, "high": 1.1}]}
  })");
}

/// parse_scene(text) throws SceneError at `path` whose reason contains `fragment`.
void expect_parse_error(const std::string& text, const std::string& path, const std::string& fragment) {
  try {
    parse_scene(text, "limits.json");
    ADD_FAILURE() << "no SceneError; expected one at " << path;
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), path) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what() << " lacks \"" << fragment << "\"";
  }
}

/// load_scene(file) throws SceneError naming `file` whose reason contains `fragment`.
void expect_load_error(const std::string& file, const std::string& fragment) {
  try {
    load_scene(file);
    ADD_FAILURE() << "no SceneError for " << file;
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), file) << e.what();
    EXPECT_NE(e.reason().find(fragment), std::string::npos) << e.what() << " lacks \"" << fragment << "\"";
  }
}

TEST(InputFiles, NonRegularFilesAreRefusedBeforeReading) {
  expect_load_error("/dev/zero", "not a regular file");  // would never end
  expect_load_error(temp_dir().string(), "is a directory");
  const fs::path fifo = temp_dir() / "scene.fifo";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_load_error(fifo.string(), "not a regular file");  // would block in open()
  expect_load_error((temp_dir() / "missing.json").string(), "cannot open: No such file");
}

TEST(InputFiles, AFileOverTheSizeLimitIsRefusedUnread) {
  const fs::path big = temp_dir() / "big.json";
  {
    std::ofstream out(big);
  }
  fs::resize_file(big, kMaxInputFileBytes + 1);  // sparse: no disk space used
  expect_load_error(big.string(), "over the limit of 67108864 bytes (64 MiB)");
  // The limit itself is honoured by the reader (a small limit, a small file).
  const fs::path small = temp_dir() / "small.json";
  {
    std::ofstream out(small);
    out << pendulum().dump();
  }
  EXPECT_THROW(read_input_file(small.string(), 10), InputFileError);
  EXPECT_EQ(read_input_file(small.string()), pendulum().dump());
  EXPECT_NO_THROW(load_scene(small.string()));
}

TEST(SceneText, NulBytesAndTextAfterTheDocumentAreRefused) {
  const std::string doc = pendulum().dump();
  // nlohmann::json stops at a NUL byte: without the check the garbage would be ignored.
  expect_parse_error(doc + std::string(1, '\0') + "garbage", "limits.json", "NUL byte");
  expect_parse_error(doc + std::string(3, '\0'), "limits.json", "at byte " + std::to_string(doc.size() + 1));
  std::string inner = doc;
  inner.insert(1, 1, '\0');
  expect_parse_error(inner, "limits.json", "NUL byte");
  expect_parse_error(doc + " {}", "limits.json", "invalid JSON");
  expect_parse_error(doc + " x", "limits.json", "invalid JSON");
  EXPECT_NO_THROW(parse_scene(doc + " \n\t ", "limits.json"));
}

TEST(SceneText, NulCharactersInNamesAndStringsAreRefusedWithTheirPath) {
  const std::string nul("\0", 1);
  struct Case {
    const char* pointer;
    std::string value;
  };
  const Case cases[] = {
      {"/bodies/0/name", "bo" + nul + "b"},        {"/joints/0/name", "hin" + nul + "ge"},
      {"/forces/0/name", "mo" + nul + "tor"},      {"/name", "lim" + nul + "its"},
      {"/joints/0/type", "revolute" + nul},        {"/joints/0/body_j", "bob" + nul},
      {"/forces/0/joint", "hinge" + nul + "x"},    {"/sweep/parameters/0/path", "bodies.bob" + nul + ".mass"},
      {"/sweep/parameters/0/dist", "uniform" + nul},
  };
  for (const Case& c : cases) {
    json d = pendulum();
    d[json::json_pointer(c.pointer)] = c.value;
    expect_parse_error(d.dump(), c.pointer, "NUL character");
  }
  // A key with a NUL: refused while parsing, at its (printable) pointer.
  json d = pendulum();
  d["bodies"][0]["na" + nul + "me"] = "x";
  expect_parse_error(d.dump(), "/bodies/0/na\\u0000me", "key contains a NUL character");
  // The robot section's URDF path.
  json r = json::parse(R"({"robot": {"urdf": "x"}, "solver": {"dt": 0.001, "t_end": 0.01}})");
  r["robot"]["urdf"] = "arm7" + nul + ".urdf";
  expect_parse_error(r.dump(), "/robot/urdf", "NUL character");
}

TEST(SweepRanges, RangesThatOverflowAreRefusedAtValidation) {
  json d = pendulum();
  d["sweep"]["parameters"][0] = {{"path", "bodies.bob.mass"}, {"dist", "uniform"}, {"low", -1e308}, {"high", 1e308}};
  expect_parse_error(d.dump(), "/sweep/parameters/0/high", "high - low overflows");
  d["sweep"]["parameters"][0] = {{"path", "bodies.bob.mass"}, {"dist", "normal"}, {"mean", 1.0}, {"std", 1e307}};
  expect_parse_error(d.dump(), "/sweep/parameters/0/std", "too large");
  d["sweep"]["parameters"][0] = {{"path", "bodies.bob.mass"}, {"dist", "normal"}, {"mean", 1.79e308}, {"std", 1e306}};
  expect_parse_error(d.dump(), "/sweep/parameters/0/std", "overflows");
  d["sweep"]["parameters"][0] = {
      {"path", "bodies.bob.mass"}, {"dist", "normal"}, {"mean", 1.0}, {"std", 1e307}, {"truncate", {0.5, 2.0}}};
  expect_parse_error(d.dump(), "/sweep/parameters/0/std", "too large");
}

TEST(SweepRanges, WideRangesWithinTheLimitsSampleFiniteValues) {
  // Wide but representable: every sample finite and inside the range (gravity, not a
  // mass, so that each instance also compiles).
  json d = pendulum();
  for (const char* mode : {"random", "lhs"}) {
    d["sweep"]["mode"] = mode;
    d["sweep"]["instances"] = 64;
    d["sweep"]["parameters"] = json::array(
        {{{"path", "gravity[0]"}, {"dist", "uniform"}, {"low", -8e307}, {"high", 8e307}},
         {{"path", "gravity[1]"}, {"dist", "normal"}, {"mean", 0.0}, {"std", 4e306}},
         {{"path", "gravity[2]"}, {"dist", "normal"}, {"mean", -1e306}, {"std", 1e306}, {"truncate", {-2e306, 0}}}});
    const Scene scene = parse_scene(d.dump());
    const SweepSamples s = sample_sweep(scene.sweep);
    for (std::size_t p = 0; p < 3; ++p)
      for (double v : s.values[p]) EXPECT_TRUE(std::isfinite(v)) << mode << " parameter " << p << ": " << v;
    for (double v : s.values[0]) {
      EXPECT_GE(v, -8e307);
      EXPECT_LE(v, 8e307);
    }
    // The uniform samples spread over the range (the overflowing form returned high each time).
    double lo = 0, hi = 0;
    for (double v : s.values[0]) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_LT(lo, -1e307) << mode;
    EXPECT_GT(hi, 1e307) << mode;
  }
}

TEST(InstanceLimit, CountsBeyondMemoryAreRefusedBeforeAnyAllocation) {
  json d = pendulum();
  d["sweep"]["instances"] = INT_MAX;  // INT_MAX compiled models: terabytes
  expect_parse_error(d.dump(), "/sweep/instances", "instances: their sampled values and compiled models need about");
  d["sweep"]["instances"] = 4;
  const Scene scene = parse_scene(d.dump());
  EXPECT_GT(sweep_bytes(scene, 1000), 1000 * sizeof(Model));
  EXPECT_NO_THROW(check_instance_count(scene, 1000));
  EXPECT_THROW(check_instance_count(scene, INT_MAX), SceneError);
  // build_instance_models applies the limit before it reads any sample (an override such
  // as run's --instances reaches it this way).
  SweepSamples huge;
  huge.n_instances = INT_MAX;
  huge.paths = {"bodies.bob.mass"};
  huge.json_pointers = {"/bodies/0/mass"};
  huge.values = {{}};
  try {
    build_instance_models(scene, huge);
    ADD_FAILURE() << "no SceneError";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "/sweep/instances") << e.what();
  }
  // sample_sweep refuses sampled values that alone would not fit (200 parameters).
  SweepSpec spec;
  spec.instances = INT_MAX;
  SweepParameter p;
  p.path = "gravity[0]";
  p.json_pointer = "/gravity/0";
  p.low = 0;
  p.high = 1;
  spec.parameters.assign(200, p);
  EXPECT_THROW(sample_sweep(spec), SceneError);
  // A shared model (no parameters) costs nothing per instance.
  json shared = pendulum();
  shared.erase("sweep");
  EXPECT_EQ(sweep_bytes(parse_scene(shared.dump()), INT_MAX), 0.0);
}

TEST(InstanceLimit, CheckAndRunRefuseTheSameCountsThroughTheScene) {
  json d = pendulum();
  d["sweep"]["instances"] = 2000000000;
  const fs::path scene = temp_dir() / "many.json";
  {
    std::ofstream out(scene);
    out << d.dump();
  }
  const fs::path err = temp_dir() / "many.err";
  for (const char* cmd : {"check", "run"}) {
    const std::string out = std::string(cmd) == "run" ? " --out " + (temp_dir() / "many.h5").string() : "";
    const std::string command =
        std::string(SIMPHANT_BINARY) + " " + cmd + " " + scene.string() + out + " > /dev/null 2> " + err.string();
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << cmd;
    EXPECT_EQ(WEXITSTATUS(status), 2) << cmd;
    std::ifstream in(err);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("/sweep/instances: 2000000000 instances"), std::string::npos) << cmd << ": " << text;
  }
  EXPECT_FALSE(fs::exists(temp_dir() / "many.h5"));
}

TEST(SolverBounds, AssemblyIterationsHaveAnUpperBound) {
  json d = pendulum();
  d["solver"]["assembly_max_iterations"] = 1001;
  expect_parse_error(d.dump(), "/solver/assembly_max_iterations", "must be <= 1000");
  d["solver"]["assembly_max_iterations"] = 2147483647;
  expect_parse_error(d.dump(), "/solver/assembly_max_iterations", "must be <= 1000");
  d["solver"]["assembly_max_iterations"] = 1000;
  EXPECT_EQ(parse_scene(d.dump()).model.solver.assembly_max_iterations, 1000);
}

TEST(JointAxes, HugeAxesAreNormalisedAndTinyOnesAreZeroLength) {
  json d = pendulum();
  d["joints"][0]["frame"]["z"] = {0, 1e300, 0};  // |z| overflows a plain norm
  d["joints"][0]["frame"]["x"] = {1e300, 1e300, 0};
  const Model m = parse_scene(d.dump()).model;
  const JointFrame<double>& f = m.joints[0].frame;
  EXPECT_DOUBLE_EQ(f.v_i.y, 1.0);
  EXPECT_DOUBLE_EQ(f.a_i.x, 1.0);  // x made orthogonal to z, unit
  EXPECT_EQ(f.a_i.y, 0.0);
  d["joints"][0]["frame"]["x"] = {1e-13, 0, 0};
  expect_parse_error(d.dump(), "/joints/0/frame/x", "zero-length axis");
  d["joints"][0]["frame"]["x"] = {1e300, 0, 0};
  d["joints"][0]["frame"]["z"] = {1e-300, 0, 0};
  expect_parse_error(d.dump(), "/joints/0/frame/z", "zero-length axis");
  d["joints"][0]["frame"]["z"] = {1e300, 1e-300, 0};  // parallel to x: the right reason
  expect_parse_error(d.dump(), "/joints/0/frame/x", "parallel to z");
}

/// arm7 (examples/) with a payload on its last link.
json arm7_with_payload(double mass, const json& com) {
  json d = json::parse(std::ifstream(std::string(SIMPHANT_SOURCE_DIR) + "/examples/arm7.json"));
  d["robot"]["urdf"] = std::string(SIMPHANT_SOURCE_DIR) + "/examples/arm7.urdf";
  d["robot"]["payload"] = {{"link", "panda_link7"}, {"mass", mass}, {"com", com}};
  return d;
}

TEST(RobotPayload, APayloadThatOverflowsTheInertiaIsBadInput) {
  expect_parse_error(arm7_with_payload(1e308, {10, 0, 0}).dump(), "/robot/payload/mass", "overflow");
  expect_parse_error(arm7_with_payload(1e300, {1e10, 0, 0}).dump(), "/robot/payload/mass", "overflow");
  // Heavy but finite stays valid, and a massless payload changes nothing.
  EXPECT_NO_THROW(parse_scene(arm7_with_payload(1e3, {0.1, 0, 0}).dump()));
  const Scene none = parse_scene(arm7_with_payload(0, {1e300, 0, 0}).dump());
  const Scene plain = parse_scene(arm7_with_payload(0, {0, 0, 0}).dump());
  EXPECT_EQ(none.model.bodies.back().mass, plain.model.bodies.back().mass);
}

}  // namespace
}  // namespace simphant
