// Tests the order of the device radix sorts against the host reference of sort_test_util.cuh
// rather than CUB: special floats (+-0, +-inf, NaNs, denormals) in every bit window, both orders,
// at sizes that take a single tile and many. Here the two zeros also sit in partial windows of
// descending sorts, where CUB's own paths disagree (device_sort_common.cuh): the reference reads
// both zeros as the pattern 0b1000..0 after the inversion, as the library documents.
#include <gpuprim/radix_sort.cuh>

#include <cstdint>
#include <vector>

#include "sort/device_sort_common.cuh"
#include "sort/sort_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace sort_test;
using gpuprim_test::device_vector;

namespace {

/// Keys that are mostly +-0, with +-inf, NaNs, denormals and random bits among them.
template <class Key>
std::vector<Key> zero_heavy_keys(std::size_t n, std::mt19937_64& rng) {
  std::vector<Key> keys = make_keys<Key>(n, distribution::float_specials, rng);
  for (auto& k : keys) {
    if (rng() % 3 != 0) k = from_bits<Key>((rng() & 1) ? sign_bit<Key> : bits_t<Key>(0));
  }
  return keys;
}

template <class Key>
void check_against_reference(const std::vector<Key>& keys, bool descending, int begin_bit, int end_bit) {
  const std::size_t n = keys.size();
  INFO(key_traits<Key>::name() << " pairs, n = " << n << (descending ? ", descending, " : ", ascending, ")
                               << (bit_window{begin_bit, end_bit})
                               << " (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")");
  const std::vector<std::uint32_t> order = reference_order(keys.data(), n, descending, begin_bit, end_bit);
  std::vector<Key> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = keys[order[i]];

  std::vector<std::uint32_t> index(n);
  for (std::size_t i = 0; i < n; ++i) index[i] = static_cast<std::uint32_t>(i);
  device_vector<Key> keys_in(keys), keys_out(n + guard_items);
  device_vector<std::uint32_t> values_in(index), values_out(n + guard_items);
  keys_out.poison(0xCD);
  values_out.poison(0xCD);
  std::size_t bytes = 0;
  auto sort = [&](void* temp) {
    return descending ? gpuprim::radix_sort_pairs_descending(temp, bytes, keys_in.data(), keys_out.data(),
                                                             values_in.data(), values_out.data(), n, begin_bit, end_bit)
                      : gpuprim::radix_sort_pairs(temp, bytes, keys_in.data(), keys_out.data(), values_in.data(),
                                                  values_out.data(), n, begin_bit, end_bit);
  };
  REQUIRE_CUDA(sort(nullptr));
  device_vector<unsigned char> temp(bytes);
  REQUIRE_CUDA(sort(temp.data()));
  gpuprim_test::require_sync();

  const auto got_keys = keys_out.download(0, n);
  const auto got_values = values_out.download(0, n);
  check_bitwise_equal("keys", expected.data(), got_keys.data(), n);
  check_bitwise_equal("values (input indices)", order.data(), got_values.data(), n);
}

/// Random keys whose zeros all have one sign (sort_test_util.cuh): a sort of the whole key takes
/// the keys' own digits, partial windows fix up. Past the fused single-launch sort.
template <class Key>
void check_one_sign_zeros() {
  constexpr int b = key_bits<Key>;
  std::vector<std::size_t> sizes = {140001};
  if (!gpuprim_test::small_mode()) sizes.push_back(999983);
  for (std::size_t n : sizes) {
    for (distribution d : {distribution::float_negative_zeros, distribution::float_positive_zeros}) {
      std::mt19937_64 rng = case_rng(name_hash(key_traits<Key>::name()), n, 410 + static_cast<int>(d));
      INFO(distribution_name(d));
      const std::vector<Key> keys = make_keys<Key>(n, d, rng);
      for (const bit_window& w : std::vector<bit_window>{{0, b}, {0, b - 1}, {1, b}}) {
        for (bool descending : {false, true}) check_against_reference(keys, descending, w.begin_bit, w.end_bit);
      }
    }
  }
}

template <class Key>
void check_semantics() {
  constexpr int b = key_bits<Key>;
  std::vector<std::size_t> sizes = {17, 4097, 65537};
  if (!gpuprim_test::small_mode()) sizes.push_back(999983);
  for (std::size_t n : sizes) {
    for (int kind = 0; kind < 2; ++kind) {
      std::mt19937_64 rng = case_rng(name_hash(key_traits<Key>::name()), n, 400 + kind);
      INFO((kind == 0 ? "special floats" : "mostly zeros"));
      const std::vector<Key> keys = kind == 0 ? make_keys<Key>(n, distribution::float_specials, rng)
                                              : zero_heavy_keys<Key>(n, rng);
      std::vector<bit_window> windows = test_windows<Key>(rng);
      windows.push_back({0, b - 1});  // all but the sign of the ordered key
      windows.push_back({1, b});
      if (n > 100000) windows = {{0, b}, {0, b - 1}, {b / 4, b - 3}};
      for (const bit_window& w : windows) {
        for (bool descending : {false, true}) check_against_reference(keys, descending, w.begin_bit, w.end_bit);
      }
    }
  }
}

}  // namespace

TEST_CASE("device radix sort: float order against the host reference", "[sort][device][semantics]") {
  SECTION("float") { check_semantics<float>(); }
  SECTION("__half") { check_semantics<__half>(); }
}

TEST_CASE("device radix sort: zeros of one sign against the host reference", "[sort][device][semantics]") {
  SECTION("float") { check_one_sign_zeros<float>(); }
  SECTION("__half") { check_one_sign_zeros<__half>(); }
  SECTION("__nv_bfloat16") { check_one_sign_zeros<__nv_bfloat16>(); }
}
