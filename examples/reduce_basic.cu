// Example: gpuprim::reduce in both forms (allocating and workspace) with a custom
// operator and init. Exits 77 when no CUDA GPU is usable.
#include <gpuprim/reduce.cuh>

#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

// A user operator: the largest absolute value (associative and commutative).
struct max_abs {
  __host__ __device__ int operator()(int a, int b) const {
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    return a < b ? b : a;
  }
};

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t err_ = (call);                                                            \
    if (err_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                 \
                   cudaGetErrorString(err_));                                             \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

int main() {
  int devices = 0;
  cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    std::printf("reduce_basic: no usable CUDA GPU (%s): skipping\n",
                probe != cudaSuccess ? cudaGetErrorString(probe) : "no CUDA devices");
    return 77;
  }

  const std::size_t n = 1 << 20;
  std::vector<int> h_in(n);
  for (std::size_t i = 0; i < n; ++i) h_in[i] = static_cast<int>((i * 7919) % 20011) - 10000;
  h_in[n / 2] = -20000;  // the largest absolute value, in the middle

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  int* d_in = nullptr;
  int* d_out = nullptr;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, 2 * sizeof(int)));
  CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  // 1. Allocating form: temporary memory comes from cudaMallocAsync on `stream`.
  CHECK(gpuprim::reduce(d_in, d_out, n, INT_MAX, gpuprim::minimum{}, stream));

  // 2. Workspace form: ask for the size, provide the memory, then run (no allocation).
  std::size_t temp_bytes = 0;
  CHECK(gpuprim::reduce(nullptr, temp_bytes, d_in, d_out + 1, n, 0, max_abs{}, stream));
  void* d_temp = nullptr;
  CHECK(cudaMallocAsync(&d_temp, temp_bytes, stream));
  CHECK(gpuprim::reduce(d_temp, temp_bytes, d_in, d_out + 1, n, 0, max_abs{}, stream));
  CHECK(cudaFreeAsync(d_temp, stream));

  int h_out[2];
  CHECK(cudaMemcpyAsync(h_out, d_out, sizeof(h_out), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));

  int expected_min = INT_MAX, expected_max_abs = 0;
  for (int x : h_in) {
    expected_min = x < expected_min ? x : expected_min;
    expected_max_abs = max_abs{}(expected_max_abs, x);
  }
  std::printf("min      = %d (expected %d)\n", h_out[0], expected_min);
  std::printf("max |x|  = %d (expected %d), workspace %zu bytes\n", h_out[1], expected_max_abs,
              temp_bytes);

  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaStreamDestroy(stream));
  return h_out[0] == expected_min && h_out[1] == expected_max_abs ? 0 : 1;
}
