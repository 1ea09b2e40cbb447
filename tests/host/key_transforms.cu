// The radix sort's key transform on the host (detail::radix_key): unsigned comparison of the
// ordered bits must order keys as their values order (integers; floats with -0.0 == +0.0 and NaNs
// outside [-inf, +inf] by their bits, as cub::DeviceRadixSort does), descending must reverse it,
// and unorder must invert order. Exhaustive for 8- and 16-bit keys, sampled for wider ones.
#include <gpuprim/detail/radix_traits.cuh>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "support/catch.hpp"

namespace {

using gpuprim::detail::radix_key;

/// The key's value as a long double for integers, or as a double for floating keys (NaN aware).
template <class Key>
long double value_of(Key k) {
  if constexpr (std::is_same_v<Key, __half>) {
    return static_cast<long double>(__half2float(k));
  } else if constexpr (std::is_same_v<Key, __nv_bfloat16>) {
    return static_cast<long double>(__bfloat162float(k));
  } else {
    return static_cast<long double>(k);
  }
}

template <class Key>
Key key_of(typename radix_key<Key>::bits_t b) {
  Key k;
  std::memcpy(static_cast<void*>(&k), &b, sizeof(Key));
  return k;
}

/// Checks one pair of key bit patterns; returns false (once counted by the caller) on a violation.
template <class Key>
bool pair_ok(typename radix_key<Key>::bits_t a, typename radix_key<Key>::bits_t b) {
  using rk = radix_key<Key>;
  const auto oa = rk::order(a, false), ob = rk::order(b, false);
  const auto da = rk::order(a, true), db = rk::order(b, true);
  if (rk::unorder(oa, false) != a || rk::unorder(da, true) != a) return false;
  if ((oa < ob) != (da > db)) return false;  // descending reverses the order
  const long double va = value_of(key_of<Key>(a)), vb = value_of(key_of<Key>(b));
  if (std::isnan(va) || std::isnan(vb)) {
    // A NaN sorts by its bits: negative NaNs below -inf, positive NaNs above +inf.
    const long double other = std::isnan(va) ? vb : va;
    if (!std::isnan(other)) {
      const bool nan_first = std::isnan(va);
      const bool nan_negative = ((nan_first ? a : b) & rk::high_bit) != 0;
      const bool nan_below = nan_first ? (oa < ob) : (ob < oa);
      return nan_below == nan_negative;
    }
    return true;
  }
  if (va < vb) return oa < ob;
  if (vb < va) return ob < oa;
  // Equal values: the same bits, or -0.0 and +0.0, whose digits must then agree.
  if (a == b) return true;
  for (int shift = 0; shift < rk::bits; shift += 8) {
    if (rk::digit(oa, shift, 8) != rk::digit(ob, shift, 8)) return false;
    if (rk::digit(da, shift, 8) != rk::digit(db, shift, 8)) return false;
  }
  return true;
}

template <class Key>
void check_exhaustive_or_sampled() {
  using bits_t = typename radix_key<Key>::bits_t;
  std::size_t violations = 0;
  if constexpr (sizeof(Key) == 1) {
    for (unsigned a = 0; a < 256; ++a) {
      for (unsigned b = 0; b < 256; ++b) violations += !pair_ok<Key>(bits_t(a), bits_t(b));
    }
  } else {
    std::mt19937_64 rng(20261121);
    const std::size_t samples = sizeof(Key) == 2 ? (std::size_t(1) << 16) : 400000;
    for (std::size_t i = 0; i < samples; ++i) {
      // 16-bit: every pattern against a random one and its neighbour; wider: random pairs, half
      // of them close together (same high bits) so that low digits decide.
      const bits_t a = sizeof(Key) == 2 ? bits_t(i) : bits_t(rng());
      bits_t b = bits_t(rng());
      if (i & 1) b = bits_t(a ^ (b & 0xFF));
      violations += !pair_ok<Key>(a, b);
      violations += !pair_ok<Key>(a, bits_t(a + 1));
    }
  }
  CHECK(violations == 0);
}

}  // namespace

TEMPLATE_TEST_CASE("radix key transform: order, descending order and inverse", "[host][sort][keys]", std::uint8_t,
                   std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t, std::uint64_t, std::int64_t,
                   float, double, __half, __nv_bfloat16) {
  check_exhaustive_or_sampled<TestType>();
}

TEST_CASE("radix key transform: special floats", "[host][sort][keys]") {
  using rk = radix_key<float>;
  auto ordered = [](float f) { return rk::order(rk::to_bits(f), false); };
  const float inf = std::numeric_limits<float>::infinity();
  const float denormal = std::numeric_limits<float>::denorm_min();
  CHECK(ordered(-inf) < ordered(-1.0f));
  CHECK(ordered(-denormal) < ordered(-0.0f));
  CHECK(ordered(0.0f) < ordered(denormal));
  CHECK(ordered(1.0f) < ordered(inf));
  CHECK(ordered(inf) < ordered(std::numeric_limits<float>::quiet_NaN()));
  CHECK(ordered(-std::numeric_limits<float>::quiet_NaN()) < ordered(-inf));
  // -0.0 and +0.0 keep distinct bits but share every digit, ascending and descending.
  CHECK(rk::to_bits(-0.0f) != rk::to_bits(0.0f));
  for (bool descending : {false, true}) {
    const auto m = rk::order(rk::to_bits(-0.0f), descending), p = rk::order(rk::to_bits(0.0f), descending);
    CHECK(rk::digit_bits(m) == rk::digit_bits(p));
  }
}

// The onesweep passes drop the -0.0 fix-up when the histogram saw no key that needs it: exactly
// the keys whose digit bits differ from their ordered bits must be flagged, and without the flag
// the unfixed digit must be the fixed one.
TEMPLATE_TEST_CASE("radix key transform: keys that need the -0.0 fix-up", "[host][sort][keys]", float, double,
                   std::uint32_t, std::int64_t) {
  using rk = radix_key<TestType>;
  using bits_t = typename rk::bits_t;
  std::mt19937_64 rng(20261122);
  std::vector<bits_t> samples = {bits_t(0), rk::all_ones, rk::high_bit, static_cast<bits_t>(rk::high_bit - 1),
                                 static_cast<bits_t>(rk::high_bit + 1), static_cast<bits_t>(rk::high_bit - 2)};
  for (int i = 0; i < 100000; ++i) samples.push_back(static_cast<bits_t>(rng()));
  std::size_t wrong_flag = 0, wrong_digit = 0;
  for (const bits_t b : samples) {
    for (bool descending : {false, true}) {
      const bits_t o = rk::order(b, descending);
      if (rk::needs_fixup(o) != (rk::digit_bits(o) != o)) ++wrong_flag;
      if (!rk::needs_fixup(o)) {
        for (int shift = 0; shift < rk::bits; shift += 8) {
          if (rk::digit_fresh_unfixed(o, shift, 8) != rk::digit(o, shift, 8)) ++wrong_digit;
        }
      }
    }
  }
  CHECK(wrong_flag == 0);
  CHECK(wrong_digit == 0);
  if constexpr (rk::is_float) {
    // Ascending, -0.0 is the key that needs it; descending, +0.0.
    CHECK(rk::needs_fixup(rk::order(rk::to_bits(TestType(-0.0)), false)));
    CHECK(rk::needs_fixup(rk::order(rk::to_bits(TestType(0.0)), true)));
    CHECK_FALSE(rk::needs_fixup(rk::order(rk::to_bits(TestType(0.0)), false)));
    CHECK_FALSE(rk::needs_fixup(rk::order(rk::to_bits(TestType(-0.0)), true)));
  }
}

// Integer keys' order transform is one XOR (radix_key::order_mask), which the onesweep passes apply
// as a uniform mask: its mask must be the bits of the key that sorts first (the lowest value
// ascending, the highest descending), which order maps to all zero bits.
TEMPLATE_TEST_CASE("radix key transform: integer keys order by one XOR mask", "[host][sort][keys]", std::uint8_t,
                   std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t, std::uint64_t,
                   std::int64_t) {
  using rk = radix_key<TestType>;
  STATIC_REQUIRE(rk::order_is_xor);
  CHECK(rk::order_mask(false) == rk::to_bits(std::numeric_limits<TestType>::lowest()));
  CHECK(rk::order_mask(true) == rk::to_bits(std::numeric_limits<TestType>::max()));
  std::mt19937_64 rng(20261127);
  std::size_t wrong = 0;
  for (int i = 0; i < 10000; ++i) {
    const auto b = static_cast<typename rk::bits_t>(rng());
    for (bool descending : {false, true}) {
      wrong += rk::order(b, descending) != static_cast<typename rk::bits_t>(b ^ rk::order_mask(descending));
      wrong += rk::unorder(b, descending) != static_cast<typename rk::bits_t>(b ^ rk::order_mask(descending));
    }
  }
  CHECK(wrong == 0);
}

TEMPLATE_TEST_CASE("radix key transform: floating keys' order is no XOR", "[host][sort][keys]", float, double, __half,
                   __nv_bfloat16) {
  STATIC_REQUIRE_FALSE(radix_key<TestType>::order_is_xor);
}
