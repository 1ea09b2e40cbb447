// Session 34: u32/u32 pair sorts timed in one process: the default passes, the narrow direct
// tiles (onesweep_shape_override 2), the held tiles (3), the packed passes (4) and CUB (int count),
// 3M to 2^28 items, 10 rounds, medians. Build: nvcc -O3 -std=c++17 -arch=sm_90
// --expt-relaxed-constexpr -Iinclude -o build/exp/packed_time notes/experiments/packed_time.cu
#include <cstdio>
#include <gpuprim/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <random>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
int main(int argc, char** argv) {
  size_t nmax = size_t(1) << 28;
  std::vector<unsigned> h(nmax);
  std::mt19937 g(7);
  unsigned *k, *ko, *v, *vo;
  CK(cudaMalloc(&k, nmax * 4)); CK(cudaMalloc(&ko, nmax * 4)); CK(cudaMalloc(&v, nmax * 4)); CK(cudaMalloc(&vo, nmax * 4));
  for (auto& x : h) x = g();
  CK(cudaMemcpy(k, h.data(), nmax * 4, cudaMemcpyHostToDevice));
  for (auto& x : h) x = g();
  CK(cudaMemcpy(v, h.data(), nmax * 4, cudaMemcpyHostToDevice));
  size_t tb = 0, t1 = 0;
  CK(gpuprim::radix_sort_pairs(nullptr, tb, k, ko, v, vo, nmax));
  CK(cub::DeviceRadixSort::SortPairs(nullptr, t1, k, ko, v, vo, int(nmax))); tb = std::max(tb, t1);
  void* t; CK(cudaMalloc(&t, tb));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const int shapes[] = {-1, 2, 3, 4, 99};
  for (size_t n : {size_t(3000017), size_t(1) << 22, size_t(6000011), size_t(1) << 23, size_t(12000007), size_t(1) << 24, size_t(1) << 25, size_t(1) << 26, size_t(1) << 28}) {
    std::vector<float> ts[5];
    for (int r = 0; r < 10; ++r) for (int s = 0; s < 5; ++s) {
      gpuprim::detail::onesweep_shape_override.store(shapes[s]);
      CK(cudaEventRecord(e0));
      if (shapes[s] == 99) { size_t b = tb; CK(cub::DeviceRadixSort::SortPairs(t, b, k, ko, v, vo, int(n))); }
      else CK(gpuprim::radix_sort_pairs(t, tb, k, ko, v, vo, n));
      CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r) ts[s].push_back(ms * 1000);
    }
    float m[5];
    for (int s = 0; s < 5; ++s) { std::sort(ts[s].begin(), ts[s].end()); m[s] = ts[s][ts[s].size() / 2]; }
    printf("n %zu default %.1f narrow %.1f held %.1f packed %.1f cub(int) %.1f | packed/default %.3f cub/default %.3f cub/packed %.3f\n", n, m[0], m[1], m[2], m[3], m[4], m[3] / m[0], m[4] / m[0], m[4] / m[3]);
  }
  gpuprim::detail::onesweep_shape_override.store(-1);
  return 0;
}
