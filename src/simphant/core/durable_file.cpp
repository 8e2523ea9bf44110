#include "simphant/core/durable_file.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace simphant {

void copy_file(const std::string& from, const std::string& to, bool durable) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) throw std::runtime_error("cannot open " + from + ": " + std::strerror(errno));
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    const int err = errno;
    ::close(in);
    throw std::runtime_error("cannot create " + to + ": " + std::strerror(err));
  }
  int err = 0;
  if (::ioctl(out, FICLONE, in) != 0) {
    struct stat st {};
    err = ::fstat(in, &st) == 0 ? 0 : errno;
    off_t left = err == 0 ? st.st_size : 0;
    bool plain = false;  // copy_file_range not supported here: read and write
    while (err == 0 && left > 0) {
      ssize_t n = plain ? -1 : ::copy_file_range(in, nullptr, out, nullptr, static_cast<std::size_t>(left), 0);
      if (n < 0 && !plain && (errno == ENOSYS || errno == EXDEV || errno == EINVAL || errno == EOPNOTSUPP)) {
        plain = true;
        if (::lseek(in, st.st_size - left, SEEK_SET) < 0) err = errno;
        continue;
      }
      if (plain) {
        static thread_local std::vector<char> buf(std::size_t{1} << 20);
        n = ::read(in, buf.data(), std::min<std::size_t>(buf.size(), static_cast<std::size_t>(left)));
        for (ssize_t done = 0; n > 0 && done < n;) {
          const ssize_t w = ::write(out, buf.data() + done, static_cast<std::size_t>(n - done));
          if (w < 0) {
            err = errno;
            break;
          }
          done += w;
        }
      }
      if (n < 0 && err == 0) err = errno;
      if (n == 0 && err == 0) err = EIO;  // the source shrank under us
      if (n > 0) left -= n;
    }
  }
  if (err == 0 && durable && ::fsync(out) != 0) err = errno;
  ::close(in);
  if (::close(out) != 0 && err == 0) err = errno;
  if (err != 0) throw std::runtime_error("copying " + from + " to " + to + " failed: " + std::strerror(err));
}

void durable_replace(const std::string& temp, const std::string& target) {
  const int fd = ::open(temp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("fsync " + temp + ": " + std::strerror(err));
  }
  ::close(fd);
  if (::rename(temp.c_str(), target.c_str()) != 0)
    throw std::runtime_error("cannot rename " + temp + " onto " + target + ": " + std::strerror(errno));
  std::string folder = std::filesystem::path(target).parent_path().string();
  if (folder.empty()) folder = ".";
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  ::fsync(dir);  // best effort (see the header)
  ::close(dir);
}

}  // namespace simphant
