// Device-wide radix sorts: gpuprim::radix_sort_keys / radix_sort_pairs beside
// cub::DeviceRadixSort::SortKeys / SortPairs, both over all bits [0, 8 * sizeof(Key)), at 2^10..2^28
// (2^30 for u32 keys where memory allows) in steps of 4x, and uniform keys also at 2048, 4864 and
// 8192. Keys: u32 in four distributions, f32 and u64 uniform; pairs: u32 and u64 keys with u32
// values (the input positions), uniform.
//
// Distributions: "uniform" (random bits; f32: random finite bit patterns), "and2" / "and3" (the
// bitwise AND of 2 / 3 random words: each bit is 1 with probability 1/4 / 1/8, fewer distinct
// digits), "bits20" (uniform in [0, 2^20): the top 12 bits are zero).
// Counted per sort: n items (Gkeys/s) and the keys and values read once and written once (GB/s).
// Before timing and after the last timed run, untimed: CUB's output of the first pool copy must be
// sorted (stable for pairs) and gpuprim's output must equal it bit for bit.
//
// CUB runs twice per case: "cub" with an int count (32-bit offsets) and "cub64" with a std::size_t
// count (64-bit offsets, another tuning policy; faster at large n on the H200); the report takes
// the faster as CUB.
// Names: "radix_sort_keys/<u32|f32|u64>/<distribution>/<gpuprim|cub|cub64>/<n>",
//        "radix_sort_pairs/<u32_u32|u64_u32>/uniform/<gpuprim|cub|cub64>/<n>" (key type _ value type).
//        The lean rows (bm_lean): "radix_sort_keys/u32/uniform/<gpuprim_lowmem|cub_dbuf>/<n>" and
//        "radix_sort_pairs/u32_u32/uniform/<gpuprim_lowmem|cub_dbuf>/<n>" (the double_buffer forms
//        and CUB's DoubleBuffer sorts, size_t counts), "radix_argsort/u32_u32/uniform/
//        <gpuprim|gpuprim_keys_out|cub_fill_sortpairs>/<n>" (u32 keys to u32 indices, gpuprim with
//        and without keys out; CUB fills an index array and sorts pairs), each with its workspace in MB (counter workspace_MB).
// Run:   bench_radix_sort --benchmark_format=json --benchmark_out=radix_sort.json
//        [--benchmark_repetitions=5 --benchmark_report_aggregates_only=true]
#include "bench_common.cuh"

#include <algorithm>
#include <climits>
#include <vector>

#include <gpuprim/radix_sort.cuh>

#include <cub/device/device_radix_sort.cuh>

namespace gpuprim_bench {
namespace {

enum class impl { gpuprim, cub, cub64 };
enum class key_dist { uniform, and2, and3, bits20 };

using value_t = std::uint32_t;  // the payload of every pairs case

const char* dist_name(key_dist d) {
  switch (d) {
    case key_dist::uniform: return "uniform";
    case key_dist::and2: return "and2";
    case key_dist::and3: return "and3";
    default: return "bits20";
  }
}

template <class T>
struct type_name;
template <>
struct type_name<std::uint32_t> {
  static constexpr const char* value = "u32";
};
template <>
struct type_name<std::int32_t> {
  static constexpr const char* value = "i32";
};
template <>
struct type_name<std::uint64_t> {
  static constexpr const char* value = "u64";
};
template <>
struct type_name<float> {
  static constexpr const char* value = "f32";
};

/// Both libraries on the full key, through their workspace forms.
template <impl I, bool Pairs, class Key>
cudaError_t device_sort(void* d_temp, std::size_t& bytes, const Key* d_keys_in, Key* d_keys_out,
                        const value_t* d_values_in, value_t* d_values_out, std::size_t n, cudaStream_t s) {
  constexpr int end_bit = static_cast<int>(8 * sizeof(Key));
  if constexpr (I == impl::gpuprim) {
    if constexpr (Pairs) {
      return gpuprim::radix_sort_pairs(d_temp, bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, 0,
                                       end_bit, s);
    } else {
      return gpuprim::radix_sort_keys(d_temp, bytes, d_keys_in, d_keys_out, n, 0, end_bit, s);
    }
  } else if constexpr (I == impl::cub64) {
    // A std::size_t count selects CUB's 64-bit offsets and another tuning policy: at 2^28 u32 keys
    // on the H200 that is CUB's faster configuration (5.4 ms against 6.3 ms with an int count).
    if constexpr (Pairs) {
      return cub::DeviceRadixSort::SortPairs(d_temp, bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, 0,
                                             end_bit, s);
    } else {
      return cub::DeviceRadixSort::SortKeys(d_temp, bytes, d_keys_in, d_keys_out, n, 0, end_bit, s);
    }
  } else {
    // An int count, as most callers pass: CUB's 32-bit offsets. Every n here (at most 2^30) fits.
    // scripts/bench_report.py holds gpuprim to the faster of the two CUB rows of each case.
    if (n > std::size_t{INT_MAX}) return cudaErrorInvalidValue;
    const int count = static_cast<int>(n);
    if constexpr (Pairs) {
      return cub::DeviceRadixSort::SortPairs(d_temp, bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, count,
                                             0, end_bit, s);
    } else {
      return cub::DeviceRadixSort::SortKeys(d_temp, bytes, d_keys_in, d_keys_out, count, 0, end_bit, s);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/// Random 64-bit word `w` of item i (splitmix64 of the process seed), the same for every key type.
__host__ __device__ inline std::uint64_t random_word(std::uint64_t seed, std::uint64_t i, unsigned w) {
  std::uint64_t z = seed + w * 0xD1B54A32D192ED03ull + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <class Key>
__device__ Key make_key(std::uint64_t seed, std::uint64_t i, key_dist d) {
  std::uint64_t bits = random_word(seed, i, 0);
  if (d == key_dist::bits20) return static_cast<Key>(bits >> 44);
  if (d == key_dist::and2 || d == key_dist::and3) bits &= random_word(seed, i, 1);
  if (d == key_dist::and3) bits &= random_word(seed, i, 2);
  if constexpr (std::is_same_v<Key, float>) {
    std::uint32_t u = static_cast<std::uint32_t>(bits >> 32);
    // Infinities and NaNs (exponent all ones) become finite by clearing the exponent's top bit:
    // special values belong to the tests, not to a throughput figure.
    if ((u & 0x7f800000u) == 0x7f800000u) u ^= 0x40000000u;
    return __uint_as_float(u);
  } else {
    return static_cast<Key>(bits >> (64 - 8 * sizeof(Key)));
  }
}

template <class Key>
__global__ __launch_bounds__(256) void fill_keys_kernel(Key* out, std::size_t total, std::size_t n,
                                                       std::uint64_t seed, key_dist d) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    out[i] = make_key<Key>(seed, i % n, d);
  }
}

/// Values are the input positions, so a stable sort leaves them increasing within equal keys.
__global__ __launch_bounds__(256) void fill_values_kernel(value_t* out, std::size_t total, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    out[i] = static_cast<value_t>(i % n);
  }
}

/// One live pool of keys and one of values per process, each reused while consecutive benchmarks
/// (gpuprim and CUB rows are registered side by side) ask for the same input, replaced otherwise.
/// Copies are identical and laid end to end: iteration i sorts copy i % copies (pool_copies).
struct sort_pool {
  device_buffer buf;
  const std::type_info* type = nullptr;
  std::size_t n = 0, copies = 0;
  int dist = -1;
};

template <class T, class Fill>
bool acquire_sort_pool(benchmark::State& state, sort_pool& pool, std::size_t n, int dist, Fill fill,
                       pool_view<T>& view) {
  if (pool.type == nullptr || *pool.type != typeid(T) || pool.n != n || pool.dist != dist) {
    pool.buf.reset();
    pool.type = nullptr;
    const std::size_t copies = pool_copies(n * sizeof(T));
    if (!require_free_memory(state, copies * n * sizeof(T))) return false;
    GPUPRIM_BENCH_CHECK_BOOL(state, pool.buf.allocate(copies * n * sizeof(T)));
    const int blocks = device().prop.multiProcessorCount * 8;
    fill(blocks, pool.buf.get<T>(), copies * n);
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaGetLastError());
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaDeviceSynchronize());
    pool.type = &typeid(T);
    pool.n = n;
    pool.copies = copies;
    pool.dist = dist;
  }
  view.data = pool.buf.get<T>();
  view.n = n;
  view.copies = pool.copies;
  return true;
}

/// The key pool is shared by every key type, so only one input of keys is ever resident.
sort_pool& key_pool() {
  static sort_pool* pool = new sort_pool;  // lives until exit: no cudaFree after runtime teardown
  return *pool;
}

template <class Key>
bool acquire_keys(benchmark::State& state, std::size_t n, key_dist d, pool_view<Key>& view) {
  return acquire_sort_pool<Key>(state, key_pool(), n, static_cast<int>(d),
                                [n, d](int blocks, Key* data, std::size_t total) {
                                  fill_keys_kernel<Key><<<blocks, 256>>>(data, total, n, seed(), d);
                                },
                                view);
}

bool acquire_values(benchmark::State& state, std::size_t n, pool_view<value_t>& view) {
  static sort_pool* pool = new sort_pool;
  return acquire_sort_pool<value_t>(state, *pool, n, 0,
                                    [n](int blocks, value_t* data, std::size_t total) {
                                      fill_values_kernel<<<blocks, 256>>>(data, total, n);
                                    },
                                    view);
}

// ---------------------------------------------------------------------------------------------
// Checks, on the device: each kernel flags positions with atomicMin, the host reads the smallest
// ---------------------------------------------------------------------------------------------

constexpr unsigned long long none_flagged = ~0ull;

/// The key's rank in CUB's ascending order as an unsigned integer: floats by their sign-transformed
/// bits, with -0.0 equal to +0.0.
__device__ inline std::uint32_t radix_order(std::uint32_t k) { return k; }
__device__ inline std::uint32_t radix_order(std::int32_t k) { return static_cast<std::uint32_t>(k) ^ 0x80000000u; }
__device__ inline std::uint64_t radix_order(std::uint64_t k) { return k; }
__device__ inline std::uint32_t radix_order(float k) {
  std::uint32_t u = __float_as_uint(k);
  if (u == 0x80000000u) u = 0;
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/// Flags i when keys[i - 1] > keys[i], or, with values (input positions), when equal keys lost
/// their input order.
template <class Key>
__global__ __launch_bounds__(256) void flag_unsorted_kernel(const Key* keys, const value_t* values, std::size_t n,
                                                           unsigned long long* first) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x + 1; i < n; i += stride) {
    const auto a = radix_order(keys[i - 1]);
    const auto b = radix_order(keys[i]);
    if (a > b || (values != nullptr && a == b && values[i - 1] >= values[i])) atomicMin(first, i);
  }
}

/// Flags i when the words a[i] and b[i] differ (keys compared as bits).
template <class Word>
__global__ __launch_bounds__(256) void flag_different_kernel(const Word* a, const Word* b, std::size_t n,
                                                            unsigned long long* first) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (a[i] != b[i]) atomicMin(first, i);
  }
}

template <class Key>
using key_word_t = std::conditional_t<sizeof(Key) == 8, std::uint64_t, std::uint32_t>;

/// Runs `launch(blocks)` (one flag kernel on `s`) and sets `index` to the smallest flagged position,
/// or n when none was flagged. Synchronous.
template <class Launch>
bool smallest_flagged(benchmark::State& state, cudaStream_t s, unsigned long long* d_first, std::size_t n,
                      Launch launch, std::size_t& index) {
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemsetAsync(d_first, 0xff, sizeof(unsigned long long), s));
  launch(device().prop.multiProcessorCount * 8);
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaGetLastError());
  unsigned long long first = none_flagged;
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemcpyAsync(&first, d_first, sizeof first, cudaMemcpyDeviceToHost, s));
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaStreamSynchronize(s));
  index = first == none_flagged ? n : static_cast<std::size_t>(first);
  return true;
}

template <class T>
bool item_at(benchmark::State& state, const T* d_data, std::size_t i, T& value) {
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemcpy(&value, d_data + i, sizeof(T), cudaMemcpyDeviceToHost));
  return true;
}

/// The sorted output of one case: keys, and values when Pairs.
template <class Key>
struct sorted_view {
  const Key* keys = nullptr;
  const value_t* values = nullptr;
};

/// CUB's output must be sorted, and stable for pairs: it is the reference gpuprim is held to.
template <class Key>
bool check_sorted(benchmark::State& state, cudaStream_t s, unsigned long long* d_first, sorted_view<Key> out,
                  std::size_t n, const char* when) {
  std::size_t i = n;
  if (!smallest_flagged(state, s, d_first, n,
                        [&](int blocks) {
                          flag_unsorted_kernel<Key><<<blocks, 256, 0, s>>>(out.keys, out.values, n, d_first);
                        },
                        i)) {
    return false;
  }
  if (i == n) return true;
  Key prev{}, cur{};
  if (!item_at(state, out.keys, i - 1, prev) || !item_at(state, out.keys, i, cur)) return false;
  fail(state, std::string("CUB's output ") + when + " is not " + (out.values ? "stably " : "") + "sorted at item " +
                  std::to_string(i) + ": " + to_text(prev) + " then " + to_text(cur));
  return false;
}

/// gpuprim's output must equal CUB's bit for bit (a stable sort has one answer).
template <class Key>
bool check_equal(benchmark::State& state, cudaStream_t s, unsigned long long* d_first, sorted_view<Key> got,
                 sorted_view<Key> ref, std::size_t n, const char* when) {
  using word_t = key_word_t<Key>;
  std::size_t i = n;
  const auto* got_words = reinterpret_cast<const word_t*>(got.keys);
  const auto* ref_words = reinterpret_cast<const word_t*>(ref.keys);
  if (!smallest_flagged(state, s, d_first, n,
                        [&](int blocks) {
                          flag_different_kernel<word_t><<<blocks, 256, 0, s>>>(got_words, ref_words, n, d_first);
                        },
                        i)) {
    return false;
  }
  if (i < n) {
    Key g{}, r{};
    if (!item_at(state, got.keys, i, g) || !item_at(state, ref.keys, i, r)) return false;
    fail(state, std::string("gpuprim's keys ") + when + " differ from CUB's at item " + std::to_string(i) +
                    ": got " + to_text(g) + ", CUB " + to_text(r));
    return false;
  }
  if (got.values == nullptr) return true;
  if (!smallest_flagged(state, s, d_first, n,
                        [&](int blocks) {
                          flag_different_kernel<value_t><<<blocks, 256, 0, s>>>(got.values, ref.values, n, d_first);
                        },
                        i)) {
    return false;
  }
  if (i < n) {
    value_t g{}, r{};
    if (!item_at(state, got.values, i, g) || !item_at(state, ref.values, i, r)) return false;
    fail(state, std::string("gpuprim's values ") + when + " differ from CUB's at item " + std::to_string(i) +
                    ": got " + to_text(g) + ", CUB " + to_text(r));
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The benchmark
// ---------------------------------------------------------------------------------------------

template <class Key, bool Pairs, impl I>
void bm_sort(benchmark::State& state, std::size_t n, key_dist dist) {
  cuda_env env;
  if (!env.init(state)) return;
  const cudaStream_t s = env.stream();
  pool_view<Key> keys;
  if (!acquire_keys(state, n, dist, keys)) return;
  pool_view<value_t> values;
  if (Pairs && !acquire_values(state, n, values)) return;
  auto values_in = [&](std::size_t i) -> const value_t* { return Pairs ? values.copy(i) : nullptr; };

  // gpuprim's rows keep CUB's output of copy 0 as their reference; CUB's rows are their own.
  constexpr bool own_reference = I == impl::gpuprim;
  const std::size_t item_bytes = sizeof(Key) + (Pairs ? sizeof(value_t) : 0);
  if (!require_free_memory(state, (own_reference ? 2 : 1) * n * item_bytes)) return;
  device_buffer out_keys, out_values, ref_keys, ref_values, temp, flag;
  GPUPRIM_BENCH_CHECK(state, out_keys.allocate(n * sizeof(Key)));
  if (Pairs) GPUPRIM_BENCH_CHECK(state, out_values.allocate(n * sizeof(value_t)));
  if (own_reference) {
    GPUPRIM_BENCH_CHECK(state, ref_keys.allocate(n * sizeof(Key)));
    if (Pairs) GPUPRIM_BENCH_CHECK(state, ref_values.allocate(n * sizeof(value_t)));
  }
  GPUPRIM_BENCH_CHECK(state, flag.allocate(sizeof(unsigned long long)));
  Key* d_out_keys = out_keys.get<Key>();
  value_t* d_out_values = Pairs ? out_values.get<value_t>() : nullptr;
  Key* d_ref_keys = own_reference ? ref_keys.get<Key>() : d_out_keys;
  value_t* d_ref_values = own_reference && Pairs ? ref_values.get<value_t>() : d_out_values;
  const sorted_view<Key> out{d_out_keys, d_out_values};
  const sorted_view<Key> ref{d_ref_keys, d_ref_values};
  auto* d_first = flag.get<unsigned long long>();

  // One workspace, allocated once, large enough for the timed sort and for CUB's reference.
  std::size_t temp_bytes = 0, ref_temp_bytes = 0;
  GPUPRIM_BENCH_CHECK(state, (device_sort<I, Pairs>(nullptr, temp_bytes, keys.copy(0), d_out_keys, values_in(0),
                                                    d_out_values, n, s)));
  if (own_reference) {
    GPUPRIM_BENCH_CHECK(state, (device_sort<impl::cub, Pairs>(nullptr, ref_temp_bytes, keys.copy(0), d_ref_keys,
                                                              values_in(0), d_ref_values, n, s)));
  }
  if (!require_free_memory(state, std::max(temp_bytes, ref_temp_bytes))) return;
  GPUPRIM_BENCH_CHECK(state, temp.allocate(std::max(temp_bytes, ref_temp_bytes)));
  void* d_temp = temp.get();
  auto run = [&](std::size_t i) {
    std::size_t bytes = temp_bytes;
    return device_sort<I, Pairs>(d_temp, bytes, keys.copy(i), d_out_keys, values_in(i), d_out_values, n, s);
  };

  // Untimed, on copy 0: CUB's reference, then the timed library into a poisoned output (it doubles
  // as the warm-up); a wrong result is never timed.
  if (own_reference) {
    std::size_t bytes = ref_temp_bytes;
    GPUPRIM_BENCH_CHECK(state, (device_sort<impl::cub, Pairs>(d_temp, bytes, keys.copy(0), d_ref_keys,
                                                              values_in(0), d_ref_values, n, s)));
  }
  GPUPRIM_BENCH_CHECK(state, cudaMemsetAsync(d_out_keys, 0x7b, n * sizeof(Key), s));
  if (Pairs) GPUPRIM_BENCH_CHECK(state, cudaMemsetAsync(d_out_values, 0x7b, n * sizeof(value_t), s));
  GPUPRIM_BENCH_CHECK(state, run(0));
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  if (!check_sorted(state, s, d_first, ref, n, "(first run)")) return;
  if (own_reference && !check_equal(state, s, d_first, out, ref, n, "(first run)")) return;

  if (!env.timed_loop(state, 1, run)) return;
  // Every copy holds the same input: the last timed run must give the same output.
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  if (own_reference ? !check_equal(state, s, d_first, out, ref, n, "(last timed run)")
                    : !check_sorted(state, s, d_first, out, n, "(last timed run)")) {
    return;
  }
  set_counters(state, n, 2 * n * item_bytes);
  state.counters["Gkeysps"] =
      benchmark::Counter(static_cast<double>(n) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// ---------------------------------------------------------------------------------------------
// The lean sorts: low-memory forms against CUB's DoubleBuffer sorts, argsort against CUB's
// SortPairs of an index array it fills first
// ---------------------------------------------------------------------------------------------

enum class lean { gpuprim_lowmem, cub_dbuf, gpuprim_argsort, gpuprim_argsort_keys, cub_argsort };

/// The index array CUB's argsort sorts beside the keys: the positions.
__global__ __launch_bounds__(256) void iota_kernel(value_t* out, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = static_cast<value_t>(i);
  }
}

/// One lean sort of n keys (and positions as values when Pairs). Low-memory rows: an untimed
/// prologue copies input copy i into the current buffers (the sort consumes them), the timed body
/// sorts them in place; CUB's DoubleBuffer rows the same. Argsort rows: u32 keys to u32 indices,
/// gpuprim without keys out, CUB filling an index array (timed) and sorting pairs into a keys out.
/// Checked untimed, first and last run, against CUB's SortKeys / SortPairs of positions.
template <class Key, bool Pairs, lean L>
void bm_lean(benchmark::State& state, std::size_t n) {
  constexpr bool argsort = L == lean::gpuprim_argsort || L == lean::gpuprim_argsort_keys || L == lean::cub_argsort;
  cuda_env env;
  if (!env.init(state)) return;
  const cudaStream_t s = env.stream();
  pool_view<Key> keys;
  if (!acquire_keys(state, n, key_dist::uniform, keys)) return;
  pool_view<value_t> values;
  if ((Pairs || argsort) && !acquire_values(state, n, values)) return;
  const std::size_t item_bytes = sizeof(Key) + (Pairs || argsort ? sizeof(value_t) : 0);
  if (!require_free_memory(state, 4 * n * item_bytes)) return;
  device_buffer cur_k, alt_k, cur_v, alt_v, ref_k, ref_v, temp, flag;
  for (device_buffer* b : {&cur_k, &alt_k, &ref_k}) GPUPRIM_BENCH_CHECK(state, b->allocate(n * sizeof(Key)));
  for (device_buffer* b : {&cur_v, &alt_v, &ref_v}) GPUPRIM_BENCH_CHECK(state, b->allocate(n * sizeof(value_t)));
  GPUPRIM_BENCH_CHECK(state, flag.allocate(sizeof(unsigned long long)));
  auto* d_first = flag.get<unsigned long long>();
  const value_t* no_values = nullptr;
  gpuprim::double_buffer<Key> g_keys(cur_k.get<Key>(), alt_k.get<Key>());
  gpuprim::double_buffer<value_t> g_values(cur_v.get<value_t>(), alt_v.get<value_t>());
  cub::DoubleBuffer<Key> c_keys(cur_k.get<Key>(), alt_k.get<Key>());
  cub::DoubleBuffer<value_t> c_values(cur_v.get<value_t>(), alt_v.get<value_t>());
  constexpr int end_bit = static_cast<int>(8 * sizeof(Key));
  std::size_t temp_bytes = 0;
  auto sort = [&](void* t, std::size_t& bytes, std::size_t i) -> cudaError_t {
    if constexpr (L == lean::gpuprim_lowmem) {
      if constexpr (Pairs) return gpuprim::radix_sort_pairs(t, bytes, g_keys, g_values, n, 0, end_bit, s);
      else return gpuprim::radix_sort_keys(t, bytes, g_keys, n, 0, end_bit, s);
    } else if constexpr (L == lean::cub_dbuf) {
      if constexpr (Pairs) return cub::DeviceRadixSort::SortPairs(t, bytes, c_keys, c_values, n, 0, end_bit, s);
      else return cub::DeviceRadixSort::SortKeys(t, bytes, c_keys, n, 0, end_bit, s);
    } else if constexpr (L == lean::gpuprim_argsort) {
      return gpuprim::radix_argsort(t, bytes, keys.copy(i), nullptr, cur_v.get<value_t>(), n, 0, end_bit, s);
    } else if constexpr (L == lean::gpuprim_argsort_keys) {
      return gpuprim::radix_argsort(t, bytes, keys.copy(i), cur_k.get<Key>(), cur_v.get<value_t>(), n, 0, end_bit, s);
    } else {
      if (t != nullptr) iota_kernel<<<device().prop.multiProcessorCount * 8, 256, 0, s>>>(alt_v.get<value_t>(), n);
      return cub::DeviceRadixSort::SortPairs(t, bytes, keys.copy(i), cur_k.get<Key>(), alt_v.get<value_t>(),
                                             cur_v.get<value_t>(), n, 0, end_bit, s);
    }
  };
  GPUPRIM_BENCH_CHECK(state, sort(nullptr, temp_bytes, 0));
  std::size_t ref_bytes = 0;
  GPUPRIM_BENCH_CHECK(state, cub::DeviceRadixSort::SortPairs(nullptr, ref_bytes, keys.copy(0), ref_k.get<Key>(),
                                                             values.copy(0), ref_v.get<value_t>(), n, 0, end_bit, s));
  GPUPRIM_BENCH_CHECK(state, temp.allocate(std::max(temp_bytes, ref_bytes)));
  state.counters["workspace_MB"] = static_cast<double>(temp_bytes) / 1e6;
  // The reference: CUB's SortPairs of positions (keys and values), or SortKeys.
  if (Pairs || argsort) {
    GPUPRIM_BENCH_CHECK(state, cub::DeviceRadixSort::SortPairs(temp.get(), ref_bytes, keys.copy(0), ref_k.get<Key>(),
                                                               values.copy(0), ref_v.get<value_t>(), n, 0, end_bit, s));
  } else {
    GPUPRIM_BENCH_CHECK(state, cub::DeviceRadixSort::SortKeys(temp.get(), ref_bytes, keys.copy(0), ref_k.get<Key>(), n,
                                                              0, end_bit, s));
  }
  const auto prologue = [&](std::size_t i) -> cudaError_t {
    if constexpr (argsort) {
      return cudaMemsetAsync(cur_v.get(), 0x7b, n * sizeof(value_t), s);
    } else {
      g_keys = gpuprim::double_buffer<Key>(cur_k.get<Key>(), alt_k.get<Key>());
      g_values = gpuprim::double_buffer<value_t>(cur_v.get<value_t>(), alt_v.get<value_t>());
      c_keys = cub::DoubleBuffer<Key>(cur_k.get<Key>(), alt_k.get<Key>());
      c_values = cub::DoubleBuffer<value_t>(cur_v.get<value_t>(), alt_v.get<value_t>());
      cudaError_t e = cudaMemsetAsync(alt_k.get(), 0x7b, n * sizeof(Key), s);
      if (e == cudaSuccess) e = cudaMemcpyAsync(cur_k.get(), keys.copy(i), n * sizeof(Key), cudaMemcpyDeviceToDevice, s);
      if (Pairs && e == cudaSuccess) {
        e = cudaMemcpyAsync(cur_v.get(), values.copy(i), n * sizeof(value_t), cudaMemcpyDeviceToDevice, s);
      }
      return e;
    }
  };
  const auto body = [&](std::size_t i) {
    std::size_t bytes = temp_bytes;
    return sort(temp.get(), bytes, i);
  };
  const auto check = [&](const char* when) {
    const Key* got_keys = L == lean::gpuprim_lowmem ? g_keys.current() : L == lean::cub_dbuf ? c_keys.Current() : nullptr;
    const value_t* got_values = L == lean::gpuprim_lowmem ? g_values.current()
                                : L == lean::cub_dbuf      ? c_values.Current()
                                                           : cur_v.get<value_t>();
    const sorted_view<Key> ref{ref_k.get<Key>(), Pairs || argsort ? ref_v.get<value_t>() : nullptr};
    if (got_keys != nullptr) return check_equal(state, s, d_first, sorted_view<Key>{got_keys, Pairs ? got_values : no_values}, ref, n, when);
    // Argsort: the indices only (gpuprim writes no keys).
    return check_equal(state, s, d_first, sorted_view<std::uint32_t>{got_values, nullptr},
                       sorted_view<std::uint32_t>{ref.values, nullptr}, n, when);
  };
  GPUPRIM_BENCH_CHECK(state, prologue(0));
  GPUPRIM_BENCH_CHECK(state, body(0));
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  if (!check("(first run)")) return;
  if (!env.timed_loop(state, 1, prologue, body)) return;
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  if (!check("(last timed run)")) return;
  set_counters(state, n, 2 * n * item_bytes);
  state.counters["Gkeysps"] =
      benchmark::Counter(static_cast<double>(n) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

/// The lean rows at 2^16 .. 2^28 in steps of 16x, and 2^26: u32 keys and u32/u32 pairs in the
/// low-memory forms, u32 keys to u32 indices by argsort.
void add_lean() {
  for (int e : {16, 20, 24, 26, 28}) {
    const std::size_t n = std::size_t{1} << e;
    const std::string size = std::to_string(n);
    add("radix_sort_keys/u32/uniform/gpuprim_lowmem/" + size,
        [n](benchmark::State& st) { bm_lean<std::uint32_t, false, lean::gpuprim_lowmem>(st, n); });
    add("radix_sort_keys/u32/uniform/cub_dbuf/" + size,
        [n](benchmark::State& st) { bm_lean<std::uint32_t, false, lean::cub_dbuf>(st, n); });
    add("radix_sort_pairs/u32_u32/uniform/gpuprim_lowmem/" + size,
        [n](benchmark::State& st) { bm_lean<std::uint32_t, true, lean::gpuprim_lowmem>(st, n); });
    add("radix_sort_pairs/u32_u32/uniform/cub_dbuf/" + size,
        [n](benchmark::State& st) { bm_lean<std::uint32_t, true, lean::cub_dbuf>(st, n); });
    add("radix_argsort/u32_u32/uniform/gpuprim/" + size,
        [n](benchmark::State& st) { bm_lean<std::uint32_t, false, lean::gpuprim_argsort>(st, n); });
    add("radix_argsort/u32_u32/uniform/gpuprim_keys_out/" + size,
        [n](benchmark::State& st) { bm_lean<std::uint32_t, false, lean::gpuprim_argsort_keys>(st, n); });
    add("radix_argsort/u32_u32/uniform/cub_fill_sortpairs/" + size,
        [n](benchmark::State& st) { bm_lean<std::uint32_t, false, lean::cub_argsort>(st, n); });
  }
}

template <class Key, bool Pairs>
void add_sorts(key_dist dist, int max_log2) {
  const std::string type =
      std::string(type_name<Key>::value) + (Pairs ? std::string("_") + type_name<value_t>::value : "");
  const std::string stem =
      std::string(Pairs ? "radix_sort_pairs/" : "radix_sort_keys/") + type + "/" + dist_name(dist) + "/";
  std::vector<std::size_t> sizes;
  for (int e = 10; e <= max_log2; e += 2) sizes.push_back(std::size_t{1} << e);
  if (dist == key_dist::uniform) {
    // Also 2^11, 2^13, and 4864, the most keys CUB's one-block sort takes for 4-byte keys
    // (256 x 19).
    sizes.insert(sizes.end(), {std::size_t{2048}, std::size_t{4864}, std::size_t{8192}});
    std::sort(sizes.begin(), sizes.end());
  }
  for (const std::size_t n : sizes) {
    add(stem + "gpuprim/" + std::to_string(n),
        [n, dist](benchmark::State& st) { bm_sort<Key, Pairs, impl::gpuprim>(st, n, dist); });
    add(stem + "cub/" + std::to_string(n),
        [n, dist](benchmark::State& st) { bm_sort<Key, Pairs, impl::cub>(st, n, dist); });
    add(stem + "cub64/" + std::to_string(n),
        [n, dist](benchmark::State& st) { bm_sort<Key, Pairs, impl::cub64>(st, n, dist); });
  }
}

void register_all() {
  // 2^30 u32 keys (4 GiB in, out, reference and workspace each) are skipped with a message where
  // memory does not allow them.
  for (key_dist d : {key_dist::uniform, key_dist::and2, key_dist::and3, key_dist::bits20}) {
    add_sorts<std::uint32_t, false>(d, 30);
  }
  add_sorts<float, false>(key_dist::uniform, 28);
  add_sorts<std::uint64_t, false>(key_dist::uniform, 28);
  add_sorts<std::uint32_t, true>(key_dist::uniform, 28);
  add_sorts<std::uint64_t, true>(key_dist::uniform, 28);
  // Signed keys, which took other (narrower) tiles than unsigned ones before session 38: int32
  // keys, and int32 keys with u32 values.
  add_sorts<std::int32_t, false>(key_dist::uniform, 28);
  add_sorts<std::int32_t, true>(key_dist::uniform, 28);
  add_lean();
}

}  // namespace
}  // namespace gpuprim_bench

int main(int argc, char** argv) { return gpuprim_bench::run_main(argc, argv, gpuprim_bench::register_all); }
