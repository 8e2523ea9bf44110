#pragma once
// Reading an input file (a scene, a URDF) with a type and a size limit, so that a path
// such as /dev/zero, a FIFO or a folder, or a huge file, is refused before it costs
// memory or blocks (docs/reliability.md, "Input files").
#include <cstddef>
#include <stdexcept>
#include <string>

namespace simphant {

/// Largest input file read: 64 MiB (a scene or URDF is kilobytes; a large robot a few
/// hundred kilobytes).
constexpr std::size_t kMaxInputFileBytes = std::size_t{64} << 20;

/// An input file that cannot be read; what() is the reason alone (callers prefix the
/// file name and their own context).
class InputFileError : public std::runtime_error {
 public:
  explicit InputFileError(const std::string& reason) : std::runtime_error(reason) {}
};

/// The whole content of the regular file at `path` (symbolic links followed).
/// Errors (InputFileError), checked before any byte is read:
///  "cannot open: <strerror>"                       missing, no permission, ...
///  "cannot open: is a directory"
///  "cannot open: not a regular file (a device, FIFO or socket)"
///  "the file has N bytes, over the limit of M bytes (64 MiB) for input files"
///  "cannot read: <strerror>"                        I/O error while reading
/// The type is checked on the path before opening (a FIFO would block open) and again
/// on the opened descriptor; the size limit is also enforced while reading (a file that
/// grows past it is refused). `max_bytes` defaults to kMaxInputFileBytes.
std::string read_input_file(const std::string& path, std::size_t max_bytes = kMaxInputFileBytes);

}  // namespace simphant
