// Session 38: host time of a launch through the runtime (<<<>>>, cudaLaunchKernel) against the
// driver's cuLaunchKernel (entry point from cudaGetDriverEntryPoint, function from
// cudaGetFuncBySymbol), and event-timed single launches on an idle GPU.
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>
#define CK(x) do { auto e_ = (x); if (e_ != 0) { printf("%s:%d err %d\n", __FILE__, __LINE__, (int)e_); exit(1);} } while (0)
struct big { char b[96]; };
__global__ void empty_big(big a, int* p) { if (a.b[3] == 17) *p = 0; }
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**);
int main() {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* p; CK(cudaMalloc(&p, 1 << 20));
  big b{};
  void* fp = nullptr; cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fp, 12000, cudaEnableDefault, &q));
  launch_fn cuLaunch = (launch_fn)fp;
  cudaFunction_t f; CK(cudaGetFuncBySymbol(&f, (const void*)empty_big));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  auto host = [&](const char* name, const std::function<void()>& g) {
    std::vector<double> v;
    for (int r = 0; r < 23; ++r) {
      CK(cudaStreamSynchronize(s));
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 200; ++i) g();
      auto t1 = std::chrono::steady_clock::now();
      CK(cudaStreamSynchronize(s));
      if (r >= 2) v.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 200);
    }
    std::sort(v.begin(), v.end());
    printf("%-36s host %.2f us a call (min %.2f)\n", name, v[v.size() / 2], v[0]);
  };
  auto ev = [&](const char* name, const std::function<void()>& g) {
    std::vector<float> v;
    for (int i = 0; i < 3000; ++i) {
      CK(cudaEventRecord(e0, s)); g(); CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (i >= 100) v.push_back(ms * 1000);
    }
    std::sort(v.begin(), v.end());
    printf("%-36s event median %.2f us p10 %.2f p90 %.2f\n", name, v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10]);
  };
  auto rt = [&] { empty_big<<<32, 256, 4096, s>>>(b, p); };
  auto rtk = [&] { void* args[] = {&b, &p}; CK(cudaLaunchKernel((const void*)empty_big, dim3(32), dim3(256), args, 4096, s)); };
  auto drv = [&] { void* args[] = {&b, &p}; CK(cuLaunch((CUfunction)f, 32, 1, 1, 256, 1, 1, 4096, (CUstream)s, args, nullptr)); };
  for (int r = 0; r < 3; ++r) {
    host("<<<>>>", rt); host("cudaLaunchKernel", rtk); host("cuLaunchKernel", drv);
    ev("<<<>>>", rt); ev("cudaLaunchKernel", rtk); ev("cuLaunchKernel", drv);
  }
  return 0;
}
