#pragma once
// SP_HD marks functions shared by the CPU reference path and CUDA kernels
// (one copy of the joint math, compiled for host and device).
#if defined(__CUDACC__)
#define SP_HD __host__ __device__ __forceinline__
#else
#define SP_HD inline
#endif
