// Consumer entry point: exits 77 without a usable GPU, else checks both sums.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <vector>

cudaError_t consumer_sum_a(const int* d_in, int* d_out, std::size_t n);
cudaError_t consumer_sum_b(const int* d_in, int* d_out, std::size_t n);

int main() {
  int devices = 0;
  cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::printf("gpuprim consumer: no usable CUDA GPU (%s): skipping\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA devices");
    return 77;
  }

  const std::size_t n = 1000003;
  std::vector<int> h_in(n);
  long long expected = 0;
  for (std::size_t i = 0; i < n; ++i) {
    h_in[i] = static_cast<int>(i % 7) - 3;
    expected += h_in[i];
  }

  int* d_in = nullptr;
  int* d_out = nullptr;
  if (cudaMalloc(&d_in, n * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&d_out, 2 * sizeof(int)) != cudaSuccess) {
    std::fprintf(stderr, "gpuprim consumer: cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice);

  int result[2] = {-1, -1};
  cudaError_t err_a = consumer_sum_a(d_in, d_out, n);
  cudaError_t err_b = consumer_sum_b(d_in, d_out + 1, n);
  cudaError_t err_copy = cudaMemcpy(result, d_out, sizeof(result), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);

  if (err_a != cudaSuccess || err_b != cudaSuccess || err_copy != cudaSuccess) {
    std::fprintf(stderr, "gpuprim consumer: CUDA error: %s / %s / %s\n", cudaGetErrorString(err_a),
                 cudaGetErrorString(err_b), cudaGetErrorString(err_copy));
    return 1;
  }
  if (result[0] != expected || result[1] != expected) {
    std::fprintf(stderr, "gpuprim consumer: sums %d and %d, expected %lld\n", result[0], result[1],
                 expected);
    return 1;
  }
  std::printf("gpuprim consumer: sum %d ok (both translation units)\n", result[0]);
  return 0;
}
