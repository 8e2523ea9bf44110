// import_mjcf (mjcf_import.hpp): the document, <compiler>, <option>, <default>,
// <actuator> and the sections read past; the body tree is mjcf_tree.cpp's.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include "simphant/core/input_file.hpp"
#include "simphant/mjcf/mjcf_detail.hpp"

namespace simphant {

namespace {

using namespace mjcf_detail;

void read_compiler(Ctx& ctx, const XMLElement* c) {
  audit(ctx, c, "compiler",
        {"angle", "eulerseq", "coordinate", "inertiafromgeom", "inertiagrouprange", "autolimits", "boundmass",
         "boundinertia", "balanceinertia", "settotalmass", "alignfree", "fusestatic"},
        {{"meshdir", "assets, not used"}, {"texturedir", "assets, not used"}, {"assetdir", "assets, not used"},
         {"discardvisual", "not used"}, {"strippath", "not used"}, {"fitaabb", "mesh fitting, not used"},
         {"usethread", "not used"}, {"saveinertial", "not used"}, {"exactmeshinertia", "mesh inertia, not used"},
         {"convexhull", "collision meshes, not used"}, {"lengthrange", "not used"}});
  const Elem e(ctx, c, nullptr);
  ctx.degree = e.keyword("angle", "degree", {"degree", "radian"}) == "degree";
  const std::string seq = e.str("eulerseq", "xyz");
  if (seq.size() != 3 || seq.find_first_not_of("xyzXYZ") != std::string::npos)
    e.fail("eulerseq", "\"" + seq + "\" is not three of x, y, z, X, Y, Z");
  ctx.eulerseq = seq;
  if (e.keyword("coordinate", "local", {"local", "global"}) == "global")
    e.fail("coordinate", "global coordinates are not supported (MuJoCo removed them too); use local");
  const std::string ifg = e.keyword("inertiafromgeom", "auto", {"true", "false", "auto"});
  ctx.inertiafromgeom = ifg == "true" ? InertiaFromGeom::True : ifg == "false" ? InertiaFromGeom::False : InertiaFromGeom::Auto;
  if (e.has("inertiagrouprange")) {
    const std::vector<int> g = e.ints("inertiagrouprange", 2, 2);
    ctx.group_lo = g[0];
    ctx.group_hi = g[1];
  }
  ctx.autolimits = e.boolean("autolimits", true);
  if (e.num("boundmass", 0) != 0) e.fail("boundmass", "not supported (it changes masses); give the masses");
  if (e.num("boundinertia", 0) != 0) e.fail("boundinertia", "not supported (it changes inertias)");
  if (e.boolean("balanceinertia", false)) e.fail("balanceinertia", "not supported (it changes inertias)");
  if (e.has("settotalmass")) {  // a later <compiler> without it keeps it, as in MuJoCo
    ctx.settotalmass = e.num("settotalmass", -1);
    if (!std::isfinite(ctx.settotalmass)) e.fail("settotalmass", "must be finite");
  }
  if (e.has("fusestatic")) ctx.fusestatic = e.boolean("fusestatic", false);
  if (e.boolean("alignfree", false)) e.fail("alignfree", "not supported (it moves the free body's frame)");
}

void read_option(Ctx& ctx, const XMLElement* o, MjcfModel& out) {
  audit(ctx, o, "option", {"gravity", "timestep", "integrator", "density", "viscosity", "wind"},
        {{"impratio", "constraint solver, not used"}, {"tolerance", "constraint solver, not used"},
         {"ls_tolerance", "constraint solver, not used"}, {"noslip_tolerance", "constraint solver, not used"},
         {"ccd_tolerance", "collision, not used"}, {"iterations", "constraint solver, not used"},
         {"ls_iterations", "constraint solver, not used"}, {"noslip_iterations", "constraint solver, not used"},
         {"ccd_iterations", "collision, not used"}, {"sdf_iterations", "collision, not used"},
         {"sdf_initpoints", "collision, not used"}, {"cone", "contacts, not used"},
         {"jacobian", "constraint solver, not used"}, {"solver", "constraint solver, not used"},
         {"magnetic", "sensors, not used"}, {"o_margin", "contacts, not used"}, {"o_solref", "contacts, not used"},
         {"o_solimp", "contacts, not used"}, {"o_friction", "contacts, not used"},
         {"actuatorgroupdisable", "not used"}, {"apirate", "not used"}, {"collision", "contacts, not used"},
         {"mpr_tolerance", "collision, not used"}, {"mpr_iterations", "collision, not used"}});
  const Elem e(ctx, o, nullptr);
  out.options.gravity = e.vec3("gravity", {0, 0, -9.81});
  out.model.gravity = out.options.gravity;
  out.options.timestep = e.num("timestep", 0.002);
  if (!(out.options.timestep > 0)) e.fail("timestep", "must be > 0");
  out.options.integrator = e.keyword("integrator", "Euler", {"Euler", "RK4", "implicit", "implicitfast"});
  if (e.num("density", 0) != 0) e.fail("density", "a medium (fluid forces) is not supported; it must be 0");
  if (e.num("viscosity", 0) != 0) e.fail("viscosity", "a medium (fluid forces) is not supported; it must be 0");
  if (e.has("wind")) {
    const Vec3d w = e.vec3("wind", {0, 0, 0});
    if (w.x != 0 || w.y != 0 || w.z != 0) e.fail("wind", "wind is not supported");
  }
  for (const XMLElement* c = o->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
    if (std::strcmp(c->Name(), "flag") == 0) {
      if (!ctx.flags.empty()) ctx.fail(c, "", "a second <flag> (MuJoCo allows one)");
      ctx.flags.push_back(c);
      const char* act = c->Attribute("actuation");
      const char* clamp = c->Attribute("clampctrl");
      const char* refsafe = c->Attribute("refsafe");
      out.options.actuation = !(act && std::strcmp(act, "disable") == 0);
      out.options.clampctrl = !(clamp && std::strcmp(clamp, "disable") == 0);
      out.options.refsafe = !(refsafe && std::strcmp(refsafe, "disable") == 0);
    } else {
      ctx.warn("<option> <" + std::string(c->Name()) + ">: not used", element_path(c));
    }
  }
}

/// A flag of <option><flag>: its MuJoCo default, and for a non-default value what it
/// would change in SimPhant's model (refused when it applies to `out`: the flag names the
/// scene keys that do the same; the springs, which no scene key turns off, are dropped from
/// `out` with a warning) or why it changes nothing (a warning).
void check_flag(Ctx& ctx, const XMLElement* f, const char* name, const char* value, MjcfModel& out) {
  static const std::set<std::string> on_by_default = {
      "constraint", "equality", "frictionloss", "limit", "contact", "spring", "damper", "gravity", "clampctrl",
      "warmstart", "filterparent", "actuation", "refsafe", "sensor", "midphase", "eulerdamp", "autoreset",
      "nativeccd", "island", "multiccd", "passive" /* MuJoCo < 3: spring and damper */};
  static const std::set<std::string> off_by_default = {"override", "energy",    "fwdinv", "invdiscrete",
                                                       "diagexact", "ipc",      "sleep",  "speculative"};
  const std::string n = name, v = value;
  const std::string what = "<option><flag " + n + "=\"" + v + "\">";
  if (v != "enable" && v != "disable") ctx.fail(f, n, "\"" + v + "\" is not one of enable, disable");
  if (!on_by_default.count(n) && !off_by_default.count(n)) {
    ctx.warn(what + ": unknown flag, not used", element_path(f));
    return;
  }
  if ((on_by_default.count(n) && v == "enable") || (off_by_default.count(n) && v == "disable")) return;  // default
  bool limited = false, damped = false, friction = false, sprung = false;
  for (const ReducedLink& l : out.model.links) {
    sprung = sprung || l.stiffness > 0;
    limited = limited || !l.continuous;
    damped = damped || l.damping > 0;
    friction = friction || l.friction > 0;
  }
  const Vec3d& g = out.options.gravity;
  const bool gravity = g.x != 0 || g.y != 0 || g.z != 0;
  auto refuse = [&](const std::string& mujoco_drops, const std::string& scene) {
    ctx.fail(f, n, "MuJoCo would run without " + mujoco_drops + " and SimPhant would not: not supported; remove "
                       "the flag and give the scene " + scene);
  };
  auto drop_springs = [&]() {  // as MuJoCo runs: the joints' stiffness is not applied
    for (ReducedLink& l : out.model.links) l.stiffness = 0;
    ctx.warn(what + ": the joints' springs (stiffness) are dropped, as MuJoCo runs without them", element_path(f));
  };
  auto harmless = [&](const std::string& why) { ctx.warn(what + ": no effect in SimPhant (" + why + ")", element_path(f)); };
  if (n == "gravity") {
    if (gravity) refuse("gravity (<option gravity> is not zero)", "robot.gravity [0, 0, 0]");
    harmless("the gravity is zero");
  } else if (n == "limit") {
    if (limited) refuse("the joint limits (some joints are limited)", "urdf_dynamics {\"limits\": false}");
    harmless("no joint is limited");
  } else if (n == "damper" || n == "passive") {
    if (damped) refuse("the joint damping (some joints have damping > 0)", "urdf_dynamics {\"damping\": false}");
    if (n == "passive" && sprung) drop_springs();
    else harmless("no joint has damping");
  } else if (n == "frictionloss") {
    if (friction) refuse("the joint friction (some joints have frictionloss > 0)", "urdf_dynamics {\"friction\": false}");
    harmless("no joint has frictionloss");
  } else if (n == "constraint") {
    if (limited || friction)
      refuse("constraints (here the joint limits and frictionloss)",
             "urdf_dynamics {\"limits\": false, \"friction\": false}");
    harmless("no joint limits or frictionloss; SimPhant has no equality constraints, and its contacts are the "
             "scene's (robot.urdf_collision), not the file's constraints");
  } else if (n == "spring") {
    if (sprung) drop_springs();
    else harmless("no joint has a spring (stiffness)");
  } else if (n == "contact") {
    harmless("the geoms make contacts only where the scene asks, with robot.urdf_collision");
  } else if (n == "filterparent") {
    ctx.warn(what + ": not followed: the shapes of a body and of its parent body never touch in SimPhant",
             element_path(f));
  } else if (n == "midphase" || n == "nativeccd" || n == "multiccd" || n == "override") {
    harmless("MuJoCo's collision pipeline and contact overrides; SimPhant's contacts follow the scene's contact section");
  } else if (n == "equality") {
    harmless("equality constraints are refused, so there are none");
  } else if (n == "actuation") {
    ctx.warn(what + ": no actuator acts (MjcfOptions::actuation): the scene key robot.actuators \"mjcf\" is "
             "refused, and an MJCF file given as the scene runs without its actuators", element_path(f));
  } else if (n == "clampctrl") {
    ctx.warn(what + ": ctrl is not clamped (MjcfOptions::clampctrl): with robot.actuators \"mjcf\" a motor's "
             "ctrlrange bounds nothing", element_path(f));
  } else if (n == "sensor" || n == "energy" || n == "fwdinv" || n == "invdiscrete" || n == "autoreset") {
    harmless("MuJoCo computes or checks something extra; SimPhant's dynamics are the same");
  } else if (n == "refsafe") {
    ctx.warn(what + ": the joints' solreflimit time constants are kept as written, also below two of the file's "
                    "steps (MjcfOptions::refsafe); used with the scene key robot.limit_law \"solreflimit\"",
             element_path(f));
  } else {  // warmstart, island, eulerdamp, diagexact, ipc, sleep, speculative
    harmless("a setting of MuJoCo's solver or integrator; the scene's solver keys choose SimPhant's");
  }
}

void check_flags(Ctx& ctx, MjcfModel& out) {
  for (const XMLElement* f : ctx.flags)
    for (const tinyxml2::XMLAttribute* a = f->FirstAttribute(); a != nullptr; a = a->Next())
      check_flag(ctx, f, a->Name(), a->Value(), out);
}

/// A <general> actuator as the motor, position or velocity actuator it equals (MuJoCo's
/// force = gain * ctrl + bias, gain = gainprm[0], bias = biasprm[0] + biasprm[1] length +
/// biasprm[2] velocity for biastype affine; length = gear q, velocity = gear qdot):
///   biastype none                                    -> motor with gain gainprm[0]
///   affine, biasprm = (0, -gainprm[0], -kv), kv >= 0 -> position, kp = gainprm[0]
///   affine, biasprm = (0, 0, -gainprm[0])            -> velocity, kv = gainprm[0]
/// Anything else (activation dynamics, another gain or bias type, another affine form) is
/// refused, naming the attribute.
void read_general(const Elem& e, MjcfActuator& act) {
  if (e.keyword("dyntype", "none", {"none", "integrator", "filter", "filterexact", "muscle", "user"}) != "none")
    e.fail("dyntype", "activation dynamics are not supported (dyntype must be none)");
  if (e.keyword("gaintype", "fixed", {"fixed", "affine", "muscle", "user"}) != "fixed")
    e.fail("gaintype", "only a fixed gain is supported");
  const std::string bias = e.keyword("biastype", "none", {"none", "affine", "muscle", "user"});
  if (bias != "none" && bias != "affine") e.fail("biastype", "only biastype none or affine is supported");
  const std::vector<double> g = e.has("gainprm") ? e.nums("gainprm", 1, 10) : std::vector<double>{1};
  std::vector<double> b = e.has("biasprm") ? e.nums("biasprm", 1, 10) : std::vector<double>{};
  b.resize(3, 0.0);
  const double gain = g[0];
  if (bias != "none" && !(gain >= 0)) e.fail("gainprm", "an affine <general> servo needs gainprm[0] >= 0 (its kp or kv)");
  if (bias == "none") {
    act.type = MjcfActuatorType::Motor;
    act.gain = gain;
    return;
  }
  if (b[0] == 0 && b[1] == -gain && b[2] <= 0) {
    act.type = MjcfActuatorType::Position;
    act.kp = gain;
    act.kv = -b[2];
  } else if (b[0] == 0 && b[1] == 0 && b[2] == -gain) {
    act.type = MjcfActuatorType::Velocity;
    act.kv = gain;
  } else {
    e.fail("biasprm", "an affine <general> actuator must be a position servo (biasprm = 0, -gainprm[0], -kv with "
                      "kv >= 0) or a velocity servo (biasprm = 0, 0, -gainprm[0])");
  }
}

void read_actuators(Ctx& ctx, const XMLElement* a, MjcfModel& out) {
  int id = 0;
  for (const XMLElement* c = a->FirstChildElement(); c != nullptr; c = c->NextSiblingElement(), ++id) {
    const std::string tag = c->Name();
    if (tag != "motor" && tag != "position" && tag != "velocity" && tag != "general")
      ctx.fail(c, "", "<" + tag + "> actuators are not supported (motor, position, velocity, general)");
    audit(ctx, c, tag, actuator_used(), actuator_ignored());
    const Elem e(ctx, c, class_defaults(ctx, c, "actuator", ""));
    if (const Attrs* tags = class_defaults(ctx, c, kActuatorTags, "")) {
      static const std::set<std::string> own = {"kp", "kv", "dampratio", "timeconst", "inheritrange", "gainprm",
                                                "biasprm", "biastype", "gaintype", "dyntype", "dynprm"};
      for (const auto& [attr, from] : *tags)
        if (from != tag && own.count(attr) && c->Attribute(attr.c_str()) == nullptr)
          e.fail("class", "its default class sets '" + attr + "' on a <" + from + ">, which MuJoCo translates into " +
                              "the <" + tag + ">'s parameters in a way SimPhant does not replay; give '" + attr +
                              "' on this element or keep one actuator type per class");
    }
    for (const char* k : {"dampratio", "timeconst", "inheritrange"})
      if (e.num(k, 0) != 0)
        e.fail(k, std::string(k) + " is not supported (give kv, no activation filter, an explicit ctrlrange)");
    for (const char* k : {"tendon", "site", "body", "jointinparent", "cranksite", "slidersite"})
      if (e.has(k)) e.fail(k, "only joint transmissions are supported");
    MjcfActuator act;
    const char* nm = c->Attribute("name");
    act.name = nm ? nm : "actuator" + std::to_string(id);
    ctx.claim_name("actuator", act.name, nm == nullptr, c);
    act.type = tag == "position" ? MjcfActuatorType::Position
               : tag == "velocity" ? MjcfActuatorType::Velocity : MjcfActuatorType::Motor;
    if (!e.has("joint")) e.fail("joint", "an actuator needs a joint");
    act.joint = e.str("joint", "");
    for (int k = 0; k < out.model.nq() && act.link < 0; ++k)  // joint names are unique (claim_name)
      if (out.model.links[static_cast<std::size_t>(k)].joint_name == act.joint) act.link = k;
    if (act.link < 0) e.fail("joint", "unknown joint '" + act.joint + "' (or not a hinge / slide joint)");
    if (e.has("gear")) {
      const std::vector<double> g = e.nums("gear", 1, 6);
      act.gear = g[0];
      for (std::size_t k = 1; k < g.size(); ++k)
        if (g[k] != 0) e.fail("gear", "only the first gear component applies to a joint; the others must be 0");
    }
    auto range = [&](const char* lim, const char* rng, bool& limited, double& lo, double& hi) {
      const int l = e.tristate(lim);
      const std::vector<double> r = e.has(rng) ? e.nums(rng, 2, 2) : std::vector<double>{0, 0};
      const bool hasrange = !(r[0] == 0 && r[1] == 0);
      if (l == 2 && !ctx.autolimits && hasrange)
        e.fail(rng, std::string("a range without ") + lim + ", and <compiler autolimits=\"false\">");
      limited = l == 1 || (l == 2 && r[0] < r[1]);
      if (limited && r[0] >= r[1]) e.fail(rng, "range[0] must be smaller than range[1]");
      lo = r[0];
      hi = r[1];
    };
    range("ctrllimited", "ctrlrange", act.ctrllimited, act.ctrl_lower, act.ctrl_upper);
    range("forcelimited", "forcerange", act.forcelimited, act.force_lower, act.force_upper);
    if (tag == "general") {
      read_general(e, act);
    } else if (act.type == MjcfActuatorType::Position) {
      act.kp = e.num("kp", 1);
      act.kv = e.num("kv", 0);
    } else if (act.type == MjcfActuatorType::Velocity) {
      act.kv = e.num("kv", 1);
    } else if (c->Attribute("kp") || c->Attribute("kv")) {
      ctx.warn("<motor kp / kv>: not used by a motor", element_path(c));
    }
    if (act.kp < 0) e.fail("kp", "must be >= 0");
    if (act.kv < 0) e.fail("kv", "must be >= 0");
    out.actuators.push_back(act);
  }
  if (!out.actuators.empty())
    ctx.warn("<actuator>: applied only with the scene key robot.actuators \"mjcf\" (docs/mjcf.md), and then a "
             "position or velocity actuator's ctrlrange does not clamp its servo target; otherwise recorded "
             "(MjcfModel::actuators) and the scene's robot.tau / robot.servos drive the joints", "");
}

/// <tendon>: a fixed tendon that cannot act is accepted with a warning naming it: no
/// stiffness, damping, frictionloss or armature, no limits (limited, or a range under
/// autolimits), and no actuator on it (actuators on tendons are refused, read_actuators).
/// MuJoCo computes such a tendon's length and rate and nothing else depends on them, so
/// the dynamics are the file's. Every coupled joint must be a hinge or slide of the
/// model. Any other tendon (spatial, or one that acts) is refused naming the element and
/// the attribute that makes it act.
void read_tendons(Ctx& ctx, const XMLElement* t, const MjcfModel& out) {
  for (const XMLElement* c = t->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
    if (std::strcmp(c->Name(), "fixed") != 0)
      ctx.fail(c, "", std::string("<") + c->Name() + "> tendons are not supported (only an inert <fixed> tendon)");
    audit(ctx, c, "fixed", tendon_used(), tendon_ignored());
    const Elem e(ctx, c, class_defaults(ctx, c, "tendon", ""));
    if (const char* nm = c->Attribute("name")) ctx.claim_name("tendon", nm, false, c);
    for (const char* k : {"stiffness", "damping", "frictionloss", "armature"})
      if (e.num(k, 0) != 0)
        e.fail(k, "a tendon with " + std::string(k) + " acts on its joints; only inert fixed tendons are supported");
    // limited as MuJoCo infers it (a joint's rule, mjcf_tree.cpp): true, or auto with a
    // range whose lower end is below its upper one; auto with a range and no autolimits is
    // MuJoCo's error too
    const int limited = e.tristate("limited");
    const std::vector<double> r = e.has("range") ? e.nums("range", 2, 2) : std::vector<double>{0, 0};
    if (limited == 2 && !ctx.autolimits && !(r[0] == 0 && r[1] == 0))
      e.fail("range", "a range without limited, and <compiler autolimits=\"false\">");
    if (limited == 1 || (limited == 2 && r[0] < r[1]))
      e.fail(e.has("range") ? "range" : "limited",
             "a limited tendon acts on its joints; only inert fixed tendons are supported");
    if (c->FirstChildElement() == nullptr) ctx.fail(c, "", "a fixed tendon needs at least one <joint>");
    for (const XMLElement* j = c->FirstChildElement(); j != nullptr; j = j->NextSiblingElement()) {
      if (std::strcmp(j->Name(), "joint") != 0)
        ctx.fail(j, "", std::string("<") + j->Name() + "> in a fixed tendon (only <joint joint coef>)");
      audit(ctx, j, "fixed tendon <joint>", {"joint", "coef"}, {});
      const char* name = j->Attribute("joint");
      if (name == nullptr) ctx.fail(j, "joint", "a fixed tendon's <joint> needs a joint");
      bool found = false;
      for (const ReducedLink& l : out.model.links) found = found || l.joint_name == name;
      if (!found) ctx.fail(j, "joint", "unknown joint '" + std::string(name) + "' (or not a hinge / slide joint)");
    }
    ctx.warn("<tendon><fixed>: inert (no stiffness, damping, frictionloss, armature, limits or actuator), so it "
             "does not act on the joints; its length is not computed", element_path(c));
  }
}

/// <contact>: each <exclude body1 body2> keeps the shapes of the two bodies apart
/// (ReducedModel::collision_exclude_links; "world": the scene's ground); <pair> is warned
/// of, since SimPhant pairs shapes by contype / conaffinity alone.
void read_contact(Ctx& ctx, const XMLElement* c, MjcfModel& out) {
  ReducedModel& rm = out.model;
  for (const XMLElement* e = c->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (tag != "exclude") {
      ctx.warn("<contact><" + tag + ">: not used (SimPhant pairs the shapes by contype / conaffinity and the "
               "scene's contact.exclude; an explicit pair is not made)", element_path(e));
      continue;
    }
    audit(ctx, e, "exclude", {"name", "body1", "body2"}, {});
    const Elem ee(ctx, e, nullptr);
    std::string names[2];
    const char* attrs[2] = {"body1", "body2"};
    for (int k = 0; k < 2; ++k) {
      if (!ee.has(attrs[k])) ee.fail(attrs[k], "required");
      names[k] = ee.str(attrs[k], "");
      const bool known = names[k] == "world" ||
                         std::any_of(rm.link_frames.begin(), rm.link_frames.end(),
                                     [&](const LinkFrame& f) { return f.link == names[k]; });
      if (!known) ee.fail(attrs[k], "unknown body '" + names[k] + "'");
    }
    if (names[0] != names[1]) rm.collision_exclude_links.push_back(std::minmax(names[0], names[1]));
  }
}

}  // namespace

MjcfModel import_mjcf(const std::string& xml, const std::string& source) {
  Ctx ctx;
  ctx.prefix = "MJCF " + source;
  if (xml.find('\0') != std::string::npos) throw MjcfError(ctx.prefix + ": a NUL byte in the document");
  tinyxml2::XMLDocument doc(true, tinyxml2::COLLAPSE_WHITESPACE);
  if (doc.Parse(xml.data(), xml.size()) != tinyxml2::XML_SUCCESS)
    throw MjcfError(ctx.prefix + ": malformed XML: " + std::string(doc.ErrorStr()));
  const XMLElement* root = doc.RootElement();
  if (root == nullptr || std::strcmp(root->Name(), "mujoco") != 0)
    throw MjcfError(ctx.prefix + ": the root element must be <mujoco> (got <" +
                    std::string(root ? root->Name() : "") + ">)");
  MjcfModel out;
  out.model.name = root->Attribute("model") ? root->Attribute("model") : "MuJoCo Model";
  for (const tinyxml2::XMLAttribute* a = root->FirstAttribute(); a != nullptr; a = a->Next())
    if (std::strcmp(a->Name(), "model") != 0)
      ctx.warn("<mujoco " + std::string(a->Name()) + ">: unknown attribute, not used", "");

  // Sections that change how the rest reads come first, wherever they stand.
  for (const XMLElement* c = root->FirstChildElement("compiler"); c; c = c->NextSiblingElement("compiler"))
    read_compiler(ctx, c);
  read_defaults(ctx, root);  // every top-level <default>, merged into class "main" as MuJoCo does
  for (const XMLElement* c = root->FirstChildElement("option"); c; c = c->NextSiblingElement("option"))
    read_option(ctx, c, out);

  const XMLElement* worldbody = nullptr;
  for (const XMLElement* c = root->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
    const std::string tag = c->Name();
    if (tag == "compiler" || tag == "default" || tag == "option" || tag == "actuator") continue;
    if (tag == "worldbody") {
      if (worldbody != nullptr) ctx.fail(c, "", "more than one <worldbody>");
      worldbody = c;
    } else if (tag == "include" || tag == "extension" || tag == "deformable") {
      ctx.fail(c, "", "<" + tag + "> is not supported");
    } else if (tag == "equality") {
      if (c->FirstChildElement() != nullptr)
        ctx.fail(c->FirstChildElement(), "", "equality constraints are not supported");
    } else if (tag == "tendon" || tag == "contact") {
      continue;  // read after the tree (read_tendons, read_contact)
    } else if (tag == "asset") {
      for (const XMLElement* a = c->FirstChildElement(); a; a = a->NextSiblingElement())
        ctx.warn("<asset> <" + std::string(a->Name()) + ">: not used (visual / collision assets)", element_path(a));
    } else if (tag == "sensor" || tag == "keyframe" || tag == "visual" || tag == "statistic" || tag == "size" ||
               tag == "custom") {
      ctx.warn("<" + tag + ">: not used", element_path(c));
    } else {
      ctx.warn("<" + tag + ">: unknown element, not used", element_path(c));
    }
  }
  build_tree(ctx, worldbody, out);
  // MuJoCo's refsafe: a solref time constant below two of the file's steps is raised to it.
  if (out.options.refsafe)
    for (ReducedLink& l : out.model.links)
      if (l.limit_time_constant > 0) l.limit_time_constant = std::max(l.limit_time_constant, 2 * out.options.timestep);
  for (const XMLElement* c = root->FirstChildElement("tendon"); c; c = c->NextSiblingElement("tendon"))
    read_tendons(ctx, c, out);
  for (const XMLElement* c = root->FirstChildElement("contact"); c; c = c->NextSiblingElement("contact"))
    read_contact(ctx, c, out);
  check_flags(ctx, out);
  for (const XMLElement* c = root->FirstChildElement("actuator"); c; c = c->NextSiblingElement("actuator"))
    read_actuators(ctx, c, out);
  out.model.warnings = ctx.warnings();
  bool massless = false;
  for (const ReducedLink& l : out.model.links) massless = massless || !(l.mass > 0);
  if (massless) urdf_detail::warn_singular_mass_matrix(out.model);
  return out;
}

MjcfModel load_mjcf(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const InputFileError& e) {
    throw MjcfError("MJCF " + path + ": " + e.what());
  }
  return import_mjcf(text, path);
}

ReducedModel import_mjcf_string(const std::string& xml, const std::string& source) {
  return import_mjcf(xml, source).model;
}

ReducedModel import_mjcf_file(const std::string& path) { return load_mjcf(path).model; }

}  // namespace simphant
