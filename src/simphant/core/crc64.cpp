#include "simphant/core/crc64.hpp"

#include <cstdio>

#include <boost/crc.hpp>

namespace simphant {

std::string crc64_hex(const std::string& bytes) {
  boost::crc_optimal<64, 0x42F0E1EBA9EA3693ull, ~0ull, ~0ull, true, true> crc;
  crc.process_bytes(bytes.data(), bytes.size());
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(crc.checksum()));
  return buf;
}

}  // namespace simphant
