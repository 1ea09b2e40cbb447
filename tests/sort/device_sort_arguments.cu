// Tests that the device radix sorts reject bad arguments (null pointers with items, bit ranges
// outside the key, a workspace that is too small) with cudaErrorInvalidValue, in both forms and
// both orders, write nothing and leave no sticky error.
#include <gpuprim/radix_sort.cuh>

#include <climits>
#include <cstdint>
#include <vector>

#include "sort/device_sort_common.cuh"
#include "sort/sort_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace sort_test;
using gpuprim_test::device_vector;

namespace {

/// The arguments of one call, every entry point alike.
template <class Key, class Value>
struct arguments {
  void* temp;
  std::size_t bytes;
  const Key* keys_in;
  Key* keys_out;
  const Value* values_in;
  Value* values_out;
  std::size_t n;
  int begin_bit;
  int end_bit;
};

enum entry_points : unsigned {
  workspace_keys = 1,
  workspace_pairs = 2,
  allocating_keys = 4,
  allocating_pairs = 8,
  workspace_forms = workspace_keys | workspace_pairs,
  pairs_forms = workspace_pairs | allocating_pairs,
  all_forms = 15,
};

enum order_mask : unsigned { ascending_only = 1, descending_only = 2, both_orders = 3 };

/// Buffers of valid arguments, outputs poisoned with 0xCD.
template <class Key, class Value>
struct buffers {
  std::size_t n;
  device_vector<Key> keys_in, keys_out;
  device_vector<Value> values_in, values_out;
  device_vector<unsigned char> temp;
  std::size_t bytes = 0;

  explicit buffers(std::size_t count)
      : n(count), keys_in(count), keys_out(count), values_in(count), values_out(count) {
    keys_in.poison(0x11);
    values_in.poison(0x22);
    keys_out.poison(0xCD);
    values_out.poison(0xCD);
    REQUIRE_CUDA(gpuprim::radix_sort_pairs(nullptr, bytes, keys_in.data(), keys_out.data(), values_in.data(),
                                           values_out.data(), n));
    std::size_t keys_bytes = 0;
    REQUIRE_CUDA(gpuprim::radix_sort_keys_descending(nullptr, keys_bytes, keys_in.data(), keys_out.data(), n));
    bytes = std::max(bytes, keys_bytes);
    REQUIRE(temp.allocate(bytes));
  }

  arguments<Key, Value> valid() {
    return {temp.data(), bytes, keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n, 0,
            key_bits<Key>};
  }

  /// No error left behind, nothing written.
  void expect_untouched() {
    CHECK(cudaGetLastError() == cudaSuccess);
    REQUIRE_CUDA(cudaDeviceSynchronize());
    CHECK(count_touched(keys_out.download(), 0, 0xCD) == 0);
    CHECK(count_touched(values_out.download(), 0, 0xCD) == 0);
  }
};

/// Calls every entry point of `forms` in the `orders` with arguments a; each must return
/// cudaErrorInvalidValue and leave the outputs of `b` poisoned.
template <class Key, class Value>
void expect_rejected(buffers<Key, Value>& b, const arguments<Key, Value>& a, unsigned forms,
                     unsigned orders = both_orders) {
  INFO(key_traits<Key>::name() << " keys, n = " << a.n << ", " << (bit_window{a.begin_bit, a.end_bit})
                               << ", workspace of " << a.bytes << " bytes");
  for (bool descending : {false, true}) {
    if (!(orders & (descending ? descending_only : ascending_only))) continue;
    INFO((descending ? "descending" : "ascending"));
    if (forms & workspace_keys) {
      std::size_t bytes = a.bytes;
      const cudaError_t e =
          descending ? gpuprim::radix_sort_keys_descending(a.temp, bytes, a.keys_in, a.keys_out, a.n, a.begin_bit,
                                                           a.end_bit)
                     : gpuprim::radix_sort_keys(a.temp, bytes, a.keys_in, a.keys_out, a.n, a.begin_bit, a.end_bit);
      INFO("workspace form, keys");
      CHECK(e == cudaErrorInvalidValue);
      b.expect_untouched();
    }
    if (forms & workspace_pairs) {
      std::size_t bytes = a.bytes;
      const cudaError_t e =
          descending ? gpuprim::radix_sort_pairs_descending(a.temp, bytes, a.keys_in, a.keys_out, a.values_in,
                                                            a.values_out, a.n, a.begin_bit, a.end_bit)
                     : gpuprim::radix_sort_pairs(a.temp, bytes, a.keys_in, a.keys_out, a.values_in, a.values_out, a.n,
                                                 a.begin_bit, a.end_bit);
      INFO("workspace form, pairs");
      CHECK(e == cudaErrorInvalidValue);
      b.expect_untouched();
    }
    if (forms & allocating_keys) {
      const cudaError_t e =
          descending ? gpuprim::radix_sort_keys_descending(a.keys_in, a.keys_out, a.n, a.begin_bit, a.end_bit)
                     : gpuprim::radix_sort_keys(a.keys_in, a.keys_out, a.n, a.begin_bit, a.end_bit);
      INFO("allocating form, keys");
      CHECK(e == cudaErrorInvalidValue);
      b.expect_untouched();
    }
    if (forms & allocating_pairs) {
      const cudaError_t e =
          descending ? gpuprim::radix_sort_pairs_descending(a.keys_in, a.keys_out, a.values_in, a.values_out, a.n,
                                                            a.begin_bit, a.end_bit)
                     : gpuprim::radix_sort_pairs(a.keys_in, a.keys_out, a.values_in, a.values_out, a.n, a.begin_bit,
                                                 a.end_bit);
      INFO("allocating form, pairs");
      CHECK(e == cudaErrorInvalidValue);
      b.expect_untouched();
    }
  }
}

template <class Key, class Value>
void check_bad_arguments(std::size_t n) {
  buffers<Key, Value> b(n);
  constexpr int bits = key_bits<Key>;

  SECTION("null pointers with items") {
    auto a = b.valid();
    a.keys_in = nullptr;
    expect_rejected(b, a, all_forms);
    a = b.valid();
    a.keys_out = nullptr;
    expect_rejected(b, a, all_forms);
    a = b.valid();
    a.values_in = nullptr;
    expect_rejected(b, a, pairs_forms);
    a = b.valid();
    a.values_out = nullptr;
    expect_rejected(b, a, pairs_forms);
    a = b.valid();
    a.keys_in = nullptr;
    a.values_out = nullptr;
    a.n = 1;
    expect_rejected(b, a, all_forms);
  }
  SECTION("bit ranges outside the key") {
    const bit_window bad[] = {{-1, bits},      {0, bits + 1},       {-1, bits + 1},    {bits + 1, bits + 1},
                              {5, 4},          {bits, 0},           {-8, -1},          {INT_MIN, bits},
                              {0, INT_MAX},    {INT_MAX, INT_MAX},  {bits, bits - 1},  {1, 0}};
    for (const bit_window& w : bad) {
      auto a = b.valid();
      a.begin_bit = w.begin_bit;
      a.end_bit = w.end_bit;
      expect_rejected(b, a, all_forms);
    }
  }
  SECTION("a workspace that is too small") {
    // What is needed may depend on the call: ask each entry point, then offer less.
    for (bool pairs : {false, true}) {
      for (bool descending : {false, true}) {
        auto a = b.valid();
        std::size_t needed = 0;
        if (pairs) {
          REQUIRE_CUDA(descending ? gpuprim::radix_sort_pairs_descending(nullptr, needed, a.keys_in, a.keys_out,
                                                                         a.values_in, a.values_out, a.n)
                                  : gpuprim::radix_sort_pairs(nullptr, needed, a.keys_in, a.keys_out, a.values_in,
                                                              a.values_out, a.n));
        } else {
          REQUIRE_CUDA(descending ? gpuprim::radix_sort_keys_descending(nullptr, needed, a.keys_in, a.keys_out, a.n)
                                  : gpuprim::radix_sort_keys(nullptr, needed, a.keys_in, a.keys_out, a.n));
        }
        REQUIRE(needed >= 1);
        for (std::size_t offered : {needed - 1, std::size_t(1), std::size_t(0)}) {
          if (offered >= needed) continue;
          INFO("needed " << needed << " bytes");
          a.bytes = offered;
          expect_rejected(b, a, pairs ? workspace_pairs : workspace_keys,
                          descending ? descending_only : ascending_only);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("device radix sort: bad arguments, uint32 keys, uint32 values", "[sort][device][arguments]") {
  check_bad_arguments<std::uint32_t, std::uint32_t>(70001);
}

TEST_CASE("device radix sort: bad arguments, double keys, 12-byte values", "[sort][device][arguments]") {
  check_bad_arguments<double, gpuprim_test::triple>(3);
}

TEST_CASE("device radix sort: bad arguments, uint8 keys, uint8 values", "[sort][device][arguments]") {
  check_bad_arguments<std::uint8_t, std::uint8_t>(1000003);
}

TEST_CASE("device radix sort: the size query needs no pointers", "[sort][device][arguments]") {
  const std::uint32_t* null_in = nullptr;
  std::uint32_t* null_out = nullptr;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(100000), std::size_t(1) << 33}) {
    CAPTURE(n);
    std::size_t bytes = 0;
    CHECK(gpuprim::radix_sort_keys(nullptr, bytes, null_in, null_out, n) == cudaSuccess);
    CHECK(bytes >= 1);
    bytes = 0;
    CHECK(gpuprim::radix_sort_pairs_descending(nullptr, bytes, null_in, null_out, null_in, null_out, n, 3, 17) ==
          cudaSuccess);
    CHECK(bytes >= 1);
  }
  CHECK(cudaGetLastError() == cudaSuccess);
}
