// Scans and reduce by key: gpuprim::exclusive_sum_by_key beside cub::DeviceScan::ExclusiveSumByKey,
// and gpuprim::reduce_by_key beside cub::DeviceReduce::ReduceByKey (plus), i32 keys i / run and i32
// values, runs of 8 and 128 items, at 2^20, 2^24 and 2^28. Bytes counted: keys + values read, values
// written (the scan), keys + values read and the runs' keys and totals written (reduce_by_key).
// Names: "<exclusive_sum_by_key|reduce_by_key>/i32_run<R>/<gpuprim|cub|cub32>/<n>"; CUB runs with a
// std::size_t count ("cub") and an int count ("cub32"); scripts/bench_report.py takes the faster.
#include "bench_common.cuh"

#include <climits>

#include <gpuprim/reduce.cuh>
#include <gpuprim/scan.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

namespace gpuprim_bench {
namespace {

enum class impl { gpuprim, cub, cub32 };
enum class algo { exclusive_sum_by_key, reduce_by_key };

__global__ void fill_keys_values(int* keys, int* values, std::size_t total, std::size_t n, std::size_t run,
                                 std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    keys[i] = static_cast<int>((i % n) / run);
    values[i] = item_value(seed, i % n);
  }
}

/// One call of algorithm A by implementation I on copy i (keys and values).
template <algo A, impl I>
cudaError_t call(void* temp, std::size_t& bytes, const int* keys, const int* values, int* out, int* unique,
                 int* num_runs, std::size_t n, cudaStream_t s) {
  if constexpr (I == impl::gpuprim) {
    if constexpr (A == algo::exclusive_sum_by_key) {
      return gpuprim::exclusive_sum_by_key(temp, bytes, keys, values, out, n, s);
    } else {
      return gpuprim::reduce_by_key(temp, bytes, keys, unique, values, out, num_runs, n, gpuprim::plus{}, s);
    }
  } else {
    if (I == impl::cub32 && n > std::size_t{INT_MAX}) return cudaErrorInvalidValue;
    const auto run = [&](auto count) {
      if constexpr (A == algo::exclusive_sum_by_key) {
        return cub::DeviceScan::ExclusiveSumByKey(temp, bytes, keys, values, out, count,
                                                  cuda::std::equal_to<>{}, s);
      } else {
        return cub::DeviceReduce::ReduceByKey(temp, bytes, keys, unique, values, out, num_runs, cuda::std::plus<>{},
                                              count, s);
      }
    };
    return I == impl::cub ? run(n) : run(static_cast<int>(n));
  }
}

/// Checks sampled outputs against the host (the values are item_value of the position).
template <algo A>
bool check(benchmark::State& state, const int* out, const int* unique, const int* num_runs, std::size_t n,
           std::size_t run) {
  const std::size_t runs = (n + run - 1) / run;
  if constexpr (A == algo::reduce_by_key) {
    int got_runs = 0;
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemcpy(&got_runs, num_runs, sizeof(int), cudaMemcpyDeviceToHost));
    if (std::size_t(got_runs) != runs) {
      fail(state, "wrong number of runs: " + std::to_string(got_runs) + ", expected " + std::to_string(runs));
      return false;
    }
  }
  for (std::size_t k : {std::size_t{0}, std::size_t{1}, run - 1, run, n / 3, n / 2 + 1, n - 2, n - 1}) {
    long long ref = 0;
    std::size_t at = k;
    if constexpr (A == algo::exclusive_sum_by_key) {
      for (std::size_t i = k / run * run; i < k; ++i) ref += item_value(seed(), i);
    } else {
      at = k / run;
      for (std::size_t i = at * run; i < std::min(n, at * run + run); ++i) ref += item_value(seed(), i);
      int key = -1;
      GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemcpy(&key, unique + at, sizeof(int), cudaMemcpyDeviceToHost));
      if (std::size_t(key) != at) {
        fail(state, "wrong key of run " + std::to_string(at) + ": " + std::to_string(key));
        return false;
      }
    }
    int got = 0;
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemcpy(&got, out + at, sizeof(int), cudaMemcpyDeviceToHost));
    if (got != static_cast<int>(ref)) {
      fail(state, "wrong result at " + std::to_string(at) + ": got " + std::to_string(got) + ", expected " +
                      std::to_string(ref));
      return false;
    }
  }
  return true;
}

template <algo A, impl I>
void bm_by_key(benchmark::State& state, std::size_t n, std::size_t run) {
  cuda_env env;
  if (!env.init(state)) return;
  const cudaStream_t s = env.stream();
  const std::size_t copies = pool_copies(2 * n * sizeof(int));
  if (!require_free_memory(state, (2 * copies + 2) * n * sizeof(int))) return;
  device_buffer keys, values, out, unique, runs, temp;
  GPUPRIM_BENCH_CHECK(state, keys.allocate(copies * n * sizeof(int)));
  GPUPRIM_BENCH_CHECK(state, values.allocate(copies * n * sizeof(int)));
  GPUPRIM_BENCH_CHECK(state, out.allocate(n * sizeof(int)));
  GPUPRIM_BENCH_CHECK(state, unique.allocate(A == algo::reduce_by_key ? n * sizeof(int) : 0));
  GPUPRIM_BENCH_CHECK(state, runs.allocate(sizeof(int)));
  fill_keys_values<<<device().prop.multiProcessorCount * 8, 256>>>(keys.get<int>(), values.get<int>(), copies * n, n,
                                                                     run, seed());
  GPUPRIM_BENCH_CHECK(state, cudaDeviceSynchronize());
  std::size_t temp_bytes = 0;
  GPUPRIM_BENCH_CHECK(state, (call<A, I>(nullptr, temp_bytes, keys.get<int>(), values.get<int>(), out.get<int>(),
                                         unique.get<int>(), runs.get<int>(), n, s)));
  GPUPRIM_BENCH_CHECK(state, temp.allocate(temp_bytes));
  auto body = [&](std::size_t i) {
    std::size_t bytes = temp_bytes;
    const std::size_t c = (i % copies) * n;
    return call<A, I>(temp.get(), bytes, keys.get<int>() + c, values.get<int>() + c, out.get<int>(),
                      unique.get<int>(), runs.get<int>(), n, s);
  };
  GPUPRIM_BENCH_CHECK(state, cudaMemsetAsync(out.get(), 0x7b, n * sizeof(int), s));
  GPUPRIM_BENCH_CHECK(state, body(0));
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  if (!check<A>(state, out.get<int>(), unique.get<int>(), runs.get<int>(), n, run)) return;
  if (!env.timed_loop(state, 1, body)) return;
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  if (!check<A>(state, out.get<int>(), unique.get<int>(), runs.get<int>(), n, run)) return;
  const std::size_t written = A == algo::exclusive_sum_by_key ? n : 2 * ((n + run - 1) / run);
  set_counters(state, n, (2 * n + written) * sizeof(int));
}

template <algo A>
void add_rows(const char* name) {
  for (std::size_t run : {std::size_t{8}, std::size_t{128}}) {
    for (int e : {20, 24, 28}) {
      const std::size_t n = std::size_t{1} << e;
      const std::string stem = std::string(name) + "/i32_run" + std::to_string(run) + "/";
      add(stem + "gpuprim/" + std::to_string(n), [n, run](benchmark::State& st) { bm_by_key<A, impl::gpuprim>(st, n, run); });
      add(stem + "cub/" + std::to_string(n), [n, run](benchmark::State& st) { bm_by_key<A, impl::cub>(st, n, run); });
      add(stem + "cub32/" + std::to_string(n), [n, run](benchmark::State& st) { bm_by_key<A, impl::cub32>(st, n, run); });
    }
  }
}

void register_all() {
  add_rows<algo::exclusive_sum_by_key>("exclusive_sum_by_key");
  add_rows<algo::reduce_by_key>("reduce_by_key");
}

}  // namespace
}  // namespace gpuprim_bench

int main(int argc, char** argv) { return gpuprim_bench::run_main(argc, argv, gpuprim_bench::register_all); }
