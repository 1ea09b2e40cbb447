// The CUDA error check of the experiment programs in this folder: print and exit.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CK(x)                                                              \
  do {                                                                     \
    cudaError_t e_ = (x);                                                  \
    if (e_ != cudaSuccess) {                                               \
      printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

/// Microseconds from an event recorded on `s` before `call()` to one after it: one call timed as
/// the benchmarks time it.
template <class Call>
float event_us(cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, Call&& call) {
  CK(cudaEventRecord(e0, s));
  call();
  CK(cudaEventRecord(e1, s));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  return ms * 1000;
}
