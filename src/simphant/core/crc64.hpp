#pragma once
// CRC-64/XZ: the fingerprint of an input file (a sweep's design file, every file a run
// reads) that a run records and a resumed run compares (job/input_digests.hpp).
#include <string>

namespace simphant {

/// CRC-64/XZ (ECMA-182 polynomial, reflected, init and xor-out all ones; check value of
/// "123456789" 0x995DC9BBDF1939FA) of `bytes`, as 16 lower-case hex digits (Boost.CRC).
std::string crc64_hex(const std::string& bytes);

}  // namespace simphant
