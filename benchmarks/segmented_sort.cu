// Segmented radix sorts: gpuprim::segmented_radix_sort_keys / _pairs beside
// cub::DeviceSegmentedRadixSort and cub::DeviceSegmentedSort (SortKeys / SortPairs), whole keys,
// ascending; i32 keys, and u32 keys with u32 values (the input positions). Segments of 1, 7 and 64
// items at 2^22; of 1000 and 100000 items at 2^24; of power-law sizes 1..10^6 at 2^24 (drawn on the
// host with a fixed seed); 16 segments of 2^24 at 2^28, where gpuprim's radix_sort_keys / _pairs
// of the same 2^28 keys stand beside ("gpuprim_onesort"). CSR offsets (int: begin = offsets,
// end = offsets + 1). Before timing, untimed, one run is checked on the device: every segment
// sorted, each value an input position of its segment carrying its own key, equal keys in input
// order (but for cub_segsort, which is not stable), and the keys a permutation (a multiset hash).
// Bytes counted: the keys (and values) read once and written once.
// Names: "segsort_<keys|pairs>/<i32|u32u32>_<seg1|seg7|seg64|seg1000|seg100000|powerlaw|16segs>/
//         <gpuprim|cub_radix|cub_segsort|gpuprim_onesort>/<n>".
#include "bench_common.cuh"

#include <gpuprim/radix_sort.cuh>

#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace gpuprim_bench {
namespace {

enum class impl { gpuprim, cub_radix, cub_segsort, gpuprim_onesort };

const char* impl_name(impl i) {
  switch (i) {
    case impl::gpuprim: return "gpuprim";
    case impl::cub_radix: return "cub_radix";
    case impl::cub_segsort: return "cub_segsort";
    default: return "gpuprim_onesort";
  }
}

using value_t = std::uint32_t;
constexpr std::size_t power_law = 0;  // the segment "size" of the power-law case

template <impl I, bool Pairs, class Key>
cudaError_t segsort(void* temp, std::size_t& bytes, const Key* ki, Key* ko, const value_t* vi, value_t* vo,
                    std::size_t n, std::size_t segments, const int* offsets, cudaStream_t s) {
  constexpr int end_bit = static_cast<int>(8 * sizeof(Key));
  const int items = static_cast<int>(n), count = static_cast<int>(segments);  // n <= 2^28
  if constexpr (I == impl::gpuprim) {
    if constexpr (Pairs) {
      return gpuprim::segmented_radix_sort_pairs(temp, bytes, ki, ko, vi, vo, n, segments, offsets, offsets + 1, 0,
                                                 end_bit, s);
    } else {
      return gpuprim::segmented_radix_sort_keys(temp, bytes, ki, ko, n, segments, offsets, offsets + 1, 0, end_bit, s);
    }
  } else if constexpr (I == impl::cub_radix) {
    if constexpr (Pairs) {
      return cub::DeviceSegmentedRadixSort::SortPairs(temp, bytes, ki, ko, vi, vo, items, count, offsets, offsets + 1,
                                                      0, end_bit, s);
    } else {
      return cub::DeviceSegmentedRadixSort::SortKeys(temp, bytes, ki, ko, items, count, offsets, offsets + 1, 0,
                                                     end_bit, s);
    }
  } else if constexpr (I == impl::cub_segsort) {
    if constexpr (Pairs) {
      return cub::DeviceSegmentedSort::SortPairs(temp, bytes, ki, ko, vi, vo, items, count, offsets, offsets + 1, s);
    } else {
      return cub::DeviceSegmentedSort::SortKeys(temp, bytes, ki, ko, items, count, offsets, offsets + 1, s);
    }
  } else {  // one sort of all n keys, for the 16-segment case
    if constexpr (Pairs) {
      return gpuprim::radix_sort_pairs(temp, bytes, ki, ko, vi, vo, n, 0, end_bit, s);
    } else {
      return gpuprim::radix_sort_keys(temp, bytes, ki, ko, n, 0, end_bit, s);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Inputs: pools of random 32-bit keys and of positions, offsets built on the host
// ---------------------------------------------------------------------------------------------

__host__ __device__ inline std::uint32_t random_key(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;  // splitmix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<std::uint32_t>((z ^ (z >> 31)) >> 32);
}

/// Copy c of a pool, item i: a random key of position i, or the position itself.
__global__ __launch_bounds__(256) void fill_kernel(std::uint32_t* out, std::size_t total, std::size_t n,
                                                   std::uint64_t seed, bool positions) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    out[i] = positions ? static_cast<std::uint32_t>(i % n) : random_key(seed, i % n);
  }
}

/// Identical copies of n keys (or positions) laid end to end, larger than L2 together: iteration i
/// sorts copy i % copies. One live pool of each kind, kept while the next case asks for the same n.
bool acquire(benchmark::State& state, std::size_t n, bool positions, pool_view<std::uint32_t>& view) {
  struct cache_t {
    device_buffer buf;
    std::size_t n = 0, copies = 0;
  };
  static cache_t* caches = new cache_t[2];  // lives until exit: no cudaFree after runtime teardown
  cache_t& c = caches[positions ? 1 : 0];
  if (c.n != n) {
    c.buf.reset();
    c.n = 0;
    const std::size_t copies = pool_copies(n * sizeof(std::uint32_t));
    if (!require_free_memory(state, copies * n * sizeof(std::uint32_t))) return false;
    GPUPRIM_BENCH_CHECK_BOOL(state, c.buf.allocate(copies * n * sizeof(std::uint32_t)));
    fill_kernel<<<device().prop.multiProcessorCount * 8, 256>>>(c.buf.get<std::uint32_t>(), copies * n, n, seed(),
                                                                positions);
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaGetLastError());
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaDeviceSynchronize());
    c.n = n;
    c.copies = copies;
  }
  view.data = c.buf.get<std::uint32_t>();
  view.n = n;
  view.copies = c.copies;
  return true;
}

/// CSR offsets of n items: segments of `size` items (the last one shorter), or power-law sizes
/// floor(u^-1.2) in 1..10^6 (u uniform in (0, 1], fixed seed; the last one cut at n).
std::vector<int> make_offsets(std::size_t n, std::size_t size) {
  std::vector<int> offsets = {0};
  std::mt19937_64 rng(20240601);
  for (std::size_t at = 0; at < n;) {
    std::size_t s = size;
    if (size == power_law) {
      const double u = (double(rng() % 1000000) + 1) / 1000000.0;
      s = std::min<std::size_t>(static_cast<std::size_t>(std::pow(u, -1.2)), 1000000);
    }
    at = std::min(n, at + s);
    offsets.push_back(static_cast<int>(at));
  }
  return offsets;
}

// ---------------------------------------------------------------------------------------------
// The check, on the device
// ---------------------------------------------------------------------------------------------

__device__ inline std::uint64_t mix(std::uint32_t k) {
  std::uint64_t z = (k + 1ull) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  return z ^ (z >> 27);
}

/// Flags (atomicMin into sums[0]) the first output item that breaks its segment's sort: a key below
/// the one before it in the segment; with values, a value outside the segment or whose input key
/// is not the output key, or (when `stable`) equal keys out of input order. Adds mix(key) of the
/// inputs to sums[1] and of the outputs to sums[2]: equal sums, the same multiset of keys.
template <class Key>
__global__ __launch_bounds__(256) void check_kernel(const Key* in, const Key* out, const value_t* values,
                                                    const int* offsets, std::size_t segments, std::size_t n,
                                                    bool stable, unsigned long long* sums) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long in_sum = 0, out_sum = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::size_t lo = 0, hi = segments;  // the last segment that starts at or before i (all non-empty)
    while (hi - lo > 1) {
      const std::size_t mid = (lo + hi) / 2;
      if (static_cast<std::size_t>(offsets[mid]) <= i) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    const auto b = static_cast<std::size_t>(offsets[lo]), e = static_cast<std::size_t>(offsets[lo + 1]);
    bool bad = i > b && out[i] < out[i - 1];
    if (values != nullptr) {
      const value_t v = values[i];
      bad = bad || v < b || v >= e || in[v] != out[i] || (stable && i > b && out[i] == out[i - 1] && values[i - 1] >= v);
    }
    if (bad) atomicMin(sums, static_cast<unsigned long long>(i));
    in_sum += mix(static_cast<std::uint32_t>(in[i]));
    out_sum += mix(static_cast<std::uint32_t>(out[i]));
  }
  atomicAdd(sums + 1, in_sum);
  atomicAdd(sums + 2, out_sum);
}

template <class Key>
bool check_output(benchmark::State& state, cudaStream_t s, const Key* in, const Key* out, const value_t* values,
                  const int* offsets, std::size_t segments, std::size_t n, bool stable, unsigned long long* d_sums) {
  unsigned long long h[3] = {~0ull, 0, 0};
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemcpyAsync(d_sums, h, sizeof h, cudaMemcpyHostToDevice, s));
  check_kernel<Key><<<device().prop.multiProcessorCount * 8, 256, 0, s>>>(in, out, values, offsets, segments, n,
                                                                          stable, d_sums);
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaGetLastError());
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemcpyAsync(h, d_sums, sizeof h, cudaMemcpyDeviceToHost, s));
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaStreamSynchronize(s));
  if (h[0] != ~0ull) {
    fail(state, "the output of the first run is not " + std::string(stable ? "stably " : "") +
                    "sorted within its segment at item " + std::to_string(h[0]));
    return false;
  }
  if (h[1] != h[2]) {
    fail(state, "the output keys of the first run are not a permutation of the input keys");
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The benchmark
// ---------------------------------------------------------------------------------------------

template <class Key, bool Pairs, impl I>
void bm_segsort(benchmark::State& state, std::size_t n, std::size_t size) {
  cuda_env env;
  if (!env.init(state)) return;
  const cudaStream_t s = env.stream();
  pool_view<std::uint32_t> keys, values;
  if (!acquire(state, n, false, keys)) return;
  if (Pairs && !acquire(state, n, true, values)) return;
  auto keys_in = [&](std::size_t i) { return reinterpret_cast<const Key*>(keys.copy(i)); };
  auto values_in = [&](std::size_t i) -> const value_t* { return Pairs ? values.copy(i) : nullptr; };

  // Offsets: the case's segments, or one segment of everything for the check of a whole sort.
  const std::vector<int> h_offsets = make_offsets(n, size);
  const std::size_t segments = h_offsets.size() - 1;
  const std::vector<int> h_whole = {0, static_cast<int>(n)};
  const std::size_t item_bytes = sizeof(Key) + (Pairs ? sizeof(value_t) : 0);
  if (!require_free_memory(state, n * item_bytes + h_offsets.size() * sizeof(int))) return;
  device_buffer offsets, whole, out_keys, out_values, temp, sums;
  GPUPRIM_BENCH_CHECK(state, offsets.allocate(h_offsets.size() * sizeof(int)));
  GPUPRIM_BENCH_CHECK(state, whole.allocate(2 * sizeof(int)));
  GPUPRIM_BENCH_CHECK(state, out_keys.allocate(n * sizeof(Key)));
  if (Pairs) GPUPRIM_BENCH_CHECK(state, out_values.allocate(n * sizeof(value_t)));
  GPUPRIM_BENCH_CHECK(state, sums.allocate(3 * sizeof(unsigned long long)));
  GPUPRIM_BENCH_CHECK(state, cudaMemcpy(offsets.get(), h_offsets.data(), h_offsets.size() * sizeof(int),
                                        cudaMemcpyHostToDevice));
  GPUPRIM_BENCH_CHECK(state, cudaMemcpy(whole.get(), h_whole.data(), 2 * sizeof(int), cudaMemcpyHostToDevice));
  const int* d_offsets = offsets.get<int>();
  Key* d_out_keys = out_keys.get<Key>();
  value_t* d_out_values = Pairs ? out_values.get<value_t>() : nullptr;

  std::size_t temp_bytes = 0;
  GPUPRIM_BENCH_CHECK(state, (segsort<I, Pairs, Key>(nullptr, temp_bytes, keys_in(0), d_out_keys, values_in(0),
                                                     d_out_values, n, segments, d_offsets, s)));
  if (!require_free_memory(state, temp_bytes)) return;
  GPUPRIM_BENCH_CHECK(state, temp.allocate(temp_bytes));
  auto run = [&](std::size_t i) {
    std::size_t bytes = temp_bytes;
    return segsort<I, Pairs, Key>(temp.get(), bytes, keys_in(i), d_out_keys, values_in(i), d_out_values, n, segments,
                                  d_offsets, s);
  };

  // Untimed, on copy 0, into a poisoned output (it doubles as the warm-up): a wrong result is
  // never timed. The whole sort is checked as one segment.
  GPUPRIM_BENCH_CHECK(state, cudaMemsetAsync(d_out_keys, 0x7b, n * sizeof(Key), s));
  if (Pairs) GPUPRIM_BENCH_CHECK(state, cudaMemsetAsync(d_out_values, 0x7b, n * sizeof(value_t), s));
  GPUPRIM_BENCH_CHECK(state, run(0));
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  const bool one_sort = I == impl::gpuprim_onesort;
  if (!check_output<Key>(state, s, keys_in(0), d_out_keys, d_out_values, one_sort ? whole.get<int>() : d_offsets,
                         one_sort ? 1 : segments, n, I != impl::cub_segsort, sums.get<unsigned long long>())) {
    return;
  }

  if (!env.timed_loop(state, 1, run)) return;
  set_counters(state, n, 2 * n * item_bytes);
  state.counters["Gkeysps"] =
      benchmark::Counter(static_cast<double>(n) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["segments"] = benchmark::Counter(static_cast<double>(segments));
}

template <class Key, bool Pairs>
void add_case(const std::string& seg, std::size_t n, std::size_t size, bool one_sort) {
  const std::string stem = std::string(Pairs ? "segsort_pairs/u32u32_" : "segsort_keys/i32_") + seg + "/";
  auto name = [&](impl i) { return stem + impl_name(i) + "/" + std::to_string(n); };
  add(name(impl::gpuprim), [n, size](benchmark::State& st) { bm_segsort<Key, Pairs, impl::gpuprim>(st, n, size); });
  auto* cub_radix =
      add(name(impl::cub_radix), [n, size](benchmark::State& st) { bm_segsort<Key, Pairs, impl::cub_radix>(st, n, size); });
  // CUB's segmented radix sort takes a block per segment: ~0.5 s a call for 2^22 segments of one
  // item on the H200 (0.009 Gkeys/s), so that row runs a fixed 3 iterations.
  if (size == 1) cub_radix->Iterations(3);
  add(name(impl::cub_segsort),
      [n, size](benchmark::State& st) { bm_segsort<Key, Pairs, impl::cub_segsort>(st, n, size); });
  if (one_sort) {
    add(name(impl::gpuprim_onesort),
        [n, size](benchmark::State& st) { bm_segsort<Key, Pairs, impl::gpuprim_onesort>(st, n, size); });
  }
}

void register_all() {
  const std::size_t n22 = std::size_t{1} << 22, n24 = std::size_t{1} << 24, n28 = std::size_t{1} << 28;
  struct row {
    const char* seg;
    std::size_t n, size;
  };
  const row rows[] = {{"seg1", n22, 1},          {"seg7", n22, 7},      {"seg64", n22, 64},
                      {"seg1000", n24, 1000},    {"seg100000", n24, 100000},
                      {"powerlaw", n24, power_law}, {"16segs", n28, n28 / 16}};
  for (const row& r : rows) {
    const bool one_sort = r.size == n28 / 16;
    add_case<std::int32_t, false>(r.seg, r.n, r.size, one_sort);
    add_case<std::uint32_t, true>(r.seg, r.n, r.size, one_sort);
  }
}

}  // namespace
}  // namespace gpuprim_bench

int main(int argc, char** argv) { return gpuprim_bench::run_main(argc, argv, gpuprim_bench::register_all); }
