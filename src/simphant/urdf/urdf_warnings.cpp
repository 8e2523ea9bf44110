// unused_urdf_elements (urdf_detail.hpp): what a URDF carries that no SimPhant solver uses,
// found on a TinyXML parse of the document (urdfdom drops unknown attributes silently, so
// its model cannot tell). Every line says what, where, and why it is not used; equal
// findings on several joints or links are merged into one line. docs/robots.md,
// "URDF: what is read", lists the same rules.
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <tinyxml.h>

#include "simphant/urdf/urdf_detail.hpp"

namespace simphant::urdf_detail {

namespace {

/// Findings in first-seen order: (what, owner kind, reason) -> owner names.
class Findings {
 public:
  void add(const std::string& what, const char* kind, const std::string& name, const std::string& reason) {
    const std::string key = what + '\n' + kind + '\n' + reason;
    auto it = index_.find(key);
    if (it == index_.end()) {
      it = index_.emplace(key, items_.size()).first;
      items_.push_back({what, kind, reason, {}});
    }
    items_[it->second].names.push_back(name);
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const Item& i : items_) {
      std::string names;
      for (const std::string& n : i.names) names += (names.empty() ? "'" : ", '") + n + "'";
      out.push_back(i.what + " of " + i.kind + (i.names.size() > 1 ? "s " : " ") + names + ": not used (" + i.reason +
                    ")");
    }
    return out;
  }

 private:
  struct Item {
    std::string what, kind, reason;
    std::vector<std::string> names;
  };
  std::vector<Item> items_;
  std::map<std::string, std::size_t> index_;
};

std::string attr(const TiXmlElement& e, const char* name) {
  const char* v = e.Attribute(name);
  return v == nullptr ? std::string() : std::string(v);
}

/// The attributes of `e` outside `known`, as "<tag> attribute(s) a, b", or "".
std::string unknown_attributes(const TiXmlElement& e, const std::set<std::string>& known) {
  std::string list;
  int count = 0;
  for (const TiXmlAttribute* a = e.FirstAttribute(); a != nullptr; a = a->Next()) {
    if (known.count(a->Name()) != 0) continue;
    list += (list.empty() ? "" : ", ") + std::string(a->Name());
    ++count;
  }
  if (count == 0) return "";
  return "<" + std::string(e.Value()) + "> attribute" + (count > 1 ? "s " : " ") + list;
}

/// Known attributes of the elements the import reads (URDF spec, wiki.ros.org/urdf/XML).
const std::map<std::string, std::set<std::string>>& joint_child_attributes() {
  static const std::map<std::string, std::set<std::string>> m = {
      {"origin", {"xyz", "rpy"}},          {"parent", {"link"}},
      {"child", {"link"}},                 {"axis", {"xyz"}},
      {"limit", {"lower", "upper", "effort", "velocity"}},
      {"dynamics", {"damping", "friction"}}, {"mimic", {"joint", "multiplier", "offset"}}};
  return m;
}

void scan_link(const TiXmlElement& link, Findings& f, int& geometry) {
  const std::string name = attr(link, "name");
  for (const TiXmlElement* c = link.FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
    const std::string tag = c->Value();
    if (tag == "visual" || tag == "collision") {
      ++geometry;
    } else if (tag == "inertial") {
      static const std::map<std::string, std::set<std::string>> known = {
          {"origin", {"xyz", "rpy"}},
          {"mass", {"value"}},
          {"inertia", {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}}};
      for (const TiXmlElement* g = c->FirstChildElement(); g != nullptr; g = g->NextSiblingElement()) {
        const auto it = known.find(g->Value());
        if (it == known.end()) {
          f.add("<inertial><" + std::string(g->Value()) + ">", "link", name, "not part of URDF's <inertial>");
        } else {
          const std::string u = unknown_attributes(*g, it->second);
          if (!u.empty()) f.add("<inertial>" + u, "link", name, "not part of URDF's <inertial>");
        }
      }
    } else {
      f.add("<" + tag + ">", "link", name, "SimPhant reads <inertial> of a link");
    }
  }
}

void scan_joint(const TiXmlElement& joint, Findings& f) {
  const std::string name = attr(joint, "name");
  const std::string type = attr(joint, "type");
  const bool moving = type == "revolute" || type == "continuous" || type == "prismatic";
  const std::string no_coordinate = "a " + type + " joint has no coordinate";
  for (const TiXmlElement* c = joint.FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
    const std::string tag = c->Value();
    if (tag == "safety_controller") {
      f.add("<safety_controller>", "joint", name, "SimPhant enforces the <limit> values only");
      continue;
    }
    if (tag == "calibration") {
      f.add("<calibration>", "joint", name, "joint coordinates are taken as given");
      continue;
    }
    const auto known = joint_child_attributes().find(tag);
    if (known == joint_child_attributes().end()) {
      f.add("<" + tag + ">", "joint", name, "not an element SimPhant reads");
      continue;
    }
    const bool per_coordinate = tag == "axis" || tag == "limit" || tag == "dynamics" || tag == "mimic";
    if (per_coordinate && !moving) {
      f.add("<" + tag + ">", "joint", name, no_coordinate);
      continue;
    }
    const std::string u = unknown_attributes(*c, known->second);
    if (!u.empty()) f.add(u, "joint", name, "SimPhant reads " + tag + " attributes of the URDF spec only");
    const bool position_limits = c->Attribute("lower") != nullptr || c->Attribute("upper") != nullptr;
    if (tag == "limit" && type == "continuous" && position_limits)
      f.add("<limit> lower/upper", "joint", name, "a continuous joint has no position limits");
  }
}

}  // namespace

std::vector<std::string> unused_urdf_elements(const std::string& padded) {
  TiXmlDocument doc;
  doc.Parse(padded.c_str());
  const TiXmlElement* robot = doc.FirstChildElement("robot");
  if (doc.Error() || robot == nullptr) return {};  // urdfdom accepted it: not reached
  Findings f;
  int geometry = 0, materials = 0;
  for (const TiXmlElement* e = robot->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
    const std::string tag = e->Value();
    if (tag == "link") {
      scan_link(*e, f, geometry);
    } else if (tag == "joint") {
      scan_joint(*e, f);
    } else if (tag == "material") {
      ++materials;
    } else if (tag == "transmission") {
      f.add("<transmission>", "transmission", attr(*e, "name"),
            "actuators come from the scene: robot.tau and robot.servos");
    } else if (tag == "gazebo") {
      const std::string ref = attr(*e, "reference");
      f.add("<gazebo>", "reference", ref.empty() ? std::string("(robot)") : ref, "Gazebo simulator settings");
    } else {
      f.add("<" + tag + ">", "element", attr(*e, "name"), "not an element of URDF's <robot> that SimPhant reads");
    }
  }
  std::vector<std::string> out = f.lines();
  if (geometry + materials > 0) {
    out.push_back(std::to_string(geometry) + " <visual>/<collision> and " + std::to_string(materials) +
                  " top-level <material> elements: not used (SimPhant renders nothing; a <collision> sphere, box "
                  "or cylinder becomes a contact shape only with the scene's robot.urdf_collision, or give shapes "
                  "in robot.collision)");
  }
  return out;
}

}  // namespace simphant::urdf_detail
