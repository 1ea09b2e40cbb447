# Test and benchmark dependencies: an installed Catch2 (v2 or v3) and Google
# Benchmark first; otherwise FetchContent (pinned versions) when allowed;
# otherwise the tests/benchmarks are switched off with a warning.
include_guard(GLOBAL)

if(FETCHCONTENT_FULLY_DISCONNECTED)
  set(_gpuprim_fetch_default OFF)
else()
  set(_gpuprim_fetch_default ON)
endif()
option(GPUPRIM_FETCH_DEPENDENCIES
       "Download Catch2/Google Benchmark with FetchContent when they are not installed"
       ${_gpuprim_fetch_default})

if(GPUPRIM_BUILD_TESTS)
  find_package(Catch2 QUIET)
  if(Catch2_FOUND)
    set(GPUPRIM_CATCH2_VERSION_MAJOR ${Catch2_VERSION_MAJOR})
    message(STATUS "gpuprim: using installed Catch2 ${Catch2_VERSION}")
  elseif(GPUPRIM_FETCH_DEPENDENCIES)
    message(STATUS "gpuprim: Catch2 not found, fetching v3.4.0")
    include(FetchContent)
    FetchContent_Declare(Catch2
      GIT_REPOSITORY https://github.com/catchorg/Catch2.git
      GIT_TAG v3.4.0
      GIT_SHALLOW TRUE)
    FetchContent_MakeAvailable(Catch2)
    set(GPUPRIM_CATCH2_VERSION_MAJOR 3)
  else()
    message(WARNING "gpuprim: Catch2 not found and GPUPRIM_FETCH_DEPENDENCIES is OFF: tests disabled")
    set(GPUPRIM_BUILD_TESTS OFF)
  endif()
endif()

if(GPUPRIM_BUILD_BENCHMARKS AND EXISTS "${PROJECT_SOURCE_DIR}/benchmarks/CMakeLists.txt")
  find_package(benchmark QUIET)
  if(benchmark_FOUND)
    message(STATUS "gpuprim: using installed Google Benchmark ${benchmark_VERSION}")
  elseif(GPUPRIM_FETCH_DEPENDENCIES)
    message(STATUS "gpuprim: Google Benchmark not found, fetching v1.8.3")
    set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
    set(BENCHMARK_ENABLE_GTEST_TESTS OFF CACHE BOOL "" FORCE)
    set(BENCHMARK_ENABLE_INSTALL OFF CACHE BOOL "" FORCE)
    set(BENCHMARK_ENABLE_WERROR OFF CACHE BOOL "" FORCE)
    include(FetchContent)
    FetchContent_Declare(benchmark
      GIT_REPOSITORY https://github.com/google/benchmark.git
      GIT_TAG v1.8.3
      GIT_SHALLOW TRUE)
    FetchContent_MakeAvailable(benchmark)
  else()
    message(WARNING "gpuprim: Google Benchmark not found and GPUPRIM_FETCH_DEPENDENCIES is OFF: benchmarks disabled")
    set(GPUPRIM_BUILD_BENCHMARKS OFF)
  endif()
endif()
