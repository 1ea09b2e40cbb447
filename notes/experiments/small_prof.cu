// Per-kernel durations (ncu gpu__time_duration) of small sorts: u32 keys 1024 uniform, 16384
// uniform, 16384 AND-of-3; each sort run 3 times, launch order printed.
#include <gpuprim/radix_sort.cuh>
#include <cstdio>
#include <random>
#include <vector>
__global__ void empty_kernel() {}
int main() {
  const size_t nmax = 16384;
  unsigned *k, *ko;
  cudaMalloc(&k, nmax * 4);
  cudaMalloc(&ko, nmax * 4);
  void* t;
  cudaMalloc(&t, 256);
  std::mt19937 g(7);
  std::vector<unsigned> h(nmax);
  const char* names[] = {"u1024", "u16384", "and3_16384"};
  for (int c = 0; c < 3; ++c) {
    for (auto& y : h) y = g();
    if (c == 2)
      for (auto& y : h) y &= g() & g();
    cudaMemcpy(k, h.data(), nmax * 4, cudaMemcpyHostToDevice);
    size_t n = c == 0 ? 1024 : 16384, tb = 256;
    for (int r = 0; r < 3; ++r) {
      empty_kernel<<<1, 32>>>();
      cudaError_t e = gpuprim::radix_sort_keys(t, tb, k, ko, n);
      if (e != cudaSuccess) printf("%s\n", cudaGetErrorString(e));
      printf("%s run %d\n", names[c], r);
    }
  }
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
