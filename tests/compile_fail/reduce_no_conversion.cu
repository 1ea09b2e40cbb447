// reduce of items that do not convert to the accumulator type.
// expect: the items (the input iterator's value type) must convert to the accumulator
#include <gpuprim/reduce.cuh>

struct point {
  float x, y;
};

cudaError_t bad(void* temp, std::size_t& bytes, const point* in, float* out, std::size_t n) {
  return gpuprim::reduce(temp, bytes, in, out, n, 0.0f, gpuprim::plus{});
}
