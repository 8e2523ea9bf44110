// The bodies' "collision" shapes and the scene's "contact" section -> one Contact force
// element per pair of shapes that may touch (docs/scene-format.md, "Contact"; the model:
// docs/contact.md). Shapes are placed in their body's frame B (origin at the CoM); the
// ground's half-space in the world frame W.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "simphant/contact/collide.hpp"
#include "simphant/contact/contact_law.hpp"
#include "simphant/contact/shapes.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/name_index.hpp"

namespace simphant::scene_detail {

namespace {

/// Upper bound on the collision shapes of one body.
constexpr std::size_t kMaxCollisionShapes = 64;
/// Upper bound on the contact pairs of a scene: every pair is evaluated at every stage of
/// every step (no broad phase beyond the bounding spheres), and all pairs grow as the
/// square of the shapes; contype / conaffinity and exclude keep the count down.
constexpr std::size_t kMaxContactPairs = 65536;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Smallest restitution: below it the Tsuji damping ratio exceeds about 500, beyond the
/// range where the law's restitution relation is checked (tsuji_restitution); 1e-6 is a
/// fully plastic impact already.
constexpr double kMinRestitution = 1e-6;
/// Largest exponent n: the restitution relation is checked up to n = 10 (contact laws use
/// 1 to about 3; far larger exponents make tsuji_restitution unreliable and slow).
constexpr double kMaxExponent = 10;

/// One entry of contact.materials, as given.
struct Material {
  std::string name;
  std::string path;             ///< JSON pointer of the material object
  bool hertz = false;           ///< given as youngs_modulus + poisson_ratio (else stiffness)
  double stiffness = 0;         ///< K [N/m^n] (stiffness form)
  double youngs_modulus = 0;    ///< E [Pa] (Hertz form)
  double poisson_ratio = 0;     ///< nu [1] (Hertz form)
  double exponent = 1.5;        ///< n [1]
  double restitution = 1;       ///< e [1] in (0, 1]
  double friction = 0;          ///< mu [1]
  double slip_speed = 1e-3;     ///< v_eps [m/s]
  double rolling_friction = 0;  ///< mu_roll [m]
  double rolling_speed = 1e-3;  ///< w_eps [rad/s]
};

/// The "contact" section, without its ground (compiled as a shape).
struct ContactSection {
  NormalLaw law = NormalLaw::Tsuji;
  double reference_speed = 0;  ///< HuntCrossley's v_ref [m/s]; 0 for Tsuji
  double margin = 0;           ///< [m]
  double impact_speed = 0;     ///< [m/s]; 0: estimated by the step-size check
  std::vector<Material> materials;
  NameIndex material_index;
  std::set<std::pair<int, int>> excluded;  ///< body pairs (lower index first; kGround = -1)
  /// Pairs of a robot file's links (MJCF bodies) whose own shapes never touch, lower name
  /// first; "world" is the ground (ReducedModel::collision_exclude_links).
  std::set<std::pair<std::string, std::string>> excluded_links;
};

/// A collision shape as compiled, with what a pair needs to be named and checked.
struct CollisionShape {
  Shape<double> shape{};
  int body = kGround;        ///< owning body (kGround: the ground plane)
  std::string path;          ///< JSON pointer of the shape
  std::string label;         ///< "<body name>[k]", or "ground"
  std::string link;          ///< a robot's shape: the link (MJCF body) it is given on; "world" for the ground
  long long contype = 1;     ///< filter bits (MuJoCo's rule: filter_allows)
  long long conaffinity = 1;
  int material = 0;          ///< index into ContactSection::materials
};

std::pair<int, int> body_pair(int a, int b) { return a < b ? std::make_pair(a, b) : std::make_pair(b, a); }

// ---- Numbers ----------------------------------------------------------------------------

double positive_number(const json& obj, const std::string& path, const char* key) {
  const std::string p = child_path(path, key);
  const double x = as_number(require_key(obj, path, key), p);
  if (!(x > 0)) throw SceneError(p, "must be > 0 (got " + format_number(x) + ")");
  return x;
}

/// An optional number obj[key] >= 0 (> 0 when strict), `fallback` when absent.
double bounded_or(const json& obj, const std::string& path, const char* key, double fallback, bool strict) {
  const json* v = find_key(obj, key);
  if (v == nullptr) return fallback;
  const std::string p = child_path(path, key);
  const double x = as_number(*v, p);
  if (strict && !(x > 0)) throw SceneError(p, "must be > 0 (got " + format_number(x) + ")");
  if (!strict && !(x >= 0)) throw SceneError(p, "must be >= 0 (got " + format_number(x) + ")");
  return x;
}

/// contype / conaffinity: an integer in [0, 2^31), 1 when absent.
long long filter_bits(const json& obj, const std::string& path, const char* key) {
  const json* v = find_key(obj, key);
  if (v == nullptr) return 1;
  const std::string p = child_path(path, key);
  const long long bits = as_integer(*v, p);
  if (bits < 0 || bits >= (1LL << 31))
    throw SceneError(p, "must be a non-negative integer below 2^31 (got " + std::to_string(bits) + ")");
  return bits;
}

// ---- The contact section ----------------------------------------------------------------

/// The stiffness form: `stiffness`, or `youngs_modulus` with `poisson_ratio` (Hertz).
void compile_material_stiffness(const json& j, const std::string& path, Material& m) {
  const json* k = find_key(j, "stiffness");
  const json* e = find_key(j, "youngs_modulus");
  if (k != nullptr && e != nullptr)
    throw SceneError(child_path(path, "youngs_modulus"),
                     "give either stiffness or youngs_modulus (with poisson_ratio), not both");
  if (e == nullptr) {
    if (find_key(j, "poisson_ratio") != nullptr)
      throw SceneError(child_path(path, "poisson_ratio"), "only with youngs_modulus (Hertz stiffness)");
    if (k == nullptr)
      throw SceneError(child_path(path, "stiffness"),
                       "required key is missing (or give youngs_modulus and poisson_ratio for Hertz stiffness)");
    m.stiffness = positive_number(j, path, "stiffness");
    return;
  }
  m.hertz = true;
  m.youngs_modulus = positive_number(j, path, "youngs_modulus");
  const std::string nu_path = child_path(path, "poisson_ratio");
  m.poisson_ratio = as_number(require_key(j, path, "poisson_ratio"), nu_path);
  if (!(m.poisson_ratio >= 0 && m.poisson_ratio < 0.5))
    throw SceneError(nu_path, "must be in [0, 0.5) (got " + format_number(m.poisson_ratio) + ")");
}

Material compile_material(const json& j, const std::string& name, const std::string& path) {
  expect_object(j, path);
  check_keys(j, path,
             {"stiffness", "youngs_modulus", "poisson_ratio", "exponent", "restitution", "friction", "slip_speed",
              "rolling_friction", "rolling_speed"});
  Material m;
  m.name = name;
  m.path = path;
  compile_material_stiffness(j, path, m);
  const std::string n_path = child_path(path, "exponent");
  m.exponent = number_or(j, path, "exponent", 1.5);
  if (!(m.exponent >= 1)) throw SceneError(n_path, "must be >= 1 (got " + format_number(m.exponent) + ")");
  if (!(m.exponent <= kMaxExponent))
    throw SceneError(n_path, "must be <= 10 (got " + format_number(m.exponent) +
                                 "): the law's restitution relation is checked for exponents up to 10");
  if (m.hertz && m.exponent != 1.5)
    throw SceneError(n_path, "must be 1.5 with youngs_modulus (Hertz point contact), got " + format_number(m.exponent) +
                                 "; give stiffness for another exponent");
  const std::string e_path = child_path(path, "restitution");
  m.restitution = as_number(require_key(j, path, "restitution"), e_path);
  if (!(m.restitution > 0 && m.restitution <= 1))
    throw SceneError(e_path, "must be in (0, 1] (got " + format_number(m.restitution) + ")");
  if (m.restitution < kMinRestitution)
    throw SceneError(e_path, "must be >= 1e-6 (got " + format_number(m.restitution) +
                                 "): a smaller restitution needs a damping ratio beyond the range where the law's "
                                 "restitution relation holds, and 1e-6 is a fully plastic impact already");
  m.friction = bounded_or(j, path, "friction", 0.0, false);
  m.slip_speed = bounded_or(j, path, "slip_speed", 1e-3, true);
  m.rolling_friction = bounded_or(j, path, "rolling_friction", 0.0, false);
  m.rolling_speed = bounded_or(j, path, "rolling_speed", 1e-3, true);
  return m;
}

void compile_materials(const json& materials, const std::string& path, ContactSection& s) {
  expect_object(materials, path);
  if (materials.empty()) throw SceneError(path, "must define at least one material");
  for (auto it = materials.begin(); it != materials.end(); ++it) {
    const std::string m_path = child_path(path, it.key());
    const std::string name = as_name(json(it.key()), m_path);
    s.material_index.insert(name, static_cast<int>(s.materials.size()));
    s.materials.push_back(compile_material(it.value(), name, m_path));
  }
}

/// contact.law and contact.reference_speed.
void compile_law(const json& c, const std::string& path, ContactSection& s) {
  const std::string law_path = child_path(path, "law");
  const json* law_value = find_key(c, "law");
  const std::string law = law_value != nullptr ? as_string(*law_value, law_path) : "tsuji";
  const std::string v_path = child_path(path, "reference_speed");
  if (law == "tsuji") {
    if (find_key(c, "reference_speed") != nullptr)
      throw SceneError(v_path, "only with law \"hunt_crossley\" (tsuji's restitution holds at every impact speed)");
    return;
  }
  if (law == "hunt_crossley") {
    s.law = NormalLaw::HuntCrossley;
    if (find_key(c, "reference_speed") == nullptr)
      throw SceneError(v_path, "required key is missing (hunt_crossley's restitution holds at this impact speed)");
    s.reference_speed = positive_number(c, path, "reference_speed");
    return;
  }
  if (law == "lankarani_nikravesh" || law == "flores" || law == "exact_impact")
    throw SceneError(law_path, "\"" + law +
                                   "\" needs a per-contact impact-speed state that the solvers do not carry yet; use "
                                   "\"tsuji\", whose restitution is exact at every impact speed without state");
  throw SceneError(law_path, "must be \"tsuji\" or \"hunt_crossley\" (got \"" + printable(law) + "\")");
}

/// contact.exclude: [[body, body], ...] ("ground" allowed) into s.excluded.
void compile_exclude(const json& ex, const std::string& path, const NameIndex& bodies, ContactSection& s) {
  expect_array(ex, path);
  for (std::size_t k = 0; k < ex.size(); ++k) {
    const std::string p = child_path(path, k);
    if (!ex[k].is_array() || ex[k].size() != 2)
      throw SceneError(p, std::string("must be an array of 2 body names (got ") + type_word(ex[k]) +
                              (ex[k].is_array() ? " of size " + std::to_string(ex[k].size()) : std::string()) + ")");
    int side[2];
    for (std::size_t l = 0; l < 2; ++l) {
      const std::string np = child_path(p, l);
      const std::string name = as_string(ex[k][l], np);
      side[l] = name == "ground" ? kGround : bodies.find(name, -2);
      if (side[l] == -2) throw SceneError(np, "unknown body \"" + printable(name) + "\"");
    }
    if (side[0] == side[1]) throw SceneError(child_path(p, 1), "must differ from the first body");
    s.excluded.insert(body_pair(side[0], side[1]));
  }
}

ContactSection compile_contact_section(const json& c, const std::string& path, const Model& model) {
  expect_object(c, path);
  check_keys(c, path, {"law", "reference_speed", "margin", "impact_speed", "ground", "materials", "exclude"});
  ContactSection s;
  compile_law(c, path, s);
  s.margin = bounded_or(c, path, "margin", 0.0, false);
  s.impact_speed = bounded_or(c, path, "impact_speed", 0.0, true);
  compile_materials(require_key(c, path, "materials"), child_path(path, "materials"), s);
  if (const json* ex = find_key(c, "exclude"))
    compile_exclude(*ex, child_path(path, "exclude"), NameIndex(model.bodies), s);
  for (const Joint& j : model.joints) s.excluded.insert(body_pair(j.body_i, j.body_j));
  return s;
}

// ---- Shapes ------------------------------------------------------------------------------

/// The shape's "material" (default "default") -> its index; an unknown name lists the
/// defined ones.
int material_ref(const json& obj, const std::string& path, const ContactSection& s) {
  const std::string p = child_path(path, "material");
  const json* v = find_key(obj, "material");
  const std::string name = v != nullptr ? as_string(*v, p) : "default";
  const int k = s.material_index.find(name, -1);
  if (k >= 0) return k;
  std::string defined;
  for (const Material& m : s.materials) defined += (defined.empty() ? "" : ", ") + m.name;
  throw SceneError(p, "unknown material \"" + printable(name) + "\"" +
                          (v == nullptr ? " (the default of a shape that names none)" : "") +
                          " (defined in /contact/materials: " + defined + ")");
}

/// "origin": {position?, orientation?} -> pos_B, quat_B (identity when absent).
void compile_shape_origin(const json& obj, const std::string& path, Shape<double>& shape) {
  shape.pos_B = zero3<double>();
  shape.quat_B = Quatd{1, 0, 0, 0};
  const json* o = find_key(obj, "origin");
  if (o == nullptr) return;
  const std::string p = child_path(path, "origin");
  expect_object(*o, p);
  check_keys(*o, p, {"position", "orientation"});
  shape.pos_B = vec3_or(*o, p, "position", zero3<double>());
  if (const json* q = find_key(*o, "orientation")) shape.quat_B = compile_quaternion(*q, child_path(p, "orientation"));
}

/// The kind and MuJoCo-style sizes (shapes.hpp) of a collision shape from its type and
/// dimensions: sphere {r}, capsule and cylinder {r, length / 2}, box the half edges.
void compile_shape_kind(const json& v, const std::string& path, Shape<double>& shape) {
  const std::string type_path = child_path(path, "type");
  const std::string type = as_string(require_key(v, path, "type"), type_path);
  shape.size[0] = shape.size[1] = shape.size[2] = 0;
  if (type == "sphere") {
    check_keys(v, path, {"type", "radius", "origin", "material", "contype", "conaffinity"});
    shape.kind = ShapeKind::Sphere;
    shape.size[0] = positive_number(v, path, "radius");
  } else if (type == "capsule" || type == "cylinder") {
    check_keys(v, path, {"type", "radius", "length", "origin", "material", "contype", "conaffinity"});
    shape.kind = type == "capsule" ? ShapeKind::Capsule : ShapeKind::Cylinder;
    shape.size[0] = positive_number(v, path, "radius");
    shape.size[1] = 0.5 * positive_number(v, path, "length");
  } else if (type == "box") {
    check_keys(v, path, {"type", "size", "origin", "material", "contype", "conaffinity"});
    shape.kind = ShapeKind::Box;
    const std::string p = child_path(path, "size");
    const Vec3d s = as_vec3(require_key(v, path, "size"), p);
    for (int k = 0; k < 3; ++k) {
      if (!(s[k] > 0)) throw SceneError(child_path(p, k), "must be > 0 (got " + format_number(s[k]) + ")");
      shape.size[k] = 0.5 * s[k];
    }
  } else if (type == "mesh") {
    throw SceneError(type_path, "a mesh cannot be a collision shape (one of sphere, box, capsule, cylinder; a mesh "
                                "belongs in the body's visual)");
  } else if (type == "plane") {
    throw SceneError(type_path, "a body cannot carry a plane (one of sphere, box, capsule, cylinder); the ground's "
                                "half-space is contact.ground");
  } else {
    throw SceneError(type_path, "unknown collision type \"" + printable(type) +
                                    "\" (one of sphere, box, capsule, cylinder)");
  }
}

CollisionShape compile_collision_shape(const json& v, const std::string& path, int body, const std::string& label,
                                       const ContactSection& s) {
  expect_object(v, path);
  CollisionShape c;
  c.body = body;
  c.path = path;
  c.label = label;
  compile_shape_kind(v, path, c.shape);
  compile_shape_origin(v, path, c.shape);
  c.material = material_ref(v, path, s);
  c.contype = filter_bits(v, path, "contype");
  c.conaffinity = filter_bits(v, path, "conaffinity");
  return c;
}

/// A body's "collision": one shape object or an array of 1 .. kMaxCollisionShapes.
std::vector<CollisionShape> compile_body_collision(const json& col, const std::string& path, int body,
                                                   const std::string& body_name, const ContactSection& s) {
  std::vector<CollisionShape> out;
  const auto label = [&body_name](std::size_t k) { return body_name + "[" + std::to_string(k) + "]"; };
  if (!col.is_array()) {
    if (!col.is_object())
      throw SceneError(path, std::string("must be a shape object or an array of them (got ") + type_word(col) + ")");
    out.push_back(compile_collision_shape(col, path, body, label(0), s));
    return out;
  }
  if (col.empty()) throw SceneError(path, "must contain at least one shape (or leave collision out)");
  if (col.size() > kMaxCollisionShapes)
    throw SceneError(path, std::to_string(col.size()) + " shapes, over the limit of " +
                               std::to_string(kMaxCollisionShapes));
  for (std::size_t k = 0; k < col.size(); ++k)
    out.push_back(compile_collision_shape(col[k], child_path(path, k), body, label(k), s));
  return out;
}

/// The rotation taking +z to the unit vector n (the ground plane's S -> W). The shortest
/// arc from +z, or for n_z < 0 the shortest arc from -z after a half turn about x, so that
/// no branch divides by a small 1 + n_z (n = -z gives the half turn about x itself).
Quatd rotation_z_to(const Vec3d& n) {
  if (n.z >= 0) return normalized(Quatd{1 + n.z, -n.y, n.x, 0});  // axis z x n, angle acos(n_z)
  const Quatd from_minus_z = normalized(Quatd{1 - n.z, n.y, -n.x, 0});  // axis -z x n
  return qmul(from_minus_z, Quatd{0, 1, 0, 0});
}

/// contact.ground: the half-space {x : (x - point) . n <= 0} as a Plane on kGround.
CollisionShape compile_ground(const json& g, const std::string& path, const ContactSection& s) {
  expect_object(g, path);
  check_keys(g, path, {"normal", "point", "material", "contype", "conaffinity"});
  CollisionShape c;
  c.body = kGround;
  c.path = path;
  c.label = "ground";
  c.link = "world";
  c.shape.kind = ShapeKind::Plane;
  c.shape.size[0] = c.shape.size[1] = c.shape.size[2] = 0;
  const std::string n_path = child_path(path, "normal");
  const Vec3d n = vec3_or(g, path, "normal", Vec3d{0, 0, 1});
  const double len = norm(n);
  if (!(len >= 1e-12)) throw SceneError(n_path, "must not be zero (norm " + format_number(len) + ")");
  c.shape.quat_B = rotation_z_to((1.0 / len) * n);
  c.shape.pos_B = vec3_or(g, path, "point", zero3<double>());
  c.material = material_ref(g, path, s);
  c.contype = filter_bits(g, path, "contype");
  c.conaffinity = filter_bits(g, path, "conaffinity");
  return c;
}

// ---- Pairs ------------------------------------------------------------------------------

/// MuJoCo's contype / conaffinity rule: either shape's type meets the other's affinity.
bool filter_allows(const CollisionShape& a, const CollisionShape& b) {
  return (a.contype & b.conaffinity) != 0 || (b.contype & a.conaffinity) != 0;
}

const char* kind_word(ShapeKind k) {
  switch (k) {
    case ShapeKind::Plane: return "ground plane";
    case ShapeKind::Sphere: return "sphere";
    case ShapeKind::Capsule: return "capsule";
    case ShapeKind::Box: return "box";
    case ShapeKind::Cylinder: return "cylinder";
    case ShapeKind::Bearing: return "bearing bore";
    case ShapeKind::Journal: return "journal";
  }
  return "shape";
}

/// Refuses a pair of kinds that contact/collide.hpp does not implement.
void check_supported(const CollisionShape& a, const CollisionShape& b) {
  if (collide_supported(a.shape.kind, b.shape.kind)) return;
  throw SceneError(b.path, std::string("a ") + kind_word(b.shape.kind) + " (" + b.label + ") cannot touch the " +
                               kind_word(a.shape.kind) + " (" + a.label + ") " + a.path +
                               " (supported pairs: the ground plane with any shape, a sphere with any shape, "
                               "capsule-capsule, capsule-box, capsule-cylinder, box-box); keep them apart with contype / conaffinity "
                               "or contact.exclude");
}

/// Radius of curvature of a shape's contact surface for Hertz [m]: a sphere's, capsule's
/// or journal's radius, minus a bearing bore's (concave: a journal of radius R_j in a bore
/// of R_b gives R* = R_j R_b / (R_b - R_j), the clearance joint's conformal contact),
/// +infinity for the flat faces of a plane or box; NaN where Hertz has no single radius (a
/// cylinder's rim and edges).
double hertz_radius(const Shape<double>& s) {
  if (s.kind == ShapeKind::Sphere || s.kind == ShapeKind::Capsule || s.kind == ShapeKind::Journal) return s.size[0];
  if (s.kind == ShapeKind::Bearing) return -s.size[0];
  if (s.kind == ShapeKind::Plane || s.kind == ShapeKind::Box) return kInfinity;
  return std::numeric_limits<double>::quiet_NaN();
}

/// The pair's K [N/m^n]: two `stiffness` values in series, K = 2 Ka Kb / (Ka + Kb) (equal
/// materials give K); two Hertz materials, K = 4/3 E* sqrt(R*).
double pair_stiffness(const CollisionShape& a, const CollisionShape& b, const Material& ma, const Material& mb) {
  if (ma.hertz != mb.hertz) {
    const Material& with_k = ma.hertz ? mb : ma;
    const Material& with_e = ma.hertz ? ma : mb;
    throw SceneError(with_e.path, "gives youngs_modulus and material \"" + with_k.name +
                                      "\" gives stiffness, and the shapes " + a.path + " and " + b.path +
                                      " touch: give both materials the same form");
  }
  if (!ma.hertz) return 2 / (1 / ma.stiffness + 1 / mb.stiffness);  // finite for any finite Ka, Kb
  const double ra = hertz_radius(a.shape), rb = hertz_radius(b.shape);
  const bool curved = std::isfinite(ra) || std::isfinite(rb);
  if (std::isnan(ra) || std::isnan(rb) || !curved)
    throw SceneError(b.path, std::string("Hertz stiffness (youngs_modulus) needs a sphere or capsule on one side and a "
                                         "sphere, capsule, box or the ground plane on the other, not a ") +
                                 kind_word(b.shape.kind) + " against the " + kind_word(a.shape.kind) + " " + a.path +
                                 "; give materials \"" + ma.name + "\" and \"" + mb.name + "\" a stiffness instead");
  return hertz_stiffness(effective_modulus(ma.youngs_modulus, ma.poisson_ratio, mb.youngs_modulus, mb.poisson_ratio),
                         effective_radius(ra, rb));
}

/// Tsuji damping ratios by (restitution, exponent): an exponent other than 1.5 inverts the
/// restitution by bisection (about 10 ms), so each value is computed once per compile.
using ZetaCache = std::map<std::pair<double, double>, double>;

/// normal_law_params of the pair, its Tsuji damping ratio taken from `cache`.
NormalLawParams<double> pair_law(const ContactSection& s, double K, double n, double e, double m_eff,
                                 ZetaCache& cache) {
  if (s.law != NormalLaw::Tsuji) return normal_law_params(s.law, K, n, e, m_eff, s.reference_speed, 0.0);
  const auto key = std::make_pair(e, n);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, tsuji_damping_ratio(e, n)).first;
  // as normal_law_params(Tsuji, ...): D = 2 zeta sqrt(n m* K)
  return NormalLawParams<double>{static_cast<int>(NormalLaw::Tsuji), K, n, 2.0 * it->second * std::sqrt(n * m_eff * K),
                                 0.0};
}

/// The pair's law and friction from its two materials (docs/scene-format.md, "Contact",
/// "Pair parameters"); m* the reduced mass of the two bodies, the body's own mass against
/// the ground.
ContactPairParams<double> pair_params(const CollisionShape& a, const CollisionShape& b, const ContactSection& s,
                                      const Model& model, ZetaCache& cache) {
  const Material& ma = s.materials[static_cast<std::size_t>(a.material)];
  const Material& mb = s.materials[static_cast<std::size_t>(b.material)];
  if (ma.exponent != mb.exponent)
    throw SceneError(child_path(mb.path, "exponent"),
                     format_number(mb.exponent) + " differs from material \"" + ma.name + "\"'s " +
                         format_number(ma.exponent) + ", and the shapes " + a.path + " and " + b.path +
                         " touch: a pair's two materials need one exponent");
  const double K = pair_stiffness(a, b, ma, mb);
  const auto mass = [&model](int body) {  // the ground's is infinite
    return body == kGround ? kInfinity : model.bodies[static_cast<std::size_t>(body)].mass;
  };
  const double m_eff = effective_mass(mass(a.body), mass(b.body));
  ContactPairParams<double> p{};
  p.normal = pair_law(s, K, ma.exponent, combine_restitution(ma.restitution, mb.restitution), m_eff, cache);
  p.friction.mu = combine_friction(ma.friction, mb.friction);
  p.friction.v_eps = std::fmax(ma.slip_speed, mb.slip_speed);
  p.friction.mu_roll = combine_coefficient(ma.rolling_friction, mb.rolling_friction, CombineRule::GeometricMean);
  p.friction.w_eps = std::fmax(ma.rolling_speed, mb.rolling_speed);
  p.margin = s.margin;
  return p;
}

/// Appends the Contact element of shapes a (side i) and b (side j) when their filter
/// allows it and their bodies are not excluded.
/// Appends the Contact element `name` of shapes a (side i) and b (side j), whatever their
/// filters and bodies.
void append_pair(const CollisionShape& a, const CollisionShape& b, const std::string& name, const ContactSection& s,
                 Model& model, ZetaCache& cache, std::size_t& n_pairs) {
  check_supported(a, b);
  for (const CollisionShape* c : {&a, &b})  // a robot's massless link (solvers aba / cga allow them)
    if (c->body != kGround && !(model.bodies[static_cast<std::size_t>(c->body)].mass > 0))
      throw SceneError(c->path, "body '" + model.bodies[static_cast<std::size_t>(c->body)].name +
                                    "' has no mass: a contact force needs a mass on each side (give the link an "
                                    "<inertial>, or put the shapes on a link with mass)");
  if (++n_pairs > kMaxContactPairs)
    throw SceneError("/contact", "more than " + std::to_string(kMaxContactPairs) +
                                     " contact pairs; keep shapes that never meet apart with contype / conaffinity "
                                     "or contact.exclude");
  ForceElement f;
  f.name = name;
  f.type = ForceType::Contact;
  f.body_i = a.body;
  f.body_j = b.body;
  f.shape_i = a.shape;
  f.shape_j = b.shape;
  f.contact = pair_params(a, b, s, model, cache);
  const Material& ma = s.materials[static_cast<std::size_t>(a.material)];
  const Material& mb = s.materials[static_cast<std::size_t>(b.material)];
  const bool a_softer = ma.hertz ? ma.youngs_modulus <= mb.youngs_modulus : ma.stiffness <= mb.stiffness;
  f.contact_source = {child_path((a_softer ? ma : mb).path, ma.hertz ? "youngs_modulus" : "stiffness"),
                      child_path((ma.restitution <= mb.restitution ? ma : mb).path, "restitution"),
                      child_path((ma.slip_speed >= mb.slip_speed ? ma : mb).path, "slip_speed"),
                      child_path((ma.rolling_speed >= mb.rolling_speed ? ma : mb).path, "rolling_speed")};
  model.forces.push_back(std::move(f));
}

void add_pair(const CollisionShape& a, const CollisionShape& b, const ContactSection& s, Model& model,
              ZetaCache& cache, std::size_t& n_pairs) {
  if (!filter_allows(a, b) || s.excluded.count(body_pair(a.body, b.body)) != 0) return;
  if (!a.link.empty() && !b.link.empty() &&
      s.excluded_links.count(std::minmax(a.link, b.link)) != 0)
    return;
  append_pair(a, b, "contact " + a.label + " " + b.label, s, model, cache, n_pairs);
}

// ---- Joint clearance ---------------------------------------------------------------------

/// The joints with a radial clearance (joints[k].clearance), as indices into both the
/// document's and the model's joints.
std::vector<int> clearance_joints(const json& doc) {
  std::vector<int> out;
  const json* joints = find_key(doc, "joints");
  if (joints == nullptr || !joints->is_array()) return out;
  for (std::size_t k = 0; k < joints->size(); ++k)
    if ((*joints)[k].is_object() && find_key((*joints)[k], "clearance") != nullptr) out.push_back(static_cast<int>(k));
  return out;
}

/// A joint frame's side as a shape pose: origin u, axes (a, b, v) as the shape's (x, y, z).
void place_on_joint_side(const Vec3d& u, const Vec3d& a, const Vec3d& b, const Vec3d& v, Shape<double>& shape) {
  Mat3d R;
  for (int r = 0; r < 3; ++r) {
    R.m[r][0] = a[r];
    R.m[r][1] = b[r];
    R.m[r][2] = v[r];
  }
  shape.pos_B = u;
  shape.quat_B = normalized(quat_from_rotation(R));
}

/// joints[k].clearance {radial, journal_radius, material?}: the pair of a bearing bore of
/// radius journal_radius + radial on body_i at the joint's frame and a journal of
/// journal_radius on body_j at its frame, named "clearance <joint>" (docs/contact.md,
/// "Joint clearance"). The joint compiled as planar (joint_compile.cpp).
void add_clearance_pair(const json& doc, int k, const ContactSection& s, Model& model, ZetaCache& cache,
                        std::size_t& n_pairs) {
  const std::string path = child_path(child_path("/joints", static_cast<std::size_t>(k)), "clearance");
  const json& c = require_key(require_key(doc, "", "joints")[static_cast<std::size_t>(k)], "", "clearance");
  check_keys(c, path, {"radial", "journal_radius", "material"});
  const double radial = positive_number(c, path, "radial");
  const double radius = positive_number(c, path, "journal_radius");
  const Joint& j = model.joints[static_cast<std::size_t>(k)];
  const JointFrame<double>& f = j.frame;
  CollisionShape bearing, journal;
  bearing.body = j.body_i;
  journal.body = j.body_j;
  bearing.path = journal.path = path;
  bearing.label = j.name + ".bearing";
  journal.label = j.name + ".journal";
  bearing.material = journal.material = material_ref(c, path, s);
  bearing.shape.kind = ShapeKind::Bearing;
  bearing.shape.size[0] = radius + radial;
  journal.shape.kind = ShapeKind::Journal;
  journal.shape.size[0] = radius;
  place_on_joint_side(f.u_i, f.a_i, f.b_i, f.v_i, bearing.shape);
  place_on_joint_side(f.u_j, f.a_j, f.b_j, f.v_j, journal.shape);
  append_pair(bearing, journal, "clearance " + j.name, s, model, cache, n_pairs);
}

/// Where the collision shapes of one body are given.
struct CollisionSource {
  const json* collision = nullptr;  ///< the shape object or array
  std::string path;                 ///< its JSON pointer
  int body = kGround;               ///< the body that carries them
  std::string label;                ///< the shapes' label stem: the body's (or link's) name
  bool moved = false;               ///< given in another frame than B (a robot link's)
  Mat3d R = identity3<double>();    ///< that frame -> body frame B: x_B = R x + p
  Vec3d p{};
};

/// The maximal model's body that holds a robot link's owner (LinkFrame's convention:
/// a link index, -1 the base, -2 welded to W) and that owner frame's origin in the body's
/// frame B, which has the link's axes at its centre of mass (urdf/maximal_from_urdf.hpp);
/// kGround for an owner fixed to the world (a fixed base, or the world side of a
/// floating joint).
int robot_owner_body(const ReducedModel& rm, int owner, Vec3d& origin_B) {
  if (owner < -1 || (owner == -1 && !rm.floating)) return kGround;
  origin_B = -1.0 * (owner >= 0 ? rm.links[static_cast<std::size_t>(owner)].com : rm.base.com);
  return owner + (rm.floating ? 1 : 0);  // floating: body 0 is the base
}

/// A scene's bodies[k].collision, in the body frame B itself.
std::vector<CollisionSource> scene_sources(const json& doc, const Model& model) {
  std::vector<CollisionSource> out;
  const json& bodies = require_key(doc, "", "bodies");
  for (std::size_t k = 0; k < bodies.size(); ++k)
    if (const json* col = find_key(bodies[k], "collision")) {
      CollisionSource c;
      c.collision = col;
      c.path = child_path(child_path("/bodies", k), "collision");
      c.body = static_cast<int>(k);
      c.label = model.bodies[k].name;
      out.push_back(c);
    }
  return out;
}

/// A robot's robot.collision: {link name: shapes in that URDF link's frame L}, carried to
/// the frame B of the body that holds the link (at the body's centre of mass with its
/// link's axes, urdf/maximal_from_urdf.hpp). Links that fixed joints merged into another
/// are placed through their fixed transform. Errors: unknown link; a link fixed to the
/// world (a fixed base, or the world side of a floating joint).
std::vector<CollisionSource> robot_sources(const json& doc, const Model& model) {
  std::vector<CollisionSource> out;
  const json* col = find_key(require_key(doc, "", "robot"), "collision");
  if (col == nullptr) return out;
  const std::string path = "/robot/collision";
  expect_object(*col, path);
  if (col->empty()) throw SceneError(path, "must name at least one link (or leave robot.collision out)");
  const ReducedModel& rm = model.robot->model;
  for (auto it = col->begin(); it != col->end(); ++it) {
    const std::string p = child_path(path, it.key());
    LinkFrame f;
    if (!rm.link_frame(it.key(), f)) {
      std::string known = rm.floating ? rm.base.link : std::string();
      for (const ReducedLink& l : rm.links) known += (known.empty() ? "" : ", ") + l.name;
      throw SceneError(p, "unknown link \"" + printable(it.key()) + "\" (the robot's moving links" +
                              (rm.floating ? " and floating base" : "") + ": " + known +
                              ", or a link fixed to one of them)");
    }
    Vec3d origin_B{};
    const int body = robot_owner_body(rm, f.owner, origin_B);
    if (body == kGround)
      throw SceneError(p, "link \"" + printable(it.key()) + "\" is fixed to the world: only moving links" +
                              std::string(rm.floating ? " and the floating base" : "") +
                              " carry collision shapes (the ground is contact.ground)");
    CollisionSource c;
    c.collision = &it.value();
    c.path = p;
    c.body = body;
    c.label = it.key();
    c.moved = true;
    c.R = f.R;
    c.p = f.p + origin_B;
    out.push_back(c);
  }
  return out;
}

/// Whether the robot section asks for the URDF's own <collision> primitives.
bool wants_urdf_collision(const json& doc) {
  const json* robot = find_key(doc, "robot");
  const json* flag = robot != nullptr ? find_key(*robot, "urdf_collision") : nullptr;
  if (flag == nullptr) return false;
  if (!flag->is_boolean())
    throw SceneError("/robot/urdf_collision", std::string("must be a boolean (got ") + type_word(*flag) + ")");
  return flag->get<bool>();
}

/// robot.urdf_collision: the robot file's shapes (ReducedModel::link_collisions: the
/// URDF's <collision> spheres, boxes, cylinders and meshes, the MJCF's geoms) on the bodies
/// of their links (through fixed joints and welds as robot.collision), with material
/// "default" and the file's contype / conaffinity (URDF: 1 and 0, so they touch the ground
/// and shapes with conaffinity 1, not each other). A mesh becomes the box that bounds its
/// vertices (mesh_bounding_box), with a warning naming its links; shapes fixed to the
/// world are left out with a warning.
std::vector<CollisionShape> urdf_shapes(const Model& model, const ContactSection& s) {
  const std::string path = "/robot/urdf_collision";
  const ReducedModel& rm = model.robot->model;
  const int material = s.material_index.find("default", -1);
  if (material < 0)
    throw SceneError(path, "the robot file's shapes take the material \"default\", which contact.materials does not "
                           "define");
  std::vector<CollisionShape> out;
  std::string world, meshes;
  for (const LinkCollision& given : rm.link_collisions) {
    const std::string where =
        given.element + (given.mesh.empty() ? "" : " (the box bounding mesh \"" + given.mesh + "\")");
    Vec3d origin_B{};
    const int body = robot_owner_body(rm, given.owner, origin_B);
    if (body == kGround) {
      world += (world.empty() ? "" : ", ") + where;
      continue;
    }
    if (!given.mesh.empty()) meshes += (meshes.empty() ? "'" : ", '") + given.link + "'";
    const LinkCollision c = given.mesh.empty() ? given : mesh_bounding_box(given, model.robot->urdf_path, path);
    const int used = c.kind == ShapeKind::Sphere ? 1 : c.kind == ShapeKind::Box ? 3 : 2;
    for (int k = 0; k < used; ++k)
      if (!(c.size[k] > 0) || !std::isfinite(c.size[k]))
        throw SceneError(path, where + ": a size of " + format_number(2 * c.size[k]) +
                                   " m (must be > 0; give the link's shapes in robot.collision instead)");
    CollisionShape shape;
    shape.shape.kind = c.kind;
    for (int k = 0; k < 3; ++k) shape.shape.size[k] = c.size[k];
    shape.shape.pos_B = c.p + origin_B;
    shape.shape.quat_B = normalized(quat_from_rotation(c.R));
    shape.body = body;
    shape.path = path;
    shape.label = c.label;
    shape.link = c.link;
    shape.material = material;
    shape.contype = c.contype;
    shape.conaffinity = c.conaffinity;
    out.push_back(shape);
  }
  if (!world.empty()) warn_once(path + ": " + world + ": fixed to the world, not used (the ground is contact.ground)");
  if (!meshes.empty())
    warn_once(path + ": the mesh <collision> of links " + meshes +
              ": each replaced by the box that bounds its vertices in the mesh's frame (a coarser shape than the "
              "mesh; give those links primitives in robot.collision for a closer fit)");
  if (out.empty())
    throw SceneError(path, "the robot file has no collision shape on a moving link (URDF: <collision>; MJCF: a "
                           "sphere, capsule, box or cylinder <geom> whose contype or conaffinity is nonzero)");
  return out;
}

}  // namespace

void compile_contacts(const json& doc, Model& model) {
  const json* contact = find_key(doc, "contact");
  const std::vector<CollisionSource> sources = model.robot ? robot_sources(doc, model) : scene_sources(doc, model);
  const bool from_urdf = model.robot && wants_urdf_collision(doc);
  const std::vector<int> clearances = model.robot ? std::vector<int>{} : clearance_joints(doc);
  if (contact == nullptr) {
    if (!clearances.empty())
      throw SceneError("/contact", "required key is missing (" +
                                       child_path(child_path("/joints", static_cast<std::size_t>(clearances.front())),
                                                  "clearance") +
                                       " gives a joint clearance; the contact section gives its material and law)");
    if (sources.empty() && !from_urdf) return;
    throw SceneError("/contact", "required key is missing (" +
                                     (sources.empty() ? std::string("/robot/urdf_collision") : sources.front().path) +
                                     " gives collision shapes; the contact section gives their materials and law)");
  }
  if (sources.empty() && !from_urdf && clearances.empty())
    throw SceneError("/contact", model.robot ? "no link has collision shapes (give robot.collision or "
                                               "robot.urdf_collision, or leave contact out)"
                                             : "no body has collision shapes and no joint a clearance (give "
                                               "bodies[k].collision or joints[k].clearance, or leave contact out)");
  ContactSection s = compile_contact_section(*contact, "/contact", model);
  if (model.robot) {  // the file's own exclusions (MJCF: the parent filter, <contact><exclude>)
    const ReducedModel& rm = model.robot->model;
    for (const std::pair<int, int>& e : rm.collision_exclude) {
      Vec3d unused{};
      s.excluded.insert(body_pair(robot_owner_body(rm, e.first, unused), robot_owner_body(rm, e.second, unused)));
    }
    s.excluded_links.insert(rm.collision_exclude_links.begin(), rm.collision_exclude_links.end());
  }
  model.contact_impact_speed = s.impact_speed;
  std::vector<std::vector<CollisionShape>> shapes(model.bodies.size());  // per body, in shape order
  for (const CollisionSource& src : sources) {
    std::vector<CollisionShape> given = compile_body_collision(*src.collision, src.path, src.body, src.label, s);
    std::vector<CollisionShape>& own = shapes[static_cast<std::size_t>(src.body)];
    if (own.size() + given.size() > kMaxCollisionShapes)
      throw SceneError(src.path, "body '" + model.bodies[static_cast<std::size_t>(src.body)].name + "' has " +
                                     std::to_string(own.size() + given.size()) + " shapes, over the limit of " +
                                     std::to_string(kMaxCollisionShapes));
    for (CollisionShape& c : given) {
      if (src.moved) {  // a robot's link
        c.link = src.label;
        c.shape.pos_B = mul(src.R, c.shape.pos_B) + src.p;
        c.shape.quat_B = normalized(qmul(quat_from_rotation(src.R), c.shape.quat_B));
      }
      own.push_back(c);
    }
  }
  if (from_urdf)
    for (const CollisionShape& c : urdf_shapes(model, s)) {
      std::vector<CollisionShape>& own = shapes[static_cast<std::size_t>(c.body)];
      if (own.size() >= kMaxCollisionShapes)
        throw SceneError("/robot/urdf_collision", "body '" + model.bodies[static_cast<std::size_t>(c.body)].name +
                                                      "' has more than " + std::to_string(kMaxCollisionShapes) +
                                                      " shapes");
      own.push_back(c);
    }
  ZetaCache cache;
  std::size_t n_pairs = 0;
  for (const int k : clearances) add_clearance_pair(doc, k, s, model, cache, n_pairs);
  if (const json* g = find_key(*contact, "ground")) {
    const CollisionShape ground = compile_ground(*g, "/contact/ground", s);
    for (const std::vector<CollisionShape>& own : shapes)
      for (const CollisionShape& b : own) add_pair(ground, b, s, model, cache, n_pairs);
  }
  for (std::size_t a = 0; a < shapes.size(); ++a)
    for (std::size_t b = a + 1; b < shapes.size(); ++b)
      for (const CollisionShape& sa : shapes[a])
        for (const CollisionShape& sb : shapes[b]) add_pair(sa, sb, s, model, cache, n_pairs);
}

}  // namespace simphant::scene_detail
