// Graph capture of every device algorithm, in the workspace form and in the allocating form
// (whose stream-ordered allocation becomes an allocation node of the graph), captured in global
// mode, instantiated, and replayed with new inputs staged before each launch. The scans also at a
// size that takes the streaming scan (a cooperative launch, on sm_90 and up); not in small mode
// (compute-sanitizer's racecheck does not model its mbarrier handoffs: tests/scan/CMakeLists.txt).
#include <gpuprim/scan.cuh>

#include <cstdint>
#include <string>

#include "reliability/catalogue.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace reliability;

namespace {

/// Above the streaming scan's thresholds for 4-byte (5 x 2^20) and 8-byte (8 x 2^20) items: the
/// catalogue's scans (int32/uint32 and int64/double, aligned buffers) stream at this size.
constexpr std::size_t streaming_n = 8500000;
static_assert(streaming_n > gpuprim::detail::streaming_scan_min_items<4> &&
                  streaming_n > gpuprim::detail::streaming_scan_min_items<8>,
              "streaming_n must stream for 4- and 8-byte items");

bool is_scan(algo a) {
  return a == algo::exclusive_sum_i64 || a == algo::inclusive_max_i32 || a == algo::exclusive_scan_u32 ||
         a == algo::inclusive_sum_f64;
}

}  // namespace

TEST_CASE("reliability: every algorithm in both forms captured in a CUDA graph and replayed", "[reliability][graph]") {
  gpuprim_test::scoped_stream stream;
  const std::uint64_t seed = gpuprim_test::test_seed();
  for (std::size_t n : {std::size_t(1000), std::size_t(300007), streaming_n}) {
    for (int ai = 0; ai < algo_count; ++ai) {
      const algo a = algo(ai);
      // Only the scans change kernels between 300007 items and streaming_n.
      if (n == streaming_n && (!is_scan(a) || gpuprim_test::small_mode())) continue;
      for (form f : {form::workspace, form::allocating}) {
        INFO(name(a) << ", n = " << n << (f == form::allocating ? ", allocating form" : ", workspace form"));
        slot s;
        REQUIRE_CUDA(s.reserve(n, f == form::workspace ? workspace_bytes(a, n) : 0));
        cudaGraph_t graph = nullptr;
        std::size_t bytes = s.temp_bytes();
        REQUIRE_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        const cudaError_t captured = run(a, f, s.temp(), bytes, s.args(), n, stream);
        const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
        REQUIRE_CUDA(captured);
        REQUIRE_CUDA(ended);
        cudaGraphExec_t exec = nullptr;
        REQUIRE_CUDA(cudaGraphInstantiate(&exec, graph, 0));
        for (int replay = 0; replay < 2; ++replay) {
          const job j = make_job(a, n, seed + 101 * std::uint64_t(replay));
          REQUIRE_CUDA(s.stage(j, stream));
          REQUIRE_CUDA(cudaGraphLaunch(exec, stream));
          const std::string m = s.verify(j, stream);
          INFO("replay " << replay << ": " << m);
          CHECK(m.empty());
        }
        CHECK_CUDA(cudaGraphExecDestroy(exec));
        CHECK_CUDA(cudaGraphDestroy(graph));
      }
    }
  }
  gpuprim_test::require_sync();
}
