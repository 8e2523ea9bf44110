#pragma once
// Test helper: small URDF documents written inline (tests/test_urdf*.cpp), and the check
// that parse_urdf refuses one with a message naming the element. Header-only.
#include <initializer_list>
#include <string>

#include <gtest/gtest.h>

#include "simphant/urdf/urdf_import.hpp"

namespace simphant::test {

/// A unit mass with unit principal moments at the link origin.
inline const std::string kInertial =
    "<inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>";

inline std::string robot(const std::string& body) { return "<robot name=\"r\">" + body + "</robot>"; }
inline std::string link(const std::string& name, const std::string& inertial_xml = kInertial) {
  return "<link name=\"" + name + "\">" + inertial_xml + "</link>";
}
inline std::string joint(const std::string& name, const std::string& type, const std::string& parent,
                         const std::string& child, const std::string& extra = "") {
  return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"" + parent + "\"/><child link=\"" +
         child + "\"/>" + extra + "</joint>";
}
inline std::string mass_inertia(const std::string& m, const std::string& xx, const std::string& yy,
                                const std::string& zz, const std::string& xy = "0") {
  return "<inertial><mass value=\"" + m + "\"/><inertia ixx=\"" + xx + "\" iyy=\"" + yy + "\" izz=\"" + zz +
         "\" ixy=\"" + xy + "\" ixz=\"0\" iyz=\"0\"/></inertial>";
}

/// parse_urdf(xml) must throw UrdfError whose message starts with "URDF bad.urdf: " and
/// contains every one of `parts`.
inline void expect_urdf_error(const std::string& xml, std::initializer_list<const char*> parts) {
  try {
    parse_urdf(xml, "bad.urdf");
    ADD_FAILURE() << "no UrdfError for\n" << xml;
  } catch (const UrdfError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("URDF bad.urdf: ", 0), 0u) << msg;
    for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

}  // namespace simphant::test
