// gpuprim demo: sum, min and max of 2^28 int32 items generated on the device,
// checked against a host reference and timed against the toolkit's CUB.
// Usage: demo [log2_items]   (default 28). Exits 1 without a usable CUDA GPU.
#include <gpuprim/reduce.cuh>

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

constexpr int runs = 20;
constexpr int large = 1000000;

// Items: a hash of the index in [-7, 7] (so |sum| <= 7 * 2^28 fits int32 exactly),
// with one +1e6 at the very end (the tail must be read) and one -1e6 inside.
__host__ __device__ inline std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
__host__ __device__ inline std::size_t min_position(std::size_t n) { return n / 3 + n / 7 + 1; }
__host__ __device__ inline int item(std::size_t i, std::size_t n) {
  if (i == n - 1) return large;
  if (i == min_position(n)) return -large;
  return static_cast<int>(mix(static_cast<std::uint32_t>(i) ^ 0x9e3779b9U) % 15U) - 7;
}

__global__ void __launch_bounds__(256) generate(int* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = item(i, n);
  }
}

struct reference {
  int sum = 0, min = INT_MAX, max = INT_MIN;
};

// The same items on the host, in parallel chunks; the sum in 64 bits, then narrowed.
reference host_reference(std::size_t n) {
  const unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<long long> sums(workers, 0);
  std::vector<int> mins(workers, INT_MAX), maxs(workers, INT_MIN);
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      for (std::size_t i = n * w / workers; i < n * (w + 1) / workers; ++i) {
        const int x = item(i, n);
        sums[w] += x;
        mins[w] = std::min(mins[w], x);
        maxs[w] = std::max(maxs[w], x);
      }
    });
  }
  for (auto& t : threads) t.join();
  long long sum = 0;
  reference r;
  for (unsigned w = 0; w < workers; ++w) {
    sum += sums[w];
    r.min = std::min(r.min, mins[w]);
    r.max = std::max(r.max, maxs[w]);
  }
  r.sum = static_cast<int>(sum);
  return r;
}

bool ok(cudaError_t err, const char* what) {
  if (err != cudaSuccess) std::fprintf(stderr, "gpuprim demo: %s: %s\n", what, cudaGetErrorString(err));
  return err == cudaSuccess;
}

// Median time in microseconds of `runs` launches of `launch` (after one warm-up).
template <class Launch>
double median_us(Launch launch, cudaEvent_t start, cudaEvent_t stop, bool& good) {
  good = good && ok(launch(), "warm-up");
  std::vector<float> ms(runs, 0.0f);
  for (int r = 0; r < runs && good; ++r) {
    cudaEventRecord(start);
    good = ok(launch(), "launch");
    cudaEventRecord(stop);
    good = good && ok(cudaEventSynchronize(stop), "synchronize");
    cudaEventElapsedTime(&ms[r], start, stop);
  }
  std::sort(ms.begin(), ms.end());
  return 500.0 * (ms[runs / 2 - 1] + ms[runs / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe == cudaSuccess && devices > 0) probe = cudaFree(nullptr);
  if (probe != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "gpuprim demo: no usable CUDA GPU (%s)\n",
                 probe != cudaSuccess ? cudaGetErrorString(probe) : "no CUDA devices");
    return 1;
  }
  const int log2_n = argc > 1 ? std::atoi(argv[1]) : 28;
  if (log2_n < 1 || log2_n > 28) {
    std::fprintf(stderr, "usage: demo [log2_items in 1..28]\n");
    return 2;
  }
  const std::size_t n = std::size_t(1) << log2_n;

  cudaDeviceProp prop;
  int device = 0;
  cudaGetDevice(&device);
  cudaGetDeviceProperties(&prop, device);

  int* d_in = nullptr;
  int* d_out = nullptr;  // [0..2]: gpuprim sum/min/max, [3..5]: CUB sum/min/max
  bool good = ok(cudaMalloc(&d_in, n * sizeof(int)), "cudaMalloc items") &&
              ok(cudaMalloc(&d_out, 6 * sizeof(int)), "cudaMalloc results");
  if (!good) return 1;
  generate<<<4 * prop.multiProcessorCount, 256>>>(d_in, n);
  good = ok(cudaGetLastError(), "generate");

  // One workspace, as large as the largest of the six queries.
  const int cub_n = static_cast<int>(n);
  std::size_t bytes[6] = {};
  good = good && ok(gpuprim::reduce(nullptr, bytes[0], d_in, d_out + 0, n, 0, gpuprim::plus{}), "size query") &&
         ok(gpuprim::reduce(nullptr, bytes[1], d_in, d_out + 1, n, INT_MAX, gpuprim::minimum{}), "size query") &&
         ok(gpuprim::reduce(nullptr, bytes[2], d_in, d_out + 2, n, INT_MIN, gpuprim::maximum{}), "size query") &&
         ok(cub::DeviceReduce::Sum(nullptr, bytes[3], d_in, d_out + 3, cub_n), "cub size query") &&
         ok(cub::DeviceReduce::Min(nullptr, bytes[4], d_in, d_out + 4, cub_n), "cub size query") &&
         ok(cub::DeviceReduce::Max(nullptr, bytes[5], d_in, d_out + 5, cub_n), "cub size query");
  if (!good) return 1;
  std::size_t temp_bytes = *std::max_element(bytes, bytes + 6);
  void* d_temp = nullptr;
  if (!ok(cudaMalloc(&d_temp, std::max<std::size_t>(temp_bytes, 1)), "cudaMalloc workspace")) return 1;

  // Each launch uses its own size (the workspace is at least that large).
  const auto launches = [&](int op) -> cudaError_t {
    std::size_t b = bytes[op];
    switch (op) {
      case 0: return gpuprim::reduce(d_temp, b, d_in, d_out + 0, n, 0, gpuprim::plus{});
      case 1: return gpuprim::reduce(d_temp, b, d_in, d_out + 1, n, INT_MAX, gpuprim::minimum{});
      case 2: return gpuprim::reduce(d_temp, b, d_in, d_out + 2, n, INT_MIN, gpuprim::maximum{});
      case 3: return cub::DeviceReduce::Sum(d_temp, b, d_in, d_out + 3, cub_n);
      case 4: return cub::DeviceReduce::Min(d_temp, b, d_in, d_out + 4, cub_n);
      default: return cub::DeviceReduce::Max(d_temp, b, d_in, d_out + 5, cub_n);
    }
  };

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  double us[6] = {};
  for (int op = 0; op < 6 && good; ++op) us[op] = median_us([&] { return launches(op); }, start, stop, good);

  int result[6] = {};
  good = good && ok(cudaMemcpy(result, d_out, sizeof(result), cudaMemcpyDeviceToHost), "copy results");
  cudaFree(d_temp);
  cudaFree(d_out);
  cudaFree(d_in);
  if (!good) return 1;

  const reference ref = host_reference(n);
  const int expected[3] = {ref.sum, ref.min, ref.max};
  const char* names[3] = {"sum", "min", "max"};
  const double gb = double(n) * sizeof(int) / 1e9;

  std::printf("gpuprim demo: %zu int32 items (%.2f GB) on %s (sm_%d%d), median of %d runs\n", n, gb,
              prop.name, prop.major, prop.minor, runs);
  std::printf("%-4s %12s %12s %6s %12s %9s %12s %9s %10s\n", "op", "gpuprim", "reference", "check",
              "gpuprim us", "GB/s", "cub us", "GB/s", "vs cub");
  bool all_match = true;
  for (int op = 0; op < 3; ++op) {
    const bool match = result[op] == expected[op] && result[op + 3] == expected[op];
    all_match = all_match && match;
    std::printf("%-4s %12d %12d %6s %12.1f %9.1f %12.1f %9.1f %9.2fx\n", names[op], result[op],
                expected[op], match ? "ok" : "WRONG", us[op], gb / (us[op] * 1e-6), us[op + 3],
                gb / (us[op + 3] * 1e-6), us[op + 3] / us[op]);
  }
  std::printf("vs cub = CUB time / gpuprim time (above 1: gpuprim is faster)\n");
  if (!all_match) {
    std::fprintf(stderr, "gpuprim demo: results differ from the host reference (CUB: %d %d %d)\n",
                 result[3], result[4], result[5]);
    return 1;
  }
  std::printf("gpuprim demo: all results match the host reference\n");
  return 0;
}
