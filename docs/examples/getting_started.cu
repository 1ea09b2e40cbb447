// docs/getting_started.md: the first program, shown whole (between the markers).
// docs:begin first_program
// first.cu: sum and sort a million integers on the GPU with gpuprim.
#include <gpuprim/gpuprim.cuh>

#include <cstdio>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err_));       \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

int main() {
  const std::size_t n = 1 << 20;
  std::vector<int> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<int>((i * 7919) % 1000) - 500;

  int *d_in = nullptr, *d_sorted = nullptr, *d_sum = nullptr;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_sorted, n * sizeof(int)));
  CHECK(cudaMalloc(&d_sum, sizeof(int)));
  CHECK(cudaMemcpy(d_in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  // Both calls are asynchronous on `stream` and take their temporary memory stream-ordered.
  CHECK(gpuprim::sum(d_in, d_sum, n, stream));
  CHECK(gpuprim::radix_sort_keys(d_in, d_sorted, n, 0, 32, stream));  // d_in is left as it was

  int sum = 0, smallest = 0, largest = 0;
  CHECK(cudaMemcpyAsync(&sum, d_sum, sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaMemcpyAsync(&smallest, d_sorted, sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaMemcpyAsync(&largest, d_sorted + n - 1, sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("sum %d, smallest %d, largest %d\n", sum, smallest, largest);

  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_sorted));
  CHECK(cudaFree(d_sum));
  return 0;
}
// docs:end first_program
