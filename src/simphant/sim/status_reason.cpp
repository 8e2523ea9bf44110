// Status reasons (sim/backend.hpp, formulas/runaway.hpp; docs/state.md).
#include <stdexcept>
#include <string>

#include "simphant/formulas/runaway.hpp"
#include "simphant/sim/backend.hpp"

namespace simphant {

const char* status_reason_name(std::int8_t reason) {
  switch (reason) {
    case kReasonNone: return "none";
    case kReasonNonFinite: return "non_finite";
    case kReasonConstraintViolation: return "constraint_violation";
    case kReasonRunaway: return "runaway";
    case kReasonFactorisationFailure: return "factorisation_failure";
    case kReasonAssemblyFailure: return "assembly_failure";
    case kReasonStepSizeUnderflow: return "step_size_underflow";
    default: return "unknown";
  }
}

void check_status_reasons(const char* call, int count, const std::int8_t* status, const std::int8_t* reasons) {
  if (!reasons) return;
  if (!status)
    throw std::invalid_argument(std::string(call) + ": status reasons are written with statuses (status is null)");
  for (int k = 0; k < count; ++k) {
    if (reasons[k] < 0 || reasons[k] >= kReasonCount)
      throw std::invalid_argument(std::string(call) + ": reasons[" + std::to_string(k) +
                                  "] = " + std::to_string(reasons[k]) + " is not a status reason (0 to " +
                                  std::to_string(kReasonCount - 1) + ")");
    if (!status_reason_fits(status[k], reasons[k]))
      throw std::invalid_argument(std::string(call) + ": reasons[" + std::to_string(k) +
                                  "] = " + status_reason_name(reasons[k]) + " does not fit status[" +
                                  std::to_string(k) + "] = " + std::to_string(status[k]));
  }
}

}  // namespace simphant
