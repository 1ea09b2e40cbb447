// Memory pressure: with the device's memory taken (and the stream-ordered pool trimmed), every
// allocating form that needs a workspace returns cudaErrorMemoryAllocation, writes nothing, leaves
// no error behind and leaks nothing from the pool; once memory is back, the same call succeeds.
// Not run in small mode: compute-sanitizer allocates device memory of its own.
#include <cstdint>
#include <string>
#include <vector>

#include "reliability/catalogue.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace reliability;

namespace {

/// Takes (almost) all free device memory in chunks, halving the chunk size down to 64 KiB.
class memory_hog {
public:
  memory_hog() {
    std::size_t chunk = gpuprim_test::free_device_memory();
    while (chunk >= (std::size_t(64) << 10)) {
      void* p = nullptr;
      if (cudaMalloc(&p, chunk) == cudaSuccess) {
        blocks_.push_back(p);
      } else {
        (void)cudaGetLastError();
        chunk /= 2;
      }
    }
  }
  ~memory_hog() { release(); }
  void release() {
    for (void* p : blocks_) (void)cudaFree(p);
    blocks_.clear();
  }

private:
  std::vector<void*> blocks_;
};

std::uint64_t pool_attribute(cudaMemPool_t pool, cudaMemPoolAttr attr) {
  std::uint64_t v = 0;
  REQUIRE_CUDA(cudaMemPoolGetAttribute(pool, attr, &v));
  return v;
}

}  // namespace

TEST_CASE("reliability: allocating forms under memory pressure", "[reliability][memory]") {
  if (gpuprim_test::small_mode()) {
    WARN("skipped in small mode (compute-sanitizer needs device memory of its own)");
    return;
  }
  gpuprim_test::scoped_stream stream;
  int device = 0;
  REQUIRE_CUDA(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  REQUIRE_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
  const std::size_t n = std::size_t(1) << 20;

  slot slots[algo_count];
  job jobs[algo_count];
  for (int ai = 0; ai < algo_count; ++ai) {
    REQUIRE_CUDA(slots[ai].reserve(n, 0));
    jobs[ai] = make_job(algo(ai), n, gpuprim_test::test_seed() + std::uint64_t(ai));
    REQUIRE_CUDA(slots[ai].stage(jobs[ai], stream));
  }
  REQUIRE_CUDA(cudaStreamSynchronize(stream));
  REQUIRE_CUDA(cudaMemPoolTrimTo(pool, 0));
  const std::uint64_t used_before = pool_attribute(pool, cudaMemPoolAttrUsedMemCurrent);

  {
    memory_hog hog;
    for (int ai = 0; ai < algo_count; ++ai) {
      const algo a = algo(ai);
      INFO(name(a));
      REQUIRE(workspace_bytes(a, n) > 1);  // every algorithm needs a workspace at this size
      std::size_t unused = 0;
      const cudaError_t e = run(a, form::allocating, nullptr, unused, slots[ai].args(), n, stream);
      CHECK(std::string(cudaGetErrorName(e)) == cudaGetErrorName(cudaErrorMemoryAllocation));
      CHECK_CUDA(cudaGetLastError());  // nothing left behind
    }
    REQUIRE_CUDA(cudaStreamSynchronize(stream));
    CHECK(pool_attribute(pool, cudaMemPoolAttrUsedMemCurrent) == used_before);
  }
  for (int ai = 0; ai < algo_count; ++ai) {
    INFO(name(algo(ai)));
    const std::string untouched = slots[ai].untouched(jobs[ai], stream);
    INFO(untouched);
    CHECK(untouched.empty());
  }

  // Memory is back: the same calls succeed.
  for (int ai = 0; ai < algo_count; ++ai) {
    INFO(name(algo(ai)));
    std::size_t unused = 0;
    REQUIRE_CUDA(run(algo(ai), form::allocating, nullptr, unused, slots[ai].args(), n, stream));
    const std::string m = slots[ai].verify(jobs[ai], stream);
    INFO(m);
    CHECK(m.empty());
  }
  REQUIRE_CUDA(cudaStreamSynchronize(stream));
  CHECK(pool_attribute(pool, cudaMemPoolAttrUsedMemCurrent) == used_before);
  gpuprim_test::require_sync();
}
