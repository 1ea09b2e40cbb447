// An error left pending by an earlier launch (here a launch with too many threads per block, which
// is not sticky) is reported by the next gpuprim call rather than swallowed: the call returns it and
// leaves it pending (cudaPeekAtLastError). Once cleared, the same call succeeds and is correct.
#include <cstdint>
#include <string>

#include "reliability/catalogue.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace reliability;

namespace {
__global__ void do_nothing() {}
}  // namespace

TEST_CASE("reliability: a pending launch error is reported by the next call, not swallowed", "[reliability][errors]") {
  gpuprim_test::scoped_stream stream;
  const std::size_t n = gpuprim_test::small_mode() ? 30011 : 300007;
  for (int ai = 0; ai < algo_count; ++ai) {
    const algo a = algo(ai);
    for (form f : {form::workspace, form::allocating}) {
      INFO(name(a) << (f == form::allocating ? ", allocating form" : ", workspace form"));
      slot s;
      REQUIRE_CUDA(s.reserve(n, workspace_bytes(a, n)));
      const job j = make_job(a, n, gpuprim_test::test_seed() + std::uint64_t(ai));
      REQUIRE_CUDA(s.stage(j, stream));
      REQUIRE_CUDA(cudaStreamSynchronize(stream));

      do_nothing<<<1, 4096, 0, stream>>>();  // more threads than a block may have: not launched
      const cudaError_t pending = cudaPeekAtLastError();
      std::size_t bytes = s.temp_bytes();
      const cudaError_t e = run(a, f, s.temp(), bytes, s.args(), n, stream);
      const cudaError_t still_pending = cudaGetLastError();  // clears it, whatever happens below
      INFO("pending " << cudaGetErrorName(pending) << ", the call returned " << cudaGetErrorName(e));
      CHECK(pending != cudaSuccess);
      CHECK(e == pending);
      CHECK(still_pending == pending);  // reported, and left for the caller to see too
      REQUIRE_CUDA(cudaStreamSynchronize(stream));

      REQUIRE_CUDA(s.stage(j, stream));
      bytes = s.temp_bytes();
      REQUIRE_CUDA(run(a, f, s.temp(), bytes, s.args(), n, stream));
      const std::string m = s.verify(j, stream);
      INFO(m);
      CHECK(m.empty());
    }
  }
  gpuprim_test::require_sync();
}
