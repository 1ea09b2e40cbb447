// The low-memory sorts (double_buffer forms of radix_sort_keys / _pairs and their _descending
// forms) against cub::DeviceRadixSort's DoubleBuffer sorts, bitwise: key types of 1 to 8 bytes
// and floats, the plain sort's distributions (all equal and few distinct keys skip passes, in odd
// and even numbers), windows of odd and even pass counts and the empty window, every path forced.
#include "sort/lean_sort_common.cuh"

using namespace sort_test;

TEMPLATE_TEST_CASE("low-memory radix sort: sizes x distributions x windows", "[sort][device][lean]", std::uint8_t,
                   std::uint16_t, std::int32_t, std::uint64_t, float, double) {
  lean_sweep<TestType>(1, [](const std::vector<TestType>& keys, const sort_call& c, std::mt19937_64& rng) {
    check_low_memory<TestType>(keys, {}, c);
    check_low_memory<TestType, std::uint32_t>(keys, make_values<std::uint32_t>(keys.size(), rng), c);
  });
}

TEMPLATE_TEST_CASE("low-memory radix sort: every path", "[sort][device][lean]", std::uint8_t, std::uint32_t,
                   std::uint64_t) {
  for (const forced_case& f : forced_cases()) {
    for (distribution d : {distribution::uniform, distribution::all_equal, distribution::few_distinct,
                           distribution::sparse_bits}) {
      INFO("distribution: " << distribution_name(d));
      std::mt19937_64 rng = case_rng(name_hash(key_traits<TestType>::name()), f.n, 7 + static_cast<int>(d));
      const std::vector<TestType> keys = make_keys<TestType>(f.n, d, rng);
      const std::vector<std::uint64_t> values = make_values<std::uint64_t>(f.n, rng);
      for (const bit_window& w : lean_windows<TestType>()) {
        for (bool descending : {false, true}) {
          sort_call c;
          c.path = f.path;
          c.descending = descending;
          c.begin_bit = w.begin_bit;
          c.end_bit = w.end_bit;
          check_low_memory<TestType>(keys, {}, c);
          check_low_memory<TestType, std::uint64_t>(keys, values, c);
        }
      }
    }
  }
}
