// README.md: the usage example (a region), and a main that checks it (exit 77 without a GPU).
#include "example_util.cuh"

// docs:begin sum
#include <gpuprim/reduce.cuh>

// d_in: n ints in device memory; d_out: one int in device memory.
cudaError_t device_sum(const int* d_in, int* d_out, std::size_t n, cudaStream_t stream) {
  // Temporary memory is taken with cudaMallocAsync on `stream`. The workspace form
  // gpuprim::sum(d_temp, temp_bytes, d_in, d_out, n, stream) allocates nothing.
  return gpuprim::sum(d_in, d_out, n, stream);  // asynchronous; *d_out is an int
}
// docs:end sum

int main() {
  example::exit_77_without_gpu();
  std::vector<int> host(100003);
  long long expected = 0;
  for (std::size_t i = 0; i < host.size(); ++i) expected += host[i] = static_cast<int>(i % 9) - 4;
  int* d_in = example::to_device(host);
  int* d_out = example::to_device(std::vector<int>{7});
  EXAMPLE_CHECK(device_sum(d_in, d_out, host.size(), 0));
  EXAMPLE_EXPECT(example::to_host(d_out, 1)[0] == expected);
  std::puts("readme_sum: ok");
  return 0;
}
