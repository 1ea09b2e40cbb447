// Host-only: the device scans reject bad arguments, and answer size queries, before any CUDA call,
// so these checks run (and must pass) on machines without a GPU.
#include <gpuprim/scan.cuh>

#include <cstddef>

#include "support/catch.hpp"

namespace {

// Stand-ins that are never dereferenced: nothing may be launched for bad arguments.
int some_item = 0;
const int* const valid_in = &some_item;
int* const valid_out = &some_item;
alignas(256) unsigned char some_workspace[16];
constexpr std::size_t many = std::size_t(1) << 24;  // many tiles: the workspace is needed

}  // namespace

TEST_CASE("scan: null pointers with items are invalid", "[scan][arguments]") {
  void* temp = some_workspace;
  std::size_t bytes = sizeof(some_workspace);
  const int* null_in = nullptr;
  int* null_out = nullptr;
  for (std::size_t n : {std::size_t(1), many, std::size_t(1) << 32}) {
    CAPTURE(n);
    CHECK(gpuprim::exclusive_scan(temp, bytes, null_in, valid_out, n, 0, gpuprim::plus{}) == cudaErrorInvalidValue);
    CHECK(gpuprim::inclusive_scan(temp, bytes, valid_in, null_out, n, gpuprim::plus{}) == cudaErrorInvalidValue);
    CHECK(gpuprim::exclusive_sum(temp, bytes, null_in, null_out, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::inclusive_sum(temp, bytes, null_in, valid_out, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::exclusive_scan(null_in, valid_out, n, 0, gpuprim::plus{}) == cudaErrorInvalidValue);
    CHECK(gpuprim::inclusive_scan(valid_in, null_out, n, gpuprim::maximum{}) == cudaErrorInvalidValue);
    CHECK(gpuprim::exclusive_sum(null_in, valid_out, n) == cudaErrorInvalidValue);
    CHECK(gpuprim::inclusive_sum(valid_in, null_out, n) == cudaErrorInvalidValue);
  }
}

TEST_CASE("scan: a workspace that is too small is invalid", "[scan][arguments]") {
  std::size_t needed = 0;
  REQUIRE(gpuprim::exclusive_sum(nullptr, needed, valid_in, valid_out, many) == cudaSuccess);
  REQUIRE(needed > sizeof(some_workspace));
  std::size_t bytes = sizeof(some_workspace);
  CHECK(gpuprim::exclusive_sum(some_workspace, bytes, valid_in, valid_out, many) == cudaErrorInvalidValue);
  bytes = needed - 1;
  CHECK(gpuprim::inclusive_scan(some_workspace, bytes, valid_in, valid_out, many, gpuprim::plus{}) ==
        cudaErrorInvalidValue);
}

TEST_CASE("scan: size queries and empty scans need neither pointers nor a GPU", "[scan][arguments]") {
  const int* null_in = nullptr;
  int* null_out = nullptr;
  std::size_t previous = 0;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(5000), many, std::size_t(1) << 32}) {
    CAPTURE(n);
    std::size_t bytes = 0;
    CHECK(gpuprim::exclusive_scan(nullptr, bytes, null_in, null_out, n, 0, gpuprim::plus{}) == cudaSuccess);
    CHECK(bytes >= 1);
    CHECK(bytes >= previous);  // one workspace serves every smaller n
    previous = bytes;
  }
  std::size_t bytes = 0;
  CHECK(gpuprim::inclusive_sum(some_workspace, bytes, null_in, null_out, 0) == cudaSuccess);
  CHECK(gpuprim::exclusive_sum(null_in, null_out, 0) == cudaSuccess);
}
