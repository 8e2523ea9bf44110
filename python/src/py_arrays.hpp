#pragma once
// Array arguments of the module: C-contiguous host arrays whose element count the
// binding checks against the simulator's sizes (the Python layer checks shapes and
// dtypes first and gives the user-facing message; this is the last line of defence).
#include <cstddef>
#include <stdexcept>
#include <string>

#include <nanobind/ndarray.h>

namespace simphant::python {

template <typename T>
using HostArray = nanobind::ndarray<T, nanobind::c_contig, nanobind::device::cpu>;

template <typename T>
T* checked(const char* name, HostArray<T>& a, std::size_t expected) {
  if (a.size() != expected)
    throw std::invalid_argument(std::string(name) + ": has " + std::to_string(a.size()) + " elements, expected " +
                                std::to_string(expected));
  return a.data();
}

}  // namespace simphant::python
