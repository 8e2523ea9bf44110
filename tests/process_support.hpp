#pragma once
// Helpers of the tests that run the simphant executable as a child process: start it
// with its output in files, wait for it with a deadline, read its peak memory, find the
// files a run leaves beside its output.
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace simphant::test {

/// A child process running `simphant args...`, stdout and stderr in files.
struct Child {
  pid_t pid = -1;
  std::filesystem::path out_file, err_file;
};

/// Starts SIMPHANT_BINARY with `args`; stdout to out_file, stderr to err_file. `before_exec`
/// runs in the child just before exec (e.g. setrlimit). `env`: "NAME=value" entries added
/// to (or replacing those of) this process's environment.
inline Child start_simphant(const std::vector<std::string>& args, const std::filesystem::path& out_file,
                            const std::filesystem::path& err_file, const std::function<void()>& before_exec = {},
                            const std::vector<std::string>& env = {}) {
  Child c;
  c.out_file = out_file;
  c.err_file = err_file;
  // argv and envp are built before fork: the child only calls async-signal-safe functions.
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(SIMPHANT_BINARY));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(env.begin(), env.end(), [&](const std::string& x) {
      return x.compare(0, name.size() + 1, name + "=") == 0;
    });
    if (!replaced) envp.push_back(*e);
  }
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  c.pid = ::fork();
  if (c.pid == 0) {
    if (!std::freopen(out_file.c_str(), "w", stdout) || !std::freopen(err_file.c_str(), "w", stderr)) ::_exit(126);
    if (before_exec) before_exec();
    ::execve(SIMPHANT_BINARY, argv.data(), envp.data());
    ::_exit(127);
  }
  return c;
}

/// How a child ended.
struct Exit {
  bool exited = false;     ///< exited normally (else killed by a signal, or still running at the deadline)
  int code = -1;           ///< exit status when exited; the signal when killed
  double seconds = 0;      ///< wall time from the call to the end
  long max_rss_kib = 0;    ///< peak resident memory [KiB] (ru_maxrss)
  /// Peak anonymous resident memory [KiB] (RssAnon of /proc/<pid>/status, sampled every
  /// 2 ms while the child runs): the heap and stacks without the file-backed pages of
  /// the program and its libraries (the CUDA libraries alone map about 170 MiB of those,
  /// and file pages come and go with the page cache, so ru_maxrss mixes them in).
  long max_rss_anon_kib = 0;
  bool timed_out = false;  ///< killed at the deadline
};

/// RssAnon [KiB] of a live process, 0 when it cannot be read.
inline long rss_anon_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  long value = 0;
  while (in >> key) {
    if (key == "RssAnon:" && in >> value) return value;
    in.ignore(1 << 16, '\n');
  }
  return 0;
}

/// Waits for the child, at most `timeout_s` (then SIGKILL and timed_out).
inline Exit wait_child(const Child& c, double timeout_s = 300) {
  Exit e;
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    int status = 0;
    struct rusage ru {};
    const pid_t r = ::wait4(c.pid, &status, WNOHANG, &ru);
    e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r == c.pid) {
      e.exited = WIFEXITED(status);
      e.code = e.exited ? WEXITSTATUS(status) : WTERMSIG(status);
      e.max_rss_kib = ru.ru_maxrss;
      return e;
    }
    e.max_rss_anon_kib = std::max(e.max_rss_anon_kib, rss_anon_kib(c.pid));
    if (e.seconds > timeout_s) {
      ::kill(c.pid, SIGKILL);
      ::waitpid(c.pid, &status, 0);
      e.timed_out = true;
      return e;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// The temporary file a run writes for `target` (".<name>.partial-<pid>", README "Output file").
inline std::filesystem::path partial_file(const std::filesystem::path& target, pid_t pid) {
  return target.parent_path() / ("." + target.filename().string() + ".partial-" + std::to_string(pid));
}

/// Waits until `p` exists (true) or `timeout_s` passes (false).
inline bool wait_for_file(const std::filesystem::path& p, double timeout_s = 60) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  std::error_code ec;
  while (!std::filesystem::exists(p, ec)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

/// A run held by the job runner's test hook (SIMPHANT_TEST_HOLD, job/test_hold.hpp;
/// docs/reliability.md "Test hooks") at `point` ("setup" or "step=N") until the gate
/// file exists. Pass env() to start_simphant; wait() until the run is held there, then
/// act on it (a signal, SIGKILL) or release() it.
struct Hold {
  std::string point;
  std::filesystem::path gate;

  Hold(std::string point_, std::filesystem::path gate_) : point(std::move(point_)), gate(std::move(gate_)) {
    std::error_code ec;
    std::filesystem::remove(gate, ec);
    std::filesystem::remove(held_file(), ec);
  }
  std::vector<std::string> env() const { return {"SIMPHANT_TEST_HOLD=" + point + ":" + gate.string()}; }
  std::filesystem::path held_file() const { return gate.string() + ".held"; }
  /// Waits until the run is held (its ".held" report exists): true, or false after
  /// `timeout_s` or when `child` (when given) has ended first.
  bool wait(const Child* child = nullptr, double timeout_s = 120) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    std::error_code ec;
    while (!std::filesystem::exists(held_file(), ec)) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      if (child != nullptr) {  // ended (not reaped, so that wait_child still reads its status)
        siginfo_t info{};
        const int r = ::waitid(P_PID, static_cast<id_t>(child->pid), &info, WEXITED | WNOHANG | WNOWAIT);
        if (r == 0 && info.si_pid == child->pid) return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
  }
  /// The ".held" report (a JSON object: point, pid, steps_done, steps_total, wall_s, loop_wall_s).
  std::string report() const { return read_text(held_file()); }
  void release() const { std::ofstream(gate).put('\n'); }
};

}  // namespace simphant::test
