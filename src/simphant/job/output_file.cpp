#include "simphant/job/output_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "simphant/core/durable_file.hpp"
namespace simphant {

namespace fs = std::filesystem;

namespace {

/// ".<name><suffix>" beside `target`.
std::string beside(const std::string& target, const std::string& suffix) {
  const fs::path p(target);
  return (p.parent_path() / ("." + p.filename().string() + suffix)).string();
}

/// The pid written in a lock file, or "" when it cannot be read.
std::string lock_owner(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string s = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

[[noreturn]] void fail(const std::string& target, const std::string& reason) {
  throw std::runtime_error("output " + target + ": " + reason);
}

}  // namespace

std::string partial_file_name(const std::string& target, long pid) {
  return beside(target, ".partial-" + std::to_string(pid));
}

std::string resolve_output_links(const std::string& target) {
  fs::path p(target);
  std::error_code ec;
  // Each link in turn, also one whose target does not exist yet (weakly_canonical would
  // stop at a dangling link and leave it unresolved).
  for (int hop = 0; hop < 40 && fs::is_symlink(p, ec); ++hop) {
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) break;
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  const fs::path resolved = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal().string() : resolved.string();
}

OutputFile::OutputFile(const std::string& target) : target_(target) {
  // Through a symbolic link the file it points to is replaced, as writing it would, and
  // its lock is the one of that file, also when the link dangles.
  std::error_code ec;
  if (fs::is_symlink(target_, ec)) target_ = resolve_output_links(target_);
  lock_ = beside(target_, ".lock");
  temp_ = partial_file_name(target_, static_cast<long>(::getpid()));
  // A run that ends unlinks its lock file while holding it; one that opened the old
  // file just then finds it gone after flock and tries again on the new one.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) fail(target_, "cannot create the lock file " + lock_ + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string owner = lock_owner(fd);
      ::close(fd);
      if (err == EWOULDBLOCK)
        throw OutputBusy("output " + target_ + ": being written by another simphant run (" +
                         (owner.empty() ? std::string("pid unknown") : "pid " + owner) + ", lock file " + lock_ +
                         "); wait for it to finish or choose another --out");
      fail(target_, "cannot lock " + lock_ + ": " + std::strerror(err));
    }
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && ::stat(lock_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      lock_fd_ = fd;
      break;
    }
    ::close(fd);
  }
  if (lock_fd_ < 0) fail(target_, "cannot take the lock file " + lock_ + " (it keeps being replaced)");
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // The pid is for the message of a second run only; the lock holds without it.
  }
}

OutputFile::~OutputFile() {
  if (!done_) ::unlink(temp_.c_str());
  release();
}

void OutputFile::release() {
  if (lock_fd_ < 0) return;
  ::unlink(lock_.c_str());  // while still holding the lock (see the constructor)
  ::close(lock_fd_);
  lock_fd_ = -1;
}

void OutputFile::commit(const std::function<void()>& after_rename) {
  if (done_) return;
  // The data on disk before the name, the name in its folder: a crash leaves the old
  // file or the whole new one.
  try {
    durable_replace(temp_, target_);
  } catch (const std::runtime_error& e) {
    keep_temporary();
    fail(target_, std::string(e.what()) + " (the results stay in " + temp_ + ")");
  }
  done_ = true;
  if (after_rename) after_rename();
  release();
}

void OutputFile::keep_temporary() {
  done_ = true;
  release();
}

}  // namespace simphant
