// Tests gpuprim::block_exchange: blocked <-> striped and blocked <-> warp-striped (granules of
// 1 item and of 16 bytes) for several types, block sizes and items per thread, in place and not,
// twice in a row through one temp_storage.
#include <gpuprim/block/block_exchange.cuh>

#include <cstdint>
#include <vector>

#include "support/catch.hpp"
#include "support/test_util.cuh"

namespace {

using namespace gpuprim_test;

enum class arrangement : int { blocked_to_striped, striped_to_blocked, blocked_to_warp_striped, warp_striped_to_blocked };

/// Tile index of item i of thread t in the blocked, striped or warp-striped (granule G) arrangement.
template <int B, int N, int G>
__host__ __device__ int blocked_index(int t, int i) {
  return t * N + i;
}
template <int B, int N, int G>
__host__ __device__ int striped_index(int t, int i) {
  return i * B + t;
}
template <int B, int N, int G>
__host__ __device__ int warp_striped_index(int t, int i) {
  return t / 32 * 32 * N + ((i / G) * 32 + t % 32) * G + i % G;
}

/// Each thread holds the values of its items' tile indices in the source arrangement, exchanges
/// them, and stores them at its items' tile indices in the target arrangement: out[k] must be
/// value(k). Done twice (in place, then into a second array) through one temp_storage.
template <class T, int B, int N, int G>
__global__ void __launch_bounds__(B) exchange_kernel(const T* values, T* out_in_place, T* out_copy, arrangement a) {
  using exchange_t = gpuprim::block_exchange<T, B, N>;
  __shared__ typename exchange_t::temp_storage storage;
  const int t = threadIdx.x;
  const T* tile_values = values + std::size_t(blockIdx.x) * B * N;
  auto source = [&](int i) {
    switch (a) {
      case arrangement::blocked_to_striped:
      case arrangement::blocked_to_warp_striped: return blocked_index<B, N, G>(t, i);
      case arrangement::striped_to_blocked: return striped_index<B, N, G>(t, i);
      default: return warp_striped_index<B, N, G>(t, i);
    }
  };
  auto target = [&](int i) {
    switch (a) {
      case arrangement::blocked_to_striped: return striped_index<B, N, G>(t, i);
      case arrangement::blocked_to_warp_striped: return warp_striped_index<B, N, G>(t, i);
      default: return blocked_index<B, N, G>(t, i);
    }
  };
  auto exchange = [&](const T (&in)[N], T (&out)[N]) {
    exchange_t ex(storage);
    switch (a) {
      case arrangement::blocked_to_striped: ex.blocked_to_striped(in, out); break;
      case arrangement::striped_to_blocked: ex.striped_to_blocked(in, out); break;
      case arrangement::blocked_to_warp_striped: ex.template blocked_to_warp_striped<G>(in, out); break;
      default: ex.template warp_striped_to_blocked<G>(in, out); break;
    }
  };

  T items[N], copy[N];
  for (int i = 0; i < N; ++i) items[i] = tile_values[source(i)];
  exchange(items, copy);
  for (int i = 0; i < N; ++i) out_copy[std::size_t(blockIdx.x) * B * N + target(i)] = copy[i];
  __syncthreads();  // the storage is reused
  exchange(items, items);
  for (int i = 0; i < N; ++i) out_in_place[std::size_t(blockIdx.x) * B * N + target(i)] = items[i];
}

template <class T, int B, int N, int G>
void run_case() {
  INFO("block threads " << B << ", items per thread " << N << ", granule " << G << " item(s) of " << sizeof(T)
                        << " bytes");
  constexpr int blocks = 2;
  const std::size_t items = std::size_t(blocks) * B * N;
  // Distinct values (as far as T allows), so a misplaced item shows.
  std::vector<T> values(items);
  for (std::size_t k = 0; k < items; ++k) values[k] = value_traits<T>::from_int(static_cast<long long>(k * 7 + 1));
  device_vector<T> d_values(values), in_place(items), copy(items);
  for (arrangement a : {arrangement::blocked_to_striped, arrangement::striped_to_blocked,
                        arrangement::blocked_to_warp_striped, arrangement::warp_striped_to_blocked}) {
    INFO("arrangement " << int(a));
    in_place.poison();
    copy.poison();
    exchange_kernel<T, B, N, G><<<blocks, B>>>(d_values.data(), in_place.data(), copy.data(), a);
    require_sync();
    check_equal_vectors(values, in_place.download());
    check_equal_vectors(values, copy.download());
  }
}

}  // namespace

TEST_CASE("block_exchange: every arrangement", "[block][block_exchange][scan]") {
  SECTION("int, 1 item") { run_case<int, 64, 1, 1>(); }
  SECTION("int, 16 items, 4-item granules (16 bytes)") { run_case<int, 256, 16, 4>(); }
  SECTION("int, 12 items, single items") { run_case<int, 96, 12, 1>(); }
  SECTION("int, 8 items, 4-item granules, 1024 threads") { run_case<int, 1024, 8, 4>(); }
  SECTION("uint8, 16 items, 16-item granules") { run_case<std::uint8_t, 128, 16, 16>(); }
  SECTION("uint8, 4 items, single items") { run_case<std::uint8_t, 32, 4, 1>(); }
  SECTION("int16, 8 items, 8-item granules") { run_case<std::int16_t, 224, 8, 8>(); }
  SECTION("double, 6 items, 2-item granules") { run_case<double, 96, 6, 2>(); }
  SECTION("double, 3 items, single items") { run_case<double, 64, 3, 1>(); }
  SECTION("12-byte struct, 5 items") { run_case<triple, 128, 5, 1>(); }
}
