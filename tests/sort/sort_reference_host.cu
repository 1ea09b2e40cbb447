// Host-only: the host reference of the sort tests (sort_test_util.cuh) orders keys as the
// contract says, on hand-picked keys. Runs without a GPU.
#include <cmath>
#include <cstdint>
#include <vector>

#include "sort/sort_test_util.cuh"
#include "support/catch.hpp"

using namespace sort_test;

TEST_CASE("sort reference: the bit-ordered transform and windows", "[sort][reference]") {
  // The reference itself, on hand-picked keys: the order -inf < -1 < -denormal < -0 == +0 <
  // +denormal < 1 < inf, NaNs by bits beyond the infinities.
  const std::vector<float> ascending = {-INFINITY, -1.0f, -1e-45f, -0.0f, 0.0f, 1e-45f, 1.0f, INFINITY};
  for (std::size_t i = 0; i + 1 < ascending.size(); ++i) {
    CAPTURE(i);
    const auto a = ordered_bits(ascending[i], false), c = ordered_bits(ascending[i + 1], false);
    if (i == 3) {
      CHECK(a == c);  // -0 == +0
    } else {
      CHECK(a < c);
    }
    const auto ad = ordered_bits(ascending[i], true), cd = ordered_bits(ascending[i + 1], true);
    CHECK((i == 3 ? ad == cd : ad > cd));
  }
  const float nan = from_bits<float>(0x7fc00000u), negative_nan = from_bits<float>(0xffc00000u);
  CHECK(ordered_bits(nan, false) > ordered_bits(INFINITY, false));
  CHECK(ordered_bits(negative_nan, false) < ordered_bits(-INFINITY, false));
  CHECK(ordered_bits(std::int8_t(-128), false) == 0);
  CHECK(ordered_bits(std::int8_t(127), false) == 255);
  CHECK(window_bits(std::uint32_t(0xABCD1234u), false, 8, 20) == 0xD12u);
  CHECK(window_bits(std::uint32_t(0xABCD1234u), true, 0, 4) == 0xBu);
  CHECK(window_bits(std::uint64_t(~0ull), false, 0, 64) == ~0ull);
  CHECK(window_bits(std::uint64_t(~0ull), false, 7, 7) == 0u);

  // Descending, both zeros read as 0b1000..0 after the inversion: in the window of the top bit
  // they join the negative keys, after every positive one.
  CHECK(window_bits(0.0f, true, 31, 32) == 1u);
  CHECK(window_bits(-0.0f, true, 31, 32) == 1u);
  CHECK(window_bits(1.0f, true, 31, 32) == 0u);
  CHECK(window_bits(-1.0f, true, 31, 32) == 1u);
  CHECK(window_bits(-0.0f, false, 0, 31) == 0u);
  CHECK(window_bits(from_bits<__half>(0x8000), true, 0, 16) == window_bits(from_bits<__half>(0x0000), true, 0, 16));
  CHECK(ordered_bits(from_bits<__nv_bfloat16>(0xff80), false) == 0x007fu);  // -inf
  // Stable: equal windows keep their input order.
  const std::vector<std::uint8_t> k = {3, 1, 3, 0, 1};
  CHECK(reference_order(k.data(), k.size(), false, 0, 8) == std::vector<std::uint32_t>{3, 1, 4, 0, 2});
  CHECK(reference_order(k.data(), k.size(), true, 0, 8) == std::vector<std::uint32_t>{0, 2, 1, 4, 3});
  CHECK(reference_order(k.data(), k.size(), false, 1, 8) == std::vector<std::uint32_t>{1, 3, 4, 0, 2});
  CHECK(reference_order(k.data(), k.size(), true, 2, 2) == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
}
