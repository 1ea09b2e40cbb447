// The lean sorts' runners: a low-memory sort (double_buffer forms) or an argsort of one input, by
// gpuprim as a sort_call says (either form, any window and order, a forced path, arrays offset)
// and by cub::DeviceRadixSort on the same input, compared bitwise; every buffer poisoned first,
// guard items past n untouched, the input of an argsort unchanged.
#pragma once

#include <numeric>

#include "sort/device_sort_common.cuh"

namespace sort_test {

template <class T>
std::vector<T> download_items(const T* p, std::size_t n) {
  std::vector<T> h(n);
  if (n > 0) REQUIRE_CUDA(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

/// cub::DeviceRadixSort's DoubleBuffer sort of host keys (and values): the result's contents.
template <class Key, class Value>
void cub_double_buffer_reference(const std::vector<Key>& keys, const std::vector<Value>& values, bool descending,
                                 int begin_bit, int end_bit, std::vector<Key>& sorted_keys,
                                 std::vector<Value>& sorted_values) {
  constexpr bool pairs = !std::is_same_v<Value, keys_only>;
  const std::size_t n = keys.size();
  gpuprim_test::device_vector<Key> a(keys), b(n);
  gpuprim_test::device_vector<Value> va(values), vb(pairs ? n : 0);
  cub::DoubleBuffer<Key> dk(a.data(), b.data());
  cub::DoubleBuffer<Value> dv(va.data(), vb.data());
  std::size_t bytes = 0;
  const auto run = [&](void* temp) {
    if constexpr (pairs) {
      return descending ? cub::DeviceRadixSort::SortPairsDescending(temp, bytes, dk, dv, n, begin_bit, end_bit)
                        : cub::DeviceRadixSort::SortPairs(temp, bytes, dk, dv, n, begin_bit, end_bit);
    } else {
      return descending ? cub::DeviceRadixSort::SortKeysDescending(temp, bytes, dk, n, begin_bit, end_bit)
                        : cub::DeviceRadixSort::SortKeys(temp, bytes, dk, n, begin_bit, end_bit);
    }
  };
  REQUIRE_CUDA(run(nullptr));
  gpuprim_test::device_vector<unsigned char> temp(bytes);
  REQUIRE_CUDA(run(temp.data()));
  gpuprim_test::require_sync();
  sorted_keys = download_items(dk.Current(), n);
  if constexpr (pairs) sorted_values = download_items(dv.Current(), n);
}

/// The gpuprim low-memory sort of call c (temp == nullptr: size query; c.form allocating: temp
/// unused); a forced path goes through the internal entry point.
template <class Key, class Value>
cudaError_t gpuprim_low_memory(void* temp, std::size_t& bytes, gpuprim::double_buffer<Key>& keys,
                               gpuprim::double_buffer<Value>& values, std::size_t n, const sort_call& c) {
  constexpr bool pairs = !std::is_same_v<Value, keys_only>;
  const int end_bit = c.end_bit < 0 ? key_bits<Key> : c.end_bit;
  if (c.path != gpuprim::detail::radix_path::automatic) {
    using lib_value = std::conditional_t<pairs, Value, gpuprim::detail::no_values>;
    bool alternate = false;
    const auto run = [&](auto descending) {
      return gpuprim::detail::radix_sort_low_memory<decltype(descending)::value>(
          temp, bytes, temp == nullptr, keys.current(), keys.alternate(),
          reinterpret_cast<lib_value*>(values.current()), reinterpret_cast<lib_value*>(values.alternate()), n,
          c.begin_bit, end_bit, c.stream, alternate, c.path);
    };
    const cudaError_t e = c.descending ? run(std::true_type{}) : run(std::false_type{});
    if (e == cudaSuccess && temp == nullptr && bytes == 0) bytes = 1;
    if (e == cudaSuccess && temp != nullptr && alternate) {
      keys = gpuprim::double_buffer<Key>(keys.alternate(), keys.current());
      values = gpuprim::double_buffer<Value>(values.alternate(), values.current());
    }
    return e;
  }
  if constexpr (pairs) {
    if (c.form == call_form::allocating) {
      return c.descending ? gpuprim::radix_sort_pairs_descending(keys, values, n, c.begin_bit, end_bit, c.stream)
                          : gpuprim::radix_sort_pairs(keys, values, n, c.begin_bit, end_bit, c.stream);
    }
    return c.descending
               ? gpuprim::radix_sort_pairs_descending(temp, bytes, keys, values, n, c.begin_bit, end_bit, c.stream)
               : gpuprim::radix_sort_pairs(temp, bytes, keys, values, n, c.begin_bit, end_bit, c.stream);
  } else {
    if (c.form == call_form::allocating) {
      return c.descending ? gpuprim::radix_sort_keys_descending(keys, n, c.begin_bit, end_bit, c.stream)
                          : gpuprim::radix_sort_keys(keys, n, c.begin_bit, end_bit, c.stream);
    }
    return c.descending ? gpuprim::radix_sort_keys_descending(temp, bytes, keys, n, c.begin_bit, end_bit, c.stream)
                        : gpuprim::radix_sort_keys(temp, bytes, keys, n, c.begin_bit, end_bit, c.stream);
  }
}

/// Sorts `keys` (and `values`) with a gpuprim low-memory sort as call c says and checks against
/// CUB's DoubleBuffer sort: the buffer named current() afterwards holds CUB's result bitwise,
/// keys and values alike (both buffers of each poisoned first), guard items past n in all four
/// buffers untouched, and the workspace has no n-sized buffer (under half a key an item).
template <class Key, class Value = keys_only>
void check_low_memory(std::vector<Key> keys, const std::vector<Value>& values, const sort_call& c) {
  constexpr bool pairs = !std::is_same_v<Value, keys_only>;
  using gpuprim_test::device_vector;
  const std::size_t n = keys.size();
  const int end_bit = c.end_bit < 0 ? key_bits<Key> : c.end_bit;
  INFO("low-memory form: " << (describe<Key, Value>(n, c, end_bit)));
  if (c.descending && c.begin_bit < end_bit && (c.begin_bit != 0 || end_bit != key_bits<Key>)) remove_zeros(keys);
  std::vector<Key> expected_keys;
  std::vector<Value> expected_values;
  cub_double_buffer_reference<Key, Value>(keys, values, c.descending, c.begin_bit, end_bit, expected_keys,
                                          expected_values);

  const std::size_t off = c.offset;
  const unsigned char pattern = 0xCD;
  device_vector<Key> k0(off + n + guard_items), k1(off + n + guard_items);
  device_vector<Value> v0(pairs ? off + n + guard_items : 0), v1(pairs ? off + n + guard_items : 0);
  for (auto* b : {&k0, &k1}) b->poison(pattern);
  for (auto* b : {&v0, &v1}) b->poison(pattern);
  k0.upload(keys, off);
  if constexpr (pairs) v0.upload(values, off);
  gpuprim::double_buffer<Key> db_keys(k0.data() + off, k1.data() + off);
  gpuprim::double_buffer<Value> db_values(pairs ? v0.data() + off : nullptr, pairs ? v1.data() + off : nullptr);

  std::size_t bytes = 0;
  device_vector<unsigned char> temp;
  if (c.form == call_form::workspace) {
    REQUIRE_CUDA((gpuprim_low_memory<Key, Value>(nullptr, bytes, db_keys, db_values, n, c)));
    REQUIRE(bytes >= 1);
    if (n >= (std::size_t(1) << 20)) CHECK(bytes < n * sizeof(Key) / 2);
    REQUIRE(temp.allocate(bytes + c.workspace_skew));
  }
  REQUIRE_CUDA((gpuprim_low_memory<Key, Value>(temp.data() + c.workspace_skew, bytes, db_keys, db_values, n, c)));
  REQUIRE_CUDA(cudaStreamSynchronize(c.stream));
  gpuprim_test::require_sync();

  const bool in_alternate = db_keys.current() == k1.data() + off;
  INFO("result in the " << (in_alternate ? "alternate" : "first") << " buffers");
  REQUIRE((in_alternate || db_keys.current() == k0.data() + off));
  REQUIRE(db_keys.alternate() == (in_alternate ? k0.data() : k1.data()) + off);
  const std::vector<Key> got_keys = download_items(db_keys.current(), n);
  check_bitwise_equal("keys", expected_keys.data(), got_keys.data(), n);
  for (auto* b : {&k0, &k1}) CHECK(count_touched(b->download(off + n, guard_items), 0, pattern) == 0);
  if constexpr (pairs) {
    REQUIRE(db_values.current() == (in_alternate ? v1.data() : v0.data()) + off);
    REQUIRE(db_values.alternate() == (in_alternate ? v0.data() : v1.data()) + off);
    const std::vector<Value> got_values = download_items(db_values.current(), n);
    check_bitwise_equal("values", expected_values.data(), got_values.data(), n);
    for (auto* b : {&v0, &v1}) CHECK(count_touched(b->download(off + n, guard_items), 0, pattern) == 0);
  }
}

/// The gpuprim argsort of call c into `keys_out` (nullptr: no keys) and `indices`.
template <class Key, class Index>
cudaError_t gpuprim_argsort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out, Index* indices,
                            std::size_t n, const sort_call& c) {
  const int end_bit = c.end_bit < 0 ? key_bits<Key> : c.end_bit;
  if (c.path != gpuprim::detail::radix_path::automatic) {
    const auto run = [&](auto descending) {
      return gpuprim::detail::radix_argsort<decltype(descending)::value>(temp, bytes, temp == nullptr, keys_in,
                                                                         keys_out, indices, n, c.begin_bit, end_bit,
                                                                         c.stream, c.path);
    };
    const cudaError_t e = c.descending ? run(std::true_type{}) : run(std::false_type{});
    if (e == cudaSuccess && temp == nullptr && bytes == 0) bytes = 1;
    return e;
  }
  if (c.form == call_form::allocating) {
    if (c.end_bit < 0 && keys_out == nullptr) {  // the defaults, and a literal nullptr
      return c.descending ? gpuprim::radix_argsort_descending(keys_in, nullptr, indices, n)
                          : gpuprim::radix_argsort(keys_in, nullptr, indices, n);
    }
    return c.descending ? gpuprim::radix_argsort_descending(keys_in, keys_out, indices, n, c.begin_bit, end_bit, c.stream)
                        : gpuprim::radix_argsort(keys_in, keys_out, indices, n, c.begin_bit, end_bit, c.stream);
  }
  return c.descending
             ? gpuprim::radix_argsort_descending(temp, bytes, keys_in, keys_out, indices, n, c.begin_bit, end_bit, c.stream)
             : gpuprim::radix_argsort(temp, bytes, keys_in, keys_out, indices, n, c.begin_bit, end_bit, c.stream);
}

/// Argsorts `keys` with gpuprim as call c says, with and without keys out, and checks the indices
/// against the host's stable order and, with the keys, against cub::DeviceRadixSort::SortPairs of
/// an index payload, bitwise; outputs poisoned, guard items untouched, the input unchanged.
template <class Key, class Index>
void check_argsort(std::vector<Key> keys, const sort_call& c, bool with_keys) {
  using gpuprim_test::device_vector;
  const std::size_t n = keys.size();
  const int end_bit = c.end_bit < 0 ? key_bits<Key> : c.end_bit;
  INFO("argsort to " << sizeof(Index) * 8 << "-bit indices, " << (with_keys ? "with" : "without") << " keys out: "
                     << (describe<Key, keys_only>(n, c, end_bit)));
  if (c.descending && c.begin_bit < end_bit && (c.begin_bit != 0 || end_bit != key_bits<Key>)) remove_zeros(keys);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  std::vector<Key> expected_keys;
  std::vector<std::uint32_t> cub_positions;
  cub_reference<Key, std::uint32_t>(keys, positions, c.descending, c.begin_bit, end_bit, expected_keys, cub_positions);
  const std::vector<std::uint32_t> host_positions = reference_order(keys.data(), n, c.descending, c.begin_bit, end_bit);
  check_bitwise_equal("CUB's positions against the host's", host_positions.data(), cub_positions.data(), n);
  std::vector<Index> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = static_cast<Index>(host_positions[i]);

  const std::size_t off = c.offset;
  const unsigned char pattern = 0xCD;
  device_vector<Key> keys_in(off + n + 1), keys_out(with_keys ? off + n + guard_items : 0);
  device_vector<Index> indices(off + n + guard_items);
  keys_in.upload(keys, off);
  keys_out.poison(pattern);
  indices.poison(pattern);
  Key* k_out = with_keys ? keys_out.data() + off : nullptr;
  std::size_t bytes = 0;
  device_vector<unsigned char> temp;
  if (c.form == call_form::workspace) {
    REQUIRE_CUDA((gpuprim_argsort<Key, Index>(nullptr, bytes, keys_in.data() + off, k_out, indices.data() + off, n, c)));
    REQUIRE(bytes >= 1);
    REQUIRE(temp.allocate(bytes + c.workspace_skew));
  }
  REQUIRE_CUDA((gpuprim_argsort<Key, Index>(temp.data() + c.workspace_skew, bytes, keys_in.data() + off, k_out,
                                            indices.data() + off, n, c)));
  REQUIRE_CUDA(cudaStreamSynchronize(c.stream));
  gpuprim_test::require_sync();
  const std::vector<Index> got = indices.download(off, n + guard_items);
  check_bitwise_equal("indices", expected.data(), got.data(), n);
  CHECK(count_touched(got, n, pattern) == 0);
  if (with_keys) {
    const std::vector<Key> got_keys = keys_out.download(off, n + guard_items);
    check_bitwise_equal("keys", expected_keys.data(), got_keys.data(), n);
    CHECK(count_touched(got_keys, n, pattern) == 0);
  }
  const std::vector<Key> after = keys_in.download(off, n);
  check_bitwise_equal("input keys after the sort", keys.data(), after.data(), n);
}

/// The sizes of the lean sorts' sweeps: every path of the plan (rank, bucketed rank, fused,
/// one-wave, many-wave tiles) and partial tiles.
inline std::vector<std::size_t> lean_sizes() {
  std::vector<std::size_t> sizes = {0, 1, 17, 4097, 16384, 65537, 131073, 999983};
  if (!gpuprim_test::small_mode()) sizes.push_back(3000017);
  return sizes;
}

/// The windows of the lean sweeps: the whole key, [B/4, B - 3), one digit [0, 8) (an odd pass
/// count), three digits of wider keys, and the empty [B/2, B/2).
template <class Key>
std::vector<bit_window> lean_windows() {
  constexpr int b = key_bits<Key>;
  std::vector<bit_window> w = {{0, b}, {b / 4, b - 3}, {b / 2, b / 2}};
  if (b > 8) w.push_back({0, 8});
  if (b > 24) w.push_back({0, 24});
  return w;
}

/// Every size of lean_sizes (the distributions of Key up to 131073 items, then uniform and sparse
/// bits), every lean window, both orders: `visit(keys, call)`; the calls rotate through both forms,
/// an own stream, and arrays offset by 1 item.
template <class Key, class Visit>
void lean_sweep(int seed, Visit&& visit) {
  gpuprim_test::scoped_stream stream;
  int k = 0;
  for (std::size_t n : lean_sizes()) {
    std::mt19937_64 rng = case_rng(name_hash(key_traits<Key>::name()), n, seed);
    const std::vector<distribution> ds =
        n <= 131073 ? distributions_for<Key>() : std::vector<distribution>{distribution::uniform, distribution::sparse_bits};
    for (distribution d : ds) {
      INFO("distribution: " << distribution_name(d));
      const std::vector<Key> keys = make_keys<Key>(n, d, rng);
      for (const bit_window& w : lean_windows<Key>()) {
        for (bool descending : {false, true}) {
          sort_call c;
          c.descending = descending;
          c.begin_bit = w.begin_bit;
          c.end_bit = w.end_bit;
          c.form = k % 3 == 1 ? call_form::allocating : call_form::workspace;
          c.stream = k % 4 == 2 ? stream.get() : cudaStream_t(0);
          c.offset = k % 5 == 3 ? 1 : 0;
          ++k;
          visit(keys, c, rng);
        }
      }
    }
  }
}

/// The paths of the plan forced in turn, each at a size it takes, for the lean sorts.
struct forced_case {
  gpuprim::detail::radix_path path;
  std::size_t n;
};
inline std::vector<forced_case> forced_cases() {
  using gpuprim::detail::radix_path;
  const std::size_t big = gpuprim_test::small_mode() ? 60013 : 300007;
  return {{radix_path::rank, 1000},   {radix_path::bucket, 16384},  {radix_path::fused, 40000},
          {radix_path::one_wave, big}, {radix_path::many_waves, big}};
}

}  // namespace sort_test
