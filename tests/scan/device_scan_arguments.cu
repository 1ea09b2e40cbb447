// Tests that the device scans reject bad arguments with cudaErrorInvalidValue, launch and write
// nothing, and leave no sticky error (every scan in both forms with a null input or output); and
// that n == 0 and the size query need no pointers.
#include <gpuprim/scan.cuh>

#include <cstdint>
#include <vector>

#include "scan/device_scan_common.cuh"
#include "scan/scan_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace scan_test;
using gpuprim_test::device_vector;
using gpuprim_test::require_sync;

namespace {

/// Expects no error left behind and `out` still poisoned.
void expect_untouched(const device_vector<int>& out) {
  CHECK(cudaGetLastError() == cudaSuccess);
  REQUIRE_CUDA(cudaDeviceSynchronize());
  const auto got = out.download();
  std::size_t touched = 0;
  for (int v : got) touched += v != int(0xA5A5A5A5u);
  CHECK(touched == 0);
}

/// Expects `e` to be cudaErrorInvalidValue, with no error left behind and `out` untouched.
void expect_rejected(cudaError_t e, const device_vector<int>& out) {
  CHECK(e == cudaErrorInvalidValue);
  expect_untouched(out);
}

/// Scan A in both forms, with a null input and then a null output (the other pointer valid), at
/// n items: each call must be rejected, write nothing to `out`, and leave `in` as it was.
template <api A>
void expect_null_pointers_rejected(void* temp, std::size_t bytes, const device_vector<int>& in,
                                   device_vector<int>& out, std::size_t n) {
  const std::vector<int> in_before = in.download();
  for (bool allocating : {false, true}) {
    for (bool null_input : {true, false}) {
      INFO(api_name(A) << (allocating ? ", allocating form" : ", workspace form") << ", n = " << n << ", null "
                       << (null_input ? "input" : "output"));
      const int* p_in = null_input ? nullptr : in.data();
      int* p_out = null_input ? out.data() : nullptr;
      std::size_t b = bytes;
      const cudaError_t e = allocating ? call_scan_allocating<A>(p_in, p_out, n, 5, gpuprim::plus{})
                                       : call_scan<A>(temp, b, p_in, p_out, n, 5, gpuprim::plus{});
      expect_rejected(e, out);
      CHECK(in.download() == in_before);
    }
  }
}

}  // namespace

TEST_CASE("device scan: bad arguments are rejected before any launch", "[scan][device][arguments]") {
  const std::size_t n = 10 * default_tile<int>() + 3;
  device_vector<int> in(std::vector<int>(n, 1)), out(n);
  out.poison(0xA5);
  const int* null_in = nullptr;
  int* null_out = nullptr;
  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim::exclusive_sum(nullptr, bytes, in.data(), out.data(), n));
  REQUIRE(bytes > 1);
  device_vector<unsigned char> temp(bytes);

  SECTION("null input with items") {
    std::size_t b = bytes;
    expect_rejected(gpuprim::exclusive_sum(temp.data(), b, null_in, out.data(), n), out);
    expect_rejected(gpuprim::inclusive_sum(temp.data(), b, null_in, out.data(), n), out);
    expect_rejected(gpuprim::exclusive_scan(temp.data(), b, null_in, out.data(), n, 0, gpuprim::plus{}), out);
    expect_rejected(gpuprim::inclusive_scan(temp.data(), b, null_in, out.data(), n, gpuprim::plus{}), out);
    expect_rejected(gpuprim::exclusive_sum(null_in, out.data(), n), out);
    expect_rejected(gpuprim::inclusive_scan(null_in, out.data(), 1, gpuprim::maximum{}), out);
  }
  SECTION("null output with items") {
    std::size_t b = bytes;
    expect_rejected(gpuprim::exclusive_sum(temp.data(), b, in.data(), null_out, n), out);
    expect_rejected(gpuprim::inclusive_scan(temp.data(), b, in.data(), null_out, 1, gpuprim::plus{}), out);
    expect_rejected(gpuprim::exclusive_scan(in.data(), null_out, n, 0, gpuprim::plus{}), out);
    expect_rejected(gpuprim::inclusive_sum(in.data(), null_out, n), out);
  }
  SECTION("every scan in both forms: a null input, then a null output") {
    for (std::size_t count : {std::size_t(1), n}) {
      expect_null_pointers_rejected<api::exclusive_scan>(temp.data(), bytes, in, out, count);
      expect_null_pointers_rejected<api::inclusive_scan>(temp.data(), bytes, in, out, count);
      expect_null_pointers_rejected<api::exclusive_sum>(temp.data(), bytes, in, out, count);
      expect_null_pointers_rejected<api::inclusive_sum>(temp.data(), bytes, in, out, count);
    }
  }
  SECTION("workspace too small") {
    std::size_t b = bytes - 1;
    expect_rejected(gpuprim::exclusive_sum(temp.data(), b, in.data(), out.data(), n), out);
    b = 1;
    expect_rejected(gpuprim::inclusive_sum(temp.data(), b, in.data(), out.data(), n), out);
    b = 0;
    expect_rejected(gpuprim::exclusive_scan(temp.data(), b, in.data(), out.data(), n, 0, gpuprim::plus{}), out);
  }
  SECTION("no items: nothing to check, nothing written") {
    std::size_t b = 0;
    CHECK(gpuprim::exclusive_sum(temp.data(), b, null_in, null_out, 0) == cudaSuccess);
    CHECK(gpuprim::inclusive_scan(null_in, null_out, 0, gpuprim::plus{}) == cudaSuccess);
    CHECK(gpuprim::exclusive_scan(temp.data(), b, in.data(), out.data(), 0, 5, gpuprim::plus{}) == cudaSuccess);
    expect_untouched(out);
  }
  SECTION("the size query needs no pointers and reports at least one byte") {
    for (std::size_t count : {std::size_t(0), std::size_t(1), n, std::size_t(1) << 33}) {
      CAPTURE(count);
      std::size_t b = 0;
      CHECK(gpuprim::exclusive_sum(nullptr, b, null_in, null_out, count) == cudaSuccess);
      CHECK(b >= 1);
      b = 0;
      CHECK(gpuprim::inclusive_scan(nullptr, b, null_in, null_out, count, gpuprim::maximum{}) == cudaSuccess);
      CHECK(b >= 1);
    }
    CHECK(cudaGetLastError() == cudaSuccess);
  }
}
