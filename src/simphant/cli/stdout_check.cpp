#include "stdout_check.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "commands.hpp"

namespace simphant::cli {

int finish_stdout(int rc) {
  errno = 0;
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (flushed && !std::ferror(stdout) && !std::cout.fail()) return rc;
  std::fprintf(stderr, "error: writing to stdout failed: %s\n", err != 0 ? std::strerror(err) : "write error");
  return rc != kExitOk ? rc : kExitRunFailed;
}

}  // namespace simphant::cli
