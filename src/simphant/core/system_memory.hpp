#pragma once
// The machine's memory, for the guards that refuse work which would not fit
// (docs/reliability.md, "Memory").
namespace simphant {

/// Share of physical memory a job may plan to hold: 0.8.
constexpr double kMemoryFraction = 0.8;

/// Physical memory of this machine [bytes] (sysconf); 0 when it cannot be found.
double physical_memory_bytes();

}  // namespace simphant
