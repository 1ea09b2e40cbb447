// The Catch2 runner, compiled with the host compiler. Built three ways (tests/CMakeLists.txt):
//   GPUPRIM_TEST_SESSION: Catch2's runner (slow to compile: 15 s for v2), built once;
//   the two mains, tiny: the GPU one (GPUPRIM_TEST_NEEDS_GPU) exits 77 (ctest: skipped)
//   when no CUDA GPU is usable, or fails when GPUPRIM_REQUIRE_GPU is set (not "0").
#if defined(GPUPRIM_TEST_SESSION)

#  if !defined(GPUPRIM_CATCH2_VERSION_MAJOR)  // as in catch.hpp
#    if __has_include(<catch2/catch_test_macros.hpp>)
#      define GPUPRIM_CATCH2_VERSION_MAJOR 3
#    else
#      define GPUPRIM_CATCH2_VERSION_MAJOR 2
#    endif
#  endif
#  if GPUPRIM_CATCH2_VERSION_MAJOR >= 3
#    include <catch2/catch_session.hpp>
#  else
#    define CATCH_CONFIG_RUNNER
#    include <catch2/catch.hpp>
#  endif

int gpuprim_run_catch_session(int argc, char** argv) { return Catch::Session().run(argc, argv); }

#else  // a main

#  include <cstdio>
#  include <cstdlib>
#  include <cstring>

int gpuprim_run_catch_session(int argc, char** argv);

#  if defined(GPUPRIM_TEST_NEEDS_GPU) && GPUPRIM_TEST_NEEDS_GPU
#    include <cuda_runtime_api.h>

namespace {

// Listing and help need no GPU (catch_discover_tests lists at build time).
bool only_lists(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strncmp(a, "--list", 6) == 0 || std::strcmp(a, "-l") == 0 ||
        std::strcmp(a, "-h") == 0 || std::strcmp(a, "-?") == 0 || std::strcmp(a, "--help") == 0) {
      return true;
    }
  }
  return false;
}

// Returns nullptr when a device is usable, else the reason it is not.
const char* no_gpu_reason() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return cudaGetErrorString(err);
  if (count == 0) return "no CUDA devices";
  err = cudaFree(nullptr);  // creates the context: catches unusable devices
  if (err != cudaSuccess) return cudaGetErrorString(err);
  return nullptr;
}

}  // namespace
#  endif

int main(int argc, char** argv) {
#  if defined(GPUPRIM_TEST_NEEDS_GPU) && GPUPRIM_TEST_NEEDS_GPU
  if (!only_lists(argc, argv)) {
    if (const char* reason = no_gpu_reason()) {
      const char* require = std::getenv("GPUPRIM_REQUIRE_GPU");
      if (require != nullptr && *require != '\0' && std::strcmp(require, "0") != 0) {
        std::fprintf(stderr, "error: GPUPRIM_REQUIRE_GPU=%s but no usable CUDA GPU (%s)\n",
                     require, reason);
        return 1;
      }
      std::printf("no usable CUDA GPU (%s): skipping\n", reason);
      return 77;
    }
  }
#  endif
  return gpuprim_run_catch_session(argc, argv);
}

#endif
