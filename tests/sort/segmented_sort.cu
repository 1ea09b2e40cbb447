// Tests gpuprim's segmented radix sorts (segmented_radix_sort_keys / _pairs, ascending and
// descending, workspace and allocating forms) against cub::DeviceSegmentedRadixSort on the same
// input, bit for bit; pairs carry each item's input position, so equal values prove stability.
// Output items outside every segment (gaps, segments with end <= begin, guard items past n) must
// keep their poison. Keys u8, u16, i32, u32, u64, i64, float (+-0.0, no NaN), double; bit windows
// (whole key, [3, 19), empty, one partial digit); segment sizes all 0, 1, 7, 32, 100, 1000, 4097,
// 10^5, power-law, one giant among 20000 tiny ones, 16 of 2^20 + 3; offsets with gaps, out of
// order, not from 0, as int, int64_t, size_t and an iterator; num_segments 0 and 1, n == 0; few
// distinct keys; misaligned pointers; bad arguments; more than 2^31 uint8 keys (host check).
//
// CUB does not read a segment whose end lies before its begin as empty (its segmented reduce read
// garbage there): it gets those segments as [begin, begin). Floating keys sorted descending in a
// partial window are held to the host's stable sort instead (CUB's paths disagree on +-0.0 there).
#include <gpuprim/radix_sort.cuh>

#include <cub/device/device_segmented_radix_sort.cuh>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "reliability/large_inputs.cuh"
#include "sort/sort_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using gpuprim_test::device_vector;
using gpuprim_test::require_sync;
using sort_test::key_bits;

namespace {

constexpr std::size_t guard = 16;  // output items past n, which nothing may write

/// Segments of the given sizes after `lead` unused items, shuffled (when `shuffle`); with `gaps`,
/// 0-3 unused items before each, every 61st segment from 1 reversed (end < begin: empty) and 5
/// unused items at the end. n: the items the sort is given.
struct layout {
  std::vector<std::int64_t> begin, end;
  std::size_t n = 0;
};

layout make_layout(const std::vector<std::size_t>& sizes, bool gaps, bool shuffle, std::size_t lead = 0) {
  auto& rng = gpuprim_test::test_rng();
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  if (shuffle) std::shuffle(order.begin(), order.end(), rng);
  layout l;
  l.begin.resize(sizes.size());
  l.end.resize(sizes.size());
  std::size_t at = lead;
  for (std::size_t s : order) {
    if (gaps) at += rng() % 4;
    l.begin[s] = static_cast<std::int64_t>(at);
    at += sizes[s];
    l.end[s] = static_cast<std::int64_t>(at);
  }
  if (gaps) {
    for (std::size_t s = 1; s < sizes.size(); s += 61) std::swap(l.begin[s], l.end[s]);
    at += 5;
  }
  l.n = at;
  return l;
}

std::vector<std::size_t> constant_sizes(std::size_t count, std::size_t size) { return std::vector<std::size_t>(count, size); }

/// Power-law sizes: floor(1 / u^1.2) - 1 capped at `cap`, u uniform in (0, 1], until `total` items.
std::vector<std::size_t> power_law_sizes(std::size_t total, std::size_t cap) {
  auto& rng = gpuprim_test::test_rng();
  std::vector<std::size_t> sizes;
  for (std::size_t sum = 0; sum < total;) {
    const double u = (double(rng() % 1000000) + 1) / 1000000.0;
    sizes.push_back(std::min(static_cast<std::size_t>(std::pow(u, -1.2)) - 1, cap));
    sum += sizes.back();
  }
  return sizes;
}

/// Offsets i * k + add: a counting iterator, read on the device.
struct times_k {
  using value_type = long long;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = long long;
  using iterator_category = std::random_access_iterator_tag;
  long long k, add;
  __host__ __device__ long long operator[](std::size_t i) const { return static_cast<long long>(i) * k + add; }
};

enum class key_set { uniform, two_distinct, all_equal };

/// n keys: random bits (floating keys: finite, one in eight a zero of either sign), or two random
/// values, or one.
template <class Key>
std::vector<Key> make_keys(std::size_t n, key_set set) {
  using B = sort_test::bits_t<Key>;
  auto& rng = gpuprim_test::test_rng();
  auto draw = [&] {
    auto b = static_cast<B>(rng());
    if constexpr (sort_test::is_floating_key<Key>) {
      constexpr B sign = sort_test::sign_bit<Key>;
      constexpr B exponent = static_cast<B>(~sign & ~((B(1) << sort_test::key_traits<Key>::mantissa_bits) - 1));
      if ((b & exponent) == exponent) b = static_cast<B>(b & ~(sign >> 1));  // no NaN, no infinity
      if (rng() % 8 == 0) b = static_cast<B>(b & sign);                      // -0.0 or +0.0
    }
    return sort_test::from_bits<Key>(b);
  };
  const Key values[2] = {draw(), draw()};
  std::vector<Key> keys(n);
  for (auto& k : keys) k = set == key_set::uniform ? draw() : values[set == key_set::two_distinct ? rng() % 2 : 0];
  return keys;
}

struct keys_only {};  // the Value of a keys-only sort

/// One gpuprim call. end_bit < 0: the whole key through the default bit arguments (workspace form).
struct call {
  bool descending = false;
  int begin_bit = 0, end_bit = -1;
  bool allocating = false;  // the allocating form, on `stream`
  cudaStream_t stream = 0;
};

template <class Key, class Value, class BeginIt, class EndIt>
cudaError_t gpuprim_sort(const call& c, void* temp, std::size_t& bytes, const Key* ki, Key* ko, const Value* vi,
                         Value* vo, std::size_t n, std::size_t S, BeginIt b, EndIt e) {
  const int lo = c.begin_bit, hi = c.end_bit < 0 ? key_bits<Key> : c.end_bit;
  const bool defaults = c.end_bit < 0 && !c.allocating;
  if constexpr (std::is_same_v<Value, keys_only>) {
    if (c.allocating) {
      return c.descending ? gpuprim::segmented_radix_sort_keys_descending(ki, ko, n, S, b, e, lo, hi, c.stream)
                          : gpuprim::segmented_radix_sort_keys(ki, ko, n, S, b, e, lo, hi, c.stream);
    }
    if (defaults) {
      return c.descending ? gpuprim::segmented_radix_sort_keys_descending(temp, bytes, ki, ko, n, S, b, e)
                          : gpuprim::segmented_radix_sort_keys(temp, bytes, ki, ko, n, S, b, e);
    }
    return c.descending ? gpuprim::segmented_radix_sort_keys_descending(temp, bytes, ki, ko, n, S, b, e, lo, hi)
                        : gpuprim::segmented_radix_sort_keys(temp, bytes, ki, ko, n, S, b, e, lo, hi);
  } else {
    if (c.allocating) {
      return c.descending
                 ? gpuprim::segmented_radix_sort_pairs_descending(ki, ko, vi, vo, n, S, b, e, lo, hi, c.stream)
                 : gpuprim::segmented_radix_sort_pairs(ki, ko, vi, vo, n, S, b, e, lo, hi, c.stream);
    }
    if (defaults) {
      return c.descending ? gpuprim::segmented_radix_sort_pairs_descending(temp, bytes, ki, ko, vi, vo, n, S, b, e)
                          : gpuprim::segmented_radix_sort_pairs(temp, bytes, ki, ko, vi, vo, n, S, b, e);
    }
    return c.descending
               ? gpuprim::segmented_radix_sort_pairs_descending(temp, bytes, ki, ko, vi, vo, n, S, b, e, lo, hi)
               : gpuprim::segmented_radix_sort_pairs(temp, bytes, ki, ko, vi, vo, n, S, b, e, lo, hi);
  }
}

template <class Key, class Value>
cudaError_t cub_sort(bool descending, void* temp, std::size_t& bytes, const Key* ki, Key* ko, const Value* vi,
                     Value* vo, std::size_t n, std::size_t S, const std::int64_t* b, const std::int64_t* e, int lo,
                     int hi) {
  using sort = cub::DeviceSegmentedRadixSort;
  const int items = static_cast<int>(n), segments = static_cast<int>(S);
  if constexpr (std::is_same_v<Value, keys_only>) {
    return descending ? sort::SortKeysDescending(temp, bytes, ki, ko, items, segments, b, e, lo, hi)
                      : sort::SortKeys(temp, bytes, ki, ko, items, segments, b, e, lo, hi);
  } else {
    return descending ? sort::SortPairsDescending(temp, bytes, ki, ko, vi, vo, items, segments, b, e, lo, hi)
                      : sort::SortPairs(temp, bytes, ki, ko, vi, vo, items, segments, b, e, lo, hi);
  }
}

/// The arrays of one layout: inputs and outputs `off` items into their buffers, the input
/// positions as values, CUB's offsets (ends clamped to begins) and which items lie in a segment.
template <class Key>
struct arrays {
  arrays(const layout& l, const std::vector<Key>& keys_, std::size_t off_)
      : n(l.n), segments(l.begin.size()), off(off_), keys(keys_), begin(l.begin), end(segments), inside(n, 0),
        keys_in(off + n + 1), keys_out(off + n + guard), cub_keys(n + 1), values_in(off + n + 1),
        values_out(off + n + guard), cub_values(n + 1) {
    for (std::size_t s = 0; s < segments; ++s) {
      end[s] = std::max(l.begin[s], l.end[s]);
      std::fill(inside.begin() + l.begin[s], inside.begin() + end[s], 1);
    }
    cub_begin = device_vector<std::int64_t>(begin);
    cub_end = device_vector<std::int64_t>(end);
    std::vector<std::uint32_t> positions(n);
    std::iota(positions.begin(), positions.end(), 0u);
    keys_in.upload(keys, off);
    values_in.upload(positions, off);
  }
  std::size_t n, segments, off;
  std::vector<Key> keys;
  std::vector<std::int64_t> begin, end;  // end: at least begin
  std::vector<char> inside;
  device_vector<Key> keys_in, keys_out, cub_keys;
  device_vector<std::uint32_t> values_in, values_out, cub_values;
  device_vector<std::int64_t> cub_begin, cub_end;
};

/// CUB's output where a segment is, the poison byte `pattern` everywhere else (and past n).
template <class T>
std::vector<T> expected_output(const std::vector<T>& cub, const std::vector<char>& inside, unsigned char pattern) {
  std::vector<T> e(inside.size() + guard);
  std::memset(static_cast<void*>(e.data()), pattern, e.size() * sizeof(T));
  for (std::size_t i = 0; i < inside.size(); ++i) {
    if (inside[i]) e[i] = cub[i];
  }
  return e;
}

/// Sorts a.keys (with the positions as values for pairs) with CUB (or, with `host_reference`, the
/// host's stable sort by window bits), then with gpuprim in the workspace form (outputs poisoned
/// with 0xCD, a poisoned workspace `off` bytes in) and in the allocating form on its own stream
/// (poisoned with 0x32); all n + guard output items must match.
template <class Value, class Key, class BeginIt, class EndIt>
void check_one(arrays<Key>& a, const call& c, BeginIt begin, EndIt end, cudaStream_t stream, bool host_reference) {
  constexpr bool pairs = !std::is_same_v<Value, keys_only>;
  INFO((pairs ? "pairs" : "keys only") << (c.descending ? ", descending" : ", ascending"));
  const int lo = c.begin_bit, hi = c.end_bit < 0 ? key_bits<Key> : c.end_bit;
  const std::size_t n = a.n, S = a.segments, off = a.off;
  const Key* ki = a.keys_in.data() + off;
  Key* ko = a.keys_out.data() + off;
  const Value* vi = pairs ? reinterpret_cast<const Value*>(a.values_in.data() + off) : nullptr;
  Value* vo = pairs ? reinterpret_cast<Value*>(a.values_out.data() + off) : nullptr;

  std::vector<Key> cub_keys(n);
  std::vector<std::uint32_t> cub_values(n);
  if (host_reference) {
    for (std::size_t s = 0; s < S; ++s) {
      const auto b = static_cast<std::size_t>(a.begin[s]), len = static_cast<std::size_t>(a.end[s]) - b;
      const auto order = sort_test::reference_order(a.keys.data() + b, len, c.descending, lo, hi);
      for (std::size_t i = 0; i < len; ++i) {
        cub_keys[b + i] = a.keys[b + order[i]];
        cub_values[b + i] = static_cast<std::uint32_t>(b + order[i]);
      }
    }
  } else if (n > 0 && S > 0) {
    auto* cvo = pairs ? reinterpret_cast<Value*>(a.cub_values.data()) : nullptr;
    a.cub_keys.poison();  // CUB writes only the segments; all n items are read back
    a.cub_values.poison();
    std::size_t bytes = 0;
    REQUIRE_CUDA(cub_sort(c.descending, nullptr, bytes, ki, a.cub_keys.data(), vi, cvo, n, S, a.cub_begin.data(),
                          a.cub_end.data(), lo, hi));
    device_vector<unsigned char> temp(std::max<std::size_t>(bytes, 1));
    REQUIRE_CUDA(cub_sort(c.descending, temp.data(), bytes, ki, a.cub_keys.data(), vi, cvo, n, S,
                          a.cub_begin.data(), a.cub_end.data(), lo, hi));
    require_sync();
    cub_keys = a.cub_keys.download(0, n);
    if (pairs) cub_values = a.cub_values.download(0, n);
    if (lo == hi) {  // an empty window: a stable copy of each segment
      std::size_t moved = 0;
      for (std::size_t i = 0; i < n; ++i) {
        moved += a.inside[i] && (!gpuprim_test::bitwise_equal(cub_keys[i], a.keys[i]) || (pairs && cub_values[i] != i));
      }
      CHECK(moved == 0);
    }
  }

  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim_sort(c, nullptr, bytes, ki, ko, vi, vo, n, S, begin, end));
  REQUIRE(bytes >= 1);
  device_vector<unsigned char> temp(bytes + off);
  for (bool allocating : {false, true}) {
    const unsigned char pattern = allocating ? 0x32 : 0xCD;
    INFO((allocating ? "allocating form, own stream, outputs poisoned with 0x32" : "workspace form, 0xCD"));
    a.keys_out.poison(pattern);
    a.values_out.poison(pattern);
    temp.poison();
    call f = c;
    f.allocating = allocating;
    f.stream = allocating ? stream : cudaStream_t(0);
    std::size_t b = bytes;
    REQUIRE_CUDA(gpuprim_sort(f, temp.data() + off, b, ki, ko, vi, vo, n, S, begin, end));
    REQUIRE_CUDA(cudaStreamSynchronize(f.stream));
    require_sync();
    const auto want_keys = expected_output(cub_keys, a.inside, pattern);
    sort_test::check_bitwise_equal("keys", want_keys.data(), a.keys_out.download(off, n + guard).data(), n + guard);
    if (pairs) {
      const auto want_values = expected_output(cub_values, a.inside, pattern);
      sort_test::check_bitwise_equal("values", want_values.data(), a.values_out.download(off, n + guard).data(),
                                     n + guard);
    }
  }
}

struct window {
  int begin_bit = 0, end_bit = -1;  // end_bit < 0: the whole key, default arguments
};

/// Every call on one layout and key set: both orders, keys and pairs, both forms, against CUB.
/// gpuprim reads the offsets through `begin` and `end`; CUB gets the layout's as int64_t.
template <class Key, class BeginIt, class EndIt>
void check_sorts(const layout& l, const std::vector<Key>& keys, window w, std::size_t off, BeginIt begin,
                 EndIt end) {
  const int hi = w.end_bit < 0 ? key_bits<Key> : w.end_bit;
  INFO((sort_test::key_traits<Key>::name()) << " keys, n = " << l.n << ", " << l.begin.size() << " segments, "
                                            << (sort_test::bit_window{w.begin_bit, hi}) << ", arrays offset by "
                                            << off << " items (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed()
                                            << ")");
  REQUIRE(keys.size() == l.n);
  arrays<Key> a(l, keys, off);
  gpuprim_test::scoped_stream stream;
  const bool partial = w.begin_bit < hi && (w.begin_bit != 0 || hi != key_bits<Key>);
  for (bool descending : {false, true}) {
    // CUB's own paths disagree where +-0.0 go in a partial window of a descending sort (see
    // device_sort_common.cuh): there the host's sort, in the library's order, is the reference.
    const bool host = sort_test::is_floating_key<Key> && descending && partial;
    const call c{descending, w.begin_bit, w.end_bit};
    check_one<keys_only>(a, c, begin, end, stream.get(), host);
    check_one<std::uint32_t>(a, c, begin, end, stream.get(), host);
  }
  const auto keys_after = a.keys_in.download(off, l.n);
  sort_test::check_bitwise_equal("input keys after the sorts", a.keys.data(), keys_after.data(), l.n);
  const auto values_after = a.values_in.download(off, l.n);
  std::size_t changed = 0;
  for (std::size_t i = 0; i < l.n; ++i) changed += values_after[i] != i;
  CHECK(changed == 0);
}

/// check_sorts with the layout's offsets as device arrays of Offset.
template <class Offset, class Key>
void check_offsets(const layout& l, const std::vector<Key>& keys, window w, std::size_t off) {
  std::vector<Offset> b(l.begin.begin(), l.begin.end()), e(l.end.begin(), l.end.end());
  b.push_back(0);  // never empty arrays: non-null offsets also for 0 segments
  e.push_back(0);
  const device_vector<Offset> d_b(b), d_e(e);
  check_sorts(l, keys, w, off, d_b.data(), d_e.data());
}

}  // namespace

TEMPLATE_TEST_CASE("segmented radix sort: key type", "[sort][device][segmented]", std::uint8_t, std::uint16_t,
                   std::int32_t, std::uint32_t, std::uint64_t, std::int64_t, float, double) {
  using Key = TestType;
  constexpr int bits = key_bits<Key>;
  // Tiny to a few tiles, around powers of two, (but in small mode) 10^5 and 10^6 + 3, and 300 of
  // 0-40 items; with gaps, shuffled, from item 3, reversed ones among them.
  std::vector<std::size_t> sizes = {0, 1, 2, 7, 31, 32, 33, 100, 255, 256, 257, 1000, 1023, 1024, 1025, 4096, 4097,
                                    12345, 65537};
  if (!gpuprim_test::small_mode()) sizes.insert(sizes.end(), {100000, 1000003});
  for (int i = 0; i < 300; ++i) sizes.push_back(gpuprim_test::test_rng()() % 41);
  const layout l = make_layout(sizes, true, true, 3);
  const std::vector<Key> keys = make_keys<Key>(l.n, key_set::uniform);
  // The whole key, [3, 19) (to the key's last bit but one for narrow keys), empty, and one partial
  // digit at the top.
  for (const window w : {window{}, window{3, std::min(19, bits - 1)}, window{0, 0}, window{bits - 5, bits}}) {
    check_offsets<std::int64_t>(l, keys, w, 0);
  }
  // Few distinct keys, so that passes whose digit is the same everywhere may be skipped; arrays
  // misaligned by one item.
  check_offsets<std::int64_t>(l, make_keys<Key>(l.n, key_set::two_distinct), window{}, 1);
  check_offsets<std::int64_t>(l, make_keys<Key>(l.n, key_set::all_equal), window{0, bits - 1}, 1);
}

TEST_CASE("segmented radix sort: constant segment sizes", "[sort][device][segmented]") {
  const bool small = gpuprim_test::small_mode();
  const std::size_t k = small ? 10 : 1;  // fewer segments in small mode
  const std::size_t cases[][2] = {{5000 / k, 0}, {70000 / k, 1},   {30000 / k, 7},   {5000 / k, 32},
                                  {3000 / k, 100}, {700 / k, 1000}, {100 / k, 4097}, {20 / k, 100000},
                                  {1, 1},          {1, 0},          {1, small ? std::size_t(30000) : std::size_t(300000)}};
  for (const auto& c : cases) {
    const std::size_t count = c[0], size = c[1];
    CAPTURE(count, size);
    // In order from item 0, no gaps: CSR int offsets (end = begin + 1 of one array).
    const layout l = make_layout(constant_sizes(count, size), false, false);
    std::vector<int> csr(l.begin.begin(), l.begin.end());
    csr.push_back(static_cast<int>(l.n));
    const device_vector<int> d_csr(csr);
    check_sorts(l, make_keys<std::uint32_t>(l.n, key_set::uniform), window{}, 0, d_csr.data(), d_csr.data() + 1);
    // Gaps, shuffled, from item 5, reversed ones; int64_t offsets; misaligned arrays.
    const layout g = make_layout(constant_sizes(count, size), true, true, 5);
    check_offsets<std::int64_t>(g, make_keys<float>(g.n, key_set::uniform), window{}, 1);
  }
}

TEST_CASE("segmented radix sort: power-law sizes, a giant segment, 16 big segments", "[sort][device][segmented]") {
  const bool small = gpuprim_test::small_mode();
  SECTION("power-law sizes up to 10^6") {
    const layout l = make_layout(power_law_sizes(small ? 200000 : 3000000, 1000000), true, true, 3);
    check_offsets<std::int64_t>(l, make_keys<double>(l.n, key_set::uniform), window{}, 1);
    check_offsets<std::int64_t>(l, make_keys<std::uint16_t>(l.n, key_set::uniform), window{3, 16}, 0);
  }
  SECTION("one giant segment among 20000 tiny ones") {
    std::vector<std::size_t> sizes = constant_sizes(20000, 3);
    sizes[7777] = small ? 500000 : 3000000;
    const layout l = make_layout(sizes, true, false);
    check_offsets<std::int64_t>(l, make_keys<std::int64_t>(l.n, key_set::uniform), window{}, 0);
    const layout s = make_layout(sizes, true, true, 1);
    check_offsets<std::int64_t>(s, make_keys<std::uint32_t>(s.n, key_set::uniform), window{3, 19}, 1);
  }
  SECTION("16 big segments") {
    const layout l = make_layout(constant_sizes(16, small ? 40000 : (std::size_t(1) << 20) + 3), false, true);
    check_offsets<std::int64_t>(l, make_keys<std::uint32_t>(l.n, key_set::uniform), window{}, 0);
    check_offsets<std::int64_t>(l, make_keys<std::uint8_t>(l.n, key_set::uniform), window{}, 1);
  }
}

TEST_CASE("segmented radix sort: offsets as int, int64_t, size_t and an iterator", "[sort][device][segmented]") {
  const layout l = make_layout(power_law_sizes(gpuprim_test::small_mode() ? 50000 : 500000, 20000), true, true, 2);
  const auto keys = make_keys<std::uint32_t>(l.n, key_set::uniform);
  check_offsets<int>(l, keys, window{}, 0);
  check_offsets<std::int64_t>(l, keys, window{}, 1);
  check_offsets<std::size_t>(l, keys, window{}, 1);  // end < begin is empty for unsigned offsets too
  // Counting iterators: segment s = [40 s + 3, 40 s + 33), gaps of 10 items between them.
  const std::size_t S = 3001;
  layout it;
  for (std::size_t s = 0; s < S; ++s) {
    it.begin.push_back(static_cast<std::int64_t>(40 * s + 3));
    it.end.push_back(static_cast<std::int64_t>(40 * s + 33));
  }
  it.n = 40 * S;
  check_sorts(it, make_keys<std::uint32_t>(it.n, key_set::uniform), window{}, 1, times_k{40, 3}, times_k{40, 33});
}

TEST_CASE("segmented radix sort: no segments, no items, bad arguments", "[sort][device][segmented]") {
  SECTION("no segments; no items; one segment of everything") {
    layout none;
    none.n = 1000;
    check_offsets<int>(none, make_keys<std::uint32_t>(none.n, key_set::uniform), window{}, 0);
    layout empty;  // n == 0: three segments [0, 0)
    empty.begin = empty.end = {0, 0, 0};
    check_offsets<int>(empty, std::vector<std::uint32_t>{}, window{}, 0);
    layout one = make_layout({4099}, false, false);
    check_offsets<int>(one, make_keys<std::uint32_t>(one.n, key_set::uniform), window{3, 19}, 0);
  }
  SECTION("bad arguments: cudaErrorInvalidValue, nothing written") {
    using Key = std::uint32_t;
    const std::size_t n = 1000, S = 10;
    std::vector<int> csr(S + 1);
    for (std::size_t s = 0; s <= S; ++s) csr[s] = static_cast<int>(s * 100);
    std::vector<std::uint32_t> positions(n);
    std::iota(positions.begin(), positions.end(), 0u);
    const device_vector<int> d_csr(csr), zeros(std::vector<int>(S + 1, 0));
    device_vector<Key> in(make_keys<Key>(n, key_set::uniform)), out(n);
    device_vector<std::uint32_t> vin(positions), vout(n);
    out.poison(0xCD);
    vout.poison(0xCD);
    const int *b = d_csr.data(), *e = b + 1, *null_offsets = nullptr;
    const Key* null_in = nullptr;
    Key* null_out = nullptr;
    const std::uint32_t* null_vin = nullptr;
    std::uint32_t* null_vout = nullptr;
    std::size_t bytes = 0;
    REQUIRE_CUDA(gpuprim::segmented_radix_sort_pairs(nullptr, bytes, in.data(), out.data(), vin.data(), vout.data(),
                                                     n, S, b, e));
    device_vector<unsigned char> temp(bytes);
    std::size_t t = bytes;
    constexpr cudaError_t invalid = cudaErrorInvalidValue;
    // Null pointers with work.
    CHECK(gpuprim::segmented_radix_sort_keys(temp.data(), t, null_in, out.data(), n, S, b, e) == invalid);
    CHECK(gpuprim::segmented_radix_sort_keys_descending(temp.data(), t, in.data(), null_out, n, S, b, e) == invalid);
    CHECK(gpuprim::segmented_radix_sort_pairs(temp.data(), t, in.data(), out.data(), null_vin, vout.data(), n, S, b,
                                              e) == invalid);
    CHECK(gpuprim::segmented_radix_sort_pairs(temp.data(), t, in.data(), out.data(), vin.data(), null_vout, n, S, b,
                                              e) == invalid);
    CHECK(gpuprim::segmented_radix_sort_keys(temp.data(), t, in.data(), out.data(), n, S, null_offsets, e) == invalid);
    CHECK(gpuprim::segmented_radix_sort_keys(temp.data(), t, in.data(), out.data(), n, S, b, null_offsets) == invalid);
    CHECK(gpuprim::segmented_radix_sort_keys(null_in, out.data(), n, S, b, e) == invalid);
    CHECK(gpuprim::segmented_radix_sort_pairs_descending(in.data(), out.data(), vin.data(), null_vout, n, S, b, e) ==
          invalid);
    // Bit ranges: begin_bit > end_bit, past the key, negative.
    const std::pair<int, int> bad_windows[] = {{9, 8}, {0, 33}, {-1, 8}, {33, 33}, {32, 31}};
    for (const auto& w : bad_windows) {
      CAPTURE(w.first, w.second);
      CHECK(gpuprim::segmented_radix_sort_keys(temp.data(), t, in.data(), out.data(), n, S, b, e, w.first,
                                               w.second) == invalid);
      CHECK(gpuprim::segmented_radix_sort_pairs_descending(temp.data(), t, in.data(), out.data(), vin.data(),
                                                           vout.data(), n, S, b, e, w.first, w.second) == invalid);
      CHECK(gpuprim::segmented_radix_sort_pairs(in.data(), out.data(), vin.data(), vout.data(), n, S, b, e, w.first,
                                                w.second) == invalid);
    }
    // A workspace one byte short, or of 0 bytes.
    std::size_t short_bytes = bytes - 1, no_bytes = 0;
    CHECK(gpuprim::segmented_radix_sort_pairs(temp.data(), short_bytes, in.data(), out.data(), vin.data(),
                                              vout.data(), n, S, b, e) == invalid);
    CHECK(gpuprim::segmented_radix_sort_keys(temp.data(), no_bytes, in.data(), out.data(), n, S, b, e) == invalid);
    require_sync();
    CHECK(large_test::touched_bytes(out.data(), out.bytes(), 0xCD) == 0);
    CHECK(large_test::touched_bytes(vout.data(), vout.bytes(), 0xCD) == 0);
    // No items: null pointers are fine (the segments are all [0, 0)).
    CHECK(gpuprim::segmented_radix_sort_keys(temp.data(), t, null_in, null_out, 0, S, zeros.data(),
                                             zeros.data() + 1) == cudaSuccess);
    CHECK(gpuprim::segmented_radix_sort_pairs(null_in, null_out, null_vin, null_vout, 0, S, zeros.data(),
                                              zeros.data() + 1) == cudaSuccess);
    require_sync();
  }
}

namespace {

/// Key i of the large case: a random byte, for half of the items ANDed with a second one (an
/// uneven histogram).
__host__ __device__ inline std::uint8_t large_key(std::uint64_t seed, std::size_t i) {
  const std::uint64_t z = large_test::hash64(seed, i);
  const auto k = static_cast<std::uint8_t>(z);
  return (z >> 63) != 0 ? static_cast<std::uint8_t>(k & (z >> 8)) : k;
}

__global__ void __launch_bounds__(256) fill_large(std::uint8_t* keys, std::uint32_t* values, std::size_t n,
                                                  std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = large_key(seed, i);
    values[i] = static_cast<std::uint32_t>(i);
  }
}

}  // namespace

// Pairs of uint8 keys and uint32 input positions, made on the device; int64_t offsets, out of
// order, with gaps: [3, 490), [500, 2^31 + 800) (more than 2^31 items), [2^31 + 810, 2^31 + 990)
// and [2^31 + 995, 2^31 + 992) (reversed: empty). The host check of output item p in [b, e): its
// value v lies in [b, e), its key is v's, and against item p - 1 > b: in order, and v greater where
// the keys are equal. So no value appears twice: the segment is exactly its stable sort. Items
// outside every segment keep the poison. ~21.5 GB of arrays plus the workspace (~11 GB: the
// alternate keys and values); ~10-20 s on an H200 host, most of it the host check.
TEST_CASE("segmented radix sort: more than 2^31 uint8 keys", "[sort][device][segmented][large]") {
  if (gpuprim_test::small_mode()) {
    WARN("skipped in small mode");
    return;
  }
  const std::size_t t = std::size_t(1) << 31, n = t + 1000;
  const std::vector<std::int64_t> begin = {std::int64_t(t + 810), 500, std::int64_t(t + 995), 3};
  const std::vector<std::int64_t> end = {std::int64_t(t + 990), std::int64_t(t + 800), std::int64_t(t + 992), 490};
  const std::pair<std::size_t, std::size_t> runs[] = {{3, 490}, {500, t + 800}, {t + 810, t + 990}};  // non-empty
  const std::size_t S = begin.size();
  const std::size_t data_bytes = 2 * (n + guard) * (sizeof(std::uint8_t) + sizeof(std::uint32_t));
  if (gpuprim_test::free_device_memory() < data_bytes + (std::size_t(1) << 30)) {
    GPUPRIM_LARGE_SKIP("skipped: needs " << data_bytes / double(1 << 30) << " GiB of free device memory and more");
    return;
  }
  device_vector<std::uint8_t> keys_in, keys_out;
  device_vector<std::uint32_t> values_in, values_out;
  device_vector<unsigned char> temp;
  if (!keys_in.allocate(n) || !keys_out.allocate(n + guard) || !values_in.allocate(n) ||
      !values_out.allocate(n + guard)) {
    GPUPRIM_LARGE_SKIP("skipped: allocation failed");
    return;
  }
  const device_vector<std::int64_t> d_begin(begin), d_end(end);
  const std::uint64_t seed = gpuprim_test::test_seed() ^ 0x5e65ull;
  fill_large<<<4096, 256>>>(keys_in.data(), values_in.data(), n, seed);
  require_sync();
  const std::uint8_t* k_in = keys_in.data();
  const std::uint32_t* v_in = values_in.data();
  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim::segmented_radix_sort_pairs(nullptr, bytes, k_in, keys_out.data(), v_in, values_out.data(), n,
                                                   S, d_begin.data(), d_end.data()));
  if (gpuprim_test::free_device_memory() < bytes + (std::size_t(256) << 20) || !temp.allocate(bytes)) {
    GPUPRIM_LARGE_SKIP("skipped: no room for the workspace of " << bytes / double(1 << 30) << " GiB");
    return;
  }
  for (bool descending : {false, true}) {
    INFO("n = " << n << (descending ? ", descending, allocating form" : ", ascending, workspace form")
                << " (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")");
    keys_out.poison(0xCD);
    values_out.poison(0xCD);
    if (descending) {
      REQUIRE(temp.allocate(0));  // frees it: the allocating form takes its own
      REQUIRE_CUDA(gpuprim::segmented_radix_sort_pairs_descending(k_in, keys_out.data(), v_in, values_out.data(), n,
                                                                  S, d_begin.data(), d_end.data()));
    } else {
      REQUIRE_CUDA(gpuprim::segmented_radix_sort_pairs(temp.data(), bytes, k_in, keys_out.data(), v_in,
                                                       values_out.data(), n, S, d_begin.data(), d_end.data()));
    }
    require_sync();
    const large_test::mismatches m = large_test::check_chunks(
        keys_out.data(), values_out.data(), n, [&](std::size_t p, const std::uint8_t* k, const std::uint32_t* v) {
          std::size_t b = 0, e = 0;
          for (const auto& r : runs) {
            if (p >= r.first && p < r.second) {
              b = r.first;
              e = r.second;
            }
          }
          if (e == 0) return *k != 0xCD || *v != 0xCDCDCDCDu;  // outside every segment: untouched
          if (*v < b || *v >= e || *k != large_key(seed, *v)) return true;
          if (p == b) return false;
          if (descending ? k[-1] < *k : k[-1] > *k) return true;
          return k[-1] == *k && v[-1] >= *v;
        });
    INFO(m.count << " output items wrong; the first is item " << m.first);
    CHECK(m.checked == n);
    CHECK(m.count == 0);
    CHECK(large_test::touched_bytes(keys_out.data() + n, guard, 0xCD) == 0);
    CHECK(large_test::touched_bytes(values_out.data() + n, guard * sizeof(std::uint32_t), 0xCD) == 0);
  }
  const large_test::mismatches changed = large_test::check_chunks(
      k_in, v_in, n, [&](std::size_t i, const std::uint8_t* k, const std::uint32_t* v) {
        return *k != large_key(seed, i) || *v != static_cast<std::uint32_t>(i);
      });
  INFO(changed.count << " input items changed; the first is item " << changed.first);
  CHECK(changed.count == 0);
}
