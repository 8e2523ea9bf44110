#pragma once
// Runs a module of the Python package `simphant` (its main(argv) -> int) with the
// interpreter SimPhant was built for: `simphant report`, `simphant serve`, `simphant view`.
#include <string>
#include <vector>

namespace simphant::cli {

/// Runs `module`'s main(args) in a child Python process and returns its exit code, as
/// README "Exit codes" has them: the module's 0 / 2 / 3, 3 when the interpreter, the
/// package or a module it imports is missing (one line naming it, no traceback), 3 for
/// another exit code, 128 + signal when the child was stopped by a signal.
///
/// command: the subcommand's name for messages ("report"); module: the dotted module
/// ("simphant.report.__main__"). The interpreter is $SIMPHANT_PYTHON, else the one the
/// package was built for (SIMPHANT_PYTHON_EXECUTABLE, when it exists), else python3 from
/// PATH. When the executable runs from a build tree with the package built beside it
/// (build/python/simphant), that folder leads PYTHONPATH. The child gets
/// SIMPHANT_EXECUTABLE = this executable (so that the service runs jobs with the same
/// simphant) and MPLBACKEND=Agg. SIGINT, SIGTERM and SIGHUP received while the child runs
/// are passed on to it, and its exit is awaited.
int run_python_module(const char* command, const char* module, const std::vector<std::string>& args);

}  // namespace simphant::cli
