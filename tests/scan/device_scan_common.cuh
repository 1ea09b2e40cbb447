// The device-scan test runner: one call of any of the four scans (workspace or allocating form)
// against a host reference, with poisoned outputs and guard items past the end.
#pragma once

#include <gpuprim/scan.cuh>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "scan/scan_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

namespace scan_test {

enum class api { exclusive_scan, inclusive_scan, exclusive_sum, inclusive_sum };

inline const char* api_name(api a) {
  switch (a) {
    case api::exclusive_scan: return "exclusive_scan";
    case api::inclusive_scan: return "inclusive_scan";
    case api::exclusive_sum: return "exclusive_sum";
    default: return "inclusive_sum";
  }
}

/// Tile of the default shape for accumulator type T.
template <class T>
constexpr std::size_t default_tile() {
  return gpuprim::detail::scan_default_shape<T>::tile_items;
}

/// Calls the scan A (workspace form; with `temp == nullptr` a size query). `Shape` is the scans'
/// first template argument (gpuprim::detail::scan_force_streaming reaches the streaming scan).
template <api A, class Shape = gpuprim::detail::use_default_shape, class InIt, class OutIt, class Acc, class Op>
cudaError_t call_scan(void* temp, std::size_t& bytes, InIt in, OutIt out, std::size_t n, Acc init, Op op,
                      cudaStream_t s = 0) {
  if constexpr (A == api::exclusive_scan) {
    return gpuprim::exclusive_scan<Shape>(temp, bytes, in, out, n, init, op, s);
  } else if constexpr (A == api::inclusive_scan) {
    return gpuprim::inclusive_scan<Shape>(temp, bytes, in, out, n, op, s);
  } else if constexpr (A == api::exclusive_sum) {
    return gpuprim::exclusive_sum<Shape>(temp, bytes, in, out, n, s);
  } else {
    return gpuprim::inclusive_sum<Shape>(temp, bytes, in, out, n, s);
  }
}

/// Calls the allocating form of scan A.
template <api A, class InIt, class OutIt, class Acc, class Op>
cudaError_t call_scan_allocating(InIt in, OutIt out, std::size_t n, Acc init, Op op, cudaStream_t s = 0) {
  if constexpr (A == api::exclusive_scan) {
    return gpuprim::exclusive_scan(in, out, n, init, op, s);
  } else if constexpr (A == api::inclusive_scan) {
    return gpuprim::inclusive_scan(in, out, n, op, s);
  } else if constexpr (A == api::exclusive_sum) {
    return gpuprim::exclusive_sum(in, out, n, s);
  } else {
    return gpuprim::inclusive_sum(in, out, n, s);
  }
}

/// Host reference of scan A (sums: init Acc{}).
template <api A, class Out, class Acc, class In, class HostOp>
std::vector<Out> reference(const std::vector<In>& in, Acc init, HostOp host_op) {
  if constexpr (A == api::exclusive_scan) {
    return reference_exclusive<Out, Acc>(in, init, host_op);
  } else if constexpr (A == api::exclusive_sum) {
    return reference_exclusive<Out, Acc>(in, Acc{}, host_plus{});
  } else if constexpr (A == api::inclusive_scan) {
    return reference_inclusive<Out, Acc>(in, host_op);
  } else {
    return reference_inclusive<Out, Acc>(in, host_plus{});
  }
}

inline constexpr std::size_t guard_items = 16;

/// Checks items [0, n) against `expected` and that the guard items after them still hold the
/// poison byte pattern.
template <class Out>
void check_output(const std::vector<Out>& expected, const std::vector<Out>& got, unsigned char poison) {
  const std::size_t n = expected.size();
  REQUIRE(got.size() == n + guard_items);
  gpuprim_test::check_equal_vectors(expected, std::vector<Out>(got.begin(), got.begin() + n));
  std::size_t touched = 0;
  for (std::size_t i = n; i < got.size(); ++i) {
    unsigned char bytes[sizeof(Out)];
    std::memcpy(bytes, &got[i], sizeof(Out));
    for (unsigned char b : bytes) touched += b != poison;
  }
  INFO("bytes written past the end: " << touched);
  CHECK(touched == 0);
}

/// Runs scan A of `h_in` (offset by `in_offset` items in its device buffer; output offset by
/// `out_offset`) and compares with the host reference. Outputs are poisoned twice over with
/// different patterns when an output item is small enough to match a poison by chance.
template <api A, class Out, class Acc, class Shape = gpuprim::detail::use_default_shape, class In, class Op,
          class HostOp>
void check_scan(const std::vector<In>& h_in, Acc init, Op op, HostOp host_op, std::size_t in_offset = 0,
                std::size_t out_offset = 0, bool allocating = false) {
  const std::size_t n = h_in.size();
  INFO(api_name(A) << ", n = " << n << ", input offset " << in_offset << ", output offset " << out_offset
                   << (allocating ? ", allocating form" : ""));
  const std::vector<Out> expected = reference<A, Out, Acc>(h_in, init, host_op);
  gpuprim_test::device_vector<In> d_in(in_offset + n + 1);
  d_in.upload(h_in, in_offset);
  gpuprim_test::device_vector<Out> d_out(out_offset + n + guard_items);
  const In* in = d_in.data() + in_offset;
  Out* out = d_out.data() + out_offset;

  std::size_t bytes = 0;
  REQUIRE_CUDA((call_scan<A, Shape>(nullptr, bytes, in, out, n, init, op)));
  REQUIRE(bytes >= 1);
  gpuprim_test::device_vector<unsigned char> temp(bytes);

  const unsigned char patterns[] = {0xA5, 0x5A};
  const int runs = sizeof(Out) <= 2 ? 2 : 1;
  for (int r = 0; r < runs; ++r) {
    d_out.poison(patterns[r]);
    if (allocating) {
      REQUIRE_CUDA((call_scan_allocating<A>(in, out, n, init, op)));
    } else {
      std::size_t b = bytes;
      REQUIRE_CUDA((call_scan<A, Shape>(temp.data(), b, in, out, n, init, op)));
    }
    gpuprim_test::require_sync();
    check_output(expected, d_out.download(out_offset, n + guard_items), patterns[r]);
  }
}

/// In place: d_out == d_in, at several sizes and offsets (the head peeled for misaligned pointers
/// is read and written by the same lanes).
template <api A, class Shape = gpuprim::detail::use_default_shape, class T, class Op, class HostOp>
void check_in_place(std::size_t n, std::size_t offset, T init, Op op, HostOp host_op, const std::vector<T>& h_in) {
  INFO(api_name(A) << " in place, n = " << n << ", offset " << offset);
  const std::vector<T> expected = reference<A, T, T>(h_in, init, host_op);
  gpuprim_test::device_vector<T> d(offset + n + guard_items);
  d.poison(0xA5);
  d.upload(h_in, offset);
  T* p = d.data() + offset;
  std::size_t bytes = 0;
  REQUIRE_CUDA((call_scan<A, Shape>(nullptr, bytes, p, p, n, init, op)));
  gpuprim_test::device_vector<unsigned char> temp(bytes);
  REQUIRE_CUDA((call_scan<A, Shape>(temp.data(), bytes, p, p, n, init, op)));
  gpuprim_test::require_sync();
  check_output(expected, d.download(offset, n + guard_items), 0xA5);
}

/// The same scan for every size of `test_sizes(tile)`.
template <api A, class Out, class Acc, class Make, class Op, class HostOp>
void check_sizes(std::size_t tile, Make make_input, Acc init, Op op, HostOp host_op) {
  for (std::size_t n : test_sizes(tile)) check_scan<A, Out, Acc>(make_input(n), init, op, host_op);
}

}  // namespace scan_test
