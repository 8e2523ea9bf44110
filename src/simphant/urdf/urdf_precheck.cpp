// precheck_urdf (urdf_detail.hpp): the checks that must run before urdfdom sees a
// document. urdfdom links every parent to its child links with owning pointers, so a
// cycle of joints becomes a reference cycle that is never freed when urdfdom (or the
// importer) rejects it; TinyXML parses nested elements recursively; and the importer's
// cost grows with the number of links. All of that is bounded here, on a TinyXML parse
// of the text, with loops only.
#include <cctype>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <tinyxml.h>

#include "simphant/urdf/urdf_detail.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant::urdf_detail {

namespace {

/// Index of the first occurrence of `what` at or after `i`, or text.size().
std::size_t find_from(const std::string& text, const char* what, std::size_t i) {
  const std::size_t k = text.find(what, i);
  return k == std::string::npos ? text.size() : k;
}

/// Deepest element nesting of the XML text, by a lexical scan (comments, CDATA,
/// processing instructions and declarations skipped, quoted attribute values honoured).
/// Exact for well-formed XML; for malformed text it is an estimate, and TinyXML reports
/// the error. Stops counting once `limit` is passed.
int nesting_depth(const std::string& text, int limit) {
  int depth = 0, deepest = 0;
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n && deepest <= limit) {
    i = find_from(text, "<", i);
    if (i >= n) break;
    if (text.compare(i, 4, "<!--") == 0) {
      i = find_from(text, "-->", i + 4) + 3;
    } else if (text.compare(i, 9, "<![CDATA[") == 0) {
      i = find_from(text, "]]>", i + 9) + 3;
    } else if (text.compare(i, 2, "<?") == 0) {
      i = find_from(text, "?>", i + 2) + 2;
    } else if (text.compare(i, 2, "<!") == 0) {
      i = find_from(text, ">", i + 2) + 1;
    } else if (text.compare(i, 2, "</") == 0) {
      --depth;
      i = find_from(text, ">", i + 2) + 1;
    } else {  // a start tag: find its end outside quoted values
      char quote = 0;
      std::size_t k = i + 1;
      for (; k < n; ++k) {
        const char c = text[k];
        if (quote != 0) {
          if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '>') {
          break;
        }
      }
      if (k >= n || text[k - 1] != '/') {
        ++depth;
        if (depth > deepest) deepest = depth;
      }
      i = k + 1;
    }
  }
  return deepest;
}

/// Offset of the first character reference to NUL (&#0;, &#x00;, ...), or npos. XML
/// forbids it; TinyXML would cut the name or value short at it.
std::size_t nul_reference(const std::string& text) {
  for (std::size_t i = text.find("&#"); i != std::string::npos; i = text.find("&#", i + 2)) {
    std::size_t k = i + 2;
    const bool hex = k < text.size() && (text[k] == 'x' || text[k] == 'X');
    if (hex) ++k;
    const std::size_t digits_start = k;
    bool zero = true;
    while (k < text.size() && (hex ? std::isxdigit(static_cast<unsigned char>(text[k])) != 0
                                   : std::isdigit(static_cast<unsigned char>(text[k])) != 0)) {
      zero = zero && text[k] == '0';
      ++k;
    }
    if (k > digits_start && zero && k < text.size() && text[k] == ';') return i;
  }
  return std::string::npos;
}

/// The `link` attribute of the child element `tag` of a <joint>, or null.
const char* joint_link(const TiXmlElement& joint, const char* tag) {
  const TiXmlElement* e = joint.FirstChildElement(tag);
  return e == nullptr ? nullptr : e->Attribute("link");
}

}  // namespace

void precheck_urdf(const std::string& xml_text, const std::string& prefix) {
  const std::size_t nul = xml_text.find('\0');
  if (nul != std::string::npos)
    throw UrdfError(prefix + ": a NUL byte at byte " + std::to_string(nul + 1) + " (XML text has none)");
  const std::size_t ref = nul_reference(xml_text);
  if (ref != std::string::npos)
    throw UrdfError(prefix + ": a character reference to NUL at byte " + std::to_string(ref + 1) +
                    " (XML allows none; it would cut a name short)");
  if (nesting_depth(xml_text, kMaxXmlDepth) > kMaxXmlDepth)
    throw UrdfError(prefix + ": XML elements nested more than " + std::to_string(kMaxXmlDepth) +
                    " deep (a URDF nests about 5)");

  TiXmlDocument doc;
  doc.Parse(xml_text.c_str());
  if (doc.Error()) return;  // urdfdom reports malformed XML
  const TiXmlElement* robot = doc.FirstChildElement("robot");
  if (robot == nullptr) return;  // likewise a document without <robot>

  // Names, counted before anything walks the tree. Duplicate names: urdfdom reports them
  // before it links anything.
  std::set<std::string> links;
  std::size_t n_links = 0, n_joints = 0;
  for (const TiXmlElement* l = robot->FirstChildElement("link"); l != nullptr; l = l->NextSiblingElement("link")) {
    ++n_links;
    const char* name = l->Attribute("name");
    if (name != nullptr && !links.insert(name).second) return;
  }
  for (const TiXmlElement* j = robot->FirstChildElement("joint"); j != nullptr; j = j->NextSiblingElement("joint"))
    ++n_joints;
  if (n_links > static_cast<std::size_t>(kMaxUrdfLinks))
    throw UrdfError(prefix + ": " + std::to_string(n_links) + " links; at most " + std::to_string(kMaxUrdfLinks) +
                    " are supported");
  if (n_joints > static_cast<std::size_t>(kMaxUrdfJoints))
    throw UrdfError(prefix + ": " + std::to_string(n_joints) + " joints (fixed ones included); at most " +
                    std::to_string(kMaxUrdfJoints) + " are supported");

  // child link -> (joint, parent link), in document order.
  std::map<std::string, std::pair<std::string, std::string>> up;
  std::set<std::string> joint_names;
  for (const TiXmlElement* j = robot->FirstChildElement("joint"); j != nullptr; j = j->NextSiblingElement("joint")) {
    const char* name = j->Attribute("name");
    const char* parent = joint_link(*j, "parent");
    const char* child = joint_link(*j, "child");
    if (name == nullptr || !joint_names.insert(name).second) return;  // urdfdom reports it
    if (parent == nullptr || child == nullptr || links.count(parent) == 0 || links.count(child) == 0) continue;
    const auto ins = up.emplace(child, std::make_pair(std::string(name), std::string(parent)));
    if (!ins.second) {
      throw UrdfError(prefix + ": joint '" + name + "': link '" + child + "' already has parent joint '" +
                      ins.first->second.first + "': a kinematic loop (URDF describes trees only)");
    }
  }

  // With one parent per link, a cycle is found by following parents: mark the links of
  // the current path (1) and those known to reach a root (2).
  std::map<std::string, int> state;
  for (const auto& start : up) {
    std::vector<std::string> path;
    std::string link = start.first;
    while (state[link] == 0) {
      state[link] = 1;
      path.push_back(link);
      const auto it = up.find(link);
      if (it == up.end()) break;  // a root
      link = it->second.second;
    }
    if (state[link] == 1 && up.count(link) != 0) {  // back on the current path: a cycle
      std::string chain = link, closing;
      for (std::string l = link;;) {  // parent -> child order, from `link` round to it
        const auto& jp = up.at(l);
        closing = jp.first;
        chain = jp.second + " -> " + chain;
        l = jp.second;
        if (l == link) break;
      }
      throw UrdfError(prefix + ": joint '" + closing + "': a kinematic loop through links " + chain +
                      " (URDF describes trees only)");
    }
    for (const std::string& l : path) state[l] = 2;
  }
}

}  // namespace simphant::urdf_detail
