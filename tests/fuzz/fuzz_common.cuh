// The differential fuzz test against CUB: the run's context (streams, grow-only device and
// pinned buffers), the per-config random engine, size and stream/form draws, and the bitwise
// comparisons every family shares. Each family lives in its own .cu (few instantiations per TU);
// fuzz_main.cu draws the configurations and reports.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace fuzz {

// ---------------------------------------------------------------------------------------------
// Random numbers: every config has its own engine, seeded from (run seed, config index), so that
// one config replays alone (GPUPRIM_FUZZ_ONLY) whatever ran before it.

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The seed of config `index` of a run.
inline std::uint64_t config_seed(std::uint64_t run_seed, std::uint64_t index) {
  std::uint64_t s = run_seed ^ splitmix64(index);
  return splitmix64(s);
}

/// xoshiro256** (Blackman & Vigna): fast enough to fill 10^7 items per config.
class rng {
 public:
  explicit rng(std::uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, n) (n > 0), by Lemire's multiply-shift.
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  /// Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    if (span == std::numeric_limits<std::uint64_t>::max()) return static_cast<std::int64_t>(next());
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + below(span + 1));
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return uniform() < p; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// ---------------------------------------------------------------------------------------------
// What a config is and what became of it

enum class algorithm {
  reduce,
  sum,
  exclusive_scan,
  inclusive_scan,
  exclusive_sum,
  inclusive_sum,
  radix_sort_keys,
  radix_sort_keys_descending,
  radix_sort_pairs,
  radix_sort_pairs_descending,
  count
};

inline const char* algorithm_name(algorithm a) {
  switch (a) {
    case algorithm::reduce: return "reduce";
    case algorithm::sum: return "sum";
    case algorithm::exclusive_scan: return "exclusive_scan";
    case algorithm::inclusive_scan: return "inclusive_scan";
    case algorithm::exclusive_sum: return "exclusive_sum";
    case algorithm::inclusive_sum: return "inclusive_sum";
    case algorithm::radix_sort_keys: return "radix_sort_keys";
    case algorithm::radix_sort_keys_descending: return "radix_sort_keys_descending";
    case algorithm::radix_sort_pairs: return "radix_sort_pairs";
    case algorithm::radix_sort_pairs_descending: return "radix_sort_pairs_descending";
    default: return "?";
  }
}

/// The outcome of one config: its full description and every problem found (empty: it passed).
struct result {
  std::string config;
  std::vector<std::string> problems;
  std::size_t n = 0;
  bool fatal = false;  // a sticky CUDA error: later configs cannot run
};

/// The streams the call under test runs on.
enum class stream_kind { legacy_default, per_thread, own };

/// How the call under test gets its workspace.
enum class call_form { workspace, workspace_oversized, workspace_misaligned, allocating };

// ---------------------------------------------------------------------------------------------
// Grow-only buffers, reused across configs (allocation would dominate small configs)

/// A grow-only buffer from `Alloc` (cudaMalloc or cudaMallocHost, with the matching free): at
/// least `bytes` (and 256) bytes, 256-byte aligned; nullptr when the allocation fails (with no
/// error left behind). It grows by half again at least, or to exactly `bytes` if that fails.
template <cudaError_t (*Alloc)(void**, std::size_t), cudaError_t (*Free)(void*)>
class grow_only_buffer {
 public:
  grow_only_buffer() = default;
  grow_only_buffer(const grow_only_buffer&) = delete;
  grow_only_buffer& operator=(const grow_only_buffer&) = delete;
  ~grow_only_buffer() { release(); }
  void* get(std::size_t bytes) {
    if (bytes < 256) bytes = 256;
    if (bytes > capacity_) {
      release();
      const std::size_t grown = capacity_ + capacity_ / 2;
      for (std::size_t want : {bytes > grown ? bytes : grown, bytes}) {
        if (Alloc(&ptr_, want) == cudaSuccess) {
          capacity_ = want;
          return ptr_;
        }
        (void)cudaGetLastError();
        ptr_ = nullptr;
      }
      return nullptr;
    }
    return ptr_;
  }

 private:
  void release() {
    if (ptr_ != nullptr) (void)Free(ptr_);
    ptr_ = nullptr;
    capacity_ = 0;
  }
  void* ptr_ = nullptr;
  std::size_t capacity_ = 0;
};

inline cudaError_t malloc_device(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
inline cudaError_t malloc_pinned(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }
using device_buffer = grow_only_buffer<malloc_device, cudaFree>;
using pinned_buffer = grow_only_buffer<malloc_pinned, cudaFreeHost>;

/// Device buffers: inputs, gpuprim's outputs, CUB's outputs, both workspaces.
enum device_slot {
  d_keys_in,
  d_keys_out,
  d_keys_ref,
  d_values_in,
  d_values_out,
  d_values_ref,
  d_temp,
  d_cub_temp,
  device_slots
};
/// Pinned host buffers: inputs as generated, gpuprim's outputs (with guards), CUB's outputs, inputs read back.
enum host_slot {
  h_keys_in,
  h_values_in,
  h_keys_out,
  h_values_out,
  h_keys_ref,
  h_values_ref,
  h_keys_after,
  h_values_after,
  host_slots
};

/// Everything that lives across configs. Created once by fuzz_main.cu.
struct context {
  int sm_count = 0;
  cudaStream_t setup = nullptr;         // uploads, poisoning, CUB, downloads (non-blocking)
  cudaStream_t own[3] = {};             // non-blocking streams for the call under test
  double hang_seconds = 60;             // a call not done after this long is reported as a hang
  std::size_t max_n = ~std::size_t(0);  // sizes are capped here (GPUPRIM_TEST_SMALL=1)
  bool verbose = false;
  std::string replay;  // how to rerun the current config alone
  device_buffer device[device_slots];
  pinned_buffer host[host_slots];

  template <class T>
  T* dev(device_slot s, std::size_t items) {
    return static_cast<T*>(device[s].get(items * sizeof(T)));
  }
  template <class T>
  T* pinned(host_slot s, std::size_t items) {
    return static_cast<T*>(host[s].get(items * sizeof(T)));
  }

  /// Prints the config before it runs (GPUPRIM_FUZZ_VERBOSE=1) so a crash or hang names it.
  void announce(const std::string& config) const;
  /// Waits for `stream`; a hang (hang_seconds) prints `config` and the replay line, then exits.
  cudaError_t wait(cudaStream_t stream, const std::string& config) const;
};

/// Items of guard poison before and after every output (nothing may be written there).
inline constexpr std::size_t guard_items = 16;

// ---------------------------------------------------------------------------------------------
// Draws shared by the families

inline std::size_t draw_unbounded_size(rng& r, const std::vector<std::size_t>& edges, std::size_t head) {
  const double u = r.uniform();
  if (u < 0.12) {  // tiny, 0 included
    static const std::size_t tiny[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65};
    return r.chance(0.5) ? tiny[r.below(sizeof(tiny) / sizeof(tiny[0]))] : r.below(300);
  }
  if (u < 0.52) return static_cast<std::size_t>(std::exp2(r.uniform() * 16.0));  // 1 .. 2^16
  if (u < 0.84 && !edges.empty()) {  // an edge: k tiles, plus the peeled head, plus a delta
    const std::size_t e = edges[r.below(edges.size())];
    std::size_t k = 1;
    const double v = r.uniform();
    if (v > 0.65) k = 2 + r.below(3);
    if (v > 0.9) k = 1 + r.below(64);
    if (e * k > (std::size_t(1) << 22)) k = 1;
    const std::int64_t delta = r.chance(0.8) ? r.between(-1, 1) : r.between(-40, 40);
    const std::int64_t n = static_cast<std::int64_t>(e * k + head) + delta;
    return n < 0 ? 0 : static_cast<std::size_t>(n);
  }
  if (u < 0.997) return static_cast<std::size_t>(std::exp2(16.0 + r.uniform() * 6.0));  // 2^16 .. 2^22
  static const std::size_t huge[] = {4194319, 8388617, 10000019};                       // primes
  return huge[r.below(3)];
}

/// The size of a config whose kernels change at the sizes in `edges` (tile sizes, one-block
/// limits): mostly small and moderate (log-uniform up to 2^16), tile edges (k tiles + `head`
/// + a small delta), sometimes large (up to 2^22), rarely a huge prime (10,000,019 at most).
/// Sizes above `max_n` wrap around below it.
inline std::size_t draw_size(rng& r, std::size_t max_n, const std::vector<std::size_t>& edges, std::size_t head = 0) {
  const std::size_t n = draw_unbounded_size(r, edges, head);
  return n > max_n ? n % (max_n + 1) : n;
}

/// An item offset in [0, 15] (half the time 0): the pointer's misalignment from 256 bytes.
inline std::size_t draw_offset(rng& r) { return r.chance(0.5) ? 0 : static_cast<std::size_t>(r.between(1, 15)); }

struct stream_choice {
  stream_kind kind;
  cudaStream_t stream;
  int own_index;
};

inline stream_choice draw_stream(rng& r, const context& ctx) {
  const std::uint64_t k = r.below(8);
  if (k < 3) return {stream_kind::legacy_default, cudaStream_t(0), -1};
  if (k < 5) return {stream_kind::per_thread, cudaStreamPerThread, -1};
  const int i = static_cast<int>(r.below(3));
  return {stream_kind::own, ctx.own[i], i};
}

inline std::string stream_name(const stream_choice& s) {
  switch (s.kind) {
    case stream_kind::legacy_default: return "legacy default stream 0";
    case stream_kind::per_thread: return "cudaStreamPerThread";
    default: return "own non-blocking stream #" + std::to_string(s.own_index);
  }
}

inline call_form draw_form(rng& r) {
  const std::uint64_t k = r.below(8);
  if (k < 3) return call_form::workspace;
  if (k < 4) return call_form::workspace_oversized;
  if (k < 5) return call_form::workspace_misaligned;
  return call_form::allocating;
}

/// Workspace bytes beyond the size query, and the pointer's skew, for form f.
struct workspace_choice {
  call_form form;
  std::size_t extra_bytes = 0;
  std::size_t skew_bytes = 0;
};

inline workspace_choice draw_workspace(rng& r) {
  workspace_choice w{draw_form(r)};
  if (w.form == call_form::workspace_oversized) w.extra_bytes = r.chance(0.5) ? 1 + r.below(255) : 1 + r.below(1 << 20);
  if (w.form == call_form::workspace_misaligned) w.skew_bytes = 1 + r.below(255);
  return w;
}

inline std::string form_name(const workspace_choice& w) {
  switch (w.form) {
    case call_form::workspace: return "workspace form";
    case call_form::workspace_oversized: return "workspace form, " + std::to_string(w.extra_bytes) + " bytes oversized";
    case call_form::workspace_misaligned:
      return "workspace form, pointer skewed by " + std::to_string(w.skew_bytes) + " bytes";
    default: return "allocating (stream-ordered) form";
  }
}

/// Data distributions of the inputs.
enum class distribution { uniform, few_distinct, all_equal, ascending, descending, sparse_bits, digit_subset };

inline const char* distribution_name(distribution d) {
  switch (d) {
    case distribution::uniform: return "uniform";
    case distribution::few_distinct: return "few distinct";
    case distribution::all_equal: return "all equal";
    case distribution::ascending: return "ascending";
    case distribution::descending: return "descending";
    case distribution::sparse_bits: return "sparse bits";
    default: return "random digits, others fixed";
  }
}

// ---------------------------------------------------------------------------------------------
// Reporting and comparison

template <class T>
std::uint64_t bits_of(const T& v) {
  static_assert(sizeof(T) <= 8, "items of at most 8 bytes");
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

/// An item for messages: its value where printable, always its bits (its bytes if wider than 8).
template <class T>
std::string show(const T& v) {
  std::ostringstream os;
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    os << static_cast<long long>(v) << " ";
  } else if constexpr (std::is_integral_v<T>) {
    os << static_cast<unsigned long long>(v) << " ";
  } else if constexpr (std::is_floating_point_v<T>) {
    os << std::setprecision(17) << static_cast<double>(v) << " ";
  }
  if constexpr (sizeof(T) <= 8) {
    os << "(0x" << std::hex << std::setw(2 * int(sizeof(T))) << std::setfill('0') << bits_of(v) << ")";
  } else {  // structs: every byte in memory order
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    os << "(bytes" << std::hex << std::setfill('0');
    for (unsigned char x : b) os << " " << std::setw(2) << int(x);
    os << ")";
  }
  return os.str();
}

/// Records a problem if the n items differ bitwise: how many, and the first with both values.
template <class T>
void compare_bitwise(result& r, const char* what, const T* expected, const T* got, std::size_t n) {
  if (n == 0 || std::memcmp(expected, got, n * sizeof(T)) == 0) return;
  std::size_t first = n, count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(&expected[i], &got[i], sizeof(T)) != 0) {
      if (first == n) first = i;
      ++count;
    }
  }
  std::ostringstream os;
  os << what << ": " << count << " of " << n << " items differ; first at [" << first << "]: expected "
     << show(expected[first]) << ", got " << show(got[first]);
  if (first > 0)
    os << " (item before: expected " << show(expected[first - 1]) << ", got " << show(got[first - 1]) << ")";
  r.problems.push_back(os.str());
}

/// Records a problem if any of `count` bytes is not `poison` (a write outside the output).
inline void check_untouched(result& r, const char* what, const void* bytes, std::size_t count, unsigned char poison) {
  const auto* b = static_cast<const unsigned char*>(bytes);
  std::size_t touched = 0, first = count;
  for (std::size_t i = 0; i < count; ++i) {
    if (b[i] != poison) {
      if (first == count) first = i;
      ++touched;
    }
  }
  if (touched == 0) return;
  std::ostringstream os;
  os << what << ": " << touched << " of " << count << " guard bytes overwritten (first at byte " << first << ")";
  r.problems.push_back(os.str());
}

/// Records a failed CUDA call; true when it failed. An error that a device sync still reports
/// is sticky: the config is marked fatal (nothing after it can run).
inline bool cuda_failed(result& r, cudaError_t e, const char* what) {
  if (e == cudaSuccess) return false;
  (void)cudaGetLastError();
  std::ostringstream os;
  os << what << " returned " << cudaGetErrorName(e) << ": " << cudaGetErrorString(e);
  r.problems.push_back(os.str());
  const cudaError_t after = cudaDeviceSynchronize();
  if (after != cudaSuccess) {
    r.fatal = true;
    r.problems.push_back(std::string("device unusable afterwards: ") + cudaGetErrorName(after));
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Guarded outputs and workspaces

/// An output of n items at `offset` items past a guard, in a buffer of guard + offset + n + guard
/// items whose every byte is poisoned before the call.
template <class T>
struct guarded {
  T* base = nullptr;
  T* out = nullptr;
  std::size_t before = 0;  // items before `out`
  std::size_t total = 0;   // items in the buffer
};

template <class T>
guarded<T> make_guarded(context& ctx, device_slot s, std::size_t n, std::size_t offset) {
  guarded<T> g;
  g.before = guard_items + offset;
  g.total = g.before + n + guard_items;
  g.base = ctx.dev<T>(s, g.total);
  g.out = g.base == nullptr ? nullptr : g.base + g.before;
  return g;
}

/// Checks the guards of a downloaded guarded buffer (all `total` items at `host`).
template <class T>
void check_guards(result& r, const char* what, const T* host, const guarded<T>& g, std::size_t n,
                  unsigned char poison) {
  const std::string before = std::string(what) + ", items before the output";
  const std::string after = std::string(what) + ", items past the end";
  check_untouched(r, before.c_str(), host, g.before * sizeof(T), poison);
  check_untouched(r, after.c_str(), host + g.before + n, guard_items * sizeof(T), poison);
}

/// The workspace of a workspace-form call that asked for `bytes`: `bytes + extra` bytes at a
/// pointer skewed by `skew`, filled with garbage (on the setup stream) so that nothing may rely on
/// its contents. Sets `pass_bytes` to what the call is told it has; nullptr if allocation failed.
inline void* prepare_workspace(context& ctx, const workspace_choice& w, std::size_t bytes, unsigned char garbage,
                               std::size_t& pass_bytes) {
  pass_bytes = bytes + w.extra_bytes;
  const std::size_t total = pass_bytes + w.skew_bytes;
  auto* base = static_cast<unsigned char*>(ctx.device[d_temp].get(total));
  if (base == nullptr) return nullptr;
  if (cudaMemsetAsync(base, garbage, total, ctx.setup) != cudaSuccess) return nullptr;
  return base + w.skew_bytes;
}

/// The workspace form of the call under test: the size query `call(nullptr, bytes)` (which must
/// not report 0 bytes), a workspace prepared as `w` says and filled with `garbage`, the setup
/// stream drained, then `call(temp, bytes)`, whose result lands in `e`. False, with the problem
/// recorded in `res`, when it could not get as far as the call.
template <class Call>
bool call_workspace_form(context& ctx, const workspace_choice& w, unsigned char garbage, result& res, Call&& call,
                         cudaError_t& e) {
  std::size_t bytes = 0;
  if (cuda_failed(res, call(nullptr, bytes), "gpuprim size query")) return false;
  if (bytes == 0) res.problems.push_back("the size query reported 0 bytes");
  std::size_t pass_bytes = 0;
  void* temp = prepare_workspace(ctx, w, bytes, garbage, pass_bytes);
  if (temp == nullptr) {
    res.problems.push_back("workspace could not be allocated");
    return false;
  }
  if (cuda_failed(res, cudaStreamSynchronize(ctx.setup), "setup")) return false;
  e = call(temp, pass_bytes);
  return true;
}

/// Items before the first 16-byte boundary of an array `offset` items into a 256-byte aligned
/// buffer (the head the vectorised kernels peel).
template <class T>
std::size_t head_items(std::size_t offset) {
  const std::size_t misalignment = (offset * sizeof(T)) % 16;
  return misalignment == 0 ? 0 : (16 - misalignment) / sizeof(T);
}

// ---------------------------------------------------------------------------------------------
// The families (one TU each; fuzz_main.cu draws the algorithm and calls these)

/// reduce (plus, minimum, maximum) and sum.
result run_reduce(context& ctx, rng& r, algorithm a);
/// exclusive_scan (plus, minimum, maximum, compose) and exclusive_sum.
result run_exclusive_scan(context& ctx, rng& r, algorithm a);
/// inclusive_scan (plus, minimum, maximum, compose) and inclusive_sum.
result run_inclusive_scan(context& ctx, rng& r, algorithm a);

enum class key_type { u8, i8, i16, u16, f16, bf16, u32, i32, f32, u64, i64, f64 };
enum class value_type { none, u32, u64, struct12 };

/// The radix sorts; one function per group of key and value types (one TU each).
result run_sort_keys_narrow(context& ctx, rng& r, key_type k, bool descending);   // u8 i16 f16 u32 i32
result run_sort_keys_small(context& ctx, rng& r, key_type k, bool descending);    // i8 u16 bf16
result run_sort_keys_wide(context& ctx, rng& r, key_type k, bool descending);     // f32 u64 i64 f64
result run_sort_pairs_narrow(context& ctx, rng& r, key_type k, bool descending);  // u32 values
result run_sort_pairs_small(context& ctx, rng& r, key_type k, bool descending);   // u32 values: i8 u16 bf16
result run_sort_pairs_wide(context& ctx, rng& r, key_type k, bool descending);    // u32 values
result run_sort_pairs_u64(context& ctx, rng& r, key_type k, bool descending);     // u64 values: i16 u32 f32 u64 f64
result run_sort_pairs_struct(context& ctx, rng& r, key_type k, bool descending);  // 12-byte values: u8 u16 i32 f32 f64

}  // namespace fuzz
