/* sqlite_wal.c: a transaction's write-ahead log frames in one write.
 *
 * SQLite writes each WAL frame with two pwrite calls, its 24-byte header and then its page,
 * so a group commit of 22 pages costs 44 system calls: about a quarter of the writing
 * thread's time here, where a system call costs several microseconds. This VFS wraps the
 * platform's default one. A WAL file holds whole frames written one after the other (a
 * header, then its page just after it) in a buffer and hands them to the kernel with one
 * call:
 * - once the page of a commit frame is written (a frame header whose "database size after
 *   commit" field is not zero), so that a failed write fails that commit, as before;
 * - before any other operation on the WAL file (read, sync, size, truncate, close...), and
 *   before a write that does not continue the buffer or would overflow it;
 * - at the shared-memory barrier of the thread that wrote them, a second guard for the
 *   first: SQLite publishes a commit by copying the WAL index header between two
 *   xShmBarrier calls on the database file (walIndexWriteHdr), after writing its frames on
 *   the same thread, so no reader can be told of a frame that is not in the file yet;
 * - and when the write lock is given up, so that frames a rolled-back transaction spilled
 *   cannot land after the next writer's, in their places.
 * Every other write (the log's own header, a page written again within its transaction,
 * checksums rewritten) goes straight through, after what is held. Database files pass
 * everything through but that barrier and lock; other files (journals, temporary files) are
 * the default VFS's own. */
#include "catalog/sqlite_wal.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define VFS_NAME     "animdex-wal"
#define FRAME_HEADER 24 /* bytes: page number, database size after commit, salts, checksums */

struct wal_file {
	sqlite3_file base;  /* pMethods: db_methods or wal_methods */
	sqlite3_file *real; /* the default VFS's file, in the same allocation, after this */
	char *buffer;       /* WAL files: SQLITE_WAL_BUFFER bytes, from the first write */
	size_t length;      /* bytes held, to be written at `offset` */
	sqlite3_int64 offset;
	int header_held;              /* the last bytes held are a frame's header */
	int commit_frame;             /* ... of a commit frame */
	pthread_t writer;             /* the thread whose writes are held */
	struct wal_file *prev, *next; /* in `pending` while length > 0 */
};

/* Every buffer is touched under this lock; the count lets barriers skip it when none holds
 * bytes (readers and the checkpointer, every read transaction). */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static struct wal_file *pending;
static unsigned pending_count;

#define REAL_OFFSET ((sizeof(struct wal_file) + 7) & ~(size_t)7)

static sqlite3_vfs *real_vfs(sqlite3_vfs *vfs)
{
	return vfs->pAppData;
}

/* Writes what f holds; pending_lock held. */
static int flush_locked(struct wal_file *f)
{
	int rc;

	if (f->length == 0)
		return SQLITE_OK;
	rc = f->real->pMethods->xWrite(f->real, f->buffer, (int)f->length, f->offset);
	f->length = 0;
	f->header_held = f->commit_frame = 0;
	if (f->prev)
		f->prev->next = f->next;
	else
		pending = f->next;
	if (f->next)
		f->next->prev = f->prev;
	f->prev = f->next = NULL;
	__atomic_sub_fetch(&pending_count, 1, __ATOMIC_RELEASE);
	return rc;
}

static int flush(struct wal_file *f)
{
	int rc;

	pthread_mutex_lock(&pending_lock);
	rc = flush_locked(f);
	pthread_mutex_unlock(&pending_lock);
	return rc;
}

/* Appends to what f holds; pending_lock held, room checked. */
static void hold(struct wal_file *f, const void *data, size_t size, sqlite3_int64 offset)
{
	if (f->length == 0) {
		f->offset = offset;
		f->writer = pthread_self();
		f->next = pending;
		if (pending)
			pending->prev = f;
		pending = f;
		__atomic_add_fetch(&pending_count, 1, __ATOMIC_RELEASE);
	}
	memcpy(f->buffer + f->length, data, size);
	f->length += size;
}

/* Only whole frames are held, written the way SQLite writes them: a 24-byte header, then its
 * page just after it, on the same thread. Anything else (the log's own header, a page written
 * again in place, a frame in one piece) goes straight through, after what is held. */
static int wal_write(sqlite3_file *file, const void *data, int n, sqlite3_int64 offset)
{
	struct wal_file *f = (struct wal_file *)file;
	size_t size = (size_t)n;
	int rc = SQLITE_OK, header = size == FRAME_HEADER, follows, page, commit;

	pthread_mutex_lock(&pending_lock);
	follows = f->length && offset == f->offset + (sqlite3_int64)f->length &&
	          pthread_equal(f->writer, pthread_self());
	page = !header && follows && f->header_held;
	commit = page && f->commit_frame;
	if (f->length && (!follows || !(header || page) || f->length + size > SQLITE_WAL_BUFFER))
		rc = flush_locked(f);
	if (rc == SQLITE_OK && header && !f->buffer)
		f->buffer = malloc(SQLITE_WAL_BUFFER);
	if (rc != SQLITE_OK) {
		/* the held bytes failed: so does this write */
	} else if (header && f->buffer) {
		const unsigned char *h = data; /* big-endian database size after commit */
		hold(f, data, size, offset);
		f->header_held = 1;
		f->commit_frame = (h[4] | h[5] | h[6] | h[7]) != 0;
	} else if (page && f->length) {
		hold(f, data, size, offset);
		f->header_held = 0;
		if (commit)
			rc = flush_locked(f); /* the commit frame's page: the commit is whole */
	} else {
		rc = f->real->pMethods->xWrite(f->real, data, n, offset);
	}
	pthread_mutex_unlock(&pending_lock);
	return rc;
}

static int wal_close(sqlite3_file *file)
{
	struct wal_file *f = (struct wal_file *)file;
	int rc = flush(f), closed = f->real->pMethods->xClose(f->real);

	free(f->buffer);
	f->buffer = NULL;
	return rc != SQLITE_OK ? rc : closed;
}

/* The WAL's other operations see the file as written so far. */
#define FLUSH_FIRST(f)                                       \
	do {                                                 \
		int flushed = flush((struct wal_file *)(f)); \
		if (flushed != SQLITE_OK)                    \
			return flushed;                      \
	} while (0)
#define REAL(f) (((struct wal_file *)(f))->real)

/* The default VFS's methods, passed through: the database file's, and the WAL's after a flush. */
static int pass_close(sqlite3_file *f)
{
	return REAL(f)->pMethods->xClose(REAL(f));
}

static int pass_read(sqlite3_file *f, void *data, int n, sqlite3_int64 offset)
{
	return REAL(f)->pMethods->xRead(REAL(f), data, n, offset);
}

static int pass_write(sqlite3_file *f, const void *data, int n, sqlite3_int64 offset)
{
	return REAL(f)->pMethods->xWrite(REAL(f), data, n, offset);
}

static int pass_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	return REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int pass_sync(sqlite3_file *f, int flags)
{
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int pass_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int pass_lock(sqlite3_file *f, int level)
{
	return REAL(f)->pMethods->xLock(REAL(f), level);
}

static int pass_unlock(sqlite3_file *f, int level)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), level);
}

static int pass_check_reserved_lock(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int pass_file_control(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int pass_sector_size(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int pass_device_characteristics(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int pass_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **out)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), region, size, extend, out);
}

static int pass_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}

static int pass_shm_unmap(sqlite3_file *f, int delete_flag)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), delete_flag);
}

static int pass_fetch(sqlite3_file *f, sqlite3_int64 offset, int n, void **out)
{
	return REAL(f)->pMethods->xFetch(REAL(f), offset, n, out);
}

static int pass_unfetch(sqlite3_file *f, sqlite3_int64 offset, void *page)
{
	return REAL(f)->pMethods->xUnfetch(REAL(f), offset, page);
}

static void pass_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int wal_read(sqlite3_file *f, void *data, int n, sqlite3_int64 offset)
{
	FLUSH_FIRST(f); /* a page spilled before its commit may be read back */
	return pass_read(f, data, n, offset);
}

static int wal_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	FLUSH_FIRST(f);
	return pass_truncate(f, size);
}

static int wal_sync(sqlite3_file *f, int flags)
{
	FLUSH_FIRST(f);
	return pass_sync(f, flags);
}

static int wal_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
	FLUSH_FIRST(f);
	return pass_file_size(f, size);
}

static int wal_lock(sqlite3_file *f, int level)
{
	FLUSH_FIRST(f);
	return pass_lock(f, level);
}

static int wal_unlock(sqlite3_file *f, int level)
{
	FLUSH_FIRST(f);
	return pass_unlock(f, level);
}

static int wal_file_control(sqlite3_file *f, int op, void *arg)
{
	FLUSH_FIRST(f);
	return pass_file_control(f, op, arg);
}

/* Writes the frames held by WAL files: those written on this thread, or all. */
static void flush_pending(int this_thread_only)
{
	if (__atomic_load_n(&pending_count, __ATOMIC_ACQUIRE) == 0)
		return;
	pthread_mutex_lock(&pending_lock);
	for (struct wal_file *w = pending, *next; w; w = next) {
		next = w->next;
		if (!this_thread_only || pthread_equal(w->writer, pthread_self()))
			flush_locked(w);
	}
	pthread_mutex_unlock(&pending_lock);
}

/* Before a commit is published: this thread's held frames go out (see the top). */
static void db_shm_barrier(sqlite3_file *f)
{
	flush_pending(1);
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}

/* The write lock (lock 0) given up: frames still held, those a rolled-back transaction
 * spilled, go out now, before the next writer can write its own frames in their places. */
static int db_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	if (offset == 0 && (flags & SQLITE_SHM_UNLOCK))
		flush_pending(0);
	return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}

static const sqlite3_io_methods db_methods = {
    3,
    pass_close,
    pass_read,
    pass_write,
    pass_truncate,
    pass_sync,
    pass_file_size,
    pass_lock,
    pass_unlock,
    pass_check_reserved_lock,
    pass_file_control,
    pass_sector_size,
    pass_device_characteristics,
    pass_shm_map,
    db_shm_lock,
    db_shm_barrier,
    pass_shm_unmap,
    pass_fetch,
    pass_unfetch,
};

static const sqlite3_io_methods wal_methods = {
    3,
    wal_close,
    wal_read,
    wal_write,
    wal_truncate,
    wal_sync,
    wal_file_size,
    wal_lock,
    wal_unlock,
    pass_check_reserved_lock,
    wal_file_control,
    pass_sector_size,
    pass_device_characteristics,
    pass_shm_map,
    pass_shm_lock,
    pass_shm_barrier,
    pass_shm_unmap,
    pass_fetch,
    pass_unfetch,
};

static int vfs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags,
                    int *out_flags)
{
	struct wal_file *f = (struct wal_file *)file;
	int rc;

	if (!(flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL)))
		return real_vfs(vfs)->xOpen(real_vfs(vfs), name, file, flags, out_flags);
	memset(f, 0, sizeof(*f));
	f->real = (sqlite3_file *)((char *)f + REAL_OFFSET);
	rc = real_vfs(vfs)->xOpen(real_vfs(vfs), name, f->real, flags, out_flags);
	/* xClose is called when pMethods is set, even after a failed open: mirror the real one */
	if (f->real->pMethods)
		f->base.pMethods = flags & SQLITE_OPEN_WAL ? &wal_methods : &db_methods;
	return rc;
}

/* The rest of the VFS is the default one's. */
static int vfs_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
	return real_vfs(vfs)->xDelete(real_vfs(vfs), name, sync_dir);
}

static int vfs_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	return real_vfs(vfs)->xAccess(real_vfs(vfs), name, flags, out);
}

static int vfs_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	return real_vfs(vfs)->xFullPathname(real_vfs(vfs), name, n, out);
}

static void *vfs_dl_open(sqlite3_vfs *vfs, const char *name)
{
	return real_vfs(vfs)->xDlOpen(real_vfs(vfs), name);
}

static void vfs_dl_error(sqlite3_vfs *vfs, int n, char *out)
{
	real_vfs(vfs)->xDlError(real_vfs(vfs), n, out);
}

static void (*vfs_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void)
{
	return real_vfs(vfs)->xDlSym(real_vfs(vfs), handle, symbol);
}

static void vfs_dl_close(sqlite3_vfs *vfs, void *handle)
{
	real_vfs(vfs)->xDlClose(real_vfs(vfs), handle);
}

static int vfs_randomness(sqlite3_vfs *vfs, int n, char *out)
{
	return real_vfs(vfs)->xRandomness(real_vfs(vfs), n, out);
}

static int vfs_sleep(sqlite3_vfs *vfs, int microseconds)
{
	return real_vfs(vfs)->xSleep(real_vfs(vfs), microseconds);
}

static int vfs_current_time(sqlite3_vfs *vfs, double *out)
{
	return real_vfs(vfs)->xCurrentTime(real_vfs(vfs), out);
}

static int vfs_get_last_error(sqlite3_vfs *vfs, int n, char *out)
{
	return real_vfs(vfs)->xGetLastError(real_vfs(vfs), n, out);
}

static int vfs_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
	return real_vfs(vfs)->xCurrentTimeInt64(real_vfs(vfs), out);
}

static sqlite3_vfs wal_vfs;
static const char *registered;

static void vfs_register(void)
{
	sqlite3_vfs *real = sqlite3_vfs_find(NULL);

	/* the methods above are those of unix's files (version 3: shared memory, mmap) */
	if (!real || strcmp(real->zName, "unix") != 0 || real->iVersion < 2)
		return;
	wal_vfs = (sqlite3_vfs){
	    .iVersion = 2,
	    .szOsFile = (int)REAL_OFFSET + real->szOsFile,
	    .mxPathname = real->mxPathname,
	    .zName = VFS_NAME,
	    .pAppData = real,
	    .xOpen = vfs_open,
	    .xDelete = vfs_delete,
	    .xAccess = vfs_access,
	    .xFullPathname = vfs_full_pathname,
	    .xDlOpen = vfs_dl_open,
	    .xDlError = vfs_dl_error,
	    .xDlSym = vfs_dl_sym,
	    .xDlClose = vfs_dl_close,
	    .xRandomness = vfs_randomness,
	    .xSleep = vfs_sleep,
	    .xCurrentTime = vfs_current_time,
	    .xGetLastError = vfs_get_last_error,
	    .xCurrentTimeInt64 = vfs_current_time_int64,
	};
	if (sqlite3_vfs_register(&wal_vfs, 0) == SQLITE_OK)
		registered = VFS_NAME;
}

const char *sqlite_wal_vfs(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, vfs_register);
	return registered;
}
