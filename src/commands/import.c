/* import.c: `animdexd import PATH...`: files and folders (recursively) straight into the
 * catalogue, in batched transactions, without the HTTP server.
 *
 * Each file is decoded as an upload would be (a .gltf gets the .bin files of its folder as
 * siblings). Duplicates (same SHA-256) are skipped; files no decoder reads are counted as not
 * animation data; every other refusal is reported with the file's path. On a terminal a
 * progress line shows files, bytes and rate; otherwise a plain line every 10,000 files.
 *
 * Batches are optimistic: a bulk transaction (catalog_begin_bulk) in which uploads are not
 * isolated from each other, so that a shared database can take them in one round trip each.
 * When the catalogue refuses one, or the batch will not commit, the whole batch is rolled
 * back and replayed carefully: each file on its own savepoint, so that exactly the failing
 * files are named and everything else is stored. Counts are added once a batch commits. */
#define _DEFAULT_SOURCE /* DT_DIR */
#include "import.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "formats/format.h"
#include "base/handoff.h"
#include "catalog/ingest.h"

/* A batch commits after this many files, bytes or seconds, whichever comes first: larger
 * batches rewrite the indexes' pages less often; the time bounds how long a daemon on the
 * same catalogue waits to write. */
#define BATCH_FILES   5000
#define BATCH_BYTES   (16u * 1024 * 1024)
#define BATCH_SECONDS 1.0
#define MAX_SIBLINGS  16

struct import {
	struct catalog *cat;
	const struct import_options *opt;
	size_t files, bytes, created, duplicates, not_animation, failed;
	size_t skipped; /* not regular files (FIFOs, devices, sockets) */
	size_t batch_files, batch_bytes;
	struct timespec batch_started;          /* when the batch's first file was stored */
	size_t batch_created, batch_duplicates; /* counted when the batch commits */
	char **batch_paths;                     /* the files stored in this batch, for a replay */
	size_t *batch_name_at;                  /* ... where their stored names begin */
	size_t batch_cap;
	int careful; /* replaying a batch: each file on its own savepoint, counted at once */
	int tty;
	size_t shown_at; /* files when the last plain line was written */
	struct timespec started, last_shown;
};

static double seconds_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void show_progress(struct import *im, int final)
{
	double s = seconds_since(&im->started);
	double rate = s > 0 ? (double)im->files / s : 0;
	char skipped[64] = "";

	if (im->opt->quiet && !final)
		return;
	if (im->tty && !final) {
		if (seconds_since(&im->last_shown) < 0.1)
			return;
		clock_gettime(CLOCK_MONOTONIC, &im->last_shown);
		fprintf(stderr, "\r%10zu files  %8.1f MiB  %8.0f files/s  %zu created, %zu failed ",
		        im->files, (double)im->bytes / 1048576.0, rate, im->created, im->failed);
		return;
	}
	if ((!final && im->files % 10000 != 0) || (final && !im->tty && im->shown_at == im->files))
		return;
	if (im->skipped)
		snprintf(skipped, sizeof(skipped), ", %zu skipped (not regular files)",
		         im->skipped);
	im->shown_at = im->files;
	fprintf(stderr,
	        "%s%zu %s, %.1f MiB in %.2f s (%.0f files/s): %zu %s created, %zu %s, %zu not "
	        "animation data, %zu failed%s\n",
	        im->tty && final ? "\r" : "", im->files, im->files == 1 ? "file" : "files",
	        (double)im->bytes / 1048576.0, s, rate, im->created,
	        im->created == 1 ? "entry" : "entries", im->duplicates,
	        im->duplicates == 1 ? "duplicate" : "duplicates", im->not_animation, im->failed,
	        skipped);
}

static void forget_batch(struct import *im)
{
	for (size_t i = 0; i < im->batch_files; i++)
		free(im->batch_paths[i]);
	im->batch_files = im->batch_bytes = 0;
	im->batch_created = im->batch_duplicates = 0;
}

static void import_file(struct import *im, const char *path, size_t name_at, int again);

/* Rolls the batch back and stores its files again one by one (with `also`, the file that was
 * refused, when given), then commits them and starts a new batch. */
static void replay_batch(struct import *im, const char *also, size_t also_name_at)
{
	struct error err;
	size_t count = im->batch_files;
	char **paths = im->batch_paths;
	size_t *name_at = im->batch_name_at;

	error_init(&err);
	catalog_rollback(im->cat);
	im->batch_paths = NULL;
	im->batch_name_at = NULL;
	im->batch_cap = 0;
	im->batch_files = im->batch_bytes = 0;
	im->batch_created = im->batch_duplicates = 0;
	im->careful = 1;
	if (catalog_begin(im->cat, &err) < 0) {
		fprintf(stderr, "%sanimdexd: %s\n", im->tty ? "\r" : "", err.message);
		im->failed += count + (also != NULL);
	} else {
		size_t created = im->created, duplicates = im->duplicates;
		for (size_t i = 0; i < count; i++)
			import_file(im, paths[i], name_at[i], 1);
		if (also)
			import_file(im, also, also_name_at, 1);
		if (catalog_commit(im->cat, &err) < 0) {
			fprintf(stderr, "%sanimdexd: %zu files could not be stored: %s\n",
			        im->tty ? "\r" : "", count + (also != NULL), err.message);
			im->failed += count + (also != NULL);
			im->created = created;
			im->duplicates = duplicates;
		}
	}
	for (size_t i = 0; i < count; i++)
		free(paths[i]);
	free(paths);
	free(name_at);
	im->careful = 0;
	error_init(&err);
	if (catalog_begin_bulk(im->cat, &err) < 0) {
		fprintf(stderr, "%sanimdexd: %s\n", im->tty ? "\r" : "", err.message);
		im->failed++;
	}
}

static void flush_batch(struct import *im)
{
	struct error err;

	error_init(&err);
	if (im->batch_files == 0)
		return;
	if (catalog_commit(im->cat, &err) < 0) {
		replay_batch(im, NULL, 0);
		return;
	}
	im->created += im->batch_created;
	im->duplicates += im->batch_duplicates;
	forget_batch(im);
	if (catalog_begin_bulk(im->cat, &err) < 0) {
		fprintf(stderr, "%sanimdexd: %s\n", im->tty ? "\r" : "", err.message);
		im->failed++;
	}
}

/* Remembers a file stored in the batch, for a replay. */
static int remember(struct import *im, const char *path, size_t name_at)
{
	if (im->batch_files == im->batch_cap) {
		size_t cap = im->batch_cap ? 2 * im->batch_cap : 64;
		char **grown = realloc(im->batch_paths, cap * sizeof(*grown));
		size_t *grown_at;
		if (!grown)
			return -1;
		im->batch_paths = grown;
		grown_at = realloc(im->batch_name_at, cap * sizeof(*grown_at));
		if (!grown_at)
			return -1;
		im->batch_name_at = grown_at;
		im->batch_cap = cap;
	}
	im->batch_name_at[im->batch_files] = name_at;
	im->batch_paths[im->batch_files] = strdup(path);
	if (!im->batch_paths[im->batch_files])
		return -1;
	im->batch_files++;
	return 0;
}

char *import_read_file(const char *path, size_t *length)
{
	/* opened without blocking: a FIFO or a device must not hang the caller */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *data;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	data = malloc((size_t)st.st_size + 1);
	while (data && got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
		if (n <= 0) {
			free(data);
			data = NULL;
			errno = n < 0 ? errno : EIO;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	*length = (size_t)st.st_size;
	return data;
}

/* The .bin files beside a .gltf, for its external buffers. */
static size_t load_siblings(const char *path, struct upload_sibling *out, char **names,
                            char **datas)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	d = opendir(dir);
	while (d && (e = readdir(d)) && n < MAX_SIBLINGS) {
		char file[8192];
		size_t len;
		if (!format_has_extension(e->d_name, "bin"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
		datas[n] = import_read_file(file, &len);
		if (!datas[n])
			continue;
		names[n] = strdup(e->d_name);
		out[n] = (struct upload_sibling){names[n], (const uint8_t *)datas[n], len, 0};
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

/* One file made ready for the catalogue (read, decoded, hashed, its stored texts rendered)
 * by the reading thread, or why it cannot be stored; or what the walk met instead of a file.
 * The writer takes these in the walk's order. */
enum prepared_kind {
	PREPARED_FILE,          /* decoded: to store */
	PREPARED_UNREADABLE,    /* message: why it could not be read */
	PREPARED_NOT_ANIMATION, /* empty, or no decoder reads it */
	PREPARED_REFUSED,       /* message: the decoder's refusal */
	PREPARED_STAT_FAILED,   /* message: why the path could not be looked at */
	PREPARED_SKIPPED,       /* message: not a regular file */
};

/* A glTF's .bin files. */
struct siblings {
	struct upload_sibling files[MAX_SIBLINGS];
	char *names[MAX_SIBLINGS], *datas[MAX_SIBLINGS];
	size_t count;
};

/* Small (under 1 KiB: larger requests make malloc tidy its heap each time). */
struct prepared {
	enum prepared_kind kind;
	char *path;     /* as the walk met it, for messages */
	size_t name_at; /* the name stored: path + name_at, the path below the argument */
	char *message;  /* or NULL */
	char *data;     /* as read */
	size_t length;
	struct siblings *siblings; /* a .gltf's, or NULL */
	struct ingest in;
	size_t bytes; /* prepared_bytes, once handed over */
};

static void prepared_free(struct prepared *p)
{
	if (!p)
		return;
	for (size_t i = 0; p->siblings && i < p->siblings->count; i++)
		free(p->siblings->names[i]), free(p->siblings->datas[i]);
	free(p->siblings);
	ingest_cleanup(&p->in);
	free(p->data);
	free(p->message);
	free(p->path);
	free(p);
}

/* The memory p holds, about: its bytes, and the keys it decoded to (a compressed file may
 * decode to much more than it is). */
static size_t prepared_bytes(const struct prepared *p)
{
	size_t bytes = p->length + p->in.decoded.stored_length;

	for (size_t i = 0; i < p->in.decoded.count; i++) {
		const struct clip *clip = &p->in.decoded.resources[i]->clip;
		for (size_t k = 0; k < clip->sampler_count; k++)
			bytes += (size_t)clip->samplers[k].key_count * sizeof(float) +
			         clip->samplers[k].value_bytes;
	}
	return bytes;
}

static struct prepared *prepared_new(enum prepared_kind kind, const char *path)
{
	struct prepared *p = calloc(1, sizeof(*p));

	if (p) {
		p->kind = kind;
		p->path = strdup(path ? path : "");
		ingest_init(&p->in);
		if (!p->path) {
			free(p);
			return NULL;
		}
	}
	return p;
}

/* Reads, decodes and hashes one file, and renders what the catalogue will store: all but
 * the writing, with nothing shared, so that it can run beside the writer. */
static struct prepared *prepare_file(const struct import_options *opt, const char *path,
                                     size_t name_at)
{
	struct prepared *p = prepared_new(PREPARED_FILE, path);
	struct upload *up;
	struct error err;

	if (!p)
		return NULL;
	up = &p->in.up;
	error_init(&err);
	p->data = import_read_file(path, &p->length);
	if (!p->data) {
		p->kind = PREPARED_UNREADABLE;
		p->message = strdup(strerror(errno));
		return p;
	}
	if (p->length == 0) {
		p->kind = PREPARED_NOT_ANIMATION;
		return p;
	}
	up->data = (const uint8_t *)p->data;
	up->length = p->length;
	p->name_at = name_at;
	up->filename = p->path + name_at;
	up->class_name = opt->class_name;
	up->family = opt->family;
	up->max_inflate = opt->max_inflate;
	up->max_entries = opt->max_entries;
	if (format_has_extension(path, "gltf") && (p->siblings = calloc(1, sizeof(*p->siblings)))) {
		p->siblings->count =
		    load_siblings(path, p->siblings->files, p->siblings->names, p->siblings->datas);
		up->siblings = p->siblings->files;
		up->sibling_count = p->siblings->count;
	}
	/* no catalogue here: a walker's thread, beside the writer; duplicates are found when
	 * stored */
	if (ingest_prepare(&p->in, NULL, &err) != INGEST_READY) {
		p->kind = err.code == ERROR_UNSUPPORTED_FORMAT && !opt->class_name
		              ? PREPARED_NOT_ANIMATION
		              : PREPARED_REFUSED;
		p->message = strdup(err.message);
	}
	return p;
}

/* Stores what prepare_file made, and counts it; `again`: a replay of a file already counted
 * among the files read. */
static void store_prepared(struct import *im, struct prepared *p, int again)
{
	struct ingest_counts counts = {0, 0, 0};
	struct error err;
	json_t *entries;

	im->files += !again;
	error_init(&err);
	if (p->kind == PREPARED_UNREADABLE) {
		fprintf(stderr, "%s%s: cannot read: %s\n", im->tty ? "\r" : "", p->path,
		        p->message ? p->message : "out of memory");
		im->failed++;
		return;
	}
	im->bytes += again ? 0 : p->length;
	if (p->kind == PREPARED_NOT_ANIMATION) {
		im->not_animation++;
		return;
	}
	if (p->kind == PREPARED_REFUSED) {
		fprintf(stderr, "%s%s: %s\n", im->tty ? "\r" : "", p->path,
		        p->message ? p->message : "refused");
		im->failed++;
		return;
	}
	entries = ingest_store(im->cat, &p->in, NULL, NULL, &counts, &err);
	if (!entries && !im->careful) {
		/* which upload of the batch failed is only sure one by one */
		replay_batch(im, p->path, p->name_at);
		return;
	}
	if (!entries) {
		fprintf(stderr, "%s%s: %s\n", im->tty ? "\r" : "", p->path, err.message);
		im->failed++;
		return;
	}
	json_decref(entries);
	if (im->careful) {
		im->duplicates += counts.created == 0;
		im->created += counts.created;
	} else {
		im->batch_duplicates += counts.created == 0;
		im->batch_created += counts.created;
	}
	if (im->careful)
		return;
	if (remember(im, p->path, p->name_at) < 0) {
		replay_batch(im, NULL, 0); /* out of memory: store what there is, carefully */
		return;
	}
	im->batch_bytes += p->in.up.length;
	if (im->batch_files == 1)
		clock_gettime(CLOCK_MONOTONIC, &im->batch_started);
	if (im->batch_files >= BATCH_FILES || im->batch_bytes >= BATCH_BYTES ||
	    seconds_since(&im->batch_started) >= BATCH_SECONDS)
		flush_batch(im);
}

static void import_file(struct import *im, const char *path, size_t name_at, int again)
{
	struct prepared *p = prepare_file(im->opt, path, name_at);

	if (!p) {
		fprintf(stderr, "%s%s: out of memory\n", im->tty ? "\r" : "", path);
		im->files += !again;
		im->failed++;
		return;
	}
	store_prepared(im, p, again);
	prepared_free(p);
	show_progress(im, 0);
}

/* What the writer does with each thing the walk met, in order. */
static void take_prepared(struct import *im, struct prepared *p)
{
	switch (p->kind) {
	case PREPARED_STAT_FAILED:
		fprintf(stderr, "%s%s: %s\n", im->tty ? "\r" : "", p->path,
		        p->message ? p->message : "cannot be looked at");
		im->failed++;
		break;
	case PREPARED_SKIPPED:
		fprintf(stderr, "%s%s: %s, skipped\n", im->tty ? "\r" : "", p->path,
		        p->message ? p->message : "not a regular file");
		im->skipped++;
		break;
	default: store_prepared(im, p, 0); show_progress(im, 0);
	}
}

/* The walk, on a thread of its own when it can have one: it reads and decodes files ahead of
 * the writer and hands them over in order through a short queue. */
#define QUEUE_FILES    1024
#define QUEUE_BYTES    (64u * 1024 * 1024) /* files read ahead, at most (but always one) */
#define DONE_BYTES_MAX (256u * 1024)       /* files larger are not handed back to be freed */
struct walk {
	const struct import_options *opt;
	struct import *im; /* without a thread of its own: the writer, called directly */
	struct {
		dev_t dev;
		ino_t ino;
	} * folders; /* the folders visited */
	size_t folder_count, folder_cap;
	struct handoff queue; /* to the writer, when the walk has a thread of its own */
	int threaded;
	char *const *paths;
	int path_count;
};

/* Frees what the writer gave back. */
static void free_given_back(struct walk *w)
{
	void *done[HANDOFF_SLOTS];
	size_t n = handoff_take_back(&w->queue, done);

	for (size_t i = 0; i < n; i++)
		prepared_free(done[i]);
}

static void hand_over(struct walk *w, struct prepared *p)
{
	if (!w->threaded) {
		take_prepared(w->im, p);
		prepared_free(p);
		return;
	}
	free_given_back(w);
	p->bytes = prepared_bytes(p);
	handoff_put(&w->queue, p, p->bytes); /* the writer never cancels */
}

/* A message about a path (a failed stat, a skipped file), handed over in its turn. */
static void hand_over_message(struct walk *w, enum prepared_kind kind, const char *path,
                              const char *message)
{
	struct prepared *p = prepared_new(kind, path);

	if (!p) {
		fprintf(stderr, "%s: %s\n", path, message);
		return;
	}
	p->message = strdup(message);
	hand_over(w, p);
}

/* Has this folder been visited (a link back up the tree, or a second path to it)? Marks it. */
static int seen_before(struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->folder_count; i++)
		if (w->folders[i].dev == st->st_dev && w->folders[i].ino == st->st_ino)
			return 1;
	if (w->folder_count == w->folder_cap) {
		size_t cap = w->folder_cap ? 2 * w->folder_cap : 64;
		void *grown = realloc(w->folders, cap * sizeof(*w->folders));
		if (!grown)
			return 0;
		w->folders = grown;
		w->folder_cap = cap;
	}
	w->folders[w->folder_count].dev = st->st_dev;
	w->folders[w->folder_count].ino = st->st_ino;
	w->folder_count++;
	return 0;
}

static const char *file_kind(mode_t mode)
{
	return S_ISFIFO(mode)   ? "a FIFO"
	       : S_ISCHR(mode)  ? "a character device"
	       : S_ISBLK(mode)  ? "a block device"
	       : S_ISSOCK(mode) ? "a socket"
	                        : "not a regular file";
}

/* A regular file: read, decoded and handed over. */
static void walk_file(struct walk *w, const char *path, size_t name_at)
{
	struct prepared *p = prepare_file(w->opt, path, name_at);

	if (p)
		hand_over(w, p);
	else
		hand_over_message(w, PREPARED_UNREADABLE, path, "out of memory");
}

/* type: the entry's type as its folder listed it (DT_REG needs no stat: reading the file
 * checks it again), or DT_UNKNOWN. A file is stored under its path below the argument it was
 * found under (`rips` finds `rips/sub/hero.Animation_Z`, stored as `sub/hero.Animation_Z`),
 * or its own name when it was the argument: path + name_at; SIZE_MAX at the top, where it is
 * not known yet. */
static void walk_path(struct walk *w, const char *path, int depth, unsigned char type,
                      size_t name_at)
{
	struct stat st;

	if (name_at == SIZE_MAX) {
		const char *slash = strrchr(path, '/');
		name_at = slash && slash[1] ? (size_t)(slash + 1 - path) : 0;
	}
	if (type == DT_REG) {
		walk_file(w, path, name_at);
		return;
	}
	if (stat(path, &st) < 0) {
		hand_over_message(w, PREPARED_STAT_FAILED, path, strerror(errno));
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		struct dirent **names;
		int n;
		/* each folder once, however many links lead to it */
		if (depth > 64 || seen_before(w, &st))
			return;
		if (depth == 0)
			name_at = strlen(path) + 1; /* the children: below the argument */
		n = scandir(path, &names, NULL, alphasort);
		for (int i = 0; i < n; i++) {
			if (names[i]->d_name[0] != '.') {
				size_t len = strlen(path) + strlen(names[i]->d_name) + 2;
				char *child = malloc(len);
				if (child) {
					snprintf(child, len, "%s/%s", path, names[i]->d_name);
					walk_path(w, child, depth + 1, names[i]->d_type, name_at);
					free(child);
				}
			}
			free(names[i]);
		}
		if (n >= 0)
			free(names);
		return;
	}
	if (S_ISREG(st.st_mode)) {
		walk_file(w, path, name_at);
		return;
	}
	hand_over_message(w, PREPARED_SKIPPED, path, file_kind(st.st_mode));
}

static void *walk_main(void *arg)
{
	struct walk *w = arg;

	for (int i = 0; i < w->path_count; i++)
		walk_path(w, w->paths[i], 0, DT_UNKNOWN, SIZE_MAX);
	handoff_close(&w->queue);
	return NULL;
}

/* Past this many new entries, the database's statistics are brought up to date at the end
 * (on PostgreSQL the plans would guess until autovacuum came, a minute or more later). */
#define STATISTICS_AFTER 1000

static void refresh_statistics(struct import *im)
{
	struct timespec began;
	struct error err;
	int done;

	error_init(&err);
	clock_gettime(CLOCK_MONOTONIC, &began);
	done = catalog_refresh_statistics(im->cat, &err);
	if (done < 0) /* the entries are committed: a warning, not a failure */
		fprintf(stderr, "animdexd: warning: %s (the database makes them itself later)\n",
		        err.message);
	else if (done > 0 && !im->opt->quiet)
		fprintf(stderr,
		        "%sanimdexd: the database's statistics brought up to date in %.1f s\n",
		        im->tty ? "\n" : "", seconds_since(&began));
}

int import_paths(const struct import_options *opt, char *const *paths, int count)
{
	struct import im = {0};
	struct walk w = {0};
	struct error err;
	pthread_t walker;

	error_init(&err);
	im.opt = opt;
	im.tty = isatty(2);
	clock_gettime(CLOCK_MONOTONIC, &im.started);
	im.last_shown = im.started;
	im.cat = catalog_open(opt->db_path, &err);
	if (!im.cat || catalog_begin_bulk(im.cat, &err) < 0) {
		fprintf(stderr, "animdexd: %s\n", err.message);
		catalog_close(im.cat);
		return 1;
	}
	w.opt = opt;
	w.im = &im;
	w.paths = paths;
	w.path_count = count;
	handoff_init(&w.queue, QUEUE_FILES, QUEUE_BYTES);
	/* set before the thread starts, which reads it at once */
	w.threaded = 1;
	if (pthread_create(&walker, NULL, walk_main, &w) != 0)
		w.threaded = 0;
	if (w.threaded) {
		/* the writer: what the walk prepared, stored in its order */
		struct prepared *p;
		while ((p = handoff_take(&w.queue))) {
			take_prepared(&im, p);
			/* back to the walk's thread to be freed; a large one is freed here */
			if (p->bytes > DONE_BYTES_MAX || handoff_give_back(&w.queue, p) < 0)
				prepared_free(p);
		}
		pthread_join(walker, NULL);
		free_given_back(&w);
	} else {
		for (int i = 0; i < count; i++)
			walk_path(&w, paths[i], 0, DT_UNKNOWN, SIZE_MAX);
	}
	handoff_destroy(&w.queue);
	free(w.folders);
	if (catalog_commit(im.cat, &err) < 0)
		replay_batch(&im, NULL, 0);
	else
		im.created += im.batch_created, im.duplicates += im.batch_duplicates;
	catalog_rollback(im.cat); /* the empty batch a replay begins */
	forget_batch(&im);
	free(im.batch_paths);
	free(im.batch_name_at);
	if (im.created >= STATISTICS_AFTER)
		refresh_statistics(&im);
	catalog_close(im.cat);
	show_progress(&im, 1);
	return im.failed ? 1 : 0;
}
