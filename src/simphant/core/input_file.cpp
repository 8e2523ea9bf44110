#include "simphant/core/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace simphant {

namespace {

std::string type_reason(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return "cannot open: is a directory";
  return "cannot open: not a regular file (a device, FIFO or socket)";
}

std::string size_reason(const std::string& size, std::size_t max_bytes) {
  std::string limit = std::to_string(max_bytes) + " bytes";
  if (max_bytes % (std::size_t{1} << 20) == 0) limit += " (" + std::to_string(max_bytes >> 20) + " MiB)";
  return "the file has " + size + " bytes, over the limit of " + limit + " for input files";
}

/// Closes the descriptor on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_input_file(const std::string& path, std::size_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputFileError(std::string("cannot open: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw InputFileError(type_reason(st));
  if (static_cast<unsigned long long>(st.st_size) > max_bytes)
    throw InputFileError(size_reason(std::to_string(st.st_size), max_bytes));
  // O_NONBLOCK: should the path have become a FIFO since stat, open does not wait for a
  // writer; fstat below then refuses it.
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (f.fd < 0) throw InputFileError(std::string("cannot open: ") + std::strerror(errno));
  if (::fstat(f.fd, &st) != 0) throw InputFileError(std::string("cannot read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw InputFileError(type_reason(st));
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t got = ::read(f.fd, buf, sizeof buf);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputFileError(std::string("cannot read: ") + std::strerror(errno));
    }
    if (got == 0) break;
    if (text.size() + static_cast<std::size_t>(got) > max_bytes)
      throw InputFileError(size_reason("more than " + std::to_string(max_bytes), max_bytes));
    text.append(buf, static_cast<std::size_t>(got));
  }
  return text;
}

}  // namespace simphant
