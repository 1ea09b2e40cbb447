// Session 53: does the memcheck fault of the captured sort's SWITCH graph (docs/reliability.md;
// notes/repro/memcheck_capture.cu) need gpuprim at all? This program has no gpuprim code. It
// captures the same graph shape the sort captures, with trivial kernels:
//   - `head` (like the upfront histogram) lets its dependents start (griddepcontrol.launch_dependents),
//     writes a = f(in), and its thread 0 sets the SWITCH handle from a device word;
//   - `step` slot 0 (like pass 0), launched after it with programmatic stream serialization where
//     `pdl`, waits for it (griddepcontrol.wait) and writes b = a + 1;
//   - a SWITCH node of 4 bodies; body k holds steps 1..k chained by programmatic edges (`pdl`) or
//     plain ones (`plain`), each ping-ponging between a and b with its own dynamic shared memory
//     (64 KB, as the sort's passes use tens of KB).
// Each replay sets the device word to 3, 2, 0, 0 (as a uniform, [0, 2^20), one-byte and all-equal
// sort would), poisons the buffers and checks the result on the host.
// Build (here; the GPU machine only runs it):
//   nvcc -O3 -std=c++17 -arch=sm_90 -o build/exp/conditional_minimal notes/repro/conditional_minimal.cu
// `noswitch` captures steps 1..3 as launches of their own instead (the same edges), no conditional
// node, and every replay runs all of them.
// Run: conditional_minimal switch|noswitch pdl|plain [replays] [seed]   (prints PASS or FAIL ...)
// Under memcheck, 8 at a time: EXE=build/exp/conditional_minimal COMBOS="switch pdl;switch plain"
//   TOOL=memcheck P=8 bash notes/repro/memcheck_capture.sh
// H200, CUDA 13.0, driver 580.159.04, compute-sanitizer 2025.3.1.0 (session 53), memcheck, 8 at a
// time: `switch pdl` faulted in 36 of 624 runs, `switch plain` in 6 of 248; side by side, `noswitch
// pdl` 0 of 412 and `switch pdl` 19 of 412. Every fault: cudaErrorIllegalAddress at the first
// replay's cudaStreamSynchronize, no access reported by memcheck (the sort's signature). Without
// the tool, 8 at a time: `switch pdl` 0 of 440; under memcheck one at a time: 0 of 124.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

constexpr int kThreads = 256;
constexpr unsigned kCases = 4;
constexpr std::size_t kSmem = 64 * 1024;

__device__ __forceinline__ void let_dependents_start() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }
__device__ __forceinline__ void wait_for_previous() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

__global__ void head(const std::uint32_t* in, std::uint32_t* a, std::size_t n, const unsigned* select,
                     cudaGraphConditionalHandle handle, int has_switch) {
  let_dependents_start();
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = in[i] * 2654435761u + 7u;
  if (has_switch && i == 0) cudaGraphSetConditional(handle, *select);
}

// dst = src + slot + 1, through shared memory (every thread writes its word and reads a neighbour's).
__global__ void step(const std::uint32_t* src, std::uint32_t* dst, std::size_t n, unsigned slot) {
  extern __shared__ std::uint32_t tile[];
  wait_for_previous();
  let_dependents_start();
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned words = kSmem / sizeof(std::uint32_t);
  for (unsigned w = threadIdx.x; w < words; w += blockDim.x) tile[w] = w;
  __syncthreads();
  const unsigned t = tile[(threadIdx.x * 33u) % words];
  if (i < n) dst[i] = src[i] + slot + 1u + (t - (threadIdx.x * 33u) % words);
}

bool ok(cudaError_t e, const char* what, int replay) {
  if (e == cudaSuccess) return true;
  std::printf("FAIL %s: %s (%s) at replay %d\n", what, cudaGetErrorName(e), cudaGetErrorString(e), replay);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::printf("usage: %s switch|noswitch pdl|plain [replays] [seed]\n", argv[0]);
    return 2;
  }
  const bool with_switch = std::strcmp(argv[1], "switch") == 0;
  const bool pdl = std::strcmp(argv[2], "pdl") == 0;
  const int replays = argc > 3 ? std::atoi(argv[3]) : 8;
  const unsigned long long seed = argc > 4 ? std::strtoull(argv[4], nullptr, 0) : std::random_device{}();
  const std::size_t n = 300007;
  const unsigned grid = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  std::mt19937_64 rng(seed);

  cudaStream_t s;
  std::uint32_t *in = nullptr, *a = nullptr, *b = nullptr;
  unsigned* select = nullptr;
  if (!ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream", -1) ||
      !ok(cudaMalloc(&in, n * 4), "malloc", -1) || !ok(cudaMalloc(&a, n * 4), "malloc", -1) ||
      !ok(cudaMalloc(&b, n * 4), "malloc", -1) || !ok(cudaMalloc(&select, 4), "malloc", -1) ||
      !ok(cudaFuncSetAttribute(step, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem)), "smem", -1)) {
    return 1;
  }

  // Capture: head, step 0 (programmatic where pdl), then the SWITCH node with its bodies; or, for
  // `noswitch`, steps 1..3 as launches of their own (the same edges), no conditional node.
  cudaGraph_t g = nullptr;
  cudaGraphExec_t exec = nullptr;
  if (!ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "capture", -1)) return 1;
  cudaStreamCaptureStatus status{};
  cudaGraph_t graph = nullptr;
  cudaGraphConditionalHandle handle = 0;
  cudaError_t e = cudaStreamGetCaptureInfo(s, &status, nullptr, &graph);
  if (e == cudaSuccess && with_switch) {
    e = cudaGraphConditionalHandleCreate(&handle, graph, kCases - 1, cudaGraphCondAssignDefault);
  }
  if (e == cudaSuccess) {
    head<<<grid, kThreads, 0, s>>>(in, a, n, select, handle, with_switch ? 1 : 0);
    e = cudaGetLastError();
  }
  // Step `slot` as a launch of its own (programmatic stream serialization where pdl).
  auto launch_step = [&](unsigned slot) {
    const std::uint32_t* src = slot % 2 == 1 ? b : a;  // step 0: a to b; odd: b to a; even: a to b
    std::uint32_t* dst = slot % 2 == 1 ? a : b;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = kSmem;
    config.stream = s;
    cudaLaunchAttribute attribute = {};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = pdl ? 1 : 0;
    config.attrs = &attribute;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, step, src, dst, n, slot);
  };
  if (e == cudaSuccess) e = launch_step(0);
  for (unsigned slot = 1; slot < kCases && e == cudaSuccess && !with_switch; ++slot) e = launch_step(slot);
  const cudaGraphNode_t* after = nullptr;
  const cudaGraphEdgeData* edges = nullptr;
  std::size_t count = 0;
  if (e == cudaSuccess && with_switch) e = cudaStreamGetCaptureInfo(s, &status, nullptr, &graph, &after, &edges, &count);
  cudaGraphNodeParams params = {};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = cudaGraphCondTypeSwitch;
  params.conditional.size = kCases;
  cudaGraphNode_t node = nullptr;
  if (e == cudaSuccess && with_switch) e = cudaGraphAddNode(&node, graph, after, edges, count, &params);
  if (e == cudaSuccess && with_switch) {
    e = cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies);
  }
  for (unsigned k = 1; k < kCases && e == cudaSuccess && with_switch; ++k) {
    cudaGraphNode_t previous = nullptr;
    for (unsigned slot = 1; slot <= k && e == cudaSuccess; ++slot) {
      const std::uint32_t* src = slot % 2 == 1 ? b : a;
      std::uint32_t* dst = slot % 2 == 1 ? a : b;
      void* args[] = {&src, &dst, const_cast<std::size_t*>(&n), &slot};
      cudaGraphNodeParams kp = {};
      kp.type = cudaGraphNodeTypeKernel;
      kp.kernel.func = reinterpret_cast<void*>(step);
      kp.kernel.gridDim = dim3(grid);
      kp.kernel.blockDim = dim3(kThreads);
      kp.kernel.sharedMemBytes = kSmem;
      kp.kernel.kernelParams = args;
      cudaGraphEdgeData edge = {};
      if (pdl) {
        edge.from_port = cudaGraphKernelNodePortProgrammatic;
        edge.type = cudaGraphDependencyTypeProgrammatic;
      }
      cudaGraphNode_t added = nullptr;
      e = cudaGraphAddNode(&added, params.conditional.phGraph_out[k], slot > 1 ? &previous : nullptr,
                           slot > 1 ? &edge : nullptr, slot > 1 ? 1 : 0, &kp);
      previous = added;
    }
  }
  const cudaError_t ended = cudaStreamEndCapture(s, &g);
  if (!ok(e, "captured work", -1) || !ok(ended, "end capture", -1) || !ok(cudaGraphInstantiate(&exec, g, 0), "instantiate", -1)) {
    return 1;
  }

  std::vector<std::uint32_t> host_in(n), got_a(n), got_b(n);
  const unsigned selects[4] = {3, 2, 0, 0};
  for (int r = 0; r < replays; ++r) {
    const unsigned sel = with_switch ? selects[r % 4] : kCases - 1;  // noswitch: every step runs
    for (auto& x : host_in) x = static_cast<std::uint32_t>(rng());
    if (!ok(cudaMemcpy(in, host_in.data(), n * 4, cudaMemcpyHostToDevice), "upload", r) ||
        !ok(cudaMemcpy(select, &sel, 4, cudaMemcpyHostToDevice), "upload", r) ||
        !ok(cudaMemset(a, 0xCD, n * 4), "poison", r) || !ok(cudaMemset(b, 0xCD, n * 4), "poison", r) ||
        !ok(cudaDeviceSynchronize(), "sync before replay", r) || !ok(cudaGraphLaunch(exec, s), "launch", r) ||
        !ok(cudaStreamSynchronize(s), "replay sync", r) ||
        !ok(cudaMemcpy(got_a.data(), a, n * 4, cudaMemcpyDeviceToHost), "download", r) ||
        !ok(cudaMemcpy(got_b.data(), b, n * 4, cudaMemcpyDeviceToHost), "download", r)) {
      return 1;
    }
    // After step 0: b = head + 1; step j (1..sel) adds j + 1 into the other buffer.
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t va = host_in[i] * 2654435761u + 7u, vb = va + 1u;
      for (unsigned j = 1; j <= sel; ++j) {
        if (j % 2 == 1) {
          va = vb + j + 1u;
        } else {
          vb = va + j + 1u;
        }
      }
      if (got_a[i] != va || got_b[i] != vb) {
        std::printf("FAIL wrong output at %zu (replay %d, select %u)\n", i, r, sel);
        return 1;
      }
    }
  }
  std::printf("PASS %s %s, %d replays, seed %llu\n", argv[1], pdl ? "pdl" : "plain", replays, seed);
  return 0;
}
