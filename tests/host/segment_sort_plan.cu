// The host side of the segment sort (detail/radix_segment_sort.cuh): the ladder of block shapes
// and the step radix_segment_step_for picks for n pairs.
// - The ladder: capacities strictly increasing, and every step's blocks fit an SM of compute
//   capability 9.0 as many times as its __launch_bounds__ asks (228 KiB of shared memory an SM,
//   227 KiB a block, 1 KiB a block reserved by the system).
// - The pick, for uniform keys (segments of Poisson(n / 65536) pairs): the smallest capacity that
//   holds the mean plus six standard deviations, none below a mean of 0.7 of the smallest capacity
//   or where no capacity holds it; the offered window (~53M to ~372M pairs, as docs/radix_sort.md
//   states); and, from the Poisson tail computed here, that a uniform sort sends almost no segment
//   to the fix-up.
#include <gpuprim/detail/radix_segment_sort.cuh>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>

#include "support/catch.hpp"

namespace {

namespace gd = gpuprim::detail;

constexpr std::size_t segments = std::size_t{1} << 16;
constexpr std::size_t sm_smem = 228 * 1024;
constexpr std::size_t block_smem_max = 227 * 1024;
constexpr std::size_t block_reserved = 1024;

int capacity(int step) { return gd::radix_segment_ladder[step].capacity(); }

/// Shared memory of one block of ladder step S as launch_segment_blocks asks for it: the padded
/// words (one pad a 32) and the ranking's storage.
template <int S>
std::size_t step_smem() {
  constexpr gd::radix_segment_step step = gd::radix_segment_ladder[S];
  return std::size_t(step.capacity() + step.capacity() / 32) * sizeof(unsigned long long) +
         sizeof(typename gpuprim::block_radix_rank<step.threads, step.items, 8>::temp_storage);
}

template <std::size_t... S>
void check_ladder_smem(std::index_sequence<S...>) {
  const std::size_t smem[] = {step_smem<static_cast<int>(S)>()...};
  for (int s = 0; s < gd::radix_segment_steps; ++s) {
    const gd::radix_segment_step step = gd::radix_segment_ladder[s];
    CAPTURE(s, step.threads, step.items, step.blocks_per_sm, smem[s]);
    CHECK(smem[s] <= block_smem_max);
    CHECK(std::size_t(step.blocks_per_sm) * (smem[s] + block_reserved) <= sm_smem);
  }
}

/// P(X > c) for X ~ Poisson(mean), summed in log space over the tail's terms that matter.
double poisson_tail(double mean, int c) {
  double p = 0;
  for (int k = c + 1; k <= c + 4000; ++k) {
    p += std::exp(k * std::log(mean) - mean - std::lgamma(k + 1.0));
  }
  return p;
}

}  // namespace

TEST_CASE("segment sort: the ladder of block shapes", "[host][sort]") {
  REQUIRE(gd::radix_segment_steps >= 1);
  for (int s = 0; s < gd::radix_segment_steps; ++s) {
    const gd::radix_segment_step step = gd::radix_segment_ladder[s];
    CAPTURE(s);
    CHECK(step.threads % 32 == 0);
    CHECK(step.threads * step.blocks_per_sm <= 2048);  // threads an SM
    if (s > 0) CHECK(capacity(s) > capacity(s - 1));
  }
  check_ladder_smem(std::make_index_sequence<gd::radix_segment_steps>{});
}

TEST_CASE("segment sort: the step picked for n pairs", "[host][sort]") {
  const int last = gd::radix_segment_steps - 1;
  // The window the docs state.
  CHECK(gd::radix_segment_step_for(0) == -1);
  CHECK(gd::radix_segment_step_for(1000000) == -1);
  CHECK(gd::radix_segment_step_for(52000000) == -1);
  CHECK(gd::radix_segment_step_for(53000000) == 0);
  CHECK(gd::radix_segment_step_for(372000000) == last);
  CHECK(gd::radix_segment_step_for(374000000) == -1);
  CHECK(gd::radix_segment_step_for(std::size_t{1} << 32) == -1);

  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> log2_n(20.0, 30.0);
  int previous = -1;
  std::size_t previous_n = 0;
  for (std::size_t n = 40000000; n <= 400000000; n += 1000003) {
    const int s = gd::radix_segment_step_for(n);
    const double mean = static_cast<double>(n) / segments;
    const double need = mean + 6 * std::sqrt(mean);
    CAPTURE(n, s, mean, need);
    if (mean < 0.7 * capacity(0) || need > capacity(last)) {
      CHECK(s == -1);
      continue;
    }
    REQUIRE(s >= 0);
    CHECK(need <= capacity(s));                // holds six standard deviations
    if (s > 0) CHECK(need > capacity(s - 1));  // the smallest that does
    if (previous >= 0 && previous_n + 1000003 == n) CHECK(s >= previous);  // never a smaller block for more pairs
    previous = s;
    previous_n = n;
  }
  // Random sizes over the whole range: the same rule.
  for (int i = 0; i < 2000; ++i) {
    const auto n = static_cast<std::size_t>(std::exp2(log2_n(rng)));
    const int s = gd::radix_segment_step_for(n);
    const double mean = static_cast<double>(n) / segments;
    CAPTURE(n, s);
    if (s < 0) {
      CHECK((mean < 0.7 * capacity(0) || mean + 6 * std::sqrt(mean) > capacity(last)));
    } else {
      CHECK(mean + 6 * std::sqrt(mean) <= capacity(s));
    }
  }
}

TEST_CASE("segment sort: uniform keys almost never reach the fix-up", "[host][sort]") {
  // Expected segments over capacity in one sort of n uniform pairs, at the step picked, across the
  // window: far below one.
  for (std::size_t n = 53000000; n <= 372000000; n += 7000001) {
    const int s = gd::radix_segment_step_for(n);
    REQUIRE(s >= 0);
    const double mean = static_cast<double>(n) / segments;
    const double expected_over = segments * poisson_tail(mean, capacity(s));
    CAPTURE(n, s, mean, capacity(s), expected_over);
    CHECK(expected_over < 1e-3);
  }
}
