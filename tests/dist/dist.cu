// gpuprim::dist over the GPUs of this machine: one communicator of all of them (ncclCommInitAll,
// one host thread a rank) and one of a single GPU. Sorts against cub::DeviceRadixSort of the
// gathered keys (with their global positions as values: stability across ranks), reduce and scans
// against the host, for uneven and empty slices and skewed keys; bad arguments; NCCL's codes.
// Catch2's assertions run on the main thread only: the rank threads record, the main thread checks.
#include <cstdint>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include <gpuprim/dist.cuh>

#include <cub/device/device_radix_sort.cuh>

#include "support/test_util.cuh"

namespace {

using gpuprim_test::device_vector;

/// Ranks of one communicator, a GPU and a stream each, driven by one host thread a rank.
class node {
 public:
  explicit node(int ranks) : ranks_(ranks), comms_(ranks), streams_(ranks) {
    std::vector<int> devices(ranks);
    for (int r = 0; r < ranks; ++r) devices[r] = r;
    REQUIRE(ncclCommInitAll(comms_.data(), ranks, devices.data()) == ncclSuccess);
    for (int r = 0; r < ranks; ++r) {
      REQUIRE_CUDA(cudaSetDevice(r));
      REQUIRE_CUDA(cudaStreamCreateWithFlags(&streams_[r], cudaStreamNonBlocking));
    }
  }
  ~node() {
    for (int r = 0; r < ranks_; ++r) {
      (void)cudaSetDevice(r);
      (void)cudaStreamDestroy(streams_[r]);
      (void)ncclCommDestroy(comms_[r]);
    }
    (void)cudaSetDevice(0);
  }
  int ranks() const { return ranks_; }
  ncclComm_t comm(int r) const { return comms_[r]; }
  cudaStream_t stream(int r) const { return streams_[r]; }

  /// `call(r)` on every rank at once, each on its own thread with its device current; then every
  /// stream synchronised. Returns each rank's first error.
  std::vector<cudaError_t> run(const std::function<cudaError_t(int)>& call) const {
    std::vector<cudaError_t> errors(ranks_, cudaSuccess);
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks_; ++r) {
      threads.emplace_back([&, r] {
        cudaError_t e = cudaSetDevice(r);
        if (e == cudaSuccess) e = call(r);
        const cudaError_t s = cudaStreamSynchronize(streams_[r]);
        errors[r] = e != cudaSuccess ? e : s;
      });
    }
    for (auto& t : threads) t.join();
    return errors;
  }

 private:
  int ranks_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
};

void require_all_success(const std::vector<cudaError_t>& errors) {
  for (std::size_t r = 0; r < errors.size(); ++r) {
    INFO("rank " << r << ": " << gpuprim::dist::error_string(errors[r]));
    REQUIRE(errors[r] == cudaSuccess);
  }
}

/// The GPU counts the tests run on: 1, and all of them.
std::vector<int> rank_counts() {
  int devices = 0;
  REQUIRE_CUDA(cudaGetDeviceCount(&devices));
  std::vector<int> counts = {1};
  if (devices > 1) counts.push_back(devices);
  return counts;
}

/// Cuts `total` items into `ranks` uneven slices; with `empty`, the first and the last are empty.
std::vector<std::size_t> slice_counts(std::mt19937_64& rng, int ranks, std::size_t total, bool empty) {
  std::vector<std::size_t> counts(ranks, 0);
  std::vector<double> weights(ranks);
  double sum = 0;
  for (int r = 0; r < ranks; ++r) sum += weights[r] = 0.5 + double(rng() % 1000) / 1000.0;
  std::size_t given = 0;
  for (int r = 0; r + 1 < ranks; ++r) {
    counts[r] = std::size_t(double(total) * weights[r] / sum);
    given += counts[r];
  }
  counts[ranks - 1] = total - given;
  if (empty && ranks > 2) {
    counts[1] += counts[0] + counts[ranks - 1];
    counts[0] = counts[ranks - 1] = 0;
  }
  return counts;
}

template <class Key>
Key random_key(std::mt19937_64& rng, int distribution, std::size_t i) {
  using bits_t = typename gpuprim::detail::unsigned_bits<sizeof(Key)>::type;
  bits_t b = 0;
  switch (distribution) {
    case 0: b = static_cast<bits_t>(rng()); break;                     // uniform bits
    case 1: b = static_cast<bits_t>(0x5a5a5a5a5a5a5a5aull); break;    // all equal
    case 2: b = static_cast<bits_t>((rng() % 5) * 0x0101010101010101ull); break;  // few distinct
    default: b = static_cast<bits_t>(i); break;                        // sorted (by position)
  }
  if constexpr (std::is_same_v<Key, float>) {
    float f = float(std::int32_t(b % 2001) - 1000) * 0.125f;  // finite, with repeats and both zeros
    if (i % 97 == 0) f = -0.0f;
    return f;
  } else {
    Key k;
    std::memcpy(&k, &b, sizeof(Key));
    return k;
  }
}

/// One dist sort of keys cut into `counts` slices against CUB's sort of all of them (values: the
/// global positions), compared bitwise.
template <class Key>
void check_sort(const node& nd, const std::vector<std::size_t>& counts, int distribution, bool descending,
                bool pairs, bool allocating, int begin_bit, int end_bit, std::mt19937_64& rng) {
  const int p = nd.ranks();
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  std::vector<Key> all(total);
  std::vector<std::uint32_t> positions(total);
  for (std::size_t i = 0; i < total; ++i) {
    all[i] = random_key<Key>(rng, distribution, i);
    positions[i] = std::uint32_t(i);
  }
  // The reference on GPU 0.
  REQUIRE_CUDA(cudaSetDevice(0));
  std::vector<Key> want_keys(total);
  std::vector<std::uint32_t> want_values(total);
  {
    device_vector<Key> k_in(all), k_out(total);
    device_vector<std::uint32_t> v_in(positions), v_out(total);
    std::size_t bytes = 0;
    const auto cub_sort = [&](void* temp) {
      return descending ? cub::DeviceRadixSort::SortPairsDescending(temp, bytes, k_in.data(), k_out.data(),
                                                                    v_in.data(), v_out.data(), total, begin_bit,
                                                                    end_bit)
                        : cub::DeviceRadixSort::SortPairs(temp, bytes, k_in.data(), k_out.data(), v_in.data(),
                                                          v_out.data(), total, begin_bit, end_bit);
    };
    REQUIRE_CUDA(cub_sort(nullptr));
    device_vector<unsigned char> temp(bytes + 1);
    REQUIRE_CUDA(cub_sort(temp.data()));
    REQUIRE_CUDA(cudaDeviceSynchronize());
    want_keys = k_out.download();
    want_values = v_out.download();
  }
  // Each rank's slice, its outputs poisoned.
  std::vector<device_vector<Key>> k_in(p), k_out(p);
  std::vector<device_vector<std::uint32_t>> v_in(p), v_out(p);
  std::size_t at = 0;
  for (int r = 0; r < p; ++r) {
    REQUIRE_CUDA(cudaSetDevice(r));
    k_in[r] = device_vector<Key>(std::vector<Key>(all.begin() + at, all.begin() + at + counts[r]));
    v_in[r] = device_vector<std::uint32_t>(
        std::vector<std::uint32_t>(positions.begin() + at, positions.begin() + at + counts[r]));
    k_out[r] = device_vector<Key>(counts[r]);
    v_out[r] = device_vector<std::uint32_t>(counts[r]);
    // poison() waits for its memset: a plain cudaMemset on the legacy stream raced the sort on the
    // rank's non-blocking stream (a one-GPU run of 6c80fd9 failed so; with poison(), it passes).
    k_out[r].poison();
    v_out[r].poison();
    at += counts[r];
  }
  namespace dist = gpuprim::dist;
  const auto errors = nd.run([&](int r) -> cudaError_t {
    const Key* ki = k_in[r].data();
    Key* ko = k_out[r].data();
    const std::uint32_t* vi = v_in[r].data();
    std::uint32_t* vo = v_out[r].data();
    const std::size_t n = counts[r];
    const ncclComm_t c = nd.comm(r);
    const cudaStream_t s = nd.stream(r);
    if (allocating) {
      if (pairs) {
        return descending ? dist::radix_sort_pairs_descending(ki, ko, vi, vo, n, c, begin_bit, end_bit, s)
                          : dist::radix_sort_pairs(ki, ko, vi, vo, n, c, begin_bit, end_bit, s);
      }
      return descending ? dist::radix_sort_keys_descending(ki, ko, n, c, begin_bit, end_bit, s)
                        : dist::radix_sort_keys(ki, ko, n, c, begin_bit, end_bit, s);
    }
    std::size_t bytes = 0;
    const auto sort = [&](void* temp) {
      if (pairs) {
        return descending ? dist::radix_sort_pairs_descending(temp, bytes, ki, ko, vi, vo, n, c, begin_bit, end_bit, s)
                          : dist::radix_sort_pairs(temp, bytes, ki, ko, vi, vo, n, c, begin_bit, end_bit, s);
      }
      return descending ? dist::radix_sort_keys_descending(temp, bytes, ki, ko, n, c, begin_bit, end_bit, s)
                        : dist::radix_sort_keys(temp, bytes, ki, ko, n, c, begin_bit, end_bit, s);
    };
    cudaError_t e = sort(nullptr);
    if (e != cudaSuccess) return e;
    void* temp = nullptr;
    e = cudaMalloc(&temp, bytes);
    if (e != cudaSuccess) return e;
    e = sort(temp);
    const cudaError_t s2 = cudaStreamSynchronize(s);
    (void)cudaFree(temp);
    return e != cudaSuccess ? e : s2;
  });
  require_all_success(errors);
  at = 0;
  for (int r = 0; r < p; ++r) {
    INFO("rank " << r << " of " << p << ", " << counts[r] << " keys, distribution " << distribution
                 << (descending ? ", descending" : "") << (pairs ? ", pairs" : "") << ", bits [" << begin_bit << ", "
                 << end_bit << ")");
    const std::vector<Key> got = k_out[r].download();
    REQUIRE(std::memcmp(got.data(), want_keys.data() + at, counts[r] * sizeof(Key)) == 0);
    if (pairs) {
      const std::vector<std::uint32_t> got_values = v_out[r].download();
      REQUIRE(std::memcmp(got_values.data(), want_values.data() + at, counts[r] * sizeof(std::uint32_t)) == 0);
    }
    // The inputs are untouched.
    REQUIRE(std::memcmp(k_in[r].download().data(), all.data() + at, counts[r] * sizeof(Key)) == 0);
    at += counts[r];
  }
  REQUIRE_CUDA(cudaSetDevice(0));
}

template <class Key>
void sort_sweep(const node& nd, std::mt19937_64& rng) {
  const int p = nd.ranks();
  const std::size_t per_rank = gpuprim_test::small_mode() ? 20000 : 300007;
  for (int distribution = 0; distribution < 4; ++distribution) {
    for (int variant = 0; variant < 4; ++variant) {
      const bool descending = variant & 1;
      const bool pairs = variant & 2;
      const auto counts = slice_counts(rng, p, per_rank * p - 3, distribution % 2 == 1);
      check_sort<Key>(nd, counts, distribution, descending, pairs, variant == 3, 0, 8 * sizeof(Key), rng);
    }
  }
  // A bit window, and a slice too small for any boundary to fall inside it.
  check_sort<Key>(nd, slice_counts(rng, p, 5000 * p + 1, false), 0, false, true, false, 3, 8 * sizeof(Key) - 5, rng);
  std::vector<std::size_t> tiny(p, 1);
  check_sort<Key>(nd, tiny, 0, true, true, false, 0, 8 * sizeof(Key), rng);
}

}  // namespace

TEST_CASE("dist: NCCL results map to codes and back", "[dist]") {
  namespace dist = gpuprim::dist;
  REQUIRE(dist::from_nccl(ncclSuccess) == cudaSuccess);
  for (ncclResult_t r : {ncclUnhandledCudaError, ncclSystemError, ncclInternalError, ncclInvalidArgument,
                         ncclInvalidUsage, ncclRemoteError}) {
    const cudaError_t e = dist::from_nccl(r);
    REQUIRE(dist::is_nccl_error(e));
    REQUIRE(dist::nccl_result(e) == r);
    REQUIRE(std::strcmp(dist::error_string(e), ncclGetErrorString(r)) == 0);
  }
  REQUIRE_FALSE(dist::is_nccl_error(cudaErrorInvalidValue));
  REQUIRE(std::strcmp(dist::error_string(cudaErrorInvalidValue), cudaGetErrorString(cudaErrorInvalidValue)) == 0);
}

TEST_CASE("dist: radix sorts across the GPUs", "[dist]") {
  std::mt19937_64 rng(0x6469737473);
  for (int p : rank_counts()) {
    node nd(p);
    sort_sweep<std::uint32_t>(nd, rng);
    sort_sweep<float>(nd, rng);
    sort_sweep<std::uint64_t>(nd, rng);
    sort_sweep<std::int16_t>(nd, rng);
    // One large slice a rank: the local sorts' many-tile passes.
    if (!gpuprim_test::small_mode()) {
      check_sort<std::uint32_t>(nd, slice_counts(rng, p, (std::size_t(1) << 24) * p + 11, false), 0, false, true,
                                false, 0, 32, rng);
    }
  }
}

namespace {

/// A non-commutative associative operator: composition of affine maps x -> a x + b (mod 2^32),
/// the left one first.
struct affine {
  std::uint32_t a, b;
};
struct compose {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const {
    return affine{f.a * g.a, g.a * f.b + g.b};
  }
};

}  // namespace

TEST_CASE("dist: reduce and sum on every rank", "[dist]") {
  std::mt19937_64 rng(11);
  namespace dist = gpuprim::dist;
  for (int p : rank_counts()) {
    node nd(p);
    for (bool empty : {false, true}) {
      const auto counts = slice_counts(rng, p, std::size_t(1000003) * p, empty);
      std::vector<device_vector<double>> in(p);
      std::vector<device_vector<int>> ints(p);
      std::vector<device_vector<double>> out(p);
      std::vector<device_vector<int>> out_i(p), out_max(p);
      double want = 0;
      long long want_i = 5;
      for (int r = 0; r < p; ++r) {
        std::vector<double> h(counts[r]);
        std::vector<int> hi(counts[r]);
        for (std::size_t i = 0; i < counts[r]; ++i) {
          h[i] = double(int(rng() % 2001) - 1000) * 0.5;  // exact in any order
          hi[i] = int(rng() % 2001) - 1000;
          want += h[i];
          want_i += hi[i];
        }
        REQUIRE_CUDA(cudaSetDevice(r));
        in[r] = device_vector<double>(h);
        ints[r] = device_vector<int>(hi);
        out[r] = device_vector<double>(1);
        out_i[r] = device_vector<int>(1);
        out_max[r] = device_vector<int>(1);
      }
      require_all_success(nd.run([&](int r) -> cudaError_t {
        cudaError_t e = dist::sum(in[r].data(), out[r].data(), counts[r], nd.comm(r), nd.stream(r));
        if (e == cudaSuccess) {
          e = dist::reduce(ints[r].data(), out_i[r].data(), counts[r], 5, gpuprim::plus{}, nd.comm(r), nd.stream(r));
        }
        if (e == cudaSuccess) {
          std::size_t bytes = 0;
          e = dist::reduce(nullptr, bytes, ints[r].data() + (counts[r] > 0 ? 1 : 0), out_max[r].data(),
                           counts[r] > 0 ? counts[r] - 1 : 0, -1000000, gpuprim::maximum{}, nd.comm(r), nd.stream(r));
          void* temp = nullptr;
          if (e == cudaSuccess) e = cudaMalloc(&temp, bytes);
          if (e == cudaSuccess) {
            e = dist::reduce(temp, bytes, ints[r].data() + (counts[r] > 0 ? 1 : 0), out_max[r].data(),
                             counts[r] > 0 ? counts[r] - 1 : 0, -1000000, gpuprim::maximum{}, nd.comm(r),
                             nd.stream(r));
          }
          if (e == cudaSuccess) e = cudaStreamSynchronize(nd.stream(r));
          (void)cudaFree(temp);
        }
        return e;
      }));
      // The maximum skipped each slice's first item (misaligned inputs): recompute it.
      int want_max_rest = -1000000;
      for (int r = 0; r < p; ++r) {
        const auto h = ints[r].download();
        for (std::size_t i = 1; i < h.size(); ++i) want_max_rest = std::max(want_max_rest, h[i]);
      }
      for (int r = 0; r < p; ++r) {
        INFO("rank " << r << " of " << p);
        REQUIRE(out[r].download()[0] == want);
        REQUIRE(out_i[r].download()[0] == int(want_i));
        REQUIRE(out_max[r].download()[0] == want_max_rest);
      }
    }
  }
}

TEST_CASE("dist: scans of the global sequence", "[dist]") {
  std::mt19937_64 rng(12);
  namespace dist = gpuprim::dist;
  for (int p : rank_counts()) {
    node nd(p);
    for (bool empty : {false, true}) {
      const auto counts = slice_counts(rng, p, std::size_t(2000017) * p, empty);
      std::size_t total = 0;
      for (auto c : counts) total += c;
      std::vector<int> all(total);
      std::vector<affine> maps(total);
      for (std::size_t i = 0; i < total; ++i) {
        all[i] = int(rng() % 201) - 100;
        maps[i] = affine{std::uint32_t(rng()) | 1u, std::uint32_t(rng())};
      }
      // Host references.
      std::vector<long long> excl(total), incl(total);
      std::vector<affine> excl_maps(total), incl_maps(total);
      long long acc = 0;
      affine m{3, 7};  // the exclusive scan's init, not an identity
      affine mi{1, 0};
      for (std::size_t i = 0; i < total; ++i) {
        excl[i] = acc;
        acc += all[i];
        incl[i] = acc;
        excl_maps[i] = m;
        m = compose{}(m, maps[i]);
        mi = i == 0 ? maps[i] : compose{}(mi, maps[i]);
        incl_maps[i] = mi;
      }
      std::vector<device_vector<int>> in(p), in_place(p);
      std::vector<device_vector<long long>> out_excl(p);
      std::vector<device_vector<int>> out_incl(p);
      std::vector<device_vector<affine>> f_in(p), f_excl(p), f_incl(p);
      std::size_t at = 0;
      for (int r = 0; r < p; ++r) {
        REQUIRE_CUDA(cudaSetDevice(r));
        const std::vector<int> slice(all.begin() + at, all.begin() + at + counts[r]);
        in[r] = device_vector<int>(slice);
        in_place[r] = device_vector<int>(slice);
        out_excl[r] = device_vector<long long>(counts[r]);
        out_incl[r] = device_vector<int>(counts[r]);
        f_in[r] = device_vector<affine>(std::vector<affine>(maps.begin() + at, maps.begin() + at + counts[r]));
        f_excl[r] = device_vector<affine>(counts[r]);
        f_incl[r] = device_vector<affine>(counts[r]);
        at += counts[r];
      }
      require_all_success(nd.run([&](int r) -> cudaError_t {
        const std::size_t n = counts[r];
        const ncclComm_t c = nd.comm(r);
        const cudaStream_t s = nd.stream(r);
        cudaError_t e = dist::exclusive_sum(in[r].data(), out_excl[r].data(), n, c, s);
        if (e == cudaSuccess) e = dist::inclusive_sum(in[r].data(), out_incl[r].data(), n, c, s);
        if (e == cudaSuccess) e = dist::inclusive_sum(in_place[r].data(), in_place[r].data(), n, c, s);
        if (e == cudaSuccess) e = dist::exclusive_scan(f_in[r].data(), f_excl[r].data(), n, affine{3, 7}, compose{}, c, s);
        if (e == cudaSuccess) {
          std::size_t bytes = 0;
          e = dist::inclusive_scan(nullptr, bytes, f_in[r].data(), f_incl[r].data(), n, compose{}, c, s);
          void* temp = nullptr;
          if (e == cudaSuccess) e = cudaMalloc(&temp, bytes);
          if (e == cudaSuccess) e = dist::inclusive_scan(temp, bytes, f_in[r].data(), f_incl[r].data(), n, compose{}, c, s);
          if (e == cudaSuccess) e = cudaStreamSynchronize(s);
          (void)cudaFree(temp);
        }
        return e;
      }));
      at = 0;
      for (int r = 0; r < p; ++r) {
        INFO("rank " << r << " of " << p << ", " << counts[r] << " items");
        const auto ge = out_excl[r].download();
        const auto gi = out_incl[r].download();
        const auto gp = in_place[r].download();
        const auto fe = f_excl[r].download();
        const auto fi = f_incl[r].download();
        for (std::size_t i = 0; i < counts[r]; ++i) {
          REQUIRE(ge[i] == excl[at + i]);
          REQUIRE(gi[i] == int(incl[at + i]));
          REQUIRE(gp[i] == int(incl[at + i]));
          REQUIRE(fe[i].a == excl_maps[at + i].a);
          REQUIRE(fe[i].b == excl_maps[at + i].b);
          REQUIRE(fi[i].a == incl_maps[at + i].a);
          REQUIRE(fi[i].b == incl_maps[at + i].b);
        }
        at += counts[r];
      }
    }
  }
}

TEST_CASE("dist: bad arguments on every rank are refused, nothing written", "[dist]") {
  namespace dist = gpuprim::dist;
  for (int p : rank_counts()) {
    node nd(p);
    std::vector<device_vector<int>> buf(p);
    for (int r = 0; r < p; ++r) {
      REQUIRE_CUDA(cudaSetDevice(r));
      buf[r] = device_vector<int>(std::vector<int>(16, 7));
    }
    const auto errors = nd.run([&](int r) -> cudaError_t {
      int* b = buf[r].data();
      const ncclComm_t c = nd.comm(r);
      const cudaStream_t s = nd.stream(r);
      std::size_t bytes = 0;
      const cudaError_t expected = cudaErrorInvalidValue;
      if (dist::sum(static_cast<const int*>(nullptr), b, 4, c, s) != expected) return cudaErrorUnknown;
      if (dist::sum(b, static_cast<int*>(nullptr), 4, c, s) != expected) return cudaErrorUnknown;
      if (dist::sum(b, b, 4, static_cast<ncclComm_t>(nullptr), s) != expected) return cudaErrorUnknown;
      if (dist::exclusive_sum(static_cast<const int*>(nullptr), b, 4, c, s) != expected) return cudaErrorUnknown;
      if (dist::inclusive_sum(b, static_cast<int*>(nullptr), 4, c, s) != expected) return cudaErrorUnknown;
      if (dist::radix_sort_keys(b, static_cast<int*>(nullptr), 4, c, 0, 32, s) != expected) return cudaErrorUnknown;
      if (dist::radix_sort_keys(b, b + 8, 4, c, 0, 33, s) != expected) return cudaErrorUnknown;
      if (dist::radix_sort_pairs(b, b + 8, b, static_cast<int*>(nullptr), 4, c, 0, 32, s) != expected) {
        return cudaErrorUnknown;
      }
      if (dist::radix_sort_keys(nullptr, bytes, b, b + 8, 4, static_cast<ncclComm_t>(nullptr), 0, 32, s) !=
          expected) {
        return cudaErrorUnknown;
      }
      // A workspace too small.
      if (dist::radix_sort_keys(nullptr, bytes, b, b + 8, 4, c, 0, 32, s) != cudaSuccess) return cudaErrorUnknown;
      std::size_t small = bytes - 1;
      if (dist::radix_sort_keys(b, small, b, b + 8, 4, c, 0, 32, s) != expected) return cudaErrorUnknown;
      return cudaSuccess;
    });
    require_all_success(errors);
    for (int r = 0; r < p; ++r) REQUIRE(buf[r].download() == std::vector<int>(16, 7));
  }
}
