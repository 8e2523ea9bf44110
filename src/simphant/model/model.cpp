// Name lookups and the inertia inverse of Model (model.hpp).
#include "simphant/model/model.hpp"

#include <Eigen/Dense>

namespace simphant {

Mat3d inertia_inverse(const Mat3d& J) {
  Eigen::Matrix3d E;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) E(r, c) = J.m[r][c];
  const Eigen::Matrix3d Ei = E.inverse();
  Mat3d out;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) out.m[r][c] = 0.5 * (Ei(r, c) + Ei(c, r));  // keep it exactly symmetric
  return out;
}

bool parse_projection(const std::string& name, Projection& out) {
  if (name == "none") out = Projection::None;
  else if (name == "velocity") out = Projection::Velocity;
  else if (name == "position_velocity") out = Projection::PositionVelocity;
  else if (name == "auto") out = Projection::Auto;
  else return false;
  return true;
}

const char* projection_name(Projection p) {
  switch (p) {
    case Projection::Velocity: return "velocity";
    case Projection::PositionVelocity: return "position_velocity";
    case Projection::Auto: return "auto";
    case Projection::None: break;
  }
  return "none";
}

bool parse_redundant_rows(const std::string& name, RedundantRows& out) {
  if (name == "keep") out = RedundantRows::Keep;
  else if (name == "remove") out = RedundantRows::Remove;
  else return false;
  return true;
}

const char* redundant_rows_name(RedundantRows r) { return r == RedundantRows::Keep ? "keep" : "remove"; }

int Model::body_index(const std::string& body_name) const {
  if (body_name == "ground") return kGround;
  for (int k = 0; k < n_bodies(); ++k) {
    if (bodies[static_cast<std::size_t>(k)].name == body_name) return k;
  }
  return -2;
}

int Model::joint_index(const std::string& joint_name) const {
  for (int k = 0; k < n_joints(); ++k) {
    if (joints[static_cast<std::size_t>(k)].name == joint_name) return k;
  }
  return -1;
}

}  // namespace simphant
