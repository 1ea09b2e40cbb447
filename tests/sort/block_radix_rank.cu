// Tests gpuprim::block_radix_rank directly: rank(), and the three phases (count, scan_counters,
// finish / finish_each) with the per-digit counts and starts between them, against a stable
// counting rank on the host; and match_digit against the lanes of equal digits found on the host.
// Digits in warp-striped arrangement; several tiles per block through one temp_storage; random,
// few-distinct and all-equal digits; 1-, 4- and 8-bit digits; and the phased ranks with fewer
// ballots (finish_each<MatchBits>) over tiles whose digits share their high bits.
#include <gpuprim/block/block_radix_rank.cuh>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "support/catch.hpp"
#include "support/test_util.cuh"

namespace {

using gpuprim_test::device_vector;

constexpr int grid_blocks = 3;
constexpr int reps = 2;  // tiles per block, one after another through one temp_storage

/// Tile t = blockIdx.x * reps + r. Outputs per item: the rank from rank(), the one handed to
/// finish_each and match_digit's lane mask; per digit: bin_count after count, bin_start and
/// scanned_bin_count after scan_counters. finish_each matches the digits' low MatchBits bits.
template <int BlockThreads, int ItemsPerThread, int RadixBits, int MatchBits>
__global__ void __launch_bounds__(BlockThreads)
    block_rank_kernel(const unsigned* digits_in, unsigned* ranks_whole, unsigned* ranks_phased, unsigned* peers,
                      unsigned* counts, unsigned* starts, unsigned* scanned_counts) {
  using rank_t = gpuprim::block_radix_rank<BlockThreads, ItemsPerThread, RadixBits>;
  constexpr int tile = BlockThreads * ItemsPerThread;
  constexpr int bins = 1 << RadixBits;
  __shared__ typename rank_t::temp_storage storage;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  for (int r = 0; r < reps; ++r) {
    const std::size_t t = std::size_t(blockIdx.x) * reps + r;
    unsigned digits[ItemsPerThread];
    int position[ItemsPerThread];  // warp-striped: item i of lane l of warp w
    for (int i = 0; i < ItemsPerThread; ++i) {
      position[i] = warp * 32 * ItemsPerThread + i * 32 + lane;
      digits[i] = digits_in[t * tile + position[i]];
    }
    for (int i = 0; i < ItemsPerThread; ++i) peers[t * tile + position[i]] = rank_t::match_digit(digits[i]);
    unsigned ranks[ItemsPerThread];
    rank_t(storage).rank(digits, ranks);
    for (int i = 0; i < ItemsPerThread; ++i) ranks_whole[t * tile + position[i]] = ranks[i];
    __syncthreads();  // temp_storage is reused

    rank_t ranker(storage);
    ranker.count([&](int i) { return digits[i]; });
    for (int d = static_cast<int>(threadIdx.x); d < bins; d += BlockThreads) counts[t * bins + d] = ranker.bin_count(d);
    __syncthreads();  // every bin_count read before scan_counters
    ranker.scan_counters();
    for (int d = static_cast<int>(threadIdx.x); d < bins; d += BlockThreads) {
      starts[t * bins + d] = ranker.bin_start(d);
      scanned_counts[t * bins + d] = ranker.scanned_bin_count(d);
    }
    __syncthreads();  // finish_each consumes the counters
    ranker.template finish_each<MatchBits>([&](int i) { return digits[i]; }, [&](int i, unsigned rank) {
      ranks_phased[t * tile + position[i]] = rank;
    });
    __syncthreads();  // temp_storage is reused by the next tile
  }
}

enum class digit_dist { uniform, few, equal };

/// With MatchBits < RadixBits, the digits of each tile share random bits from MatchBits up.
template <int BlockThreads, int ItemsPerThread, int RadixBits, int MatchBits = RadixBits>
void run_rank(digit_dist dist) {
  constexpr int tile = BlockThreads * ItemsPerThread;
  constexpr int bins = 1 << RadixBits;
  constexpr int tiles = grid_blocks * reps;
  std::mt19937_64& rng = gpuprim_test::test_rng();
  std::uniform_int_distribution<unsigned> any(0, bins - 1);
  const unsigned few[3] = {any(rng), any(rng), any(rng)};
  std::vector<unsigned> digits(std::size_t(tiles) * tile);
  for (unsigned& d : digits) {
    d = dist == digit_dist::uniform ? any(rng) : dist == digit_dist::few ? few[any(rng) % 3] : few[0];
  }
  if constexpr (MatchBits < RadixBits) {
    constexpr unsigned low = (1u << MatchBits) - 1u;
    for (int t = 0; t < tiles; ++t) {
      const unsigned high = any(rng) & ~low;
      for (int p = 0; p < tile; ++p) {
        unsigned& d = digits[std::size_t(t) * tile + p];
        d = high | (d & low);
      }
    }
  }
  device_vector<unsigned> d_digits(digits);
  device_vector<unsigned> d_whole(digits.size()), d_phased(digits.size()), d_peers(digits.size());
  device_vector<unsigned> d_counts(std::size_t(tiles) * bins), d_starts(std::size_t(tiles) * bins),
      d_scanned(std::size_t(tiles) * bins);
  for (auto* v : {&d_whole, &d_phased, &d_peers, &d_counts, &d_starts, &d_scanned}) v->poison(0xEE);
  block_rank_kernel<BlockThreads, ItemsPerThread, RadixBits, MatchBits><<<grid_blocks, BlockThreads>>>(
      d_digits.data(), d_whole.data(), d_phased.data(), d_peers.data(), d_counts.data(), d_starts.data(),
      d_scanned.data());
  REQUIRE_CUDA(cudaGetLastError());
  REQUIRE_CUDA(cudaDeviceSynchronize());
  const std::vector<unsigned> whole = d_whole.download(), phased = d_phased.download(), peers = d_peers.download();
  const std::vector<unsigned> counts = d_counts.download(), starts = d_starts.download(),
                              scanned = d_scanned.download();

  // Host reference, tile by tile: digit counts, their exclusive scan, and stable ranks.
  std::size_t bad_ranks = 0, bad_bins = 0;
  for (int t = 0; t < tiles; ++t) {
    std::vector<unsigned> count(bins, 0), start(bins, 0);
    for (int p = 0; p < tile; ++p) ++count[digits[std::size_t(t) * tile + p]];
    for (int d = 1; d < bins; ++d) start[d] = start[d - 1] + count[d - 1];
    for (int d = 0; d < bins; ++d) {
      const std::size_t k = std::size_t(t) * bins + d;
      bad_bins += counts[k] != count[d] || starts[k] != start[d] || scanned[k] != count[d];
    }
    std::vector<unsigned> next = start;
    for (int p = 0; p < tile; ++p) {
      const std::size_t k = std::size_t(t) * tile + p;
      const unsigned expected = next[digits[k]]++;
      bad_ranks += whole[k] != expected || phased[k] != expected;
    }
  }
  // match_digit: item i of each lane of a warp against item i of the warp's other lanes (the 32
  // items one call sees, at consecutive tile positions in the warp-striped arrangement).
  std::size_t bad_peers = 0;
  for (std::size_t first = 0; first < digits.size(); first += 32) {
    for (unsigned l = 0; l < 32; ++l) {
      unsigned expected = 0;
      for (unsigned m = 0; m < 32; ++m) expected |= unsigned(digits[first + m] == digits[first + l]) << m;
      bad_peers += peers[first + l] != expected;
    }
  }
  INFO("tile " << BlockThreads << " x " << ItemsPerThread << ", " << RadixBits << "-bit digits, "
               << MatchBits << " matched, dist " << static_cast<int>(dist));
  CHECK(bad_bins == 0);
  CHECK(bad_ranks == 0);
  CHECK(bad_peers == 0);
}

template <int BlockThreads, int ItemsPerThread, int RadixBits, int MatchBits = RadixBits>
void run_all_dists() {
  for (digit_dist dist : {digit_dist::uniform, digit_dist::few, digit_dist::equal}) {
    run_rank<BlockThreads, ItemsPerThread, RadixBits, MatchBits>(dist);
  }
}

}  // namespace

TEST_CASE("block_radix_rank: 32 threads x 3, 8-bit digits", "[sort][block][rank]") { run_all_dists<32, 3, 8>(); }
TEST_CASE("block_radix_rank: 96 threads x 5, 4-bit digits", "[sort][block][rank]") { run_all_dists<96, 5, 4>(); }
TEST_CASE("block_radix_rank: 224 threads x 4, 1-bit digits", "[sort][block][rank]") { run_all_dists<224, 4, 1>(); }
TEST_CASE("block_radix_rank: 384 threads x 9, 8-bit digits", "[sort][block][rank]") { run_all_dists<384, 9, 8>(); }
TEST_CASE("block_radix_rank: 512 threads x 4, 8-bit digits", "[sort][block][rank]") { run_all_dists<512, 4, 8>(); }
TEST_CASE("block_radix_rank: 8-bit digits sharing their high bits, 4 or 1 matched", "[sort][block][rank]") {
  run_all_dists<384, 9, 8, 4>();
  run_all_dists<32, 3, 8, 1>();
}
TEST_CASE("block_radix_rank: 4-bit digits sharing their high bits, 2 matched", "[sort][block][rank]") {
  run_all_dists<96, 5, 4, 2>();
}
