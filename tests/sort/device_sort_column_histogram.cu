// The upfront histogram of keys of up to 4 bytes has two kernels (launch_radix_histogram): one
// shared counter per digit, and, from radix_column_histogram_min_items keys on, one that counts
// each warp's keys by one of three ways picked from their OR and AND (one atomic where the warp's
// digits agree, shared counters where they differ in at most 4 bits, lane columns otherwise) and
// loads 16 bytes at a time from the first aligned key on. This case forces the second kernel
// (test hook detail::radix_histogram_override) at sizes the sanitizers can run, bitwise against
// CUB: every mode, a misaligned head, partial chunks, several chunks a block, windows, both
// orders, and floating keys with zeros of both signs and of one (the -0.0 fix-up's choice).
#include "sort/device_sort_common.cuh"

namespace {

template <class Key>
void check_column_histogram() {
  using namespace sort_test;
  namespace gd = gpuprim::detail;
  const bool small = gpuprim_test::small_mode();
  const scoped_hook forced(gd::radix_histogram_override, 1);  // 1: radix_column_histogram_kernel
  // 131073: past the fused single-launch sort, a partial last chunk. Outside small mode also more
  // chunks than a grid of one block an SM takes in one round (the block loops), plus one key.
  std::vector<std::size_t> sizes = {131073};
  if (!small) sizes.push_back(std::size_t(3) * 132 * gd::radix_column_histogram<Key>::chunk + 1);
  // uniform: lane columns; all_equal: one atomic a warp; few_distinct and sparse_bits: digits that
  // agree in some positions and not in others; low 20 bits: an upper position on shared counters.
  std::vector<distribution> distributions = {distribution::uniform, distribution::all_equal};
  if (!small) {
    distributions.push_back(distribution::few_distinct);
    distributions.push_back(distribution::sparse_bits);
  }
  if (sizeof(Key) >= 4) distributions.push_back(distribution::low_20_bits);
  if (is_floating_key<Key>) {
    // Zeros of both signs (the passes fix up the digits), and of one sign (only the windows short
    // of the whole key fix up: radix_plan moves the keys back to their own digits' counts).
    distributions.push_back(distribution::float_specials);
    distributions.push_back(distribution::float_negative_zeros);
    distributions.push_back(distribution::float_positive_zeros);
  }
  for_each_window_case<Key>(sizes, distributions, 11,
                            [&](const std::vector<Key>& keys, const std::vector<std::uint32_t>& values, sort_call c,
                                int window, distribution d) {
                              if (small && c.descending != (window == 1)) return;
                              // Window 1 on arrays one item off 16-byte alignment: the head before the
                              // first aligned key.
                              c.offset = window == 0 ? 0 : 1;
                              check_sort<Key>(keys, {}, c);
                              if (d == distribution::uniform) check_sort<Key, std::uint32_t>(keys, values, c);
                            });
}

}  // namespace

TEMPLATE_TEST_CASE("device radix sort, lane-column histogram", "[sort][device]", std::uint8_t, std::uint16_t,
                   __half, std::uint32_t, std::int32_t, float) {
  check_column_histogram<TestType>();
}
