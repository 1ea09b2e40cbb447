// Helpers of the docs examples' test mains (never shown in the docs): error checks, the
// "no GPU: skipped" exit code 77, and host <-> device copies.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define EXAMPLE_CHECK(call)                                                                         \
  do {                                                                                              \
    const cudaError_t example_err_ = (call);                                                        \
    if (example_err_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(example_err_)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

#define EXAMPLE_EXPECT(cond)                                                         \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);       \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

namespace example {

/// Exits 77 (ctest: skipped) when no CUDA GPU is usable.
inline void exit_77_without_gpu() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::puts("no usable CUDA GPU: skipped");
    std::exit(77);
  }
}

template <class T>
T* to_device(const std::vector<T>& host) {
  T* d = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&d, (host.empty() ? 1 : host.size()) * sizeof(T)));
  if (!host.empty()) EXAMPLE_CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
std::vector<T> to_host(const T* d, std::size_t n) {
  std::vector<T> host(n);
  if (n > 0) EXAMPLE_CHECK(cudaMemcpy(host.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace example
