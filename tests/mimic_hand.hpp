#pragma once
// Test helper: a robot in the DAE with mimic rows (Model::mimics, docs/solver.md "Mimic
// rows"), built as the scene compile builds it (dae_robot_support.hpp): a palm on a
// revolute joint and three fingers on it; f2 and f3 mimic f1, so each mimic row has four
// sides, two of them at the palm (its follower's body_i and its leader's body_i), and the
// two mimic rows share the palm at two sides each (the coupling order of
// batch/batch_pack.cpp). Instance i has its own q0 (so its own mimic q_ref) and rates.
#include <string>
#include <vector>

#include "dae_robot_support.hpp"

namespace simphant::test {

inline ReducedLink mimic_test_link(const char* name, int parent, Vec3d p, Vec3d axis, double m) {
  return test_link(name, parent, p, axis, ReducedJointType::Revolute, m, {0.3, 0.05, 0});
}

/// n instances of the hand (instance i: its own q0 and rates, the mimics held).
inline std::vector<Model> mimic_hand_models(int n) {
  ReducedModel rm;
  rm.name = "hand";
  rm.gravity = {0, -9.81, 0};
  rm.links.push_back(mimic_test_link("palm", -1, {0, 0, 0}, {0, 0, 1}, 1.0));
  rm.links.push_back(mimic_test_link("f1", 0, {1, 0.2, 0}, {0, 0, 1}, 0.4));
  rm.links.push_back(mimic_test_link("f2", 0, {1, -0.2, 0}, {0, 0, 1}, 0.3));
  rm.links.push_back(mimic_test_link("f3", 0, {0.5, 0.3, 0}, {0, 1, 0}, 0.2));
  const double r2 = -0.8, o2 = 0.05, r3 = 0.6, o3 = -0.1;
  Params P(4, plain_joint_params<double>());
  P[2].mimic = 1;
  P[2].mimic_multiplier = r2;
  P[2].mimic_offset = o2;
  P[3].mimic = 1;
  P[3].mimic_multiplier = r3;
  P[3].mimic_offset = o3;
  P[0].damping = 0.05;
  std::vector<Model> models;
  for (int i = 0; i < n; ++i) {
    const double q1 = 0.3 - 0.1 * (i % 5), qd1 = -0.4 + 0.2 * (i % 4);
    models.push_back(dae_robot(rm, {0.1 + 0.2 * (i % 3), q1, r2 * q1 + o2, r3 * q1 + o3},
                               {0.5 - 0.3 * (i % 3), qd1, r2 * qd1, r3 * qd1}, P, {0.2, 0.05, 0.0, 0.0}, 1e-3));
  }
  return models;
}

}  // namespace simphant::test
