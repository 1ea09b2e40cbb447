// Session 35: the upfront histogram (radix_column_histogram_kernel) against variants that fetch
// the next chunk early: 1 registers (software-pipelined loads), 2 an L2 prefetch of the next
// chunk, 3 both; also radix_histogram_kernel, one digit position only, and a pure read (the
// floor). u32 keys uniform and in [0, 2^20), 2^24..2^28, 4 GiB of copies rotated, 11 rounds,
// medians, every variant's counts checked against the library kernel's; m0 is the library kernel again
// (the spread between two runs of one kernel) (notes/PERF.md, session 35).
// The variants are a template parameter that hist_prefetch.patch adds to the library kernel. Build:
// mkdir -p build/exp/hp && cp -r include build/exp/hp/ && patch -d build/exp/hp -p1 < notes/experiments/hist_prefetch.patch
// nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Ibuild/exp/hp/include -o build/exp/hist notes/experiments/hist_prefetch.cu
#include <cstdio>
#include <gpuprim/radix_sort.cuh>
#include <random>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
using namespace gpuprim::detail;

__global__ void __launch_bounds__(1024) read_all(const uint4* p, std::size_t vectors, unsigned* sink) {
  unsigned x = 0;
  const std::size_t stride = std::size_t(gridDim.x) * 1024 * 4;
  for (std::size_t b = std::size_t(blockIdx.x) * 1024 * 4 + threadIdx.x; b < vectors; b += stride) {
    uint4 v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = b + j * 1024 < vectors ? p[b + j * 1024] : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int j = 0; j < 4; ++j) x += v[j].x ^ v[j].y ^ v[j].z ^ v[j].w;
  }
  if (x == 0x12345678u) *sink = x;
}

int main() {
  int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  const std::size_t total = std::size_t(1) << 30;  // 4 GiB of keys, rotated
  unsigned* pool; CK(cudaMalloc(&pool, total * 4));
  radix_sort_control* control; CK(cudaMalloc(&control, sizeof(radix_sort_control)));
  unsigned* sink; CK(cudaMalloc(&sink, 4));
  using shape = radix_column_histogram<unsigned>;
  constexpr auto lib = radix_column_histogram_kernel<unsigned, false>;
  constexpr auto old = radix_histogram_kernel<unsigned, false>;
  constexpr auto m0 = radix_column_histogram_kernel<unsigned, false, 0>;
  constexpr auto m1 = radix_column_histogram_kernel<unsigned, false, 1>;
  constexpr auto m2 = radix_column_histogram_kernel<unsigned, false, 2>;
  constexpr auto m3 = radix_column_histogram_kernel<unsigned, false, 3>;
  auto prep = [&](auto k) { CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shape::smem)));
    cudaFuncAttributes a; CK(cudaFuncGetAttributes(&a, k)); printf("regs %d local %zu\n", a.numRegs, a.localSizeBytes); };
  prep(lib); prep(m0); prep(m1); prep(m2); prep(m3);
  int old_res = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&old_res, old, radix_histogram_threads, 0));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const char* names[] = {"lib", "m0", "m1regs", "m2l2", "m3both", "old", "lib1pos", "read"};
  constexpr int variants = 8;
  for (int dist = 0; dist < 2; ++dist) {
    std::vector<unsigned> h(total);
    std::mt19937 g(11 + dist);
    for (auto& x : h) x = dist == 0 ? g() : g() & 0xFFFFFu;
    CK(cudaMemcpy(pool, h.data(), total * 4, cudaMemcpyHostToDevice));
    for (std::size_t n : {std::size_t(1) << 24, std::size_t(1) << 26, std::size_t(1) << 28}) {
      const std::size_t copies = total / n;
      std::vector<float> ts[variants];
      static unsigned long long refs[64][4][256], got[4][256];
      for (std::size_t c = 0; c < copies; ++c) {
        CK(cudaMemset(control, 0, sizeof(radix_sort_counters)));
        lib<<<std::min<unsigned>(unsigned((n + shape::chunk - 1) / shape::chunk), sms), 1024, shape::smem>>>(pool + c * n, n, 0, 32, control, nullptr, 0);
        CK(cudaMemcpy(refs[c], control->counts, sizeof(got), cudaMemcpyDeviceToHost));
      }
      int copy = 0, bad = 0;
      for (int r = 0; r < 12; ++r) for (int s = 0; s < variants; ++s) {
        const std::size_t c = copy++ % copies;
        const unsigned* keys = pool + c * n;
        CK(cudaMemset(control, 0, sizeof(radix_sort_counters)));
        const unsigned chunks = unsigned((n + shape::chunk - 1) / shape::chunk);
        const unsigned grid = std::min<unsigned>(chunks, sms);
        CK(cudaEventRecord(e0));
        switch (s) {
          case 0: lib<<<grid, 1024, shape::smem>>>(keys, n, 0, 32, control, nullptr, 0); break;
          case 1: m0<<<grid, 1024, shape::smem>>>(keys, n, 0, 32, control, nullptr, 0); break;
          case 2: m1<<<grid, 1024, shape::smem>>>(keys, n, 0, 32, control, nullptr, 0); break;
          case 3: m2<<<grid, 1024, shape::smem>>>(keys, n, 0, 32, control, nullptr, 0); break;
          case 4: m3<<<grid, 1024, shape::smem>>>(keys, n, 0, 32, control, nullptr, 0); break;
          case 5: { const std::size_t ch = std::size_t(radix_histogram_threads) * radix_histogram_items;
                    const unsigned gg = unsigned(std::min<std::size_t>((n + ch - 1) / ch, std::size_t(sms) * old_res));
                    old<<<gg, radix_histogram_threads>>>(keys, n, 0, 32, control, nullptr, 0); break; }
          case 6: lib<<<grid, 1024, shape::smem>>>(keys, n, 0, 8, control, nullptr, 0); break;
          case 7: read_all<<<sms * 2, 1024>>>(reinterpret_cast<const uint4*>(keys), n / 4, sink); break;
        }
        CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r) ts[s].push_back(ms * 1000);
        if (s <= 5) {
          CK(cudaMemcpy(got, control->counts, sizeof(got), cudaMemcpyDeviceToHost));
          if (memcmp(refs[c], got, sizeof(got)) != 0 && bad++ < 3) printf("MISMATCH variant %d n %zu dist %d\n", s, n, dist);
        }
      }
      printf("%s n=2^%d:", dist ? "bits20" : "uniform", __builtin_ctzll(n));
      float base = 0;
      for (int s = 0; s < variants; ++s) {
        std::sort(ts[s].begin(), ts[s].end()); const float m = ts[s][ts[s].size() / 2];
        if (s == 0) base = m;
        printf(" %s %.1f (%.3f)", names[s], m, m / base);
      }
      printf("\n");
    }
  }
  return 0;
}
