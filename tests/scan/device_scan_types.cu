// Tests the device scans over the item and accumulator types of the contract, at sizes around
// the tile (0, 1, 31, 32, 33, tile - 1, tile, tile + 1, primes, many tiles).
#include <gpuprim/scan.cuh>

#include <cstdint>
#include <vector>

#include "scan/device_scan_common.cuh"
#include "scan/scan_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace scan_test;
using gpuprim_test::random_exact_vector;
using gpuprim_test::random_vector;
using gpuprim_test::triple;
using gpuprim_test::triple_op;

TEST_CASE("device scan: int32", "[scan][device]") {
  constexpr std::size_t tile = default_tile<int>();
  auto exact = [](std::size_t n) { return random_exact_vector<int>(n); };
  SECTION("exclusive_sum") { check_sizes<api::exclusive_sum, int, int>(tile, exact, 0, gpuprim::plus{}, host_plus{}); }
  SECTION("inclusive_sum") { check_sizes<api::inclusive_sum, int, int>(tile, exact, 0, gpuprim::plus{}, host_plus{}); }
  SECTION("exclusive_scan, plus, init 7") {
    check_sizes<api::exclusive_scan, int, int>(tile, exact, 7, gpuprim::plus{}, host_plus{});
  }
  SECTION("inclusive_scan, maximum") {
    auto wide = [](std::size_t n) { return random_vector<int>(n, -1000000000, 1000000000); };
    check_sizes<api::inclusive_scan, int, int>(tile, wide, 0, gpuprim::maximum{}, host_max{});
  }
}

TEST_CASE("device scan: uint8 items, uint32 accumulator and output", "[scan][device]") {
  constexpr std::size_t tile = default_tile<std::uint32_t>();
  auto bytes = [](std::size_t n) { return random_vector<std::uint8_t>(n, 0, 255); };
  SECTION("exclusive_scan, init 0u") {
    check_sizes<api::exclusive_scan, std::uint32_t, std::uint32_t>(tile, bytes, 0u, gpuprim::plus{}, host_plus{});
  }
  SECTION("exclusive_sum (accumulates in the output's type)") {
    check_sizes<api::exclusive_sum, std::uint32_t, std::uint32_t>(tile, bytes, 0u, gpuprim::plus{}, host_plus{});
  }
  SECTION("inclusive_sum (accumulates in the output's type)") {
    check_sizes<api::inclusive_sum, std::uint32_t, std::uint32_t>(tile, bytes, 0u, gpuprim::plus{}, host_plus{});
  }
}

TEST_CASE("device scan: uint8 in, uint8 out (wrapping sums)", "[scan][device]") {
  constexpr std::size_t tile = default_tile<std::uint8_t>();
  auto bytes = [](std::size_t n) { return random_vector<std::uint8_t>(n, 0, 255); };
  SECTION("inclusive_scan, plus") {
    check_sizes<api::inclusive_scan, std::uint8_t, std::uint8_t>(tile, bytes, std::uint8_t(0), gpuprim::plus{},
                                                                 host_plus{});
  }
}

TEST_CASE("device scan: int64", "[scan][device]") {
  constexpr std::size_t tile = default_tile<std::int64_t>();
  SECTION("exclusive_sum") {
    auto exact = [](std::size_t n) { return random_exact_vector<std::int64_t>(n); };
    check_sizes<api::exclusive_sum, std::int64_t, std::int64_t>(tile, exact, std::int64_t(0), gpuprim::plus{},
                                                                host_plus{});
  }
  SECTION("inclusive_scan, maximum of wide values") {
    auto wide = [](std::size_t n) { return random_vector<std::int64_t>(n, -(1LL << 60), 1LL << 60); };
    check_sizes<api::inclusive_scan, std::int64_t, std::int64_t>(tile, wide, std::int64_t(0), gpuprim::maximum{},
                                                                 host_max{});
  }
}

TEST_CASE("device scan: int16 items with a double accumulator", "[scan][device]") {
  constexpr std::size_t tile = default_tile<double>();
  auto shorts = [](std::size_t n) { return random_vector<std::int16_t>(n, -32768, 32767); };
  SECTION("exclusive_scan, init 0.5") {
    check_sizes<api::exclusive_scan, double, double>(tile, shorts, 0.5, gpuprim::plus{}, host_plus{});
  }
}

TEST_CASE("device scan: float and double (integer-valued, exact)", "[scan][device]") {
  SECTION("float inclusive_sum") {
    auto exact = [](std::size_t n) { return random_exact_vector<float>(n); };
    check_sizes<api::inclusive_sum, float, float>(default_tile<float>(), exact, 0.0f, gpuprim::plus{}, host_plus{});
  }
  SECTION("float exclusive_sum") {
    auto exact = [](std::size_t n) { return random_exact_vector<float>(n); };
    check_sizes<api::exclusive_sum, float, float>(default_tile<float>(), exact, 0.0f, gpuprim::plus{}, host_plus{});
  }
  SECTION("double exclusive_sum") {
    auto exact = [](std::size_t n) { return random_exact_vector<double>(n); };
    check_sizes<api::exclusive_sum, double, double>(default_tile<double>(), exact, 0.0, gpuprim::plus{}, host_plus{});
  }
  SECTION("double inclusive_scan, plus") {
    auto exact = [](std::size_t n) { return random_exact_vector<double>(n); };
    check_sizes<api::inclusive_scan, double, double>(default_tile<double>(), exact, 0.0, gpuprim::plus{},
                                                     host_plus{});
  }
}

TEST_CASE("device scan: 12-byte struct with a custom operator", "[scan][device]") {
  constexpr std::size_t tile = default_tile<triple>();
  auto triples = [](std::size_t n) { return random_vector<triple>(n, -1000, 1000); };
  SECTION("inclusive_scan") { check_sizes<api::inclusive_scan, triple, triple>(tile, triples, triple{}, triple_op{}, triple_op{}); }
  SECTION("exclusive_scan, init") {
    const triple init{3, 1 << 30, -(1 << 30)};
    check_sizes<api::exclusive_scan, triple, triple>(tile, triples, init, triple_op{}, triple_op{});
  }
}
