# ctest driver (cmake -P) for the consumer project in this folder.
#   MODE=find_package:     install the parent build to a temporary prefix, then build
#                          the consumer against it twice: whole-program and -rdc=true.
#   MODE=add_subdirectory: build the consumer with add_subdirectory(<gpuprim source>).
# The consumer binary exits 77 without a GPU; that counts as a pass here because
# what this test checks is the build (printed as "run skipped: no GPU"), unless
# the environment variable GPUPRIM_REQUIRE_GPU is set (not "0").
cmake_minimum_required(VERSION 3.24...3.31)

foreach(var MODE GPUPRIM_SOURCE_DIR GPUPRIM_BINARY_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# Settings shared by every consumer configure, as an initial cache (keeps lists intact).
string(REPLACE "," ";" archs "${CUDA_ARCHS}")
set(init "${WORK_DIR}/init-cache.cmake")
file(WRITE "${init}" "set(CMAKE_CUDA_ARCHITECTURES \"${archs}\" CACHE STRING \"\")\n")
foreach(pair
    "CMAKE_BUILD_TYPE;${BUILD_TYPE}"
    "CMAKE_MAKE_PROGRAM;${MAKE_PROGRAM}"
    "CMAKE_CUDA_COMPILER;${CUDA_COMPILER}"
    "CMAKE_CUDA_HOST_COMPILER;${CUDA_HOST_COMPILER}"
    "CMAKE_CXX_COMPILER;${CXX_COMPILER}")
  list(GET pair 0 name)
  list(LENGTH pair len)
  if(len GREATER 1)
    list(GET pair 1 value)
    file(APPEND "${init}" "set(${name} \"${value}\" CACHE STRING \"\")\n")
  endif()
endforeach()

set(config_args)
if(NOT "${BUILD_TYPE}" STREQUAL "")
  set(config_args --config "${BUILD_TYPE}")
endif()

function(step what)
  message(STATUS "consumer_${MODE}: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer_${MODE}: ${what} failed (${rc})")
  endif()
endfunction()

# Configure, build and run one consumer build; extra arguments go to configure.
function(consumer_build label)
  set(dir "${WORK_DIR}/build-${label}")
  step("configure (${label})" ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${dir}"
       -G "${GENERATOR}" -C "${init}" ${ARGN})
  step("build (${label})" ${CMAKE_COMMAND} --build "${dir}" ${config_args})
  # gpuprim links no runtime of its own: the consumer keeps CMake's default, the static runtime.
  find_program(readelf readelf)
  if(readelf)
    execute_process(COMMAND "${readelf}" -d "${dir}/bin/gpuprim_consumer" OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "consumer_${MODE}: readelf -d failed (${rc})")
    endif()
    if(dynamic MATCHES "libcudart\\.so")
      message(FATAL_ERROR "consumer_${MODE}: the consumer (${label}) links the shared CUDA runtime:\n${dynamic}")
    endif()
    message(STATUS "consumer_${MODE}: (${label}) links the static CUDA runtime (no libcudart.so needed)")
  else()
    message(STATUS "consumer_${MODE}: readelf not found: the runtime check is skipped")
  endif()
  execute_process(COMMAND "${dir}/bin/gpuprim_consumer" RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    message(STATUS "consumer_${MODE}: run (${label}) passed")
  elseif(rc EQUAL 77 AND NOT "$ENV{GPUPRIM_REQUIRE_GPU}" STREQUAL "" AND NOT "$ENV{GPUPRIM_REQUIRE_GPU}" STREQUAL "0")
    message(FATAL_ERROR "consumer_${MODE}: run (${label}) found no GPU but GPUPRIM_REQUIRE_GPU is set")
  elseif(rc EQUAL 77)
    message(STATUS "consumer_${MODE}: run (${label}) skipped: no GPU (the build passed)")
  else()
    message(FATAL_ERROR "consumer_${MODE}: run (${label}) failed (${rc})")
  endif()
endfunction()

if(MODE STREQUAL "find_package")
  set(prefix "${WORK_DIR}/prefix")
  step("install to ${prefix}" ${CMAKE_COMMAND} --install "${GPUPRIM_BINARY_DIR}"
       --prefix "${prefix}" --component gpuprim ${config_args})
  if(NOT EXISTS "${prefix}/include/gpuprim/LICENSE")
    message(FATAL_ERROR "consumer_${MODE}: the install holds no include/gpuprim/LICENSE")
  endif()
  consumer_build(whole -DCONSUMER_MODE=find_package "-DCMAKE_PREFIX_PATH=${prefix}"
                 -DCONSUMER_EXPECT_PREFIX=${prefix} -DCMAKE_CUDA_SEPARABLE_COMPILATION=OFF)
  consumer_build(rdc -DCONSUMER_MODE=find_package "-DCMAKE_PREFIX_PATH=${prefix}"
                 -DCONSUMER_EXPECT_PREFIX=${prefix} -DCMAKE_CUDA_SEPARABLE_COMPILATION=ON)
elseif(MODE STREQUAL "add_subdirectory")
  consumer_build(subdir -DCONSUMER_MODE=add_subdirectory
                 "-DGPUPRIM_SOURCE_DIR=${GPUPRIM_SOURCE_DIR}")
else()
  message(FATAL_ERROR "run_consumer.cmake: unknown MODE '${MODE}'")
endif()
