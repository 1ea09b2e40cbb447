// Device-wide scans: gpuprim::exclusive_sum beside cub::DeviceScan::ExclusiveSum for i32, f32, i64,
// f64, an inclusive sum of f64 and an inclusive max-scan of i32 beside CUB's, at 2^10..2^28
// (2^30 for the i32 exclusive sum where memory allows). Bytes counted: read + write.
//
// CUB runs twice per case: "cub" with a std::size_t count (64-bit offsets) and "cub32" with an int
// count (32-bit offsets); scripts/bench_report.py takes the faster as CUB.
// Names: "exclusive_sum/<type>/<gpuprim|cub|cub32>/<n>", "inclusive_sum/f64/...", "inclusive_max/i32/...",
// the copy of the same bytes for exclusive_sum/i32 and inclusive_sum/f64 from 2^20 ("<kind>/<type>/copy/<n>",
// cudaMemcpyAsync: the scan's fraction of copy bandwidth in the same run), and the
// shape sweep "exclusive_sum_shape/<i32|f64>/gpuprim_<threads>x<items>/<2^20|2^24|2^28>".
// Run:   bench_scan --benchmark_format=json --benchmark_out=scan.json
//        [--benchmark_repetitions=5 --benchmark_report_aggregates_only=true]
#include "bench_common.cuh"

#include <climits>

#include <gpuprim/scan.cuh>

#include <cub/device/device_scan.cuh>

namespace gpuprim_bench {
namespace {

enum class impl { gpuprim, cub, cub32 };
enum class scan_kind { exclusive_sum, inclusive_sum, inclusive_max };

template <class T>
struct type_name;
template <>
struct type_name<int> {
  static constexpr const char* value = "i32";
};
template <>
struct type_name<long long> {
  static constexpr const char* value = "i64";
};
template <>
struct type_name<float> {
  static constexpr const char* value = "f32";
};
template <>
struct type_name<double> {
  static constexpr const char* value = "f64";
};

const char* kind_name(scan_kind k) {
  return k == scan_kind::exclusive_sum ? "exclusive_sum" : k == scan_kind::inclusive_sum ? "inclusive_sum" : "inclusive_max";
}

/// Runs `gpuprim_call()` or `cub_call(count)` for implementation I: CUB with a std::size_t count,
/// or (cub32) with an int count, refusing n above INT_MAX.
template <impl I, class GpuprimCall, class CubCall>
cudaError_t by_impl(std::size_t n, GpuprimCall gpuprim_call, CubCall cub_call) {
  if constexpr (I == impl::gpuprim) {
    return gpuprim_call();
  } else if constexpr (I == impl::cub) {
    return cub_call(n);
  } else {
    if (n > std::size_t{INT_MAX}) return cudaErrorInvalidValue;
    return cub_call(static_cast<int>(n));
  }
}

template <scan_kind K, impl I, class T, class Shape = gpuprim::detail::use_default_shape>
cudaError_t device_scan(void* d_temp, std::size_t& bytes, const T* d_in, T* d_out, std::size_t n, cudaStream_t s) {
  if constexpr (K == scan_kind::exclusive_sum) {
    return by_impl<I>(
        n, [&] { return gpuprim::exclusive_sum<Shape>(d_temp, bytes, d_in, d_out, n, s); },
        [&](auto count) { return cub::DeviceScan::ExclusiveSum(d_temp, bytes, d_in, d_out, count, s); });
  } else if constexpr (K == scan_kind::inclusive_sum) {
    return by_impl<I>(
        n, [&] { return gpuprim::inclusive_sum<Shape>(d_temp, bytes, d_in, d_out, n, s); },
        [&](auto count) { return cub::DeviceScan::InclusiveSum(d_temp, bytes, d_in, d_out, count, s); });
  } else {
    return by_impl<I>(
        n, [&] { return gpuprim::inclusive_scan<Shape>(d_temp, bytes, d_in, d_out, n, gpuprim::maximum{}, s); },
        [&](auto count) {
          return cub::DeviceScan::InclusiveScan(d_temp, bytes, d_in, d_out, cuda::maximum<>{}, count, s);
        });
  }
}

/// Maximum of items [0, k] of this process's input (items are in -4..4; 4 comes soon).
long long reference_max(std::size_t k) {
  long long m = item_value(seed(), 0);
  for (std::size_t i = 1; i <= k && m < 4; ++i) m = std::max<long long>(m, item_value(seed(), i));
  return m;
}

/// The expected output item k: the sum of items [0, k) (exclusive) or [0, k] (inclusive), or the
/// maximum of [0, k].
template <scan_kind K>
long long reference_item(std::size_t k) {
  if constexpr (K == scan_kind::exclusive_sum) return reference_sum(k);
  if constexpr (K == scan_kind::inclusive_sum) return reference_sum(k + 1);
  return reference_max(k);
}

/// Compares the output with the host reference: every item for n <= 2^20, else a sample.
template <scan_kind K, class T>
bool check_result(benchmark::State& state, const T* d_out, std::size_t n, const char* when) {
  std::vector<std::size_t> positions;
  if (n <= (std::size_t{1} << 20)) {
    for (std::size_t k = 0; k < n; ++k) positions.push_back(k);
  } else {
    positions = {0, 1, 31, 32, 4095, 4096, 4097, n / 3, n / 2 + 1, n - 2, n - 1};
  }
  std::vector<T> got(n <= (std::size_t{1} << 20) ? n : 1);
  if (n <= (std::size_t{1} << 20)) {
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemcpy(got.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  }
  long long running = 0;  // full check: the reference grows item by item
  long long max_so_far = item_value(seed(), 0);
  for (std::size_t idx = 0; idx < positions.size(); ++idx) {
    const std::size_t k = positions[idx];
    T value{};
    long long ref;
    if (n <= (std::size_t{1} << 20)) {
      value = got[k];
      if constexpr (K == scan_kind::exclusive_sum) {
        ref = running;
        running += item_value(seed(), k);
      } else if constexpr (K == scan_kind::inclusive_sum) {
        running += item_value(seed(), k);
        ref = running;
      } else {
        max_so_far = std::max<long long>(max_so_far, item_value(seed(), k));
        ref = max_so_far;
      }
    } else {
      GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemcpy(&value, d_out + k, sizeof(T), cudaMemcpyDeviceToHost));
      ref = reference_item<K>(k);
    }
    if (!matches(value, ref)) {
      fail(state, std::string("wrong ") + kind_name(K) + " " + when + " at item " + std::to_string(k) + ": got " +
                      to_text(value) + ", expected " + to_text(reference_as<T>(ref)));
      return false;
    }
  }
  return true;
}

template <scan_kind K, class T, impl I, class Shape = gpuprim::detail::use_default_shape>
void bm_scan(benchmark::State& state, std::size_t n) {
  cuda_env env;
  if (!env.init(state)) return;
  pool_view<T> pool;
  if (!acquire_pool(state, n, pool)) return;
  const cudaStream_t s = env.stream();
  if (!require_free_memory(state, n * sizeof(T))) return;

  device_buffer out, temp;
  GPUPRIM_BENCH_CHECK(state, out.allocate(n * sizeof(T)));
  std::size_t temp_bytes = 0;
  GPUPRIM_BENCH_CHECK(state, (device_scan<K, I, T, Shape>(nullptr, temp_bytes, pool.copy(0), out.get<T>(), n, s)));
  GPUPRIM_BENCH_CHECK(state, temp.allocate(temp_bytes));
  T* d_out = out.get<T>();
  void* d_temp = temp.get();
  auto run = [&](std::size_t i) {
    std::size_t bytes = temp_bytes;
    return device_scan<K, I, T, Shape>(d_temp, bytes, pool.copy(i), d_out, n, s);
  };

  // Untimed check on copy 0 against a poisoned output; it doubles as the warm-up.
  GPUPRIM_BENCH_CHECK(state, cudaMemsetAsync(d_out, 0x7b, n * sizeof(T), s));
  GPUPRIM_BENCH_CHECK(state, run(0));
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  if (!check_result<K>(state, d_out, n, "(first run)")) return;

  if (!env.timed_loop(state, 1, run)) return;
  // Every copy holds the same input: the last timed run must agree too.
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  if (!check_result<K>(state, d_out, n, "(last timed run)")) return;
  set_counters(state, n, 2 * n * sizeof(T));
}

/// The rows of one scan kind and type; with `copy_from` > 0 also the copy of the same bytes from
/// 2^copy_from items on ("<kind>/<type>/copy/<n>": the scan's fraction of copy bandwidth, same run).
template <scan_kind K, class T>
void add_scans(int max_log2, int copy_from = 0) {
  for (int e = 10; e <= max_log2; e += 2) {
    const std::size_t n = std::size_t{1} << e;
    const std::string stem = std::string(kind_name(K)) + "/" + type_name<T>::value + "/";
    add(stem + "gpuprim/" + std::to_string(n), [n](benchmark::State& st) { bm_scan<K, T, impl::gpuprim>(st, n); });
    add(stem + "cub/" + std::to_string(n), [n](benchmark::State& st) { bm_scan<K, T, impl::cub>(st, n); });
    if (n <= std::size_t{INT_MAX}) {
      add(stem + "cub32/" + std::to_string(n), [n](benchmark::State& st) { bm_scan<K, T, impl::cub32>(st, n); });
    }
    if (copy_from > 0 && e >= copy_from) {
      add(stem + "copy/" + std::to_string(n), [n](benchmark::State& st) { bm_copy<T>(st, n); });
    }
  }
}

/// One sweep point: exclusive_sum of T with shape<Threads, Items> at 2^20, 2^24 and 2^28, as
/// "exclusive_sum_shape/<type>/gpuprim_<threads>x<items>/<n>" (CUB: the plain exclusive_sum rows).
template <class T, int Threads, int Items>
void add_shape() {
  using shape_t = gpuprim::shape<Threads, Items>;
  for (int e : {20, 24, 28}) {
    const std::size_t n = std::size_t{1} << e;
    const std::string name = std::string("exclusive_sum_shape/") + type_name<T>::value + "/gpuprim_" +
                             std::to_string(Threads) + "x" + std::to_string(Items) + "/" + std::to_string(n);
    add(name, [n](benchmark::State& st) { bm_scan<scan_kind::exclusive_sum, T, impl::gpuprim, shape_t>(st, n); });
  }
}

/// The scan shapes to compare (the default shape is in the plain rows): CUB's sm_90 tunings
/// (i32 128x24, f64 224x24) and neighbours, for the lead to pick detail::scan_default_shape.
void add_shape_sweep() {
  add_shape<int, 128, 24>();
  add_shape<int, 256, 16>();
  add_shape<int, 256, 24>();
  add_shape<int, 256, 32>();
  add_shape<int, 384, 16>();
  add_shape<int, 512, 12>();
  add_shape<int, 512, 16>();
  add_shape<double, 128, 12>();
  add_shape<double, 128, 24>();
  add_shape<double, 224, 24>();
  add_shape<double, 256, 8>();
  add_shape<double, 256, 12>();
  add_shape<double, 256, 16>();
  add_shape<double, 384, 8>();
}

void register_all() {
  // 2^30 i32 (4 GiB in + 4 GiB out) is skipped with a message where memory does not allow it.
  add_scans<scan_kind::exclusive_sum, int>(30, 20);
  add_scans<scan_kind::exclusive_sum, float>(28);
  add_scans<scan_kind::exclusive_sum, long long>(28);
  add_scans<scan_kind::exclusive_sum, double>(28);
  add_scans<scan_kind::inclusive_sum, double>(28, 20);
  add_scans<scan_kind::inclusive_max, int>(28);
  add_shape_sweep();
}

}  // namespace
}  // namespace gpuprim_bench

int main(int argc, char** argv) { return gpuprim_bench::run_main(argc, argv, gpuprim_bench::register_all); }
