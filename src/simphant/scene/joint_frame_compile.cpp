// Joint frames: world form {origin, z, x?} or local forms frame_i / frame_j -> the local
// frames (u, v, a, b) on each body (docs/scene-format.md, "Joint"; docs/solver.md notation).
#include <cmath>

#include "simphant/math/unit_vector.hpp"
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"

namespace simphant::scene_detail {

namespace {

constexpr double kMinAxisNorm = 1e-12;  ///< shorter z or x axes are errors
constexpr double kMinAxisSine = 1e-6;   ///< |z_hat x x_hat| below this: x parallel to z

struct Triad {
  Vec3d origin, z, x;  ///< z, x unit and orthogonal
};

Vec3d unit_axis(const json& obj, const std::string& path, const char* key) {
  const std::string p = child_path(path, key);
  const Vec3d a = as_vec3(require_key(obj, path, key), p);  // finite components
  Vec3d unit;
  if (!unit_vector(a, kMinAxisNorm, unit)) throw SceneError(p, "zero-length axis (norm below 1e-12)");
  return unit;
}

/// A unit vector perpendicular to the unit vector z: z x e normalised, e the world axis
/// least aligned with z (the first one on ties). Deterministic.
Vec3d default_x(const Vec3d& z) {
  int best = 0;
  for (int k = 1; k < 3; ++k) {
    if (std::fabs(z[k]) < std::fabs(z[best])) best = k;
  }
  Vec3d e = zero3<double>();
  e[best] = 1.0;
  const Vec3d x = cross(z, e);
  return (1.0 / norm(x)) * x;
}

Triad read_triad(const json& obj, const std::string& path, bool x_required) {
  expect_object(obj, path);
  check_keys(obj, path, {"origin", "z", "x"});
  Triad t;
  t.origin = as_vec3(require_key(obj, path, "origin"), child_path(path, "origin"));
  t.z = unit_axis(obj, path, "z");
  if (find_key(obj, "x") == nullptr && !x_required) {
    t.x = default_x(t.z);
    return t;
  }
  const Vec3d x = unit_axis(obj, path, "x");
  if (norm(cross(t.z, x)) < kMinAxisSine) throw SceneError(child_path(path, "x"), "axis is parallel to z");
  const Vec3d x_perp = x - dot(x, t.z) * t.z;
  t.x = (1.0 / norm(x_perp)) * x_perp;
  return t;
}

}  // namespace

JointFrame<double> compile_world_frame(const json& frame, const std::string& path, const Model& model, int body_i,
                                       int body_j) {
  const Triad t = read_triad(frame, path, false);
  JointFrame<double> f{};
  auto side = [&](int body, Vec3d& u, Vec3d& v, Vec3d& a, Vec3d& b) {
    Vec3d r = zero3<double>();
    Mat3d A = identity3<double>();
    if (body != kGround) {
      const Body& B = model.bodies[static_cast<std::size_t>(body)];
      r = B.r0_W;
      A = rotation(B.p0);
    }
    u = mul_t(A, t.origin - r);
    v = mul_t(A, t.z);
    a = mul_t(A, t.x);
    b = cross(v, a);
  };
  side(body_i, f.u_i, f.v_i, f.a_i, f.b_i);
  side(body_j, f.u_j, f.v_j, f.a_j, f.b_j);
  return f;
}

JointFrame<double> compile_local_frames(const json& frame_i, const std::string& path_i, const json& frame_j,
                                        const std::string& path_j) {
  const Triad ti = read_triad(frame_i, path_i, true);
  const Triad tj = read_triad(frame_j, path_j, true);
  JointFrame<double> f{};
  f.u_i = ti.origin;
  f.v_i = ti.z;
  f.a_i = ti.x;
  f.b_i = cross(ti.z, ti.x);
  f.u_j = tj.origin;
  f.v_j = tj.z;
  f.a_j = tj.x;
  f.b_j = cross(tj.z, tj.x);
  return f;
}

}  // namespace simphant::scene_detail
