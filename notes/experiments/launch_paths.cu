// Session 54: the 2^10 rows' launch floor. The small rank sort kernel (the library's unrolled
// form, 1024 u32 keys) launched through each host path, event-timed call by call as the benchmark
// times it (variants interleaved, inputs rotated through copies spanning 4x L2), and the host time
// of 200 queued launches of each (medians of 21 batches):
//   empty 1x32          the launch floor (<<<>>>)
//   library             gpuprim::radix_sort_keys (workspace form): cudaLaunchKernelEx, no attributes
//   <<<>>>              the kernel, the triple-chevron launch
//   LaunchKernel(sym)   cudaLaunchKernel with the kernel's host stub (the runtime looks it up)
//   LaunchKernel(ker)   cudaLaunchKernel with the cudaKernel_t from cudaGetKernel, cached
//   cuLaunch(func)      the driver's cuLaunchKernel (entry point from the runtime) with the
//                       CUfunction from cudaGetFuncBySymbol
//   cuLaunch(ker)       cuLaunchKernel with the CUkernel (cudaGetKernel) passed as a CUfunction
//   cub                 cub::DeviceRadixSort::SortKeys
// Every path is checked against std::sort first. `./launch_paths [rounds]`; build:
// nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -o build/exp/launch_paths notes/experiments/launch_paths.cu
// Ran twice (notes/data/h200_launch_paths/): runtime_library.log with 5c7d2e8's library (its call
// through cudaLaunchKernelEx), driver_library.log with the library's plain launches through the
// driver (session 54's change), where `library` is that path. After its runs the argument setup and
// the interleaved timing moved into check.cuh (whole_u32_sort, interleaved_times), shared with
// small_floor.cu: compiled, not run again.
#include "check.cuh"
#include <cuda.h>
#include <gpuprim/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace gd = gpuprim::detail;
using args_t = gd::radix_sort_args<unsigned, gd::no_values>;
using cu_launch_t = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 CUstream, void**, void**);

__global__ void empty_kernel() {}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 4000;
  CK(cudaSetDevice(0));
  const std::size_t n = 1024;
  const key_pool keys(n, 7);
  unsigned* out;
  CK(cudaMalloc(&out, n * 4));
  const timing_env env;
  cudaStream_t s = env.s;
  std::size_t gb = 0, cb = 0;
  CK(gpuprim::radix_sort_keys(nullptr, gb, keys.data, out, n, 0, 32, s));
  CK(cub::DeviceRadixSort::SortKeys(nullptr, cb, keys.data, out, static_cast<int>(n), 0, 32, s));
  void *tg, *tc;
  CK(cudaMalloc(&tg, gb + 1));
  CK(cudaMalloc(&tc, cb));
  constexpr auto kernel = gd::radix_rank_sort_kernel<unsigned, false, false, args_t, gd::rank_sort_small_slices>;
  constexpr unsigned threads = gd::rank_sort_small_threads;
  constexpr unsigned per_block = threads / 32 * gd::rank_sort_small_keys_per_warp;
  const unsigned grid = static_cast<unsigned>((n + per_block - 1) / per_block);
  const std::size_t smem = gd::rank_sort_smem_bytes<unsigned>(gd::rank_sort_small_items<unsigned>);
  void* fp = nullptr;
  cudaDriverEntryPointQueryResult q{};
  CK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fp, 12000, cudaEnableDefault, &q));
  const auto cu_launch = reinterpret_cast<cu_launch_t>(fp);
  cudaFunction_t func;
  CK(cudaGetFuncBySymbol(&func, reinterpret_cast<const void*>(kernel)));
  cudaKernel_t ker;
  CK(cudaGetKernel(&ker, reinterpret_cast<const void*>(kernel)));
  printf("1024 u32 keys: %u blocks of %u threads, %zu B of shared memory\n", grid, threads, smem);

  const char* names[] = {"empty 1x32",        "library",         "<<<>>>",        "LaunchKernel(sym)",
                         "LaunchKernel(ker)", "cuLaunch(func)", "cuLaunch(ker)", "cub"};
  constexpr int variants = 8;
  auto cu = [&](CUfunction f, void** params) {
    if (cu_launch(f, grid, 1, 1, threads, 1, 1, unsigned(smem), s, params, nullptr) != CUDA_SUCCESS) {
      printf("cuLaunchKernel failed\n");
      exit(1);
    }
  };
  auto run = [&](int v, const unsigned* in) {
    args_t a = whole_u32_sort<args_t>(in, out, n);
    void* params[] = {&a};
    switch (v) {
      case 0: empty_kernel<<<1, 32, 0, s>>>(); break;
      case 1: CK(gpuprim::radix_sort_keys(tg, gb, in, out, n, 0, 32, s)); break;
      case 2: kernel<<<grid, threads, smem, s>>>(a); break;
      case 3: CK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, threads, params, smem, s)); break;
      case 4: CK(cudaLaunchKernel(reinterpret_cast<const void*>(ker), grid, threads, params, smem, s)); break;
      case 5: cu(reinterpret_cast<CUfunction>(func), params); break;
      case 6: cu(reinterpret_cast<CUfunction>(ker), params); break;
      case 7: CK(cub::DeviceRadixSort::SortKeys(tc, cb, in, out, static_cast<int>(n), 0, 32, s)); break;
    }
  };
  for (int v = 1; v < variants; ++v) {
    if (!sorts_copy(keys, 3 + v, out, s, [&](const unsigned* in) { run(v, in); })) {
      printf("MISMATCH %s\n", names[v]);
      return 1;
    }
  }
  std::size_t c = 0;
  for (int pass = 0; pass < 2; ++pass) {
    // Host time a call: 200 queued calls, then a sync; medians of 21 batches.
    for (int v = 0; v < variants; ++v) {
      std::vector<double> h;
      for (int b = 0; b < 23; ++b) {
        CK(cudaStreamSynchronize(s));
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 200; ++i) run(v, keys.copy(c++));
        const auto t1 = std::chrono::steady_clock::now();
        CK(cudaStreamSynchronize(s));
        if (b >= 2) h.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 200);
      }
      std::sort(h.begin(), h.end());
      printf("pass %d host  %-18s %5.2f us a call (min %5.2f)\n", pass, names[v], h[h.size() / 2], h[0]);
    }
    // Event-timed single calls, interleaved.
    const auto t = interleaved_times(rounds, variants, env, [&](int v) { run(v, keys.copy(c++)); });
    std::vector<float> med(variants);
    for (int v = 0; v < variants; ++v) med[v] = t[v][t[v].size() / 2];
    for (int v = 0; v < variants; ++v) {
      const auto& x = t[v];
      printf("pass %d event %-18s median %6.2f us (empty + %5.2f)  p10 %6.2f  p90 %6.2f  cub/this %.3f\n", pass,
             names[v], med[v], med[v] - med[0], x[x.size() / 10], x[x.size() * 9 / 10], med[7] / med[v]);
    }
  }
  return 0;
}
