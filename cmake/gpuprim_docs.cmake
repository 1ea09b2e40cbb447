# The API reference: Doxygen over the public headers' `///` comments (docs/Doxyfile.in),
# built by the target gpuprim_docs into <build>/docs/api/html. Any Doxygen warning fails the
# build (WARN_AS_ERROR = FAIL_ON_WARNINGS). Part of ALL when GPUPRIM_BUILD_DOCS is ON (the
# default for the top-level project) and Doxygen 1.9.1 or newer is found; otherwise the target
# only prints what is missing and fails.
include_guard(GLOBAL)

option(GPUPRIM_BUILD_DOCS "Build gpuprim's API reference with Doxygen (target gpuprim_docs)"
       ${PROJECT_IS_TOP_LEVEL})

if(GPUPRIM_BUILD_DOCS)
  find_package(Doxygen QUIET)
  set(_gpuprim_docs_missing "")
  if(NOT TARGET Doxygen::doxygen)
    set(_gpuprim_docs_missing "Doxygen was not found")
  elseif(DOXYGEN_VERSION VERSION_LESS 1.9.1)
    set(_gpuprim_docs_missing "Doxygen ${DOXYGEN_VERSION} is older than 1.9.1 (FAIL_ON_WARNINGS)")
  endif()
  if(_gpuprim_docs_missing)
    # The target exists either way, so that the documented command names it; without Doxygen it
    # only says what is missing (and fails: no reference was built).
    set(_gpuprim_docs_hint "gpuprim_docs: ${_gpuprim_docs_missing}; the API reference is optional: install doxygen 1.9.1+ (apt-get install doxygen) and configure again")
    message(STATUS "gpuprim: ${_gpuprim_docs_missing}: the API reference (gpuprim_docs) is not built")
    add_custom_target(gpuprim_docs
      COMMAND "${CMAKE_COMMAND}" -E echo "${_gpuprim_docs_hint}"
      COMMAND "${CMAKE_COMMAND}" -E false
      VERBATIM)
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
