// The interface between the driver (ab.cu) and the three sort TUs (old.cu, new.cu, cub.cu):
// each TU exports one function that runs the workspace form of its library for one case kind.
#pragma once
#include <cstddef>
#include <cuda_runtime.h>

enum case_kind { K_U32 = 0, K_F32 = 1, K_U64 = 2, P_U32_U32 = 3, P_U64_U32 = 4 };

// Keys are passed untyped (u32, f32 or u64 by kind); values are u32 (nullptr for keys-only kinds).
// d_temp == nullptr: size query. Full key bits [0, 8 * sizeof(Key)), as benchmarks/radix_sort.cu.
#define AB_SORT_ARGS                                                                                   \
  int kind, void *d_temp, std::size_t &temp_bytes, const void *keys_in, void *keys_out,                \
      const unsigned *values_in, unsigned *values_out, std::size_t n, cudaStream_t stream

cudaError_t ab_old_sort(AB_SORT_ARGS);
cudaError_t ab_new_sort(AB_SORT_ARGS);
// What OLD and NEW were built from: build/ab/obj/info.cpp, written by build.sh.
const char* ab_old_info();
const char* ab_new_info();
// wide == false: an int count (CUB's 32-bit offsets); true: a std::size_t count (64-bit offsets).
cudaError_t ab_cub_sort(bool wide, AB_SORT_ARGS);
