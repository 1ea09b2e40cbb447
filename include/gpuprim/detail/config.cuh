// Configuration macros: qualifiers, the architecture-tagged kernel namespace, debug switches.
#pragma once

#include <cuda_runtime.h>

#define GPUPRIM_VERSION_MAJOR 0
#define GPUPRIM_VERSION_MINOR 1
#define GPUPRIM_VERSION_PATCH 0

#define GPUPRIM_HOST_DEVICE __host__ __device__ __forceinline__
#define GPUPRIM_DEVICE __device__ __forceinline__

#define GPUPRIM_PP_CAT_(a, b) a##b
#define GPUPRIM_PP_CAT(a, b) GPUPRIM_PP_CAT_(a, b)
#define GPUPRIM_PP_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, ...) N
#define GPUPRIM_PP_NARGS(...) \
  GPUPRIM_PP_NARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define GPUPRIM_ARCH_NS_1(a) sm_##a
#define GPUPRIM_ARCH_NS_2(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_1(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_3(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_2(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_4(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_3(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_5(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_4(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_6(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_5(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_7(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_6(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_8(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_7(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_9(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_8(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_10(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_9(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_11(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_10(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_12(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_11(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_13(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_12(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_14(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_13(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_15(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_14(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_16(a, ...) GPUPRIM_PP_CAT(sm_##a##_, GPUPRIM_ARCH_NS_15(__VA_ARGS__))
#define GPUPRIM_ARCH_NS_(...) GPUPRIM_PP_CAT(GPUPRIM_ARCH_NS_, GPUPRIM_PP_NARGS(__VA_ARGS__))(__VA_ARGS__)

/// Everything in gpuprim lives in `gpuprim::GPUPRIM_ARCH_NAMESPACE`, an inline namespace named
/// after the architectures the translation unit is compiled for (nvcc's `__CUDA_ARCH_LIST__`),
/// as CUB does: objects built for different architectures never merge each other's kernels, or
/// the host functions that launch them, at link time.
#if defined(__CUDA_ARCH_LIST__)
#define GPUPRIM_ARCH_NAMESPACE GPUPRIM_PP_CAT(arch_, GPUPRIM_ARCH_NS_(__CUDA_ARCH_LIST__))
#else
#define GPUPRIM_ARCH_NAMESPACE arch_generic
#endif

#define GPUPRIM_NAMESPACE_BEGIN \
  namespace gpuprim {           \
  inline namespace GPUPRIM_ARCH_NAMESPACE {
#define GPUPRIM_NAMESPACE_END \
  }                           \
  }

// The most threads one SM of the architecture being compiled holds (sm_75: 1024; sm_86, sm_87,
// sm_89 and sm_120: 1536; the others from sm_70: 2048), so that a kernel's
// __launch_bounds__ never asks for more resident blocks than fit (ptxas warns and ignores it).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define GPUPRIM_ARCH_MAX_THREADS_PER_SM 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || \
                                 __CUDA_ARCH__ == 1200 || __CUDA_ARCH__ == 1210)
#define GPUPRIM_ARCH_MAX_THREADS_PER_SM 1536
#else
#define GPUPRIM_ARCH_MAX_THREADS_PER_SM 2048
#endif

// Programmatic dependent launch (griddepcontrol) exists from sm_90 on.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GPUPRIM_HAS_PDL 1
#else
#define GPUPRIM_HAS_PDL 0
#endif
