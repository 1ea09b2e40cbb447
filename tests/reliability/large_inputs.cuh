// Helpers of the tests above 2^31 items (scan, sort, reduce, limits): a memory-short skip that
// fails instead when GPUPRIM_REQUIRE_GPU=1, a counter-based hash that makes inputs on the device
// and again on the host, and a host check of device arrays read back in chunks through pinned
// memory and spread over the host's cores.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "support/catch.hpp"
#include "support/test_util.cuh"

namespace large_test {

/// True when GPUPRIM_REQUIRE_GPU is set and not "0" (as the GPU test main reads it): a GPU run
/// that must not pass without running every case.
inline bool gpu_required() {
  const char* v = std::getenv("GPUPRIM_REQUIRE_GPU");
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

/// A case that cannot run here (too little device memory): a warning, or a failure with
/// GPUPRIM_REQUIRE_GPU=1. The caller returns afterwards (FAIL has already left the test case).
#define GPUPRIM_LARGE_SKIP(message)                                                            \
  do {                                                                                         \
    if (large_test::gpu_required()) {                                                          \
      FAIL(message << " (GPUPRIM_REQUIRE_GPU=1: a large case may not be skipped)");            \
    } else {                                                                                   \
      WARN(message);                                                                           \
    }                                                                                          \
  } while (0)

/// splitmix64's finalizer of seed + i * golden: item i of a seeded random sequence, computable
/// anywhere (a device kernel fills the input, the host check recomputes it).
__host__ __device__ inline std::uint64_t hash64(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The outcome of a host check: items checked, items found wrong, and the first of those.
struct mismatches {
  std::size_t checked = 0;
  std::size_t count = 0;
  std::size_t first = ~std::size_t(0);
  void add(const mismatches& m) {
    checked += m.checked;
    count += m.count;
    first = std::min(first, m.first);
  }
};

/// Splits [begin, end) into one contiguous range per host thread (up to 16, at least 2^16 items
/// each) and calls f(thread, range_begin, range_end) for each range on its own thread; returns
/// the number of ranges. f must not use Catch2's macros (they are not thread-safe).
template <class F>
std::size_t parallel_ranges(std::size_t begin, std::size_t end, const F& f) {
  const std::size_t count = end > begin ? end - begin : 0;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads =
      std::max<std::size_t>(1, std::min<std::size_t>({std::size_t(hw), std::size_t(16), (count + 65535) / 65536}));
  const std::size_t per = (count + threads - 1) / threads;
  if (threads == 1) {
    f(std::size_t(0), begin, end);
    return 1;
  }
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t b = begin + std::min(count, t * per), e = begin + std::min(count, (t + 1) * per);
    pool.emplace_back([&f, t, b, e] { f(t, b, e); });
  }
  for (auto& th : pool) th.join();
  return threads;
}

/// Calls bad(i) for every i in [begin, end) on several host threads; counts the true answers.
template <class Bad>
mismatches parallel_count(std::size_t begin, std::size_t end, const Bad& bad) {
  std::vector<mismatches> part(16);
  const std::size_t used = parallel_ranges(begin, end, [&](std::size_t t, std::size_t b, std::size_t e) {
    mismatches m;  // local: no false sharing between the threads
    m.checked = e - b;
    for (std::size_t i = b; i < e; ++i) {
      if (bad(i) && m.count++ == 0) m.first = i;
    }
    part[t] = m;
  });
  mismatches total;
  for (std::size_t t = 0; t < used; ++t) total.add(part[t]);
  return total;
}

/// Reads items [0, n) of the device arrays a and b (b may be null: one array) back in chunks of
/// 2^24 items through two pinned buffers each (the next chunk's copy overlaps the check of this
/// one), and counts the items i for which bad(i, pa, pb) is true, pa and pb pointing at item i
/// in host memory; for i > 0, pa[-1] and pb[-1] are item i - 1 (also across chunks), so that a
/// check may compare neighbours. bad is called from several host threads at once.
template <class A, class B = unsigned char, class Bad>
mismatches check_chunks(const A* a, const B* b, std::size_t n, const Bad& bad) {
  constexpr std::size_t chunk = std::size_t(1) << 24;
  const std::size_t slot = chunk + 1;  // item 0 of a slot: the last item of the chunk before
  A* ha = nullptr;
  B* hb = nullptr;
  REQUIRE_CUDA(cudaMallocHost(reinterpret_cast<void**>(&ha), 2 * slot * sizeof(A)));
  if (b != nullptr) REQUIRE_CUDA(cudaMallocHost(reinterpret_cast<void**>(&hb), 2 * slot * sizeof(B)));
  cudaStream_t stream = nullptr;
  REQUIRE_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t copied[2];
  for (auto& e : copied) REQUIRE_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));

  const std::size_t chunks = (n + chunk - 1) / chunk;
  auto items_of = [&](std::size_t c) { return std::min(chunk, n - c * chunk); };
  auto copy = [&](std::size_t c) {
    const int s = int(c % 2);
    const std::size_t first = c * chunk, count = items_of(c);
    REQUIRE_CUDA(cudaMemcpyAsync(ha + s * slot + 1, a + first, count * sizeof(A), cudaMemcpyDeviceToHost, stream));
    if (b != nullptr) {
      REQUIRE_CUDA(cudaMemcpyAsync(hb + s * slot + 1, b + first, count * sizeof(B), cudaMemcpyDeviceToHost, stream));
    }
    REQUIRE_CUDA(cudaEventRecord(copied[s], stream));
  };

  mismatches total;
  if (chunks > 0) copy(0);
  for (std::size_t c = 0; c < chunks; ++c) {
    const int s = int(c % 2);
    REQUIRE_CUDA(cudaEventSynchronize(copied[s]));
    if (c > 0) {  // the previous chunk's last item, before its slot is overwritten by the next copy
      const int p = 1 - s;
      ha[s * slot] = ha[p * slot + items_of(c - 1)];
      if (b != nullptr) hb[s * slot] = hb[p * slot + items_of(c - 1)];
    }
    if (c + 1 < chunks) copy(c + 1);
    const std::size_t first = c * chunk;
    const A* ca = ha + s * slot + 1;
    const B* cb = b != nullptr ? hb + s * slot + 1 : nullptr;
    total.add(parallel_count(first, first + items_of(c), [&](std::size_t i) {
      return bad(i, ca + (i - first), cb != nullptr ? cb + (i - first) : nullptr);
    }));
  }
  REQUIRE_CUDA(cudaStreamSynchronize(stream));
  for (auto& e : copied) (void)cudaEventDestroy(e);
  (void)cudaStreamDestroy(stream);
  (void)cudaFreeHost(ha);
  if (hb != nullptr) (void)cudaFreeHost(hb);
  return total;
}

/// check_chunks of one device array: bad(i, pa).
template <class A, class Bad>
mismatches check_chunks(const A* a, std::size_t n, const Bad& bad) {
  return check_chunks(a, static_cast<const unsigned char*>(nullptr), n,
                      [&](std::size_t i, const A* pa, const unsigned char*) { return bad(i, pa); });
}

/// Bytes among the `count` bytes at device address p that are not `poison` (guard items).
inline std::size_t touched_bytes(const void* p, std::size_t count, unsigned char poison) {
  std::vector<unsigned char> h(count);
  REQUIRE_CUDA(cudaMemcpy(h.data(), p, count, cudaMemcpyDeviceToHost));
  return static_cast<std::size_t>(std::count_if(h.begin(), h.end(), [&](unsigned char x) { return x != poison; }));
}

}  // namespace large_test
