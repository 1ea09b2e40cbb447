// gpuprim demo: reduce (sum), scan (exclusive sum) and radix sort (keys, and key-value pairs) of
// 2^24 items generated on the device, each beside the toolkit's CUB on the same input, checked
// against a host reference (std::accumulate, std::exclusive_scan, std::stable_sort) and timed.
// Usage: demo [log2_items]   (default 24; 1..28). Exits 1 without a usable CUDA GPU.
#include <gpuprim/radix_sort.cuh>
#include <gpuprim/reduce.cuh>
#include <gpuprim/scan.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

namespace {

constexpr int runs = 11;

__host__ __device__ inline std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// Items for reduce and scan: in [-7, 7], so every sum of up to 2^28 of them fits int32 exactly.
// Keys: random 32-bit words; values: the input positions (they prove the sort stable).
__global__ void __launch_bounds__(256) generate(int* items, std::uint32_t* keys, std::uint32_t* positions,
                                                std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const auto u = static_cast<std::uint32_t>(i);
    items[i] = static_cast<int>(mix(u ^ 0x9e3779b9U) % 15U) - 7;
    keys[i] = mix(u * 2654435761U + 12345U) & 0xfffff0ffU;  // some equal keys: stability shows
    positions[i] = u;
  }
}

bool ok(cudaError_t err, const char* what) {
  if (err != cudaSuccess) std::fprintf(stderr, "gpuprim demo: %s: %s\n", what, cudaGetErrorString(err));
  return err == cudaSuccess;
}

/// A device buffer that frees itself.
template <class T>
struct buffer {
  T* p = nullptr;
  explicit buffer(std::size_t n) {
    if (cudaMalloc(&p, n * sizeof(T) > 0 ? n * sizeof(T) : 1) != cudaSuccess) p = nullptr;
  }
  ~buffer() { cudaFree(p); }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  std::vector<T> download(std::size_t n) const {
    std::vector<T> h(n);
    cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
  }
};

/// Median time in microseconds of `runs` calls of `call(temp, bytes)` (a workspace-form call)
/// after a size query and one warm-up; false in `good` on any error.
template <class Call>
double median_us(Call call, bool& good) {
  std::size_t bytes = 0;
  good = good && ok(call(nullptr, bytes), "size query");
  buffer<unsigned char> temp(bytes);
  good = good && temp.p != nullptr && ok(call(temp.p, bytes), "warm-up");
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms(runs, 0.0f);
  for (int r = 0; r < runs && good; ++r) {
    cudaEventRecord(start);
    good = ok(call(temp.p, bytes), "call");
    cudaEventRecord(stop);
    good = good && ok(cudaEventSynchronize(stop), "synchronize");
    cudaEventElapsedTime(&ms[r], start, stop);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return 1000.0 * ms[runs / 2];
}

struct row {
  const char* name;
  double gpuprim_us, cub_us;
  bool match;
};

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
  const int log2_n = argc > 1 ? std::atoi(argv[1]) : 24;
  if (log2_n < 1 || log2_n > 28) {
    std::fprintf(stderr, "usage: demo [log2_items in 1..28]\n");
    return 2;
  }
  const std::size_t n = std::size_t(1) << log2_n;
  const int cub_n = static_cast<int>(n);
  cudaDeviceProp prop;
  int device = 0;
  cudaGetDevice(&device);
  cudaGetDeviceProperties(&prop, device);

  buffer<int> items(n), sums(n), cub_sums(n), total(2);
  buffer<std::uint32_t> keys(n), positions(n), sorted(n), cub_sorted(n), order(n), cub_order(n);
  bool good = items.p && sums.p && cub_sums.p && total.p && keys.p && positions.p && sorted.p && cub_sorted.p &&
              order.p && cub_order.p;
  if (!ok(good ? cudaSuccess : cudaErrorMemoryAllocation, "cudaMalloc")) return 1;
  generate<<<4 * prop.multiProcessorCount, 256>>>(items.p, keys.p, positions.p, n);
  good = ok(cudaGetLastError(), "generate") && ok(cudaDeviceSynchronize(), "generate");

  // The host reference.
  const std::vector<int> h_items = items.download(n);
  const std::vector<std::uint32_t> h_keys = keys.download(n);
  const long long h_sum = std::accumulate(h_items.begin(), h_items.end(), 0ll);
  std::vector<int> h_sums(n);
  std::exclusive_scan(h_items.begin(), h_items.end(), h_sums.begin(), 0);
  std::vector<std::uint32_t> h_order(n);
  std::iota(h_order.begin(), h_order.end(), 0u);
  std::stable_sort(h_order.begin(), h_order.end(), [&](std::uint32_t a, std::uint32_t b) { return h_keys[a] < h_keys[b]; });
  std::vector<std::uint32_t> h_sorted(n);
  for (std::size_t i = 0; i < n; ++i) h_sorted[i] = h_keys[h_order[i]];

  row rows[4] = {};
  rows[0] = {"sum i32",
             median_us([&](void* t, std::size_t& b) { return gpuprim::sum(t, b, items.p, total.p, n); }, good),
             median_us([&](void* t, std::size_t& b) { return cub::DeviceReduce::Sum(t, b, items.p, total.p + 1, cub_n); },
                       good),
             false};
  const std::vector<int> h_total = total.download(2);
  rows[0].match = h_total[0] == h_sum && h_total[1] == h_sum;
  rows[1] = {"exclusive_sum i32",
             median_us([&](void* t, std::size_t& b) { return gpuprim::exclusive_sum(t, b, items.p, sums.p, n); }, good),
             median_us([&](void* t, std::size_t& b) {
               return cub::DeviceScan::ExclusiveSum(t, b, items.p, cub_sums.p, cub_n);
             }, good),
             false};
  rows[1].match = sums.download(n) == h_sums && cub_sums.download(n) == h_sums;
  rows[2] = {"radix_sort_keys u32",
             median_us([&](void* t, std::size_t& b) { return gpuprim::radix_sort_keys(t, b, keys.p, sorted.p, n); },
                       good),
             median_us([&](void* t, std::size_t& b) {
               return cub::DeviceRadixSort::SortKeys(t, b, keys.p, cub_sorted.p, cub_n);
             }, good),
             false};
  rows[2].match = sorted.download(n) == h_sorted && cub_sorted.download(n) == h_sorted;
  rows[3] = {"radix_sort_pairs u32/u32",
             median_us([&](void* t, std::size_t& b) {
               return gpuprim::radix_sort_pairs(t, b, keys.p, sorted.p, positions.p, order.p, n);
             }, good),
             median_us([&](void* t, std::size_t& b) {
               return cub::DeviceRadixSort::SortPairs(t, b, keys.p, cub_sorted.p, positions.p, cub_order.p, cub_n);
             }, good),
             false};
  rows[3].match = sorted.download(n) == h_sorted && order.download(n) == h_order && cub_order.download(n) == h_order;
  if (!good) return 1;

  std::printf("gpuprim demo: n = %zu on %s (sm_%d%d), median of %d runs, inputs in device memory\n", n, prop.name,
              prop.major, prop.minor, runs);
  std::printf("%-26s %6s %12s %12s %9s\n", "algorithm", "check", "gpuprim us", "cub us", "vs cub");
  bool all_match = true;
  for (const row& r : rows) {
    all_match = all_match && r.match;
    std::printf("%-26s %6s %12.1f %12.1f %8.2fx\n", r.name, r.match ? "ok" : "WRONG", r.gpuprim_us, r.cub_us,
                r.cub_us / r.gpuprim_us);
  }
  std::printf("check: gpuprim and CUB both equal the host reference; vs cub = CUB time / gpuprim time\n");
  if (!all_match) {
    std::fprintf(stderr, "gpuprim demo: results differ from the host reference\n");
    return 1;
  }
  std::printf("gpuprim demo: all results match the host reference\n");
  return 0;
}
