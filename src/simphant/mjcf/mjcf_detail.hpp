#pragma once
// Private to mjcf/: the stages of import_mjcf (mjcf_import.hpp), one per file.
// mjcf_xml.cpp: element paths, attribute values with <default> classes, orientations,
// warnings; mjcf_geom.cpp: a geom's mass properties as MuJoCo's compiler infers them;
// mjcf_tree.cpp: the body tree -> links; mjcf_import.cpp: the document, <compiler>,
// <option>, <actuator> and the sections read past.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <tinyxml2.h>

#include "simphant/math/small.hpp"
#include "simphant/mjcf/mjcf_import.hpp"
#include "simphant/urdf/urdf_detail.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant::mjcf_detail {

using tinyxml2::XMLElement;
using Attrs = std::map<std::string, std::string>;
using urdf_detail::MassProps;

/// One <default> class: its attributes per element kind ("joint", "geom", "tendon", "actuator"),
/// the parent's already copied in. Under kActuatorTags, each actuator attribute maps to
/// the tag of the default element that set it ("motor", "position", "velocity",
/// "general"): MuJoCo's shortcuts translate their parameters into one actuator default,
/// which SimPhant does not replay, so an element reading another shortcut's parameters
/// is refused (read_actuators).
struct DefaultClass {
  std::map<std::string, Attrs> kinds;
};
inline const std::string kActuatorTags = "actuator tags";

enum class InertiaFromGeom : int { False = 0, True = 1, Auto = 2 };

/// The state of one import: compiler settings, default classes, warnings.
struct Ctx {
  std::string prefix;  ///< "MJCF <source>"
  bool degree = true;
  std::string eulerseq = "xyz";
  InertiaFromGeom inertiafromgeom = InertiaFromGeom::Auto;
  int group_lo = 0, group_hi = 5;  ///< <compiler inertiagrouprange>
  bool autolimits = true;
  double settotalmass = -1;  ///< <compiler settotalmass>: > 0 scales every body's mass and inertia to this total [kg]
  bool fusestatic = false;   ///< <compiler fusestatic>: bodies welded to the world are part of it (not in the total)
  std::map<std::string, DefaultClass> classes;
  /// Names taken so far, per kind ("body", "joint", "actuator"): name -> the path of the
  /// element that took it, and whether that name is SimPhant's for an unnamed element.
  std::map<std::string, std::map<std::string, std::pair<std::string, bool>>> names;
  /// The <option><flag> elements, checked against the built model (check_flags).
  std::vector<const XMLElement*> flags;
  /// Findings: message -> elements, in first-seen order.
  std::map<std::string, std::vector<std::string>> findings;
  std::vector<std::string> finding_order;

  [[noreturn]] void fail(const XMLElement* e, const std::string& attr, const std::string& reason) const;
  /// Takes `name` of `kind` for element e; an MjcfError naming e if it is taken (MuJoCo
  /// refuses a repeated name). generated: SimPhant's name of an unnamed element
  /// ("body<id>", "joint<id>", "actuator<id>"), which must not collide with a given one.
  void claim_name(const std::string& kind, const std::string& name, bool generated, const XMLElement* e);
  void warn(const std::string& message, const std::string& where);
  std::vector<std::string> warnings() const;
};

/// "worldbody/body[cart]/joint[slider]" (tag[name], or tag#k, k-th such child, unnamed).
std::string element_path(const XMLElement* e);

/// An element read with its <default> class: an explicit attribute wins over the class's.
class Elem {
 public:
  Elem(Ctx& ctx, const XMLElement* e, const Attrs* defaults) : ctx_(ctx), e_(e), defaults_(defaults) {}
  const XMLElement* xml() const { return e_; }
  const char* raw(const char* name) const;
  bool has(const char* name) const { return raw(name) != nullptr; }
  std::string str(const char* name, const std::string& dflt) const;
  double num(const char* name, double dflt) const;
  /// An integer attribute (MuJoCo's int): "1.5", "1e3" or a value outside int's range is
  /// an error ("bad format"), never truncated.
  int integer(const char* name, int dflt) const;
  /// Between min_n and max_n integers, as integer().
  std::vector<int> ints(const char* name, int min_n, int max_n) const;
  /// Between min_n and max_n numbers (error otherwise).
  std::vector<double> nums(const char* name, int min_n, int max_n) const;
  /// The numbers of `name` laid over `base` element by element, as MuJoCo reads a list
  /// shorter than its array: the class's value, then the element's own (each 1 to
  /// base.size() numbers).
  std::vector<double> nums_over(const char* name, std::vector<double> base) const;
  /// fail(name, ...) unless min_n <= got <= max_n ("needs N <what> (got ...)").
  void count_in(const char* name, const char* v, int got, int min_n, int max_n, const char* what) const;
  Vec3d vec3(const char* name, const Vec3d& dflt) const;
  bool boolean(const char* name, bool dflt) const;
  /// "true" 1, "false" 0, "auto" 2 (default 2).
  int tristate(const char* name) const;
  /// The keyword value among `allowed` (error otherwise).
  std::string keyword(const char* name, const std::string& dflt, const std::vector<std::string>& allowed) const;
  [[noreturn]] void fail(const std::string& attr, const std::string& reason) const { ctx_.fail(e_, attr, reason); }

 private:
  std::vector<double> list_of(const char* name, const char* v, int min_n, int max_n) const;

  Ctx& ctx_;
  const XMLElement* e_;
  const Attrs* defaults_;
};

/// Reads the <default> trees of the <mujoco> element `root` into ctx. Each top-level
/// <default> is class "main"; several are merged in document order, as MuJoCo does (a
/// later one adds to and overrides main; a class copies its parent when it is read).
void read_defaults(Ctx& ctx, const XMLElement* root);
/// The defaults of `kind` for element e: its `class`, else `childclass` (the nearest
/// enclosing body's), else "main"; nullptr when no class holds that kind.
const Attrs* class_defaults(Ctx& ctx, const XMLElement* e, const std::string& kind, const std::string& childclass);

/// The orientation of an element (quat | euler | axisangle | xyaxes | zaxis; at most one),
/// as MuJoCo resolves it (angles in the compiler's unit, euler in its eulerseq).
Quatd read_orientation(const Ctx& ctx, const Elem& e);
/// MuJoCo's quaternion taking (0, 0, 1) to the unit vector `v`.
Quatd z_to(const Vec3d& v);
Mat3d rot(const Quatd& q);
Mat3d matmul(const Mat3d& A, const Mat3d& B);

/// Attribute audit: attributes of e that are neither in `used` nor in `ignored` (attribute
/// -> why) get "unknown attribute" warnings; those in `ignored` get that reason.
void audit(Ctx& ctx, const XMLElement* e, const std::string& what, const std::set<std::string>& used,
           const std::map<std::string, std::string>& ignored);
/// The attribute sets of the elements read (used by the audits of elements and defaults).
const std::set<std::string>& joint_used();
const std::map<std::string, std::string>& joint_ignored();
const std::set<std::string>& geom_used();
const std::map<std::string, std::string>& geom_ignored();
const std::set<std::string>& tendon_used();
const std::map<std::string, std::string>& tendon_ignored();
const std::set<std::string>& actuator_used();
const std::map<std::string, std::string>& actuator_ignored();

/// A geom's type and its frame G in its body's frame, x_body = rot(quat) x_G + pos, with
/// `fromto` resolved as MuJoCo does (mjcf_geom.cpp). `solid` (sphere, capsule, cylinder,
/// box, ellipsoid): `size` is MuJoCo's (radius; radius, half-length; half-extents), each
/// size it uses checked > 0. Otherwise (plane, hfield, mesh, sdf) size is not read.
struct GeomShape {
  std::string type;
  bool solid = true;
  double size[3] = {0, 0, 0};
  Vec3d pos{0, 0, 0};
  Quatd quat{1, 0, 0, 0};
};
GeomShape geom_shape(Ctx& ctx, const Elem& g);

/// Mass properties of a geom in its body's frame (mjcf_geom.cpp); `infer`: the geom
/// contributes (inertiafromgeom and group); mass 0 when it contributes nothing.
MassProps geom_mass(Ctx& ctx, const Elem& g, bool infer);

/// Builds the links from <worldbody> (mjcf_tree.cpp) into out.
void build_tree(Ctx& ctx, const XMLElement* worldbody, MjcfModel& out);

}  // namespace simphant::mjcf_detail
