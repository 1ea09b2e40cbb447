// reduce over floats with an int init: T (from d_out) and Init (from init) deduced differently.
// expect: init and *d_out must have the same type
#include <gpuprim/reduce.cuh>

cudaError_t bad(void* temp, std::size_t& bytes, const float* in, float* out, std::size_t n) {
  return gpuprim::reduce(temp, bytes, in, out, n, 0, gpuprim::maximum{});
}
