#include "python_module_launcher.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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

// First asks Linux to send this child SIGTERM when the launcher dies (prctl
// PR_SET_PDEATHSIG = 1), so that a SIGKILL of `simphant serve` stops the service instead
// of leaving it orphaned, and exits at once should the launcher be gone already. Then
// imports the module, so that a missing package or module is exit 3 with one line
// (python -m would print a traceback and exit 1), and runs its main with the arguments.
// argv[1] is the subcommand's name, argv[2] the module.
constexpr const char* kLauncher =
    "import importlib, os, sys\n"
    "try:\n"
    "    import ctypes, signal\n"
    "    ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))\n"
    "except (ImportError, OSError, AttributeError):\n"
    "    pass\n"
    "if str(os.getppid()) != os.environ.get('SIMPHANT_LAUNCHER_PID', str(os.getppid())):\n"
    "    sys.exit(128 + 15)\n"
    "command, module = sys.argv[1], sys.argv[2]\n"
    "try:\n"
    "    m = importlib.import_module(module)\n"
    "except ImportError as e:\n"
    "    sys.stderr.write('error: %s: %s cannot import %s (%s); build with -DSIMPHANT_PYTHON=ON or pip install "
    "the package, or set SIMPHANT_PYTHON to the interpreter that has it\\n' % (command, sys.executable, module, e))\n"
    "    sys.exit(3)\n"
    "sys.argv = ['simphant ' + command] + sys.argv[3:]\n"
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

/// This executable's path ("" when /proc is not there).
std::string self_path() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

/// build/python beside build/simphant when the executable runs from a build tree with the
/// Python package built (SIMPHANT_PYTHON=ON); "" otherwise.
std::string package_dir(const std::string& exe) {
  if (exe.empty()) return "";
  std::error_code ec;
  const fs::path dir = fs::path(exe).parent_path() / "python";
  return fs::exists(dir / "simphant" / "__init__.py", ec) ? dir.string() : "";
}

volatile sig_atomic_t g_child = 0;

extern "C" void forward_signal(int sig) {
  if (g_child > 0) kill(static_cast<pid_t>(g_child), sig);
}

}  // namespace

int run_python_module(const char* command, const char* module, const std::vector<std::string>& args) {
  const std::string python = interpreter();
  const std::string exe = self_path();
  if (const std::string dir = package_dir(exe); !dir.empty()) {
    const char* old = std::getenv("PYTHONPATH");
    const std::string path = old && *old ? dir + ":" + old : dir;
    setenv("PYTHONPATH", path.c_str(), 1);
  }
  if (!exe.empty()) setenv("SIMPHANT_EXECUTABLE", exe.c_str(), 1);
  setenv("SIMPHANT_LAUNCHER_PID", std::to_string(getpid()).c_str(), 1);
  setenv("MPLBACKEND", "Agg", 1);
  std::vector<std::string> all{python, "-c", kLauncher, command, module};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);

  // Handlers (not SIG_IGN: the child starts with the default actions) that pass the
  // stop signals on, so that `docker stop` or a Ctrl-C stops the child cleanly and this
  // process reports its exit.
  struct sigaction fwd {};
  fwd.sa_handler = forward_signal;
  sigemptyset(&fwd.sa_mask);
  struct sigaction old_int {}, old_term {}, old_hup {};
  sigaction(SIGINT, &fwd, &old_int);
  sigaction(SIGTERM, &fwd, &old_term);
  sigaction(SIGHUP, &fwd, &old_hup);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGHUP);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int spawn_rc = posix_spawnp(&pid, python.c_str(), nullptr, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  int result = kExitRunFailed;
  if (spawn_rc != 0) {
    std::fprintf(stderr, "error: %s: cannot start the Python interpreter '%s' (%s); install Python 3 or set "
                 "SIMPHANT_PYTHON\n", command, python.c_str(), std::strerror(spawn_rc));
  } else {
    g_child = pid;
    int status = 0;
    bool waited = true;
    while (waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) {
        std::fprintf(stderr, "error: %s: waitpid: %s\n", command, std::strerror(errno));
        waited = false;
        break;
      }
    }
    g_child = 0;
    if (waited) {
      if (WIFSIGNALED(status)) {
        result = 128 + WTERMSIG(status);
      } else {
        const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : kExitRunFailed;
        if (rc == kExitOk || rc == kExitBadInput || rc == kExitRunFailed || rc > 128) {
          result = rc;
        } else {
          std::fprintf(stderr, "error: %s: the Python module %s exited with %d\n", command, module, rc);
        }
      }
    }
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  return result;
}

}  // namespace simphant::cli
