// Element paths, attribute values with <default> classes, orientations and warnings of
// the MJCF import (mjcf_detail.hpp).
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <iterator>
#include <limits>
#include <sstream>

#include "simphant/mjcf/mjcf_detail.hpp"

namespace simphant::mjcf_detail {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEps = 1e-14;  // MuJoCo's mjEPS: the smallest norm an axis may have

Quatd qmul_(const Quatd& a, const Quatd& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

double normalize(double* v, int n) {
  double s = 0;
  for (int k = 0; k < n; ++k) s += v[k] * v[k];
  s = std::sqrt(s);
  if (s >= kEps)
    for (int k = 0; k < n; ++k) v[k] /= s;
  return s;
}

}  // namespace

void Ctx::fail(const XMLElement* e, const std::string& attr, const std::string& reason) const {
  std::string msg = prefix + ": " + (e ? element_path(e) : std::string("document"));
  if (!attr.empty()) msg += ": attribute '" + attr + "'";
  throw MjcfError(msg + ": " + reason);
}

void Ctx::claim_name(const std::string& kind, const std::string& name, bool generated, const XMLElement* e) {
  auto& taken = names[kind];
  const auto it = taken.find(name);
  if (it == taken.end()) {
    taken.emplace(name, std::make_pair(element_path(e), generated));
    return;
  }
  const std::string first = it->second.first;
  if (!generated && !it->second.second)
    fail(e, "name", "repeated name '" + name + "' in " + kind + " (first at " + first +
                        "); MuJoCo refuses it too: " + kind + " names must be unique");
  fail(e, generated ? "" : "name",
       "the name '" + name + "' is " + (generated ? "SimPhant's name of this unnamed " + kind + ", and taken by " + first
                                                  : "SimPhant's name of the unnamed " + kind + " " + first) +
           ": " + kind + " names must be unique; name the unnamed " + kind);
}

void Ctx::warn(const std::string& message, const std::string& where) {
  auto it = findings.find(message);
  if (it == findings.end()) {
    finding_order.push_back(message);
    findings[message].push_back(where);
  } else if (std::find(it->second.begin(), it->second.end(), where) == it->second.end()) {
    it->second.push_back(where);
  }
}

std::vector<std::string> Ctx::warnings() const {
  std::vector<std::string> out;
  for (const std::string& m : finding_order) {
    const std::vector<std::string>& w = findings.at(m);
    std::string line = m;
    if (!w.empty() && !w[0].empty()) {
      line += " (";
      const std::size_t shown = std::min<std::size_t>(w.size(), 6);
      for (std::size_t k = 0; k < shown; ++k) line += (k ? ", " : "") + w[k];
      if (w.size() > shown) line += ", and " + std::to_string(w.size() - shown) + " more";
      line += ")";
    }
    out.push_back(line);
  }
  return out;
}

std::string element_path(const XMLElement* e) {
  std::vector<std::string> parts;
  for (; e != nullptr && e->Parent() != nullptr && e->Parent()->ToElement() != nullptr; ) {
    const char* name = e->Attribute("name");
    std::string part = e->Name();
    if (name != nullptr) {
      part += std::string("[") + name + "]";
    } else if (std::strcmp(e->Name(), "default") == 0 && e->Attribute("class") != nullptr) {
      part += std::string("[") + e->Attribute("class") + "]";
    } else {
      int k = 0, count = 0;
      for (const XMLElement* s = e->Parent()->FirstChildElement(e->Name()); s != nullptr;
           s = s->NextSiblingElement(e->Name())) {
        if (s == e) k = count;
        ++count;
      }
      if (count > 1) part += "#" + std::to_string(k);  // the k-th unnamed such element, from 0
    }
    parts.push_back(part);
    e = e->Parent()->ToElement();
  }
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) out += (out.empty() ? "" : "/") + *it;
  return out.empty() ? "mujoco" : out;
}

const char* Elem::raw(const char* name) const {
  if (const char* v = e_->Attribute(name)) return v;
  if (defaults_ != nullptr) {
    const auto it = defaults_->find(name);
    if (it != defaults_->end()) return it->second.c_str();
  }
  return nullptr;
}

std::string Elem::str(const char* name, const std::string& dflt) const {
  const char* v = raw(name);
  return v ? std::string(v) : dflt;
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// The numbers of the white-space separated list v, each read by read(p, &end) (strtod or
/// strtol); bad(token_message) is called for a token that is not a whole number of the
/// kind, check(x) may reject a value. min_n .. max_n of them, else count(got).
template <class Num, class Read, class Check, class Fail>
std::vector<Num> number_list(const char* v, Read read, Check check, Fail fail_bad) {
  std::vector<Num> out;
  const char* p = v;
  while (true) {
    while (is_space(*p)) ++p;
    if (*p == '\0') break;
    char* end = nullptr;
    errno = 0;
    const auto x = read(p, &end);
    if (end == p || (*end != '\0' && !is_space(*end))) fail_bad();
    out.push_back(check(x));
    p = end;
  }
  return out;
}

}  // namespace

std::vector<double> Elem::nums(const char* name, int min_n, int max_n) const {
  const char* v = raw(name);
  if (v == nullptr) return {};
  return list_of(name, v, min_n, max_n);
}

std::vector<double> Elem::nums_over(const char* name, std::vector<double> base) const {
  const char* layers[2] = {nullptr, e_->Attribute(name)};
  if (defaults_ != nullptr) {
    const auto it = defaults_->find(name);
    if (it != defaults_->end()) layers[0] = it->second.c_str();
  }
  for (const char* v : layers) {
    if (v == nullptr) continue;
    const std::vector<double> x = list_of(name, v, 1, static_cast<int>(base.size()));
    std::copy(x.begin(), x.end(), base.begin());
  }
  return base;
}

std::vector<double> Elem::list_of(const char* name, const char* v, int min_n, int max_n) const {
  const std::vector<double> out = number_list<double>(
      v, [](const char* p, char** end) { return std::strtod(p, end); },
      [&](double x) {
        if (!std::isfinite(x)) fail(name, "\"" + std::string(v) + "\" holds a number that is not finite");
        return x;
      },
      [&] { fail(name, "\"" + std::string(v) + "\" is not a list of numbers"); });
  count_in(name, v, static_cast<int>(out.size()), min_n, max_n, "numbers");
  return out;
}

std::vector<int> Elem::ints(const char* name, int min_n, int max_n) const {
  const char* v = raw(name);
  if (v == nullptr) return {};
  const std::vector<int> out = number_list<int>(
      v, [](const char* p, char** end) { return std::strtol(p, end, 10); },
      [&](long x) {
        if (errno == ERANGE || x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max())
          fail(name, "\"" + std::string(v) + "\": a number outside the int range");
        return static_cast<int>(x);
      },
      [&] { fail(name, "\"" + std::string(v) + "\": bad format (integers expected)"); });
  count_in(name, v, static_cast<int>(out.size()), min_n, max_n, "integers");
  return out;
}

void Elem::count_in(const char* name, const char* v, int got, int min_n, int max_n, const char* what) const {
  if (got >= min_n && got <= max_n) return;
  const std::string want = min_n == max_n ? std::to_string(min_n) : std::to_string(min_n) + " to " + std::to_string(max_n);
  std::string noun = what;  // plural ("numbers", "integers"), singular for exactly one
  if (min_n == 1 && max_n == 1) noun.pop_back();
  fail(name, "needs " + want + " " + noun + " (got " + std::to_string(got) + ": \"" + v + "\")");
}

int Elem::integer(const char* name, int dflt) const {
  if (!has(name)) return dflt;
  return ints(name, 1, 1)[0];
}

double Elem::num(const char* name, double dflt) const {
  if (!has(name)) return dflt;
  return nums(name, 1, 1)[0];
}

Vec3d Elem::vec3(const char* name, const Vec3d& dflt) const {
  if (!has(name)) return dflt;
  const std::vector<double> v = nums(name, 3, 3);
  return {v[0], v[1], v[2]};
}

bool Elem::boolean(const char* name, bool dflt) const {
  const char* v = raw(name);
  if (v == nullptr) return dflt;
  if (std::strcmp(v, "true") == 0) return true;
  if (std::strcmp(v, "false") == 0) return false;
  fail(name, "\"" + std::string(v) + "\" is not a boolean (true or false)");
}

int Elem::tristate(const char* name) const {
  const char* v = raw(name);
  if (v == nullptr || std::strcmp(v, "auto") == 0) return 2;
  if (std::strcmp(v, "true") == 0) return 1;
  if (std::strcmp(v, "false") == 0) return 0;
  fail(name, "\"" + std::string(v) + "\" is not true, false or auto");
}

std::string Elem::keyword(const char* name, const std::string& dflt, const std::vector<std::string>& allowed) const {
  const std::string v = str(name, dflt);
  std::string list;
  for (const std::string& a : allowed) {
    if (a == v) return v;
    list += (list.empty() ? "" : ", ") + a;
  }
  fail(name, "\"" + v + "\" is not one of " + list);
}

namespace {

/// The element kind whose defaults a <default> child sets; "" if not read.
std::string default_kind(const std::string& tag) {
  if (tag == "joint" || tag == "geom" || tag == "tendon") return tag;
  if (tag == "motor" || tag == "position" || tag == "velocity" || tag == "general") return "actuator";
  return "";
}

// The numbers of a list attribute that MuJoCo reads partially (a shorter list sets its first
// entries: solreflimit), a class's value `child` laid over its parent's, token by token.
std::string lay_over(const std::string& parent, const std::string& child) {
  std::istringstream ps(parent), cs(child);
  std::vector<std::string> p{std::istream_iterator<std::string>(ps), std::istream_iterator<std::string>()};
  const std::vector<std::string> c{std::istream_iterator<std::string>(cs), std::istream_iterator<std::string>()};
  if (c.size() >= p.size()) return child;
  std::copy(c.begin(), c.end(), p.begin());
  std::string out;
  for (const std::string& t : p) out += (out.empty() ? "" : " ") + t;
  return out;
}

/// Reads class `name` from d, starting from a copy of `parent` (merge: the top-level class
/// "main" read again, from its current attributes).
void read_class(Ctx& ctx, const XMLElement* d, const std::string& name, const DefaultClass& parent, int depth,
                bool merge) {
  if (depth > kMaxXmlDepth) ctx.fail(d, "", "default classes nested deeper than " + std::to_string(kMaxXmlDepth));
  if (!merge && ctx.classes.count(name)) ctx.fail(d, "class", "default class '" + name + "' is defined twice");
  DefaultClass cls = parent;
  for (const XMLElement* c = d->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
    const std::string tag = c->Name();
    if (tag == "default") continue;
    const std::string kind = default_kind(tag);
    if (kind.empty()) {
      ctx.warn("<default> <" + tag + "> not used (no " + tag + " is read)", element_path(c));
      continue;
    }
    if (kind == "joint") audit(ctx, c, "joint", joint_used(), joint_ignored());
    if (kind == "geom") audit(ctx, c, "geom", geom_used(), geom_ignored());
    if (kind == "tendon") audit(ctx, c, "tendon", tendon_used(), tendon_ignored());
    if (kind == "actuator") audit(ctx, c, tag, actuator_used(), actuator_ignored());
    for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a != nullptr; a = a->Next()) {
      Attrs& attrs = cls.kinds[kind];
      const auto inherited = attrs.find(a->Name());
      const bool partial = kind == "joint" && std::strcmp(a->Name(), "solreflimit") == 0 && inherited != attrs.end();
      attrs[a->Name()] = partial ? lay_over(inherited->second, a->Value()) : std::string(a->Value());
      if (kind == "actuator") cls.kinds[kActuatorTags][a->Name()] = tag;  // which shortcut set it
    }
  }
  ctx.classes[name] = cls;
  for (const XMLElement* c = d->FirstChildElement("default"); c != nullptr; c = c->NextSiblingElement("default")) {
    const char* cn = c->Attribute("class");
    if (cn == nullptr) ctx.fail(c, "class", "a nested <default> needs a class name");
    read_class(ctx, c, cn, cls, depth + 1, false);
  }
}

}  // namespace

void read_defaults(Ctx& ctx, const XMLElement* root) {
  ctx.classes["main"] = DefaultClass{};
  for (const XMLElement* d = root->FirstChildElement("default"); d != nullptr; d = d->NextSiblingElement("default")) {
    const char* cn = d->Attribute("class");
    if (cn != nullptr && std::strcmp(cn, "main") != 0)
      ctx.fail(d, "class", "a top-level <default> is class \"main\" (got \"" + std::string(cn) + "\")");
    const DefaultClass main = ctx.classes["main"];
    read_class(ctx, d, "main", main, 0, true);
  }
}

const Attrs* class_defaults(Ctx& ctx, const XMLElement* e, const std::string& kind, const std::string& childclass) {
  std::string cls = "main";
  const char* attr = "childclass";
  if (const char* c = e->Attribute("class")) {
    cls = c;
    attr = "class";
  } else if (!childclass.empty()) {
    cls = childclass;
  }
  const auto it = ctx.classes.find(cls);
  if (it == ctx.classes.end()) ctx.fail(e, attr, "unknown default class '" + cls + "'");
  const auto k = it->second.kinds.find(kind);
  return k == it->second.kinds.end() ? nullptr : &k->second;
}

Mat3d rot(const Quatd& q) { return rotation(q); }

Mat3d matmul(const Mat3d& A, const Mat3d& B) {
  Mat3d C{};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) C.m[r][c] = A.m[r][0] * B.m[0][c] + A.m[r][1] * B.m[1][c] + A.m[r][2] * B.m[2][c];
  return C;
}

Quatd z_to(const Vec3d& vin) {
  double v[3] = {vin.x, vin.y, vin.z};
  normalize(v, 3);
  double q[4] = {0, -v[1], v[0], 0};  // (0, 0, 1) x v
  const double s = normalize(q + 1, 3);
  if (s < 1e-10) {
    q[1] = 1;
    q[2] = q[3] = 0;
  }
  const double ang = std::atan2(s, v[2]);
  return {std::cos(ang / 2), q[1] * std::sin(ang / 2), q[2] * std::sin(ang / 2), q[3] * std::sin(ang / 2)};
}

Quatd read_orientation(const Ctx& ctx, const Elem& e) {
  static const char* const kinds[] = {"quat", "euler", "axisangle", "xyaxes", "zaxis"};
  const char* given = nullptr;
  for (const char* k : kinds) {
    if (e.xml()->Attribute(k) == nullptr) continue;
    if (given != nullptr) e.fail(k, std::string("the orientation is given twice (") + given + " and " + k + ")");
    given = k;
  }
  if (given == nullptr) return {1, 0, 0, 0};
  const double angle_unit = ctx.degree ? kPi / 180.0 : 1.0;
  const std::string g = given;
  if (g == "quat") {
    std::vector<double> q = e.nums("quat", 4, 4);
    if (normalize(q.data(), 4) < kEps) e.fail("quat", "a zero quaternion");
    return {q[0], q[1], q[2], q[3]};
  }
  if (g == "axisangle") {
    std::vector<double> a = e.nums("axisangle", 4, 4);
    if (normalize(a.data(), 3) < kEps) e.fail("axisangle", "the axis is zero");
    const double h = a[3] * angle_unit / 2;
    return {std::cos(h), std::sin(h) * a[0], std::sin(h) * a[1], std::sin(h) * a[2]};
  }
  if (g == "zaxis") {
    std::vector<double> z = e.nums("zaxis", 3, 3);
    if (normalize(z.data(), 3) < kEps) e.fail("zaxis", "the axis is zero");
    return z_to({z[0], z[1], z[2]});
  }
  if (g == "xyaxes") {
    std::vector<double> a = e.nums("xyaxes", 6, 6);
    if (normalize(a.data(), 3) < kEps) e.fail("xyaxes", "the x axis is zero");
    const double d = a[0] * a[3] + a[1] * a[4] + a[2] * a[5];
    for (int k = 0; k < 3; ++k) a[3 + k] -= a[k] * d;
    if (normalize(a.data() + 3, 3) < kEps) e.fail("xyaxes", "the y axis is zero or parallel to x");
    const Vec3d x{a[0], a[1], a[2]}, y{a[3], a[4], a[5]};
    const Vec3d z = cross(x, y);
    Mat3d R{};
    for (int r = 0; r < 3; ++r) {
      R.m[r][0] = x[r];
      R.m[r][1] = y[r];
      R.m[r][2] = z[r];
    }
    return normalized(quat_from_rotation(R));
  }
  // euler, in the compiler's eulerseq: lower case rotates with the frame (post-multiply),
  // upper case about the fixed axes (pre-multiply).
  const std::vector<double> eu = e.nums("euler", 3, 3);
  Quatd q{1, 0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    const double h = eu[static_cast<std::size_t>(i)] * angle_unit / 2;
    Quatd r{std::cos(h), 0, 0, 0};
    const char s = ctx.eulerseq[static_cast<std::size_t>(i)];
    if (s == 'x' || s == 'X') r.x = std::sin(h);
    if (s == 'y' || s == 'Y') r.y = std::sin(h);
    if (s == 'z' || s == 'Z') r.z = std::sin(h);
    q = (s == 'x' || s == 'y' || s == 'z') ? qmul_(q, r) : qmul_(r, q);
  }
  return normalized(q);
}

void audit(Ctx& ctx, const XMLElement* e, const std::string& what, const std::set<std::string>& used,
           const std::map<std::string, std::string>& ignored) {
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a != nullptr; a = a->Next()) {
    const std::string n = a->Name();
    if (used.count(n)) continue;
    const auto it = ignored.find(n);
    if (it != ignored.end())
      ctx.warn("<" + what + " " + n + ">: " + it->second, element_path(e));
    else
      ctx.warn("<" + what + " " + n + ">: unknown attribute, not used", element_path(e));
  }
}

namespace {
const std::string kContact =
    "contact parameter, not used (with robot.urdf_collision the scene's contact section gives the law and the "
    "friction, docs/mjcf.md)";
const std::string kVisual = "visual, not used (nothing is rendered)";
const std::string kUser = "user data, not used";
}  // namespace

const std::set<std::string>& joint_used() {
  static const std::set<std::string> s = {"name", "class", "type", "pos", "axis", "range", "limited", "damping",
                                          "frictionloss", "ref", "armature", "stiffness", "springref",
                                          "springdamper", "actuatorgravcomp", "actuatorfrclimited",
                                          "actuatorfrcrange", "solreflimit"};
  return s;
}
const std::map<std::string, std::string>& joint_ignored() {
  static const std::map<std::string, std::string> m = {
      {"group", kVisual},
      {"margin", "limit-constraint margin, not used (SimPhant's limit law is a penalty, docs/robots.md)"},
      {"solimplimit", "MuJoCo limit-constraint impedance, not used (SimPhant's limit law is a spring-damper, with "
                      "solreflimit's time constant and damping ratio under robot.limit_law \"solreflimit\"; "
                      "docs/mjcf.md, Joint limits)"},
      {"solreffriction", "MuJoCo friction-loss constraint parameter, not used"},
      {"solimpfriction", "MuJoCo friction-loss constraint parameter, not used"},
      {"align", "free-joint alignment, not used"},
      {"user", kUser}};
  return m;
}
const std::set<std::string>& geom_used() {
  static const std::set<std::string> s = {"name", "class", "type", "size", "fromto", "pos", "quat", "euler",
                                          "axisangle", "xyaxes", "zaxis", "density", "mass", "group",
                                          "shellinertia", "mesh", "hfield", "contype", "conaffinity"};
  return s;
}
const std::map<std::string, std::string>& geom_ignored() {
  static const std::map<std::string, std::string> m = {
      {"condim", kContact}, {"friction", kContact},
      {"solmix", kContact}, {"solref", kContact}, {"solimp", kContact}, {"margin", kContact},
      {"gap", kContact}, {"priority", kContact}, {"rgba", kVisual}, {"material", kVisual},
      {"fitscale", "mesh fitting, not used"}, {"fluidshape", "fluid interaction, not used"},
      {"fluidcoef", "fluid interaction, not used"}, {"user", kUser}};
  return m;
}
const std::set<std::string>& actuator_used() {
  static const std::set<std::string> s = {"name", "class", "joint", "gear", "ctrlrange", "ctrllimited",
                                          "forcerange", "forcelimited", "kp", "kv", "tendon", "site", "body",
                                          "jointinparent", "cranksite", "slidersite", "dyntype", "gaintype",
                                          "biastype", "gainprm", "biasprm", "dampratio", "timeconst",
                                          "inheritrange"};
  return s;
}
const std::map<std::string, std::string>& actuator_ignored() {
  static const std::map<std::string, std::string> m = {{"group", kVisual}, {"user", kUser},
                                                       {"actlimited", "activation, not used"},
                                                       {"dynprm", "activation dynamics, not used (dyntype none)"},
                                                       {"actearly", "activation, not used"},
                                                       {"actdim", "activation, not used"},
                                                       {"actrange", "activation, not used"}};
  return m;
}

const std::set<std::string>& tendon_used() {
  static const std::set<std::string> s = {"name", "class", "limited", "range", "frictionloss", "stiffness",
                                          "damping", "armature"};
  return s;
}
const std::map<std::string, std::string>& tendon_ignored() {
  static const std::map<std::string, std::string> m = {
      {"group", kVisual}, {"width", kVisual}, {"material", kVisual}, {"rgba", kVisual}, {"user", kUser},
      {"springlength", "the spring's rest length, not used (no stiffness)"},
      {"margin", "limit margin, not used (no limits)"},
      {"solreflimit", "limit constraint, not used (no limits)"}, {"solimplimit", "limit constraint, not used (no limits)"},
      {"solreffriction", "friction loss, not used (no frictionloss)"},
      {"solimpfriction", "friction loss, not used (no frictionloss)"},
      {"actuatorfrclimited", "actuator force limit, not used (no actuator on a tendon)"},
      {"actuatorfrcrange", "actuator force limit, not used (no actuator on a tendon)"}};
  return m;
}

}  // namespace simphant::mjcf_detail
