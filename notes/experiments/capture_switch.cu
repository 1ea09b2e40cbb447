// Session 42: what the SWITCH node of a captured sort (launch_onesweep_with: the passes after the
// first under one conditional node that the upfront histogram sets) costs and saves on the GPU.
// For each case, two graphs of the same sort are captured, one with the switch (the library's
// default) and one with the passes as plain launches (detail::radix_capture_switch_override = 0),
// checked against std::sort, then replayed alternately and event-timed one replay at a time
// (medians). Inputs are not rotated: both graphs read the same buffers, so L2 favours neither.
// Cases: u32 keys, u64 keys and u32/u32 pairs, uniform and in [0, 2^20), 2^20 to 2^28 (u64 to 2^26).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -o capture_switch notes/experiments/capture_switch.cu
// Run: ./capture_switch [replays]
#include "check.cuh"
#include <gpuprim/radix_sort.cuh>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

struct sort_case {
  const char* name;
  bool wide;   // u64 keys (else u32)
  bool pairs;  // u32 values
  bool low20;  // keys in [0, 2^20): the passes above bit 24 skipped
  std::size_t n;
};

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class Key>
int run_case(const sort_case& c, int replays, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, std::mt19937_64& rng) {
  const std::size_t n = c.n;
  std::vector<Key> hk(n);
  std::vector<std::uint32_t> hv(n);
  for (std::size_t i = 0; i < n; ++i) {
    hk[i] = c.low20 ? static_cast<Key>(rng() & 0xfffff) : static_cast<Key>(rng());
    hv[i] = static_cast<std::uint32_t>(i);
  }
  Key *k, *ko;
  std::uint32_t *v = nullptr, *vo = nullptr;
  CK(cudaMalloc(&k, n * sizeof(Key)));
  CK(cudaMalloc(&ko, n * sizeof(Key)));
  if (c.pairs) {
    CK(cudaMalloc(&v, n * 4));
    CK(cudaMalloc(&vo, n * 4));
    CK(cudaMemcpy(v, hv.data(), n * 4, cudaMemcpyHostToDevice));
  }
  CK(cudaMemcpy(k, hk.data(), n * sizeof(Key), cudaMemcpyHostToDevice));
  auto sort = [&](void* temp, std::size_t& bytes) {
    return c.pairs ? gpuprim::radix_sort_pairs(temp, bytes, k, ko, v, vo, n, 0, 8 * int(sizeof(Key)), s)
                   : gpuprim::radix_sort_keys(temp, bytes, k, ko, n, 0, 8 * int(sizeof(Key)), s);
  };
  std::size_t bytes = 0;
  CK(sort(nullptr, bytes));
  void* temp;
  CK(cudaMalloc(&temp, bytes));
  std::vector<Key> ref = hk;
  std::sort(ref.begin(), ref.end());
  cudaGraphExec_t exec[2];
  for (int form = 0; form < 2; ++form) {  // 0: the switch, 1: plain launches
    gpuprim::detail::radix_capture_switch_override.store(form == 0 ? -1 : 0);
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    const cudaError_t captured = sort(temp, bytes);
    CK(cudaStreamEndCapture(s, &g));
    CK(captured);
    CK(cudaGraphInstantiate(&exec[form], g, 0));
    CK(cudaGraphDestroy(g));
    CK(cudaMemset(ko, 0xff, n * sizeof(Key)));
    CK(cudaGraphLaunch(exec[form], s));
    CK(cudaStreamSynchronize(s));
    std::vector<Key> out(n);
    CK(cudaMemcpy(out.data(), ko, n * sizeof(Key), cudaMemcpyDeviceToHost));
    if (out != ref) {
      printf("MISMATCH %s n=%zu form %d\n", c.name, n, form);
      return 1;
    }
  }
  gpuprim::detail::radix_capture_switch_override.store(-1);
  std::vector<float> t[2];
  for (int r = 0; r < replays; ++r) {
    for (int form = 0; form < 2; ++form) {
      t[form].push_back(event_us(s, e0, e1, [&] { CK(cudaGraphLaunch(exec[form], s)); }));
    }
  }
  const float a = median(t[0]), b = median(t[1]);
  printf("%-24s %10zu %12.1f %12.1f %8.3f\n", c.name, n, a, b, a / b);
  for (cudaGraphExec_t x : exec) CK(cudaGraphExecDestroy(x));
  CK(cudaFree(temp));
  CK(cudaFree(k));
  CK(cudaFree(ko));
  if (c.pairs) {
    CK(cudaFree(v));
    CK(cudaFree(vo));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int replays = argc > 1 ? std::atoi(argv[1]) : 51;
  const sort_case cases[] = {
      {"u32 keys uniform", false, false, false, std::size_t(1) << 20},
      {"u32 keys uniform", false, false, false, std::size_t(1) << 22},
      {"u32 keys uniform", false, false, false, std::size_t(1) << 24},
      {"u32 keys uniform", false, false, false, std::size_t(1) << 26},
      {"u32 keys uniform", false, false, false, std::size_t(1) << 28},
      {"u32 keys [0, 2^20)", false, false, true, std::size_t(1) << 20},
      {"u32 keys [0, 2^20)", false, false, true, std::size_t(1) << 22},
      {"u32 keys [0, 2^20)", false, false, true, std::size_t(1) << 24},
      {"u32 keys [0, 2^20)", false, false, true, std::size_t(1) << 26},
      {"u32 keys [0, 2^20)", false, false, true, std::size_t(1) << 28},
      {"u64 keys uniform", true, false, false, std::size_t(1) << 20},
      {"u64 keys uniform", true, false, false, std::size_t(1) << 22},
      {"u64 keys uniform", true, false, false, std::size_t(1) << 24},
      {"u64 keys uniform", true, false, false, std::size_t(1) << 26},
      {"u64 keys [0, 2^20)", true, false, true, std::size_t(1) << 20},
      {"u64 keys [0, 2^20)", true, false, true, std::size_t(1) << 22},
      {"u64 keys [0, 2^20)", true, false, true, std::size_t(1) << 24},
      {"u64 keys [0, 2^20)", true, false, true, std::size_t(1) << 26},
      {"u32/u32 pairs uniform", false, true, false, std::size_t(1) << 20},
      {"u32/u32 pairs uniform", false, true, false, std::size_t(1) << 22},
      {"u32/u32 pairs uniform", false, true, false, std::size_t(1) << 24},
      {"u32/u32 pairs uniform", false, true, false, std::size_t(1) << 26},
      {"u32/u32 pairs uniform", false, true, false, std::size_t(1) << 28},
      {"u32/u32 pairs [0, 2^20)", false, true, true, std::size_t(1) << 20},
      {"u32/u32 pairs [0, 2^20)", false, true, true, std::size_t(1) << 22},
      {"u32/u32 pairs [0, 2^20)", false, true, true, std::size_t(1) << 24},
      {"u32/u32 pairs [0, 2^20)", false, true, true, std::size_t(1) << 26},
      {"u32/u32 pairs [0, 2^20)", false, true, true, std::size_t(1) << 28},
  };

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::mt19937_64 rng(42);
  printf("%-24s %10s %12s %12s %8s\n", "case", "n", "switch us", "launches us", "ratio");
  for (const sort_case& c : cases) {
    const int r = c.wide ? run_case<std::uint64_t>(c, replays, s, e0, e1, rng)
                         : run_case<std::uint32_t>(c, replays, s, e0, e1, rng);
    if (r != 0) return r;
  }
  return 0;
}
