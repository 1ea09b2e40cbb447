// The launch helpers' per-kernel caches (include/gpuprim/detail/launch.cuh) answer for the
// configuration asked about, not for whichever one was asked first:
// - resident_blocks_per_sm, asked in turn about several block sizes and dynamic shared-memory
//   sizes of one kernel, gives what an uncached occupancy query gives for each, also when first
//   asked before the shared memory was allowed;
// - allow_dynamic_smem, asked for more than before, lets a launch with the larger size run; asked
//   for less afterwards, it keeps the larger allowance; host threads raising it at once leave the
//   largest size they asked for allowed.
// No library kernel varies these today (each passes one size per kernel); the caches must not
// depend on that.
#include <gpuprim/detail/launch.cuh>

#include <cstddef>
#include <thread>
#include <vector>

#include "support/catch.hpp"
#include "support/test_util.cuh"

namespace {

// Fills `words` words of dynamic shared memory and writes the last one back: a launch with too
// little shared memory allowed fails, and a wrong fill shows in the output.
template <int Tag>
__global__ void fill_shared(unsigned* out, unsigned words) {
  extern __shared__ unsigned s[];
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) s[i] = i * 3u + 1u;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = s[words - 1] + s[0];
}

template <auto Kernel>
void launch_and_check(std::size_t smem, unsigned grid) {
  gpuprim_test::device_vector<unsigned> out(grid);
  out.poison(0xff);
  const auto words = static_cast<unsigned>(smem / sizeof(unsigned));
  Kernel<<<grid, 256, smem>>>(out.data(), words);
  REQUIRE_CUDA(cudaGetLastError());
  REQUIRE_CUDA(cudaDeviceSynchronize());
  const std::vector<unsigned> h = out.download();
  for (unsigned b = 0; b < grid; ++b) REQUIRE(h[b] == (words - 1) * 3u + 1u + 1u);
}

}  // namespace

TEST_CASE("reliability: launch helpers' caches answer for the configuration asked", "[reliability][launch]") {
  int device = 0, optin = 0;
  REQUIRE_CUDA(cudaGetDevice(&device));
  REQUIRE_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t big = std::size_t(optin) / 1024 * 1024;
  const std::size_t mid = 64 * 1024 <= big ? 64 * 1024 : big;

  SECTION("resident blocks per SM, several block and shared-memory sizes in turn") {
    constexpr auto kernel = fill_shared<0>;
    REQUIRE_CUDA((gpuprim::detail::allow_dynamic_smem<kernel>(big, device)));
    const int threads[] = {128, 256, 1024};
    const std::size_t sizes[] = {0, 4096, 40 * 1024, mid, big};
    for (int round = 0; round < 3; ++round) {
      for (int t : threads) {
        for (std::size_t smem : sizes) {
          int cached = -1, direct = -1;
          REQUIRE_CUDA((gpuprim::detail::resident_blocks_per_sm<kernel>(t, device, cached, smem)));
          REQUIRE_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&direct, kernel, t, smem));
          INFO("round " << round << ", " << t << " threads, " << smem << " bytes");
          CHECK(cached == direct);
        }
      }
    }
  }

  SECTION("resident blocks per SM asked before the shared memory is allowed, then after") {
    constexpr auto kernel = fill_shared<3>;
    REQUIRE(mid > 48 * 1024);
    int before = -1;
    // Whatever the runtime answers before the allowance (0 where it checks the attribute), the
    // answer after it must be the uncached one.
    REQUIRE_CUDA((gpuprim::detail::resident_blocks_per_sm<kernel>(256, device, before, mid)));
    REQUIRE_CUDA((gpuprim::detail::allow_dynamic_smem<kernel>(mid, device)));
    int cached = -1, direct = -1;
    REQUIRE_CUDA((gpuprim::detail::resident_blocks_per_sm<kernel>(256, device, cached, mid)));
    REQUIRE_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&direct, kernel, 256, mid));
    INFO("before the allowance: " << before);
    CHECK(direct > 0);
    CHECK(cached == direct);
  }

  SECTION("dynamic shared memory: raised when more is asked, never lowered") {
    constexpr auto kernel = fill_shared<1>;
    REQUIRE(mid > 48 * 1024);
    REQUIRE_CUDA((gpuprim::detail::allow_dynamic_smem<kernel>(mid, device)));
    launch_and_check<kernel>(mid, 4);
    REQUIRE_CUDA((gpuprim::detail::allow_dynamic_smem<kernel>(big, device)));
    launch_and_check<kernel>(big, 4);
    REQUIRE_CUDA((gpuprim::detail::allow_dynamic_smem<kernel>(mid, device)));  // less: keeps `big`
    launch_and_check<kernel>(big, 4);
    launch_and_check<kernel>(mid, 4);
  }

  SECTION("dynamic shared memory: threads raising it at once leave the largest allowed") {
    constexpr auto kernel = fill_shared<2>;
    std::vector<std::size_t> asks;
    for (std::size_t k = 49; k * 1024 <= big; k += 8) asks.push_back(k * 1024);
    asks.push_back(big);
    std::vector<cudaError_t> results(asks.size(), cudaErrorUnknown);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < asks.size(); ++t) {
      threads.emplace_back([&, t] {
        if (cudaSetDevice(device) != cudaSuccess) return;
        results[t] = gpuprim::detail::allow_dynamic_smem<kernel>(asks[t], device);
      });
    }
    for (auto& th : threads) th.join();
    for (const cudaError_t e : results) CHECK(e == cudaSuccess);
    launch_and_check<kernel>(big, 4);
  }
  gpuprim_test::require_sync();
}
