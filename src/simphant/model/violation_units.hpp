// The units of the constraint violation max |Phi| (/constraint_violation and
// /reductions/constraint_violation): Phi stacks rows in metres (positions) and
// dimensionless rows (orientations: components of rotation quaternions and dot products
// of unit axes; docs/solver.md), so the maximum is in one or the other.
#pragma once

namespace simphant {

inline constexpr const char* kConstraintViolationUnits =
    "m or 1 (max over position rows [m] and orientation rows [1])";

}  // namespace simphant
