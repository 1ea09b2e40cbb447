// Consumer translation unit B: the same instantiation as A (the kernels must not
// clash at link time, with or without -rdc=true), plus the workspace form.
#include <gpuprim/gpuprim.cuh>

#include <cstddef>

cudaError_t consumer_sum_b(const int* d_in, int* d_out, std::size_t n) {
  std::size_t bytes = 0;
  cudaError_t err = gpuprim::sum(nullptr, bytes, d_in, d_out, n);
  if (err != cudaSuccess) return err;
  void* d_temp = nullptr;
  err = cudaMalloc(&d_temp, bytes);
  if (err != cudaSuccess) return err;
  err = gpuprim::sum(d_temp, bytes, d_in, d_out, n);
  cudaError_t sync = cudaDeviceSynchronize();
  cudaFree(d_temp);
  return err != cudaSuccess ? err : sync;
}
