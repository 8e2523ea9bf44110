#pragma once
// Facts about the machine and the moment, for the provenance of a run's file
// (io/recorder.hpp) and of a benchmark report (bench/bench_report.hpp).
#include <string>

namespace simphant {

/// The CPU's model name from /proc/cpuinfo ("AMD EPYC 7B13"), "unknown" when absent.
std::string cpu_model_name();
/// The host name (gethostname), "" when it cannot be read.
std::string host_name();
/// Now as ISO 8601 UTC to the second: "2026-12-01T12:00:00Z".
std::string utc_now_iso8601();

}  // namespace simphant
