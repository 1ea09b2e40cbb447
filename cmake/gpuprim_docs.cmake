# The API reference: Doxygen over the public headers' `///` comments (docs/Doxyfile.in),
# built by the target gpuprim_docs into <build>/docs/api/html. Any Doxygen warning fails the
# build (WARN_AS_ERROR = FAIL_ON_WARNINGS). Part of ALL when GPUPRIM_BUILD_DOCS is ON (the
# default for the top-level project) and Doxygen 1.9.1 or newer is found; otherwise skipped.
include_guard(GLOBAL)

option(GPUPRIM_BUILD_DOCS "Build gpuprim's API reference with Doxygen (target gpuprim_docs)"
       ${PROJECT_IS_TOP_LEVEL})

if(GPUPRIM_BUILD_DOCS)
  find_package(Doxygen QUIET)
  if(NOT TARGET Doxygen::doxygen)
    message(STATUS "gpuprim: Doxygen not found: the API reference (gpuprim_docs) is not built")
  elseif(DOXYGEN_VERSION VERSION_LESS 1.9.1)
    message(STATUS "gpuprim: Doxygen ${DOXYGEN_VERSION} is older than 1.9.1 (FAIL_ON_WARNINGS): "
                   "the API reference (gpuprim_docs) is not built")
  else()
    message(STATUS "gpuprim: API reference with Doxygen ${DOXYGEN_VERSION} (target gpuprim_docs)")
    set(GPUPRIM_DOCS_OUTPUT_DIR "${PROJECT_BINARY_DIR}/docs/api")
    configure_file("${PROJECT_SOURCE_DIR}/docs/Doxyfile.in" "${PROJECT_BINARY_DIR}/docs/Doxyfile" @ONLY)
    file(GLOB_RECURSE _gpuprim_docs_inputs CONFIGURE_DEPENDS
         "${PROJECT_SOURCE_DIR}/include/gpuprim/*.cuh")
    # The stamp is written only when Doxygen succeeds, so a failed run is retried next build.
    set(_gpuprim_docs_stamp "${GPUPRIM_DOCS_OUTPUT_DIR}/gpuprim_docs.stamp")
    add_custom_command(
      OUTPUT "${_gpuprim_docs_stamp}"
      COMMAND "${CMAKE_COMMAND}" -E rm -rf "${GPUPRIM_DOCS_OUTPUT_DIR}/html"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${GPUPRIM_DOCS_OUTPUT_DIR}"
      COMMAND Doxygen::doxygen "${PROJECT_BINARY_DIR}/docs/Doxyfile"
      COMMAND "${CMAKE_COMMAND}" -E touch "${_gpuprim_docs_stamp}"
      DEPENDS "${PROJECT_BINARY_DIR}/docs/Doxyfile" "${PROJECT_SOURCE_DIR}/docs/api_mainpage.md" "${PROJECT_SOURCE_DIR}/docs/api_namespace.dox"
              ${_gpuprim_docs_inputs}
      WORKING_DIRECTORY "${PROJECT_BINARY_DIR}/docs"
      COMMENT "gpuprim: API reference (Doxygen; any warning fails)"
      VERBATIM)
    add_custom_target(gpuprim_docs ALL DEPENDS "${_gpuprim_docs_stamp}")
  endif()
endif()
