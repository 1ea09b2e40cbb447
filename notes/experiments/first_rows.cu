// Session 50: the first rows of a benchmark run. In bench_radix_sort at f5798e1 (H200, session 50,
// a machine just started) the rows of the first ~4 s (u32 keys 2^10-2^12) took ~2.5 us longer than
// the same work later, gpuprim and CUB alike, despite the harness's 1 s spin warm-up; the first
// pairs row (after the u64 keys at 2^28) did the same. Is it time since the process started, the
// kind of work before, or the host thread's waiting? Event-timed calls as the benchmark makes them
// (launch timing: the start event recorded on an idle GPU), 1024 u32 keys rotated through copies
// spanning 4x L2, in windows of 0.5 s; per window the median of gpuprim's sort, CUB's and an
// empty kernel, interleaved call by call.
//   phase 1  from process start (optionally after `spin` s of the harness's spin warm-up)
//   phase 2  after 2 s of big memsets and a 1 GiB cudaMalloc/cudaFree (as after a 2^28 case)
//   phase 3  after the host sleeps 5 s
// `./first_rows [spin seconds]`
// After its runs the pool and stream setup moved into check.cuh (key_pool, timing_env): compiled,
// not run again.
#include "check.cuh"
#include <gpuprim/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

__global__ void empty_kernel() {}

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

using clk = std::chrono::steady_clock;
static double since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }

int main(int argc, char** argv) {
  const double spin = argc > 1 ? atof(argv[1]) : 0.0;
  const auto t_start = clk::now();
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const std::size_t n = 1024;
  const key_pool keys(n, 11);
  const std::size_t copies = keys.copies;
  unsigned* pool = keys.data;
  unsigned *out_g, *out_c;
  CK(cudaMalloc(&out_g, n * 4));
  CK(cudaMalloc(&out_c, n * 4));
  const timing_env env;
  cudaStream_t s = env.s;
  cudaEvent_t e0 = env.e0, e1 = env.e1;
  std::size_t gb = 0, cb = 0;
  CK(gpuprim::radix_sort_keys(nullptr, gb, pool, out_g, n, 0, 32, s));
  CK(cub::DeviceRadixSort::SortKeys(nullptr, cb, pool, out_c, static_cast<int>(n), 0, 32, s));
  void *tg, *tc;
  CK(cudaMalloc(&tg, gb));
  CK(cudaMalloc(&tc, cb));
  // Correctness once, then the same calls timed.
  CK(gpuprim::radix_sort_keys(tg, gb, pool, out_g, n, 0, 32, s));
  CK(cub::DeviceRadixSort::SortKeys(tc, cb, pool, out_c, static_cast<int>(n), 0, 32, s));
  CK(cudaStreamSynchronize(s));
  {
    std::vector<unsigned> a(n), b(n);
    CK(cudaMemcpy(a.data(), out_g, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), out_c, n * 4, cudaMemcpyDeviceToHost));
    if (a != b || !std::is_sorted(a.begin(), a.end())) {
      printf("MISMATCH\n");
      return 1;
    }
  }
  printf("%s, %zu copies of %zu keys; setup done %.2f s after start\n", prop.name, copies, n, since(t_start));
  if (spin > 0) {
    const auto t = clk::now();
    while (since(t) < spin) {
      spin_kernel<<<prop.multiProcessorCount * 4, 256>>>(198000);
      CK(cudaDeviceSynchronize());
    }
    printf("spin warm-up %.1f s (the harness's)\n", spin);
  }
  std::size_t c = 0;
  auto windows = [&](const char* phase, int count) {
    const auto t_phase = clk::now();
    for (int w = 0; w < count; ++w) {
      std::vector<float> v[3];
      const auto t = clk::now();
      while (since(t) < 0.5) {
        for (int q = 0; q < 3; ++q) {
          const unsigned* in = pool + (c++ % copies) * n;
          v[q].push_back(event_us(s, e0, e1, [&] {
            if (q == 0) CK(gpuprim::radix_sort_keys(tg, gb, in, out_g, n, 0, 32, s));
            if (q == 1) CK(cub::DeviceRadixSort::SortKeys(tc, cb, in, out_c, static_cast<int>(n), 0, 32, s));
            if (q == 2) empty_kernel<<<1, 32, 0, s>>>();
          }));
        }
      }
      float med[3];
      for (int q = 0; q < 3; ++q) {
        std::sort(v[q].begin(), v[q].end());
        med[q] = v[q][v[q].size() / 2];
      }
      printf("%-8s t=%5.2f s (process %5.2f)  gpuprim %6.2f  cub %6.2f  empty %6.2f us  ratio %.2f  (%zu calls each)\n",
             phase, since(t_phase), since(t_start), med[0], med[1], med[2], med[1] / med[0], v[0].size());
    }
  };
  windows("phase1", 16);
  {
    void* big = nullptr;
    CK(cudaMalloc(&big, std::size_t(1) << 30));
    const auto t = clk::now();
    while (since(t) < 2.0) {
      CK(cudaMemsetAsync(big, c & 0xff, std::size_t(1) << 30, s));
      CK(cudaStreamSynchronize(s));
      ++c;
    }
    CK(cudaFree(big));
  }
  windows("phase2", 8);
  std::this_thread::sleep_for(std::chrono::seconds(5));
  windows("phase3", 6);
  return 0;
}
