// Session 40: the 2^10 rows. Does the plain rank sort (radix_rank_sort_kernel) of 1024-4864 keys
// finish sooner with fewer keys a warp (more warps, less counting each) or smaller blocks? (A first
// version with 4 keys a warp and blocks of 1024-32 threads: 256 best at 1024-4096 keys, 512 at
// 4864, as rank_sort_block_threads picks.) Every variant launches the library's kernel with its
// own block size and keys a warp (the kernel's Owned: apply rank_blocks.patch first), event-timed
// call by call as the benchmark times, the variants interleaved so that host drift hits all
// alike, inputs rotated through 64 copies; each variant's output is checked against std::sort
// first. An empty kernel gives the launch floor, a copy of the n keys and a fill-and-store kernel
// (the rank sort's traffic without its counting) the floors above it. `./rank_blocks [calls]`.
#include "check.cuh"
#include <gpuprim/radix_sort.cuh>
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <random>
#include <utility>
#include <vector>

__global__ void empty_kernel() {}

// Threads a block and keys a warp owns, per variant.
struct variant {
  unsigned threads;
  int owns;
};
constexpr variant variants[] = {{256, 4}, {128, 4}, {256, 2}, {128, 2}, {256, 1}, {128, 1}};

// The rank sort kernel of u32 keys (with u32 values where Pairs) for each variant's keys a warp.
template <bool Pairs, class Args = gpuprim::detail::radix_sort_args<
                          unsigned, std::conditional_t<Pairs, unsigned, gpuprim::detail::no_values>>,
          std::size_t... I>
constexpr std::array<void (*)(Args), sizeof...(I)> rank_kernels(std::index_sequence<I...>) {
  return {gpuprim::detail::radix_rank_sort_kernel<unsigned, Pairs, false, Args, variants[I].owns>...};
}

// The copy floor: thread i copies key i (one load and one store each).
__global__ void copy_kernel(const unsigned* in, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// The rank sort's memory traffic without its counting: every block fills shared memory with all
// n keys, then lanes 0-3 of each warp store four of them (the same grid of 256-thread blocks).
__global__ void fill_store_kernel(const unsigned* in, unsigned* out, int n) {
  extern __shared__ unsigned fill[];
  for (int j = threadIdx.x; j < n; j += blockDim.x) fill[j] = in[j];
  __syncthreads();
  const int first = (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * 4;
  const int lane = threadIdx.x % 32;
  if (lane < 4 && first + lane < n) out[first + lane] = fill[(first + lane * 37) % n];
}

int main(int argc, char** argv) {
  using namespace gpuprim::detail;
  const int calls = argc > 1 ? atoi(argv[1]) : 3000;
  const size_t copies = 64, nmax = 4864;
  unsigned *k, *ko, *v, *vo;
  CK(cudaMalloc(&k, copies * nmax * 4));
  CK(cudaMalloc(&ko, nmax * 4));
  CK(cudaMalloc(&v, copies * nmax * 4));
  CK(cudaMalloc(&vo, nmax * 4));
  std::mt19937 g(7);
  std::vector<unsigned> hk(copies * nmax), hv(copies * nmax);
  for (size_t i = 0; i < hk.size(); ++i) {
    hk[i] = g();
    hv[i] = unsigned(i % nmax);
  }
  CK(cudaMemcpy(k, hk.data(), hk.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(v, hv.data(), hv.size() * 4, cudaMemcpyHostToDevice));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  using kargs = radix_sort_args<unsigned, no_values>;
  using pargs = radix_sort_args<unsigned, unsigned>;
  constexpr int nt = std::size(variants);
  constexpr auto kkernels = rank_kernels<false>(std::make_index_sequence<nt>());
  constexpr auto pkernels = rank_kernels<true>(std::make_index_sequence<nt>());
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (size_t n : {size_t(1024), size_t(2048), size_t(4096), size_t(4864)}) {
    // variant q: 0..nt-1 keys with threads[q], nt..2nt-1 pairs, 2nt the empty kernel
    auto run = [&](int q, size_t c) {
      const size_t o = c * n;
      if (q == 2 * nt) {
        empty_kernel<<<1, 32, 0, s>>>();
        return;
      }
      if (q == 2 * nt + 1) {
        copy_kernel<<<unsigned((n + 255) / 256), 256, 0, s>>>(k + o, ko, int(n));
        return;
      }
      if (q == 2 * nt + 2) {
        fill_store_kernel<<<unsigned((n + 31) / 32), 256, n * 4, s>>>(k + o, ko, int(n));
        return;
      }
      const variant& var = variants[q % nt];
      const unsigned t = var.threads;
      const unsigned per_block = t / 32 * var.owns;
      const unsigned grid = unsigned((n + per_block - 1) / per_block);
      const size_t smem = rank_sort_smem_bytes<unsigned>(n);
      if (q < nt) {
        kargs a{};
        a.keys_in = k + o;
        a.keys_out = ko;
        a.n = n;
        a.begin_bit = 0;
        a.end_bit = 32;
        kkernels[q]<<<grid, t, smem, s>>>(a);
      } else {
        pargs a{};
        a.keys_in = k + o;
        a.keys_out = ko;
        a.values_in = v + o;
        a.values_out = vo;
        a.n = n;
        a.begin_bit = 0;
        a.end_bit = 32;
        pkernels[q - nt]<<<grid, t, smem, s>>>(a);
      }
    };
    for (int q = 0; q < 2 * nt; ++q) {
      CK(cudaMemset(ko, 0xff, n * 4));
      run(q, 3);
      CK(cudaStreamSynchronize(s));
      CK(cudaGetLastError());
      std::vector<unsigned> out(n), ref(hk.begin() + 3 * n, hk.begin() + 4 * n);
      std::sort(ref.begin(), ref.end());
      CK(cudaMemcpy(out.data(), ko, n * 4, cudaMemcpyDeviceToHost));
      if (out != ref) {
        printf("MISMATCH n=%zu variant %d\n", n, q);
        return 1;
      }
    }
    std::vector<float> t[2 * nt + 3];
    for (int i = 0; i < calls; ++i) {
      for (int r = 0; r < 2 * nt + 3; ++r) {
        const int q = (r + i) % (2 * nt + 3);
        const float us = event_us(s, e0, e1, [&] { run(q, size_t(i) % copies); });
        if (i >= 100) t[q].push_back(us);
      }
    }
    printf("n=%zu (library picks %u threads, %d SMs)\n", n, rank_sort_block_threads(n, sms), sms);
    for (int q = 0; q < 2 * nt + 3; ++q) {
      auto& x = t[q];
      std::sort(x.begin(), x.end());
      if (q == 2 * nt) {
        printf("  empty kernel      ");
      } else if (q == 2 * nt + 1) {
        printf("  copy n keys       ");
      } else if (q == 2 * nt + 2) {
        printf("  fill + store      ");
      } else {
        const variant& var = variants[q % nt];
        printf("  %-5s %4u threads %d a warp", q < nt ? "keys" : "pairs", var.threads, var.owns);
      }
      printf("  median %6.2f us  p10 %6.2f  p90 %6.2f\n", x[x.size() / 2], x[x.size() / 10], x[x.size() * 9 / 10]);
    }
  }
  return 0;
}
