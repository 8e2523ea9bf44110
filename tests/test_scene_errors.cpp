// Every class of bad scene input is a SceneError whose path() is the JSON pointer of the
// offending value and whose what() is "path: reason" (docs/scene-format.md).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "simphant/scene/scene.hpp"

namespace simphant {
namespace {

using nlohmann::json;

json base_scene() {
  return json::parse(R"({
    "name": "errors",
    "gravity": [0, 0, -9.81],
    "bodies": [
      {"name": "a", "mass": 1.0, "inertia": [0.01, 0.02, 0.025], "position": [0.1, 0, 0]},
      {"name": "b", "mass": 2.0, "inertia": [0.02, 0.03, 0.04], "position": [0.3, 0, 0]}
    ],
    "joints": [
      {"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "a",
       "frame": {"origin": [0, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]}},
      {"name": "slide", "type": "prismatic", "body_i": "a", "body_j": "b",
       "frame": {"origin": [0.2, 0, 0], "z": [1, 0, 0]}}
    ],
    "forces": [
      {"name": "spring", "type": "spring_damper", "body_i": "ground", "body_j": "b",
       "stiffness": 10, "damping": 1, "rest_length": 0.3},
      {"name": "motor", "type": "actuator", "joint": "hinge", "kind": "torque"}
    ],
    "solver": {"dt": 0.001, "t_end": 0.1}
  })");
}

/// Expects compile_model(doc) to throw SceneError at `path` with `fragment` in what().
void expect_error(const json& doc, const std::string& path, const std::string& fragment) {
  try {
    compile_model(doc);
    ADD_FAILURE() << "no SceneError; expected one at " << path;
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), path) << e.what();
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path + ": ", 0), 0u) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what << " lacks \"" << fragment << "\"";
  }
}

TEST(SceneErrors, BaseSceneIsValid) { EXPECT_NO_THROW(compile_model(base_scene())); }

TEST(SceneErrors, UnknownKeysAtEveryLevel) {
  json d = base_scene();
  d["bogus"] = 1;
  expect_error(d, "/bogus", "unknown key");
  d = base_scene();
  d["bodies"][1]["colour"] = "red";
  expect_error(d, "/bodies/1/colour", "unknown key");
  d = base_scene();
  d["joints"][0]["frame"]["y"] = {0, 1, 0};
  expect_error(d, "/joints/0/frame/y", "unknown key");
  d = base_scene();
  d["forces"][0]["rest_angle"] = 0.1;  // belongs to the rotational spring
  expect_error(d, "/forces/0/rest_angle", "unknown key");
  d = base_scene();
  d["solver"]["steps"] = 10;
  expect_error(d, "/solver/steps", "unknown key");
}

TEST(SceneErrors, VisualShapesAcceptedAndCheckedByType) {
  json d = base_scene();
  d["bodies"][0]["visual"] = json::parse(R"({"type": "box", "size": [0.2, 0.02, 0.02], "color": "#3a7bd5",
                                             "origin": {"position": [0.1, 0, 0], "orientation": [1, 0, 0, 0]}})");
  d["bodies"][1]["visual"] = json::parse(R"([{"type": "cylinder", "radius": 0.01, "length": 0.3},
                                             {"type": "sphere", "radius": 0.02}, {"type": "capsule", "radius": 0.01, "length": 0.1},
                                             {"type": "mesh", "file": "meshes/b.stl", "scale": [0.001, 0.001, 0.001]}])");
  EXPECT_NO_THROW(compile_model(d));
  const auto with = [](const char* visual) {
    json s = base_scene();
    s["bodies"][1]["visual"] = json::parse(visual);
    return s;
  };
  expect_error(with(R"({"type": "sphere", "radius": 0})"), "/bodies/1/visual/radius", "must be > 0 (got 0)");
  expect_error(with(R"({"type": "sphere"})"), "/bodies/1/visual/radius", "required key is missing");
  expect_error(with(R"({"type": "box", "size": [1, -2, 1]})"), "/bodies/1/visual/size/1", "must be > 0");
  expect_error(with(R"({"type": "box", "radius": 1, "size": [1, 1, 1]})"), "/bodies/1/visual/radius",
               "unknown key");  // a box has no radius
  expect_error(with(R"({"type": "cone", "radius": 1})"), "/bodies/1/visual/type", "unknown visual type");
  expect_error(with(R"([{"type": "sphere", "radius": 1}, {"type": "cylinder", "radius": 1}])"),
               "/bodies/1/visual/1/length", "required key is missing");
  expect_error(with(R"({"type": "mesh", "file": ""})"), "/bodies/1/visual/file", "must not be empty");
  expect_error(with(R"({"type": "mesh", "file": "a.stl", "scale": [1, 0, 1]})"), "/bodies/1/visual/scale/1",
               "must be > 0");
  expect_error(with(R"({"type": "sphere", "radius": 1, "color": "red"})"), "/bodies/1/visual/color", "#rrggbb");
  expect_error(with(R"({"type": "sphere", "radius": 1, "origin": {"orientation": [2, 0, 0, 0]}})"),
               "/bodies/1/visual/origin/orientation", "");
  expect_error(with(R"({"type": "sphere", "radius": 1, "origin": {"rpy": [0, 0, 0]}})"),
               "/bodies/1/visual/origin/rpy", "unknown key");
  expect_error(with(R"([])"), "/bodies/1/visual", "at least one shape");
  expect_error(with(R"("box")"), "/bodies/1/visual", "a shape object or an array");
}

TEST(SceneErrors, WrongTypes) {
  json d = base_scene();
  d["bodies"][0]["mass"] = "1.0";
  expect_error(d, "/bodies/0/mass", "must be a number");
  d = base_scene();
  d["bodies"][1]["position"] = {1, 2};
  expect_error(d, "/bodies/1/position", "3 numbers");
  d = base_scene();
  d["bodies"] = json::object();
  expect_error(d, "/bodies", "must be an array");
  d = base_scene();
  d["joints"][0]["type"] = 3;
  expect_error(d, "/joints/0/type", "must be a string");
  d = base_scene();
  d["joints"][0]["type"] = "hinge";
  expect_error(d, "/joints/0/type", "unknown joint type");
  d = base_scene();
  d["forces"][0]["type"] = "magnet";
  expect_error(d, "/forces/0/type", "unknown force type");
  d = base_scene();
  d["gravity"][2] = true;
  expect_error(d, "/gravity/2", "must be a number");
  expect_error(json::array(), "/", "must be an object");
}

TEST(SceneErrors, MissingRequiredFields) {
  json d = base_scene();
  d["bodies"][0].erase("mass");
  expect_error(d, "/bodies/0/mass", "required key is missing");
  d = base_scene();
  d.erase("solver");
  expect_error(d, "/solver", "required key is missing");
  d = base_scene();
  d["solver"].erase("dt");
  expect_error(d, "/solver/dt", "required key is missing");
  d = base_scene();
  d.erase("bodies");
  expect_error(d, "/bodies", "required key is missing");
  d = base_scene();
  d["bodies"] = json::array();
  expect_error(d, "/bodies", "at least one body");
  d = base_scene();
  d["joints"][1].erase("frame");
  expect_error(d, "/joints/1/frame", "required key is missing");
  d = base_scene();
  d["joints"][1].erase("frame");
  d["joints"][1]["frame_i"] = {{"origin", {0, 0, 0}}, {"z", {1, 0, 0}}, {"x", {0, 1, 0}}};
  expect_error(d, "/joints/1/frame_j", "required key is missing");
}

TEST(SceneErrors, UnknownReferences) {
  json d = base_scene();
  d["joints"][0]["body_j"] = "c";
  expect_error(d, "/joints/0/body_j", "unknown body \"c\"");
  d = base_scene();
  d["forces"][0]["body_i"] = "nobody";
  expect_error(d, "/forces/0/body_i", "unknown body");
  d = base_scene();
  d["forces"][1]["joint"] = "knee";
  expect_error(d, "/forces/1/joint", "unknown joint \"knee\"");
}

TEST(SceneErrors, DuplicateAndReservedNames) {
  json d = base_scene();
  d["bodies"][1]["name"] = "a";
  expect_error(d, "/bodies/1/name", "duplicate body name");
  d = base_scene();
  d["joints"][1]["name"] = "hinge";
  expect_error(d, "/joints/1/name", "duplicate joint name");
  d = base_scene();
  d["forces"][1]["name"] = "spring";
  expect_error(d, "/forces/1/name", "duplicate force name");
  d = base_scene();
  d["bodies"][0]["name"] = "ground";
  expect_error(d, "/bodies/0/name", "reserved");
}

TEST(SceneErrors, NonFiniteNumbers) {
  json d = base_scene();
  d["bodies"][1]["position"][0] = std::numeric_limits<double>::infinity();
  expect_error(d, "/bodies/1/position/0", "finite");
  // 1e400 in the text overflows the double range: the parser rejects it, naming the source.
  std::string text = base_scene().dump();
  const std::string from = "\"mass\":2.0";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "\"mass\":1e400");
  try {
    parse_scene(text, "big.json");
    ADD_FAILURE() << "1e400 accepted";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "big.json") << e.what();
    EXPECT_NE(std::string(e.what()).find("must be finite"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1e400"), std::string::npos) << e.what();
  }
}

TEST(SceneErrors, NonPositiveMass) {
  json d = base_scene();
  d["bodies"][1]["mass"] = 0.0;
  expect_error(d, "/bodies/1/mass", "must be > 0");
  d["bodies"][1]["mass"] = -1.0;
  expect_error(d, "/bodies/1/mass", "must be > 0");
}

TEST(SceneErrors, InertiaNotSymmetric) {
  json d = base_scene();
  d["bodies"][0]["inertia"] = {{0.02, 0.001, 0}, {0.0011, 0.03, 0}, {0, 0, 0.04}};
  expect_error(d, "/bodies/0/inertia", "not symmetric");
  // Within 1e-9 relative it is accepted.
  d["bodies"][0]["inertia"] = {{0.02, 0.001, 0}, {0.001 + 1e-13, 0.03, 0}, {0, 0, 0.04}};
  EXPECT_NO_THROW(compile_model(d));
}

TEST(SceneErrors, InertiaNotPositiveDefinite) {
  json d = base_scene();
  d["bodies"][0]["inertia"] = {0.01, 0.02, 0.0};
  expect_error(d, "/bodies/0/inertia", "not positive definite");
  d["bodies"][0]["inertia"] = {0.02, 0.02, 0.02, 0.03, 0, 0};  // eigenvalue -0.01
  expect_error(d, "/bodies/0/inertia", "not positive definite");
}

TEST(SceneErrors, InertiaTriangleInequality) {
  json d = base_scene();
  d["bodies"][1]["inertia"] = {0.01, 0.01, 0.03};
  expect_error(d, "/bodies/1/inertia", "triangle inequality");
  d["bodies"][1]["inertia"] = {0.01, 0.02, 0.03};  // a thin rod's limit: equality is allowed
  EXPECT_NO_THROW(compile_model(d));
}

TEST(SceneErrors, InertiaBadShape) {
  json d = base_scene();
  d["bodies"][1]["inertia"] = {0.01, 0.02, 0.03, 0.0};
  expect_error(d, "/bodies/1/inertia", "3x3");
}

TEST(SceneErrors, ZeroLengthOrParallelAxes) {
  json d = base_scene();
  d["joints"][0]["frame"]["z"] = {0, 0, 1e-13};
  expect_error(d, "/joints/0/frame/z", "zero-length axis");
  d = base_scene();
  d["joints"][0]["frame"]["x"] = {0, 0, 0};
  expect_error(d, "/joints/0/frame/x", "zero-length axis");
  d = base_scene();
  d["joints"][0]["frame"]["x"] = {0, 1e-8, -3};
  expect_error(d, "/joints/0/frame/x", "parallel");
  d = base_scene();
  d["joints"][1].erase("frame");
  d["joints"][1]["frame_i"] = {{"origin", {0, 0, 0}}, {"z", {1, 0, 0}}, {"x", {2, 0, 0}}};
  d["joints"][1]["frame_j"] = {{"origin", {0, 0, 0}}, {"z", {1, 0, 0}}, {"x", {0, 1, 0}}};
  expect_error(d, "/joints/1/frame_i/x", "parallel");
}

TEST(SceneErrors, QuaternionFarFromUnit) {
  json d = base_scene();
  d["bodies"][0]["orientation"] = {1.002, 0, 0, 0};
  expect_error(d, "/bodies/0/orientation", "not within 1e-3 of 1");
  d["bodies"][0]["orientation"] = {0, 0, 0, 0};
  expect_error(d, "/bodies/0/orientation", "not within 1e-3 of 1");
  d["bodies"][0]["orientation"] = {1, 0, 0};
  expect_error(d, "/bodies/0/orientation", "4 numbers");
}

TEST(SceneErrors, TimeStepAndEndTime) {
  json d = base_scene();
  d["solver"]["dt"] = 0.0;
  expect_error(d, "/solver/dt", "must be > 0");
  d["solver"]["dt"] = -0.001;
  expect_error(d, "/solver/dt", "must be > 0");
  d = base_scene();
  d["solver"]["t_end"] = 0.0005;
  expect_error(d, "/solver/t_end", "must be >= dt");
}

TEST(SceneErrors, RefinementStepsOutOfRange) {
  json d = base_scene();
  d["solver"]["refinement_steps"] = -1;
  expect_error(d, "/solver/refinement_steps", "must be >= 0");
  d["solver"]["refinement_steps"] = 21;
  expect_error(d, "/solver/refinement_steps", "must be <= 20");
  d["solver"]["refinement_steps"] = 1.5;
  expect_error(d, "/solver/refinement_steps", "integer");
}

TEST(SceneErrors, RecordEveryBelowOne) {
  json d = base_scene();
  d["solver"]["record_every"] = 0;
  expect_error(d, "/solver/record_every", "must be >= 1");
  d["solver"]["record_every"] = 2.5;
  expect_error(d, "/solver/record_every", "integer");
}

TEST(SceneErrors, OtherSolverBounds) {
  json d = base_scene();
  d["solver"]["baumgarte_alpha"] = -1;
  expect_error(d, "/solver/baumgarte_alpha", "must be >= 0");
  d = base_scene();
  d["solver"]["violation_bound"] = 0;
  expect_error(d, "/solver/violation_bound", "must be > 0");
}

TEST(SceneErrors, ProjectionMode) {
  json d = base_scene();
  d["solver"]["projection"] = "positions";
  expect_error(d, "/solver/projection", "must be \"none\", \"velocity\", \"position_velocity\" or \"auto\" (got \"positions\")");
  d["solver"]["projection"] = 1;
  expect_error(d, "/solver/projection", "string");
  for (const char* ok : {"none", "velocity", "position_velocity"}) {
    d["solver"]["projection"] = ok;
    EXPECT_STREQ(projection_name(compile_model(d).solver.projection), ok);
  }
}

TEST(SceneErrors, JointBodiesMustDiffer) {
  json d = base_scene();
  d["joints"][1]["body_j"] = "a";
  expect_error(d, "/joints/1/body_j", "must differ from body_i");
}

TEST(SceneErrors, ActuatorKindNotAllowedForJoint) {
  json d = base_scene();
  d["forces"][1]["kind"] = "force";  // on the revolute "hinge"
  expect_error(d, "/forces/1/kind", "prismatic or cylindrical");
  d["forces"][1]["kind"] = "torque";
  d["forces"][1]["joint"] = "slide";  // prismatic
  expect_error(d, "/forces/1/kind", "revolute or cylindrical");
  d["forces"][1]["kind"] = "push";
  expect_error(d, "/forces/1/kind", "\"torque\" or \"force\"");
}

TEST(SceneErrors, RotationalSpringNeedsRevoluteOrCylindrical) {
  json d = base_scene();
  d["forces"].push_back({{"name", "rsd"}, {"type", "rotational_spring_damper"}, {"joint", "slide"}, {"stiffness", 1}});
  expect_error(d, "/forces/2/joint", "revolute or cylindrical");
}

TEST(SceneErrors, NegativeStiffnessDampingRestLength) {
  json d = base_scene();
  d["forces"][0]["stiffness"] = -1;
  expect_error(d, "/forces/0/stiffness", "must be >= 0");
  d = base_scene();
  d["forces"][0]["damping"] = -0.1;
  expect_error(d, "/forces/0/damping", "must be >= 0");
  d = base_scene();
  d["forces"][0]["rest_length"] = -0.3;
  expect_error(d, "/forces/0/rest_length", "must be >= 0");
}

TEST(SceneErrors, ExclusiveAngularVelocities) {
  json d = base_scene();
  d["bodies"][0]["angular_velocity"] = {1, 0, 0};
  d["bodies"][0]["angular_velocity_world"] = {1, 0, 0};
  expect_error(d, "/bodies/0/angular_velocity_world", "exclusive");
}

TEST(SceneErrors, UnparsableJsonNamesSourceAndByte) {
  try {
    parse_scene("{\"bodies\": [1, 2,, 3]}", "broken.json");
    ADD_FAILURE() << "bad JSON accepted";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "broken.json");
    EXPECT_NE(std::string(e.what()).find("at byte 18"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("parse error"), std::string::npos) << e.what();
  }
}

TEST(SceneErrors, MissingFile) {
  try {
    load_scene("/nonexistent/dir/scene.json");
    ADD_FAILURE() << "missing file accepted";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "/nonexistent/dir/scene.json");
    EXPECT_NE(std::string(e.what()).find("cannot open: No such file"), std::string::npos) << e.what();
  }
}

/// Expects parse_scene(text) to throw SceneError at `path` with `fragment` in what().
void expect_parse_error(const std::string& text, const std::string& path, const std::string& fragment) {
  try {
    parse_scene(text, "dup.json");
    ADD_FAILURE() << "no SceneError; expected one at " << path;
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), path) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what() << " lacks \"" << fragment << "\"";
  }
}

TEST(SceneErrors, StepCountAboveLimit) {
  json d = base_scene();
  d["solver"]["t_end"] = 1e300;
  expect_error(d, "/solver/t_end", "exceeds the limit of 1e12 steps");
  d = base_scene();
  d["solver"]["dt"] = 1e-300;
  expect_error(d, "/solver/t_end", "t_end / dt = 1e+299 steps exceeds the limit of 1e12 steps");
  d = base_scene();
  d["solver"]["dt"] = 1e-300;
  d["solver"]["t_end"] = 1e300;  // t_end / dt = inf
  expect_error(d, "/solver/t_end", "t_end / dt = inf steps");
  d = base_scene();
  d["solver"]["dt"] = 1.0;
  d["solver"]["t_end"] = 9007199254740993.0;  // > 2^53
  expect_error(d, "/solver/t_end", "exceeds the limit");
  d["solver"]["t_end"] = 1e12 + 1;
  expect_error(d, "/solver/t_end", "t_end / dt = 1000000000001 steps exceeds");
  d["solver"]["t_end"] = 1e12;  // exactly at the limit
  EXPECT_NO_THROW(compile_model(d));
}

TEST(SceneErrors, NamesWithSweepPathSeparators) {
  const char* bad[] = {"a.b", "a[0]", "x]", "w/z", "."};
  for (const char* name : bad) {
    json d = base_scene();
    d["bodies"][1]["name"] = name;
    d["joints"][1]["body_j"] = name;
    d["forces"][0]["body_j"] = name;
    expect_error(d, "/bodies/1/name", "must not contain '.', '[', ']' or '/' (they separate sweep path parts)");
    d = base_scene();
    d["joints"][0]["name"] = name;
    d["forces"][1]["joint"] = name;
    expect_error(d, "/joints/0/name", "must not contain '.'");
    d = base_scene();
    d["forces"][1]["name"] = name;
    expect_error(d, "/forces/1/name", "must not contain '.'");
  }
  json d = base_scene();
  d["bodies"][0]["name"] = "";
  expect_error(d, "/bodies/0/name", "must not be empty");
  d = base_scene();
  d["joints"][1]["name"] = "";
  expect_error(d, "/joints/1/name", "must not be empty");
  d = base_scene();
  d["forces"][0]["name"] = "";
  expect_error(d, "/forces/0/name", "must not be empty");
  d = base_scene();  // other punctuation stays allowed
  d["bodies"][0]["name"] = "crank-1_left (A)";
  d["joints"][0]["body_j"] = "crank-1_left (A)";
  d["joints"][1]["body_i"] = "crank-1_left (A)";
  EXPECT_NO_THROW(compile_model(d));
}

TEST(SceneErrors, DuplicateKeysAreRejected) {
  json d = base_scene();
  const std::string text = d.dump();
  EXPECT_NO_THROW(parse_scene(text, "dup.json"));  // same key in different objects is fine
  // In bodies[1], after bodies[0] and after arrays nested in bodies[1] itself.
  std::string t = text;
  const std::string mass2 = "\"mass\":2.0";
  ASSERT_NE(t.find(mass2), std::string::npos);
  t.replace(t.find(mass2), mass2.size(), "\"mass\":2.0,\"position\":[0.3,0,0],\"mass\":-5");
  expect_parse_error(t, "/bodies/1/mass", "duplicate key \"mass\" (JSON objects must have unique keys)");
  // Top level.
  expect_parse_error(R"({"name": "a", "bodies": [], "name": "b"})", "/name", "duplicate key \"name\"");
  // Deep inside arrays of arrays and objects; "/" and "~" in keys are escaped.
  expect_parse_error(R"({"x": [[1, [2, 3]], {"a": 1}, [{"b": 1}, {"c": {"d": 1}, "c": 2}]]})", "/x/2/1/c",
                     "duplicate key \"c\"");
  expect_parse_error(R"({"x": [1, 2, {}, [], {"q": [{}, {"k/~": 1, "k/~": 1}]}]})", "/x/4/q/1/k~1~0",
                     "duplicate key \"k/~\"");
  // A sweep parameter written twice would silently keep the last value.
  json s = base_scene();
  s["sweep"] = json::parse(R"({"parameters": [{"path": "bodies.a.mass", "dist": "list", "values": [1]},
                                              {"path": "bodies.b.mass", "dist": "list", "values": [2]}]})");
  t = s.dump();
  const std::string v2 = "\"values\":[2]";
  ASSERT_NE(t.find(v2), std::string::npos);
  t.replace(t.find(v2), v2.size(), "\"values\":[2],\"values\":[3]");
  expect_parse_error(t, "/sweep/parameters/1/values", "duplicate key \"values\"");
}

TEST(SceneErrors, DirectoryIsNotAScene) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  try {
    load_scene(dir.string());
    ADD_FAILURE() << "directory accepted";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), dir.string());
    EXPECT_EQ(e.reason(), "cannot open: is a directory") << e.what();
  }
}

}  // namespace
}  // namespace simphant
