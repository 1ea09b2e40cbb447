// Tests gpuprim::segmented_reduce and segmented_sum against cub::DeviceSegmentedReduce and a host
// reference, bit for bit (values whose sums are exact in any order): segment sizes all 0, 1, 7, 32,
// 100, 1000, 10^5, power-law sizes, one giant segment among many tiny ones, 16 big segments;
// offsets with gaps, out of order, not starting at 0, as int, int64_t, size_t and a counting
// iterator; num_segments 0 and 1; int, float, double and struct values; poisoned outputs with guard
// items; misaligned inputs; bad arguments.
#include <gpuprim/reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "scan/scan_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using gpuprim_test::device_vector;
using gpuprim_test::require_sync;
using scan_test::host_max;
using scan_test::host_plus;

namespace {

constexpr std::size_t guard = 8;

/// Segments of the given sizes laid out in a permuted order with gaps of 0-3 items between them
/// (when `gaps`), after `lead` unused items; begin/end offsets per segment in the original order.
struct layout {
  std::vector<long long> begin, end;
  std::size_t items = 0;
};

layout make_layout(const std::vector<std::size_t>& sizes, bool gaps, bool shuffle, std::size_t lead = 0) {
  auto& rng = gpuprim_test::test_rng();
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  if (shuffle) std::shuffle(order.begin(), order.end(), rng);
  layout l;
  l.begin.resize(sizes.size());
  l.end.resize(sizes.size());
  std::size_t at = lead;
  for (std::size_t s : order) {
    if (gaps) at += rng() % 4;
    l.begin[s] = static_cast<long long>(at);
    at += sizes[s];
    l.end[s] = static_cast<long long>(at);
  }
  if (!sizes.empty() && gaps && rng() % 2 == 0) std::swap(l.begin[0], l.end[0]);  // end < begin: empty
  l.items = at + guard;
  return l;
}

template <class V, class HostOp>
std::vector<V> host_segmented(const std::vector<V>& in, const layout& l, V init, HostOp op) {
  std::vector<V> out(l.begin.size(), init);
  for (std::size_t s = 0; s < out.size(); ++s) {
    for (long long i = l.begin[s]; i < l.end[s]; ++i) out[s] = op(out[s], in[std::size_t(i)]);
  }
  return out;
}

template <class V>
std::vector<V> values(std::size_t n) {
  if constexpr (std::is_same_v<V, gpuprim_test::triple>) {
    return gpuprim_test::random_vector<V>(n, -1000, 1000);
  } else {
    return gpuprim_test::random_vector<V>(n, -100, 100);
  }
}

/// One segmented reduce (sum when Sum) of `l` over random values with gpuprim (workspace form,
/// input misaligned by `offset` items, offsets of type Offset) and CUB; compared with the host.
template <bool Sum, class V, class Offset, class Op, class HostOp>
void check(const layout& l, V init, Op op, HostOp host_op, std::size_t offset = 0) {
  const std::size_t S = l.begin.size();
  CAPTURE(S, l.items, offset, sizeof(Offset));
  const std::vector<V> in = values<V>(l.items);
  const std::vector<V> expected = Sum ? host_segmented(in, l, V{}, host_plus{}) : host_segmented(in, l, init, host_op);
  device_vector<V> d_in(l.items + offset);
  d_in.upload(in, offset);
  std::vector<Offset> b(S), e(S);
  for (std::size_t s = 0; s < S; ++s) {
    b[s] = static_cast<Offset>(l.begin[s]);
    e[s] = static_cast<Offset>(l.end[s]);
  }
  device_vector<Offset> d_b(b), d_e(e);
  device_vector<V> d_out(S + guard);
  const V poison = d_out.poison_unlike(V{});
  const V* x = d_in.data() + offset;
  std::size_t bytes = 0;
  auto call = [&](void* t) {
    if constexpr (Sum) {
      return gpuprim::segmented_sum(t, bytes, x, d_out.data(), S, d_b.data(), d_e.data());
    } else {
      return gpuprim::segmented_reduce(t, bytes, x, d_out.data(), S, d_b.data(), d_e.data(), init, op);
    }
  };
  REQUIRE_CUDA(call(nullptr));
  REQUIRE(bytes > 0);
  device_vector<unsigned char> temp(bytes);
  temp.poison();
  REQUIRE_CUDA(call(temp.data()));
  require_sync();
  gpuprim_test::check_equal_vectors(expected, d_out.download(0, S));
  for (const V& g : d_out.download(S, guard)) CHECK(gpuprim_test::bitwise_equal(g, poison));
  if (S == 0) return;
  // CUB on the same input agrees (and so with the host reference). CUB does not read a segment
  // whose end lies before its begin as empty (it read past the input in a compute-sanitizer
  // initcheck run): it gets those segments as [begin, begin).
  std::vector<Offset> ce = e;
  for (std::size_t s = 0; s < S; ++s) ce[s] = std::max(b[s], e[s]);
  device_vector<Offset> d_ce(ce);
  device_vector<V> c_out(S);
  std::size_t cub_bytes = 0;
  auto cub_call = [&](void* t) {
    if constexpr (Sum) {
      return cub::DeviceSegmentedReduce::Sum(t, cub_bytes, x, c_out.data(), static_cast<std::int64_t>(S), d_b.data(),
                                             d_ce.data());
    } else {
      return cub::DeviceSegmentedReduce::Reduce(t, cub_bytes, x, c_out.data(), static_cast<std::int64_t>(S),
                                                d_b.data(), d_ce.data(), op, init);
    }
  };
  REQUIRE_CUDA(cub_call(nullptr));
  device_vector<unsigned char> cub_temp(cub_bytes);
  REQUIRE_CUDA(cub_call(cub_temp.data()));
  require_sync();
  gpuprim_test::check_equal_vectors(c_out.download(), d_out.download(0, S));
}

std::vector<std::size_t> constant_sizes(std::size_t count, std::size_t size) { return std::vector<std::size_t>(count, size); }

/// Power-law sizes: size = floor(1 / u^1.2) capped at `cap`, u uniform in (0, 1].
std::vector<std::size_t> power_law_sizes(std::size_t total, std::size_t cap) {
  auto& rng = gpuprim_test::test_rng();
  std::vector<std::size_t> sizes;
  std::size_t sum = 0;
  while (sum < total) {
    const double u = (double(rng() % 1000000) + 1) / 1000000.0;
    std::size_t s = static_cast<std::size_t>(std::pow(u, -1.2));
    s = std::min(s - 1, cap);  // sizes from 0
    sizes.push_back(s);
    sum += s;
  }
  return sizes;
}

struct times_k {
  using value_type = long long;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = long long;
  using iterator_category = std::random_access_iterator_tag;
  long long k;
  __host__ __device__ long long operator[](std::size_t i) const { return static_cast<long long>(i) * k; }
};

}  // namespace

TEST_CASE("segmented reduce: constant segment sizes, against CUB", "[reduce][device][segmented]") {
  const bool small = gpuprim_test::small_mode();
  const std::size_t cases[][2] = {{5000, 0}, {70000, 1}, {30000, 7}, {5000, 32}, {3000, 100}, {700, 1000},
                                  {small ? std::size_t(3) : std::size_t(20), 100000}, {1, 1}, {1, 0}, {1, 300000}};
  for (const auto& c : cases) {
    CAPTURE(c[0], c[1]);
    const layout l = make_layout(constant_sizes(c[0], c[1]), false, false);
    check<true, int, int>(l, 0, gpuprim::plus{}, host_plus{});
    check<false, int, long long>(l, -3, gpuprim::maximum{}, host_max{});
    const layout g = make_layout(constant_sizes(c[0], c[1]), true, true, 5);
    check<true, float, std::size_t>(g, 0.0f, gpuprim::plus{}, host_plus{}, 1);
  }
}

TEST_CASE("segmented reduce: mixed sizes, 16 big segments, num_segments 0", "[reduce][device][segmented]") {
  const bool small = gpuprim_test::small_mode();
  SECTION("power-law sizes, gaps, out of order") {
    const layout l = make_layout(power_law_sizes(small ? 200000 : 3000000, 1000000), true, true, 3);
    check<true, double, long long>(l, 0.0, gpuprim::plus{}, host_plus{});
    check<false, gpuprim_test::triple, int>(l, gpuprim_test::triple{0, 1 << 30, -(1 << 30)},
                                            gpuprim_test::triple_op{}, gpuprim_test::triple_op{}, 2);
  }
  SECTION("one giant segment among many tiny ones") {
    std::vector<std::size_t> sizes = constant_sizes(20000, 3);
    sizes[7777] = small ? 500000 : 5000000;
    check<true, int, int>(make_layout(sizes, true, false), 0, gpuprim::plus{}, host_plus{});
    check<true, int, std::size_t>(make_layout(sizes, false, true), 0, gpuprim::plus{}, host_plus{}, 3);
  }
  SECTION("16 big segments") {
    const layout l = make_layout(constant_sizes(16, small ? 100000 : (std::size_t(1) << 20) + 3), false, false);
    check<true, float, int>(l, 0.0f, gpuprim::plus{}, host_plus{});
    check<false, int, long long>(l, 7, gpuprim::maximum{}, host_max{});
  }
  SECTION("num_segments 0 writes nothing") {
    check<true, int, int>(layout{}, 0, gpuprim::plus{}, host_plus{});
  }
}

TEST_CASE("segmented reduce: offsets from an iterator, allocating forms, bad arguments", "[reduce][device][segmented]") {
  const std::size_t S = 3001, K = 37;
  const auto in = values<int>(S * K);
  device_vector<int> d_in(in), d_out(S);
  // Segment s = [s * K, (s + 1) * K): begin from a counting iterator, end the same shifted by one.
  const times_k begin{static_cast<long long>(K)};
  std::vector<long long> ends(S);
  for (std::size_t s = 0; s < S; ++s) ends[s] = static_cast<long long>((s + 1) * K);
  device_vector<long long> d_end(ends);
  REQUIRE_CUDA(gpuprim::segmented_sum(d_in.data(), d_out.data(), S, begin, d_end.data()));
  require_sync();
  const auto got = d_out.download();
  for (std::size_t s = 0; s < S; ++s) {
    long long sum = 0;
    for (std::size_t i = s * K; i < (s + 1) * K; ++i) sum += in[i];
    CHECK(got[s] == sum);
  }
  REQUIRE_CUDA(gpuprim::segmented_reduce(d_in.data(), d_out.data(), S, begin, d_end.data(), -1000, gpuprim::maximum{}));
  require_sync();
  const auto maxima = d_out.download();
  for (std::size_t s = 0; s < S; ++s) {
    CHECK(maxima[s] == *std::max_element(in.begin() + s * K, in.begin() + (s + 1) * K));
  }

  const int poison = d_out.poison_unlike(0);
  const int* null_in = nullptr;
  CHECK(gpuprim::segmented_sum(null_in, d_out.data(), S, begin, d_end.data()) == cudaErrorInvalidValue);
  CHECK(gpuprim::segmented_sum(d_in.data(), static_cast<int*>(nullptr), S, begin, d_end.data()) ==
        cudaErrorInvalidValue);
  CHECK(gpuprim::segmented_sum(d_in.data(), d_out.data(), S, begin, static_cast<long long*>(nullptr)) ==
        cudaErrorInvalidValue);
  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim::segmented_sum(nullptr, bytes, d_in.data(), d_out.data(), S, begin, d_end.data()));
  device_vector<unsigned char> temp(bytes);
  std::size_t small_bytes = bytes - 1;
  CHECK(gpuprim::segmented_sum(temp.data(), small_bytes, d_in.data(), d_out.data(), S, begin, d_end.data()) ==
        cudaErrorInvalidValue);
  REQUIRE_CUDA(gpuprim::segmented_sum(null_in, static_cast<int*>(nullptr), 0, begin, d_end.data()));
  require_sync();
  for (int v : d_out.download()) CHECK(gpuprim_test::bitwise_equal(v, poison));
}
