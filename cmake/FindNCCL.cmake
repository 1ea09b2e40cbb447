# FindNCCL: NCCL's header and library, for gpuprim::dist.
# Looks under NCCL_ROOT (CMake variable or environment), then beside the CUDA toolkit (the
# toolkit's include/ and lib/, lib64/: the development machine's NCCL ships there), then in the
# system paths (/usr/include, /usr/lib/x86_64-linux-gnu: the GPU machines' packages).
# Defines NCCL_FOUND, NCCL_INCLUDE_DIR, NCCL_LIBRARY, NCCL_VERSION and the imported target
# NCCL::NCCL.
include_guard(GLOBAL)

set(_nccl_hints)
foreach(root IN ITEMS "${NCCL_ROOT}" "$ENV{NCCL_ROOT}")
  if(root)
    list(APPEND _nccl_hints "${root}")
  endif()
endforeach()
if(NOT DEFINED CUDAToolkit_LIBRARY_ROOT)
  find_package(CUDAToolkit QUIET)
endif()
foreach(dir IN ITEMS "${CUDAToolkit_LIBRARY_ROOT}" "${CUDAToolkit_TARGET_DIR}")
  if(dir)
    list(APPEND _nccl_hints "${dir}")
  endif()
endforeach()

find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl HINTS ${_nccl_hints} PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  foreach(part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${part} +([0-9]+)" _match "${_nccl_version_lines}")
    set(_nccl_${part} "${CMAKE_MATCH_1}")
  endforeach()
  set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND AND NOT TARGET NCCL::NCCL)
  add_library(NCCL::NCCL UNKNOWN IMPORTED)
  set_target_properties(NCCL::NCCL PROPERTIES
    IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
