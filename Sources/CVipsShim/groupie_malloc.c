#include "groupie_vips.h"

/* Any C library header defines __GLIBC__ on glibc; it must come before the test below. */
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

int groupie_malloc_arenas_limit(int arenas) {
#ifdef __GLIBC__
    return mallopt(M_ARENA_MAX, arenas);
#else
    (void)arenas;
    return 0;
#endif
}
