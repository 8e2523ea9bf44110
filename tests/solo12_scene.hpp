#pragma once
// Test helper: Solo-12 (example-robot-data) standing on the ground, as
// examples/solo12_stand.json has it: its joints held at the standing pose by position
// servos (kp 6 N m/rad, kd 0.2 N m s/rad), a 16 mm sphere on each foot that touches the
// ground only (conaffinity 0), linear contact K = 2e4 N/m, e = 0.3, mu = 0.9.
// Header-only; the callers change the other fields (tilt, run length, recording).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace simphant::test {

/// The standing pose: per leg (FL, FR, HL, HR) HAA, HFE, KFE [rad].
inline std::vector<double> solo12_standing_pose() {
  return {0, 0.8, -1.6, 0, 0.8, -1.6, 0, -0.8, 1.6, 0, -0.8, 1.6};
}

/// The scene with solver `solver`, the floating base at height base_z [m] (upright),
/// step dt [s], slip speed v_eps [m/s]; t_end 0.5 s.
inline nlohmann::json solo12_doc(const std::string& solver, double base_z, double dt, double v_eps) {
  using json = nlohmann::json;
  const std::vector<double> q0 = solo12_standing_pose();
  json servos = json::object(), collision = json::object();
  const char* legs[] = {"FL", "FR", "HL", "HR"};
  const char* joints[] = {"HAA", "HFE", "KFE"};
  for (int l = 0; l < 4; ++l) {
    for (int j = 0; j < 3; ++j)
      servos[std::string(legs[l]) + "_" + joints[j]] = {
          {"mode", "position"}, {"kp", 6.0}, {"kd", 0.2}, {"target", q0[static_cast<std::size_t>(3 * l + j)]}};
    // conaffinity 0: a foot touches what has contype & 1 (the ground), not another foot.
    collision[std::string(legs[l]) + "_FOOT"] = {{"type", "sphere"}, {"radius", 0.016}, {"conaffinity", 0}};
  }
  return {{"name", "solo12 standing"},
          {"robot",
           {{"urdf", "example-robot-data:solo_description/robots/solo12.urdf"},
            {"floating_base", true},
            {"q0", q0},
            {"base", {{"position", {0, 0, base_z}}}},
            {"servos", servos},
            {"collision", collision}}},
          {"contact",
           {{"ground", json::object()},
            {"materials",
             {{"default",
               {{"stiffness", 2e4}, {"exponent", 1}, {"restitution", 0.3}, {"friction", 0.9}, {"slip_speed", v_eps}}}}}}},
          {"solver", {{"type", solver}, {"dt", dt}, {"t_end", 0.5}}}};
}

}  // namespace simphant::test
