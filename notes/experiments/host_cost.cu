// Session 36: host time per call (std::chrono, 200 calls queued, then a sync; medians of 21
// batches) of an empty launch and of the small sorts, gpuprim and CUB: how much of the 2^10 rows'
// event-timed ~7 us is the host's work to launch.
#include "check.cuh"
#include <gpuprim/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>
struct big {
  char b[96];
};
__global__ void empty_small(int x, int* p) {
  if (x == 12345) *p = 0;
}
__global__ void empty_big(big a, int* p) {
  if (a.b[3] == 17) *p = 0;
}
int main() {
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* p;
  CK(cudaMalloc(&p, 16 << 20));
  unsigned *k, *ko;
  CK(cudaMalloc(&k, 4096 * 4));
  CK(cudaMalloc(&ko, 4096 * 4));
  CK(cudaMemset(k, 1, 4096 * 4));
  big b{};
  auto t = [&](const char* name, const std::function<void()>& f) {
    std::vector<double> v;
    for (int r = 0; r < 23; ++r) {
      CK(cudaStreamSynchronize(s));
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 200; ++i) f();
      const auto t1 = std::chrono::steady_clock::now();
      CK(cudaStreamSynchronize(s));
      if (r >= 2) v.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 200);
    }
    std::sort(v.begin(), v.end());
    printf("%-40s host %.2f us a call (min %.2f)\n", name, v[v.size() / 2], v[0]);
  };
  for (int r = 0; r < 2; ++r) {
    t("cudaGetDevice", [&] { int d; CK(cudaGetDevice(&d)); });
    t("cudaPeekAtLastError", [&] { CK(cudaPeekAtLastError()); });
    t("<<<32,256>>> empty, 12 B args", [&] { empty_small<<<32, 256, 0, s>>>(1, p); });
    t("<<<32,256>>> empty, 104 B args", [&] { empty_big<<<32, 256, 0, s>>>(b, p); });
    t("<<<32,256,8K>>> empty, 104 B args", [&] { empty_big<<<32, 256, 8192, s>>>(b, p); });
    t("cudaLaunchKernelEx empty, 104 B", [&] {
      cudaLaunchConfig_t c = {};
      c.gridDim = dim3(32);
      c.blockDim = dim3(256);
      c.stream = s;
      CK(cudaLaunchKernelEx(&c, empty_big, b, p));
    });
    for (size_t n : {size_t(1024), size_t(4096)}) {
      char name[64];
      snprintf(name, sizeof name, "gpuprim sort %zu u32", n);
      t(name, [&] { size_t tb = 1 << 20; CK(gpuprim::radix_sort_keys((void*)p, tb, k, ko, n, 0, 32, s)); });
      snprintf(name, sizeof name, "CUB sort %zu u32", n);
      t(name, [&] { size_t tb = 16 << 20; CK(cub::DeviceRadixSort::SortKeys((void*)p, tb, k, ko, int(n), 0, 32, s)); });
    }
  }
  return 0;
}
