// The segmented reduce's cut of the work (device/segmented_reduce.cuh, make_segment_share) read
// as a table: for segment sizes of every kind (empty, tiny, huge, all empty, fewer items than
// blocks) and grids of 1 to 528 blocks, the blocks' ranges partition the line of items, every
// segment is owned by exactly one block, the head, owned and tail pieces cover every item exactly
// once and within its segment, and the chain of head partials after each tail ends where the
// segment ends.
#include <gpuprim/reduce.cuh>

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

#include "support/catch.hpp"

namespace {

namespace gd = gpuprim::detail;

/// The first of starts[0, count) that is >= w (a host search, callable where the share is).
struct first_at_least_t {
  const std::size_t* starts;
  std::size_t count;
  __host__ __device__ std::size_t operator()(std::size_t w) const {
    std::size_t lo = 0, hi = count;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (starts[mid] < w) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
};

void check_shares(const std::vector<std::size_t>& sizes, std::size_t grid) {
  const std::size_t S = sizes.size();
  std::vector<std::size_t> starts(S + 1, 0);
  for (std::size_t s = 0; s < S; ++s) starts[s + 1] = starts[s] + sizes[s];
  const std::size_t W = starts[S];
  CAPTURE(S, W, grid);
  const first_at_least_t first_at_least{starts.data(), S};
  std::vector<gd::segment_share> shares(grid);
  for (std::size_t b = 0; b < grid; ++b) shares[b] = gd::make_segment_share(starts.data(), S, b, grid, first_at_least);

  std::vector<int> owners(S, 0);
  std::vector<int> covered(W, 0);
  const auto cover = [&](std::size_t s, std::size_t from, std::size_t to) {
    REQUIRE(starts[s] <= from);
    REQUIRE(to <= starts[s + 1]);
    for (std::size_t w = from; w < to; ++w) ++covered[w];
  };
  for (std::size_t b = 0; b < grid; ++b) {
    const gd::segment_share& sh = shares[b];
    CAPTURE(b);
    REQUIRE(sh.w0 == (b == 0 ? 0 : shares[b - 1].w1));
    REQUIRE(sh.w0 <= sh.w1);
    if (b + 1 == grid) REQUIRE(sh.w1 == W);
    for (std::size_t s = sh.own_first; s < sh.own_end; ++s) {
      ++owners[s];
      CHECK(starts[s] >= sh.w0);
      CHECK((starts[s] < sh.w1 || (b + 1 == grid && starts[s] == W)));
      const bool is_tail = sh.tail && s + 1 == sh.own_end;
      cover(s, starts[s], is_tail ? sh.w1 : starts[s + 1]);
    }
    if (sh.head_segment != ~std::size_t(0)) {
      const std::size_t h = sh.head_segment;
      REQUIRE(h < S);
      CHECK(starts[h] < sh.w0);
      cover(h, sh.w0, std::min(starts[h + 1], sh.w1));
    }
    if (sh.tail) {
      // The next blocks with items start inside the tail segment until one holds its end.
      const std::size_t l = sh.own_end - 1;
      bool ended = false;
      for (std::size_t c = b + 1; c < grid && !ended; ++c) {
        if (shares[c].w0 == shares[c].w1) continue;
        REQUIRE(shares[c].head_segment == l);
        ended = starts[l + 1] <= shares[c].w1;
      }
      CHECK(ended);
    }
  }
  for (std::size_t s = 0; s < S; ++s) REQUIRE(owners[s] == 1);
  for (std::size_t w = 0; w < W; ++w) REQUIRE(covered[w] == 1);
}

}  // namespace

TEST_CASE("segmented reduce: the blocks' shares cover every item and segment once", "[host][segmented]") {
  std::mt19937_64 rng(20261202);
  const std::size_t grids[] = {1, 2, 3, 7, 132, 528};
  std::vector<std::vector<std::size_t>> tables = {
      {0},
      {5},
      {0, 0, 0, 0},
      std::vector<std::size_t>(1000, 1),
      std::vector<std::size_t>(300, 7),
      std::vector<std::size_t>(16, 20000),
      {0, 0, 100000, 0, 0},
      {3, 0, 0, 1, 0, 2},  // fewer items than blocks
  };
  // Power-law sizes with empty segments among them, and one giant among tiny ones.
  std::vector<std::size_t> mixed;
  for (int i = 0; i < 3000; ++i) {
    const double u = (double(rng() % 1000000) + 1) / 1000000.0;
    mixed.push_back(rng() % 5 == 0 ? 0 : std::min<std::size_t>(std::size_t(1.0 / (u * u)), 50000));
  }
  tables.push_back(mixed);
  std::vector<std::size_t> giant(5000, 2);
  giant[1234] = 200000;
  tables.push_back(giant);
  for (const auto& sizes : tables) {
    for (std::size_t grid : grids) check_shares(sizes, grid);
  }
}
