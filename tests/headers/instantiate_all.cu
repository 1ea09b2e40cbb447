// Build-only portability check (compiled for sm_75 with warnings as errors, see CMakeLists.txt):
// the device-wide algorithms instantiated for a few types, so that their kernels reach ptxas for
// the oldest supported architecture (launch bounds, shared memory, intrinsics).
#include <gpuprim/radix_sort.cuh>
#include <gpuprim/reduce.cuh>
#include <gpuprim/scan.cuh>

#include <cstddef>
#include <cstdint>

cudaError_t gpuprim_instantiate_all(const int* i32, int* i32_out, const double* f64, double* f64_out,
                                    const std::uint64_t* u64, std::uint64_t* u64_out, const float* f32,
                                    float* f32_out, std::size_t n) {
  cudaError_t e = gpuprim::sum(i32, i32_out, n);
  if (e == cudaSuccess) e = gpuprim::sum(f64, f64_out, n);
  if (e == cudaSuccess) e = gpuprim::exclusive_sum(i32, i32_out, n);
  if (e == cudaSuccess) e = gpuprim::inclusive_sum(f64, f64_out, n);
  if (e == cudaSuccess) e = gpuprim::radix_sort_keys(i32, i32_out, n);
  if (e == cudaSuccess) e = gpuprim::radix_sort_keys_descending(f32, f32_out, n);
  if (e == cudaSuccess) e = gpuprim::radix_sort_keys(u64, u64_out, n);
  if (e == cudaSuccess) e = gpuprim::radix_sort_pairs(u64, u64_out, i32, i32_out, n);
  if (e == cudaSuccess) e = gpuprim::radix_sort_pairs(f32, f32_out, f64, f64_out, n);
  if (e == cudaSuccess) e = gpuprim::exclusive_sum_by_key(i32, f64, f64_out, n);
  if (e == cudaSuccess) e = gpuprim::segmented_sum(f32, f32_out, n, i32, i32 + 1);
  if (e == cudaSuccess) e = gpuprim::segmented_radix_sort_keys(f32, f32_out, n, n, i32, i32 + 1);
  if (e == cudaSuccess) e = gpuprim::segmented_radix_sort_pairs_descending(u64, u64_out, f64, f64_out, n, n, i32, i32 + 1);
  gpuprim::double_buffer<float> f32_buffers(f32_out, f32_out + n);
  gpuprim::double_buffer<std::uint64_t> u64_buffers(u64_out, u64_out + n);
  if (e == cudaSuccess) e = gpuprim::radix_sort_pairs_descending(f32_buffers, u64_buffers, n);
  if (e == cudaSuccess) e = gpuprim::radix_argsort(f32, nullptr, u64_out, n);
  if (e == cudaSuccess) e = gpuprim::reduce_by_key(i32, i32_out, f32, f32_out, i32_out, n, gpuprim::plus{});
  return e;
}
