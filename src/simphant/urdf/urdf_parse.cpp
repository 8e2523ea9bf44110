// load_urdf / parse_urdf (urdf_import.hpp): runs urdfdom's parser, turns its console
// messages into UrdfError, then builds the ReducedModel (urdf_tree.cpp).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <console_bridge/console.h>
#include <tinyxml.h>
#include <urdf_parser/urdf_parser.h>

#include "simphant/urdf/urdf_detail.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {

namespace {

/// Collects urdfdom's error messages (console_bridge) instead of printing them.
class ErrorCapture : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) errors.push_back(text);
  }
  std::vector<std::string> errors;
};

/// Installs an ErrorCapture for its lifetime; restores handler and log level after.
class CaptureScope {
 public:
  explicit CaptureScope(ErrorCapture& capture) : level_(console_bridge::getLogLevel()) {
    console_bridge::useOutputHandler(&capture);
    console_bridge::setLogLevel(console_bridge::CONSOLE_BRIDGE_LOG_ERROR);
  }
  ~CaptureScope() {
    console_bridge::restorePreviousOutputHandler();
    console_bridge::setLogLevel(level_);
  }
  CaptureScope(const CaptureScope&) = delete;
  CaptureScope& operator=(const CaptureScope&) = delete;

 private:
  console_bridge::LogLevel level_;
};

std::mutex& parse_mutex() {
  static std::mutex m;
  return m;
}

/// urdfdom rejects a URDF whose links all have parents ("No root link found") without
/// naming one: find a cycle of <joint> parent -> child links with TinyXML and name it.
std::string describe_cycle(const std::string& xml_text) {
  TiXmlDocument doc;
  doc.Parse(xml_text.c_str());
  const TiXmlElement* robot = doc.FirstChildElement("robot");
  if (robot == nullptr) return "";
  std::map<std::string, std::pair<std::string, std::string>> up;  // child -> (joint, parent)
  for (const TiXmlElement* j = robot->FirstChildElement("joint"); j != nullptr; j = j->NextSiblingElement("joint")) {
    const TiXmlElement* p = j->FirstChildElement("parent");
    const TiXmlElement* c = j->FirstChildElement("child");
    const char* name = j->Attribute("name");
    if (p == nullptr || c == nullptr || name == nullptr || p->Attribute("link") == nullptr ||
        c->Attribute("link") == nullptr) {
      continue;
    }
    up.emplace(c->Attribute("link"), std::make_pair(std::string(name), std::string(p->Attribute("link"))));
  }
  for (const auto& kv : up) {
    std::set<std::string> seen;
    std::string link = kv.first;
    while (seen.insert(link).second) {
      const auto it = up.find(link);
      if (it == up.end()) break;
      link = it->second.second;
    }
    if (up.count(link) == 0) continue;  // reached a link without parent
    std::string path = link, joint;
    for (std::string l = link;;) {  // walk the cycle once from `link`
      const auto& jp = up.at(l);
      joint = jp.first;
      path += " <- " + jp.second;
      l = jp.second;
      if (l == link) break;
    }
    return "joint '" + joint + "': a kinematic loop through links " + path + " (child <- parent)";
  }
  return "";
}

}  // namespace

ReducedModel parse_urdf(const std::string& xml_text, const std::string& source_name) {
  const std::string prefix = "URDF " + source_name;
  urdf::ModelInterfaceSharedPtr model;
  ErrorCapture capture;
  {
    std::lock_guard<std::mutex> lock(parse_mutex());
    CaptureScope scope(capture);
    try {
      model = urdf::parseURDF(xml_text);
    } catch (const std::exception& e) {
      throw UrdfError(prefix + ": " + e.what());
    }
  }
  // urdfdom returns a model for some documents it logged errors about (an <inertial>
  // without <inertia>): every logged error rejects the document.
  if (!model || !capture.errors.empty()) {
    std::string msg;
    for (const std::string& e : capture.errors) msg += (msg.empty() ? "" : "; ") + e;
    if (msg.empty()) msg = "urdfdom rejected the document";
    if (msg.find("No root link found") != std::string::npos) {
      const std::string cycle = describe_cycle(xml_text);
      if (!cycle.empty()) msg = cycle + " (urdfdom: " + msg + ")";
    }
    TiXmlDocument doc;  // malformed XML: say where
    if (!doc.Parse(xml_text.c_str()) && doc.Error()) {
      msg += " (XML line " + std::to_string(doc.ErrorRow()) + ", column " + std::to_string(doc.ErrorCol()) + ")";
    }
    throw UrdfError(prefix + ": " + msg);
  }
  ReducedModel rm = urdf_detail::build_reduced_model(*model, prefix);
  rm.gravity = {0, 0, -9.81};
  return rm;
}

ReducedModel load_urdf(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw UrdfError("URDF " + path + ": " +
                    (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) throw UrdfError("URDF " + path + ": cannot open the file for reading");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UrdfError("URDF " + path + ": read error");
  return parse_urdf(text, path);
}

}  // namespace simphant
