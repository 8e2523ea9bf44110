#include "simphant/core/system_memory.hpp"

#include <unistd.h>

namespace simphant {

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<double>(pages) * static_cast<double>(page);
}

}  // namespace simphant
