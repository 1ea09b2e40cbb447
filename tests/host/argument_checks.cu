// Host-only: the device algorithms reject bad arguments with cudaErrorInvalidValue
// before any CUDA call, so these checks run (and must pass) on machines without a GPU.
#include <gpuprim/reduce.cuh>

#include <cstddef>

#include "support/catch.hpp"

namespace {

// Stand-ins that are never dereferenced: nothing may be launched for bad arguments.
int some_item = 0;
const int* const valid_in = &some_item;
int* const valid_out = &some_item;
alignas(256) unsigned char some_workspace[4096];

}  // namespace

TEST_CASE("reduce and sum, workspace form: null pointers are invalid", "[reduce][arguments]") {
  void* temp = some_workspace;
  std::size_t bytes = sizeof(some_workspace);
  const int* null_in = nullptr;
  int* null_out = nullptr;

  SECTION("null input with items") {
    CHECK(gpuprim::reduce(temp, bytes, null_in, valid_out, 1, 0, gpuprim::plus{}) == cudaErrorInvalidValue);
    CHECK(gpuprim::reduce(temp, bytes, null_in, valid_out, std::size_t(1) << 32, 0, gpuprim::maximum{}) ==
          cudaErrorInvalidValue);
    CHECK(gpuprim::sum(temp, bytes, null_in, valid_out, 1000) == cudaErrorInvalidValue);
  }
  SECTION("null output, with or without items (a reduce of nothing still writes init)") {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(12345)}) {
      CAPTURE(n);
      CHECK(gpuprim::reduce(temp, bytes, valid_in, null_out, n, 0, gpuprim::plus{}) == cudaErrorInvalidValue);
      CHECK(gpuprim::sum(temp, bytes, valid_in, null_out, n) == cudaErrorInvalidValue);
    }
  }
  SECTION("null input and null output") {
    CHECK(gpuprim::sum(temp, bytes, null_in, null_out, 7) == cudaErrorInvalidValue);
  }
}

TEST_CASE("reduce and sum, allocating form: null pointers are invalid", "[reduce][arguments]") {
  const int* null_in = nullptr;
  int* null_out = nullptr;

  CHECK(gpuprim::reduce(null_in, valid_out, 1, 0, gpuprim::plus{}) == cudaErrorInvalidValue);
  CHECK(gpuprim::sum(null_in, valid_out, 1000) == cudaErrorInvalidValue);
  CHECK(gpuprim::reduce(valid_in, null_out, 0, 0, gpuprim::minimum{}) == cudaErrorInvalidValue);
  CHECK(gpuprim::sum(valid_in, null_out, 1) == cudaErrorInvalidValue);
}
