// Tests the device radix sorts of more than 2^31 keys: uint8 keys only in both orders (the
// output must be sorted and hold the input's histogram: for uint8 keys that is the sorted
// sequence itself), and uint8 keys with uint32 index values in both orders (sorted, each value
// an input index that came with its own key, equal keys in input order: the stable sort
// exactly), and uint32 keys with uint32 index values past 2^30 keys (the 64-bit look-back states);
// the guard items past the end untouched and the inputs unchanged. Skipped in small
// mode (GPUPRIM_TEST_SMALL=1); short of device memory they warn, or fail with
// GPUPRIM_REQUIRE_GPU=1.
#include <gpuprim/radix_sort.cuh>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "reliability/large_inputs.cuh"
#include "sort/sort_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using gpuprim_test::device_vector;
using gpuprim_test::require_sync;

TEST_CASE("device radix sort: more than 2^31 uint8 keys", "[sort][device][large]") {
  if (gpuprim_test::small_mode()) {
    WARN("skipped in small mode");
    return;
  }
  const std::size_t n = (std::size_t(1) << 31) + 1237;
  constexpr std::size_t guard = 64;

  std::size_t bytes = 0;
  const std::uint8_t* null_in = nullptr;
  std::uint8_t* null_out = nullptr;
  REQUIRE_CUDA(gpuprim::radix_sort_keys(nullptr, bytes, null_in, null_out, n));
  const std::size_t needed = 2 * n + guard + bytes + (std::size_t(256) << 20);
  if (gpuprim_test::free_device_memory() < needed) {
    GPUPRIM_LARGE_SKIP("skipped: needs " << needed / double(1 << 30) << " GiB of free device memory");
    return;
  }
  device_vector<std::uint8_t> in, out;
  device_vector<unsigned char> temp;
  if (!in.allocate(n) || !out.allocate(n + guard) || !temp.allocate(bytes)) {
    GPUPRIM_LARGE_SKIP("skipped: allocation failed");
    return;
  }

  // Random bytes, skewed so that the histogram is uneven: byte = (a & b) ^ c of three random bytes
  // for half of the 8-byte words.
  std::vector<std::uint8_t> h(n);
  std::array<std::size_t, 256> histogram{};
  {
    std::mt19937_64 rng = sort_test::case_rng(31, n);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t w = rng();
      if (w & 1) w &= rng();
      std::memcpy(&h[i], &w, 8);
    }
    for (; i < n; ++i) h[i] = static_cast<std::uint8_t>(rng());
    for (std::uint8_t k : h) ++histogram[k];
  }
  in.upload(h);
  out.poison(0xCD);

  INFO("n = " << n << " (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")");
  REQUIRE_CUDA(gpuprim::radix_sort_keys(temp.data(), bytes, in.data(), out.data(), n));
  require_sync();

  // The input is unchanged.
  {
    const std::vector<std::uint8_t> after = in.download();
    CHECK(std::memcmp(after.data(), h.data(), n) == 0);
  }
  // The output is the sorted input: histogram[k] copies of each k in order, then the guard.
  const std::vector<std::uint8_t> got = out.download();
  std::size_t mismatches = 0, first_mismatch = n;
  std::size_t pos = 0;
  for (int k = 0; k < 256; ++k) {
    for (std::size_t j = 0; j < histogram[k]; ++j, ++pos) {
      if (got[pos] != k) {
        if (mismatches++ == 0) first_mismatch = pos;
      }
    }
  }
  INFO("first mismatch at " << first_mismatch);
  CHECK(mismatches == 0);
  std::size_t touched = 0;
  for (std::size_t i = n; i < n + guard; ++i) touched += got[i] != 0xCD;
  CHECK(touched == 0);
}

namespace {

/// Key i of the generated inputs: a random byte, for half of the items ANDed with a second one,
/// so that the histogram is uneven (keys with few bits set are more frequent).
__host__ __device__ inline std::uint8_t key_of(std::uint64_t seed, std::size_t i) {
  const std::uint64_t z = large_test::hash64(seed, i);
  const auto k = static_cast<std::uint8_t>(z);
  return (z >> 63) != 0 ? static_cast<std::uint8_t>(k & (z >> 8)) : k;
}

/// keys[i] = key_of(seed, i); values[i] = i (values may be null).
__global__ void __launch_bounds__(256) fill_keys(std::uint8_t* keys, std::uint32_t* values, std::size_t n,
                                                 std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = key_of(seed, i);
    if (values != nullptr) values[i] = static_cast<std::uint32_t>(i);
  }
}

/// Key i of the uint32 pairs above 2^30 items: 32 random bits (at 2^30 keys, ~2^27 pairs of equal
/// keys, so stability is tested too).
__host__ __device__ inline std::uint32_t key32_of(std::uint64_t seed, std::size_t i) {
  return static_cast<std::uint32_t>(large_test::hash64(seed, i) >> 32);
}

/// keys[i] = key32_of(seed, i); values[i] = i.
__global__ void __launch_bounds__(256) fill_keys32(std::uint32_t* keys, std::uint32_t* values, std::size_t n,
                                                   std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = key32_of(seed, i);
    values[i] = static_cast<std::uint32_t>(i);
  }
}

}  // namespace

// Descending, through the allocating form (the ascending test above takes the workspace form).
// Keys made on the device; the host counts them (from the same hash) and checks that output item
// p is the key that the histogram puts there. ~4.3 GB of device memory plus the sort's workspace
// (~3.4 GB: alternate keys and look-back states); a few seconds on an H100.
TEST_CASE("device radix sort: more than 2^31 uint8 keys, descending (allocating form)", "[sort][device][large]") {
  if (gpuprim_test::small_mode()) {
    WARN("skipped in small mode");
    return;
  }
  const std::size_t n = (std::size_t(1) << 31) + 3001;
  constexpr std::size_t guard = 64;
  std::size_t bytes = 0;
  const std::uint8_t* null_in = nullptr;
  std::uint8_t* null_out = nullptr;
  REQUIRE_CUDA(gpuprim::radix_sort_keys_descending(nullptr, bytes, null_in, null_out, n));
  const std::size_t needed = 2 * n + guard + bytes + (std::size_t(256) << 20);
  if (gpuprim_test::free_device_memory() < needed) {
    GPUPRIM_LARGE_SKIP("skipped: needs " << needed / double(1 << 30) << " GiB of free device memory");
    return;
  }
  device_vector<std::uint8_t> in, out;
  if (!in.allocate(n) || !out.allocate(n + guard)) {
    GPUPRIM_LARGE_SKIP("skipped: allocation failed");
    return;
  }
  const std::uint64_t seed = gpuprim_test::test_seed() ^ 0xde5c0ull;
  fill_keys<<<4096, 256>>>(in.data(), nullptr, n, seed);
  gpuprim_test::require_sync();
  out.poison(0xCD);

  // The histogram, counted on the host's cores from the same hash; then the first output
  // position of each key: 255 first.
  std::vector<std::array<std::size_t, 256>> partial(16);
  const std::size_t ranges = large_test::parallel_ranges(0, n, [&](std::size_t t, std::size_t b, std::size_t e) {
    std::array<std::size_t, 256> h{};
    for (std::size_t i = b; i < e; ++i) ++h[key_of(seed, i)];
    partial[t] = h;
  });
  std::array<std::size_t, 257> start{};  // keys 255 - j sit at [start[j], start[j + 1])
  for (int j = 0; j < 256; ++j) {
    std::size_t count = 0;
    for (std::size_t t = 0; t < ranges; ++t) count += partial[t][255 - j];
    start[j + 1] = start[j] + count;
  }
  REQUIRE(start[256] == n);

  INFO("n = " << n << " (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")");
  const std::uint8_t* first = in.data();
  REQUIRE_CUDA(gpuprim::radix_sort_keys_descending(first, out.data(), n));
  gpuprim_test::require_sync();

  const large_test::mismatches m = large_test::check_chunks(out.data(), n, [&](std::size_t p, const std::uint8_t* k) {
    const std::size_t j = static_cast<std::size_t>(std::upper_bound(start.begin(), start.end(), p) - start.begin()) - 1;
    return *k != static_cast<std::uint8_t>(255 - j);
  });
  INFO(m.count << " output items differ from the sorted input; the first is item " << m.first);
  CHECK(m.checked == n);
  CHECK(m.count == 0);
  CHECK(large_test::touched_bytes(out.data() + n, guard, 0xCD) == 0);
  const large_test::mismatches changed =
      large_test::check_chunks(first, n, [&](std::size_t i, const std::uint8_t* k) { return *k != key_of(seed, i); });
  INFO(changed.count << " input items changed; the first is item " << changed.first);
  CHECK(changed.count == 0);
}

// Pairs in both orders: keys with uint32 values holding each item's input index (n < 2^32).
// The host check of output item p with key k and value v: v < n, k == key_of(v) (the value came
// with its key), and against item p - 1 (key k', value v'): k' before k in the order, and v' < v
// where k' == k (stability). Then each index sits only beside its own key, in a run of equal
// keys with increasing indices, so no index appears twice: the n values are a permutation of the
// input's indices, each with its key, sorted, ties in input order: exactly the stable sort.
// Ascending in the workspace form, then descending in the allocating form; the guard items past
// the ends untouched and the inputs unchanged. `fill(keys, values, n, seed)` makes the input on
// the device: keys[i] = key_of(seed, i), values[i] = i.
namespace {

template <class Key, class KeyOf, class Fill>
void check_index_pairs(std::size_t n, std::uint64_t seed, KeyOf key_of_seed, Fill fill) {
  REQUIRE(n < (std::size_t(1) << 32));  // every index fits a uint32 value
  constexpr std::size_t guard = 64;
  std::size_t bytes = 0;
  {
    const Key* k = nullptr;
    const std::uint32_t* v = nullptr;
    std::size_t descending_bytes = 0;
    REQUIRE_CUDA(gpuprim::radix_sort_pairs(nullptr, bytes, k, (Key*)nullptr, v, (std::uint32_t*)nullptr, n));
    REQUIRE_CUDA(
        gpuprim::radix_sort_pairs_descending(nullptr, descending_bytes, k, (Key*)nullptr, v, (std::uint32_t*)nullptr, n));
    bytes = std::max(bytes, descending_bytes);
  }
  const std::size_t needed =
      2 * (n + guard) * (sizeof(Key) + sizeof(std::uint32_t)) + bytes + (std::size_t(512) << 20);
  if (gpuprim_test::free_device_memory() < needed) {
    GPUPRIM_LARGE_SKIP("skipped: needs " << needed / double(1 << 30) << " GiB of free device memory");
    return;
  }
  device_vector<Key> keys_in, keys_out;
  device_vector<std::uint32_t> values_in, values_out;
  device_vector<unsigned char> temp;
  if (!keys_in.allocate(n) || !keys_out.allocate(n + guard) || !values_in.allocate(n) ||
      !values_out.allocate(n + guard) || !temp.allocate(bytes)) {
    GPUPRIM_LARGE_SKIP("skipped: allocation failed");
    return;
  }
  fill(keys_in.data(), values_in.data(), n, seed);
  gpuprim_test::require_sync();
  const Key* k_in = keys_in.data();
  const std::uint32_t* v_in = values_in.data();

  for (bool descending : {false, true}) {
    INFO("n = " << n << (descending ? ", descending, allocating form" : ", ascending, workspace form")
                << " (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")");
    keys_out.poison(0xCD);
    values_out.poison(0xCD);
    if (descending) {
      REQUIRE(temp.allocate(0));  // frees it: the allocating form takes its own
      REQUIRE_CUDA(gpuprim::radix_sort_pairs_descending(k_in, keys_out.data(), v_in, values_out.data(), n));
    } else {
      std::size_t b = bytes;
      REQUIRE_CUDA(gpuprim::radix_sort_pairs(temp.data(), b, k_in, keys_out.data(), v_in, values_out.data(), n));
    }
    gpuprim_test::require_sync();

    const large_test::mismatches m = large_test::check_chunks(
        keys_out.data(), values_out.data(), n, [&](std::size_t p, const Key* k, const std::uint32_t* v) {
          if (*v >= n || *k != key_of_seed(seed, *v)) return true;
          if (p == 0) return false;
          if (descending ? k[-1] < *k : k[-1] > *k) return true;
          return k[-1] == *k && v[-1] >= *v;
        });
    INFO(m.count << " output items break the sorted order, their pairing or stability; the first is item " << m.first);
    CHECK(m.checked == n);
    CHECK(m.count == 0);
    CHECK(large_test::touched_bytes(keys_out.data() + n, guard * sizeof(Key), 0xCD) == 0);
    CHECK(large_test::touched_bytes(values_out.data() + n, guard * sizeof(std::uint32_t), 0xCD) == 0);
  }
  const large_test::mismatches changed =
      large_test::check_chunks(k_in, v_in, n, [&](std::size_t i, const Key* k, const std::uint32_t* v) {
        return *k != key_of_seed(seed, i) || *v != static_cast<std::uint32_t>(i);
      });
  INFO(changed.count << " input items changed; the first is item " << changed.first);
  CHECK(changed.count == 0);
}

}  // namespace

// uint8 keys: values reach byte offsets past 2^33. ~21.5 GB of device memory plus the sort's
// workspace (~12 GB); a few seconds on an H100.
TEST_CASE("device radix sort: more than 2^31 uint8 keys with uint32 index values, both orders",
          "[sort][device][large]") {
  if (gpuprim_test::small_mode()) {
    WARN("skipped in small mode");
    return;
  }
  static_assert(sizeof(std::size_t) == 8, "64-bit sizes");
  const std::size_t n = (std::size_t(1) << 31) + 7919;
  check_index_pairs<std::uint8_t>(n, gpuprim_test::test_seed() ^ 0x9a125ull, key_of,
                                  [](std::uint8_t* k, std::uint32_t* v, std::size_t count, std::uint64_t seed) {
                                    fill_keys<<<4096, 256>>>(k, v, count, seed);
                                  });
}

// uint32 keys past 2^30 (many-wave passes; the digit counts of a pass exceed 30 bits). ~17 GB of
// device memory plus the sort's workspace (~9 GB).
TEST_CASE("device radix sort: more than 2^30 uint32 keys with uint32 index values, both orders",
          "[sort][device][large]") {
  if (gpuprim_test::small_mode()) {
    WARN("skipped in small mode");
    return;
  }
  const std::size_t n = (std::size_t(1) << 30) + (std::size_t(1) << 20) + 4099;
  check_index_pairs<std::uint32_t>(n, gpuprim_test::test_seed() ^ 0x32a1ull, key32_of,
                                   [](std::uint32_t* k, std::uint32_t* v, std::size_t count, std::uint64_t seed) {
                                     fill_keys32<<<4096, 256>>>(k, v, count, seed);
                                   });
}
