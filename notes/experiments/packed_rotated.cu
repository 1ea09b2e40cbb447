// Session 34: narrow / held / packed pair passes at 3-6M items with inputs rotated through 8 copies
// (no copy in L2 when its turn comes), as the benchmark does.
#include <cstdio>
#include <gpuprim/radix_sort.cuh>
#include <random>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
int main() {
  const size_t nmax = 6000011, copies = 12;
  std::vector<unsigned> h(nmax * copies);
  std::mt19937 g(7);
  for (auto& x : h) x = g();
  unsigned *k, *v, *ko, *vo;
  CK(cudaMalloc(&k, h.size() * 4)); CK(cudaMalloc(&v, h.size() * 4)); CK(cudaMalloc(&ko, nmax * 4)); CK(cudaMalloc(&vo, nmax * 4));
  CK(cudaMemcpy(k, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  for (auto& x : h) x = g();
  CK(cudaMemcpy(v, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  size_t tb = 0; CK(gpuprim::radix_sort_pairs(nullptr, tb, k, ko, v, vo, nmax));
  void* t; CK(cudaMalloc(&t, tb));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const int shapes[] = {2, 3, 4};
  for (size_t n : {size_t(3000017), size_t(1) << 22, size_t(5000011), size_t(6000011)}) {
    std::vector<float> ts[3];
    size_t it = 0;
    for (int r = 0; r < 25; ++r) for (int s = 0; s < 3; ++s, ++it) {
      const size_t c = it % copies;
      gpuprim::detail::onesweep_shape_override.store(shapes[s]);
      CK(cudaEventRecord(e0));
      CK(gpuprim::radix_sort_pairs(t, tb, k + c * nmax, ko, v + c * nmax, vo, n));
      CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r) ts[s].push_back(ms * 1000);
    }
    float m[3];
    for (int s = 0; s < 3; ++s) { std::sort(ts[s].begin(), ts[s].end()); m[s] = ts[s][ts[s].size() / 2]; }
    printf("n %zu (%.2f wide tiles/SM) narrow %.1f held %.1f packed %.1f | packed/narrow %.3f packed/held %.3f\n", n, n / 12288.0 / 132, m[0], m[1], m[2], m[2] / m[0], m[2] / m[1]);
  }
  gpuprim::detail::onesweep_shape_override.store(-1);
  return 0;
}
