// `simphant serve ...` and `simphant view ...`: the simulation service (docs/service.md)
// and the local replay of one results file, both in the Python package
// (simphant.serve.__main__, simphant.serve.view), run through python_module_launcher.
// Their arguments pass through unchanged: the modules parse them (--help included).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "python_module_launcher.hpp"

namespace simphant::cli {
namespace {

CLI::App* add_passthrough(CLI::App& app, const char* name, const char* description) {
  CLI::App* s = app.add_subcommand(name, description);
  s->set_help_flag();  // --help goes to the module
  s->allow_extras();
  s->prefix_command();
  s->fallthrough(false);  // every argument, --log-level and --help included, is the module's
  return s;
}

}  // namespace

CLI::App* add_serve_subcommand(CLI::App& app) {
  return add_passthrough(app, "serve",
                         "The simulation service: a job API and web pages over a persistent queue of runs "
                         "([--config F] [--host H] [--port P] [--data DIR]; docs/service.md)");
}

CLI::App* add_view_subcommand(CLI::App& app) {
  return add_passthrough(app, "view", "The 3D replay of a run's recorded frames in the browser "
                                      "(RESULTS.h5 [--port P] [--no-browser]; docs/service.md)");
}

int serve_command(const CLI::App& sub) {
  return run_python_module("serve", "simphant.serve.__main__", sub.remaining());
}

int view_command(const CLI::App& sub) { return run_python_module("view", "simphant.serve.view", sub.remaining()); }

}  // namespace simphant::cli
