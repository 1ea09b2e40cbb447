// The NEW sort TU: the tree given to build.sh (default the working tree's include/), renamed gpuprim_new.
#include <gpuprim_new/radix_sort.cuh>
#define AB_LIB gpuprim_new
#define AB_FN ab_new_sort
#include "lib_impl.cuh"
