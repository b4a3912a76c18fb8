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

int groupie_malloc_mmap_threshold(int bytes) {
#ifdef __GLIBC__
    return mallopt(M_MMAP_THRESHOLD, bytes);
#else
    (void)bytes;
    return 0;
#endif
}

int groupie_heap_statistics(unsigned long long *in_use, unsigned long long *free_held) {
#ifdef __GLIBC__
    struct mallinfo2 info = mallinfo2();
    /* Chunks handed out from the arenas plus those served by mmap of their own. */
    *in_use = (unsigned long long)info.uordblks + (unsigned long long)info.hblkhd;
    *free_held = (unsigned long long)info.fordblks;
    return 1;
#else
    *in_use = 0;
    *free_held = 0;
    return 0;
#endif
}

int groupie_heap_trim(void) {
#ifdef __GLIBC__
    return malloc_trim(0);
#else
    return 0;
#endif
}
