#pragma once
// Suggestions for a misspelt subcommand or long option of the command line: after CLI11
// refuses the arguments, `simphant rnu` and `simphant run s.json --instnaces 4` are told
// the nearest name ("did you mean 'run'?", "did you mean '--instances'?";
// core/nearest_name.hpp, which the Python commands use too).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "simphant/core/nearest_name.hpp"

namespace simphant::cli {

/// One line per argument of argv (argc entries, argv[0] the program) that names no
/// subcommand of `app` where one is expected (the first argument that is not an option)
/// or no long option of the app or the subcommand it follows, and is near one:
/// "'rnu' is not a subcommand; did you mean 'run'?", "'--instnaces' is not an option of
/// 'run'; did you mean '--instances'?". Subcommands whose arguments pass through to
/// another program (app.allow_extras on them) are not looked into.
std::vector<std::string> typo_hints(const CLI::App& app, int argc, const char* const* argv);

}  // namespace simphant::cli
