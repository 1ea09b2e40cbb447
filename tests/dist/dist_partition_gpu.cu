// The across-GPU sort's partition kernels (device/dist_partition.cuh) for simulated ranks on one
// GPU: each rank's sorted keys on the device, the collectives played by the host (the all-reduce
// sums the ranks' counts, the all-gathers concatenate their rows), every kernel as dist.cuh runs
// it. What each rank would receive, stably sorted, must be its slice of std::stable_sort of all
// the keys (an independent comparator), with exactly its input count. Needs no NCCL, so it runs
// on a machine of one GPU, where the NCCL test reaches only a communicator of one rank.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include <gpuprim/device/dist_partition.cuh>

#include "support/test_util.cuh"

namespace {

using gpuprim::detail::dist_digits;
using gpuprim_test::device_vector;

/// Runs the partition for `slices` (rank r's keys, in input order) and checks the result against
/// `before`, a strict weak order of the keys in the sort's sense (the order key's).
template <class Key>
void check_partition(const std::vector<std::vector<Key>>& slices, int begin_bit, int end_bit, bool descending,
                     const std::function<bool(Key, Key)>& before) {
  using u64 = std::uint64_t;
  using entry = std::pair<Key, u64>;  // key, global position
  const int p = static_cast<int>(slices.size());
  const gpuprim::detail::dist_sort_key<Key> order{begin_bit, end_bit - begin_bit, descending};
  const auto by = [&](const entry& a, const entry& b) { return before(a.first, b.first); };
  // Each rank's slice sorted (stable), on the host, then on the device.
  std::vector<std::vector<entry>> sorted(p);
  std::vector<entry> all;
  std::vector<u64> counts(p);
  for (int r = 0; r < p; ++r) {
    for (const Key& k : slices[r]) sorted[r].push_back({k, u64(all.size() + sorted[r].size())});
    all.insert(all.end(), sorted[r].begin(), sorted[r].end());
    std::stable_sort(sorted[r].begin(), sorted[r].end(), by);
    counts[r] = sorted[r].size();
  }
  std::stable_sort(all.begin(), all.end(), by);
  const std::size_t b = std::size_t(p - 1);
  std::vector<device_vector<Key>> keys(p);
  std::vector<device_vector<u64>> prefixes(p), below0(p), below1(p), table(p), split(p);
  device_vector<u64> d_counts(counts);
  for (int r = 0; r < p; ++r) {
    std::vector<Key> k;
    for (const entry& e : sorted[r]) k.push_back(e.first);
    keys[r] = device_vector<Key>(k);
    prefixes[r] = device_vector<u64>(b);
    below0[r] = device_vector<u64>(b * dist_digits);
    below1[r] = device_vector<u64>(b * dist_digits);
    table[r] = device_vector<u64>(std::size_t(p) * 2 * b);
    split[r] = device_vector<u64>(std::size_t(p) * (p + 1));
  }
  // The rounds: every rank's counts, then their sum in every rank's buffer (the all-reduce).
  const int rounds = gpuprim::detail::dist_rounds(order.width);
  for (int round = 0; round < rounds; ++round) {
    std::vector<u64> sum(b * dist_digits, 0);
    for (int r = 0; r < p; ++r) {
      device_vector<u64>& out = round % 2 == 0 ? below0[r] : below1[r];
      device_vector<u64>& prev = round % 2 == 0 ? below1[r] : below0[r];
      gpuprim::detail::dist_search_kernel<Key><<<unsigned(b), dist_digits>>>(
          keys[r].data(), counts[r], order, d_counts.data(), prefixes[r].data(), prev.data(), out.data(), round);
      REQUIRE_CUDA(cudaGetLastError());
      const std::vector<u64> mine = out.download();
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += mine[i];
    }
    for (int r = 0; r < p; ++r) (round % 2 == 0 ? below0[r] : below1[r]).upload(sum);
  }
  // The boundaries' counts, gathered; the splits, gathered (the all-gathers).
  const std::size_t stride = 2 * b;
  std::vector<u64> gathered(std::size_t(p) * stride);
  for (int r = 0; r < p; ++r) {
    const device_vector<u64>& last = (rounds + 1) % 2 == 0 ? below0[r] : below1[r];
    gpuprim::detail::dist_boundary_kernel<Key><<<unsigned((b + 255) / 256), 256>>>(
        keys[r].data(), counts[r], order, d_counts.data(), p, prefixes[r].data(), last.data(), rounds,
        table[r].data() + r * stride);
    REQUIRE_CUDA(cudaGetLastError());
    // Only rank r's row is written (initcheck): download that.
    const std::vector<u64> t = table[r].download(r * stride, stride);
    std::copy(t.begin(), t.end(), gathered.begin() + r * stride);
  }
  std::vector<u64> splits(std::size_t(p) * (p + 1));
  for (int r = 0; r < p; ++r) {
    table[r].upload(gathered);
    gpuprim::detail::dist_split_kernel<u64><<<unsigned((p + 1 + 255) / 256), 256>>>(
        table[r].data(), d_counts.data(), p, r, split[r].data() + r * (p + 1));
    REQUIRE_CUDA(cudaGetLastError());
    const std::vector<u64> s = split[r].download(r * (p + 1), p + 1);
    std::copy(s.begin(), s.end(), splits.begin() + r * (p + 1));
  }
  // What each rank receives, in rank order, sorted stably: its slice of the global order.
  std::size_t at = 0;
  for (int r = 0; r < p; ++r) {
    const gpuprim::detail::dist_exchange x = gpuprim::detail::make_dist_exchange(splits, p, r);
    std::vector<entry> got;
    for (int q = 0; q < p; ++q) {
      const gpuprim::detail::dist_exchange from = gpuprim::detail::make_dist_exchange(splits, p, q);
      REQUIRE(from.send_count[r] == x.recv_count[q]);
      REQUIRE(from.send_offset[r] + from.send_count[r] <= counts[q]);
      got.insert(got.end(), sorted[q].begin() + from.send_offset[r],
                 sorted[q].begin() + from.send_offset[r] + from.send_count[r]);
    }
    std::stable_sort(got.begin(), got.end(), by);
    INFO("rank " << r << " of " << p << ", window [" << begin_bit << ", " << end_bit << ")"
                 << (descending ? ", descending" : ""));
    REQUIRE(got.size() == counts[r]);
    for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got[i].second == all[at + i].second);
    at += got.size();
  }
}

template <class Key>
std::vector<std::vector<Key>> make_slices(std::mt19937_64& rng, int p, std::size_t total, int distribution,
                                          bool empty_ends) {
  std::vector<std::vector<Key>> slices(p);
  for (std::size_t i = 0; i < total; ++i) {
    std::uint64_t bits = 0;
    switch (distribution) {
      case 0: bits = rng(); break;                           // uniform
      case 1: bits = 77; break;                              // all equal
      case 2: bits = (rng() % 3) * 0x0101010101010101ull; break;  // few distinct
      default: bits = i; break;                              // sorted
    }
    Key k;
    if constexpr (std::is_same_v<Key, float>) {
      k = float(int(bits % 801) - 400) * 0.5f;
      if (i % 61 == 0) k = -0.0f;
    } else {
      std::memcpy(&k, &bits, sizeof(Key));
    }
    int r = int(rng() % unsigned(p));
    if (empty_ends && p > 2 && (r == 0 || r == p - 1)) r = 1;
    slices[r].push_back(k);
  }
  return slices;
}

}  // namespace

TEST_CASE("dist partition kernels: simulated ranks receive their slices of the stable order", "[dist]") {
  std::mt19937_64 rng(31337);
  const std::size_t total = gpuprim_test::small_mode() ? 3001 : 50021;
  for (int p : {2, 3, 8}) {
    for (int distribution = 0; distribution < 4; ++distribution) {
      const bool empty = distribution % 2 == 1;
      const auto u = make_slices<std::uint32_t>(rng, p, total, distribution, empty);
      check_partition<std::uint32_t>(u, 0, 32, false, [](std::uint32_t a, std::uint32_t b) { return a < b; });
      check_partition<std::uint32_t>(u, 0, 32, true, [](std::uint32_t a, std::uint32_t b) { return a > b; });
      check_partition<std::uint32_t>(u, 4, 17, false, [](std::uint32_t a, std::uint32_t b) {
        return ((a >> 4) & 0x1fffu) < ((b >> 4) & 0x1fffu);
      });
      const auto f = make_slices<float>(rng, p, total, distribution, empty);
      check_partition<float>(f, 0, 32, false, [](float a, float b) { return a < b; });
      check_partition<float>(f, 0, 32, true, [](float a, float b) { return a > b; });
      const auto w = make_slices<std::uint64_t>(rng, p, total, distribution, empty);
      check_partition<std::uint64_t>(w, 0, 64, false, [](std::uint64_t a, std::uint64_t b) { return a < b; });
      const auto s = make_slices<std::int16_t>(rng, p, total, distribution, empty);
      check_partition<std::int16_t>(s, 0, 16, true, [](std::int16_t a, std::int16_t b) { return a > b; });
    }
  }
}
