// radix_argsort / radix_argsort_descending against the host's stable order and
// cub::DeviceRadixSort::SortPairs with an index payload, bitwise: 32- and 64-bit indices, with and
// without keys out, the plain sort's distributions and the lean windows, every path forced.
#include "sort/lean_sort_common.cuh"

using namespace sort_test;

TEMPLATE_TEST_CASE("argsort: sizes x distributions x windows", "[sort][device][lean]", std::int16_t, std::uint32_t,
                   float, std::uint64_t) {
  lean_sweep<TestType>(2, [](const std::vector<TestType>& keys, const sort_call& c, std::mt19937_64& rng) {
    const bool with_keys = rng() % 2 == 0;
    check_argsort<TestType, std::uint32_t>(keys, c, with_keys);
    check_argsort<TestType, std::uint64_t>(keys, c, !with_keys);
  });
}

TEMPLATE_TEST_CASE("argsort: every path", "[sort][device][lean]", std::uint32_t, double) {
  for (const forced_case& f : forced_cases()) {
    for (distribution d : {distribution::uniform, distribution::all_equal, distribution::few_distinct}) {
      INFO("distribution: " << distribution_name(d));
      std::mt19937_64 rng = case_rng(name_hash(key_traits<TestType>::name()), f.n, 9 + static_cast<int>(d));
      const std::vector<TestType> keys = make_keys<TestType>(f.n, d, rng);
      for (const bit_window& w : lean_windows<TestType>()) {
        for (bool descending : {false, true}) {
          sort_call c;
          c.path = f.path;
          c.descending = descending;
          c.begin_bit = w.begin_bit;
          c.end_bit = w.end_bit;
          check_argsort<TestType, std::uint32_t>(keys, c, true);
          check_argsort<TestType, std::uint32_t>(keys, c, false);
        }
      }
    }
  }
}
