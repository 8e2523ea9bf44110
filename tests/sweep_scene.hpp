// Shared pieces of the sweep tests (tests/test_sweep*.cpp; docs/scene-format.md, "Sweep"):
// a small scene that takes a sweep section, and the check that parsing a scene fails with
// a SceneError at a given JSON path.
#pragma once

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "simphant/scene/scene.hpp"

namespace simphant::test {

/// Two free bodies "a" (1 kg at the origin) and "b" (2 kg at x = 1 m) under gravity, no
/// joints, dt = 1 ms, t_end = 10 ms, with `sweep` as its "sweep" section.
inline nlohmann::json two_body_scene_with(const nlohmann::json& sweep) {
  nlohmann::json d = nlohmann::json::parse(R"({
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "a", "mass": 1, "inertia": [0.1, 0.1, 0.1], "position": [0, 0, 0]},
               {"name": "b", "mass": 2, "inertia": [0.1, 0.1, 0.1], "position": [1, 0, 0]}],
    "joints": [],
    "solver": {"dt": 0.001, "t_end": 0.01}
  })");
  d["sweep"] = sweep;
  return d;
}

/// Expects `parse()` to throw SceneError at `path` with `fragment` in what().
template <class Parse>
void expect_scene_error(Parse&& parse, const std::string& path, const std::string& fragment) {
  try {
    parse();
    ADD_FAILURE() << "no SceneError; expected one at " << path;
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), path) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what() << " lacks \"" << fragment << "\"";
  }
}

}  // namespace simphant::test
