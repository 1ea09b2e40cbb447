// Session 50: where the ~1.85 us between an empty launch and gpuprim's sort of 1024 u32 keys go
// (launch timing; first_rows.cu: gpuprim = empty + 1.85 us and CUB = empty + 9.0 us in every
// 0.5 s window, while the empty launch itself drifted between 4.8 and 6.2 us). Variants
// interleaved call by call, event-timed as the benchmark times them, inputs rotated through
// copies spanning 4x L2:
//   empty 1x32            the launch floor
//   empty 32x256 +4K      the sort's grid and shared memory, no work
//   copy                  1024 keys, one a thread (4 blocks of 256)
//   fill+store            the sort's traffic: 32 blocks each load all 1024 keys (4 a thread, all
//                         in flight), store them to shared memory, barrier, lanes 0-3 of each warp
//                         store one key each
//   library               gpuprim::radix_sort_keys (workspace form)
//   kernel                radix_rank_sort_kernel launched directly (<<<>>>), same function
//   kernel, attr not set  the same kernel code as another instantiation whose dynamic shared
//                         memory limit was never raised (the library raises it to 64 KiB)
//   cub                   cub::DeviceRadixSort::SortKeys
// `./small_floor [rounds]`
// After its runs the pool, stream and check moved into check.cuh (key_pool, timing_env,
// sorts_copy; session 54: whole_u32_sort, interleaved_times): compiled, not run again. `kernel` is now the general form (SmallSlices = 0).
#include "check.cuh"
#include <gpuprim/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace gd = gpuprim::detail;
using args_t = gd::radix_sort_args<unsigned, gd::no_values>;
// The same layout, another type: another instantiation of the kernel.
struct other_args : args_t {};

__global__ void empty_kernel() {}

__global__ void copy_kernel(const unsigned* in, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void fill_store_kernel(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n) {
  extern __shared__ unsigned fill[];
  unsigned w[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int j = threadIdx.x + r * blockDim.x;
    w[r] = j < n ? in[j] : ~0u;
  }
#pragma unroll
  for (int r = 0; r < 4; ++r) fill[threadIdx.x + r * blockDim.x] = w[r];
  __syncthreads();
  const int first = (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * 4;
  const int lane = threadIdx.x % 32;
  if (lane < 4 && first + lane < n) out[first + lane] = fill[(first + lane * 37) % n];
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 15000;
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const std::size_t n = 1024;
  const key_pool keys(n, 5);
  const std::size_t copies = keys.copies;
  unsigned* pool = keys.data;
  unsigned* out;
  CK(cudaMalloc(&out, n * 4));
  const timing_env env;
  cudaStream_t s = env.s;
  std::size_t gb = 0, cb = 0;
  CK(gpuprim::radix_sort_keys(nullptr, gb, pool, out, n, 0, 32, s));
  CK(cub::DeviceRadixSort::SortKeys(nullptr, cb, pool, out, static_cast<int>(n), 0, 32, s));
  void *tg, *tc;
  CK(cudaMalloc(&tg, gb + 1));
  CK(cudaMalloc(&tc, cb));
  const unsigned threads = gd::rank_sort_block_threads(n, prop.multiProcessorCount);
  const unsigned grid = static_cast<unsigned>((n + threads / 32 * 4 - 1) / (threads / 32 * 4));
  const std::size_t smem = gd::rank_sort_smem_bytes<unsigned>(n);
  constexpr auto kernel = gd::radix_rank_sort_kernel<unsigned, false, false, args_t>;
  constexpr auto kernel_other = gd::radix_rank_sort_kernel<unsigned, false, false, other_args>;
  printf("%s: rank sort of %zu keys as %u blocks of %u threads, %zu B of shared memory\n", prop.name, n, grid,
         threads, smem);
  const char* names[] = {"empty 1x32",   "empty 32x256 +4K", "copy", "fill+store", "library", "kernel",
                         "kernel, attr not set", "cub"};
  constexpr int variants = 8;
  std::size_t c = 0;
  auto run = [&](int q, const unsigned* in) {
    const args_t a = whole_u32_sort<args_t>(in, out, n);
    switch (q) {
      case 0: empty_kernel<<<1, 32, 0, s>>>(); break;
      case 1: empty_kernel<<<grid, threads, smem, s>>>(); break;
      case 2: copy_kernel<<<unsigned((n + 255) / 256), 256, 0, s>>>(in, out, int(n)); break;
      case 3: fill_store_kernel<<<grid, threads, smem, s>>>(in, out, int(n)); break;
      case 4: CK(gpuprim::radix_sort_keys(tg, gb, in, out, n, 0, 32, s)); break;
      case 5: kernel<<<grid, threads, smem, s>>>(a); break;
      case 6: {
        other_args o{};
        static_cast<args_t&>(o) = a;
        kernel_other<<<grid, threads, smem, s>>>(o);
        break;
      }
      case 7: CK(cub::DeviceRadixSort::SortKeys(tc, cb, in, out, static_cast<int>(n), 0, 32, s)); break;
    }
  };
  // Every sorting variant must sort.
  for (int q : {4, 5, 6, 7}) {
    if (!sorts_copy(keys, 3, out, s, [&](const unsigned* in) { run(q, in); })) {
      printf("MISMATCH variant %s\n", names[q]);
      return 1;
    }
  }
  const auto t = interleaved_times(rounds, variants, env, [&](int q) { run(q, pool + (c++ % copies) * n); });
  std::vector<float> med(variants);
  for (int q = 0; q < variants; ++q) med[q] = t[q][t[q].size() / 2];
  for (int q = 0; q < variants; ++q) {
    auto& x = t[q];
    printf("  %-22s median %6.2f us (empty + %5.2f)  p10 %6.2f  p90 %6.2f\n", names[q], med[q], med[q] - med[0],
           x[x.size() / 10], x[x.size() * 9 / 10]);
  }
  return 0;
}
