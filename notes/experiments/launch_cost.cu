// Session 34: what an event-timed launch costs, by launch API (the 2^10 rows' floor).
#include <cstdio>
#include <gpuprim/radix_sort.cuh>
#include <vector>
#include <algorithm>
#include <functional>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
struct big { char b[128]; };
__global__ void empty_small(int x, int* p) { if (x == 12345) *p = 0; }
__global__ void empty_big(big a, int* p) { if (a.b[3] == 17) *p = 0; }
int main() {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  int* p; CK(cudaMalloc(&p, 64 << 20));
  unsigned *k, *ko; CK(cudaMalloc(&k, 4096 * 64)); CK(cudaMalloc(&ko, 4096));
  CK(cudaMemset(k, 1, 4096 * 64));
  big b{};
  auto t = [&](const char* name, const std::function<void(int)>& f) {
    std::vector<float> v;
    for (int i = 0; i < 2000; ++i) {
      CK(cudaEventRecord(e0, s)); f(i); CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (i >= 100) v.push_back(ms * 1000);
    }
    std::sort(v.begin(), v.end());
    double mean = 0; for (float x : v) mean += x; mean /= v.size();
    printf("%-34s median %.2f us  p10 %.2f p90 %.2f mean %.2f\n", name, v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10], mean);
  };
  for (int r = 0; r < 2; ++r) {
    t("nothing", [&](int) {});
    t("<<<>>> empty, 4 B args", [&](int) { empty_small<<<32, 256, 0, s>>>(1, p); });
    t("<<<>>> empty, 136 B args", [&](int) { empty_big<<<32, 256, 0, s>>>(b, p); });
    t("cudaLaunchKernelEx empty, 136 B", [&](int) {
      cudaLaunchConfig_t c = {}; c.gridDim = dim3(32); c.blockDim = dim3(256); c.stream = s;
      CK(cudaLaunchKernelEx(&c, empty_big, b, p)); });
    t("cudaGetDevice + <<<>>> 136 B", [&](int) { int d; CK(cudaGetDevice(&d)); empty_big<<<32, 256, 0, s>>>(b, p); });
    t("gpuprim sort 1024 u32 (rotating)", [&](int i) { size_t tb = 1 << 20; CK(gpuprim::radix_sort_keys((void*)p, tb, k + (i % 64) * 1024, ko, 1024, 0, 32, s)); });
    t("gpuprim sort 1024 u32 (same)", [&](int i) { size_t tb = 1 << 20; CK(gpuprim::radix_sort_keys((void*)p, tb, k, ko, 1024, 0, 32, s)); });
  }
  return 0;
}
