// Device-wide sum: gpuprim::sum beside cub::DeviceReduce::Sum for i32, f32, f64 at 2^10..2^28
// (2^30 for i32 where memory allows), plus the read and copy bandwidth ceilings of the same GPU.
//
// Names: "sum/<type>/<gpuprim|cub>/<n>", "ceiling/read/<n>", "ceiling/copy/<n>" (n in int32 items).
// Run:   bench_reduce --benchmark_format=json --benchmark_out=reduce.json
//        [--benchmark_repetitions=5 --benchmark_report_aggregates_only=true]
#include "bench_common.cuh"

#include <climits>

#include <gpuprim/reduce.cuh>

#include <cub/device/device_reduce.cuh>

namespace gpuprim_bench {
namespace {

enum class impl { gpuprim, cub };

template <class T>
struct type_name;
template <>
struct type_name<int> {
  static constexpr const char* value = "i32";
};
template <>
struct type_name<float> {
  static constexpr const char* value = "f32";
};
template <>
struct type_name<double> {
  static constexpr const char* value = "f64";
};

template <impl I, class T>
cudaError_t device_sum(void* d_temp, std::size_t& bytes, const T* d_in, T* d_out, std::size_t n,
                       cudaStream_t s) {
  if constexpr (I == impl::gpuprim) {
    return gpuprim::sum(d_temp, bytes, d_in, d_out, n, s);
  } else if (n <= std::size_t{INT_MAX}) {
    // CUB at its best: a 32-bit count selects its 32-bit offsets, as most callers pass an int.
    return cub::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, static_cast<int>(n), s);
  } else {
    return cub::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, n, s);
  }
}

/// Copies the device result back and compares it with the exact host reference.
template <class T>
bool check_result(benchmark::State& state, const T* d_out, long long ref, const char* when) {
  T got{};
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemcpy(&got, d_out, sizeof(T), cudaMemcpyDeviceToHost));
  if (!matches(got, ref)) {
    fail(state, std::string("wrong sum ") + when + ": got " + to_text(got) + ", expected " +
                    to_text(reference_as<T>(ref)));
    return false;
  }
  return true;
}

template <class T, impl I>
void bm_sum(benchmark::State& state, std::size_t n) {
  cuda_env env;
  if (!env.init(state)) return;
  pool_view<T> pool;
  if (!acquire_pool(state, n, pool)) return;
  const long long ref = reference_sum(n);
  const cudaStream_t s = env.stream();

  device_buffer out, temp;
  GPUPRIM_BENCH_CHECK(state, out.allocate(sizeof(T)));
  std::size_t temp_bytes = 0;
  GPUPRIM_BENCH_CHECK(state, (device_sum<I, T>(nullptr, temp_bytes, pool.copy(0), out.get<T>(), n, s)));
  GPUPRIM_BENCH_CHECK(state, temp.allocate(temp_bytes));
  T* d_out = out.get<T>();
  void* d_temp = temp.get();
  auto run = [&](std::size_t i) {
    std::size_t bytes = temp_bytes;
    return device_sum<I, T>(d_temp, bytes, pool.copy(i), d_out, n, s);
  };

  // Untimed check on copy 0 against a poisoned output; it doubles as the warm-up.
  const T poison = static_cast<T>(reference_as<T>(ref) + static_cast<T>(977));
  GPUPRIM_BENCH_CHECK(state, cudaMemcpyAsync(d_out, &poison, sizeof(T), cudaMemcpyHostToDevice, s));
  GPUPRIM_BENCH_CHECK(state, run(0));
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  if (!check_result(state, d_out, ref, "(first run)")) return;

  if (!env.timed_loop(state, 1, run)) return;
  // Every copy holds the same input: the last timed run must agree too.
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  if (!check_result(state, d_out, ref, "(last timed run)")) return;
  set_counters(state, n, n * sizeof(T));
}

/// ceiling/read: the read kernel over n int32 (16-byte loads), rotating pool copies.
void bm_ceiling_read(benchmark::State& state, std::size_t n) {
  cuda_env env;
  if (!env.init(state)) return;
  pool_view<int> pool;
  if (!acquire_pool(state, n, pool)) return;
  device_buffer out;
  GPUPRIM_BENCH_CHECK(state, out.allocate(sizeof(int)));
  auto run = [&](std::size_t i) {
    return launch_read(pool.copy(i), n * sizeof(int), out.get<int>(), env.stream());
  };
  GPUPRIM_BENCH_CHECK(state, run(0));
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(env.stream()));
  if (!env.timed_loop(state, 1, run)) return;
  set_counters(state, n, n * sizeof(int));
}

template <class T>
void add_sums(int max_log2) {
  for (int e = 10; e <= max_log2; e += 2) {
    const std::size_t n = std::size_t{1} << e;
    const std::string stem = std::string("sum/") + type_name<T>::value + "/";
    add(stem + "gpuprim/" + std::to_string(n),
        [n](benchmark::State& st) { bm_sum<T, impl::gpuprim>(st, n); });
    add(stem + "cub/" + std::to_string(n),
        [n](benchmark::State& st) { bm_sum<T, impl::cub>(st, n); });
  }
}

void register_all() {
  add_sums<int>(30);  // 2^30 i32 (4 GiB) is skipped with a message where memory does not allow it
  add_sums<float>(28);
  add_sums<double>(28);
  for (int e : {26, 28}) {
    const std::size_t n = std::size_t{1} << e;
    add("ceiling/read/" + std::to_string(n), [n](benchmark::State& st) { bm_ceiling_read(st, n); });
    add("ceiling/copy/" + std::to_string(n), [n](benchmark::State& st) { bm_copy<int>(st, n); });
  }
}

}  // namespace
}  // namespace gpuprim_bench

int main(int argc, char** argv) { return gpuprim_bench::run_main(argc, argv, gpuprim_bench::register_all); }
