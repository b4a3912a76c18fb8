#ifndef GROUPIE_SQLITE_H
#define GROUPIE_SQLITE_H

// SQLite's C API, for the reads that step a GRDB statement in place (`Statement.firstRow`).
#include <sqlite3.h>

/// Turns SQLite's memory statistics off, process-wide. With them on (SQLite's default), every
/// allocation and free SQLite makes takes one global mutex, which every connection of the
/// process shares. Must run before SQLite initializes (before the first connection opens):
/// returns 0 (SQLITE_OK) then, SQLITE_MISUSE (21) after.
int groupie_sqlite_disable_memory_statistics(void);

/// What SQLite counts as its memory in use: always 0 while its statistics are off.
long long groupie_sqlite_memory_used(void);

#endif
