// The <worldbody> tree -> ReducedModel links (mjcf_import.hpp, "Tree"). Each body's frame
// is tracked in the frame of the link (or world / floating base) it is rigidly attached
// to: x_attach = R x_body + p. A hinge or slide joint starts a new link whose frame is the
// body frame moved to the joint's point; a body without joints is welded to its parent.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "simphant/mjcf/mjcf_detail.hpp"

namespace simphant::mjcf_detail {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEps = 1e-14;  // MuJoCo's mjEPS
constexpr int kWorldOwner = -3;  // a body welded to the world, while the tree is walked

enum class AttachKind { World, Base, Link };

/// Where a body hangs: the rigid frame it belongs to, and its own frame in that one.
struct Attach {
  AttachKind kind = AttachKind::World;
  int link = -1;
  Mat3d R = identity3<double>();
  Vec3d p{0, 0, 0};
};

void add_mass(MassProps& into, const MassProps& m) {
  if (!(m.mass > 0)) return;
  into = into.mass > 0 ? urdf_detail::combine_mass(into, m) : m;
}

struct TreeBuilder {
  TreeBuilder(Ctx& c, MjcfModel& o) : ctx(c), out(o) {}
  Ctx& ctx;
  MjcfModel& out;
  int body_id = 0;   // MuJoCo's body ids: worldbody 0, then document order
  int joint_id = 0;  // MuJoCo's joint ids
  MassProps world_mass, base_mass;
  std::vector<MassProps> link_mass;
  bool floating = false;

  ReducedModel& rm() { return out.model; }

  void body(const XMLElement* b, const Attach& parent, const std::string& inherited_class, bool on_worldbody,
            int depth);
  /// The owner of a rigid frame (LinkFrame's convention); the world's is kWorldOwner
  /// until the walk knows whether a free joint follows (resolve_world_owners).
  int owner(const Attach& at) const {
    if (at.kind == AttachKind::Link) return at.link;
    return at.kind == AttachKind::World ? kWorldOwner : -1;
  }
  /// The world's owner in LinkFrame's convention: -2 with a floating base, else -1 (W).
  void resolve_world_owners() {
    const int world = floating ? -2 : -1;
    for (LinkFrame& f : rm().link_frames)
      if (f.owner == kWorldOwner) f.owner = world;
    for (LinkCollision& c : rm().link_collisions)
      if (c.owner == kWorldOwner) c.owner = world;
  }
  void collisions(const XMLElement* b, const std::string& childclass, const std::string& body_name,
                  const Attach& at);
  MassProps body_mass(const XMLElement* b, const std::string& childclass);
  void joint(const XMLElement* j, const std::string& childclass, const std::string& body_name, Attach& at);
};

MassProps TreeBuilder::body_mass(const XMLElement* b, const std::string& childclass) {
  const XMLElement* inertial = b->FirstChildElement("inertial");
  if (inertial != nullptr && inertial->NextSiblingElement("inertial") != nullptr)
    ctx.fail(inertial->NextSiblingElement("inertial"), "", "a body has at most one <inertial>");
  const bool from_geoms = ctx.inertiafromgeom == InertiaFromGeom::True ||
                          (ctx.inertiafromgeom == InertiaFromGeom::Auto && inertial == nullptr);
  MassProps geoms;
  for (const XMLElement* g = b->FirstChildElement("geom"); g != nullptr; g = g->NextSiblingElement("geom")) {
    audit(ctx, g, "geom", geom_used(), geom_ignored());
    const Elem ge(ctx, g, class_defaults(ctx, g, "geom", childclass));
    const int group = ge.integer("group", 0);
    const bool infer = from_geoms && group >= ctx.group_lo && group <= ctx.group_hi;
    add_mass(geoms, geom_mass(ctx, ge, infer));
  }
  if (from_geoms) {
    if (inertial != nullptr)
      ctx.warn("<inertial>: not used (<compiler inertiafromgeom=\"true\">: the mass comes from the geoms)",
               element_path(inertial));
    return geoms;
  }
  MassProps m;
  if (inertial == nullptr) return m;  // inertiafromgeom false and no <inertial>: no mass
  audit(ctx, inertial, "inertial", {"pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "mass", "diaginertia",
                                    "fullinertia"}, {});
  const Elem ie(ctx, inertial, nullptr);
  if (!ie.has("mass")) ie.fail("mass", "<inertial> needs a mass");
  if (!ie.has("pos")) ie.fail("pos", "<inertial> needs a pos");
  m.mass = ie.num("mass", 0);
  if (m.mass < 0) ie.fail("mass", "must be >= 0");
  m.com = ie.vec3("pos", {0, 0, 0});
  Mat3d I{};
  if (ie.has("fullinertia")) {
    if (ie.has("diaginertia")) ie.fail("fullinertia", "both diaginertia and fullinertia are given");
    for (const char* k : {"quat", "euler", "axisangle", "xyaxes", "zaxis"})
      if (ie.has(k)) ie.fail(k, "an orientation cannot be combined with fullinertia");
    const std::vector<double> f = ie.nums("fullinertia", 6, 6);  // ixx iyy izz ixy ixz iyz
    I.m[0][0] = f[0];
    I.m[1][1] = f[1];
    I.m[2][2] = f[2];
    I.m[0][1] = I.m[1][0] = f[3];
    I.m[0][2] = I.m[2][0] = f[4];
    I.m[1][2] = I.m[2][1] = f[5];
  } else if (ie.has("diaginertia")) {
    const Vec3d d = ie.vec3("diaginertia", {0, 0, 0});
    if (d.x < 0 || d.y < 0 || d.z < 0) ie.fail("diaginertia", "must be >= 0");
    Mat3d D{};
    D.m[0][0] = d.x;
    D.m[1][1] = d.y;
    D.m[2][2] = d.z;
    I = urdf_detail::rotate_inertia(rot(read_orientation(ctx, ie)), D);
  } else {
    ie.fail("diaginertia", "<inertial> needs diaginertia or fullinertia");
  }
  m.inertia = I;
  if (!(m.mass > 0)) return MassProps{};
  return m;
}

void TreeBuilder::joint(const XMLElement* j, const std::string& childclass, const std::string& body_name,
                        Attach& at) {
  ++joint_id;
  audit(ctx, j, "joint", joint_used(), joint_ignored());
  const Elem je(ctx, j, class_defaults(ctx, j, "joint", childclass));
  const std::string type = je.keyword("type", "hinge", {"free", "ball", "slide", "hinge"});
  if (type == "ball") je.fail("type", "ball joints are not supported (yet)");
  if (type == "free") je.fail("type", "a free joint is only supported as the only joint of a child of <worldbody>");
  if (je.has("springdamper")) {
    const std::vector<double> sd = je.nums("springdamper", 2, 2);
    if (sd[0] != 0 || sd[1] != 0) je.fail("springdamper", "springdamper is not supported (yet)");
  }
  if (je.boolean("actuatorgravcomp", false)) je.fail("actuatorgravcomp", "gravity compensation is not supported");
  const bool hinge = type == "hinge";
  const double angle_unit = hinge && ctx.degree ? kPi / 180.0 : 1.0;

  ReducedLink l;
  const char* jn = j->Attribute("name");
  l.joint_name = jn ? jn : "joint" + std::to_string(joint_id - 1);
  ctx.claim_name("joint", l.joint_name, jn == nullptr, j);
  l.type = hinge ? ReducedJointType::Revolute : ReducedJointType::Prismatic;
  const Vec3d pj = je.vec3("pos", {0, 0, 0});
  Vec3d axis = je.vec3("axis", {0, 0, 1});
  const double n = norm(axis);
  if (n < kEps) je.fail("axis", "the axis is zero");
  l.axis = (1.0 / n) * axis;

  const double ref = je.num("ref", 0) * angle_unit;
  std::vector<double> range = je.has("range") ? je.nums("range", 2, 2) : std::vector<double>{0, 0};
  const int limited = je.tristate("limited");
  const bool hasrange = !(range[0] == 0 && range[1] == 0);
  if (limited == 2 && !ctx.autolimits && hasrange)
    je.fail("range", "a range without limited, and <compiler autolimits=\"false\">: give limited=\"true\" or \"false\"");
  const bool is_limited = limited == 1 || (limited == 2 && range[0] < range[1]);
  if (is_limited) {
    if (range[0] >= range[1]) je.fail("range", "range[0] must be smaller than range[1]");
    // MuJoCo's range bounds qpos; SimPhant's q = qpos - ref.
    l.lower = range[0] * angle_unit - ref;
    l.upper = range[1] * angle_unit - ref;
  }
  l.continuous = !is_limited;
  // MuJoCo's limit constraint: solreflimit (timeconst, dampratio), default (0.02, 1), a
  // shorter list laid over the class's; the limit law takes that mode under the scene's
  // robot.limit_law "solreflimit" (scene/robot_joint_params.hpp, limit_mode). MuJoCo's
  // direct form (stiffness and damping as negative numbers) is not read: 0 marks it; a
  // mixed one (one number > 0, the other not) is MuJoCo's default, as MuJoCo replaces it.
  std::vector<double> solref = je.nums_over("solreflimit", {0.02, 1.0});
  if ((solref[0] > 0) != (solref[1] > 0)) {
    ctx.warn("<joint solreflimit>: mixed signs (one number > 0, the other not): MuJoCo's default (0.02, 1) is "
             "used, as MuJoCo replaces it",
             element_path(j));
    solref = {0.02, 1.0};
  }
  if (solref[0] > 0 && solref[1] > 0) {
    l.limit_time_constant = solref[0];
    l.limit_damping_ratio = solref[1];
  } else if (is_limited) {
    ctx.warn("<joint solreflimit>: MuJoCo's direct form (stiffness and damping as numbers <= 0), not read: "
             "robot.limit_law \"solreflimit\" refuses this joint",
             element_path(j));
  }
  l.damping = je.num("damping", 0);
  if (l.damping < 0) je.fail("damping", "must be >= 0");
  // MuJoCo's joint spring: qfrc_spring = -stiffness (qpos - springref), springref in the
  // joint's units as ref; SimPhant's q = qpos - ref.
  l.stiffness = je.num("stiffness", 0);
  if (l.stiffness < 0) je.fail("stiffness", "must be >= 0");
  l.spring_q = je.num("springref", 0) * angle_unit - ref;
  l.armature = je.num("armature", 0);
  if (l.armature < 0) je.fail("armature", "must be >= 0");
  l.friction = je.num("frictionloss", 0);
  if (l.friction < 0) je.fail("frictionloss", "must be >= 0");
  if (l.friction > 0)
    ctx.warn("<joint frictionloss>: applied as SimPhant's smoothed Coulomb friction (docs/robots.md), not MuJoCo's "
             "friction-loss constraint; trajectories differ near zero velocity",
             element_path(j));
  if (ref != 0)
    ctx.warn("<joint ref>: nonzero; SimPhant's q = 0 is the XML pose, so q = qpos - ref (MjcfModel::qpos_ref; "
             "the joint's limits are range - ref)",
             element_path(j));

  if (at.kind == AttachKind::World && floating)
    je.fail("", "a moving joint on the world side of the free joint (not supported)");
  l.parent = at.kind == AttachKind::Link ? at.link : -1;
  l.R_parent_joint = at.R;
  l.p_parent_joint = mul(at.R, pj) + at.p;
  out.qpos_ref.push_back(ref);
  // <joint actuatorfrcrange>: MuJoCo clamps the sum of the joint's actuator forces to it.
  const std::vector<double> frc =
      je.has("actuatorfrcrange") ? je.nums("actuatorfrcrange", 2, 2) : std::vector<double>{0, 0};
  const int frc_limited = je.tristate("actuatorfrclimited");
  const bool frc_given = !(frc[0] == 0 && frc[1] == 0);
  if (frc_limited == 2 && !ctx.autolimits && frc_given)
    je.fail("actuatorfrcrange", "a range without actuatorfrclimited, and <compiler autolimits=\"false\">");
  const bool frc_on = frc_limited == 1 || (frc_limited == 2 && frc_given);
  if (frc_on && !(frc[0] < frc[1])) je.fail("actuatorfrcrange", "range[0] must be smaller than range[1]");
  out.actuator_force_range.push_back(frc_on ? std::array<double, 2>{frc[0], frc[1]} : std::array<double, 2>{0, 0});
  rm().links.push_back(l);
  link_mass.emplace_back();
  const int k = static_cast<int>(rm().links.size()) - 1;
  rm().links[static_cast<std::size_t>(k)].name = body_name + "/" + l.joint_name;  // renamed if last
  at.kind = AttachKind::Link;
  at.link = k;
  at.R = identity3<double>();
  at.p = -pj;
}

/// The body's geoms as contact shapes (ReducedModel::link_collisions) on the owner of
/// `at`: spheres, capsules, boxes and cylinders whose contype or conaffinity is nonzero;
/// other types that could collide get a warning.
void TreeBuilder::collisions(const XMLElement* b, const std::string& childclass, const std::string& body_name,
                             const Attach& at) {
  int index = 0;
  for (const XMLElement* g = b->FirstChildElement("geom"); g != nullptr; g = g->NextSiblingElement("geom"), ++index) {
    const Elem ge(ctx, g, class_defaults(ctx, g, "geom", childclass));
    // MuJoCo's int bit masks, as their 32 bits (-1: every bit).
    const long long contype = static_cast<std::uint32_t>(ge.integer("contype", 1));
    const long long conaffinity = static_cast<std::uint32_t>(ge.integer("conaffinity", 1));
    if (contype == 0 && conaffinity == 0) continue;  // a visual geom
    const GeomShape shape = geom_shape(ctx, ge);
    ShapeKind kind = ShapeKind::Sphere;
    if (shape.type == "capsule") kind = ShapeKind::Capsule;
    if (shape.type == "box") kind = ShapeKind::Box;
    if (shape.type == "cylinder") kind = ShapeKind::Cylinder;
    if (shape.type != "sphere" && kind == ShapeKind::Sphere) {
      ctx.warn("<geom type=\"" + shape.type + "\">: not a contact shape in SimPhant (sphere, capsule, box and cylinder "
               "are): with robot.urdf_collision it makes no contacts", element_path(g));
      continue;
    }
    LinkCollision c;
    c.link = body_name;
    c.index = index;
    c.owner = owner(at);
    c.kind = kind;
    for (int k = 0; k < 3; ++k) c.size[k] = shape.size[k];
    c.R = matmul(at.R, rot(shape.quat));
    c.p = mul(at.R, shape.pos) + at.p;
    c.contype = contype;
    c.conaffinity = conaffinity;
    const char* gn = g->Attribute("name");
    c.label = body_name + "[geom " + (gn ? std::string(gn) : std::to_string(index)) + "]";
    c.element = element_path(g);
    rm().link_collisions.push_back(c);
  }
}

void TreeBuilder::body(const XMLElement* b, const Attach& parent, const std::string& inherited_class,
                       bool on_worldbody, int depth) {
  if (depth > kMaxXmlDepth) ctx.fail(b, "", "bodies nested deeper than " + std::to_string(kMaxXmlDepth));
  if (body_id > kMaxUrdfLinks) ctx.fail(b, "", "more than " + std::to_string(kMaxUrdfLinks) + " bodies");
  const int id = ++body_id;
  audit(ctx, b, "body", {"name", "childclass", "pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "mocap",
                         "gravcomp"},
        {{"user", "user data, not used"}});
  const Elem be(ctx, b, nullptr);
  if (be.boolean("mocap", false)) be.fail("mocap", "mocap bodies are not supported");
  if (be.num("gravcomp", 0) != 0) be.fail("gravcomp", "gravity compensation is not supported");
  const char* bn = b->Attribute("name");
  const std::string name = bn ? bn : "body" + std::to_string(id);
  ctx.claim_name("body", name, bn == nullptr, b);
  std::string childclass = inherited_class;
  if (const char* cc = b->Attribute("childclass")) {
    if (!ctx.classes.count(cc)) be.fail("childclass", "unknown default class '" + std::string(cc) + "'");
    childclass = cc;
  }
  const Mat3d R_pb = rot(read_orientation(ctx, be));
  const Vec3d p_pb = be.vec3("pos", {0, 0, 0});
  Attach at = parent;
  at.R = matmul(parent.R, R_pb);
  at.p = mul(parent.R, p_pb) + parent.p;

  // Joints, in document order.
  std::vector<const XMLElement*> joints;
  for (const XMLElement* c = b->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
    const std::string tag = c->Name();
    if (tag == "joint" || tag == "freejoint") joints.push_back(c);
  }
  bool is_free = false;
  for (const XMLElement* j : joints) {
    const bool free = std::strcmp(j->Name(), "freejoint") == 0 ||
                      Elem(ctx, j, class_defaults(ctx, j, "joint", childclass)).str("type", "hinge") == "free";
    if (!free) continue;
    if (!on_worldbody) ctx.fail(j, "type", "a free joint is only supported on a child of <worldbody>");
    if (joints.size() != 1) ctx.fail(j, "type", "a free joint must be its body's only joint");
    if (floating) ctx.fail(j, "type", "a second free joint (one floating base is supported)");
    if (!rm().links.empty())
      ctx.fail(j, "type", "a free joint after moving joints on the world (joint '" + rm().links[0].joint_name +
                              "'); one floating base and no joint on the world is supported");
    if (std::strcmp(j->Name(), "freejoint") == 0) {  // MuJoCo: no damping, armature, friction; no class
      audit(ctx, j, "freejoint", {"name"}, {{"group", "visual, not used"}, {"align", "not used"}});
    } else {
      audit(ctx, j, "joint", joint_used(), joint_ignored());
      const Elem fe(ctx, j, class_defaults(ctx, j, "joint", childclass));  // a <default> joint's values apply
      for (const char* k : {"damping", "armature", "frictionloss", "stiffness"})
        if (fe.num(k, 0) != 0)
          fe.fail(k, std::string("a free joint's ") + k + " (on the floating base's six coordinates) is not supported; "
                     "it must be 0 (use <freejoint>, which takes no default class)");
    }
    const char* fjn = j->Attribute("name");
    ctx.claim_name("joint", fjn ? fjn : "joint" + std::to_string(joint_id), fjn == nullptr, j);
    ++joint_id;
    is_free = true;
    floating = true;
    rm().floating = true;
    rm().base.link = name;
    rm().base_link = name;
    out.free_position = at.p;
    out.free_orientation = normalized(quat_from_rotation(at.R));
    ctx.warn("free joint: the body's XML pose is MuJoCo's initial qpos (MjcfModel::free_position / "
             "free_orientation); the scene's robot.base sets SimPhant's",
             element_path(j));
    at = Attach{AttachKind::Base, -1, identity3<double>(), {0, 0, 0}};
  }
  if (!is_free) {
    for (const XMLElement* j : joints) joint(j, childclass, name, at);
    // The body's last joint's link is named as the body; a welded body (no joints) leaves
    // its parent's link name alone.
    if (!joints.empty()) rm().links[static_cast<std::size_t>(at.link)].name = name;
  }

  // The body's frame and shapes on its owner; MuJoCo's parent filter between the owners
  // of the body and of its parent body (not the world's).
  rm().link_frames.push_back(LinkFrame{name, owner(at), at.R, at.p});
  collisions(b, childclass, name, at);
  if (at.kind != AttachKind::World && parent.kind != AttachKind::World && owner(at) != owner(parent))
    rm().collision_exclude.emplace_back(std::min(owner(at), owner(parent)), std::max(owner(at), owner(parent)));

  const MassProps m = urdf_detail::transform_mass(body_mass(b, childclass), at.R, at.p);
  const std::string owner_name = at.kind == AttachKind::Link ? rm().links[static_cast<std::size_t>(at.link)].name
                                 : at.kind == AttachKind::Base ? rm().base.link : std::string("world");
  out.body_masses.push_back(MjcfBodyMass{name, owner_name, m.mass, m.com, m.inertia});
  if (at.kind == AttachKind::Link) add_mass(link_mass[static_cast<std::size_t>(at.link)], m);
  if (at.kind == AttachKind::Base) add_mass(base_mass, m);
  if (at.kind == AttachKind::World) {
    add_mass(world_mass, m);
    if (floating && m.mass > 0)
      ctx.warn("body welded to the world side of the free joint: its mass is not used", element_path(b));
  }

  for (const XMLElement* c = b->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
    const std::string tag = c->Name();
    if (tag == "body") {
      body(c, at, childclass, false, depth + 1);
    } else if (tag == "joint" || tag == "freejoint" || tag == "geom" || tag == "inertial") {
      // read above
    } else if (tag == "site" || tag == "camera" || tag == "light") {
      ctx.warn("<" + tag + ">: not used (no sensors, nothing rendered)", element_path(c));
    } else if (tag == "frame" || tag == "replicate" || tag == "composite" || tag == "flexcomp" || tag == "include" ||
               tag == "attach" || tag == "plugin") {
      ctx.fail(c, "", "<" + tag + "> is not supported");
    } else {
      ctx.warn("<" + tag + ">: unknown element in <body>, not used", element_path(c));
    }
  }
}

}  // namespace

void build_tree(Ctx& ctx, const XMLElement* worldbody, MjcfModel& out) {
  TreeBuilder t(ctx, out);
  ReducedModel& rm = out.model;
  rm.base_link = "world";
  rm.base.link = "world";
  int world_geoms = 0;
  ctx.names["body"]["world"] = {"<worldbody> (MuJoCo's name of the world body)", false};
  if (worldbody != nullptr) {
    if (const tinyxml2::XMLAttribute* a = worldbody->FirstAttribute())
      ctx.fail(worldbody, a->Name(), "<worldbody> takes no attributes (MuJoCo refuses them too: \"World body cannot "
                                     "have attributes\"); give childclass on its bodies");
    for (const XMLElement* c = worldbody->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
      const std::string tag = c->Name();
      if (tag == "body") {
        t.body(c, Attach{}, "", true, 1);
      } else if (tag == "geom") {
        ++world_geoms;
      } else if (tag == "site" || tag == "camera" || tag == "light") {
        ctx.warn("<" + tag + ">: not used (no sensors, nothing rendered)", element_path(c));
      } else if (tag == "frame" || tag == "replicate" || tag == "composite" || tag == "flexcomp" ||
                 tag == "include" || tag == "attach" || tag == "plugin") {
        ctx.fail(c, "", "<" + tag + "> is not supported");
      } else if (tag == "joint" || tag == "freejoint" || tag == "inertial") {
        ctx.fail(c, "", "<worldbody> cannot have a <" + tag + ">");
      } else {
        ctx.warn("<" + tag + ">: unknown element in <worldbody>, not used", element_path(c));
      }
    }
  }
  t.resolve_world_owners();
  if (world_geoms > 0)
    ctx.warn(std::to_string(world_geoms) + " <geom> of <worldbody>: part of the world, not used (nothing is "
             "rendered; the ground of the scene's contact section is contact.ground)", "");

  // <compiler settotalmass>: as MuJoCo, every body's mass and inertia times the one factor
  // that makes their total (the world body's excluded; bodies welded to it included, unless
  // fusestatic folds them into the world) the value given; no change when the bodies have
  // no mass.
  if (ctx.settotalmass > 0) {
    double total = t.base_mass.mass + (ctx.fusestatic ? 0.0 : t.world_mass.mass);
    for (const MassProps& m : t.link_mass) total += m.mass;
    if (total > 0) {
      const double f = ctx.settotalmass / total;
      auto scale = [f](MassProps& m) {
        m.mass *= f;
        for (auto& row : m.inertia.m)
          for (double& x : row) x *= f;
      };
      scale(t.base_mass);
      scale(t.world_mass);
      for (MjcfBodyMass& m : out.body_masses) {
        m.mass *= f;
        for (auto& row : m.inertia_com.m)
          for (double& x : row) x *= f;
      }
      for (MassProps& m : t.link_mass) scale(m);
    }
  }

  // MuJoCo's fusestatic folds every body without joints into its parent, so its body list
  // is not the file's: no per-body list then (MjcfModel::body_masses).
  if (ctx.fusestatic) out.body_masses.clear();

  // Mass properties onto the links, and the URDF importer's mass rules.
  const int n = rm.nq();
  std::vector<bool> below(static_cast<std::size_t>(n), false);  // some link at or below has mass
  for (int k = n - 1; k >= 0; --k) {
    ReducedLink& l = rm.links[static_cast<std::size_t>(k)];
    const MassProps& m = t.link_mass[static_cast<std::size_t>(k)];
    l.mass = m.mass;
    l.com = m.com;
    l.inertia_com = m.inertia;
    below[static_cast<std::size_t>(k)] = below[static_cast<std::size_t>(k)] || m.mass > 0;
    if (l.parent >= 0 && below[static_cast<std::size_t>(k)]) below[static_cast<std::size_t>(l.parent)] = true;
  }
  for (int k = 0; k < n; ++k) {
    const ReducedLink& l = rm.links[static_cast<std::size_t>(k)];
    const std::string where = ctx.prefix + ": body '" + l.name + "' (joint '" + l.joint_name + "')";
    if (l.mass > 0) {
      try {
        urdf_detail::check_inertia(l.inertia_com, where);
      } catch (const UrdfError& e) {
        throw MjcfError(e.what());
      }
    } else if (!below[static_cast<std::size_t>(k)]) {
      throw MjcfError(where + ": no mass, and no body below it has mass (a moving body needs mass > 0: geoms "
                              "with a volume, or an <inertial>)");
    }
  }
  const MassProps& b = t.floating ? t.base_mass : t.world_mass;
  rm.base.mass = b.mass;
  rm.base.com = b.com;
  rm.base.inertia_com = b.inertia;
  if (t.floating) {
    const std::string where = ctx.prefix + ": body '" + rm.base.link + "' (the floating base)";
    if (!(b.mass > 0)) throw MjcfError(where + ": no mass; a floating base needs mass > 0");
    try {
      urdf_detail::check_inertia(b.inertia, where);
    } catch (const UrdfError& e) {
      throw MjcfError(e.what());
    }
  }
}

}  // namespace simphant::mjcf_detail
