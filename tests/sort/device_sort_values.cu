// Tests gpuprim's device radix sorts of pairs with payloads other than uint32 against
// cub::DeviceRadixSort: a 12-byte struct (with 32- and 16-bit keys) and uint64 (with double keys).
#include "sort/device_sort_common.cuh"

using gpuprim_test::triple;
using namespace sort_test;

namespace {

/// Sizes around the tiles, both orders, the whole key and two windows.
template <class Key, class Value>
void check_payload() {
  gpuprim_test::scoped_stream stream;
  std::size_t index = 0;
  std::vector<std::size_t> sizes = {0, 1, 255, 1025, 4097, 8833, 16385, 65537};
  if (!gpuprim_test::small_mode()) sizes.push_back(999983);
  for (std::size_t n : sizes) {
    std::mt19937_64 rng = case_rng(name_hash(key_traits<Key>::name()), n, 300 + sizeof(Value));
    const distribution d = index % 2 == 0 ? distribution::uniform : distribution::few_distinct;
    INFO("distribution: " << distribution_name(d));
    const std::vector<Key> keys = make_keys<Key>(n, d, rng);
    const std::vector<Value> values = make_values<Value>(n, rng);
    for (const bit_window& w : {bit_window{0, key_bits<Key>}, bit_window{3, key_bits<Key> - 2}, bit_window{0, 5}}) {
      for (bool descending : {false, true}) {
        sort_call c;
        c.descending = descending;
        c.begin_bit = w.begin_bit;
        c.end_bit = w.end_bit;
        c.form = index % 3 == 2 ? call_form::allocating : call_form::workspace;
        c.stream = index % 2 == 1 ? stream.get() : cudaStream_t(0);
        check_sort<Key, Value>(keys, values, c);
        ++index;
      }
    }
  }
}

}  // namespace

TEST_CASE("device radix sort: 12-byte struct values", "[sort][device]") {
  SECTION("uint32 keys") { check_payload<std::uint32_t, triple>(); }
  SECTION("__half keys") { check_payload<__half, triple>(); }
}

TEST_CASE("device radix sort: uint64 values with double keys", "[sort][device]") {
  check_payload<double, std::uint64_t>();
}
