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

#include <algorithm>
#include <random>
#include <vector>

/// How many copies of an input of `bytes` span 4x the L2 of device 0 (and one more), so that a
/// call that reads copy i % copies never finds its input in L2.
inline std::size_t copies_spanning_4x_l2(std::size_t bytes) {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  return std::size_t(4) * prop.l2CacheSize / bytes + 1;
}

/// Copies of n random u32 keys laid end to end, spanning 4x L2, so that a call that takes copy
/// i % copies never finds its input in L2 (as the benchmark rotates its inputs); `host` holds them.
struct key_pool {
  std::size_t n = 0, copies = 0;
  unsigned* data = nullptr;
  std::vector<unsigned> host;
  key_pool(std::size_t n_, unsigned seed) : n(n_) {
    copies = copies_spanning_4x_l2(n * 4);
    CK(cudaMalloc(&data, copies * n * 4));
    host.resize(copies * n);
    std::mt19937 g(seed);
    for (auto& x : host) x = g();
    CK(cudaMemcpy(data, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
  }
  const unsigned* copy(std::size_t i) const { return data + (i % copies) * n; }
};

/// Whether `run(input)` on `s` leaves in `d_out` the n keys of pool copy `c` sorted (std::sort);
/// the output is poisoned first.
template <class Run>
bool sorts_copy(const key_pool& pool, std::size_t c, unsigned* d_out, cudaStream_t s, Run&& run) {
  CK(cudaMemset(d_out, 0xff, pool.n * 4));
  run(pool.copy(c));
  CK(cudaStreamSynchronize(s));
  CK(cudaGetLastError());
  std::vector<unsigned> o(pool.n), ref(pool.host.begin() + c * pool.n, pool.host.begin() + (c + 1) * pool.n);
  std::sort(ref.begin(), ref.end());
  CK(cudaMemcpy(o.data(), d_out, pool.n * 4, cudaMemcpyDeviceToHost));
  return o == ref;
}

/// A non-blocking stream and the two events that event_us times with.
struct timing_env {
  cudaStream_t s;
  cudaEvent_t e0, e1;
  timing_env() {
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
  }
};

/// The arguments (a gpuprim radix_sort_args) of an ascending whole-key sort of n u32 keys.
template <class Args>
Args whole_u32_sort(const unsigned* in, unsigned* out, std::size_t n) {
  Args a{};
  a.keys_in = in;
  a.keys_out = out;
  a.n = n;
  a.begin_bit = 0;
  a.end_bit = 32;
  return a;
}

/// Event-timed calls of `variants` variants interleaved call by call (`run(v)` makes one call of
/// variant v), `rounds` rounds of which the first 200 are not kept: each variant's times, sorted.
template <class Run>
std::vector<std::vector<float>> interleaved_times(int rounds, int variants, const timing_env& env, Run&& run) {
  std::vector<std::vector<float>> t(variants);
  for (int i = 0; i < rounds; ++i) {
    for (int r = 0; r < variants; ++r) {
      const int v = (r + i) % variants;
      const float us = event_us(env.s, env.e0, env.e1, [&] { run(v); });
      if (i >= 200) t[v].push_back(us);
    }
  }
  for (auto& x : t) std::sort(x.begin(), x.end());
  return t;
}
