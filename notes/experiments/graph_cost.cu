// Build: nvcc -O2 -std=c++17 -arch=sm_90 -o graph_cost notes/experiments/graph_cost.cu (notes/PERF.md, session 27).
// What would "no launch" for skipped passes cost through a CUDA graph conditional (SWITCH) node?
// Stream form: a plan kernel, then `passes` pass kernels that read the plan and return when
// skipped. Graph forms: the plan kernel sets a SWITCH node's condition to the active pass count;
// body k holds k pass kernels. Pass kernels here do no work (each block reads the plan and
// leaves), so the figures are launch and scheduling costs only.
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "check.cuh"
__global__ void plan_kernel(unsigned* plan, unsigned active, cudaGraphConditionalHandle h, int in_graph) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *plan = active;
    if (in_graph) cudaGraphSetConditional(h, active);
  }
}
__global__ void pass_kernel(const unsigned* plan, int slot, unsigned* sink) {
  __shared__ unsigned s;
  if (threadIdx.x == 0) s = *plan;
  __syncthreads();
  if (slot >= int(s)) return;
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(sink, 1u);
}
constexpr int passes = 4;
unsigned tiles = 21846;
unsigned* d_plan; unsigned* d_sink;
void add_kernel(cudaGraph_t g, cudaGraphNode_t* node, const cudaGraphNode_t* dep, size_t ndep, void* f, unsigned grid,
                unsigned block, void** args) {
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeKernel;
  p.kernel.func = f; p.kernel.gridDim = dim3(grid); p.kernel.blockDim = dim3(block); p.kernel.kernelParams = args;
  CK(cudaGraphAddNode(node, g, dep, nullptr, ndep, &p));
}
cudaGraphExec_t build(unsigned active) {
  cudaGraph_t g; CK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle h; CK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
  int one = 1;
  void* pargs[] = {&d_plan, &active, &h, &one};
  cudaGraphNode_t plan; add_kernel(g, &plan, nullptr, 0, (void*)plan_kernel, 1, 32, pargs);
  cudaGraphNodeParams c = {};
  c.type = cudaGraphNodeTypeConditional;
  c.conditional.handle = h; c.conditional.type = cudaGraphCondTypeSwitch; c.conditional.size = passes + 1;
  cudaGraphNode_t sw; CK(cudaGraphAddNode(&sw, g, &plan, nullptr, 1, &c));
  static int slots[passes];
  for (int k = 1; k <= passes; ++k) {
    cudaGraph_t body = c.conditional.phGraph_out[k];
    cudaGraphNode_t prev = nullptr;
    for (int s = 0; s < k; ++s) {
      slots[s] = s;
      void* a[] = {&d_plan, &slots[s], &d_sink};
      cudaGraphNode_t nd;
      add_kernel(body, &nd, prev ? &prev : nullptr, prev ? 1 : 0, (void*)pass_kernel, tiles, 384, a);
      prev = nd;
    }
  }
  cudaGraphExec_t ex; CK(cudaGraphInstantiate(&ex, g, 0));
  CK(cudaGraphDestroy(g));
  return ex;
}
double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
int main() {
  CK(cudaMalloc(&d_plan, 4)); CK(cudaMalloc(&d_sink, 4));
  cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const int reps = 200;
  for (unsigned t : {21846u, 1366u, 86u}) {
    tiles = t;
    for (unsigned active : {4u, 3u}) {
      for (int form = 0; form < 3; ++form) {
        std::vector<double> host, gpu;
        cudaGraphExec_t cached = form == 2 ? build(active) : nullptr;
        for (int r = 0; r < reps; ++r) {
          CK(cudaStreamSynchronize(st));
          CK(cudaEventRecord(e0, st));
          const double t0 = now_us();
          if (form == 0) {
            plan_kernel<<<1, 32, 0, st>>>(d_plan, active, cudaGraphConditionalHandle{}, 0);
            for (int s = 0; s < passes; ++s) pass_kernel<<<tiles, 384, 0, st>>>(d_plan, s, d_sink);
          } else if (form == 1) {
            cudaGraphExec_t ex = build(active);
            CK(cudaGraphLaunch(ex, st));
            CK(cudaGraphExecDestroy(ex));
          } else {
            CK(cudaGraphLaunch(cached, st));
          }
          const double t1 = now_us();
          CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1));
          float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
          host.push_back(t1 - t0); gpu.push_back(ms * 1000.0);
        }
        if (cached) CK(cudaGraphExecDestroy(cached));
        std::sort(host.begin(), host.end()); std::sort(gpu.begin(), gpu.end());
        printf("tiles %6u active %u %-26s host %8.1f us  events %8.1f us\n", t, active,
               form == 0 ? "stream (skipped launched)" : form == 1 ? "graph built per call" : "graph cached",
               host[reps / 2], gpu[reps / 2]);
      }
    }
  }
  return 0;
}
