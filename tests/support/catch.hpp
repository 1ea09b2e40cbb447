// Catch2 v2/v3 compatibility: test sources include only this header.
// CMake defines GPUPRIM_CATCH2_VERSION_MAJOR; __has_include is the fallback.
#pragma once

#if !defined(GPUPRIM_CATCH2_VERSION_MAJOR)
#  if __has_include(<catch2/catch_test_macros.hpp>)
#    define GPUPRIM_CATCH2_VERSION_MAJOR 3
#  else
#    define GPUPRIM_CATCH2_VERSION_MAJOR 2
#  endif
#endif

#if GPUPRIM_CATCH2_VERSION_MAJOR >= 3
#  include <catch2/catch_approx.hpp>
#  include <catch2/catch_template_test_macros.hpp>
#  include <catch2/catch_test_macros.hpp>
#  include <catch2/generators/catch_generators.hpp>
#  include <catch2/generators/catch_generators_adapters.hpp>
#  include <catch2/generators/catch_generators_random.hpp>
#  include <catch2/generators/catch_generators_range.hpp>
// v2 has a global `Approx`; give v3 the same name.
using Catch::Approx;
#else
#  include <catch2/catch.hpp>
#endif
