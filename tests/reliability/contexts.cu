// Calls follow the context the calling thread has current. Plain launches go through the driver
// with a per-thread cache of kernel functions (include/gpuprim/detail/launch.cuh,
// GPUPRIM_DRIVER_LAUNCH), and the launch helpers cache per-device answers; neither may carry a
// context's state into another. Every algorithm of the catalogue, in both forms, at sizes that take
// one plain launch, the bucketed rank sort (over 48 KiB of shared memory) and the multi-pass
// forms, gives the host reference's results:
// - in a host thread that has not used the runtime before;
// - in a context the user created with the driver API, then in the primary one again;
// - after cudaDeviceReset (a new primary context).
// And the thread's cache gives, in each of these contexts, the function the runtime gives there.
// Its own executable: the reset and the user's context would disturb the other tests' state.
#include <gpuprim/detail/launch.cuh>

#include <cudaTypedefs.h>

#include <cstdint>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "reliability/catalogue.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace reliability;

namespace {

__global__ void write_marker(unsigned* out, unsigned marker) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *out = marker;
}

/// Every algorithm in both forms at each size, on a stream of the current context: an empty
/// string when all match the host reference, else the first mismatch or error.
std::string run_catalogue(std::uint64_t seed) {
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return "stream creation failed";
  std::string failure;
  const std::size_t sizes[] = {1000, 12289, std::size_t(1) << 20 | 7};
  for (std::size_t n : sizes) {
    if (gpuprim_test::small_mode() && n > 20000) continue;
    for (int ai = 0; ai < algo_count && failure.empty(); ++ai) {
      for (form f : {form::workspace, form::allocating}) {
        const algo a = algo(ai);
        slot s;
        const job j = make_job(a, n, seed + std::uint64_t(ai) * 977 + n);
        cudaError_t e = s.reserve(n, workspace_bytes(a, n));
        std::size_t bytes = s.temp_bytes();
        if (e == cudaSuccess) e = s.stage(j, stream);
        if (e == cudaSuccess) e = run(a, f, s.temp(), bytes, s.args(), n, stream);
        const std::string what = std::string(name(a)) + " n=" + std::to_string(n) +
                                 (f == form::allocating ? " (allocating form)" : "") + ": ";
        if (e != cudaSuccess) {
          failure = what + cudaGetErrorName(e);
          break;
        }
        const std::string m = s.verify(j, stream);
        if (!m.empty()) {
          failure = what + m;
          break;
        }
      }
    }
  }
  (void)cudaStreamDestroy(stream);
  return failure;
}

/// A plain launch through the library's helper writes its marker, and (with driver launches) the
/// calling thread's cache holds the function the runtime resolves in the current context.
void check_plain_launch_here(unsigned marker) {
  gpuprim_test::device_vector<unsigned> out(1);
  out.poison(0xff);
  REQUIRE_CUDA(gpuprim::detail::launch(write_marker, 1, 32, cudaStreamLegacy, gpuprim::detail::launch_mode::plain,
                                       out.data(), marker));
  REQUIRE_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
  CHECK(out.download()[0] == marker);
#if GPUPRIM_DRIVER_LAUNCH
  const auto& api = gpuprim::detail::driver_launch_entry_points<false>();
  REQUIRE(api.launch != nullptr);
  cudaFunction_t expected = nullptr;
  REQUIRE_CUDA(cudaGetFuncBySymbol(&expected, reinterpret_cast<const void*>(write_marker)));
  const CUfunction cached = gpuprim::detail::driver_function(api, reinterpret_cast<const void*>(write_marker));
  CHECK(cached == reinterpret_cast<CUfunction>(expected));
#endif
}

/// A driver entry point, from the runtime, in its form of CUDA version `version` (cuCtxCreate has
/// three: 3.2's, 11.4's and 12.5's).
template <class F>
F driver_entry(const char* symbol, unsigned version) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  REQUIRE_CUDA(cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &found));
  REQUIRE(found == cudaDriverEntryPointSuccess);
  REQUIRE(p != nullptr);
  return reinterpret_cast<F>(p);
}

#if GPUPRIM_DRIVER_LAUNCH
// The library's entry point types are the driver's own.
using api_t = gpuprim::detail::driver_launch_api;
static_assert(std::is_same_v<decltype(api_t::launch), PFN_cuLaunchKernel_v4000>);
static_assert(std::is_same_v<decltype(api_t::current_context), PFN_cuCtxGetCurrent_v4000>);
static_assert(std::is_same_v<decltype(api_t::context_id), PFN_cuCtxGetId_v12000>);
#endif

}  // namespace

TEST_CASE("reliability: calls follow the current context", "[reliability][contexts]") {
  REQUIRE_CUDA(cudaSetDevice(0));
  const std::uint64_t seed = gpuprim_test::test_seed();
  INFO("seed " << seed);

  // The primary context.
  check_plain_launch_here(0x1111u);
  CHECK(run_catalogue(seed) == "");

  // A host thread that has not used the runtime: its first call finds no context current.
  {
    std::string failure = "not run";
    std::thread t([&] { failure = run_catalogue(seed + 1); });
    t.join();
    CHECK(failure == "");
  }

  // A context of the user's, made current with the driver API, then the primary one again.
  {
    const auto create = driver_entry<PFN_cuCtxCreate_v3020>("cuCtxCreate", 3020);
    const auto destroy = driver_entry<PFN_cuCtxDestroy_v4000>("cuCtxDestroy", 4000);
    const auto pop = driver_entry<PFN_cuCtxPopCurrent_v4000>("cuCtxPopCurrent", 4000);
    int device = 0;
    REQUIRE_CUDA(cudaGetDevice(&device));
    CUcontext mine = nullptr;
    REQUIRE(create(&mine, 0, device) == CUDA_SUCCESS);  // pushed: current in this thread
    check_plain_launch_here(0x2222u);
    CHECK(run_catalogue(seed + 2) == "");
    CUcontext popped = nullptr;
    REQUIRE(pop(&popped) == CUDA_SUCCESS);
    CHECK(popped == mine);
    REQUIRE(destroy(mine) == CUDA_SUCCESS);
    check_plain_launch_here(0x3333u);
    CHECK(run_catalogue(seed + 3) == "");
  }

  // A new primary context.
  REQUIRE_CUDA(cudaDeviceReset());
  REQUIRE_CUDA(cudaSetDevice(0));
  check_plain_launch_here(0x4444u);
  CHECK(run_catalogue(seed + 4) == "");
  gpuprim_test::require_sync();
}
