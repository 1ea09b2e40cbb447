// The radix sort past 2^32 items: a pass's look-back states pack a 2-bit status with a 62-bit
// count or offset, and the scatter's shifts are 64-bit, so a digit's count and offsets may pass
// 32 bits. A keys sort of 2^32 + 4097 uint8 keys must match cub::DeviceRadixSort bitwise, ascending
// and descending (the pairs of more than 2^31 keys: tests/sort/device_sort_large.cu). Inputs are
// generated and compared on the device. Skipped in small mode; without ~25 GiB free it warns, or
// fails with GPUPRIM_REQUIRE_GPU=1.
#include <gpuprim/radix_sort.cuh>

#include <cub/device/device_radix_sort.cuh>

#include <cstdint>

#include "reliability/large_inputs.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using gpuprim_test::device_vector;

namespace {

__global__ void fill(std::uint8_t* keys, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint64_t z = seed + i * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    keys[i] = static_cast<std::uint8_t>(z & (z >> 8));  // uneven histogram
  }
}

template <class T>
__global__ void count_differences(const T* a, const T* b, std::size_t n, unsigned long long* count) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    local += a[i] != b[i];
  }
  if (local != 0) atomicAdd(count, local);
}

template <class T>
unsigned long long differences(const T* a, const T* b, std::size_t n) {
  device_vector<unsigned long long> count(1);
  REQUIRE_CUDA(cudaMemset(count.data(), 0, sizeof(unsigned long long)));
  count_differences<<<1024, 256>>>(a, b, n, count.data());
  gpuprim_test::require_sync();
  return count.download_one();
}

}  // namespace

TEST_CASE("reliability: radix sort past 2^32 items", "[reliability][large]") {
  if (gpuprim_test::small_mode()) {
    WARN("skipped in small mode");
    return;
  }
  const std::size_t max_n = (std::size_t(1) << 32) + 4097;
  std::size_t ours_bytes = 0, cub_bytes = 0;
  {
    const std::uint8_t* k = nullptr;
    REQUIRE_CUDA(gpuprim::radix_sort_keys(nullptr, ours_bytes, k, (std::uint8_t*)nullptr, max_n));
    REQUIRE_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, k, (std::uint8_t*)nullptr, max_n));
  }
  const std::size_t needed = 3 * max_n + ours_bytes + cub_bytes + (std::size_t(512) << 20);
  if (gpuprim_test::free_device_memory() < needed) {
    GPUPRIM_LARGE_SKIP("skipped: needs " << needed / double(1 << 30) << " GiB of free device memory");
    return;
  }
  device_vector<std::uint8_t> keys(max_n), keys_ours(max_n), keys_cub(max_n);
  device_vector<unsigned char> temp_ours(ours_bytes), temp_cub(cub_bytes);
  for (std::size_t n : {max_n}) {
    fill<<<4096, 256>>>(keys.data(), n, gpuprim_test::test_seed() + n);
    gpuprim_test::require_sync();
    for (bool descending : {false, true}) {
      INFO("n = " << n << (descending ? ", descending" : ", ascending"));
      keys_ours.poison(0xCD);
      std::size_t b = ours_bytes, c = cub_bytes;
      if (descending) {
        REQUIRE_CUDA(gpuprim::radix_sort_keys_descending(temp_ours.data(), b, keys.data(), keys_ours.data(), n));
        REQUIRE_CUDA(cub::DeviceRadixSort::SortKeysDescending(temp_cub.data(), c, keys.data(), keys_cub.data(), n));
      } else {
        REQUIRE_CUDA(gpuprim::radix_sort_keys(temp_ours.data(), b, keys.data(), keys_ours.data(), n));
        REQUIRE_CUDA(cub::DeviceRadixSort::SortKeys(temp_cub.data(), c, keys.data(), keys_cub.data(), n));
      }
      gpuprim_test::require_sync();
      CHECK(differences(keys_ours.data(), keys_cub.data(), n) == 0);
    }
  }
}
