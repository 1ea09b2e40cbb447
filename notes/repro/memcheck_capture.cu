// Session 52: is the memcheck fault of sort_device's "a captured sort launches no skipped pass"
// (docs/reliability.md, open since session 51) the captured graph's SWITCH node, or the sort?
// One process: a sort of 300,007 u32 keys (or u32/u32 pairs) captured into a graph either with
// the passes after the first under the SWITCH node (form `switch`: detail::radix_capture_switch_
// override = 1, as the test forces it) or as plain launches (form `plain`: = 0), replayed
// `replays` times with keys whose differing digit positions change from replay to replay (all 4,
// 3: [0, 2^20), 1: one byte, none: all equal; as the test's replays), each replay's output
// poisoned first and checked against std::stable_sort. Prints one line: PASS or FAIL with the
// first error (a CUDA error names the replay and its kind).
// Build (here; the GPU machine only runs it):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -o build/exp/memcheck_capture notes/repro/memcheck_capture.cu
// Run: [REPRO_SYNC_AFTER_ALLOC=1] [REPRO_UPLOAD=1] memcheck_capture switch|plain keys|pairs [replays] [seed]
// H200, CUDA 13.0, driver 580.159.04, the library at 5c7d2e8, through memcheck_capture.sh (8
// processes at once under memcheck): the switch form faulted in 3 of 440 runs mixed with the plain
// form, and in 5 of 544 (CUDA_MODULE_LOADING=LAZY), 8 of 528 (EAGER), 4 of 512 (no sync) and 2 of
// 528 (REPRO_SYNC_AFTER_ALLOC=1) when only switch forms ran; the plain form 0 of 440; without a
// tool 0 of 136. Every fault: cudaErrorIllegalAddress at the first replay's sync, no access
// reported by memcheck (docs/reliability.md, session 52). Session 53 reproduced the fault without
// gpuprim (notes/repro/conditional_minimal.cu): a SWITCH graph of trivial kernels.
#include <gpuprim/radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace {

bool ok(cudaError_t e, const char* what, int replay, int kind) {
  if (e == cudaSuccess) return true;
  std::printf("FAIL %s: %s (%s) at replay %d, kind %d\n", what, cudaGetErrorName(e), cudaGetErrorString(e), replay,
              kind);
  return false;
}

std::vector<std::uint32_t> keys_of_kind(int kind, std::size_t n, std::mt19937_64& rng) {
  std::vector<std::uint32_t> k(n);
  const auto fixed = static_cast<std::uint32_t>(rng());
  for (auto& x : k) {
    const auto r = static_cast<std::uint32_t>(rng());
    x = kind == 0 ? r : kind == 1 ? (r & 0xfffffu) : kind == 2 ? ((fixed & ~0xff00u) | (r & 0xff00u)) : fixed;
  }
  return k;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::printf("usage: %s switch|plain keys|pairs [replays] [seed]\n", argv[0]);
    return 2;
  }
  const bool with_switch = std::strcmp(argv[1], "switch") == 0;
  const bool pairs = std::strcmp(argv[2], "pairs") == 0;
  const int replays = argc > 3 ? std::atoi(argv[3]) : 10;
  const unsigned long long seed = argc > 4 ? std::strtoull(argv[4], nullptr, 0) : std::random_device{}();
  const std::size_t n = 300007, guard = 64;
  std::mt19937_64 rng(seed);

  cudaStream_t s;
  if (!ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream", -1, -1)) return 1;
  std::uint32_t *k = nullptr, *ko = nullptr, *v = nullptr, *vo = nullptr;
  void* temp = nullptr;
  std::size_t bytes = 0;
  auto sort = [&](void* t, std::size_t& b) {
    return pairs ? gpuprim::radix_sort_pairs(t, b, k, ko, v, vo, n, 0, 32, s)
                 : gpuprim::radix_sort_keys(t, b, k, ko, n, 0, 32, s);
  };
  if (!ok(cudaMalloc(&k, n * 4), "malloc", -1, -1) || !ok(cudaMalloc(&ko, (n + guard) * 4), "malloc", -1, -1) ||
      !ok(cudaMalloc(&v, n * 4), "malloc", -1, -1) || !ok(cudaMalloc(&vo, (n + guard) * 4), "malloc", -1, -1) ||
      !ok(sort(nullptr, bytes), "size query", -1, -1) || !ok(cudaMalloc(&temp, bytes), "malloc", -1, -1)) {
    return 1;
  }
  // REPRO_SYNC_AFTER_ALLOC=1: a device sync between the allocations and the capture
  // (NVIDIA/warp#1406: the sanitizer's error with a conditional graph goes away with one).
  const char* sync_env = std::getenv("REPRO_SYNC_AFTER_ALLOC");
  const bool sync_after_alloc = sync_env != nullptr && std::strcmp(sync_env, "1") == 0;
  if (sync_after_alloc && !ok(cudaDeviceSynchronize(), "sync after alloc", -1, -1)) return 1;
  gpuprim::detail::radix_capture_switch_override.store(with_switch ? 1 : 0);
  cudaGraph_t g = nullptr;
  cudaGraphExec_t exec = nullptr;
  if (!ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "capture", -1, -1)) return 1;
  const cudaError_t captured = sort(temp, bytes);
  if (!ok(cudaStreamEndCapture(s, &g), "end capture", -1, -1) || !ok(captured, "captured sort", -1, -1) ||
      !ok(cudaGraphInstantiate(&exec, g, 0), "instantiate", -1, -1)) {
    return 1;
  }
  std::size_t count = 0;
  (void)cudaGraphGetNodes(g, nullptr, &count);
  std::vector<cudaGraphNode_t> nodes(count);
  (void)cudaGraphGetNodes(g, nodes.data(), &count);
  int conditionals = 0;
  for (auto node : nodes) {
    cudaGraphNodeType type{};
    (void)cudaGraphNodeGetType(node, &type);
    conditionals += type == cudaGraphNodeTypeConditional;
  }
  if (conditionals != (with_switch ? 1 : 0)) {
    std::printf("FAIL the graph has %d conditional nodes\n", conditionals);
    return 1;
  }

  // REPRO_UPLOAD=1: upload the graph before the first replay, so that the replay that faults is no
  // longer the one that uploads it. Session 53 (8 at a time, switch only): 4 of 464 faulted without
  // the upload, 4 of 464 and 0 of 224 with it: the upload does not matter.
  const char* upload_env = std::getenv("REPRO_UPLOAD");
  if (upload_env != nullptr && std::strcmp(upload_env, "1") == 0 &&
      (!ok(cudaGraphUpload(exec, s), "upload", -1, -1) || !ok(cudaStreamSynchronize(s), "upload sync", -1, -1))) {
    return 1;
  }
  std::vector<std::uint32_t> vals(n);
  std::iota(vals.begin(), vals.end(), 0u);
  for (int r = 0; r < replays; ++r) {
    const int kind = r % 4;
    const auto keys = keys_of_kind(kind, n, rng);
    if (!ok(cudaMemcpy(k, keys.data(), n * 4, cudaMemcpyHostToDevice), "upload", r, kind) ||
        !ok(cudaMemcpy(v, vals.data(), n * 4, cudaMemcpyHostToDevice), "upload", r, kind) ||
        !ok(cudaMemset(ko, 0xCD, (n + guard) * 4), "poison", r, kind) ||
        !ok(cudaMemset(vo, 0xCD, (n + guard) * 4), "poison", r, kind) ||
        !ok(cudaDeviceSynchronize(), "sync before replay", r, kind) || !ok(cudaGraphLaunch(exec, s), "launch", r, kind) ||
        !ok(cudaStreamSynchronize(s), "replay sync", r, kind)) {
      return 1;
    }
    std::vector<std::uint32_t> got(n + guard), got_v(n + guard), order(n);
    if (!ok(cudaMemcpy(got.data(), ko, (n + guard) * 4, cudaMemcpyDeviceToHost), "download", r, kind) ||
        !ok(cudaMemcpy(got_v.data(), vo, (n + guard) * 4, cudaMemcpyDeviceToHost), "download", r, kind)) {
      return 1;
    }
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
    for (std::size_t i = 0; i < n + guard; ++i) {
      const bool key_bad = i < n ? got[i] != keys[order[i]] : got[i] != 0xCDCDCDCDu;
      const bool value_bad = pairs && (i < n ? got_v[i] != order[i] : got_v[i] != 0xCDCDCDCDu);
      if (key_bad || value_bad) {
        std::printf("FAIL wrong output at %zu (replay %d, kind %d)\n", i, r, kind);
        return 1;
      }
    }
  }
  std::printf("PASS %s %s, %d replays, seed %llu%s\n", argv[1], argv[2], replays, seed,
              sync_after_alloc ? ", synced after the allocations" : "");
  return 0;
}
