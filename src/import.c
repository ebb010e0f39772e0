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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "format.h"
#include "hash.h"

#define BATCH_FILES  500
#define BATCH_BYTES  (16u * 1024 * 1024)
#define MAX_SIBLINGS 16

struct import {
	struct catalog *cat;
	const struct import_options *opt;
	size_t files, bytes, created, duplicates, not_animation, failed;
	size_t skipped; /* not regular files (FIFOs, devices, sockets) */
	struct {
		dev_t dev;
		ino_t ino;
	} * folders; /* the folders visited */
	size_t folder_count, folder_cap;
	size_t batch_files, batch_bytes;
	size_t batch_created, batch_duplicates; /* counted when the batch commits */
	char **batch_paths;                     /* the files stored in this batch, for a replay */
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
	        "%s%zu files, %.1f MiB in %.2f s (%.0f files/s): %zu entries created, %zu "
	        "duplicates, %zu not animation data, %zu failed%s\n",
	        im->tty && final ? "\r" : "", im->files, (double)im->bytes / 1048576.0, s, rate,
	        im->created, im->duplicates, im->not_animation, im->failed, skipped);
}

static void forget_batch(struct import *im)
{
	for (size_t i = 0; i < im->batch_files; i++)
		free(im->batch_paths[i]);
	im->batch_files = im->batch_bytes = 0;
	im->batch_created = im->batch_duplicates = 0;
}

static void import_file(struct import *im, const char *path, int again);

/* Rolls the batch back and stores its files again one by one (with `also`, the file that was
 * refused, when given), then commits them and starts a new batch. */
static void replay_batch(struct import *im, const char *also)
{
	struct error err;
	size_t count = im->batch_files;
	char **paths = im->batch_paths;

	error_init(&err);
	catalog_rollback(im->cat);
	im->batch_paths = NULL;
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
			import_file(im, paths[i], 1);
		if (also)
			import_file(im, also, 1);
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
		replay_batch(im, NULL);
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
static int remember(struct import *im, const char *path)
{
	if (im->batch_files == im->batch_cap) {
		size_t cap = im->batch_cap ? 2 * im->batch_cap : 64;
		char **grown = realloc(im->batch_paths, cap * sizeof(*grown));
		if (!grown)
			return -1;
		im->batch_paths = grown;
		im->batch_cap = cap;
	}
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

/* `again`: a replay of a file already counted among the files read. */
static void import_file(struct import *im, const char *path, int again)
{
	struct upload_sibling siblings[MAX_SIBLINGS];
	char *names[MAX_SIBLINGS], *datas[MAX_SIBLINGS];
	struct upload up = {0};
	struct decode_result result;
	struct catalog_upload cu;
	char sha[SHA256_HEX_SIZE];
	struct error err;
	size_t length = 0, nsib = 0;
	char *data = import_read_file(path, &length);
	json_t *entries;
	int existed = 0;

	im->files += !again;
	error_init(&err);
	decode_result_init(&result);
	if (!data) {
		fprintf(stderr, "%s%s: cannot read: %s\n", im->tty ? "\r" : "", path,
		        strerror(errno));
		im->failed++;
		goto done;
	}
	im->bytes += again ? 0 : length;
	if (length == 0) {
		im->not_animation++;
		goto done;
	}
	up.data = (const uint8_t *)data;
	up.length = length;
	up.filename = path;
	up.class_name = im->opt->class_name;
	up.family = im->opt->family;
	up.max_inflate = im->opt->max_inflate;
	up.max_entries = im->opt->max_entries;
	if (format_has_extension(path, "gltf")) {
		nsib = load_siblings(path, siblings, names, datas);
		up.siblings = siblings;
		up.sibling_count = nsib;
	}
	if (format_decode(&up, &result, &err) < 0) {
		if (err.code == ERROR_UNSUPPORTED_FORMAT && !im->opt->class_name) {
			im->not_animation++;
		} else {
			fprintf(stderr, "%s%s: %s\n", im->tty ? "\r" : "", path, err.message);
			im->failed++;
		}
		goto done;
	}
	if (result.stored) {
		up.data = result.stored;
		up.length = result.stored_length;
	}
	sha256_hex(up.data, up.length, sha);
	cu = (struct catalog_upload){up.data, up.length, sha, path, NULL, NULL};
	entries = catalog_put(im->cat, &cu, &result, &existed, &err);
	if (!entries && !im->careful) {
		/* which upload of the batch failed is only sure one by one */
		replay_batch(im, path);
		goto done;
	}
	if (!entries) {
		fprintf(stderr, "%s%s: %s\n", im->tty ? "\r" : "", path, err.message);
		im->failed++;
		goto done;
	}
	{
		size_t i, created = 0;
		json_t *e;
		json_array_foreach(entries, i, e) created +=
		    strcmp(json_string_value(json_object_get(e, "status")), "created") == 0;
		if (im->careful) {
			im->duplicates += existed;
			im->created += created;
		} else {
			im->batch_duplicates += existed;
			im->batch_created += created;
		}
	}
	json_decref(entries);
	if (im->careful)
		goto done;
	if (remember(im, path) < 0) {
		replay_batch(im, NULL); /* out of memory: store what there is, carefully */
		goto done;
	}
	im->batch_bytes += up.length;
	if (im->batch_files >= BATCH_FILES || im->batch_bytes >= BATCH_BYTES)
		flush_batch(im);
done:
	for (size_t i = 0; i < nsib; i++)
		free(names[i]), free(datas[i]);
	decode_result_cleanup(&result);
	free(data);
	show_progress(im, 0);
}

/* Has this folder been visited (a link back up the tree, or a second path to it)? Marks it. */
static int seen_before(struct import *im, const struct stat *st)
{
	for (size_t i = 0; i < im->folder_count; i++)
		if (im->folders[i].dev == st->st_dev && im->folders[i].ino == st->st_ino)
			return 1;
	if (im->folder_count == im->folder_cap) {
		size_t cap = im->folder_cap ? 2 * im->folder_cap : 64;
		void *grown = realloc(im->folders, cap * sizeof(*im->folders));
		if (!grown)
			return 0;
		im->folders = grown;
		im->folder_cap = cap;
	}
	im->folders[im->folder_count].dev = st->st_dev;
	im->folders[im->folder_count].ino = st->st_ino;
	im->folder_count++;
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

static void import_path(struct import *im, const char *path, int depth)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "%s%s: %s\n", im->tty ? "\r" : "", path, strerror(errno));
		im->failed++;
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		struct dirent **names;
		int n;
		/* each folder once, however many links lead to it */
		if (depth > 64 || seen_before(im, &st))
			return;
		n = scandir(path, &names, NULL, alphasort);
		for (int i = 0; i < n; i++) {
			if (names[i]->d_name[0] != '.') {
				size_t len = strlen(path) + strlen(names[i]->d_name) + 2;
				char *child = malloc(len);
				if (child) {
					snprintf(child, len, "%s/%s", path, names[i]->d_name);
					import_path(im, child, depth + 1);
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
		import_file(im, path, 0);
		return;
	}
	fprintf(stderr, "%s%s: %s, skipped\n", im->tty ? "\r" : "", path, file_kind(st.st_mode));
	im->skipped++;
}

int import_paths(const struct import_options *opt, char *const *paths, int count)
{
	struct import im = {0};
	struct error err;

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
	for (int i = 0; i < count; i++)
		import_path(&im, paths[i], 0);
	if (catalog_commit(im.cat, &err) < 0)
		replay_batch(&im, NULL);
	else
		im.created += im.batch_created, im.duplicates += im.batch_duplicates;
	catalog_rollback(im.cat); /* the empty batch a replay begins */
	forget_batch(&im);
	free(im.batch_paths);
	catalog_close(im.cat);
	show_progress(&im, 1);
	free(im.folders);
	return im.failed ? 1 : 0;
}
