// Tests the device radix sorts beyond the key types: one workspace serving twenty queued calls,
// CUDA graph capture and replay, two streams at once, misaligned arrays and workspace, n == 0,
// and empty bit windows (a stable copy). References: cub::DeviceRadixSort.
#include <gpuprim/radix_sort.cuh>

#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "sort/device_sort_common.cuh"
#include "sort/sort_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace sort_test;
using gpuprim_test::device_vector;
using gpuprim_test::require_sync;

namespace {

using key32 = std::uint32_t;
using value32 = std::uint32_t;

/// Checks device outputs (n items, then guard items still holding `pattern`) against CUB's sort.
void check_against_cub(const std::vector<key32>& keys, const std::vector<value32>* values, bool descending,
                       int begin_bit, int end_bit, const device_vector<key32>& keys_out,
                       const device_vector<value32>* values_out, unsigned char pattern) {
  const std::size_t n = keys.size();
  INFO("n = " << n << (descending ? ", descending, " : ", ascending, ") << (bit_window{begin_bit, end_bit})
               << (values ? ", pairs" : ", keys") << " (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")");
  std::vector<key32> expected_keys;
  std::vector<value32> expected_values;
  if (values != nullptr) {
    cub_reference<key32, value32>(keys, *values, descending, begin_bit, end_bit, expected_keys, expected_values);
  } else {
    std::vector<keys_only> none;
    cub_reference<key32, keys_only>(keys, {}, descending, begin_bit, end_bit, expected_keys, none);
  }
  const auto got_keys = keys_out.download(0, n + guard_items);
  check_bitwise_equal("keys", expected_keys.data(), got_keys.data(), n);
  CHECK(count_touched(got_keys, n, pattern) == 0);
  if (values != nullptr) {
    const auto got_values = values_out->download(0, n + guard_items);
    check_bitwise_equal("values", expected_values.data(), got_values.data(), n);
    CHECK(count_touched(got_values, n, pattern) == 0);
  }
}

}  // namespace

TEST_CASE("device radix sort: one workspace, twenty queued calls", "[sort][device]") {
  // Twenty sorts queued back to back on one stream through one workspace, with sizes that shrink
  // and grow, both orders, keys and pairs, several windows: nothing a call leaves in the
  // workspace may leak into the next one.
  gpuprim_test::scoped_stream stream;
  constexpr int calls = 20;
  const std::size_t max_n = gpuprim_test::small_mode() ? 100003 : 1000003;
  std::mt19937_64 rng = case_rng(20, max_n);
  const std::vector<key32> keys = make_keys<key32>(max_n, distribution::uniform, rng);
  const std::vector<value32> values = make_values<value32>(max_n, rng);
  device_vector<key32> keys_in(keys);
  device_vector<value32> values_in(values);

  struct call_t {
    std::size_t n;
    bool descending, pairs;
    int begin_bit, end_bit;
  };
  std::vector<call_t> plan;
  std::vector<device_vector<key32>> keys_out;
  std::vector<device_vector<value32>> values_out;
  for (int i = 0; i < calls; ++i) {
    const std::size_t n = i % 5 == 4 ? max_n : std::uniform_int_distribution<std::size_t>(1, max_n)(rng);
    const int begin_bit = i % 4 == 1 ? 4 : 0;
    const int end_bit = i % 4 == 2 ? 19 : 32;
    plan.push_back({n, i % 2 == 1, i % 3 != 0, begin_bit, end_bit});
    keys_out.emplace_back(n + guard_items);
    values_out.emplace_back(n + guard_items);
    keys_out.back().poison(0xCD);
    values_out.back().poison(0xCD);
  }

  // One workspace of the largest size any of the calls asks for.
  auto run_call = [&](int i, void* temp, std::size_t& bytes) {
    const call_t& c = plan[i];
    const key32* k_in = keys_in.data();
    const value32* v_in = values_in.data();
    key32* k_out = keys_out[i].data();
    value32* v_out = values_out[i].data();
    if (c.pairs) {
      return c.descending ? gpuprim::radix_sort_pairs_descending(temp, bytes, k_in, k_out, v_in, v_out, c.n,
                                                                 c.begin_bit, c.end_bit, stream)
                          : gpuprim::radix_sort_pairs(temp, bytes, k_in, k_out, v_in, v_out, c.n, c.begin_bit,
                                                      c.end_bit, stream);
    }
    return c.descending
               ? gpuprim::radix_sort_keys_descending(temp, bytes, k_in, k_out, c.n, c.begin_bit, c.end_bit, stream)
               : gpuprim::radix_sort_keys(temp, bytes, k_in, k_out, c.n, c.begin_bit, c.end_bit, stream);
  };
  std::size_t bytes = 0;
  for (int i = 0; i < calls; ++i) {
    std::size_t b = 0;
    REQUIRE_CUDA(run_call(i, nullptr, b));
    bytes = std::max(bytes, b);
  }
  device_vector<unsigned char> temp(bytes);
  temp.poison(0xFF);  // a workspace holds anything to begin with: the sort zeroes what it counts in

  for (int i = 0; i < calls; ++i) {
    INFO("call " << i);
    std::size_t b = bytes;
    REQUIRE_CUDA(run_call(i, temp.data(), b));
  }
  REQUIRE_CUDA(cudaStreamSynchronize(stream));
  require_sync();
  for (int i = 0; i < calls; ++i) {
    const call_t& c = plan[i];
    INFO("call " << i);
    const std::vector<key32> k(keys.begin(), keys.begin() + c.n);
    const std::vector<value32> v(values.begin(), values.begin() + c.n);
    check_against_cub(k, c.pairs ? &v : nullptr, c.descending, c.begin_bit, c.end_bit, keys_out[i],
                      c.pairs ? &values_out[i] : nullptr, 0xCD);
  }
}

TEST_CASE("device radix sort: CUDA graph capture and replay", "[sort][device]") {
  // The workspace form, captured (global capture mode: no allocation, no synchronisation) with a
  // descending pairs sort over a window and an ascending keys sort, replayed with new inputs and
  // then with the same inputs again.
  gpuprim_test::scoped_stream stream;
  const std::size_t n = 777777;
  device_vector<key32> keys_in(n), keys_out(n + guard_items), keys_out2(n + guard_items);
  device_vector<value32> values_in(n), values_out(n + guard_items);
  std::size_t bytes = 0, bytes2 = 0;
  REQUIRE_CUDA(gpuprim::radix_sort_pairs_descending(nullptr, bytes, keys_in.data(), keys_out.data(), values_in.data(),
                                                    values_out.data(), n, 3, 29, stream));
  REQUIRE_CUDA(gpuprim::radix_sort_keys(nullptr, bytes2, keys_in.data(), keys_out2.data(), n, 0, 32, stream));
  device_vector<unsigned char> temp(bytes), temp2(bytes2);

  cudaGraph_t graph = nullptr;
  REQUIRE_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const cudaError_t captured_1 = gpuprim::radix_sort_pairs_descending(
      temp.data(), bytes, keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n, 3, 29, stream);
  const cudaError_t captured_2 =
      gpuprim::radix_sort_keys(temp2.data(), bytes2, keys_in.data(), keys_out2.data(), n, 0, 32, stream);
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  REQUIRE_CUDA(captured_1);
  REQUIRE_CUDA(captured_2);
  REQUIRE_CUDA(ended);
  cudaGraphExec_t exec = nullptr;
  REQUIRE_CUDA(cudaGraphInstantiate(&exec, graph, 0));

  std::vector<key32> keys;
  std::vector<value32> values;
  for (int replay = 0; replay < 3; ++replay) {
    INFO("replay " << replay << (replay == 2 ? " (same inputs as replay 1)" : ""));
    if (replay < 2) {
      std::mt19937_64 rng = case_rng(30, n, replay);
      keys = make_keys<key32>(n, replay == 0 ? distribution::uniform : distribution::few_distinct, rng);
      values = make_values<value32>(n, rng);
      keys_in.upload(keys);
      values_in.upload(values);
    }
    keys_out.poison(0xCD);
    keys_out2.poison(0xCD);
    values_out.poison(0xCD);
    REQUIRE_CUDA(cudaGraphLaunch(exec, stream));
    REQUIRE_CUDA(cudaStreamSynchronize(stream));
    require_sync();
    check_against_cub(keys, &values, true, 3, 29, keys_out, &values_out, 0xCD);
    check_against_cub(keys, nullptr, false, 0, 32, keys_out2, nullptr, 0xCD);
  }
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
}

namespace {

/// How many 8-bit digit positions of the whole key hold more than one digit value among `keys`
/// (unsigned keys): the passes that an ascending sort of the whole key must run.
template <class Key>
int positions_that_differ(const std::vector<Key>& keys) {
  int differ = 0;
  for (int shift = 0; shift < 8 * static_cast<int>(sizeof(Key)); shift += 8) {
    const Key digit = (keys[0] >> shift) & Key(0xff);
    for (const Key k : keys) {
      if (((k >> shift) & Key(0xff)) != digit) {
        ++differ;
        break;
      }
    }
  }
  return differ;
}

/// Keys of one of four kinds, by how many digit positions differ: every one (uniform), those of
/// the low 20 bits (3), one (only bits 8-15 vary) and none (all equal).
template <class Key>
std::vector<Key> keys_of_kind(int kind, std::size_t n, std::mt19937_64& rng) {
  if (kind == 0) return make_keys<Key>(n, distribution::uniform, rng);
  if (kind == 1) return make_keys<Key>(n, distribution::low_20_bits, rng);
  if (kind == 3) return make_keys<Key>(n, distribution::all_equal, rng);
  const Key fixed = static_cast<Key>(rng()) & ~Key(0xff00);
  std::vector<Key> keys(n);
  for (Key& k : keys) k = fixed | static_cast<Key>((rng() & 0xff) << 8);
  return keys;
}

/// The pass kernels of the sort whose workspace is `temp` that ran: each of their blocks takes its
/// tile from tile_counter[slot] of the control block (part 0 of the workspace, at its start when
/// `temp` is 256-byte aligned, as cudaMalloc's memory is), which every call zeroes first.
std::vector<bool> passes_that_ran(const device_vector<unsigned char>& temp, int passes) {
  gpuprim::detail::radix_sort_counters head{};
  REQUIRE_CUDA(cudaMemcpy(&head, temp.data(), sizeof(head), cudaMemcpyDeviceToHost));
  std::vector<bool> ran(passes);
  for (int slot = 0; slot < passes; ++slot) ran[slot] = head.tile_counter[slot] != 0;
  return ran;
}

/// One sort captured into a graph and replayed with keys whose differing digit positions change from
/// replay to replay (all, 3, 1, none), checked against CUB: the pass count is chosen on the device,
/// so every pass kernel runs in every replay and the skipped ones leave at once (pass 0 copies
/// where none is kept). The `allocating` form captures its workspace's allocation and release as
/// graph nodes, so which pass kernels ran is not read back there (the workspace is gone after each
/// replay).
template <class Key, class Value>
void check_captured_pass_skipping(std::size_t n, bool allocating = false) {
  constexpr bool pairs = !std::is_same_v<Value, keys_only>;
  constexpr int passes = static_cast<int>(sizeof(Key));
  INFO("n = " << n << (pairs ? ", pairs" : ", keys") << ", " << 8 * sizeof(Key) << "-bit keys"
              << (allocating ? ", allocating form" : "") << " (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")");
  const gpuprim_test::scoped_stream stream;
  device_vector<Key> keys_in(n), keys_out(n + guard_items);
  device_vector<Value> values_in(pairs ? n : 0), values_out(pairs ? n + guard_items : 0);
  constexpr int bits = 8 * static_cast<int>(sizeof(Key));
  auto sort = [&](void* temp, std::size_t& bytes) {
    if constexpr (pairs) {
      if (allocating) {
        return gpuprim::radix_sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n, 0,
                                         bits, stream);
      }
      return gpuprim::radix_sort_pairs(temp, bytes, keys_in.data(), keys_out.data(), values_in.data(),
                                       values_out.data(), n, 0, bits, stream);
    } else {
      if (allocating) return gpuprim::radix_sort_keys(keys_in.data(), keys_out.data(), n, 0, bits, stream);
      return gpuprim::radix_sort_keys(temp, bytes, keys_in.data(), keys_out.data(), n, 0, bits, stream);
    }
  };
  std::size_t bytes = 0;
  if (!allocating) REQUIRE_CUDA(sort(nullptr, bytes));
  device_vector<unsigned char> temp(bytes);

  cudaGraph_t graph = nullptr;
  REQUIRE_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const cudaError_t captured = sort(temp.data(), bytes);
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  REQUIRE_CUDA(captured);
  REQUIRE_CUDA(ended);
  std::size_t count = 0;
  REQUIRE_CUDA(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  REQUIRE_CUDA(cudaGraphGetNodes(graph, nodes.data(), &count));
  int conditionals = 0;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    REQUIRE_CUDA(cudaGraphNodeGetType(node, &type));
    conditionals += type == cudaGraphNodeTypeConditional ? 1 : 0;
  }
  CHECK(conditionals == 0);
  cudaGraphExec_t exec = nullptr;
  REQUIRE_CUDA(cudaGraphInstantiate(&exec, graph, 0));

  for (int kind : {0, 1, 2, 3, 0}) {
    std::mt19937_64 rng = case_rng(50, n, kind);
    const std::vector<Key> keys = keys_of_kind<Key>(kind, n, rng);
    std::vector<Value> values;
    if constexpr (pairs) values = make_values<Value>(n, rng);
    const int kept = positions_that_differ(keys);
    INFO("replay with " << kept << " of " << passes << " digit positions differing");
    keys_in.upload(keys);
    keys_out.poison(0xCD);
    if constexpr (pairs) {
      values_in.upload(values);
      values_out.poison(0xCD);
    }
    REQUIRE_CUDA(cudaGraphLaunch(exec, stream));
    REQUIRE_CUDA(cudaStreamSynchronize(stream));
    require_sync();
    std::vector<Key> expected_keys;
    std::vector<Value> expected_values;
    cub_reference<Key, Value>(keys, values, false, 0, bits, expected_keys, expected_values);
    const auto got_keys = keys_out.download(0, n + guard_items);
    check_bitwise_equal("keys", expected_keys.data(), got_keys.data(), n);
    CHECK(count_touched(got_keys, n, 0xCD) == 0);
    if constexpr (pairs) {
      const auto got_values = values_out.download(0, n + guard_items);
      check_bitwise_equal("values", expected_values.data(), got_values.data(), n);
      CHECK(count_touched(got_values, n, 0xCD) == 0);
    }
    if (allocating) continue;
    const std::vector<bool> ran = passes_that_ran(temp, passes);
    for (int slot = 0; slot < passes; ++slot) {
      INFO("pass kernel " << slot);
      CHECK(ran[slot]);
    }
  }
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
}

}  // namespace

TEST_CASE("device radix sort: a captured sort replays with pass skipping", "[sort][device]") {
  // Sizes past the fused single-launch sort (its passes are not launches): one-wave and many-wave
  // grids. Small mode (the sanitizer runs): uint32 keys and pairs.
  const bool small = gpuprim_test::small_mode();
  check_captured_pass_skipping<std::uint32_t, keys_only>(300007);
  check_captured_pass_skipping<std::uint32_t, std::uint32_t>(300007);
  if (!small) {
    check_captured_pass_skipping<std::uint64_t, keys_only>(300007);
    check_captured_pass_skipping<std::uint32_t, keys_only>(5000011);
    check_captured_pass_skipping<std::uint64_t, std::uint32_t>(5000011);
  }
  // The allocating form captures its workspace as an allocation node before the sort and a free
  // node after it.
  check_captured_pass_skipping<std::uint32_t, keys_only>(300007, true);
  if (!small) check_captured_pass_skipping<std::uint64_t, std::uint32_t>(5000011, true);
}

TEST_CASE("device radix sort: two streams at once", "[sort][device]") {
  gpuprim_test::scoped_stream s1, s2;
  const std::size_t n1 = 600011, n2 = 300007;
  std::mt19937_64 rng = case_rng(40, n1, n2);
  const auto k1 = make_keys<key32>(n1, distribution::uniform, rng);
  const auto k2 = make_keys<key32>(n2, distribution::sparse_bits, rng);
  const auto v1 = make_values<value32>(n1, rng);
  device_vector<key32> in1(k1), in2(k2), out1(n1 + guard_items), out2(n2 + guard_items);
  device_vector<value32> vin1(v1), vout1(n1 + guard_items);
  out1.poison(0xCD);
  out2.poison(0xCD);
  vout1.poison(0xCD);
  for (int r = 0; r < 3; ++r) {  // the two streams' kernels interleave on the GPU
    REQUIRE_CUDA(gpuprim::radix_sort_pairs(in1.data(), out1.data(), vin1.data(), vout1.data(), n1, 0, 32, s1));
    REQUIRE_CUDA(gpuprim::radix_sort_keys_descending(in2.data(), out2.data(), n2, 0, 32, s2));
  }
  REQUIRE_CUDA(cudaStreamSynchronize(s1));
  REQUIRE_CUDA(cudaStreamSynchronize(s2));
  require_sync();
  check_against_cub(k1, &v1, false, 0, 32, out1, &vout1, 0xCD);
  check_against_cub(k2, nullptr, true, 0, 32, out2, nullptr, 0xCD);
}

TEST_CASE("device radix sort: misaligned arrays and workspace", "[sort][device]") {
  for (std::size_t n : {std::size_t(5), std::size_t(4097), std::size_t(65537)}) {
    std::mt19937_64 rng = case_rng(50, n);
    const auto keys32 = make_keys<key32>(n, distribution::uniform, rng);
    const auto values32 = make_values<value32>(n, rng);
    const auto keys8 = make_keys<std::uint8_t>(n, distribution::uniform, rng);
    for (std::size_t offset : {1, 2, 3}) {
      sort_call c;
      c.offset = offset;
      c.workspace_skew = offset * 5;  // 5, 10, 15 bytes
      c.descending = offset == 2;
      check_sort<key32, value32>(keys32, values32, c);
      check_sort<key32>(keys32, {}, c);
      c.offset = offset * 5;  // uint8 keys: offsets 5, 10, 15 bytes
      check_sort<std::uint8_t>(keys8, {}, c);
    }
  }
}

TEST_CASE("device radix sort: n == 0 writes nothing", "[sort][device]") {
  device_vector<key32> keys_in(1), out(guard_items);
  device_vector<value32> values_in(1);
  device_vector<value32> values_out(guard_items);
  out.poison(0xCD);
  values_out.poison(0xCD);
  std::size_t needed = 0;
  REQUIRE_CUDA(gpuprim::radix_sort_pairs(nullptr, needed, keys_in.data(), out.data(), values_in.data(),
                                         values_out.data(), 0));
  REQUIRE(needed >= 1);
  device_vector<unsigned char> temp(needed);
  const key32* null_keys = nullptr;
  const value32* null_values = nullptr;
  gpuprim_test::scoped_stream stream;
  for (bool null_pointers : {false, true}) {
    INFO((null_pointers ? "null pointers" : "valid pointers"));
    const key32* in = null_pointers ? null_keys : keys_in.data();
    key32* o = null_pointers ? nullptr : out.data();
    const value32* vin = null_pointers ? null_values : values_in.data();
    value32* vo = null_pointers ? nullptr : values_out.data();
    std::size_t bytes = 0;
    CHECK(gpuprim::radix_sort_keys(nullptr, bytes, in, o, 0) == cudaSuccess);
    CHECK(bytes >= 1);
    bytes = needed;
    CHECK(gpuprim::radix_sort_keys(temp.data(), bytes, in, o, 0) == cudaSuccess);
    CHECK(gpuprim::radix_sort_keys_descending(temp.data(), bytes, in, o, 0, 0, 32, stream) == cudaSuccess);
    CHECK(gpuprim::radix_sort_pairs(temp.data(), bytes, in, o, vin, vo, 0, 5, 5) == cudaSuccess);
    CHECK(gpuprim::radix_sort_pairs_descending(temp.data(), bytes, in, o, vin, vo, 0) == cudaSuccess);
    CHECK(gpuprim::radix_sort_keys(in, o, 0) == cudaSuccess);
    CHECK(gpuprim::radix_sort_keys_descending(in, o, 0, 0, 32, stream) == cudaSuccess);
    CHECK(gpuprim::radix_sort_pairs(in, o, vin, vo, 0) == cudaSuccess);
    CHECK(gpuprim::radix_sort_pairs_descending(in, o, vin, vo, 0, 0, 0, stream) == cudaSuccess);
  }
  REQUIRE_CUDA(cudaStreamSynchronize(stream));
  require_sync();
  CHECK(count_touched(out.download(), 0, 0xCD) == 0);
  CHECK(count_touched(values_out.download(), 0, 0xCD) == 0);
}

TEST_CASE("device radix sort: an empty bit window is a stable copy", "[sort][device]") {
  for (std::size_t n : {std::size_t(1), std::size_t(4096), std::size_t(100003)}) {
    std::mt19937_64 rng = case_rng(60, n);
    const auto keys = make_keys<key32>(n, distribution::uniform, rng);
    const auto values = make_values<value32>(n, rng);
    for (int bit : {0, 13, 32}) {
      for (bool descending : {false, true}) {
        INFO("n = " << n << ", bits [" << bit << ", " << bit << ")" << (descending ? ", descending" : ""));
        device_vector<key32> in(keys), out(n + guard_items);
        device_vector<value32> vin(values), vout(n + guard_items);
        out.poison(0xCD);
        vout.poison(0xCD);
        std::size_t bytes = 0;
        REQUIRE_CUDA(gpuprim::radix_sort_pairs(nullptr, bytes, in.data(), out.data(), vin.data(), vout.data(), n,
                                               bit, bit));
        device_vector<unsigned char> temp(bytes);
        if (descending) {
          REQUIRE_CUDA(gpuprim::radix_sort_pairs_descending(temp.data(), bytes, in.data(), out.data(), vin.data(),
                                                            vout.data(), n, bit, bit));
        } else {
          REQUIRE_CUDA(gpuprim::radix_sort_pairs(in.data(), out.data(), vin.data(), vout.data(), n, bit, bit));
        }
        require_sync();
        const auto got = out.download(0, n + guard_items);
        const auto got_values = vout.download(0, n + guard_items);
        check_bitwise_equal("keys", keys.data(), got.data(), n);
        check_bitwise_equal("values", values.data(), got_values.data(), n);
        CHECK(count_touched(got, n, 0xCD) == 0);
        CHECK(count_touched(got_values, n, 0xCD) == 0);
      }
    }
  }
}
