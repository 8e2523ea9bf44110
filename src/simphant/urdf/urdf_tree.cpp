// urdfdom model -> ReducedModel: joint checks, loop detection, fixed-joint merging and
// the mass rules of urdf_import.hpp, the floating base, limits and <dynamics>.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <urdf_model/model.h>

#include "simphant/math/unit_vector.hpp"
#include "simphant/reduced/spatial.hpp"
#include "simphant/urdf/urdf_detail.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant::urdf_detail {

namespace {

constexpr double kMinAxisNorm = 1e-12;  ///< shorter joint axes are errors

bool unit_axis(const Vec3d& a, Vec3d& unit) { return unit_vector(a, kMinAxisNorm, unit); }

Vec3d vec(const urdf::Vector3& v) { return {v.x, v.y, v.z}; }
Mat3d rot(const urdf::Rotation& r) { return rotation(normalized(Quatd{r.w, r.x, r.y, r.z})); }

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

const char* type_name(int type) {
  switch (type) {
    case urdf::Joint::REVOLUTE: return "revolute";
    case urdf::Joint::CONTINUOUS: return "continuous";
    case urdf::Joint::PRISMATIC: return "prismatic";
    case urdf::Joint::FLOATING: return "floating";
    case urdf::Joint::PLANAR: return "planar";
    case urdf::Joint::FIXED: return "fixed";
    default: return "unknown";
  }
}

bool is_zero(const Mat3d& J) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      if (J.m[r][c] != 0.0) return false;
  return true;
}

/// Output "bodies" of the walk besides moving links (index >= 0).
constexpr int kBase = -1;   ///< the base: W for a fixed base, the free body B for a floating one
constexpr int kWorld = -2;  ///< the root side of a `floating` joint (welded to W, not simulated)

bool is_moving(int type) {
  return type == urdf::Joint::REVOLUTE || type == urdf::Joint::CONTINUOUS || type == urdf::Joint::PRISMATIC;
}

class Builder {
 public:
  Builder(const urdf::ModelInterface& m, const std::string& prefix) : m_(m), prefix_(prefix) {}

  ReducedModel build() {
    check_joints();
    const urdf::LinkConstSharedPtr root = m_.getRoot();
    if (!root) throw UrdfError(prefix_ + ": no root link");
    out_.name = m_.getName();
    out_.base_link = root->name;
    out_.floating = floating_ != nullptr;
    out_.base.link = root->name;
    walk(*root);
    if (visited_.size() != m_.links_.size()) report_loop();
    finish_links();
    finish_base();
    return out_;
  }

 private:
  /// Joint types and axes; every link has at most one parent joint; at most one
  /// `floating` joint.
  void check_joints() {
    for (const auto& kv : m_.joints_) {
      const urdf::Joint& j = *kv.second;
      const std::string where = prefix_ + ": joint '" + j.name + "'";
      const int t = j.type;
      if (!is_moving(t) && t != urdf::Joint::FIXED && t != urdf::Joint::FLOATING) {
        throw UrdfError(where + ": unsupported type '" + type_name(t) +
                        "' (SimPhant imports revolute, continuous, prismatic, fixed and floating joints)");
      }
      if (t == urdf::Joint::FLOATING) {
        if (floating_ != nullptr) {
          const std::string a = std::min(floating_->name, j.name), b = std::max(floating_->name, j.name);
          throw UrdfError(prefix_ + ": joint '" + b + "': a second floating joint (joint '" + a +
                          "' is one); SimPhant simulates one floating base per robot");
        }
        floating_ = &j;
      }
      Vec3d unit;
      if (is_moving(t) && !unit_axis(vec(j.axis), unit)) {
        throw UrdfError(where + ": axis: zero-length or non-finite axis (xyz " + fmt(j.axis.x) + " " +
                        fmt(j.axis.y) + " " + fmt(j.axis.z) + ")");
      }
      if (j.parent_link_name == j.child_link_name) {
        throw UrdfError(where + ": parent and child are the same link '" + j.child_link_name + "' (a kinematic loop)");
      }
      const auto ins = parent_joint_.emplace(j.child_link_name, &j);
      if (!ins.second) {
        throw UrdfError(where + ": link '" + j.child_link_name + "' already has parent joint '" +
                        ins.first->second->name + "': a kinematic loop (URDF describes trees only)");
      }
    }
  }

  /// A link never reached from the root lies on a cycle of parent joints: name it.
  [[noreturn]] void report_loop() const {
    for (const auto& kv : m_.links_) {
      if (visited_.count(kv.first) != 0) continue;
      std::vector<std::string> chain{kv.first};
      std::set<std::string> seen{kv.first};
      std::string name = kv.first;
      const urdf::Joint* closing = nullptr;
      for (auto it = parent_joint_.find(name); it != parent_joint_.end(); it = parent_joint_.find(name)) {
        closing = it->second;
        name = it->second->parent_link_name;
        chain.push_back(name);
        if (!seen.insert(name).second) break;
      }
      std::string path;
      for (std::size_t k = chain.size(); k-- > 0;) path += (path.empty() ? "" : " -> ") + chain[k];
      const std::string joint = closing != nullptr ? "joint '" + closing->name + "'" : "link '" + kv.first + "'";
      throw UrdfError(prefix_ + ": " + joint + ": a kinematic loop through links " + path +
                      " (not connected to the root '" + out_.base_link + "')");
    }
    throw UrdfError(prefix_ + ": a link is not connected to the root");  // unreachable
  }

  /// The mass properties of `link`'s <inertial> in its own frame (mass 0 and a zero
  /// inertia when it has none). Throws UrdfError at `where` for a negative or non-finite
  /// mass or a non-finite inertia. Sets `not_physical` to why the inertial alone is not a
  /// rigid body ("" when it is: none; mass 0 with a zero inertia; or mass > 0 passing
  /// check_inertia): only the merged body must be one (check_body); Pinocchio, too,
  /// merges before it uses an inertia.
  MassProps link_inertial(const urdf::Link& link, const std::string& where, std::string& not_physical) const {
    not_physical.clear();
    const urdf::InertialSharedPtr& in = link.inertial;
    if (!in) return {};
    const std::string w = where + ": inertial";
    const Mat3d J = {{{in->ixx, in->ixy, in->ixz}, {in->ixy, in->iyy, in->iyz}, {in->ixz, in->iyz, in->izz}}};
    if (!(in->mass >= 0) || !std::isfinite(in->mass))
      throw UrdfError(w + ": mass must be a finite number >= 0 (got " + fmt(in->mass) + " kg)");
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        if (!std::isfinite(J.m[r][c])) throw UrdfError(w + ": inertia: a value is not finite");
    if (in->mass == 0.0) {
      if (!is_zero(J)) not_physical = "mass is 0 but the inertia is not zero";
    } else {
      try {
        check_inertia(J, w);
      } catch (const UrdfError& e) {
        not_physical = e.what();
        not_physical = not_physical.substr(not_physical.find(": inertia ") + 2);  // "inertia is not ..."
      }
    }
    const Mat3d R_i = rot(in->origin.rotation);
    return {in->mass, vec(in->origin.position), rotate_inertia(R_i, J)};
  }

  /// What a body (moving link or base) is made of, for its check and its messages.
  struct BodyParts {
    MassProps sum;
    int inertials = 0;          ///< number of <inertial> elements merged into it
    std::string first;          ///< "link 'x'" of the first, for a one-part body's errors
    std::string not_physical;   ///< the first part that is not a rigid body alone: "link 'x': not a ... (reason)"
  };

  /// Records `link`'s <collision> elements on output body `body` (link pose in the body
  /// frame: R_bl, p_bl).
  void add_collisions(const urdf::Link& link, int body, const Mat3d& R_bl, const Vec3d& p_bl) {
    for (std::size_t k = 0; k < link.collision_array.size(); ++k) {
      const urdf::CollisionSharedPtr& c = link.collision_array[k];
      if (!c || !c->geometry) continue;
      LinkCollision out;
      out.link = link.name;
      out.index = static_cast<int>(k);
      out.owner = body;
      out.label = link.name + "[urdf " + std::to_string(k) + "]";
      out.element = "link '" + link.name + "' <collision> " + std::to_string(k);
      switch (c->geometry->type) {
        case urdf::Geometry::SPHERE:
          out.kind = ShapeKind::Sphere;
          out.size[0] = static_cast<const urdf::Sphere&>(*c->geometry).radius;
          break;
        case urdf::Geometry::BOX: {
          const urdf::Vector3& d = static_cast<const urdf::Box&>(*c->geometry).dim;
          out.kind = ShapeKind::Box;
          out.size[0] = 0.5 * d.x;
          out.size[1] = 0.5 * d.y;
          out.size[2] = 0.5 * d.z;
          break;
        }
        case urdf::Geometry::CYLINDER: {
          const urdf::Cylinder& cy = static_cast<const urdf::Cylinder&>(*c->geometry);
          out.kind = ShapeKind::Cylinder;
          out.size[0] = cy.radius;
          out.size[1] = 0.5 * cy.length;
          break;
        }
        case urdf::Geometry::MESH: {
          const urdf::Mesh& me = static_cast<const urdf::Mesh&>(*c->geometry);
          out.kind = ShapeKind::Box;  // its bounding box, once the file is read
          out.mesh = me.filename;
          out.scale = vec(me.scale);
          break;
        }
        default:
          continue;
      }
      out.R = spatial_detail::m3_mul(R_bl, rot(c->origin.rotation));
      out.p = mul(R_bl, vec(c->origin.position)) + p_bl;
      out_.link_collisions.push_back(out);
    }
  }

  /// Adds `link`'s <inertial> to output body `body` (link pose in the body frame: R_bl, p_bl).
  void add_inertial(const urdf::Link& link, int body, const Mat3d& R_bl, const Vec3d& p_bl) {
    if (body == kWorld) {
      if (link.inertial)
        out_.warnings.push_back("<inertial> of link '" + link.name + "': not used (the link is on the world side of " +
                                "floating joint '" + floating_->name + "', welded to W)");
      return;
    }
    if (!link.inertial) return;
    std::string where = prefix_ + ": link '" + link.name + "'";
    BodyParts& parts = body >= 0 ? acc_[static_cast<std::size_t>(body)] : base_acc_;
    const std::string& owner = body >= 0 ? out_.links[static_cast<std::size_t>(body)].name : out_.base.link;
    if (owner != link.name) where += " (merged by fixed joints into link '" + owner + "')";
    MassProps m;
    std::string not_physical;
    if (body == kBase && floating_ == nullptr) {
      // A fixed base uses no mass: a bad inertial there is reported only if the base is
      // made floating (make_floating_base), through base_problem_.
      try {
        m = link_inertial(link, where, not_physical);
      } catch (const UrdfError& e) {
        if (base_problem_.empty()) base_problem_ = e.what();
        return;
      }
    } else {
      m = link_inertial(link, where, not_physical);
    }
    if (parts.inertials++ == 0) parts.first = where + ": inertial";
    if (!not_physical.empty() && parts.not_physical.empty())
      parts.not_physical = "link '" + link.name + "': not a rigid body alone (" + not_physical + ")";
    const MassProps in_body = transform_mass(m, R_bl, p_bl);
    MassProps& acc = parts.sum;
    if (acc.mass + in_body.mass > 0) {
      acc = combine_mass(acc, in_body);  // exact for a massless part too: its inertia is the same about every point
    } else {
      acc.inertia = spatial_detail::m3_add(acc.inertia, in_body.inertia);
    }
  }

  /// Checks a body's merged mass properties: mass > 0 with a physical inertia (errors
  /// name the only <inertial> of a one-part body, else the merged body `merged_where`),
  /// or mass 0 with a zero inertia (returns false: massless). Warns when a part was not
  /// physical alone.
  bool check_body(const BodyParts& parts, const std::string& merged_where) {
    const std::string where = parts.inertials == 1 ? parts.first : merged_where;
    if (parts.sum.mass > 0) {
      check_inertia(parts.sum.inertia, where);
    } else if (!is_zero(parts.sum.inertia)) {
      throw UrdfError(where + ": mass is 0 but the inertia is not zero");
    }
    if (parts.inertials > 1 && !parts.not_physical.empty())
      out_.warnings.push_back("<inertial> of " + parts.not_physical + "; accepted: the merged body, " +
                              merged_where.substr(prefix_.size() + 2) + ", is one");
    return parts.sum.mass > 0;
  }

  /// A link waiting on the walk's stack, with the joint that leads to it.
  struct Pending {
    const urdf::Link* link;
    const urdf::Joint* joint;  ///< the joint whose child `link` is; null for the root
    int body;                  ///< output body of the joint's parent (a link, kBase or kWorld)
    Mat3d R_bj;                ///< joint frame in that body's frame (R_bl for the root)
    Vec3d p_bj;
  };

  /// Depth-first walk from the root with an explicit stack (no recursion, so a deep chain
  /// costs no call stack). Output links are numbered in pre-order, children in the order
  /// urdfdom lists them, so parent index < own index. A link joined by a fixed joint joins
  /// its parent's output body at the composed pose; a moving joint starts a new output
  /// link; the `floating` joint starts the base (frame B = its child's link frame).
  void walk(const urdf::Link& root) {
    const int root_body = floating_ != nullptr ? kWorld : kBase;
    std::vector<Pending> stack{{&root, nullptr, root_body, identity3<double>(), zero3<double>()}};
    while (!stack.empty()) {
      const Pending e = stack.back();
      stack.pop_back();
      const urdf::Joint* j = e.joint;
      int body = e.body;
      Mat3d R_bl = e.R_bj;
      Vec3d p_bl = e.p_bj;
      if (j != nullptr && j->type == urdf::Joint::FLOATING) {
        body = kBase;
        R_bl = identity3<double>();
        p_bl = zero3<double>();
        out_.base.link = e.link->name;
        if (!is_identity(j->parent_to_joint_origin_transform))
          out_.warnings.push_back("<origin> of floating joint '" + j->name +
                                  "': not used (the base pose is state: the scene's robot.base)");
      } else if (j != nullptr && j->type != urdf::Joint::FIXED) {
        if (e.body == kWorld) {
          throw UrdfError(prefix_ + ": joint '" + j->name + "': a moving joint on the world side of floating joint '" +
                          floating_->name + "' (its parent '" + j->parent_link_name +
                          "' is welded to W, not to the floating base '" + floating_->child_link_name +
                          "'): a floating joint must join the root link (or a link fixed to it) to the base, and "
                          "every moving joint must hang from that base");
        }
        out_.links.push_back(moving_link(*e.link, *j, body, e.R_bj, e.p_bj));
        acc_.emplace_back();
        body = static_cast<int>(out_.links.size()) - 1;
        R_bl = identity3<double>();
        p_bl = zero3<double>();
      }
      visited_.insert(e.link->name);
      out_.link_frames.push_back({e.link->name, body, R_bl, p_bl});
      add_collisions(*e.link, body, R_bl, p_bl);
      add_inertial(*e.link, body, R_bl, p_bl);
      // Children pushed last-first, so that they are popped in urdfdom's order.
      for (auto it = e.link->child_joints.rbegin(); it != e.link->child_joints.rend(); ++it) {
        const urdf::Joint& cj = **it;
        const urdf::LinkConstSharedPtr child = m_.getLink(cj.child_link_name);
        if (!child || visited_.count(child->name) != 0) continue;  // cycles are refused before (precheck_urdf)
        const Mat3d R_bj = spatial_detail::m3_mul(R_bl, rot(cj.parent_to_joint_origin_transform.rotation));
        const Vec3d p_bj = mul(R_bl, vec(cj.parent_to_joint_origin_transform.position)) + p_bl;
        stack.push_back({child.get(), &cj, body, R_bj, p_bj});
      }
    }
  }

  static bool is_identity(const urdf::Pose& p) {
    return p.position.x == 0 && p.position.y == 0 && p.position.z == 0 && p.rotation.x == 0 && p.rotation.y == 0 &&
           p.rotation.z == 0;
  }

  /// Mass properties into the links; the mass rule of a massless moving link: some link
  /// below it has mass (then every joint above a massive link has a positive inertia
  /// along its motion, except for degenerate geometry such as coaxial revolutes; docs/robots.md).
  void finish_links() {
    const std::size_t n = out_.links.size();
    std::vector<double> below(n, 0.0);  ///< mass of the strict subtree of each link
    for (std::size_t k = n; k-- > 0;) {
      const int p = out_.links[k].parent;
      if (p >= 0) below[static_cast<std::size_t>(p)] += below[k] + acc_[k].sum.mass;
    }
    for (std::size_t k = 0; k < n; ++k) {
      ReducedLink& l = out_.links[k];
      l.mass = acc_[k].sum.mass;
      l.com = acc_[k].sum.com;
      l.inertia_com = acc_[k].sum.inertia;
      const bool massive = check_body(acc_[k], prefix_ + ": link '" + l.name + "' (with its fixed children merged)");
      if (!massive && !(below[k] > 0)) {
        throw UrdfError(prefix_ + ": link '" + l.name + "': no mass (no <inertial>, or mass 0, on it and the links "
                        "fixed to it) and no mass below it: moving joint '" + l.joint_name +
                        "' would move nothing (a massless moving link needs mass further down the tree)");
      }
    }
  }

  void finish_base() {
    ReducedBase& b = out_.base;
    const std::string role =
        floating_ != nullptr ? "the floating base of joint '" + floating_->name + "'" : std::string("the base");
    const std::string where = prefix_ + ": link '" + b.link + "' (" + role + ", with the links fixed to it)";
    if (floating_ != nullptr) {
      if (!check_body(base_acc_, where)) throw UrdfError(where + ": no mass; a floating base needs mass > 0");
    } else if (base_problem_.empty()) {
      try {
        if (!check_body(base_acc_, where)) return;  // massless: mass 0, unusable for a floating base
      } catch (const UrdfError& e) {
        base_problem_ = e.what();
      }
    }
    if (!base_problem_.empty()) {
      out_.warnings.push_back("the base's mass properties are not used by a fixed base, and a floating base made "
                              "from it is refused: " + base_problem_);
      return;  // base mass 0: unusable
    }
    b.mass = base_acc_.sum.mass;
    b.com = base_acc_.sum.com;
    b.inertia_com = base_acc_.sum.inertia;
  }

  /// The output link of moving joint `j` (child `link`) below output body `parent` at
  /// joint pose (R_bj, p_bj) in the parent's frame. Limits and <dynamics> are checked.
  ReducedLink moving_link(const urdf::Link& link, const urdf::Joint& j, int parent, const Mat3d& R_bj,
                          const Vec3d& p_bj) const {
    const std::string where = prefix_ + ": joint '" + j.name + "'";
    ReducedLink l;
    l.name = link.name;
    l.joint_name = j.name;
    l.parent = parent;
    l.type = j.type == urdf::Joint::PRISMATIC ? ReducedJointType::Prismatic : ReducedJointType::Revolute;
    l.R_parent_joint = R_bj;
    l.p_parent_joint = p_bj;
    unit_axis(vec(j.axis), l.axis);
    l.continuous = j.type == urdf::Joint::CONTINUOUS;
    if (j.limits) {
      const urdf::JointLimits& lim = *j.limits;
      if (!std::isfinite(lim.effort) || !std::isfinite(lim.velocity))
        throw UrdfError(where + ": limit: effort and velocity must be finite (got " + fmt(lim.effort) + ", " +
                        fmt(lim.velocity) + "); 0 means no limit");
      if (!l.continuous) {
        if (!std::isfinite(lim.lower) || !std::isfinite(lim.upper) || lim.lower > lim.upper)
          throw UrdfError(where + ": limit: need finite lower <= upper (got lower " + fmt(lim.lower) + ", upper " +
                          fmt(lim.upper) + ")");
        l.lower = lim.lower;
        l.upper = lim.upper;
      }
      l.effort = lim.effort;
      l.velocity = lim.velocity;
    }
    if (j.dynamics) {
      const double d = j.dynamics->damping, f = j.dynamics->friction;
      if (!(d >= 0) || !std::isfinite(d))
        throw UrdfError(where + ": dynamics: damping must be a finite number >= 0 (got " + fmt(d) + ")");
      if (!(f >= 0) || !std::isfinite(f))
        throw UrdfError(where + ": dynamics: friction must be a finite number >= 0 (got " + fmt(f) + ")");
      l.damping = d;
      l.friction = f;
    }
    return l;
  }

  const urdf::ModelInterface& m_;
  std::string prefix_;
  ReducedModel out_;
  std::vector<BodyParts> acc_;                          ///< (links) accumulated mass properties
  BodyParts base_acc_;                                  ///< the base's accumulated mass properties (frame B)
  std::string base_problem_;                            ///< first bad inertial of a fixed base ("" none)
  const urdf::Joint* floating_ = nullptr;               ///< the `floating` joint, if any
  std::map<std::string, const urdf::Joint*> parent_joint_;  ///< child link name -> its joint
  std::set<std::string> visited_;                       ///< URDF links reached from the root
};

}  // namespace

ReducedModel build_reduced_model(const urdf::ModelInterface& model, const std::string& prefix) {
  ReducedModel rm = Builder(model, prefix).build();
  resolve_mimics(model, rm, prefix);
  warn_singular_mass_matrix(rm);
  return rm;
}

}  // namespace simphant::urdf_detail
