// Host-only: the device radix sorts reject bad arguments, and answer size queries, before any
// CUDA call, so these checks run (and must pass) on machines without a GPU.
#include <gpuprim/radix_sort.cuh>

#include <climits>
#include <cstddef>
#include <cstdint>

#include "support/catch.hpp"

namespace {

// Stand-ins that are never dereferenced: nothing may be launched for bad arguments.
std::uint32_t some_keys[2];
std::uint64_t some_values[2];
const std::uint32_t* const keys_in = &some_keys[0];
std::uint32_t* const keys_out = &some_keys[1];
const std::uint64_t* const values_in = &some_values[0];
std::uint64_t* const values_out = &some_values[1];
alignas(256) unsigned char some_workspace[16];
constexpr std::size_t many = std::size_t(1) << 24;
std::uint32_t* null_index() { return nullptr; }

}  // namespace

TEST_CASE("radix sort: null pointers with items are invalid", "[sort][arguments]") {
  const std::uint32_t* null_keys_in = nullptr;
  std::uint32_t* null_keys_out = nullptr;
  const std::uint64_t* null_values_in = nullptr;
  std::uint64_t* null_values_out = nullptr;
  for (std::size_t n : {std::size_t(1), many, std::size_t(1) << 32}) {
    CAPTURE(n);
    // A workspace as large as asked for, so that only the pointers are wrong.
    std::size_t bytes = 0;
    REQUIRE(gpuprim::radix_sort_pairs(nullptr, bytes, keys_in, keys_out, values_in, values_out, n) == cudaSuccess);
    void* temp = some_workspace;
    CHECK(gpuprim::radix_sort_keys(temp, bytes, null_keys_in, keys_out, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_keys_descending(temp, bytes, keys_in, null_keys_out, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_pairs(temp, bytes, keys_in, keys_out, null_values_in, values_out, n) ==
          cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_pairs_descending(temp, bytes, keys_in, keys_out, values_in, null_values_out, n) ==
          cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_keys(null_keys_in, keys_out, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_keys_descending(keys_in, null_keys_out, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_pairs(keys_in, keys_out, null_values_in, values_out, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_pairs_descending(null_keys_in, keys_out, values_in, values_out, n) ==
          cudaErrorInvalidValue);
  }
}

TEST_CASE("radix sort: bit ranges outside the key are invalid", "[sort][arguments]") {
  struct window {
    int begin_bit, end_bit;
  };
  for (const window w : {window{-1, 32}, window{0, 33}, window{5, 4}, window{33, 33}, window{32, 0},
                         window{INT_MIN, 0}, window{0, INT_MAX}}) {
    CAPTURE(w.begin_bit, w.end_bit);
    std::size_t bytes = sizeof(some_workspace);
    void* temp = some_workspace;
    CHECK(gpuprim::radix_sort_keys(temp, bytes, keys_in, keys_out, many, w.begin_bit, w.end_bit) ==
          cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_pairs_descending(temp, bytes, keys_in, keys_out, values_in, values_out, many,
                                               w.begin_bit, w.end_bit) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_keys_descending(keys_in, keys_out, 1, w.begin_bit, w.end_bit) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_pairs(keys_in, keys_out, values_in, values_out, many, w.begin_bit, w.end_bit) ==
          cudaErrorInvalidValue);
  }
  // 8-bit keys end at bit 8, 64-bit keys at bit 64.
  const std::uint8_t* bytes_in = reinterpret_cast<const std::uint8_t*>(keys_in);
  std::uint8_t* bytes_out = reinterpret_cast<std::uint8_t*>(keys_out);
  CHECK(gpuprim::radix_sort_keys(bytes_in, bytes_out, many, 0, 9) == cudaErrorInvalidValue);
  CHECK(gpuprim::radix_sort_keys(values_in, values_out, many, 0, 65) == cudaErrorInvalidValue);
  const double* doubles_in = reinterpret_cast<const double*>(values_in);
  double* doubles_out = reinterpret_cast<double*>(values_out);
  CHECK(gpuprim::radix_sort_keys_descending(doubles_in, doubles_out, many, 60, 65) == cudaErrorInvalidValue);
}

TEST_CASE("radix sort: a workspace that is too small is invalid", "[sort][arguments]") {
  std::size_t needed = 0;
  REQUIRE(gpuprim::radix_sort_pairs(nullptr, needed, keys_in, keys_out, values_in, values_out, many) == cudaSuccess);
  REQUIRE(needed > sizeof(some_workspace));
  std::size_t bytes = needed - 1;
  CHECK(gpuprim::radix_sort_pairs(some_workspace, bytes, keys_in, keys_out, values_in, values_out, many) ==
        cudaErrorInvalidValue);
  bytes = sizeof(some_workspace);
  CHECK(gpuprim::radix_sort_pairs(some_workspace, bytes, keys_in, keys_out, values_in, values_out, many) ==
        cudaErrorInvalidValue);
  std::size_t keys_needed = 0;
  REQUIRE(gpuprim::radix_sort_keys_descending(nullptr, keys_needed, keys_in, keys_out, many) == cudaSuccess);
  REQUIRE(keys_needed >= 1);
  bytes = keys_needed - 1;
  CHECK(gpuprim::radix_sort_keys_descending(some_workspace, bytes, keys_in, keys_out, many) == cudaErrorInvalidValue);
  bytes = 0;
  CHECK(gpuprim::radix_sort_keys(some_workspace, bytes, keys_in, keys_out, many) == cudaErrorInvalidValue);
}

TEST_CASE("radix sort: size queries and empty sorts need neither pointers nor a GPU", "[sort][arguments]") {
  const std::uint32_t* null_in = nullptr;
  std::uint32_t* null_out = nullptr;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(5000), many, std::size_t(1) << 32}) {
    CAPTURE(n);
    std::size_t bytes = 0;
    CHECK(gpuprim::radix_sort_keys(nullptr, bytes, null_in, null_out, n) == cudaSuccess);
    CHECK(bytes >= 1);
    bytes = 0;
    CHECK(gpuprim::radix_sort_pairs_descending(nullptr, bytes, null_in, null_out, null_in, null_out, n, 4, 20) ==
          cudaSuccess);
    CHECK(bytes >= 1);
  }
  std::size_t bytes = 0;
  CHECK(gpuprim::radix_sort_keys(some_workspace, bytes, null_in, null_out, 0) == cudaSuccess);
  CHECK(gpuprim::radix_sort_pairs(null_in, null_out, null_in, null_out, 0) == cudaSuccess);
  CHECK(gpuprim::radix_sort_keys_descending(null_in, null_out, 0, 3, 3) == cudaSuccess);
}

TEST_CASE("low-memory sorts and argsort: bad arguments are invalid", "[sort][arguments]") {
  std::uint32_t* k0 = &some_keys[0];
  std::uint32_t* k1 = &some_keys[1];
  std::uint64_t* v0 = &some_values[0];
  std::uint64_t* v1 = &some_values[1];
  std::uint32_t* indices = &some_keys[1];
  for (std::size_t n : {std::size_t(1), many}) {
    CAPTURE(n);
    std::size_t bytes = 0;
    gpuprim::double_buffer<std::uint32_t> good(k0, k1);
    gpuprim::double_buffer<std::uint64_t> values(v0, v1);
    REQUIRE(gpuprim::radix_sort_pairs(nullptr, bytes, good, values, n) == cudaSuccess);
    REQUIRE(bytes > 0);
    void* temp = some_workspace;
    for (const auto& keys : {gpuprim::double_buffer<std::uint32_t>(nullptr, k1),
                             gpuprim::double_buffer<std::uint32_t>(k0, nullptr),
                             gpuprim::double_buffer<std::uint32_t>(k0, k0)}) {
      auto b = keys;
      CHECK(gpuprim::radix_sort_keys(temp, bytes, b, n) == cudaErrorInvalidValue);
      CHECK(gpuprim::radix_sort_keys_descending(b, n) == cudaErrorInvalidValue);
      CHECK(gpuprim::radix_sort_pairs(temp, bytes, b, values, n) == cudaErrorInvalidValue);
      CHECK((b.current() == keys.current() && b.alternate() == keys.alternate()));
    }
    gpuprim::double_buffer<std::uint64_t> same(v0, v0);
    CHECK(gpuprim::radix_sort_pairs_descending(temp, bytes, good, same, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_pairs(good, same, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_keys(temp, bytes, good, n, 0, 33) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_sort_keys(good, n, 5, 4) == cudaErrorInvalidValue);
    CHECK((good.current() == k0 && good.alternate() == k1));
    // Argsort: null keys or indices with items, a bit range outside the key.
    const std::uint32_t* null_keys = nullptr;
    std::uint32_t* null_indices = nullptr;
    CHECK(gpuprim::radix_argsort(temp, bytes, null_keys, nullptr, indices, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_argsort(temp, bytes, keys_in, nullptr, null_indices, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_argsort_descending(null_keys, k1, indices, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::radix_argsort(keys_in, nullptr, indices, n, 0, 40) == cudaErrorInvalidValue);
  }
  // 32-bit indices cannot number more than 2^32 items: refused, the size query included.
  std::size_t bytes = 0;
  CHECK(gpuprim::radix_argsort(nullptr, bytes, keys_in, nullptr, indices, (std::size_t(1) << 32) + 1) ==
        cudaErrorInvalidValue);
  std::uint64_t* wide = &some_values[1];
  CHECK(gpuprim::radix_argsort(nullptr, bytes, keys_in, nullptr, wide, (std::size_t(1) << 32) + 1) == cudaSuccess);
  // Size queries and empty sorts need neither pointers nor a GPU.
  gpuprim::double_buffer<std::uint32_t> empty;
  CHECK(gpuprim::radix_sort_keys(nullptr, bytes, empty, 0) == cudaSuccess);
  CHECK(bytes >= 1);
  CHECK(gpuprim::radix_sort_keys(empty, 0) == cudaSuccess);
  CHECK(gpuprim::radix_argsort(static_cast<const std::uint32_t*>(nullptr), nullptr, null_index(), 0) == cudaSuccess);
}

TEST_CASE("segmented sorts, allocating form: bad arguments are refused before anything is allocated",
          "[sort][arguments]") {
  // Without a GPU an allocation would fail with another code: cudaErrorInvalidValue shows that
  // nothing was asked of CUDA.
  const int offsets[2] = {0, 2};
  const int* null_offsets = nullptr;
  const std::uint32_t* null_keys_in = nullptr;
  std::uint64_t* null_values_out = nullptr;
  CHECK(gpuprim::segmented_radix_sort_keys(null_keys_in, keys_out, 2, 1, offsets, offsets + 1) ==
        cudaErrorInvalidValue);
  CHECK(gpuprim::segmented_radix_sort_keys_descending(keys_in, keys_out, 2, 1, null_offsets, offsets + 1) ==
        cudaErrorInvalidValue);
  CHECK(gpuprim::segmented_radix_sort_keys(keys_in, keys_out, 2, 1, offsets, null_offsets) == cudaErrorInvalidValue);
  CHECK(gpuprim::segmented_radix_sort_keys(keys_in, keys_out, 2, 1, offsets, offsets + 1, 0, 33) ==
        cudaErrorInvalidValue);
  CHECK(gpuprim::segmented_radix_sort_pairs(keys_in, keys_out, values_in, null_values_out, 2, 1, offsets,
                                            offsets + 1) == cudaErrorInvalidValue);
  CHECK(gpuprim::segmented_radix_sort_pairs_descending(keys_in, keys_out, values_in, values_out, 2, 1, offsets,
                                                       offsets + 1, 9, 3) == cudaErrorInvalidValue);
}
