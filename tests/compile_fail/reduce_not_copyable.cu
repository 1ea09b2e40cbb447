// reduce into an accumulator type that cannot be copied.
// expect: the accumulator type (of init and *d_out) must be copyable
#include <gpuprim/reduce.cuh>

struct pinned {
  int v = 0;
  pinned() = default;
  pinned(const pinned&) = delete;
  pinned& operator=(const pinned&) = delete;
  __host__ __device__ pinned(int x) : v(x) {}
};
struct add {
  __host__ __device__ pinned operator()(const pinned& a, const pinned& b) const { return pinned(a.v + b.v); }
};

cudaError_t bad(void* temp, std::size_t& bytes, const pinned* in, pinned* out, std::size_t n) {
  return gpuprim::reduce(temp, bytes, in, out, n, pinned{}, add{});
}
