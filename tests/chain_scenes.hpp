#pragma once
// The large-model test scenes (tests/test_large_chain.cpp, tests/test_row_qr.cpp): a planar
// chain of n bars of 0.1 m hanging from the ground, revolute about y, open or closed back to
// the ground by a revolute at its far end (a planar loop: the closing joint's 4 rows out of
// the plane are redundant). One step of 1 ms to t_end 2 ms.
#include <string>

#include <nlohmann/json.hpp>

namespace simphant::test {

inline std::string chain_scene(int n, bool closed = false) {
  nlohmann::json bodies = nlohmann::json::array(), joints = nlohmann::json::array();
  const auto frame = [](double x) {
    return nlohmann::json{{"origin", {x, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}, {"x", {1.0, 0.0, 0.0}}};
  };
  for (int k = 0; k < n; ++k) {
    bodies.push_back({{"name", "b" + std::to_string(k)},
                      {"mass", 0.1},
                      {"inertia", {1e-5, 1e-4, 1e-4}},
                      {"position", {0.1 * (k + 0.5), 0.0, 0.0}}});
    joints.push_back({{"name", "j" + std::to_string(k)},
                      {"type", "revolute"},
                      {"body_i", k == 0 ? "ground" : "b" + std::to_string(k - 1)},
                      {"body_j", "b" + std::to_string(k)},
                      {"frame", frame(k == 0 ? 0.0 : 0.05)}});
  }
  if (closed)
    joints.push_back({{"name", "close"}, {"type", "revolute"}, {"body_i", "b" + std::to_string(n - 1)},
                      {"body_j", "ground"}, {"frame", frame(0.05)}});
  return nlohmann::json{{"name", closed ? "closed_chain" : "chain"},
                        {"gravity", {0.0, 0.0, -9.81}},
                        {"bodies", bodies},
                        {"joints", joints},
                        {"solver", {{"dt", 1e-3}, {"t_end", 0.002}}}}
      .dump();
}

}  // namespace simphant::test
