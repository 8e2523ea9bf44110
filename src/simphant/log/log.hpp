#pragma once
// The library's logger: one spdlog logger named "simphant" that writes
// "<level>: <message>" lines to stderr (e.g. "warning: tikhonov_epsilon = ...",
// "info: step 1500/3000 (50%), t = 1.5 s, ETA 12 s").
//
// Levels, quietest last: trace, debug, info (the default), warn, error, off. The
// environment variable SIMPHANT_LOG_LEVEL sets the initial level (read when the logger
// is first used); set_log_level() (the CLI's --log-level) changes it later. Errors that
// end a command are not logged: they are exceptions, which the caller reports.
#include <string>

#include <spdlog/logger.h>

namespace simphant {

/// The "simphant" logger (created on first use, also registered with spdlog under that
/// name). Thread-safe.
spdlog::logger& logger();

/// Sets the level by name: "trace", "debug", "info", "warn" (or "warning"), "error",
/// "critical" or "off". Throws std::invalid_argument naming the allowed levels.
void set_log_level(const std::string& level);

/// The current level's name ("trace", ..., "off"; "warn" for the warning level).
std::string log_level();

/// The level names set_log_level() accepts, for help texts: "trace, debug, info, warn, error, off".
const char* log_level_names();

}  // namespace simphant
