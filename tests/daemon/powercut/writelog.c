/* writelog.c: an LD_PRELOAD library that logs what a process writes and syncs, for the
 * power-cut test (tests/daemon/powercut/check_powercut.c).
 *
 * For every file whose path starts with $ANIMDEX_WRITELOG_DIR it appends to
 * $ANIMDEX_WRITELOG one record per completed write (pwrite64, write), truncation
 * (ftruncate64), sync (fdatasync, fsync) and removal (unlink: taken as lasting at once, so a
 * rollback journal SQLite removed does not come back). A power cut keeps of a file only what its
 * last completed sync covered; writelog_replay.c rebuilds the files that way from this log. Each
 * operation and its record are made under one lock, so the log's order is the order in which
 * the operations completed: a write recorded before a sync of the same file was covered by it.
 * The shared memory file (-shm, written through mmap) is not seen: a power cut loses it and
 * SQLite rebuilds it from the log.
 *
 * Record: op (1 byte: 'W', 'T', 'S', 'U'), path length (4), offset (8), length (8), the path, and
 * for 'W' the bytes written. Numbers are in the machine's order.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *fd_path[MAX_FDS]; /* tracked descriptors' paths */
static int log_fd = -1;
static const char *watched;
static size_t watched_length;

static int (*real_open64)(const char *, int, ...);
static int (*real_open)(const char *, int, ...);
static int (*real_close)(int);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_ftruncate64)(int, off_t);
static int (*real_fdatasync)(int);
static int (*real_fsync)(int);
static int (*real_unlink)(const char *);

static void writelog_init(void) __attribute__((constructor));
static void writelog_init(void)
{
	const char *log = getenv("ANIMDEX_WRITELOG");

	real_open64 = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
	real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	real_pwrite64 = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
	real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	real_ftruncate64 = (int (*)(int, off_t))dlsym(RTLD_NEXT, "ftruncate64");
	real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	real_unlink = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
	watched = getenv("ANIMDEX_WRITELOG_DIR");
	watched_length = watched ? strlen(watched) : 0;
	if (log && watched_length > 0)
		log_fd = real_open64(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

/* Appends one record; the caller holds the lock. */
static void record(char op, const char *path, uint64_t offset, const void *data, uint64_t length)
{
	uint32_t path_length = (uint32_t)strlen(path);
	uint64_t data_length = op == 'W' ? length : 0;
	char header[21];
	struct iovec parts[3];

	header[0] = op;
	memcpy(header + 1, &path_length, 4);
	memcpy(header + 5, &offset, 8);
	memcpy(header + 13, &length, 8);
	parts[0] = (struct iovec){header, sizeof(header)};
	parts[1] = (struct iovec){(void *)path, path_length};
	parts[2] = (struct iovec){(void *)data, (size_t)data_length};
	/* the log is small records and pages: one writev each, O_APPEND */
	if (writev(log_fd, parts, data_length ? 3 : 2) < 0)
		abort(); /* a test that cannot log must not pass */
}

static const char *tracked(int fd)
{
	return fd >= 0 && fd < MAX_FDS ? fd_path[fd] : NULL;
}

static int track(int fd, const char *path)
{
	if (fd >= 0 && fd < MAX_FDS && log_fd >= 0 && path &&
	    strncmp(path, watched, watched_length) == 0) {
		pthread_mutex_lock(&lock);
		free(fd_path[fd]);
		fd_path[fd] = strdup(path);
		pthread_mutex_unlock(&lock);
	}
	return fd;
}

static int open_with(int (*real)(const char *, int, ...), const char *path, int flags, va_list ap)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	return track(real(path, flags, mode), path);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_with(real_open64, path, flags, ap);
	va_end(ap);
	return fd;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_with(real_open, path, flags, ap);
	va_end(ap);
	return fd;
}

int close(int fd)
{
	if (tracked(fd)) {
		pthread_mutex_lock(&lock);
		free(fd_path[fd]);
		fd_path[fd] = NULL;
		pthread_mutex_unlock(&lock);
	}
	return real_close(fd);
}

ssize_t pwrite64(int fd, const void *data, size_t length, off_t offset)
{
	ssize_t n;

	if (!tracked(fd))
		return real_pwrite64(fd, data, length, offset);
	pthread_mutex_lock(&lock);
	n = real_pwrite64(fd, data, length, offset);
	if (n > 0 && fd_path[fd])
		record('W', fd_path[fd], (uint64_t)offset, data, (uint64_t)n);
	pthread_mutex_unlock(&lock);
	return n;
}

ssize_t write(int fd, const void *data, size_t length)
{
	ssize_t n;
	off_t offset;

	if (!tracked(fd))
		return real_write(fd, data, length);
	pthread_mutex_lock(&lock);
	offset = lseek(fd, 0, SEEK_CUR);
	n = real_write(fd, data, length);
	if (n > 0 && offset >= 0 && fd_path[fd])
		record('W', fd_path[fd], (uint64_t)offset, data, (uint64_t)n);
	pthread_mutex_unlock(&lock);
	return n;
}

int ftruncate64(int fd, off_t length)
{
	int rc;

	if (!tracked(fd))
		return real_ftruncate64(fd, length);
	pthread_mutex_lock(&lock);
	rc = real_ftruncate64(fd, length);
	if (rc == 0 && fd_path[fd])
		record('T', fd_path[fd], (uint64_t)length, NULL, 0);
	pthread_mutex_unlock(&lock);
	return rc;
}

static int sync_with(int (*real)(int), int fd)
{
	int rc;

	if (!tracked(fd))
		return real(fd);
	pthread_mutex_lock(&lock);
	rc = real(fd);
	if (rc == 0 && fd_path[fd])
		record('S', fd_path[fd], 0, NULL, 0);
	pthread_mutex_unlock(&lock);
	return rc;
}

int fdatasync(int fd)
{
	return sync_with(real_fdatasync, fd);
}

int fsync(int fd)
{
	return sync_with(real_fsync, fd);
}

int unlink(const char *path)
{
	int rc;

	if (log_fd < 0 || strncmp(path, watched, watched_length) != 0)
		return real_unlink(path);
	pthread_mutex_lock(&lock);
	rc = real_unlink(path);
	if (rc == 0)
		record('U', path, 0, NULL, 0);
	pthread_mutex_unlock(&lock);
	return rc;
}
