// Build: nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Iinclude -o f32_prof notes/experiments/f32_prof.cu
// f32 vs u32 keys at 16384 through the bucketed rank sort: random bit patterns (the benchmark's f32
// generator: exponent 255 folded onto 127) against positive integer-valued floats and u32 keys.
#include <gpuprim/radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include "check.cuh"
template <class K> float time_sort(const std::vector<K>& h, int reps) {
  size_t n = h.size();
  K *in, *out; CK(cudaMalloc(&in, n * sizeof(K))); CK(cudaMalloc(&out, n * sizeof(K)));
  CK(cudaMemcpy(in, h.data(), n * sizeof(K), cudaMemcpyHostToDevice));
  size_t tb = 0; CK(gpuprim::radix_sort_keys(nullptr, tb, in, out, n));
  void* t = nullptr; CK(cudaMalloc(&t, tb));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<float> ts;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(e0)); CK(gpuprim::radix_sort_keys(t, tb, in, out, n));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    ts.push_back(ms * 1000);
  }
  cudaFree(in); cudaFree(out); cudaFree(t);
  std::sort(ts.begin(), ts.end()); return ts[ts.size() / 2];
}
int main(int argc, char** argv) {
  size_t n = argc > 1 ? atol(argv[1]) : 16384;
  int reps = 101;
  std::mt19937 g(11);
  std::vector<unsigned> u(n); for (auto& x : u) x = g();
  std::vector<float> fb(n), fi(n), fpos(n);
  for (size_t i = 0; i < n; ++i) {
    unsigned b = g(); if ((b & 0x7f800000u) == 0x7f800000u) b ^= 0x40000000u; std::memcpy(&fb[i], &b, 4);
    fi[i] = float(g());
    unsigned p = g() & 0x7fffffffu;
    if ((p & 0x7f800000u) == 0x7f800000u) p ^= 0x40000000u;
    std::memcpy(&fpos[i], &p, 4);
  }
  for (int k = 0; k < 2; ++k) {
    printf("n=%zu u32 random %.2f us | f32 random bits %.2f | f32 positive random bits %.2f"
           " | f32 of integers %.2f\n", n,
           time_sort(u, reps), time_sort(fb, reps), time_sort(fpos, reps), time_sort(fi, reps));
  }
  return 0;
}
