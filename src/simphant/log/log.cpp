#include "simphant/log/log.hpp"

#include <cstdlib>
#include <memory>
#include <stdexcept>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace simphant {

namespace {

/// The level of a name, or false when it names none.
bool parse_level(const std::string& name, spdlog::level::level_enum& level) {
  static const struct {
    const char* name;
    spdlog::level::level_enum level;
  } kLevels[] = {{"trace", spdlog::level::trace}, {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
                 {"warn", spdlog::level::warn},   {"warning", spdlog::level::warn}, {"error", spdlog::level::err},
                 {"critical", spdlog::level::critical}, {"off", spdlog::level::off}};
  for (const auto& l : kLevels)
    if (name == l.name) {
      level = l.level;
      return true;
    }
  return false;
}

std::shared_ptr<spdlog::logger> make_logger() {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto log = std::make_shared<spdlog::logger>("simphant", std::move(sink));
  log->set_pattern("%l: %v");
  log->set_level(spdlog::level::info);
  log->flush_on(spdlog::level::trace);  // stderr lines appear as they are written
  spdlog::level::level_enum level = spdlog::level::info;
  const char* env = std::getenv("SIMPHANT_LOG_LEVEL");
  if (env != nullptr && *env != '\0') {
    if (parse_level(env, level)) {
      log->set_level(level);
    } else {
      log->warn("SIMPHANT_LOG_LEVEL: unknown level '{}' (expected {}); using info", env, log_level_names());
    }
  }
  if (spdlog::get("simphant") == nullptr) spdlog::register_logger(log);
  return log;
}

}  // namespace

spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> log = make_logger();
  return *log;
}

void set_log_level(const std::string& name) {
  spdlog::level::level_enum level = spdlog::level::info;
  if (!parse_level(name, level))
    throw std::invalid_argument("unknown log level '" + name + "' (expected " + log_level_names() + ")");
  logger().set_level(level);
}

std::string log_level() {
  const spdlog::level::level_enum level = logger().level();
  if (level == spdlog::level::warn) return "warn";
  const spdlog::string_view_t name = spdlog::level::to_string_view(level);
  return std::string(name.data(), name.size());
}

const char* log_level_names() { return "trace, debug, info, warn, error, off"; }

}  // namespace simphant
