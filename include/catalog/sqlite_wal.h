/* sqlite_wal.h: a SQLite VFS over the platform's own that hands a transaction's write-ahead
 * log frames to the kernel in one write instead of two per frame. */
#ifndef ANIMDEX_SQLITE_WAL_H
#define ANIMDEX_SQLITE_WAL_H

/* Bytes of WAL frames a connection holds before it writes them out: 30 frames of 4 KiB
 * pages. Below 128 KiB, since SQLite's unix VFS writes at most 0x1FFFF bytes a call (it masks
 * the count: a larger write would be cut short and fail as "disk full"). */
#define SQLITE_WAL_BUFFER (124u * 1024)

/* The VFS's name for sqlite3_open_v2, registered on the first call (thread-safe), or NULL
 * when it could not be: SQLite's default VFS then serves, slower but the same. */
const char *sqlite_wal_vfs(void);

#endif
