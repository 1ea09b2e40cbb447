// Tests the scans by key (inclusive/exclusive, scan and sum) and reduce_by_key against CUB
// (cub::DeviceScan::*ByKey, cub::DeviceReduce::ReduceByKey) on the same inputs, bit for bit, and
// against a host reference: runs of 1, 8, 1000 and all items, random run lengths, equal keys in
// runs that are not adjacent, int/float/double/struct values and a non-commutative operator,
// misaligned and in-place buffers, iterator keys, poisoned outputs with guard items past the end.
#include <gpuprim/reduce.cuh>
#include <gpuprim/scan.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scan/scan_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace scan_test;
using gpuprim_test::device_vector;
using gpuprim_test::require_sync;

namespace {

enum class api { inclusive_scan, exclusive_scan, inclusive_sum, exclusive_sum };

constexpr std::size_t guard = 16;
constexpr std::size_t all_one_run = 0;  // run length meaning "every item in one run"

/// Keys of runs of `run` items (0: one run; -1: random lengths 1..64), the r-th run's key r % 3 + 1
/// (so equal keys recur in runs that are not adjacent).
template <class Key>
std::vector<Key> run_keys(std::size_t n, long long run) {
  std::vector<Key> keys(n);
  std::size_t r = 0, left = 0;
  auto& rng = gpuprim_test::test_rng();
  for (std::size_t i = 0; i < n; ++i) {
    if (left == 0) {
      ++r;
      left = run > 0 ? std::size_t(run) : run == 0 ? n : std::size_t(1 + rng() % 64);
    }
    --left;
    keys[i] = static_cast<Key>(r % 3 + 1);
  }
  return keys;
}

/// Values whose every sum in any order is exact (integers well inside the mantissa).
template <class V>
std::vector<V> exact_values(std::size_t n) {
  if constexpr (std::is_same_v<V, affine>) {
    return random_affines(n);
  } else if constexpr (std::is_same_v<V, gpuprim_test::triple>) {
    return gpuprim_test::random_vector<V>(n, -1000, 1000);
  } else {
    return gpuprim_test::random_vector<V>(n, -100, 100);
  }
}

template <class Key, class V, class HostOp>
std::vector<V> host_scan(const std::vector<Key>& k, const std::vector<V>& v, bool exclusive, V init, HostOp op) {
  std::vector<V> out(v.size());
  V acc = init;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const bool head = i == 0 || !(k[i] == k[i - 1]);
    if (exclusive) {
      if (head) acc = init;
      out[i] = acc;
      acc = op(acc, v[i]);
    } else {
      acc = head ? v[i] : op(acc, v[i]);
      out[i] = acc;
    }
  }
  return out;
}

/// One scan by key of `keys`/`values` with gpuprim (workspace form; misaligned by `offset` items,
/// or in place) and with CUB; both outputs and the host reference compared.
template <api A, class Key, class V, class Op, class HostOp>
void check_scan_by_key(const std::vector<Key>& keys, const std::vector<V>& values, V init, Op op, HostOp host_op,
                       std::size_t offset = 0, bool in_place = false) {
  const std::size_t n = keys.size();
  CAPTURE(int(A), n, offset, in_place);
  constexpr bool exclusive = A == api::exclusive_scan || A == api::exclusive_sum;
  constexpr bool sum = A == api::inclusive_sum || A == api::exclusive_sum;
  std::vector<V> expected;
  if constexpr (sum) {
    expected = host_scan(keys, values, exclusive, V{}, host_plus{});
  } else {
    expected = host_scan(keys, values, exclusive, init, host_op);
  }
  device_vector<Key> d_keys(n + offset);
  device_vector<V> d_in(n + offset + guard);
  device_vector<V> d_out(n + offset + guard);
  device_vector<V> d_cub(n == 0 ? 1 : n);
  d_keys.upload(keys, offset);
  const V poison = d_out.poison_unlike(V{});
  d_in.poison_unlike(V{});
  d_in.upload(values, offset);
  const Key* k = d_keys.data() + offset;
  const V* in = d_in.data() + offset;
  V* out = in_place ? d_in.data() + offset : d_out.data() + offset;

  std::size_t bytes = 0;
  const auto call = [&](void* temp) {
    if constexpr (A == api::inclusive_scan) return gpuprim::inclusive_scan_by_key(temp, bytes, k, in, out, n, op);
    if constexpr (A == api::exclusive_scan) return gpuprim::exclusive_scan_by_key(temp, bytes, k, in, out, n, init, op);
    if constexpr (A == api::inclusive_sum) return gpuprim::inclusive_sum_by_key(temp, bytes, k, in, out, n);
    if constexpr (A == api::exclusive_sum) return gpuprim::exclusive_sum_by_key(temp, bytes, k, in, out, n);
  };
  REQUIRE_CUDA(call(nullptr));
  REQUIRE(bytes > 0);
  device_vector<unsigned char> temp(bytes);
  temp.poison();
  REQUIRE_CUDA(call(temp.data()));
  require_sync();

  std::size_t cub_bytes = 0;
  const auto cub_call = [&](void* t) {
    if constexpr (A == api::inclusive_scan) {
      return cub::DeviceScan::InclusiveScanByKey(t, cub_bytes, k, in, d_cub.data(), op, n);
    } else if constexpr (A == api::exclusive_scan) {
      return cub::DeviceScan::ExclusiveScanByKey(t, cub_bytes, k, in, d_cub.data(), op, init, n);
    } else if constexpr (A == api::inclusive_sum) {
      return cub::DeviceScan::InclusiveSumByKey(t, cub_bytes, k, in, d_cub.data(), n);
    } else {
      return cub::DeviceScan::ExclusiveSumByKey(t, cub_bytes, k, in, d_cub.data(), n);
    }
  };
  std::vector<V> from_cub;
  if (n > 0 && !in_place) {
    REQUIRE_CUDA(cub_call(nullptr));
    device_vector<unsigned char> cub_temp(cub_bytes);
    REQUIRE_CUDA(cub_call(cub_temp.data()));
    require_sync();
    from_cub = d_cub.download(0, n);
    gpuprim_test::check_equal_vectors(expected, from_cub);  // the reference agrees with CUB
  }
  const std::vector<V> got = in_place ? d_in.download(offset, n) : d_out.download(offset, n);
  gpuprim_test::check_equal_vectors(expected, got);
  if (!in_place) {
    for (const V& g : d_out.download(offset + n, guard)) CHECK(gpuprim_test::bitwise_equal(g, poison));
  }
}

template <class Key, class V, class HostOp>
void host_reduce_by_key(const std::vector<Key>& k, const std::vector<V>& v, HostOp op, std::vector<Key>& unique,
                        std::vector<V>& totals) {
  for (std::size_t i = 0; i < k.size(); ++i) {
    if (i == 0 || !(k[i] == k[i - 1])) {
      unique.push_back(k[i]);
      totals.push_back(v[i]);
    } else {
      totals.back() = op(totals.back(), v[i]);
    }
  }
}

template <class Key, class V, class Count, class Op, class HostOp>
void check_reduce_by_key(const std::vector<Key>& keys, const std::vector<V>& values, Op op, HostOp host_op,
                         std::size_t offset = 0) {
  const std::size_t n = keys.size();
  CAPTURE(n, offset);
  std::vector<Key> unique;
  std::vector<V> totals;
  host_reduce_by_key(keys, values, host_op, unique, totals);
  device_vector<Key> d_keys(n + offset), d_unique(n + offset + guard);
  device_vector<V> d_in(n + offset), d_totals(n + offset + guard);
  device_vector<Count> d_runs(1);
  d_keys.upload(keys, offset);
  d_in.upload(values, offset);
  const Key key_poison = d_unique.poison_unlike(Key{});
  const V total_poison = d_totals.poison_unlike(V{});
  d_runs.poison();
  const Key* k = d_keys.data() + offset;
  const V* in = d_in.data() + offset;
  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim::reduce_by_key(nullptr, bytes, k, d_unique.data() + offset, in, d_totals.data() + offset,
                                      d_runs.data(), n, op));
  device_vector<unsigned char> temp(bytes);
  temp.poison();
  REQUIRE_CUDA(gpuprim::reduce_by_key(temp.data(), bytes, k, d_unique.data() + offset, in, d_totals.data() + offset,
                                      d_runs.data(), n, op));
  require_sync();
  const std::size_t runs = static_cast<std::size_t>(d_runs.download_one());
  REQUIRE(runs == unique.size());
  gpuprim_test::check_equal_vectors(unique, d_unique.download(offset, runs));
  gpuprim_test::check_equal_vectors(totals, d_totals.download(offset, runs));
  for (const Key& g : d_unique.download(offset + runs, n - runs + guard)) CHECK(gpuprim_test::bitwise_equal(g, key_poison));
  for (const V& g : d_totals.download(offset + runs, n - runs + guard)) CHECK(gpuprim_test::bitwise_equal(g, total_poison));
  if (n == 0) return;
  // CUB on the same input.
  device_vector<Key> c_unique(n);
  device_vector<V> c_totals(n);
  device_vector<int> c_runs(1);
  std::size_t cub_bytes = 0;
  REQUIRE_CUDA(cub::DeviceReduce::ReduceByKey(nullptr, cub_bytes, k, c_unique.data(), in, c_totals.data(),
                                              c_runs.data(), op, static_cast<int>(n)));
  device_vector<unsigned char> cub_temp(cub_bytes);
  REQUIRE_CUDA(cub::DeviceReduce::ReduceByKey(cub_temp.data(), cub_bytes, k, c_unique.data(), in, c_totals.data(),
                                              c_runs.data(), op, static_cast<int>(n)));
  require_sync();
  REQUIRE(std::size_t(c_runs.download_one()) == runs);
  gpuprim_test::check_equal_vectors(c_totals.download(0, runs), d_totals.download(offset, runs));
}

std::vector<std::size_t> by_key_sizes() {
  const std::size_t tile = gpuprim::detail::scan_default_shape<gpuprim::detail::run_acc<int, unsigned>>::tile_items;
  std::vector<std::size_t> sizes{0, 1, 2, 7, 255, tile - 1, tile, tile + 1, 5 * tile + 3, 100003};
  if (!gpuprim_test::small_mode()) sizes.push_back((std::size_t(1) << 22) + 11);
  return sizes;
}

const long long run_lengths[] = {1, 8, 1000, all_one_run, -1};

struct div8 {
  __host__ __device__ long long operator()(long long x) const { return x / 8; }
};

}  // namespace

TEST_CASE("scan by key: int values, every run length, against CUB", "[scan][device][by_key]") {
  for (std::size_t n : by_key_sizes()) {
    for (long long run : run_lengths) {
      CAPTURE(run);
      const auto keys = run_keys<int>(n, run);
      const auto values = exact_values<int>(n);
      check_scan_by_key<api::inclusive_sum>(keys, values, 0, gpuprim::plus{}, host_plus{});
      check_scan_by_key<api::exclusive_sum>(keys, values, 0, gpuprim::plus{}, host_plus{});
      check_scan_by_key<api::inclusive_scan>(keys, values, 0, gpuprim::maximum{}, host_max{});
      check_scan_by_key<api::exclusive_scan>(keys, values, -7, gpuprim::minimum{}, host_min{});
    }
  }
}

TEST_CASE("scan by key: float, double and struct values, 64-bit keys", "[scan][device][by_key]") {
  for (std::size_t n : {std::size_t(1000), std::size_t(77777)}) {
    for (long long run : run_lengths) {
      CAPTURE(run);
      const auto keys = run_keys<std::uint64_t>(n, run);
      check_scan_by_key<api::inclusive_sum>(keys, exact_values<float>(n), 0.0f, gpuprim::plus{}, host_plus{});
      check_scan_by_key<api::exclusive_sum>(keys, exact_values<double>(n), 0.0, gpuprim::plus{}, host_plus{});
      const gpuprim_test::triple t0{0, 1 << 30, -(1 << 30)};
      check_scan_by_key<api::inclusive_scan>(keys, exact_values<gpuprim_test::triple>(n), t0,
                                             gpuprim_test::triple_op{}, gpuprim_test::triple_op{});
      check_scan_by_key<api::exclusive_scan>(keys, exact_values<gpuprim_test::triple>(n), t0,
                                             gpuprim_test::triple_op{}, gpuprim_test::triple_op{});
    }
  }
}

TEST_CASE("scan by key: a non-commutative operator (affine maps)", "[scan][device][by_key]") {
  for (std::size_t n : by_key_sizes()) {
    for (long long run : {1LL, 1000LL, -1LL}) {
      const auto keys = run_keys<int>(n, run);
      const auto maps = exact_values<affine>(n);
      check_scan_by_key<api::inclusive_scan>(keys, maps, affine_identity(), compose{}, compose{});
      check_scan_by_key<api::exclusive_scan>(keys, maps, random_affines(1)[0], compose{}, compose{});
    }
  }
}

TEST_CASE("scan by key: misaligned buffers and in place", "[scan][device][by_key]") {
  for (std::size_t n : {std::size_t(5), std::size_t(9999)}) {
    const auto keys = run_keys<short>(n, -1);
    const auto values = exact_values<int>(n);
    for (std::size_t offset : {1, 2, 3}) {
      check_scan_by_key<api::inclusive_sum>(keys, values, 0, gpuprim::plus{}, host_plus{}, offset);
      check_scan_by_key<api::exclusive_scan>(keys, values, 3, gpuprim::plus{}, host_plus{}, offset);
    }
    check_scan_by_key<api::inclusive_sum>(keys, values, 0, gpuprim::plus{}, host_plus{}, 0, true);
    check_scan_by_key<api::exclusive_sum>(keys, values, 0, gpuprim::plus{}, host_plus{}, 1, true);
  }
}

TEST_CASE("scan by key: keys from an iterator, allocating forms, bad arguments", "[scan][device][by_key]") {
  const std::size_t n = 50001;
  // Keys i / 8: runs of eight, from a counting iterator.
  const transform_iterator<counting_iterator<long long>, div8, long long> keys{{0, 1}, {}};
  std::vector<long long> host_keys(n);
  for (std::size_t i = 0; i < n; ++i) host_keys[i] = static_cast<long long>(i / 8);
  const auto values = exact_values<int>(n);
  device_vector<int> in(values), out(n);
  REQUIRE_CUDA(gpuprim::inclusive_sum_by_key(keys, in.data(), out.data(), n));
  require_sync();
  gpuprim_test::check_equal_vectors(host_scan(host_keys, values, false, 0, host_plus{}), out.download());
  REQUIRE_CUDA(gpuprim::exclusive_scan_by_key(keys, in.data(), out.data(), n, 1, gpuprim::plus{}));
  require_sync();
  gpuprim_test::check_equal_vectors(host_scan(host_keys, values, true, 1, host_plus{}), out.download());

  const auto poison = out.poison_unlike(0);
  std::size_t bytes = 0;
  const int* null_in = nullptr;
  CHECK(gpuprim::inclusive_sum_by_key(null_in, in.data(), out.data(), n) == cudaErrorInvalidValue);
  CHECK(gpuprim::exclusive_sum_by_key(keys, null_in, out.data(), n) == cudaErrorInvalidValue);
  CHECK(gpuprim::inclusive_scan_by_key(keys, in.data(), static_cast<int*>(nullptr), n, gpuprim::plus{}) ==
        cudaErrorInvalidValue);
  REQUIRE_CUDA(gpuprim::inclusive_sum_by_key(nullptr, bytes, keys, in.data(), out.data(), n));
  std::size_t small = bytes - 1;
  device_vector<unsigned char> temp(bytes);
  CHECK(gpuprim::inclusive_sum_by_key(temp.data(), small, keys, in.data(), out.data(), n) == cudaErrorInvalidValue);
  REQUIRE_CUDA(gpuprim::inclusive_sum_by_key(nullptr, bytes, keys, in.data(), out.data(), std::size_t(0)));
  require_sync();
  for (int v : out.download()) CHECK(gpuprim_test::bitwise_equal(v, poison));
}

TEST_CASE("reduce_by_key: every run length, against CUB", "[reduce][device][by_key]") {
  for (std::size_t n : by_key_sizes()) {
    for (long long run : run_lengths) {
      CAPTURE(run);
      const auto keys = run_keys<int>(n, run);
      check_reduce_by_key<int, int, int>(keys, exact_values<int>(n), gpuprim::plus{}, host_plus{});
      check_reduce_by_key<int, float, std::size_t>(keys, exact_values<float>(n), gpuprim::plus{}, host_plus{});
    }
  }
  const auto keys = run_keys<std::uint64_t>(30000, -1);
  check_reduce_by_key<std::uint64_t, double, int>(keys, exact_values<double>(30000), gpuprim::maximum{}, host_max{}, 1);
  check_reduce_by_key<std::uint64_t, gpuprim_test::triple, int>(keys, exact_values<gpuprim_test::triple>(30000),
                                                                gpuprim_test::triple_op{}, gpuprim_test::triple_op{}, 3);
}

TEST_CASE("reduce_by_key: a non-commutative operator folds each run in order; bad arguments", "[reduce][device][by_key]") {
  for (std::size_t n : {std::size_t(1), std::size_t(4097), std::size_t(200001)}) {
    const auto keys = run_keys<int>(n, -1);
    check_reduce_by_key<int, affine, unsigned>(keys, exact_values<affine>(n), compose{}, compose{});
  }
  device_vector<int> k(10), u(10), v(10), a(10), runs(1);
  std::size_t bytes = 0;
  CHECK(gpuprim::reduce_by_key(nullptr, bytes, k.data(), u.data(), v.data(), a.data(), runs.data(), 10,
                               gpuprim::plus{}) == cudaSuccess);
  CHECK(gpuprim::reduce_by_key(k.data(), u.data(), v.data(), a.data(), static_cast<int*>(nullptr), 10,
                               gpuprim::plus{}) == cudaErrorInvalidValue);
  CHECK(gpuprim::reduce_by_key(static_cast<int*>(nullptr), u.data(), v.data(), a.data(), runs.data(), 10,
                               gpuprim::plus{}) == cudaErrorInvalidValue);
  // n == 0 writes 0 runs and nothing else.
  runs.poison();
  REQUIRE_CUDA(gpuprim::reduce_by_key(k.data(), u.data(), v.data(), a.data(), runs.data(), 0, gpuprim::plus{}));
  require_sync();
  CHECK(runs.download_one() == 0);
}
