// `simphant report RESULTS.h5 [-o OUTDIR] [--quantity Q ...]`: runs the Python package's
// report (python/simphant/report, docs/report.md) with the interpreter SimPhant was built
// for, the package found beside the executable in a build tree or in the interpreter's
// site-packages (pip install). Exit codes of README "Exit codes": the module's 0 / 2 / 3,
// 3 when the interpreter or a module it needs is missing, 128 + signal when stopped.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "commands.hpp"

extern char** environ;

namespace simphant::cli {
namespace {

namespace fs = std::filesystem;

// Imports the module first so that a missing package or module is exit 3 with one line
// (python -m would print a traceback and exit 1), then runs its main with the arguments.
constexpr const char* kLauncher =
    "import sys\n"
    "try:\n"
    "    import simphant.report.__main__ as m\n"
    "except ImportError as e:\n"
    "    sys.stderr.write('error: report: %s cannot import simphant.report (%s); build with "
    "-DSIMPHANT_PYTHON=ON or pip install the package, or set SIMPHANT_PYTHON to the interpreter that has "
    "it\\n' % (sys.executable, e))\n"
    "    sys.exit(3)\n"
    "sys.exit(m.main(sys.argv[1:]))\n";

/// The interpreter: $SIMPHANT_PYTHON, else the one the package was built for (when it
/// still exists), else python3 from PATH.
std::string interpreter() {
  if (const char* env = std::getenv("SIMPHANT_PYTHON"); env && *env) return env;
#ifdef SIMPHANT_PYTHON_EXECUTABLE
  std::error_code ec;
  if (fs::exists(SIMPHANT_PYTHON_EXECUTABLE, ec)) return SIMPHANT_PYTHON_EXECUTABLE;
#endif
  return "python3";
}

/// build/python beside build/simphant when the executable runs from a build tree with the
/// Python package built (SIMPHANT_PYTHON=ON); "" otherwise.
std::string package_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const fs::path dir = exe.parent_path() / "python";
  return fs::exists(dir / "simphant" / "report" / "__main__.py", ec) ? dir.string() : "";
}

}  // namespace

CLI::App* add_report_subcommand(CLI::App& app, ReportCliOptions& o) {
  CLI::App* r = app.add_subcommand(
      "report", "HTML report of a run's HDF5 file: distributions, peak loads against the swept parameters "
                "(Spearman, SRC, Sobol), time traces, run health (docs/report.md)");
  r->add_option("results", o.results, "The run's HDF5 file")->required();
  r->add_option("--out,-o", o.out, "Output folder (default: <results stem>_report in the current directory)")
      ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("must not be empty") : std::string(); },
                             "DIR"));
  r->add_option("--quantity", o.quantities,
                "Quantities to report (default all): reactions joint_loads bearing_loads driver_loads "
                "constraint_violation energy joint_coordinates")
      ->check(CLI::IsMember({"reactions", "joint_loads", "bearing_loads", "driver_loads", "constraint_violation",
                             "energy", "joint_coordinates"}));
  return r;
}

int report_command(const ReportCliOptions& o) {
  const std::string python = interpreter();
  if (const std::string dir = package_dir(); !dir.empty()) {
    const char* old = std::getenv("PYTHONPATH");
    const std::string path = old && *old ? dir + ":" + old : dir;
    setenv("PYTHONPATH", path.c_str(), 1);
  }
  setenv("MPLBACKEND", "Agg", 1);
  std::vector<std::string> args{python, "-c", kLauncher, o.results};
  if (!o.out.empty()) args.insert(args.end(), {"--out", o.out});
  if (!o.quantities.empty()) {
    args.emplace_back("--quantity");
    args.insert(args.end(), o.quantities.begin(), o.quantities.end());
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = 0;
  if (const int rc = posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ); rc != 0) {
    std::fprintf(stderr, "error: report: cannot start the Python interpreter '%s' (%s); install Python 3 or set "
                 "SIMPHANT_PYTHON\n", python.c_str(), std::strerror(rc));
    return kExitRunFailed;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "error: report: waitpid: %s\n", std::strerror(errno));
      return kExitRunFailed;
    }
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : kExitRunFailed;
  if (rc == kExitOk || rc == kExitBadInput || rc == kExitRunFailed) return rc;
  std::fprintf(stderr, "error: report: the Python report exited with %d\n", rc);
  return kExitRunFailed;
}

}  // namespace simphant::cli
