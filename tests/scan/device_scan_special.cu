// Tests the device scans beyond the types: a non-commutative operator, in place, misaligned
// pointers, iterator inputs and outputs, the allocating forms, two streams, CUDA graph capture and
// replay, and one workspace serving many calls.
#include <gpuprim/scan.cuh>

#include <cstdint>
#include <vector>

#include "scan/device_scan_common.cuh"
#include "scan/scan_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace scan_test;
using gpuprim_test::device_vector;
using gpuprim_test::random_exact_vector;
using gpuprim_test::random_vector;
using gpuprim_test::require_sync;

TEST_CASE("device scan: non-commutative operator (affine maps mod 2^32)", "[scan][device]") {
  constexpr std::size_t tile = default_tile<affine>();
  auto maps = [](std::size_t n) { return random_affines(n); };
  SECTION("inclusive_scan") {
    check_sizes<api::inclusive_scan, affine, affine>(tile, maps, affine_identity(), compose{}, compose{});
  }
  SECTION("exclusive_scan, a random init") {
    const affine init = random_affines(1)[0];
    check_sizes<api::exclusive_scan, affine, affine>(tile, maps, init, compose{}, compose{});
  }
}

TEST_CASE("device scan: in place", "[scan][device]") {
  const std::size_t tile = default_tile<int>();
  for (std::size_t n : {std::size_t(1), std::size_t(37), tile + 1, 5 * tile + 3, std::size_t(300001)}) {
    for (std::size_t offset : {0, 1, 3}) {
      const auto ints = random_exact_vector<int>(n);
      check_in_place<api::exclusive_sum>(n, offset, 0, gpuprim::plus{}, host_plus{}, ints);
      check_in_place<api::inclusive_scan>(n, offset, 0, gpuprim::plus{}, host_plus{}, ints);
    }
    const auto bytes = random_vector<std::uint8_t>(n, 0, 255);
    check_in_place<api::inclusive_sum>(n, 5, std::uint8_t(0), gpuprim::plus{}, host_plus{}, bytes);
    check_in_place<api::inclusive_scan>(n, 0, affine_identity(), compose{}, compose{}, random_affines(n));
  }
}

TEST_CASE("device scan: misaligned input and output pointers", "[scan][device]") {
  SECTION("int32, every pair of offsets 0..3") {
    const std::size_t tile = default_tile<int>();
    for (std::size_t n : {std::size_t(2), std::size_t(5), tile - 3, 3 * tile + 7}) {
      const auto ints = random_exact_vector<int>(n);
      for (std::size_t in_offset = 0; in_offset < 4; ++in_offset) {
        for (std::size_t out_offset = 0; out_offset < 4; ++out_offset) {
          check_scan<api::exclusive_sum, int, int>(ints, 0, gpuprim::plus{}, host_plus{}, in_offset, out_offset);
        }
      }
      check_scan<api::inclusive_scan, int, int>(ints, 0, gpuprim::maximum{}, host_max{}, 2, 2);
    }
  }
  SECTION("uint8 items into uint32, input offsets 0..15") {
    const std::size_t tile = default_tile<std::uint32_t>();
    for (std::size_t n : {std::size_t(9), std::size_t(20), 2 * tile + 19}) {
      const auto bytes = random_vector<std::uint8_t>(n, 0, 255);
      for (std::size_t in_offset = 0; in_offset < 16; ++in_offset) {
        const std::size_t out_offset = in_offset % 5;
        check_scan<api::exclusive_scan, std::uint32_t, std::uint32_t>(bytes, 11u, gpuprim::plus{}, host_plus{},
                                                                      in_offset, out_offset);
      }
    }
  }
  SECTION("double and int16 to double") {
    const std::size_t tile = default_tile<double>();
    for (std::size_t n : {std::size_t(3), tile + 5, 4 * tile + 1}) {
      const auto doubles = random_exact_vector<double>(n);
      const auto shorts = random_vector<std::int16_t>(n, -32768, 32767);
      for (std::size_t in_offset = 0; in_offset < 2; ++in_offset) {
        for (std::size_t out_offset = 0; out_offset < 2; ++out_offset) {
          check_scan<api::inclusive_sum, double, double>(doubles, 0.0, gpuprim::plus{}, host_plus{}, in_offset,
                                                         out_offset);
        }
      }
      for (std::size_t in_offset : {1, 3, 7}) {
        check_scan<api::exclusive_scan, double, double>(shorts, 0.0, gpuprim::plus{}, host_plus{}, in_offset, 1);
      }
    }
  }
}

namespace {

std::vector<std::size_t> iterator_sizes() {
  const std::size_t tile = default_tile<int>();
  return {1, 100, tile, 7 * tile + 11};
}

}  // namespace

TEST_CASE("device scan: transform of a counting iterator, exclusive_sum", "[scan][device]") {
  const transform_iterator<counting_iterator<long long>, scramble, int> in{{5, 3}, {}};
  for (std::size_t n : iterator_sizes()) {
    INFO("n = " << n);
    std::vector<int> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = scramble{}(5 + 3 * static_cast<long long>(i));
    device_vector<int> d_out(n + guard_items);
    std::size_t bytes = 0;
    REQUIRE_CUDA(gpuprim::exclusive_sum(nullptr, bytes, in, d_out.data(), n));
    device_vector<unsigned char> temp(bytes);
    d_out.poison(0xA5);
    REQUIRE_CUDA(gpuprim::exclusive_sum(temp.data(), bytes, in, d_out.data(), n));
    require_sync();
    check_output(reference_exclusive<int, int>(h, 0, host_plus{}), d_out.download(), 0xA5);
  }
}

TEST_CASE("device scan: counting iterator, inclusive_sum (allocating form)", "[scan][device]") {
  const counting_iterator<int> in{-1000, 1};
  for (std::size_t n : iterator_sizes()) {
    INFO("n = " << n);
    std::vector<int> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = -1000 + static_cast<int>(i);
    device_vector<int> d_out(n + guard_items);
    d_out.poison(0xA5);
    REQUIRE_CUDA(gpuprim::inclusive_sum(in, d_out.data(), n));
    require_sync();
    check_output(reference_inclusive<int, int>(h, host_plus{}), d_out.download(), 0xA5);
  }
}

TEST_CASE("device scan: output iterator", "[scan][device]") {
  for (std::size_t n : iterator_sizes()) {
    INFO("n = " << n);
    const auto h = random_exact_vector<int>(n);
    device_vector<int> d_in(h), d_out(n + guard_items);
    const pointer_output<int> out{d_out.data()};
    std::size_t bytes = 0;
    REQUIRE_CUDA(gpuprim::inclusive_scan(nullptr, bytes, d_in.data(), out, n, gpuprim::plus{}));
    device_vector<unsigned char> temp(bytes);
    d_out.poison(0xA5);
    REQUIRE_CUDA(gpuprim::inclusive_scan(temp.data(), bytes, d_in.data(), out, n, gpuprim::plus{}));
    require_sync();
    check_output(reference_inclusive<int, int>(h, host_plus{}), d_out.download(), 0xA5);
    d_out.poison(0xA5);
    REQUIRE_CUDA(gpuprim::exclusive_scan(d_in.data(), out, n, -3, gpuprim::plus{}));  // allocating form
    require_sync();
    check_output(reference_exclusive<int, int>(h, -3, host_plus{}), d_out.download(), 0xA5);
  }
}

TEST_CASE("device scan: allocating forms", "[scan][device]") {
  const std::size_t n = 9 * default_tile<int>() + 5;
  const auto ints = random_exact_vector<int>(n);
  check_scan<api::exclusive_scan, int, int>(ints, 4, gpuprim::plus{}, host_plus{}, 0, 0, true);
  check_scan<api::inclusive_scan, int, int>(ints, 0, gpuprim::maximum{}, host_max{}, 1, 0, true);
  check_scan<api::exclusive_sum, int, int>(ints, 0, gpuprim::plus{}, host_plus{}, 0, 1, true);
  check_scan<api::inclusive_sum, int, int>(ints, 0, gpuprim::plus{}, host_plus{}, 0, 0, true);
  check_scan<api::inclusive_scan, affine, affine>(random_affines(n), affine_identity(), compose{}, compose{}, 0, 0, true);
}

TEST_CASE("device scan: two streams at once", "[scan][device]") {
  gpuprim_test::scoped_stream s1, s2;
  const std::size_t n1 = 300 * default_tile<int>() + 1, n2 = 200 * default_tile<affine>() + 3;
  const auto h1 = random_exact_vector<int>(n1);
  const auto h2 = random_affines(n2);
  device_vector<int> in1(h1), out1(n1 + guard_items);
  device_vector<affine> in2(h2), out2(n2 + guard_items);
  std::size_t b1 = 0, b2 = 0;
  REQUIRE_CUDA(gpuprim::exclusive_sum(nullptr, b1, in1.data(), out1.data(), n1, s1));
  REQUIRE_CUDA(gpuprim::inclusive_scan(nullptr, b2, in2.data(), out2.data(), n2, compose{}, s2));
  device_vector<unsigned char> t1(b1), t2(b2);
  out1.poison(0xA5);
  out2.poison(0xA5);
  for (int r = 0; r < 3; ++r) {  // the two streams' kernels interleave on the GPU
    REQUIRE_CUDA(gpuprim::exclusive_sum(t1.data(), b1, in1.data(), out1.data(), n1, s1));
    REQUIRE_CUDA(gpuprim::inclusive_scan(t2.data(), b2, in2.data(), out2.data(), n2, compose{}, s2));
  }
  REQUIRE_CUDA(cudaStreamSynchronize(s1));
  REQUIRE_CUDA(cudaStreamSynchronize(s2));
  require_sync();
  check_output(reference_exclusive<int, int>(h1, 0, host_plus{}), out1.download(), 0xA5);
  check_output(reference_inclusive<affine, affine>(h2, compose{}), out2.download(), 0xA5);
}

TEST_CASE("device scan: CUDA graph capture and replay", "[scan][device]") {
  gpuprim_test::scoped_stream s;
  const std::size_t n = 123 * default_tile<int>() + 45;
  device_vector<int> in(n), out(n + guard_items);
  device_vector<double> in_d(n), out_d(n + guard_items);
  std::size_t bytes = 0, bytes_d = 0;
  REQUIRE_CUDA(gpuprim::exclusive_sum(nullptr, bytes, in.data(), out.data(), n, s));
  REQUIRE_CUDA(gpuprim::inclusive_sum(nullptr, bytes_d, in_d.data(), out_d.data(), n, s));
  device_vector<unsigned char> temp(bytes), temp_d(bytes_d);

  cudaGraph_t graph = nullptr;
  REQUIRE_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  const cudaError_t captured_1 = gpuprim::exclusive_sum(temp.data(), bytes, in.data(), out.data(), n, s);
  const cudaError_t captured_2 = gpuprim::inclusive_sum(temp_d.data(), bytes_d, in_d.data(), out_d.data(), n, s);
  const cudaError_t ended = cudaStreamEndCapture(s, &graph);
  REQUIRE_CUDA(captured_1);
  REQUIRE_CUDA(captured_2);
  REQUIRE_CUDA(ended);
  cudaGraphExec_t exec = nullptr;
  REQUIRE_CUDA(cudaGraphInstantiate(&exec, graph, 0));

  for (int replay = 0; replay < 3; ++replay) {
    INFO("replay " << replay);
    const auto h = random_exact_vector<int>(n);
    const auto h_d = random_exact_vector<double>(n);
    in.upload(h);
    in_d.upload(h_d);
    out.poison(0xA5);
    out_d.poison(0xA5);
    REQUIRE_CUDA(cudaGraphLaunch(exec, s));
    REQUIRE_CUDA(cudaStreamSynchronize(s));
    require_sync();
    check_output(reference_exclusive<int, int>(h, 0, host_plus{}), out.download(), 0xA5);
    check_output(reference_inclusive<double, double>(h_d, host_plus{}), out_d.download(), 0xA5);
  }
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
}

TEST_CASE("device scan: one workspace, twenty calls", "[scan][device]") {
  const std::size_t tile = default_tile<int>();
  const std::size_t max_n = 40 * tile;
  device_vector<int> in(max_n), out(max_n + guard_items);
  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim::exclusive_scan(nullptr, bytes, in.data(), out.data(), max_n, 0, gpuprim::plus{}));
  device_vector<unsigned char> temp(bytes);
  temp.poison(0xFF);  // a workspace holds anything to begin with: the scan resets what it reads
  auto& rng = gpuprim_test::test_rng();
  for (int call = 0; call < 20; ++call) {
    // Sizes that shrink and grow: tile states left by a longer call must not leak into this one.
    const std::size_t n = call % 5 == 4 ? max_n : std::uniform_int_distribution<std::size_t>(1, max_n)(rng);
    const int init = call - 10;
    INFO("call " << call << ", n = " << n);
    const auto h = random_exact_vector<int>(n);
    in.upload(h);
    out.poison(0xA5);
    std::size_t b = bytes;
    REQUIRE_CUDA(gpuprim::exclusive_scan(temp.data(), b, in.data(), out.data(), n, init, gpuprim::plus{}));
    require_sync();
    check_output(reference_exclusive<int, int>(h, init, host_plus{}), out.download(0, n + guard_items), 0xA5);
  }
}
