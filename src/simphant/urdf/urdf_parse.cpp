// load_urdf / parse_urdf (urdf_import.hpp): bounds the document (urdf_precheck.cpp),
// runs urdfdom's parser, turns its console messages into UrdfError, then builds the
// ReducedModel (urdf_tree.cpp).
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <console_bridge/console.h>
#include <tinyxml.h>
#include <urdf_parser/urdf_parser.h>

#include "simphant/core/input_file.hpp"
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

/// Unlinks every link of a urdfdom model from its children when it goes out of scope:
/// urdfdom's links own their child links, so without this a long chain is freed by a
/// recursion as deep as the chain.
class UnlinkOnExit {
 public:
  explicit UnlinkOnExit(const urdf::ModelInterfaceSharedPtr& model) : model_(model) {}
  ~UnlinkOnExit() {
    if (!model_) return;
    for (auto& kv : model_->links_) {
      if (!kv.second) continue;
      kv.second->child_links.clear();
      kv.second->child_joints.clear();
    }
  }
  UnlinkOnExit(const UnlinkOnExit&) = delete;
  UnlinkOnExit& operator=(const UnlinkOnExit&) = delete;

 private:
  const urdf::ModelInterfaceSharedPtr& model_;
};

}  // namespace

ReducedModel parse_urdf(const std::string& xml_text, const std::string& source_name) {
  const std::string prefix = "URDF " + source_name;
  const std::string padded = urdf_detail::tinyxml_text(xml_text);
  urdf_detail::precheck_urdf(xml_text, padded, prefix);  // before urdfdom links anything
  urdf::ModelInterfaceSharedPtr model;
  const UnlinkOnExit unlink(model);
  ErrorCapture capture;
  {
    std::lock_guard<std::mutex> lock(parse_mutex());
    CaptureScope scope(capture);
    try {
      model = urdf::parseURDF(padded);
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
    TiXmlDocument doc;  // malformed XML: say where
    if (!doc.Parse(padded.c_str()) && doc.Error()) {
      msg += " (XML line " + std::to_string(doc.ErrorRow()) + ", column " + std::to_string(doc.ErrorCol()) + ")";
    }
    throw UrdfError(prefix + ": " + msg);
  }
  ReducedModel rm = urdf_detail::build_reduced_model(*model, prefix);
  rm.gravity = {0, 0, -9.81};
  for (std::string& w : urdf_detail::unused_urdf_elements(padded)) rm.warnings.push_back(std::move(w));
  return rm;
}

ReducedModel load_urdf(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const InputFileError& e) {
    throw UrdfError("URDF " + path + ": " + e.what());
  }
  return parse_urdf(text, path);
}

}  // namespace simphant
