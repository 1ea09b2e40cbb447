// Concurrency: eight host threads, each with its own non-blocking stream, buffers and
// workspaces, queue 100 mixed gpuprim calls each (reduce, scan and radix sort, both forms,
// random sizes), four calls in flight per stream between checks. Every result is compared with
// the host reference; the guards past each output must stay untouched.
#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "reliability/catalogue.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

namespace {

using namespace reliability;

/// A size for call `i`: mostly log-uniform up to `max_n`, sometimes 0, 1 or a tile edge.
std::size_t draw_size(std::uint64_t r, std::size_t max_n) {
  static const std::size_t edges[] = {0,    1,    1023, 1024, 1025, 4095,  4096,  4097,
                                      7295, 7296, 7297, 9599, 9600, 9601, 65536, 65537};
  if (r % 8 == 0) return std::min<std::size_t>(edges[(r >> 8) % (sizeof(edges) / sizeof(edges[0]))], max_n);
  const int max_log = 63 - __builtin_clzll(max_n);
  const int log = int((r >> 16) % std::uint64_t(max_log + 1));
  return std::min<std::size_t>(max_n, (std::size_t(1) << log) + ((r >> 32) % (std::size_t(1) << log)));
}

struct stream_worker {
  static constexpr int in_flight = 4;
  std::uint64_t seed = 0;
  int calls = 0;
  std::size_t max_n = 0;
  std::vector<std::string> failures;

  void operator()() {
    cudaStream_t stream = nullptr;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
      failures.push_back("cudaStreamCreateWithFlags failed");
      return;
    }
    std::size_t workspace = 0;
    for (int a = 0; a < algo_count; ++a) workspace = std::max(workspace, workspace_bytes(algo(a), max_n));
    std::vector<slot> slots(in_flight);
    for (auto& s : slots) {
      if (s.reserve(max_n, workspace) != cudaSuccess) failures.push_back("slot allocation failed");
    }
    if (failures.empty()) {
      std::vector<job> jobs(in_flight);
      std::vector<form> forms(in_flight);
      for (int call = 0; call < calls; ++call) {
        const std::uint64_t r = seed * 0x9E3779B97F4A7C15ull + std::uint64_t(call) * 0xD1B54A32D192ED03ull;
        const int k = call % in_flight;
        const algo a = algo((r >> 3) % algo_count);
        const form f = (r >> 7) % 4 == 0 ? form::allocating : form::workspace;
        jobs[k] = make_job(a, draw_size(r >> 11 ^ r << 5, max_n), r);
        forms[k] = f;
        std::size_t bytes = slots[k].temp_bytes();
        cudaError_t e = slots[k].stage(jobs[k], stream);
        if (e == cudaSuccess) e = run(a, f, slots[k].temp(), bytes, slots[k].args(), jobs[k].n, stream);
        if (e != cudaSuccess) {
          failures.push_back(std::string(name(a)) + ": " + cudaGetErrorName(e));
          break;
        }
        if (k == in_flight - 1 || call == calls - 1) {
          for (int i = 0; i <= k; ++i) {
            std::string m = slots[i].verify(jobs[i], stream);
            if (!m.empty()) failures.push_back(m + (forms[i] == form::allocating ? " (allocating form)" : ""));
          }
        }
      }
    }
    slots.clear();
    (void)cudaStreamDestroy(stream);
  }
};

}  // namespace

TEST_CASE("reliability: 8 streams x 100 mixed calls from 8 host threads, separate workspaces", "[reliability]") {
  const bool small = gpuprim_test::small_mode();
  const int streams = 8;
  std::vector<stream_worker> workers(streams);
  for (int t = 0; t < streams; ++t) {
    workers[t].seed = gpuprim_test::test_seed() + std::uint64_t(t) * 7919;
    workers[t].calls = small ? 12 : 100;
    workers[t].max_n = small ? (std::size_t(1) << 14) : (std::size_t(1) << 18);
  }
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back(std::ref(w));
  for (auto& t : threads) t.join();
  std::size_t failures = 0;
  for (int t = 0; t < streams; ++t) {
    for (const auto& m : workers[t].failures) {
      if (failures++ < 10) UNSCOPED_INFO("stream " << t << ": " << m);
    }
  }
  CHECK(failures == 0);
  gpuprim_test::require_sync();
}
