// urdfdom model -> ReducedModel: joint checks, loop detection, fixed-joint merging and
// the mass rules of urdf_import.hpp.
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

class Builder {
 public:
  Builder(const urdf::ModelInterface& m, const std::string& prefix) : m_(m), prefix_(prefix) {}

  ReducedModel build() {
    check_joints();
    const urdf::LinkConstSharedPtr root = m_.getRoot();
    if (!root) throw UrdfError(prefix_ + ": no root link");
    out_.name = m_.getName();
    out_.base_link = root->name;
    walk(*root);
    if (visited_.size() != m_.links_.size()) report_loop();
    for (std::size_t k = 0; k < out_.links.size(); ++k) {
      ReducedLink& l = out_.links[k];
      l.mass = acc_[k].mass;
      l.com = acc_[k].com;
      l.inertia_com = acc_[k].inertia;
      check_inertia(l.inertia_com, prefix_ + ": link '" + l.name + "' (with its fixed children merged)");
    }
    return out_;
  }

 private:
  /// Joint types and axes; every link has at most one parent joint.
  void check_joints() {
    for (const auto& kv : m_.joints_) {
      const urdf::Joint& j = *kv.second;
      const std::string where = prefix_ + ": joint '" + j.name + "'";
      const int t = j.type;
      if (t != urdf::Joint::REVOLUTE && t != urdf::Joint::CONTINUOUS && t != urdf::Joint::PRISMATIC &&
          t != urdf::Joint::FIXED) {
        throw UrdfError(where + ": unsupported type '" + type_name(t) +
                        "' (SimPhant imports revolute, continuous, prismatic and fixed joints)");
      }
      Vec3d unit;
      if (t != urdf::Joint::FIXED && !unit_axis(vec(j.axis), unit)) {
        throw UrdfError(where + ": axis: zero-length or non-finite axis (xyz " + fmt(j.axis.x) + " " + fmt(j.axis.y) + " " +
                        fmt(j.axis.z) + ")");
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

  /// Adds `link`'s <inertial> to output link `body` (link pose in the body frame:
  /// R_bl, p_bl). `moving_joint`: the moving joint whose child `link` is, else null.
  void add_inertial(const urdf::Link& link, int body, const Mat3d& R_bl, const Vec3d& p_bl,
                    const urdf::Joint* moving_joint) {
    std::string where = prefix_ + ": link '" + link.name + "'";
    if (moving_joint == nullptr) where += " (merged by fixed joints into link '" + out_.links[body].name + "')";
    const urdf::InertialSharedPtr& in = link.inertial;
    if (!in) {
      if (moving_joint == nullptr) return;  // a massless frame
      throw UrdfError(where + ": no <inertial> (the child link of moving joint '" + moving_joint->name +
                      "' needs mass and inertia)");
    }
    where += ": inertial";
    const Mat3d J = {{{in->ixx, in->ixy, in->ixz}, {in->ixy, in->iyy, in->iyz}, {in->ixz, in->iyz, in->izz}}};
    if (moving_joint == nullptr && in->mass == 0.0) {
      if (!is_zero(J)) throw UrdfError(where + ": mass is 0 but the inertia is not zero");
      return;  // a massless frame
    }
    if (!(in->mass > 0)) throw UrdfError(where + ": mass must be > 0 (got " + fmt(in->mass) + " kg)");
    check_inertia(J, where);
    const Mat3d R_i = rot(in->origin.rotation);
    const MassProps in_link{in->mass, vec(in->origin.position), rotate_inertia(R_i, J)};
    const MassProps in_body = transform_mass(in_link, R_bl, p_bl);
    MassProps& a = acc_[static_cast<std::size_t>(body)];
    a = a.mass > 0 ? combine_mass(a, in_body) : in_body;
  }

  /// A link waiting on the walk's stack, with the joint that leads to it.
  struct Pending {
    const urdf::Link* link;
    const urdf::Joint* joint;  ///< the joint whose child `link` is; null for the root
    int body;                  ///< output link of the joint's parent (-1: the base)
    Mat3d R_bj;                ///< joint frame in that body's frame (R_bl for the root)
    Vec3d p_bj;
  };

  /// Depth-first walk from the root with an explicit stack (no recursion, so a deep chain
  /// costs no call stack). Output links are numbered in pre-order, children in the order
  /// urdfdom lists them, so parent index < own index. A link joined by a fixed joint joins
  /// its parent's output link at the composed pose; a moving joint starts a new output link.
  void walk(const urdf::Link& root) {
    std::vector<Pending> stack{{&root, nullptr, -1, identity3<double>(), zero3<double>()}};
    while (!stack.empty()) {
      const Pending e = stack.back();
      stack.pop_back();
      const urdf::Joint* j = e.joint;
      int body = e.body;
      Mat3d R_bl = e.R_bj;
      Vec3d p_bl = e.p_bj;
      const urdf::Joint* moving = nullptr;
      if (j != nullptr && j->type != urdf::Joint::FIXED) {
        moving = j;
        out_.links.push_back(moving_link(*e.link, *j, body, e.R_bj, e.p_bj));
        acc_.emplace_back();
        body = static_cast<int>(out_.links.size()) - 1;
        R_bl = identity3<double>();
        p_bl = zero3<double>();
      }
      visited_.insert(e.link->name);
      if (body >= 0) add_inertial(*e.link, body, R_bl, p_bl, moving);
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

  /// The output link of moving joint `j` (child `link`) below output link `parent` at
  /// joint pose (R_bj, p_bj) in the parent's frame.
  static ReducedLink moving_link(const urdf::Link& link, const urdf::Joint& j, int parent, const Mat3d& R_bj,
                                 const Vec3d& p_bj) {
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
      if (!l.continuous) {
        l.lower = j.limits->lower;
        l.upper = j.limits->upper;
      }
      l.effort = j.limits->effort;
      l.velocity = j.limits->velocity;
    }
    return l;
  }

  const urdf::ModelInterface& m_;
  std::string prefix_;
  ReducedModel out_;
  std::vector<MassProps> acc_;                          ///< (links) accumulated mass properties
  std::map<std::string, const urdf::Joint*> parent_joint_;  ///< child link name -> its joint
  std::set<std::string> visited_;                       ///< URDF links reached from the root
};

}  // namespace

ReducedModel build_reduced_model(const urdf::ModelInterface& model, const std::string& prefix) {
  return Builder(model, prefix).build();
}

}  // namespace simphant::urdf_detail
