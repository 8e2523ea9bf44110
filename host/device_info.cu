// cuda_device_info() (sim/cuda_factory.hpp): device 0's name, SM count, memory and
// theoretical peaks, for the benchmark's fraction of peak (`simphant bench`).
//
// CUDA 13 removed cudaDeviceProp::clockRate and ::memoryClockRate; the clocks come from
// cudaDeviceGetAttribute (kHz) instead.
#include <cuda_runtime.h>

#include "cuda_check.hpp"
#include "simphant/sim/cuda_factory.hpp"

namespace simphant {

namespace {

/// FMA lanes per SM per clock (fp32, fp64) of compute capability major.minor, from the
/// CUDA C Programming Guide's "Arithmetic Instructions" throughput table (results per
/// clock per multiprocessor). Unknown architectures get the consumer ratio (128, 2).
void fma_lanes(int major, int minor, int& fp32, int& fp64) {
  fp32 = 128;
  fp64 = 2;
  if (major == 6 && minor == 0) { fp32 = 64; fp64 = 32; }   // P100
  if (major == 7 && minor == 0) { fp32 = 64; fp64 = 32; }   // V100
  if (major == 7 && minor == 5) { fp32 = 64; fp64 = 2; }    // T4
  if (major == 8 && minor == 0) { fp32 = 64; fp64 = 32; }   // A100
  if (major == 9 && minor == 0) { fp32 = 128; fp64 = 64; }  // H100, H200
  if (major == 10 && minor == 0) { fp32 = 128; fp64 = 64; } // B200
}

}  // namespace

CudaDeviceInfo cuda_device_info() {
  require_cuda_device();
  const std::string what = "device 0 (cuda_device_info)";
  cudaDeviceProp prop{};
  cuda::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties", what);
  int clock_kHz = 0, mem_clock_kHz = 0, bus_bits = 0;
  cuda::check(cudaDeviceGetAttribute(&clock_kHz, cudaDevAttrClockRate, 0), "cudaDeviceGetAttribute(ClockRate)", what);
  cuda::check(cudaDeviceGetAttribute(&mem_clock_kHz, cudaDevAttrMemoryClockRate, 0),
              "cudaDeviceGetAttribute(MemoryClockRate)", what);
  cuda::check(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0),
              "cudaDeviceGetAttribute(GlobalMemoryBusWidth)", what);
  int fp32_lanes = 0, fp64_lanes = 0;
  fma_lanes(prop.major, prop.minor, fp32_lanes, fp64_lanes);
  CudaDeviceInfo info;
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.total_memory = prop.totalGlobalMem;
  // Double data rate: two transfers per memory clock.
  info.mem_bandwidth_GBps = 2.0 * mem_clock_kHz * 1e3 * (bus_bits / 8.0) / 1e9;
  const double sm_GHz = info.sm_count * (clock_kHz * 1e3) / 1e9;
  info.fp64_peak_GFLOPs = sm_GHz * fp64_lanes * 2.0;
  info.fp32_peak_GFLOPs = sm_GHz * fp32_lanes * 2.0;
  return info;
}

}  // namespace simphant
