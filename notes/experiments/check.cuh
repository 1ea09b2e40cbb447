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
