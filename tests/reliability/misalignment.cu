// Inputs and outputs at every misalignment their types allow (every item offset within 16 bytes,
// input and output independently), for the radix sorts (keys of 1, 2, 4 and 8 bytes, and pairs
// whose value offsets vary on their own) at a one-block, a fused-kernel and an onesweep size, the
// scans (1-, 2- and 8-byte items) at a one-block size and a multi-tile size, and reduce of int16
// items; checked against host std:: algorithms, with the items around each output left untouched.
#include <gpuprim/radix_sort.cuh>
#include <gpuprim/reduce.cuh>
#include <gpuprim/scan.cuh>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <vector>

#include "support/catch.hpp"
#include "support/test_util.cuh"

using gpuprim_test::device_vector;

namespace {

constexpr unsigned char poison = 0xCD;

template <class T>
std::vector<T> random_items(std::size_t n, unsigned bits) {
  std::vector<T> v(n);
  auto& rng = gpuprim_test::test_rng();
  for (auto& x : v) x = static_cast<T>(rng() >> (64 - bits));
  return v;
}

/// A device array of n items placed at item `offset` of an allocation, with guard items on both sides.
template <class T>
struct placed {
  static constexpr std::size_t guard = 16;
  device_vector<T> buffer;
  std::size_t offset;
  std::size_t n;
  placed(std::size_t n_, std::size_t offset_) : buffer(n_ + offset_ + guard), offset(offset_), n(n_) {
    buffer.poison(poison);
  }
  T* data() { return buffer.data() + offset; }
  void upload(const std::vector<T>& h) { buffer.upload(h, offset); }
  /// The n items, after checking that every item around them still holds the poison.
  std::vector<T> download_checked() {
    const std::vector<T> all = buffer.download();
    T p;
    std::memset(static_cast<void*>(&p), poison, sizeof(T));
    std::size_t touched = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if ((i < offset || i >= offset + n) && std::memcmp(&all[i], &p, sizeof(T)) != 0) ++touched;
    }
    CHECK(touched == 0);
    return std::vector<T>(all.begin() + offset, all.begin() + offset + n);
  }
};

template <class Key, class Value>
void check_sort(std::size_t n, std::size_t key_in, std::size_t key_out, std::size_t value_in, std::size_t value_out,
                bool descending) {
  INFO("n = " << n << ", " << 8 * sizeof(Key) << "-bit keys" << (std::is_void<Value>::value ? "" : " with values")
              << ", offsets (items): keys in " << key_in << " out " << key_out << ", values in " << value_in
              << " out " << value_out << (descending ? ", descending" : ""));
  const std::vector<Key> keys = random_items<Key>(n, sizeof(Key) == 1 ? 8 : 12);  // duplicates: stability shows
  placed<Key> d_keys(n, key_in), d_keys_out(n, key_out);
  d_keys.upload(keys);
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return descending ? keys[a] > keys[b] : keys[a] < keys[b]; });
  std::vector<Key> expect(n);
  for (std::size_t i = 0; i < n; ++i) expect[i] = keys[order[i]];
  std::size_t bytes = 0;
  if constexpr (std::is_void<Value>::value) {
    auto call = [&](void* temp) {
      return descending ? gpuprim::radix_sort_keys_descending(temp, bytes, d_keys.data(), d_keys_out.data(), n)
                        : gpuprim::radix_sort_keys(temp, bytes, d_keys.data(), d_keys_out.data(), n);
    };
    REQUIRE_CUDA(call(nullptr));
    device_vector<unsigned char> temp(bytes);
    REQUIRE_CUDA(call(temp.data()));
    gpuprim_test::require_sync();
    CHECK(d_keys_out.download_checked() == expect);
  } else {
    std::vector<Value> values(n), expect_values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<Value>(i);
    for (std::size_t i = 0; i < n; ++i) expect_values[i] = values[order[i]];
    placed<Value> d_values(n, value_in), d_values_out(n, value_out);
    d_values.upload(values);
    auto call = [&](void* temp) {
      return descending ? gpuprim::radix_sort_pairs_descending(temp, bytes, d_keys.data(), d_keys_out.data(),
                                                               d_values.data(), d_values_out.data(), n)
                        : gpuprim::radix_sort_pairs(temp, bytes, d_keys.data(), d_keys_out.data(), d_values.data(),
                                                    d_values_out.data(), n);
    };
    REQUIRE_CUDA(call(nullptr));
    device_vector<unsigned char> temp(bytes);
    REQUIRE_CUDA(call(temp.data()));
    gpuprim_test::require_sync();
    CHECK(d_keys_out.download_checked() == expect);
    CHECK(d_values_out.download_checked() == expect_values);
  }
  CHECK(d_keys.download_checked() == keys);  // the input is const
}

/// Sizes: 3001 (one block: the rank sort), 30011 (the fused kernel's tiles) and 300007 (onesweep).
/// Key offsets: every (in, out) pair at 30011; one pair per input offset at the other sizes (and
/// in small mode), which also takes every output offset. Pairs sorts then loop the value offsets
/// on their own, the same way, with the key offsets fixed at (1, last). Small mode runs 300007
/// once for the keys and once for the values.
template <class Key, class Value = void>
void sort_every_offset() {
  constexpr bool pairs = !std::is_void<Value>::value;
  constexpr std::size_t keys_per_16 = 16 / sizeof(Key);
  constexpr std::size_t values_per_16 = pairs ? 16 / sizeof(std::conditional_t<pairs, Value, char>) : 1;
  const bool small = gpuprim_test::small_mode();
  // Whether the offset pair (in, out) of items with `per_16` offsets runs at size n.
  auto runs = [&](std::size_t n, std::size_t in, std::size_t out, std::size_t per_16) {
    if (!small && n == 30011) return true;
    if (out != (in + 1) % per_16) return false;
    return !(small && n == 300007 && in != 1 % per_16);
  };
  for (std::size_t n : {std::size_t(3001), std::size_t(30011), std::size_t(300007)}) {
    for (std::size_t in = 0; in < keys_per_16; ++in) {
      for (std::size_t out = 0; out < keys_per_16; ++out) {
        if (!runs(n, in, out, keys_per_16)) continue;
        check_sort<Key, Value>(n, in, out, (in + out) % values_per_16, (in * 3 + 1) % values_per_16, (in + out) % 2 == 1);
      }
    }
    if constexpr (pairs) {
      for (std::size_t in = 0; in < values_per_16; ++in) {
        for (std::size_t out = 0; out < values_per_16; ++out) {
          if (!runs(n, in, out, values_per_16)) continue;
          check_sort<Key, Value>(n, 1, keys_per_16 - 1, in, out, (in + out) % 2 == 0);
        }
      }
    }
  }
}

template <class T>
void check_scan(std::size_t n, std::size_t in_offset, std::size_t out_offset) {
  INFO("n = " << n << ", " << 8 * sizeof(T) << "-bit items, offsets (items): in " << in_offset << " out " << out_offset);
  const std::vector<T> items = random_items<T>(n, 8 * sizeof(T));
  std::vector<T> expect_exclusive(n), expect_inclusive(n);
  T acc = T(5);
  for (std::size_t i = 0; i < n; ++i) {
    expect_exclusive[i] = acc;
    // Full-range int64 sums overflow; the reference wraps them in the unsigned type, as the
    // device's adds do (a signed overflow on the host would be undefined: UBSan's find).
    using unsigned_t = std::make_unsigned_t<T>;
    acc = static_cast<T>(static_cast<unsigned_t>(acc) + static_cast<unsigned_t>(items[i]));
    expect_inclusive[i] = static_cast<T>(std::max(i == 0 ? items[0] : expect_inclusive[i - 1], items[i]));
  }
  placed<T> d_in(n, in_offset), d_out(n, out_offset);
  d_in.upload(items);
  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim::exclusive_scan(nullptr, bytes, d_in.data(), d_out.data(), n, T(5), gpuprim::plus{}));
  std::size_t bytes_max = 0;
  REQUIRE_CUDA(gpuprim::inclusive_scan(nullptr, bytes_max, d_in.data(), d_out.data(), n, gpuprim::maximum{}));
  device_vector<unsigned char> temp(std::max(bytes, bytes_max));
  REQUIRE_CUDA(gpuprim::exclusive_scan(temp.data(), bytes, d_in.data(), d_out.data(), n, T(5), gpuprim::plus{}));
  gpuprim_test::require_sync();
  CHECK(d_out.download_checked() == expect_exclusive);
  REQUIRE_CUDA(gpuprim::inclusive_scan(temp.data(), bytes_max, d_in.data(), d_out.data(), n, gpuprim::maximum{}));
  gpuprim_test::require_sync();
  CHECK(d_out.download_checked() == expect_inclusive);
}

template <class T>
void scan_every_offset() {
  constexpr std::size_t per_16 = 16 / sizeof(T);
  const bool small = gpuprim_test::small_mode();
  for (std::size_t n : {std::size_t(1000), std::size_t(100003)}) {
    for (std::size_t in = 0; in < per_16; ++in) {
      for (std::size_t out = 0; out < per_16; ++out) {
        if ((small || n < 4096) && out != (in + 3) % per_16) continue;
        check_scan<T>(n, in, out);
      }
    }
  }
}

/// Reduce of int16 items at item offset `in_offset`: gpuprim::sum into an int64 output (workspace
/// form) and gpuprim::reduce with maximum into an int16 output (allocating form), each output at
/// item offset `out_offset` with guards around it.
void check_reduce_int16(std::size_t n, std::size_t in_offset, std::size_t out_offset) {
  INFO("n = " << n << ", int16 items, offsets (items): in " << in_offset << " out " << out_offset);
  const std::vector<std::int16_t> items = random_items<std::int16_t>(n, 16);
  long long sum = 0;
  std::int16_t max = items[0];
  for (std::int16_t x : items) {
    sum += x;
    max = std::max(max, x);
  }
  placed<std::int16_t> d_in(n, in_offset);
  d_in.upload(items);
  placed<long long> d_sum(1, out_offset % 2);
  placed<std::int16_t> d_max(1, out_offset);
  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim::sum(nullptr, bytes, d_in.data(), d_sum.data(), n));
  device_vector<unsigned char> temp(bytes);
  REQUIRE_CUDA(gpuprim::sum(temp.data(), bytes, d_in.data(), d_sum.data(), n));
  REQUIRE_CUDA(gpuprim::reduce(d_in.data(), d_max.data(), n, std::int16_t(-32768), gpuprim::maximum{}));
  gpuprim_test::require_sync();
  CHECK(d_sum.download_checked() == std::vector<long long>{sum});
  CHECK(d_max.download_checked() == std::vector<std::int16_t>{max});
  CHECK(d_in.download_checked() == items);  // the input is const
}

}  // namespace

TEST_CASE("reliability: radix sort keys at every misalignment", "[reliability][misaligned]") {
  sort_every_offset<std::uint8_t>();
  sort_every_offset<std::uint16_t>();
  sort_every_offset<std::uint32_t>();
  sort_every_offset<std::uint64_t>();
}

TEST_CASE("reliability: radix sort pairs at every misalignment", "[reliability][misaligned]") {
  sort_every_offset<std::uint8_t, std::uint64_t>();
  sort_every_offset<std::uint32_t, std::uint16_t>();
}

TEST_CASE("reliability: scans at every misalignment", "[reliability][misaligned]") {
  scan_every_offset<std::uint8_t>();
  scan_every_offset<std::uint16_t>();
  scan_every_offset<std::int64_t>();
}

/// Every (in, out) pair of item offsets at the multi-tile size; one pair per input offset at the
/// one-block size and in small mode.
TEST_CASE("reliability: reduce of int16 items at every misalignment", "[reliability][misaligned]") {
  const bool small = gpuprim_test::small_mode();
  for (std::size_t n : {std::size_t(1000), std::size_t(100003)}) {
    for (std::size_t in = 0; in < 8; ++in) {
      for (std::size_t out = 0; out < 8; ++out) {
        if ((small || n < 4096) && out != (in + 3) % 8) continue;
        check_reduce_int16(n, in, out);
      }
    }
  }
}
