// A geom's shape and frame (fromto resolved), and its mass properties in its body's frame,
// as MuJoCo's compiler infers a body's
// inertia from its geoms (XML reference, <compiler inertiafromgeom>, <geom density mass>):
// solid shapes of uniform density (default 1000 kg/m^3), `mass` replacing the density.
// Capsule: a cylinder of length 2 size[1] plus a sphere split into two hemispheres at its
// ends, whose inertia about the capsule's centre is
//   I_axis  = m_c r^2 / 2 + 2 m_s r^2 / 5,
//   I_perp  = m_c (3 r^2 + h^2) / 12 + 2 m_s r^2 / 5 + m_s (3 h r / 8 + h^2 / 4),
// m_s = m 4 r / (4 r + 3 h) the two hemispheres' mass, m_c = m - m_s (h = 2 size[1]).
#include <cmath>
#include <cstdio>
#include <string>

#include "simphant/mjcf/mjcf_detail.hpp"

namespace simphant::mjcf_detail {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEps = 1e-14;

}  // namespace

GeomShape geom_shape(Ctx& ctx, const Elem& g) {
  GeomShape out;
  out.type = g.keyword("type", "sphere", {"plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box",
                                          "mesh", "sdf"});
  const std::string& type = out.type;
  out.solid = !(type == "plane" || type == "hfield" || type == "mesh" || type == "sdf");
  if (!out.solid) {
    out.pos = g.vec3("pos", {0, 0, 0});
    out.quat = read_orientation(ctx, g);
    return out;
  }
  std::vector<double> size = g.nums("size", 0, 3);
  size.resize(3, 0.0);
  Vec3d pos = g.vec3("pos", {0, 0, 0});
  Quatd quat{1, 0, 0, 0};
  if (g.has("fromto")) {
    if (type != "capsule" && type != "cylinder" && type != "ellipsoid" && type != "box")
      g.fail("fromto", "fromto needs a capsule, cylinder, box or ellipsoid (type \"" + type + "\")");
    if (pos.x != 0 || pos.y != 0 || pos.z != 0) g.fail("fromto", "both pos and fromto are given");
    const std::vector<double> f = g.nums("fromto", 6, 6);
    const Vec3d a{f[0], f[1], f[2]}, b{f[3], f[4], f[5]};
    const Vec3d d = a - b;
    const double half = norm(d) / 2;
    if (half < kEps) g.fail("fromto", "the two points coincide");
    if (!std::isfinite(half)) g.fail("fromto", "the points are too far apart (their distance overflows)");
    size[1] = half;
    if (type == "ellipsoid" || type == "box") {
      size[2] = size[1];
      size[1] = size[0];
    }
    pos = 0.5 * (a + b);
    quat = z_to(d);
  } else {
    quat = read_orientation(ctx, g);
  }
  const int need = (type == "sphere") ? 1 : (type == "capsule" || type == "cylinder") ? 2 : 3;
  for (int k = 0; k < need; ++k)
    if (!(size[static_cast<std::size_t>(k)] > 0))
      g.fail("size", type + " needs " + std::to_string(need) + " positive size" + (need > 1 ? "s" : "") +
                         (type == "capsule" || type == "cylinder" ? " (radius, half-length) or fromto" : ""));
  for (int k = 0; k < 3; ++k) out.size[k] = size[static_cast<std::size_t>(k)];
  out.pos = pos;
  out.quat = quat;
  return out;
}

MassProps geom_mass(Ctx& ctx, const Elem& g, bool infer) {
  const GeomShape shape = geom_shape(ctx, g);
  const std::string& type = shape.type;
  MassProps out;
  if (!shape.solid) {
    const bool massive = infer && (g.has("mass") ? g.num("mass", 0) > 0 : g.num("density", 1000) > 0);
    if (massive && type != "plane")
      g.fail("type", type + " inertia not supported (give the body an <inertial>, or mass=\"0\" / density=\"0\")");
    ctx.warn("<geom type=\"" + type + "\">: no mass (nothing is rendered)", element_path(g.xml()));
    return out;
  }
  if (g.boolean("shellinertia", false)) g.fail("shellinertia", "shell inertia is not supported");
  const double* size = shape.size;
  const Vec3d pos = shape.pos;
  const Quatd quat = shape.quat;
  if (!infer) return out;

  const double r = size[0], h = 2 * size[1];
  double volume = 0;
  if (type == "sphere") volume = 4 * kPi * r * r * r / 3;
  if (type == "capsule") volume = kPi * (r * r * h + 4 * r * r * r / 3);
  if (type == "cylinder") volume = kPi * r * r * h;
  if (type == "ellipsoid") volume = 4 * kPi * size[0] * size[1] * size[2] / 3;
  if (type == "box") volume = 8 * size[0] * size[1] * size[2];

  // Sizes that overflow the derived values: refused, naming the attribute that sets them.
  const char* size_attr = g.has("fromto") ? "fromto" : "size";
  if (!std::isfinite(volume))
    g.fail(size_attr, "the " + type + "'s volume overflows (not finite): its mass and inertia cannot be derived");
  double mass = 0;
  if (g.has("mass")) {
    mass = g.num("mass", 0);
    if (mass < 0) g.fail("mass", "must be >= 0");
    if (!(volume > kEps)) mass = 0;
  } else {
    const double density = g.num("density", 1000);
    if (density < 0) g.fail("density", "must be >= 0");
    mass = density * volume;
    if (!std::isfinite(mass))
      g.fail(g.has("density") ? "density" : size_attr, "the derived mass density x volume overflows (not finite)");
  }
  if (!(mass > kEps)) return out;  // MuJoCo leaves geoms of mass <= mjEPS out of the body

  double I[3] = {0, 0, 0};
  if (type == "sphere") I[0] = I[1] = I[2] = 2 * mass * r * r / 5;
  if (type == "capsule") {
    const double ms = mass * 4 * r / (4 * r + 3 * h);  // both hemispheres
    const double mc = mass - ms;
    const double hemi = 2 * ms * r * r / 5;
    I[0] = I[1] = mc * (3 * r * r + h * h) / 12 + hemi + ms * h * (3 * r + 2 * h) / 8;
    I[2] = mc * r * r / 2 + hemi;
  }
  if (type == "cylinder") {
    I[0] = I[1] = mass * (3 * r * r + h * h) / 12;
    I[2] = mass * r * r / 2;
  }
  if (type == "ellipsoid" || type == "box") {
    const double s0 = size[0] * size[0], s1 = size[1] * size[1], s2 = size[2] * size[2];
    const double c = type == "box" ? 3.0 : 5.0;
    I[0] = mass * (s1 + s2) / c;
    I[1] = mass * (s0 + s2) / c;
    I[2] = mass * (s0 + s1) / c;
  }
  for (int k = 0; k < 3; ++k)
    if (!std::isfinite(I[k])) {
      char m[32];
      std::snprintf(m, sizeof m, "%.3g", mass);
      g.fail(size_attr, "the derived inertia (mass x size^2, mass " + std::string(m) + " kg) overflows (not finite)");
    }
  Mat3d D{};
  for (int k = 0; k < 3; ++k) D.m[k][k] = I[k];
  out.mass = mass;
  out.com = pos;
  out.inertia = urdf_detail::rotate_inertia(rot(quat), D);
  return out;
}

}  // namespace simphant::mjcf_detail
