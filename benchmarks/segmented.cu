// Segmented reduce: gpuprim::segmented_sum beside cub::DeviceSegmentedReduce::Sum, f32 values, 2^28
// items (2^24 for segments of 1 and 7) in segments of 7, 64, 1000, 2^12 and 2^16 items and in 16
// segments, CSR offsets (int64: begin = offsets, end = offsets + 1). Bytes counted: the values
// read (offsets and outputs are left out, as CUB's figures in the issue count them).
// Names: "segmented_sum/f32_seg<size|16segs>/<gpuprim|cub>/<n>".
#include "bench_common.cuh"

#include <gpuprim/reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>

namespace gpuprim_bench {
namespace {

enum class impl { gpuprim, cub };

__global__ void fill_offsets(long long* offsets, std::size_t segments, std::size_t size, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t s = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; s <= segments; s += stride) {
    const std::size_t at = s * size;
    offsets[s] = static_cast<long long>(at < n ? at : n);
  }
}

template <impl I>
cudaError_t call(void* temp, std::size_t& bytes, const float* in, float* out, std::size_t segments,
                 const long long* offsets, cudaStream_t s) {
  if constexpr (I == impl::gpuprim) {
    return gpuprim::segmented_sum(temp, bytes, in, out, segments, offsets, offsets + 1, s);
  } else {
    return cub::DeviceSegmentedReduce::Sum(temp, bytes, in, out, static_cast<std::int64_t>(segments), offsets,
                                           offsets + 1, s);
  }
}

template <impl I>
void bm_segmented(benchmark::State& state, std::size_t n, std::size_t size) {
  cuda_env env;
  if (!env.init(state)) return;
  pool_view<float> pool;
  if (!acquire_pool(state, n, pool)) return;
  const cudaStream_t s = env.stream();
  const std::size_t segments = (n + size - 1) / size;
  device_buffer offsets, out, temp;
  GPUPRIM_BENCH_CHECK(state, offsets.allocate((segments + 1) * sizeof(long long)));
  GPUPRIM_BENCH_CHECK(state, out.allocate(segments * sizeof(float)));
  fill_offsets<<<device().prop.multiProcessorCount * 8, 256>>>(offsets.get<long long>(), segments, size, n);
  GPUPRIM_BENCH_CHECK(state, cudaDeviceSynchronize());
  std::size_t temp_bytes = 0;
  GPUPRIM_BENCH_CHECK(state, call<I>(nullptr, temp_bytes, pool.copy(0), out.get<float>(), segments,
                                     offsets.get<long long>(), s));
  GPUPRIM_BENCH_CHECK(state, temp.allocate(temp_bytes));
  auto body = [&](std::size_t i) {
    std::size_t bytes = temp_bytes;
    return call<I>(temp.get(), bytes, pool.copy(i), out.get<float>(), segments, offsets.get<long long>(), s);
  };
  GPUPRIM_BENCH_CHECK(state, body(0));
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  // Check the first, a middle and the last segment against the host.
  for (std::size_t seg : {std::size_t{0}, segments / 2, segments - 1}) {
    long long ref = 0;
    for (std::size_t k = seg * size; k < std::min(n, seg * size + size); ++k) ref += item_value(seed(), k);
    float got = 0;
    GPUPRIM_BENCH_CHECK(state, cudaMemcpy(&got, out.get<float>() + seg, sizeof(float), cudaMemcpyDeviceToHost));
    if (got != static_cast<float>(ref)) {
      fail(state, "wrong sum of segment " + std::to_string(seg) + ": " + std::to_string(got) + ", expected " +
                      std::to_string(ref));
      return;
    }
  }
  if (!env.timed_loop(state, 1, body)) return;
  set_counters(state, n, n * sizeof(float));
}

void register_all() {
  const std::size_t big = std::size_t{1} << 28, mid = std::size_t{1} << 24;
  const std::size_t rows[][2] = {{mid, 1},    {mid, 7},          {big, 64},         {big, 1000},
                                 {big, 4096}, {big, 65536},      {big, big / 16}};
  for (const auto& r : rows) {
    const std::size_t n = r[0], size = r[1];
    const std::string seg = size == big / 16 ? "16segs" : "seg" + std::to_string(size);
    const std::string stem = "segmented_sum/f32_" + seg + "/";
    add(stem + "gpuprim/" + std::to_string(n), [n, size](benchmark::State& st) { bm_segmented<impl::gpuprim>(st, n, size); });
    add(stem + "cub/" + std::to_string(n), [n, size](benchmark::State& st) { bm_segmented<impl::cub>(st, n, size); });
  }
}

}  // namespace
}  // namespace gpuprim_bench

int main(int argc, char** argv) { return gpuprim_bench::run_main(argc, argv, gpuprim_bench::register_all); }
