// The OLD sort TU: gpuprim of the revision given to build.sh, renamed gpuprim_old (build/ab/inc_gpuprim_old).
#include <gpuprim_old/radix_sort.cuh>
#define AB_LIB gpuprim_old
#define AB_FN ab_old_sort
#include "lib_impl.cuh"
