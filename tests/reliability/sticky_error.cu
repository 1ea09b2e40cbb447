// A kernel fault before a gpuprim call (a sticky error: the context is lost) is reported: by the
// call or, if the call was queued before the runtime noticed, by the next synchronisation; and once
// noticed, every call of every algorithm in both forms returns an error. Its own executable, since
// the context cannot be used afterwards; not run under compute-sanitizer (the fault is deliberate).
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "reliability/catalogue.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace reliability;

namespace {
__global__ void fault() { __trap(); }
}  // namespace

TEST_CASE("reliability: after a kernel fault every call reports an error", "[reliability][errors]") {
  gpuprim_test::scoped_stream stream;
  const std::size_t n = 300007;
  slot slots[algo_count];
  job jobs[algo_count];
  for (int ai = 0; ai < algo_count; ++ai) {
    REQUIRE_CUDA(slots[ai].reserve(n, workspace_bytes(algo(ai), n)));
    jobs[ai] = make_job(algo(ai), n, gpuprim_test::test_seed() + std::uint64_t(ai));
    REQUIRE_CUDA(slots[ai].stage(jobs[ai], stream));
  }
  REQUIRE_CUDA(cudaStreamSynchronize(stream));

  fault<<<1, 32, 0, stream>>>();
  REQUIRE_CUDA(cudaPeekAtLastError());  // the launch itself was fine
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the fault has happened, unreported

  // The first call may be queued before the runtime notices the fault (launches are asynchronous);
  // then the next synchronisation reports it. Either way it is not lost.
  {
    std::size_t bytes = slots[0].temp_bytes();
    const cudaError_t e = run(algo(0), form::workspace, slots[0].temp(), bytes, slots[0].args(), n, stream);
    const cudaError_t synced = cudaStreamSynchronize(stream);
    INFO("first call after the fault returned " << cudaGetErrorName(e) << ", then cudaStreamSynchronize "
                                                << cudaGetErrorName(synced));
    CHECK(synced != cudaSuccess);
  }
  // From then on the context is known to be lost: every call of every algorithm reports an error.
  for (int ai = 0; ai < algo_count; ++ai) {
    for (form f : {form::workspace, form::allocating}) {
      INFO(name(algo(ai)) << (f == form::allocating ? ", allocating form" : ", workspace form"));
      std::size_t bytes = slots[ai].temp_bytes();
      const cudaError_t e = run(algo(ai), f, slots[ai].temp(), bytes, slots[ai].args(), n, stream);
      INFO("returned " << cudaGetErrorName(e));
      CHECK(e != cudaSuccess);
    }
  }
}
