#include "groupie_sqlite.h"

#include <sqlite3.h>

int groupie_sqlite_disable_memory_statistics(void) {
    // sqlite3_config takes variable arguments, which Swift cannot pass: hence this file.
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

long long groupie_sqlite_memory_used(void) {
    return (long long)sqlite3_memory_used();
}
