#include "git_commit.hpp"

#include <cstdio>
#include <cstdlib>

namespace simphant::cli {

namespace {

/// stdout of a shell command, trailing newlines removed ("" when it fails).
std::string command_output(const char* command) {
  FILE* p = popen(command, "r");
  if (p == nullptr) return "";
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  if (pclose(p) != 0) return "";
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

std::string git_commit() {
  const char* given = std::getenv("SIMPHANT_COMMIT");
  if (given != nullptr && *given != '\0') return given;
  std::string commit = command_output("git rev-parse HEAD 2>/dev/null");
  if (!commit.empty() && !command_output("git status --porcelain --untracked-files=no 2>/dev/null").empty())
    commit += "-dirty";
  return commit;
}

}  // namespace simphant::cli
