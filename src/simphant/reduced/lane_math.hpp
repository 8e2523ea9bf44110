#pragma once
// Transcendental functions of the joint-space dynamics written once for any scalar type
// T: float and double here (SP_HD, the standard library's functions, so the scalar CPU
// reference and the GPU compute what they always did), and the SIMD lane vector
// Lanes<double, W> in simd/reduced_lane_math.hpp (host only; polynomial sin / cos, per
// lane tanh), found by argument-dependent lookup where a template is instantiated with
// T = Lanes. Used by reduced/*.hpp wherever the joint angle enters (rotations, rotors)
// and by the friction law.
#include <cmath>

#include "simphant/core/hd.hpp"

namespace simphant {

/// s = sin(x), c = cos(x) [x in rad].
SP_HD void lane_sincos(double x, double& s, double& c) {
  s = std::sin(x);
  c = std::cos(x);
}
SP_HD void lane_sincos(float x, float& s, float& c) {
  s = std::sin(x);
  c = std::cos(x);
}
/// tanh(x).
SP_HD double lane_tanh(double x) { return std::tanh(x); }
SP_HD float lane_tanh(float x) { return std::tanh(x); }

}  // namespace simphant
