// Does compute-sanitizer racecheck run a graph whose SWITCH node a kernel sets
// (cudaGraphSetConditional)? A minimal program, kept as the evidence behind the racecheck exclusion
// of one case of tests/sort (sort_device: the captured sort's SWITCH node); not built by the project.
//   nvcc -std=c++17 -arch=sm_90 notes/repro/racecheck_conditional.cu -o cond
//   ./cond; compute-sanitizer --tool racecheck ./cond; compute-sanitizer --tool memcheck ./cond
// A stream capture of: one kernel that sets the handle to 1 (mode 0: as the sort does; mode 1: no
// kernel sets it, the handle's default 1 applies), then a SWITCH node of two bodies, each one
// kernel that writes its body's number to `out`. Mode 2: a second kernel after it through a
// programmatic edge; mode 3: see add_body_node; mode 4: see big_body; mode 5: a memset first, 132
// setter blocks of which the last sets it, and a big_body launch with programmatic serialisation
// between the setter and the node. Replayed three times; prints `out` (expected 1).
// Modes 6-8 (session 43): see the comment at `cases` below (an empty body; four bodies of 0-3
// kernels chained by programmatic edges, the shape of the sort's switch for u32 keys).
// H200, CUDA 13.0, 2026-11-28: every mode runs and prints the body it should (1; -1 for mode 7's
// empty body; 3 for mode 8), and racecheck (modes 0-8) and memcheck (0, 1, 3) report nothing; the
// sort's own case still crashes under racecheck (tests/sort/CMakeLists.txt). With glibc's heap
// checks (LD_PRELOAD libc_malloc_debug.so, MALLOC_CHECK_=3) that case passes without a tool
// (598 assertions) and under racecheck stops with "free(): invalid pointer" (a segfault or
// "malloc_consolidate(): unaligned fastbin chunk detected" without the checks): the host heap is
// corrupted only while racecheck runs.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CK(x)                                                                 \
  do {                                                                        \
    cudaError_t e_ = (x);                                                     \
    if (e_ != cudaSuccess) {                                                  \
      std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

__global__ void set_switch(cudaGraphConditionalHandle h, int mode) {
  const unsigned value = mode == 7 ? 0 : mode == 8 ? 3 : 1;
  if (mode != 1 && threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) cudaGraphSetConditional(h, value);
}

__global__ void body(int* out, int which) {
  if (threadIdx.x == 0) *out = which;
}

// Mode 4: the bodies' kernel takes 100 KiB of dynamic shared memory (as the sort's passes do).
__global__ void big_body(int* out, int which) {
  extern __shared__ int smem[];
  for (int i = threadIdx.x; i < 25600; i += blockDim.x) smem[i] = which + i;
  __syncthreads();
  if (threadIdx.x == 0) *out = smem[0];
}

// Mode 3: each body's kernel node is added from a function of its own whose argument array is
// gone (its stack overwritten) by the time the graph is instantiated and launched; the API copies
// the arguments when the node is added.
__attribute__((noinline)) void add_body_node(cudaGraph_t body, int* out, int which) {
  void* args[] = {&out, &which};
  cudaGraphNodeParams kp = {};
  kp.type = cudaGraphNodeTypeKernel;
  kp.kernel.func = reinterpret_cast<void*>(::body);
  kp.kernel.gridDim = dim3(1);
  kp.kernel.blockDim = dim3(32);
  kp.kernel.kernelParams = args;
  cudaGraphNode_t kn;
  CK(cudaGraphAddNode(&kn, body, nullptr, nullptr, 0, &kp));
}

__attribute__((noinline)) unsigned scribble_stack() {
  volatile unsigned char junk[4096];
  for (int i = 0; i < 4096; ++i) junk[i] = 0xA5;
  return junk[17];
}

int main(int argc, char** argv) {
  const int mode = argc > 1 ? std::atoi(argv[1]) : 0;
  CK(cudaFuncSetAttribute(big_body, cudaFuncAttributeMaxDynamicSharedMemorySize, 102400));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* out;
  CK(cudaMalloc(&out, sizeof(int)));
  cudaGraph_t g;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status;
  cudaGraph_t captured;
  CK(cudaStreamGetCaptureInfo(s, &status, nullptr, &captured));
  cudaGraphConditionalHandle h;
  CK(cudaGraphConditionalHandleCreate(&h, captured, 1, cudaGraphCondAssignDefault));
  if (mode == 5) CK(cudaMemsetAsync(out, 0, sizeof(int), s));
  set_switch<<<mode == 5 ? 132 : 1, 32, 0, s>>>(h, mode);
  CK(cudaGetLastError());
  if (mode == 5) {  // a kernel between the setter and the node, launched as the sort's first pass is
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(264);
    config.blockDim = dim3(384);
    config.dynamicSmemBytes = 102400;
    config.stream = s;
    cudaLaunchAttribute attribute[1] = {};
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    CK(cudaLaunchKernelEx(&config, big_body, out, 7));
  }
  const cudaGraphNode_t* deps;
  const cudaGraphEdgeData* edges;
  std::size_t count;
  CK(cudaStreamGetCaptureInfo(s, &status, nullptr, &captured, &deps, &edges, &count));
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = cudaGraphCondTypeSwitch;
  // Modes 6 and 7: three bodies, body 0 empty (the sort's body for "no pass after the first");
  // the setter picks body 1 (6) or the empty body 0 (7). Mode 8: four bodies, body k holding k
  // kernels chained by programmatic edges, as the sort's bodies for u32 keys; the setter picks 3.
  const unsigned cases = mode == 8 ? 4 : mode >= 6 ? 3 : 2;
  p.conditional.size = cases;
  cudaGraphNode_t node;
  CK(cudaGraphAddNode(&node, captured, deps, edges, count, &p));
  for (unsigned k = 0; k < cases; ++k) {
    if (mode >= 6 && k == 0) continue;
    if (mode == 8) {
      cudaGraphNode_t previous = nullptr;
      for (unsigned j = 1; j <= k; ++j) {
        int which = static_cast<int>(k);
        void* args[] = {&out, &which};
        cudaGraphNodeParams kp = {};
        kp.type = cudaGraphNodeTypeKernel;
        kp.kernel.func = reinterpret_cast<void*>(body);
        kp.kernel.gridDim = dim3(1);
        kp.kernel.blockDim = dim3(32);
        kp.kernel.kernelParams = args;
        cudaGraphEdgeData edge = {};
        edge.from_port = cudaGraphKernelNodePortProgrammatic;
        edge.type = cudaGraphDependencyTypeProgrammatic;
        cudaGraphNode_t kn;
        CK(cudaGraphAddNode(&kn, p.conditional.phGraph_out[k], j > 1 ? &previous : nullptr, j > 1 ? &edge : nullptr,
                            j > 1 ? 1 : 0, &kp));
        previous = kn;
      }
      continue;
    }
    if (mode == 3) {
      add_body_node(p.conditional.phGraph_out[k], out, static_cast<int>(k));
      scribble_stack();
      continue;
    }
    int which = static_cast<int>(k);
    void* args[] = {&out, &which};
    cudaGraphNodeParams kp = {};
    kp.type = cudaGraphNodeTypeKernel;
    kp.kernel.func = reinterpret_cast<void*>(mode == 4 ? big_body : body);
    kp.kernel.gridDim = dim3(mode == 4 ? 264 : 1);
    kp.kernel.blockDim = dim3(mode == 4 ? 384 : 32);
    kp.kernel.sharedMemBytes = mode == 4 ? 102400 : 0;
    kp.kernel.kernelParams = args;
    cudaGraphNode_t kn;
    CK(cudaGraphAddNode(&kn, p.conditional.phGraph_out[k], nullptr, nullptr, 0, &kp));
    if (mode == 2) {  // a second kernel after it through a programmatic edge, as the sort's passes
      cudaGraphEdgeData edge = {};
      edge.from_port = cudaGraphKernelNodePortProgrammatic;
      edge.type = cudaGraphDependencyTypeProgrammatic;
      cudaGraphNode_t kn2;
      CK(cudaGraphAddNode(&kn2, p.conditional.phGraph_out[k], &kn, &edge, 1, &kp));
    }
  }
  CK(cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
  CK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec;
  CK(cudaGraphInstantiate(&exec, g, 0));
  for (int r = 0; r < 3; ++r) {
    CK(cudaMemset(out, 0xff, sizeof(int)));
    CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    int h_out = 0;
    CK(cudaMemcpy(&h_out, out, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("mode %d replay %d: body %d ran\n", mode, r, h_out);
  }
  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(g));
  return 0;
}
