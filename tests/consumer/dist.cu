// A user of gpuprim::dist: one rank's sum and sort on a communicator of GPU 0 alone; exits 77
// without a GPU (the consumer tests check the build and the link against NCCL).
#include <cstdio>

#include <gpuprim/dist.cuh>

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return 77;
  ncclComm_t comm;
  int dev = 0;
  if (ncclCommInitAll(&comm, 1, &dev) != ncclSuccess) return 1;
  unsigned h[5] = {5, 3, 9, 1, 7};
  unsigned *in, *out;
  unsigned long long* total;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMalloc(&total, sizeof *total);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  cudaError_t e = gpuprim::dist::reduce(in, total, 5, 0ull, gpuprim::plus{}, comm);
  if (e == cudaSuccess) e = gpuprim::dist::radix_sort_keys(in, out, 5, comm);
  unsigned long long sum = 0;
  if (e == cudaSuccess) e = cudaMemcpy(&sum, total, sizeof sum, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("%s: sum %llu, first %u, last %u\n", gpuprim::dist::error_string(e), sum, h[0], h[4]);
  (void)ncclCommDestroy(comm);
  return e == cudaSuccess && sum == 25 && h[0] == 1 && h[4] == 9 ? 0 : 1;
}
