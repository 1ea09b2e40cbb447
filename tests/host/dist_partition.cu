// Host logic of the sort across GPUs (device/dist_partition.cuh), for simulated ranks: each rank's
// keys sorted, the boundary search run round by round as the kernels and the collectives run it
// (counts below each candidate by binary search, summed over the ranks), the splits, the exchange
// plan; then what each rank receives, sorted, must be its slice of the global stable sort
// (std::stable_sort by the order key), with exactly its input count.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <gpuprim/device/dist_partition.cuh>

#include "support/catch.hpp"

namespace {

using gpuprim::detail::dist_digits;
using gpuprim::detail::dist_sort_key;

/// The exchange as dist::radix_sort_keys plans it, for ranks with the given keys; returns what
/// each rank holds at the end (received, then stably sorted by the order key).
template <class Key>
std::vector<std::vector<std::pair<Key, std::uint64_t>>> simulate(
    const std::vector<std::vector<std::pair<Key, std::uint64_t>>>& input, const dist_sort_key<Key>& order) {
  using entry = std::pair<Key, std::uint64_t>;
  const int p = static_cast<int>(input.size());
  const auto by_order = [&](const entry& a, const entry& b) { return order(a.first) < order(b.first); };
  std::vector<std::vector<entry>> sorted = input;
  std::vector<std::vector<Key>> keys(p);
  std::vector<std::uint64_t> counts(p);
  for (int r = 0; r < p; ++r) {
    std::stable_sort(sorted[r].begin(), sorted[r].end(), by_order);
    for (const entry& e : sorted[r]) keys[r].push_back(e.first);
    counts[r] = keys[r].size();
  }
  const int boundaries = p - 1;
  const int rounds = gpuprim::detail::dist_rounds(order.width);
  std::vector<std::uint64_t> prefixes(std::max(boundaries, 1), 0);
  std::vector<std::uint64_t> below(std::max(boundaries, 1) * dist_digits, 0);
  for (int round = 0; round < rounds; ++round) {
    // The kernel's first step: the previous round's digit into each prefix.
    for (int b = 0; b < boundaries; ++b) {
      std::uint64_t prefix = 0;
      if (round > 0) {
        const auto prev = gpuprim::detail::dist_round_of(order.width, round - 1);
        const int d = gpuprim::detail::dist_select_digit(below.data() + b * dist_digits, 1 << prev.bits,
                                                         gpuprim::detail::dist_slice_start(counts.data(), b + 1));
        prefix = (prefixes[b] << prev.bits) | std::uint64_t(d);
      }
      prefixes[b] = prefix;
    }
    // Each rank's counts below the candidates, then their sum (the all-reduce).
    const auto cur = gpuprim::detail::dist_round_of(order.width, round);
    std::fill(below.begin(), below.end(), 0);
    for (int r = 0; r < p; ++r) {
      for (int b = 0; b < boundaries; ++b) {
        for (int d = 0; d < (1 << cur.bits); ++d) {
          below[b * dist_digits + d] += gpuprim::detail::dist_count_below(
              keys[r].data(), keys[r].size(), order, cur.shift, (prefixes[b] << cur.bits) | std::uint64_t(d));
        }
      }
    }
  }
  // The table of keys below / equal to each boundary key (the all-gather), then the splits.
  const std::size_t stride = 2 * std::size_t(boundaries);
  std::vector<std::uint64_t> table(p * stride);
  for (int r = 0; r < p; ++r) {
    for (int b = 0; b < boundaries; ++b) {
      std::uint64_t key = 0;
      if (rounds > 0) {
        const auto last = gpuprim::detail::dist_round_of(order.width, rounds - 1);
        const int d = gpuprim::detail::dist_select_digit(below.data() + b * dist_digits, 1 << last.bits,
                                                         gpuprim::detail::dist_slice_start(counts.data(), b + 1));
        key = (prefixes[b] << last.bits) | std::uint64_t(d);
      }
      const std::size_t n = keys[r].size();
      const std::size_t lo = gpuprim::detail::dist_count_below(keys[r].data(), n, order, 0, key);
      const std::size_t hi =
          key == order.max_key() ? n : gpuprim::detail::dist_count_below(keys[r].data(), n, order, 0, key + 1);
      table[r * stride + 2 * b] = lo;
      table[r * stride + 2 * b + 1] = hi - lo;
    }
  }
  std::vector<std::uint64_t> splits(std::size_t(p) * (p + 1));
  for (int r = 0; r < p; ++r) {
    splits[r * (p + 1)] = 0;
    splits[r * (p + 1) + p] = counts[r];
    for (int b = 1; b < p; ++b) {
      splits[r * (p + 1) + b] =
          gpuprim::detail::dist_split(table.data(), p, b, r, gpuprim::detail::dist_slice_start(counts.data(), b));
    }
  }
  // The exchange: what rank r sends to q must be what q expects from r.
  std::vector<gpuprim::detail::dist_exchange> plans;
  for (int r = 0; r < p; ++r) plans.push_back(gpuprim::detail::make_dist_exchange(splits, p, r));
  std::vector<std::vector<entry>> out(p);
  for (int r = 0; r < p; ++r) {
    out[r].resize(counts[r]);
    std::uint64_t received = 0;
    for (int q = 0; q < p; ++q) {
      REQUIRE(plans[q].send_count[r] == plans[r].recv_count[q]);
      REQUIRE(plans[r].recv_offset[q] == received);
      received += plans[r].recv_count[q];
      REQUIRE(plans[q].send_offset[r] + plans[q].send_count[r] <= counts[q]);
      for (std::uint64_t i = 0; i < plans[r].recv_count[q]; ++i) {
        out[r][plans[r].recv_offset[q] + i] = sorted[q][plans[q].send_offset[r] + i];
      }
    }
    REQUIRE(received == counts[r]);
    std::stable_sort(out[r].begin(), out[r].end(), by_order);
  }
  return out;
}

/// Global keys cut into ranks of the given counts, each item tagged with its global position.
template <class Key>
void check_distribution(const std::vector<Key>& global, const std::vector<std::size_t>& counts,
                        const dist_sort_key<Key>& order) {
  using entry = std::pair<Key, std::uint64_t>;
  std::vector<std::vector<entry>> input(counts.size());
  std::size_t at = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    for (std::size_t i = 0; i < counts[r]; ++i, ++at) input[r].push_back({global[at], at});
  }
  REQUIRE(at == global.size());
  std::vector<entry> expected;
  for (std::size_t i = 0; i < global.size(); ++i) expected.push_back({global[i], i});
  std::stable_sort(expected.begin(), expected.end(),
                   [&](const entry& a, const entry& b) { return order(a.first) < order(b.first); });
  const auto out = simulate(input, order);
  std::size_t pos = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    REQUIRE(out[r].size() == counts[r]);
    for (const entry& e : out[r]) {
      REQUIRE(e.second == expected[pos].second);  // the same item: order and stability
      std::uint64_t a = 0, b = 0;
      std::memcpy(&a, &e.first, sizeof(Key));
      std::memcpy(&b, &expected[pos].first, sizeof(Key));
      REQUIRE(a == b);
      ++pos;
    }
  }
}

std::vector<std::size_t> random_counts(std::mt19937_64& rng, int ranks, std::size_t total, bool with_empty) {
  std::vector<std::size_t> counts(ranks, 0);
  for (std::size_t i = 0; i < total; ++i) counts[rng() % ranks] += 1;
  if (with_empty && ranks > 2) {
    counts[1] += counts[0];
    counts[0] = 0;
    counts[ranks - 2] += counts[ranks - 1];
    counts[ranks - 1] = 0;
  }
  return counts;
}

}  // namespace

TEST_CASE("dist partition: round schedule covers the window from the top", "[dist][host]") {
  for (int width = 0; width <= 64; ++width) {
    int covered = 0;
    int expected_shift = width;
    for (int round = 0; round < gpuprim::detail::dist_rounds(width); ++round) {
      const auto r = gpuprim::detail::dist_round_of(width, round);
      REQUIRE(r.bits >= 1);
      REQUIRE(r.bits <= 8);
      REQUIRE(r.shift + r.bits == expected_shift);
      expected_shift = r.shift;
      covered += r.bits;
    }
    REQUIRE(covered == width);
    REQUIRE(expected_shift == 0);
  }
}

TEST_CASE("dist partition: order key matches the sort's order", "[dist][host]") {
  const dist_sort_key<float> up{0, 32, false};
  const dist_sort_key<float> down{0, 32, true};
  REQUIRE(up(-1.0f) < up(-0.5f));
  REQUIRE(up(-0.0f) == up(0.0f));
  REQUIRE(up(0.0f) < up(1e-30f));
  REQUIRE(down(1.0f) < down(0.5f));
  REQUIRE(down(-0.0f) == down(0.0f));
  const dist_sort_key<std::int16_t> window{4, 8, false};  // bits [4, 12) of the ordered key
  REQUIRE(window(std::int16_t(0x0120)) == window(std::int16_t(0x012f)));
  REQUIRE(window.max_key() == 0xff);
}

TEST_CASE("dist partition: every rank receives its slice of the global stable order", "[dist][host]") {
  std::mt19937_64 rng(20261202);
  for (int ranks : {1, 2, 3, 4, 7, 8, 13}) {
    for (std::size_t total : {std::size_t(0), std::size_t(1), std::size_t(5), std::size_t(1000), std::size_t(4099)}) {
      for (int dist = 0; dist < 5; ++dist) {
        std::vector<std::uint32_t> keys(total);
        for (std::size_t i = 0; i < total; ++i) {
          switch (dist) {
            case 0: keys[i] = std::uint32_t(rng()); break;                // uniform
            case 1: keys[i] = 42; break;                                  // all equal
            case 2: keys[i] = std::uint32_t(rng() % 3) * 0x01010101u; break;  // few distinct
            case 3: keys[i] = std::uint32_t(i); break;                    // sorted
            default: keys[i] = std::uint32_t(total - i) << 8; break;      // reversed, low bits zero
          }
        }
        INFO("ranks " << ranks << " total " << total << " distribution " << dist);
        const auto counts = random_counts(rng, ranks, total, dist % 2 == 1);
        check_distribution(keys, counts, dist_sort_key<std::uint32_t>{0, 32, false});
        check_distribution(keys, counts, dist_sort_key<std::uint32_t>{0, 32, true});
        check_distribution(keys, counts, dist_sort_key<std::uint32_t>{5, 11, false});  // a window
        check_distribution(keys, counts, dist_sort_key<std::uint32_t>{7, 0, false});   // an empty window
      }
    }
  }
}

TEST_CASE("dist partition: float and 64-bit keys, skewed counts", "[dist][host]") {
  std::mt19937_64 rng(7);
  std::vector<float> f(3001);
  for (float& x : f) x = float(int(rng() % 41) - 20) * 0.25f;
  f[10] = -0.0f;
  f[11] = 0.0f;
  std::vector<std::uint64_t> u(2500);
  for (auto& x : u) x = rng() | (std::uint64_t(1) << 63);
  for (int ranks : {2, 5, 8}) {
    std::vector<std::size_t> skewed(ranks, 0);
    skewed[ranks / 2] = f.size();  // every item on one rank
    check_distribution(f, skewed, dist_sort_key<float>{0, 32, false});
    check_distribution(f, random_counts(rng, ranks, f.size(), true), dist_sort_key<float>{0, 32, true});
    check_distribution(u, random_counts(rng, ranks, u.size(), false), dist_sort_key<std::uint64_t>{0, 64, false});
    check_distribution(u, random_counts(rng, ranks, u.size(), true), dist_sort_key<std::uint64_t>{0, 64, true});
    check_distribution(u, random_counts(rng, ranks, u.size(), false), dist_sort_key<std::uint64_t>{60, 4, false});
  }
}
