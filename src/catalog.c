/* catalog.c: the catalogue (DESIGN section 5), whatever database holds it: JSON shaping, the
 * deduplication rules, token checks and the track cache are written here once; the SQL, the
 * connections and the migrations are in catalog_sqlite.c and catalog_postgres.c
 * (catalog_backend.h). A --db that is a PostgreSQL connection string opens PostgreSQL; anything
 * else is a SQLite file.
 */
#include "catalog.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "buf.h"
#include "catalog_backend.h"
#include "hash.h"
#include "render.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tracks store native little-endian arrays; a big-endian host needs byte swapping here"
#endif

/* A few recently sampled tracks per connection: entries never change once stored, so a cached
 * track stays right until a delete or a redecode, which bumps the generation and empties every
 * cache: at once in this process, and within GENERATION_CHECK_MS in any other process sharing
 * the database (each process reads the stored generation that often while it samples). */
#define TRACK_CACHE_SIZE      16
#define TRACK_CACHE_MAX_BYTES (4u * 1024 * 1024)
#define GENERATION_CHECK_MS   200

struct cached_track {
	struct catalog_track track; /* owns its arrays; track.name "" when the slot is empty */
	uint64_t used;              /* for least-recently-used eviction */
};

static uint64_t catalog_generation;       /* bumped by every change seen (atomic) */
static int64_t stored_generation = -1;    /* the database's, when last read (atomic) */
static int64_t stored_generation_read_ms; /* when (monotonic; atomic) */

struct catalog;
static void cache_clear(struct catalog *cat);

struct catalog {
	struct db *db;                               /* the connection */
	struct cached_track cache[TRACK_CACHE_SIZE]; /* recent tracks */
	uint64_t cache_generation;                   /* catalog_generation when last filled */
	uint64_t cache_clock;
	int bulk;             /* in catalog_begin_bulk's transaction */
	struct catalog *next; /* in its pool's list */
};

struct db *catalog_db(struct catalog *cat)
{
	return cat->db;
}

/* Runs a statement that returns no rows (or whose rows do not matter). */
static int catalog_exec(struct catalog *cat, enum statement st, const char *what, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, st, err);
	int rc;

	if (!s)
		return -1;
	rc = db_step(s, what, err);
	db_reset(s);
	return rc < 0 ? -1 : 0;
}

int db_is_postgres(const char *target)
{
	size_t word = strspn(target, "abcdefghijklmnopqrstuvwxyz_");

	/* a URI, or libpq's "keyword=value ..." form; a path with a '=' in its first word is
	 * written "./a=b" */
	return strncmp(target, "postgresql://", 13) == 0 ||
	       strncmp(target, "postgres://", 11) == 0 || (word > 0 && target[word] == '=');
}

void catalog_set_timeout(unsigned seconds)
{
	db_postgres_set_timeout(seconds);
}

void catalog_display_name(const char *target, char *out, size_t size)
{
	if (db_is_postgres(target))
		db_postgres_redact(target, out, size);
	else
		snprintf(out, size, "%s", target);
}

static struct catalog *catalog_open_as(const char *target, int read_only, struct error *err)
{
	struct catalog *cat = calloc(1, sizeof(*cat));

	if (!cat) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	cat->db = db_is_postgres(target) ? db_postgres_open(target, read_only, err)
	                                 : db_sqlite_open(target, read_only, err);
	if (!cat->db) {
		free(cat);
		return NULL;
	}
	return cat;
}

struct catalog *catalog_open(const char *target, struct error *err)
{
	return catalog_open_as(target, 0, err);
}

struct catalog *catalog_open_read_only(const char *target, struct error *err)
{
	return catalog_open_as(target, 1, err);
}

void catalog_close(struct catalog *cat)
{
	if (!cat)
		return;
	cache_clear(cat);
	cat->db->ops->close(cat->db);
	free(cat);
}

int catalog_writable(struct catalog *cat, struct error *err)
{
	return cat->db->ops->writable(cat->db, err);
}

int catalog_schema_version(struct catalog *cat)
{
	return cat->db->ops->schema_version(cat->db);
}

json_t *catalog_describe(struct catalog *cat)
{
	return cat->db->ops->describe(cat->db);
}

/* The pool: one connection per thread. */

/* A group's bounds: a transaction ends after this many jobs, so that an answer does not wait
 * behind a long queue's worth of writes, and its rows stay in the writer's page cache. */
#define GROUP_MAX_JOBS 64

struct catalog_pool {
	char *target;     /* the database file or connection string */
	int read_only;    /* connections for reading only */
	struct stat file; /* a file's identity when the pool was made */
	int file_known;
	pthread_key_t key;           /* the calling thread's connection */
	pthread_mutex_t lock;        /* guards all */
	struct catalog *all;         /* every connection opened, closed by catalog_pool_free */
	pthread_mutex_t writer_lock; /* held by the thread writing with writer */
	struct catalog *writer;      /* a local file's shared writing connection, once opened */
	/* group commit (catalog_pool_submit) */
	pthread_mutex_t jobs_lock;      /* guards the fields below */
	pthread_cond_t jobs_wake;       /* a job came, or writes stop */
	struct catalog_job *jobs;       /* waiting, first in first out */
	struct catalog_job **jobs_tail; /* where the next one goes */
	int group_state;                /* 0: not started, 1: running, -1: stopped or refused */
	pthread_t group_thread;
};

struct catalog_pool *catalog_pool_create(const char *target, int read_only)
{
	struct catalog_pool *pool = calloc(1, sizeof(*pool));

	if (!pool)
		return NULL;
	pool->read_only = read_only;
	pool->file_known = !db_is_postgres(target) && stat(target, &pool->file) == 0;
	pool->target = strdup(target);
	if (!pool->target || pthread_key_create(&pool->key, NULL) != 0) {
		free(pool->target);
		free(pool);
		return NULL;
	}
	pthread_mutex_init(&pool->lock, NULL);
	pthread_mutex_init(&pool->writer_lock, NULL);
	pthread_mutex_init(&pool->jobs_lock, NULL);
	pthread_cond_init(&pool->jobs_wake, NULL);
	pool->jobs_tail = &pool->jobs;
	pool->group_state =
	    db_is_postgres(target) ? -1 : 0; /* a server's writers go side by side */
	return pool;
}

void catalog_pool_free(struct catalog_pool *pool)
{
	struct catalog *cat, *next;

	if (!pool)
		return;
	catalog_pool_stop_writes(pool);
	for (cat = pool->all; cat; cat = next) {
		next = cat->next;
		catalog_close(cat);
	}
	pthread_key_delete(pool->key);
	pthread_mutex_destroy(&pool->lock);
	pthread_mutex_destroy(&pool->writer_lock);
	pthread_mutex_destroy(&pool->jobs_lock);
	pthread_cond_destroy(&pool->jobs_wake);
	free(pool->target);
	free(pool);
}

/* A new connection of the pool's, closed with it; never to a file other than the one the
 * pool was made on (a catalogue moved or replaced meanwhile: its old -wal and -shm would be
 * read over the new file). */
static struct catalog *pool_open(struct catalog_pool *pool, struct error *err)
{
	struct catalog *cat;
	struct stat now;

	if (pool->file_known && (stat(pool->target, &now) != 0 || now.st_dev != pool->file.st_dev ||
	                         now.st_ino != pool->file.st_ino)) {
		error_set(
		    err, ERROR_UNAVAILABLE, NULL, -1,
		    "catalogue: its file is no longer the one animdexd opened (it was removed, "
		    "moved or replaced while the daemon ran); restart animdexd on the file you "
		    "mean");
		return NULL;
	}
	cat = catalog_open_as(pool->target, pool->read_only, err);
	if (!cat)
		return NULL;
	pthread_mutex_lock(&pool->lock);
	cat->next = pool->all;
	pool->all = cat;
	pthread_mutex_unlock(&pool->lock);
	return cat;
}

struct catalog *catalog_pool_get(struct catalog_pool *pool, struct error *err)
{
	struct catalog *cat = pthread_getspecific(pool->key);

	if (cat)
		return cat;
	cat = pool_open(pool, err);
	if (cat)
		pthread_setspecific(pool->key, cat);
	return cat;
}

struct catalog *catalog_pool_writer(struct catalog_pool *pool, struct error *err)
{
	if (db_is_postgres(pool->target)) /* writers side by side, each on its own */
		return catalog_pool_get(pool, err);
	pthread_mutex_lock(&pool->writer_lock);
	if (!pool->writer && (pool->writer = pool_open(pool, err)) != NULL &&
	    pool->writer->db->ops->busy_writer)
		pool->writer->db->ops->busy_writer(pool->writer->db);
	if (!pool->writer)
		pthread_mutex_unlock(&pool->writer_lock);
	return pool->writer;
}

void catalog_pool_release_writer(struct catalog_pool *pool, struct catalog *writer)
{
	if (writer && writer == pool->writer)
		pthread_mutex_unlock(&pool->writer_lock);
}

/* Group commit. */

/* One transaction for a group of jobs: each in a savepoint; their `done` once it is over. */
static void run_group(struct catalog_pool *pool, struct catalog_job *group)
{
	struct error commit_err;
	struct catalog *cat;
	struct catalog_job *job, *next;

	error_init(&commit_err);
	for (job = group; job; job = job->next) { /* until stored */
		error_init(&job->err);
		error_set(&job->err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: the transaction ended before the upload was stored");
	}
	cat = catalog_pool_writer(pool, &commit_err);
	if (cat && catalog_begin(cat, &commit_err) < 0) {
		catalog_pool_release_writer(pool, cat);
		cat = NULL;
	}
	for (job = group; cat && job && cat->db->ops->in_transaction(cat->db); job = job->next) {
		struct error err;
		error_init(&err);
		if (catalog_exec(cat, ST_SAVEPOINT, "starting an upload", &err) == 0) {
			if (job->store(job, cat, &err) == 0 &&
			    catalog_exec(cat, ST_RELEASE, "keeping the upload", &err) == 0) {
				error_init(&job->err);
				continue;
			}
			if (cat->db->ops->in_transaction(cat->db)) {
				catalog_exec(cat, ST_ROLLBACK_TO, "undoing an upload", NULL);
				catalog_exec(cat, ST_RELEASE, "undoing an upload", NULL);
			}
		}
		if (error_is_set(&err))
			job->err = err;
	}
	if (cat) {
		if (!cat->db->ops->in_transaction(cat->db))
			error_set(&commit_err, ERROR_INTERNAL, NULL, -1,
			          "catalogue: the transaction ended before its commit");
		else
			catalog_commit(cat, &commit_err);
		catalog_pool_release_writer(pool, cat);
	}
	/* a job stored and committed: no error; otherwise its own, or the transaction's */
	for (job = group; job; job = next) {
		next = job->next;
		if (!cat || (!error_is_set(&job->err) && error_is_set(&commit_err)))
			job->err = commit_err;
		job->done(job, error_is_set(&job->err) ? &job->err : NULL);
	}
}

static void *group_main(void *arg)
{
	struct catalog_pool *pool = arg;

	pthread_mutex_lock(&pool->jobs_lock);
	for (;;) {
		struct catalog_job *group, **end;
		int n = 0;
		while (!pool->jobs && pool->group_state > 0)
			pthread_cond_wait(&pool->jobs_wake, &pool->jobs_lock);
		if (!pool->jobs)
			break; /* stopped, and nothing left */
		/* the first GROUP_MAX_JOBS waiting, in the order they came */
		group = pool->jobs;
		for (end = &pool->jobs; *end && n < GROUP_MAX_JOBS; end = &(*end)->next)
			n++;
		pool->jobs = *end;
		*end = NULL;
		if (!pool->jobs)
			pool->jobs_tail = &pool->jobs;
		pthread_mutex_unlock(&pool->jobs_lock);
		run_group(pool, group);
		pthread_mutex_lock(&pool->jobs_lock);
	}
	pthread_mutex_unlock(&pool->jobs_lock);
	return NULL;
}

int catalog_pool_groups_writes(struct catalog_pool *pool)
{
	int state;

	pthread_mutex_lock(&pool->jobs_lock);
	state = pool->group_state;
	pthread_mutex_unlock(&pool->jobs_lock);
	return state >= 0;
}

int catalog_pool_submit(struct catalog_pool *pool, struct catalog_job *job)
{
	int rc = 0;

	pthread_mutex_lock(&pool->jobs_lock);
	if (pool->group_state == 0) {
		pool->group_state =
		    pthread_create(&pool->group_thread, NULL, group_main, pool) == 0 ? 1 : -1;
	}
	if (pool->group_state > 0) {
		job->next = NULL;
		*pool->jobs_tail = job;
		pool->jobs_tail = &job->next;
		pthread_cond_signal(&pool->jobs_wake);
	} else {
		rc = -1;
	}
	pthread_mutex_unlock(&pool->jobs_lock);
	return rc;
}

void catalog_pool_stop_writes(struct catalog_pool *pool)
{
	int running;

	pthread_mutex_lock(&pool->jobs_lock);
	running = pool->group_state > 0;
	pool->group_state = -1;
	pthread_cond_signal(&pool->jobs_wake);
	pthread_mutex_unlock(&pool->jobs_lock);
	if (running)
		pthread_join(pool->group_thread, NULL); /* after the jobs waiting are done */
}

/* Rows to JSON. */

static json_t *column_text_or_null(struct db_stmt *s, int col)
{
	const char *t = db_column_text(s, col);
	return t ? json_string(t) : json_null();
}

/* A summary from the SUMMARY_COLUMNS of the current row. */
static json_t *row_summary(struct db_stmt *s)
{
	int64_t id = db_column_int64(s, 0);
	uint32_t crc = (uint32_t)db_column_int64(s, 4);
	char handle[11], when[32], self[48];
	json_t *o = json_object();

	render_handle(crc, handle);
	render_time_ms(db_column_int64(s, 9), when);
	snprintf(self, sizeof(self), "/api/resources/%" PRId64, id);
	json_object_set_new(o, "id", json_integer(id));
	json_object_set_new(o, "class", column_text_or_null(s, 1));
	json_object_set_new(o, "family", column_text_or_null(s, 2));
	json_object_set_new(o, "name", column_text_or_null(s, 3));
	json_object_set_new(o, "crc32", json_string(handle));
	json_object_set_new(o, "crc32_decimal", json_integer(crc));
	json_object_set_new(o, "crc32_name", column_text_or_null(s, 15));
	json_object_set_new(o, "crc32_source", column_text_or_null(s, 5));
	json_object_set_new(o, "filename", column_text_or_null(s, 6));
	json_object_set_new(o, "note", column_text_or_null(s, 7));
	json_object_set_new(o, "uploaded_by", column_text_or_null(s, 8));
	json_object_set_new(o, "uploaded_at", json_string(when));
	json_object_set_new(o, "duration",
	                    db_column_is_null(s, 10) ? json_null()
	                                             : json_real(db_column_double(s, 10)));
	json_object_set_new(o, "track_count", json_integer((int)db_column_int64(s, 11)));
	json_object_set_new(o, "sha256", column_text_or_null(s, 12));
	json_object_set_new(o, "size", json_integer(db_column_int64(s, 13)));
	json_object_set_new(o, "part", json_integer((int)db_column_int64(s, 14)));
	json_object_set_new(o, "url", json_string(self));
	return o;
}

static json_t *collect_summaries(struct db_stmt *s, struct error *err)
{
	json_t *list = json_array();
	int rc;

	while ((rc = db_step(s, "reading entries", err)) == 1)
		json_array_append_new(list, row_summary(s));
	db_reset(s);
	if (rc < 0) {
		json_decref(list);
		return NULL;
	}
	return list;
}

json_t *catalog_find_by_sha256(struct catalog *cat, const char *sha256, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_FIND_BY_SHA256, err);

	if (!s)
		return NULL;
	db_bind_text(s, 1, sha256);
	return collect_summaries(s, err);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* info_text: the track's info as JSON made ahead, or NULL to make it here */
static int insert_track(struct catalog *cat, int64_t id, const struct resource *res, unsigned n,
                        const char *info_text, struct error *err)
{
	const struct channel *ch = &res->clip.channels[n];
	const struct target *tg = &res->clip.targets[ch->target];
	const struct sampler *sp = &res->clip.samplers[ch->sampler];
	const struct track_extra *extra = res->extras ? &res->extras[n] : NULL;
	struct db_stmt *s = db_prepare(cat->db, ST_INSERT_TRACK, err);
	char object[24], property[24], *info = NULL;
	int rc;

	if (!s)
		return -1;
	snprintf(object, sizeof(object), "%" PRIu64, tg->object);
	snprintf(property, sizeof(property), "%" PRIu64, ch->property);
	db_bind_int64(s, 1, id);
	db_bind_int64(s, 2, n);
	db_bind_text(s, 3, res->track_names ? res->track_names[n] : "");
	db_bind_text(s, 4, tg->schema);
	db_bind_text(s, 5, object);
	db_bind_text(s, 6, tg->name);
	db_bind_text(s, 7, property);
	db_bind_int64(s, 8, ch->first_element);
	db_bind_text(s, 9, value_type_name(sp->type));
	db_bind_int64(s, 10, sp->array_size);
	db_bind_text(s, 11, interpolation_name(sp->interp));
	db_bind_text(s, 12, semantic_name(sp->semantic));
	db_bind_int64(s, 13, sp->key_count);
	db_bind_double(s, 14, sp->times[0]);
	db_bind_double(s, 15, sp->times[sp->key_count - 1]);
	db_bind_blob(s, 16, sp->times, (size_t)sp->key_count * sizeof(float));
	db_bind_blob(s, 17, sp->values, sp->value_bytes);
	db_bind_text(s, 18, extra && extra->events ? "events" : "curve");
	if (info_text)
		db_bind_text(s, 19, info_text);
	else if (extra && extra->info)
		db_bind_text(s, 19, info = render_json_stored(extra->info));
	if (extra && extra->has_handle)
		db_bind_int64(s, 20, extra->handle);
	db_bind_int64(s, 21, (int64_t)sp->rules);
	rc = db_step(s, "storing a track", err);
	db_reset(s);
	free(info);
	return rc < 0 ? -1 : 0;
}

/* A resource's structure and assumptions as JSON text, as they are stored; -1 when out of
 * memory. */
static int stored_texts(const struct resource *res, char **structure_text, char **assumed_text)
{
	*structure_text = render_structure_stored(res);
	*assumed_text = render_json_stored(res->assumed);
	if (*structure_text && *assumed_text)
		return 0;
	free(*structure_text);
	free(*assumed_text);
	*structure_text = *assumed_text = NULL;
	return -1;
}

int catalog_render_texts(struct decode_result *decoded)
{
	struct stored_texts *texts = calloc(decoded->count + 1, sizeof(*texts));

	if (!texts)
		return -1;
	for (size_t p = 0; p < decoded->count; p++) {
		const struct resource *res = decoded->resources[p];
		struct stored_texts *t = &texts[p];
		int failed = stored_texts(res, &t->structure, &t->assumed) < 0;
		t->track_count = res->clip.channel_count;
		t->track_infos = calloc(t->track_count + 1, sizeof(*t->track_infos));
		failed |= !t->track_infos;
		for (size_t n = 0; !failed && res->extras && n < t->track_count; n++)
			if (res->extras[n].info &&
			    !(t->track_infos[n] = render_json_stored(res->extras[n].info)))
				failed = 1;
		if (failed) {
			for (size_t i = 0; i <= p; i++)
				stored_texts_cleanup(&texts[i]);
			free(texts);
			return -1;
		}
	}
	decoded->texts = texts;
	return 0;
}

/* texts: the resource's stored texts made ahead, or NULL to make them here */
static int insert_resource(struct catalog *cat, const struct catalog_upload *up,
                           const struct resource *res, const struct stored_texts *texts,
                           unsigned part, int64_t when, int64_t *id, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_INSERT_RESOURCE, err);
	char *structure_text = NULL, *assumed_text = NULL;
	int rc;

	if (!s)
		return -1;
	if (texts) {
		structure_text = texts->structure;
		assumed_text = texts->assumed;
	} else if (stored_texts(res, &structure_text, &assumed_text) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	db_bind_text(s, 1, up->sha256);
	db_bind_int64(s, 2, part);
	db_bind_text(s, 3, res->family);
	db_bind_text(s, 4, res->class_name);
	db_bind_text(s, 5, res->name);
	db_bind_int64(s, 6, res->crc32);
	db_bind_text(s, 7, res->crc32_source);
	db_bind_text(s, 8, up->filename);
	db_bind_text(s, 9, up->note);
	db_bind_text(s, 10, up->uploaded_by);
	db_bind_int64(s, 11, when);
	if (res->clip.sampler_count || res->clip.duration > 0)
		db_bind_double(s, 12, res->clip.duration);
	db_bind_int64(s, 13, (int64_t)res->clip.channel_count);
	db_bind_text(s, 14, structure_text);
	db_bind_text(s, 15, assumed_text);
	db_bind_int64(s, 16, (int64_t)res->decoder_version);
	rc = db_step(s, "storing an entry", err);
	if (rc == 1)
		*id = db_column_int64(s, 0);
	db_reset(s);
	if (!texts) {
		free(structure_text);
		free(assumed_text);
	}
	if (rc == 0)
		error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: storing an entry gave no id");
	return rc == 1 ? 0 : -1;
}

static int insert_refs(struct catalog *cat, int64_t id, const struct resource *res,
                       struct error *err)
{
	for (size_t i = 0; i < res->ref_count; i++) {
		const struct reference *ref = &res->refs[i];
		struct db_stmt *s = db_prepare(cat->db, ST_INSERT_REF, err);
		int rc;
		if (!s)
			return -1;
		db_bind_int64(s, 1, id);
		db_bind_int64(s, 2, ref->crc32);
		db_bind_text(s, 3, ref->kind);
		if (ref->track >= 0)
			db_bind_int64(s, 4, ref->track);
		if (ref->key >= 0)
			db_bind_int64(s, 5, ref->key);
		rc = db_step(s, "storing a reference", err);
		db_reset(s);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int64_t catalog_blob_entry_count(struct catalog *cat, const char *sha256, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_BLOB_ENTRY_COUNT, err);
	int64_t n = -1;
	int rc;

	if (!s)
		return -2;
	db_bind_text(s, 1, sha256);
	rc = db_step(s, "reading the stored bytes' entry count", err);
	if (rc == 1 && !db_column_is_null(s, 0))
		n = db_column_int64(s, 0);
	db_reset(s);
	return rc < 0 ? -2 : n;
}

/* Is a part of these bytes already among the stored entries? */
static int has_part(const json_t *entries, size_t part)
{
	size_t i;
	json_t *e;

	json_array_foreach(entries, i, e) if ((size_t)json_integer_value(
	                                          json_object_get(e, "part")) == part) return 1;
	return 0;
}

static int contains_id(const int64_t *ids, size_t count, int64_t id)
{
	for (size_t i = 0; i < count; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* Stores the bytes, or records how many entries they give when they are already stored. */
static int put_blob(struct catalog *cat, const struct catalog_upload *up, size_t entries,
                    int64_t when, int stored, struct error *err)
{
	struct db_stmt *s =
	    db_prepare(cat->db, stored ? ST_SET_BLOB_ENTRY_COUNT : ST_INSERT_BLOB, err);
	int rc;

	if (!s)
		return -1;
	db_bind_text(s, 1, up->sha256);
	if (stored) {
		db_bind_int64(s, 2, (int64_t)entries);
	} else {
		db_bind_int64(s, 2, (int64_t)up->length);
		db_bind_blob(s, 3, up->bytes, up->length);
		db_bind_text(s, 4, up->filename);
		db_bind_int64(s, 5, when);
		db_bind_int64(s, 6, (int64_t)entries);
	}
	rc = db_step(
	    s, stored ? "counting the stored bytes' entries" : "storing the uploaded bytes", err);
	db_reset(s);
	return rc < 0 ? -1 : 0;
}

json_t *catalog_put(struct catalog *cat, const struct catalog_upload *up,
                    const struct decode_result *decoded, int *existed, struct error *err)
{
	int64_t when = now_ms(), *created_ids = NULL;
	size_t created_count = 0;
	struct db_stmt *s;
	json_t *stored = NULL, *e;
	int own = !cat->db->ops->in_transaction(cat->db);
	int isolated = !own && !cat->bulk;
	int rc;
	size_t i;

	*existed = 0;
	/* alone, a transaction; inside a longer one, a savepoint, so that a failed upload leaves
	 * nothing of itself there either; in a bulk one, nothing (its writer replays the whole
	 * transaction carefully when one upload fails) */
	if ((own || isolated) &&
	    catalog_exec(cat, own ? ST_BEGIN : ST_SAVEPOINT, "starting a transaction", err) < 0)
		return NULL;
	/* Inside the write lock (and, for a shared database, the lock on these bytes): a
	 * concurrent upload of the same bytes, from any daemon, is seen here. */
	if (cat->bulk && cat->db->ops->remote) {
		/* optimistic: new bytes, stored without a round trip; bytes or entries already
		 * there break a unique constraint, and the bulk writer replays carefully */
		stored = json_array();
	} else {
		s = db_prepare(cat->db, ST_LOCK_UPLOAD, err);
		if (!s)
			goto fail;
		db_bind_text(s, 1, up->sha256);
		rc = db_step(s, "waiting for another upload of the same bytes", err);
		db_reset(s);
		if (rc < 0)
			goto fail;
		stored = catalog_find_by_sha256(cat, up->sha256, err);
	}
	if (!stored ||
	    put_blob(cat, up, decoded->count, when, json_array_size(stored) > 0, err) < 0)
		goto fail;
	created_ids = calloc(decoded->count + 1, sizeof(*created_ids));
	if (!created_ids) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	for (size_t p = 0; p < decoded->count; p++) {
		const struct resource *res = decoded->resources[p];
		int64_t id = 0;
		if (has_part(stored, p))
			continue;
		const struct stored_texts *texts = decoded->texts ? &decoded->texts[p] : NULL;
		if (insert_resource(cat, up, res, texts, (unsigned)p, when, &id, err) < 0 ||
		    insert_refs(cat, id, res, err) < 0)
			goto fail;
		for (size_t n = 0; n < res->clip.channel_count; n++)
			if (insert_track(cat, id, res, (unsigned)n,
			                 texts ? texts->track_infos[n] : NULL, err) < 0)
				goto fail;
		created_ids[created_count++] = id;
	}
	if (created_count == 0) {
		*existed = 1;
		if (own || isolated)
			catalog_exec(cat, own ? ST_ROLLBACK : ST_ROLLBACK_TO, "rolling back", NULL);
		if (isolated)
			catalog_exec(cat, ST_RELEASE, "rolling back", NULL);
	} else if (cat->bulk) {
		/* not read back: what a bulk writer needs is which entries were made */
		for (size_t p = 0, n = 0; p < decoded->count; p++)
			if (!has_part(stored, p))
				json_array_append_new(stored,
				                      json_pack("{s:I, s:I}", "id",
				                                (json_int_t)created_ids[n++],
				                                "part", (json_int_t)p));
	} else {
		json_decref(stored);
		stored = catalog_find_by_sha256(cat, up->sha256, err);
		if (!stored || catalog_exec(cat, own ? ST_COMMIT : ST_RELEASE,
		                            "committing the upload", err) < 0)
			goto fail;
	}
	json_array_foreach(stored, i, e)
	{
		int64_t id = (int64_t)json_integer_value(json_object_get(e, "id"));
		json_object_set_new(e, "status",
		                    json_string(contains_id(created_ids, created_count, id)
		                                    ? "created"
		                                    : "existing"));
	}
	free(created_ids);
	return stored;
fail:
	free(created_ids);
	json_decref(stored);
	if (own) {
		catalog_rollback(cat);
	} else if (isolated && cat->db->ops->in_transaction(cat->db)) {
		catalog_exec(cat, ST_ROLLBACK_TO, "rolling back the upload", NULL);
		catalog_exec(cat, ST_RELEASE, "rolling back the upload", NULL);
	}
	return NULL;
}

int catalog_begin(struct catalog *cat, struct error *err)
{
	return catalog_exec(cat, ST_BEGIN, "starting a transaction", err);
}

int catalog_begin_read(struct catalog *cat, struct error *err)
{
	return catalog_exec(cat, ST_BEGIN_READ, "starting a read transaction", err);
}

int catalog_begin_bulk(struct catalog *cat, struct error *err)
{
	if (catalog_exec(cat, ST_BEGIN, "starting a transaction", err) < 0)
		return -1;
	cat->bulk = 1;
	cat->db->ops->bulk(cat->db, 1);
	return 0;
}

int catalog_commit(struct catalog *cat, struct error *err)
{
	cat->bulk = 0;
	cat->db->ops->bulk(cat->db, 0);
	if (catalog_exec(cat, ST_COMMIT, "committing", err) < 0) {
		catalog_rollback(cat);
		return -1;
	}
	return 0;
}

void catalog_rollback(struct catalog *cat)
{
	cat->bulk = 0;
	cat->db->ops->bulk(cat->db, 0);
	if (cat->db->ops->in_transaction(cat->db))
		catalog_exec(cat, ST_ROLLBACK, "rolling back", NULL);
}

/* List with filters and keyset paging. */

/* "%q%" with LIKE's wildcards escaped. */
static char *like_pattern(const char *q)
{
	size_t n = strlen(q);
	char *p = malloc(2 * n + 3), *o = p;

	if (!p)
		return NULL;
	*o++ = '%';
	for (; *q; q++) {
		if (*q == '%' || *q == '_' || *q == '\\')
			*o++ = '\\';
		*o++ = *q;
	}
	*o++ = '%';
	*o = '\0';
	return p;
}

/* The list statement for q, bound; *pattern (the LIKE pattern of q->q, or NULL) is the
 * caller's to free after the statement has run. */
static struct db_stmt *list_statement(struct catalog *cat, const struct catalog_query *q,
                                      char **pattern, struct error *err)
{
	unsigned bits = (q->class_name ? FILTER_CLASS : 0) | (q->family ? FILTER_FAMILY : 0) |
	                (q->name ? FILTER_NAME : 0) | (q->q ? FILTER_Q : 0) |
	                (q->has_crc32 ? FILTER_CRC32 : 0) | (q->before_id > 0 ? FILTER_CURSOR : 0);
	struct db_stmt *s = cat->db->ops->prepare_list(cat->db, bits, err);

	*pattern = NULL;
	if (!s)
		return NULL;
	if (q->class_name)
		db_bind_text(s, 1, q->class_name);
	if (q->family)
		db_bind_text(s, 2, q->family);
	if (q->name)
		db_bind_text(s, 3, q->name);
	if (q->q) {
		*pattern = like_pattern(q->q);
		if (!*pattern) {
			db_reset(s);
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			return NULL;
		}
		db_bind_text(s, 4, *pattern);
	}
	if (q->has_crc32)
		db_bind_int64(s, 5, q->crc32);
	if (q->before_id > 0)
		db_bind_int64(s, 6, q->before_id);
	db_bind_int64(s, 7, (int64_t)q->limit + 1);
	return s;
}

json_t *catalog_list(struct catalog *cat, const struct catalog_query *q, struct error *err)
{
	char *pattern;
	struct db_stmt *s = list_statement(cat, q, &pattern, err);
	json_t *list, *out;
	size_t count;

	if (!s)
		return NULL;
	list = collect_summaries(s, err);
	free(pattern);
	if (!list)
		return NULL;
	out = json_object();
	count = json_array_size(list);
	if (count > q->limit) {
		char cursor[24];
		json_array_remove(list, count - 1);
		snprintf(cursor, sizeof(cursor), "%" PRId64,
		         (int64_t)json_integer_value(
		             json_object_get(json_array_get(list, q->limit - 1), "id")));
		json_object_set_new(out, "next_cursor", json_string(cursor));
	}
	json_object_set_new(out, "resources", list);
	return out;
}

int catalog_select_matching(struct catalog *cat, const struct catalog_query *given, size_t max,
                            int64_t **ids, size_t *count, struct error *err)
{
	struct catalog_query q = *given;
	size_t cap = 0;

	*ids = NULL;
	*count = 0;
	q.before_id = 0;
	q.limit = 500;
	for (;;) { /* a page at a time, newest first, reading only the ids */
		char *pattern;
		struct db_stmt *s = list_statement(cat, &q, &pattern, err);
		size_t rows = 0;
		int rc;
		if (!s)
			goto fail;
		while ((rc = db_step(s, "listing entries", err)) == 1 && rows < q.limit) {
			if (*count == max) {
				error_set(
				    err, ERROR_TOO_LARGE, NULL, -1,
				    "the filters select more than %zu entries, the most one export "
				    "may hold; narrow them",
				    max);
				rc = -1;
				break;
			}
			if (*count == cap) {
				int64_t *grown =
				    realloc(*ids, (cap = cap ? 2 * cap : 64) * sizeof(**ids));
				if (!grown) {
					error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
					rc = -1;
					break;
				}
				*ids = grown;
			}
			(*ids)[(*count)++] = db_column_int64(s, 0);
			rows++;
		}
		db_reset(s);
		free(pattern);
		if (rc < 0)
			goto fail;
		if (rc == 0 || rows < q.limit) /* the last page */
			return 0;
		q.before_id = (*ids)[*count - 1];
	}
fail:
	free(*ids);
	*ids = NULL;
	*count = 0;
	return -1;
}

static json_t *track_row(struct db_stmt *s)
{
	const char *schema = db_column_text(s, 2);
	uint64_t property = strtoull(db_column_text(s, 5), NULL, 10);
	uint64_t object = strtoull(db_column_text(s, 3), NULL, 10);
	const char *prop_name = schema_property_name(schema, property);
	const char *info = db_column_text(s, 15);
	json_t *o = json_object(), *target = json_object();
	char handle[11];

	json_object_set_new(target, "schema", json_string(schema));
	json_object_set_new(target, "object", render_u64(object));
	json_object_set_new(target, "name", column_text_or_null(s, 4));
	if (!db_column_is_null(s, 16)) {
		render_handle((uint32_t)db_column_int64(s, 16), handle);
		json_object_set_new(target, "handle", json_string(handle));
		json_object_set_new(target, "handle_name", column_text_or_null(s, 17));
	}
	json_object_set_new(o, "n", json_integer((int)db_column_int64(s, 0)));
	json_object_set_new(o, "name", column_text_or_null(s, 1));
	json_object_set_new(o, "kind", column_text_or_null(s, 14));
	json_object_set_new(o, "target", target);
	json_object_set_new(o, "property", render_u64(property));
	json_object_set_new(o, "property_name", prop_name ? json_string(prop_name) : json_null());
	json_object_set_new(o, "first_array_element", json_integer(db_column_int64(s, 6)));
	json_object_set_new(o, "type", column_text_or_null(s, 7));
	json_object_set_new(o, "array_size", json_integer(db_column_int64(s, 8)));
	json_object_set_new(o, "interpolation", column_text_or_null(s, 9));
	json_object_set_new(o, "semantic", column_text_or_null(s, 10));
	json_object_set_new(o, "key_count", json_integer(db_column_int64(s, 11)));
	json_object_set_new(o, "time_range",
	                    json_pack("[f, f]", db_column_double(s, 12), db_column_double(s, 13)));
	if (strcmp(db_column_text(s, 14), "events") != 0) {
		unsigned rules = (unsigned)(int)db_column_int64(s, 18);
		json_object_set_new(o, "before_first_key",
		                    json_string(rules & RULE_LAST_BEFORE_FIRST
		                                    ? "last key's value"
		                                    : "first key's value"));
		if (rules & RULE_W_ONE_BETWEEN_KEYS)
			json_object_set_new(o, "w_between_keys", json_integer(1));
	}
	if (info)
		json_object_set_new(o, "info", json_loads(info, 0, NULL));
	return o;
}

/* Steps a statement whose ?1 is a resource id: 0 with a row ready, -1 (reset, err set to
 * not_found or the database's failure) otherwise. */
static int step_resource(struct db_stmt *s, int64_t id, const char *what, struct error *err)
{
	int rc;

	db_bind_int64(s, 1, id);
	rc = db_step(s, what, err);
	if (rc == 1)
		return 0;
	db_reset(s);
	if (rc == 0)
		error_set(err, ERROR_NOT_FOUND, "id", -1, "no resource has id %" PRId64, id);
	return -1;
}

/* What an export needs of a track (a row of ST_GET_TRACK_TARGETS): "n", "name", "kind",
 * "target" ("schema", "object", "name") and "property", as track_row gives them. */
static json_t *track_target_row(struct db_stmt *s)
{
	json_t *o = json_object(), *target = json_object();

	json_object_set_new_nocheck(target, "schema", column_text_or_null(s, 2));
	json_object_set_new_nocheck(target, "object",
	                            render_u64(strtoull(db_column_text(s, 3), NULL, 10)));
	json_object_set_new_nocheck(target, "name", column_text_or_null(s, 4));
	json_object_set_new_nocheck(o, "n", json_integer((int)db_column_int64(s, 0)));
	json_object_set_new_nocheck(o, "name", column_text_or_null(s, 1));
	json_object_set_new_nocheck(o, "kind", column_text_or_null(s, 6));
	json_object_set_new_nocheck(o, "target", target);
	json_object_set_new_nocheck(o, "property",
	                            render_u64(strtoull(db_column_text(s, 5), NULL, 10)));
	return o;
}

/* entry with its "tracks": whole (with their info), or what an export needs of them; entry is
 * taken over (NULL on failure). */
static json_t *with_tracks(struct catalog *cat, int64_t id, json_t *entry, int whole,
                           struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, whole ? ST_GET_TRACKS : ST_GET_TRACK_TARGETS, err);
	json_t *tracks;
	int rc;

	if (!s) {
		json_decref(entry);
		return NULL;
	}
	db_bind_int64(s, 1, id);
	tracks = json_array();
	while ((rc = db_step(s, "reading tracks", err)) == 1)
		json_array_append_new(tracks, whole ? track_row(s) : track_target_row(s));
	db_reset(s);
	json_object_set_new(entry, "tracks", tracks);
	if (rc < 0) {
		json_decref(entry);
		return NULL;
	}
	return entry;
}

json_t *catalog_get_export_entry(struct catalog *cat, int64_t id, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_GET_ENTRY_NAMES, err);
	json_t *entry;
	char handle[11];

	if (!s)
		return NULL;
	if (step_resource(s, id, "reading an entry", err) < 0)
		return NULL;
	render_handle((uint32_t)db_column_int64(s, 4), handle);
	entry = json_pack("{s:I, s:o, s:o, s:o, s:s, s:o}", "id", (json_int_t)id, "class",
	                  column_text_or_null(s, 1), "family", column_text_or_null(s, 2), "name",
	                  column_text_or_null(s, 3), "crc32", handle, "filename",
	                  column_text_or_null(s, 5));
	db_reset(s);
	if (!entry) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	return with_tracks(cat, id, entry, 0, err);
}

json_t *catalog_get(struct catalog *cat, int64_t id, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_GET_RESOURCE, err);
	json_t *entry;

	if (!s)
		return NULL;
	if (step_resource(s, id, "reading an entry", err) < 0)
		return NULL;
	entry = row_summary(s);
	json_object_set_new(entry, "structure", json_loads(db_column_text(s, 16), 0, NULL));
	json_object_set_new(entry, "assumed", json_loads(db_column_text(s, 17), 0, NULL));
	db_reset(s);
	return with_tracks(cat, id, entry, 1, err);
}

/* A malloc'd copy of a blob column (never NULL when it succeeds, even when empty). */
static void *column_blob_copy(struct db_stmt *s, int c, size_t *length)
{
	const void *data = db_column_blob(s, c, length);
	void *copy = malloc(*length ? *length : 1);

	if (copy && *length)
		memcpy(copy, data, *length);
	return copy;
}

static char *column_text_copy(struct db_stmt *s, int c, int *failed)
{
	const char *t = db_column_text(s, c);
	char *copy = t ? strdup(t) : NULL;

	if (t && !copy)
		*failed = 1;
	return copy;
}

int catalog_raw_open(struct catalog *cat, int64_t id, struct catalog_raw *out, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_GET_RAW, err);
	const char *sha256;
	int failed = 0;

	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	if (step_resource(s, id, "finding the uploaded bytes", err) < 0)
		return -1;
	sha256 = db_column_text(s, 0);
	snprintf(out->sha256, sizeof(out->sha256), "%s", sha256 ? sha256 : "");
	out->size = db_column_int64(s, 1);
	out->filename = column_text_copy(s, 2, &failed);
	db_reset(s);
	if (failed) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return 0;
}

long catalog_raw_read(struct catalog *cat, const char *sha256, int64_t offset, void *out, size_t n,
                      struct error *err)
{
	struct db_stmt *s;
	const void *chunk;
	size_t length = 0;
	int rc;

	if (cat->db->ops->read_blob)
		return cat->db->ops->read_blob(cat->db, sha256, offset, out, n, err);
	if (!(s = db_prepare(cat->db, ST_READ_BLOB, err)))
		return -1;
	db_bind_text(s, 1, sha256);
	db_bind_int64(s, 2, offset + 1);
	db_bind_int64(s, 3, (int64_t)n);
	rc = db_step(s, "reading the uploaded bytes", err);
	if (rc == 1) {
		chunk = db_column_blob(s, 0, &length);
		memcpy(out, chunk, length < n ? length : n);
	}
	db_reset(s);
	if (rc == 0)
		error_set(err, ERROR_NOT_FOUND, NULL, -1,
		          "catalogue: the uploaded bytes %s are no longer stored", sha256);
	return rc == 1 ? (long)(length < n ? length : n) : -1;
}

/* Bumps the stored generation inside a transaction that deletes or redecodes. */
static int bump_generation(struct catalog *cat, struct error *err)
{
	return catalog_exec(cat, ST_BUMP_GENERATION, "recording the change", err);
}

int catalog_delete(struct catalog *cat, int64_t id, struct error *err)
{
	struct db_stmt *s;
	char *sha = NULL;
	int rc;

	if (catalog_exec(cat, ST_BEGIN, "starting a transaction", err) < 0)
		return -1;
	s = db_prepare(cat->db, ST_GET_BLOB_OF, err);
	if (!s)
		goto fail;
	db_bind_int64(s, 1, id);
	rc = db_step(s, "finding the entry", err);
	if (rc == 1)
		sha = strdup(db_column_text(s, 0));
	db_reset(s);
	if (rc < 0)
		goto fail;
	if (rc == 0) {
		error_set(err, ERROR_NOT_FOUND, "id", -1, "no resource has id %" PRId64, id);
		goto fail;
	}
	if (!sha) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	s = db_prepare(cat->db, ST_DELETE_RESOURCE, err);
	if (!s)
		goto fail;
	db_bind_int64(s, 1, id);
	rc = db_step(s, "deleting the entry", err);
	db_reset(s);
	if (rc < 0)
		goto fail;
	s = db_prepare(cat->db, ST_DELETE_UNUSED_BLOB, err);
	if (!s)
		goto fail;
	db_bind_text(s, 1, sha);
	rc = db_step(s, "deleting the uploaded bytes", err);
	db_reset(s);
	if (rc < 0 || bump_generation(cat, err) < 0 ||
	    catalog_exec(cat, ST_COMMIT, "committing the delete", err) < 0)
		goto fail;
	__atomic_add_fetch(&catalog_generation, 1, __ATOMIC_ACQ_REL); /* every cache drops it */
	free(sha);
	return 0;
fail:
	free(sha);
	catalog_rollback(cat);
	return -1;
}

static int load_track_from_db(struct catalog *cat, int64_t id, unsigned n,
                              struct catalog_track *out, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_LOAD_TRACK, err);
	struct sampler *sp = &out->sampler;
	size_t times_len = 0, values_len = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	db_bind_int64(s, 1, id);
	db_bind_int64(s, 2, n);
	rc = db_step(s, "reading a track", err);
	if (rc != 1) {
		db_reset(s);
		if (rc == 0)
			error_set(err, ERROR_NOT_FOUND, "n", -1,
			          "resource %" PRId64 " has no track %u (or does not exist)", id,
			          n);
		return -1;
	}
	out->resource_id = id;
	out->n = n;
	out->name = strdup(db_column_text(s, 0));
	sp->type = value_type_from_name(db_column_text(s, 1));
	sp->array_size = (uint32_t)db_column_int64(s, 2);
	interpolation_from_name(db_column_text(s, 3), &sp->interp);
	semantic_from_name(db_column_text(s, 4), &sp->semantic);
	sp->key_count = (uint32_t)db_column_int64(s, 5);
	/* copies: the database's blob pointers carry no alignment promise */
	sp->times = column_blob_copy(s, 6, &times_len);
	sp->values = column_blob_copy(s, 7, &values_len);
	sp->value_bytes = values_len;
	out->events = strcmp(db_column_text(s, 8), "events") == 0;
	sp->rules = (unsigned)db_column_int64(s, 9) & RULES_KNOWN;
	db_reset(s);
	if (!out->name || !sp->times || !sp->values) {
		catalog_track_cleanup(out);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	if (times_len != (size_t)sp->key_count * sizeof(float) || sp->key_count == 0 ||
	    sp->type == VALUE_UNKNOWN ||
	    values_len != sampler_components(sp) * value_type_component_size(sp->type) *
	                      sp->key_count * (sp->interp == INTERP_CUBIC_SPLINE ? 3 : 1)) {
		catalog_track_cleanup(out);
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: track %u of resource %" PRId64 " is damaged (key arrays of "
		          "the wrong size)",
		          n, id);
		return -1;
	}
	return 0;
}

static void cache_clear(struct catalog *cat)
{
	for (int i = 0; i < TRACK_CACHE_SIZE; i++) {
		if (cat->cache[i].track.name)
			catalog_track_cleanup(&cat->cache[i].track);
		cat->cache[i].used = 0;
	}
}

static int64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts); /* a few ms of resolution are plenty here */
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads the stored generation when nobody in this process has for GENERATION_CHECK_MS, and
 * bumps the process's when another process changed the catalogue. A failed read changes
 * nothing: what is cached stays right until the database answers again. */
static void check_stored_generation(struct catalog *cat)
{
	int64_t now = monotonic_ms();
	int64_t last = __atomic_load_n(&stored_generation_read_ms, __ATOMIC_ACQUIRE);
	struct db_stmt *s;
	int64_t generation, before;

	if (now - last < GENERATION_CHECK_MS ||
	    !__atomic_compare_exchange_n(&stored_generation_read_ms, &last, now, 0,
	                                 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	s = db_prepare(cat->db, ST_GENERATION, NULL);
	if (!s)
		return;
	if (db_step(s, "reading the generation", NULL) != 1) {
		db_reset(s);
		return;
	}
	generation = db_column_int64(s, 0);
	db_reset(s);
	before = __atomic_exchange_n(&stored_generation, generation, __ATOMIC_ACQ_REL);
	if (before != generation)
		__atomic_add_fetch(&catalog_generation, 1, __ATOMIC_ACQ_REL);
}

int catalog_read_track(struct catalog *cat, int64_t id, unsigned n, struct catalog_track *out,
                       struct error *err)
{
	return load_track_from_db(cat, id, n, out, err);
}

int catalog_load_track(struct catalog *cat, int64_t id, unsigned n, struct catalog_track *out,
                       struct error *err)
{
	uint64_t generation;
	struct cached_track *slot = &cat->cache[0];

	check_stored_generation(cat);
	generation = __atomic_load_n(&catalog_generation, __ATOMIC_ACQUIRE);
	if (cat->cache_generation != generation) {
		cache_clear(cat);
		cat->cache_generation = generation;
	}
	for (int i = 0; i < TRACK_CACHE_SIZE; i++) {
		struct cached_track *c = &cat->cache[i];
		if (c->track.name && c->track.resource_id == id && c->track.n == n) {
			c->used = ++cat->cache_clock;
			*out = c->track;
			out->borrowed = 1;
			return 0;
		}
		if (c->used < slot->used)
			slot = c;
	}
	if (load_track_from_db(cat, id, n, out, err) < 0)
		return -1;
	if (out->sampler.value_bytes + (size_t)out->sampler.key_count * 4 > TRACK_CACHE_MAX_BYTES)
		return 0; /* too big to keep: the caller owns it */
	if (slot->track.name)
		catalog_track_cleanup(&slot->track);
	slot->track = *out;
	slot->used = ++cat->cache_clock;
	out->borrowed = 1;
	return 0;
}

void catalog_track_cleanup(struct catalog_track *track)
{
	if (track->borrowed) {
		memset(track, 0, sizeof(*track));
		return;
	}
	free(track->name);
	free(track->sampler.times);
	free(track->sampler.values);
	memset(track, 0, sizeof(*track));
}

static json_t *column_int_or_null(struct db_stmt *s, int c)
{
	return db_column_is_null(s, c) ? json_null() : json_integer(db_column_int64(s, c));
}

json_t *catalog_handle(struct catalog *cat, uint32_t crc32, struct error *err)
{
	struct db_stmt *s;
	json_t *out, *resources, *refs, *names;
	char handle[11];
	int rc;

	s = db_prepare(cat->db, ST_HANDLE_RESOURCES, err);
	if (!s)
		return NULL;
	db_bind_int64(s, 1, crc32);
	resources = collect_summaries(s, err);
	if (!resources)
		return NULL;
	refs = json_array();
	names = json_array();
	s = db_prepare(cat->db, ST_HANDLE_REFS, err);
	if (!s)
		goto fail;
	db_bind_int64(s, 1, crc32);
	while ((rc = db_step(s, "reading references", err)) == 1)
		json_array_append_new(
		    refs, json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "resource_id",
		                    (json_int_t)db_column_int64(s, 0), "kind",
		                    column_text_or_null(s, 1), "track", column_int_or_null(s, 2),
		                    "key", column_int_or_null(s, 3), "class",
		                    column_text_or_null(s, 4), "name", column_text_or_null(s, 5)));
	db_reset(s);
	if (rc < 0)
		goto fail;
	s = db_prepare(cat->db, ST_HANDLE_NAMES, err);
	if (!s)
		goto fail;
	db_bind_int64(s, 1, crc32);
	while ((rc = db_step(s, "reading names", err)) == 1) {
		json_t *hashes = json_array();
		if (db_column_int64(s, 1))
			json_array_append_new(hashes, json_string("asobo32"));
		if (db_column_int64(s, 2))
			json_array_append_new(hashes, json_string("crc32"));
		json_array_append_new(
		    names,
		    json_pack("{s:o, s:o}", "name", column_text_or_null(s, 0), "hashes", hashes));
	}
	db_reset(s);
	if (rc < 0)
		goto fail;
	render_handle(crc32, handle);
	out = json_pack("{s:s, s:I, s:I, s:o, s:o, s:o}", "crc32", handle, "crc32_decimal",
	                (json_int_t)crc32, "crc32_signed", (json_int_t)(int32_t)crc32, "resources",
	                resources, "references", refs, "names", names);
	return out;
fail:
	json_decref(resources);
	json_decref(refs);
	json_decref(names);
	return NULL;
}

json_t *catalog_classes(struct catalog *cat, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_CLASSES, err);
	json_t *list;
	int rc;

	if (!s)
		return NULL;
	list = json_array();
	while ((rc = db_step(s, "counting classes", err)) == 1)
		json_array_append_new(list, json_pack("{s:o, s:o, s:I}", "class",
		                                      column_text_or_null(s, 0), "family",
		                                      column_text_or_null(s, 1), "count",
		                                      (json_int_t)db_column_int64(s, 2)));
	db_reset(s);
	if (rc < 0) {
		json_decref(list);
		return NULL;
	}
	return list;
}

json_t *catalog_stats(struct catalog *cat, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_STATS, err);
	json_t *out;

	if (!s)
		return NULL;
	if (db_step(s, "counting entries", err) != 1) {
		db_reset(s);
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: counting entries gave nothing");
		return NULL;
	}
	out = json_pack(
	    "{s:I, s:I, s:I, s:I, s:i}", "resources", (json_int_t)db_column_int64(s, 0), "tracks",
	    (json_int_t)db_column_int64(s, 1), "blobs", (json_int_t)db_column_int64(s, 2), "bytes",
	    (json_int_t)db_column_int64(s, 3), "schema_version", catalog_schema_version(cat));
	db_reset(s);
	return out;
}

int catalog_count(struct catalog *cat, const char *table, int64_t *out, struct error *err)
{
	static const char *const tables[] = {"blobs", "resources", "tracks",
	                                     "refs",  "names",     "tokens"};
	struct db_stmt *s;
	int column = -1, rc;

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (strcmp(table, tables[i]) == 0)
			column = (int)i;
	if (column < 0) {
		error_set(err, ERROR_BAD_PARAMETER, "table", -1, "no table named %s", table);
		return -1;
	}
	s = db_prepare(cat->db, ST_COUNT_ROWS, err);
	if (!s)
		return -1;
	rc = db_step(s, "counting rows", err);
	*out = rc == 1 ? db_column_int64(s, column) : -1;
	db_reset(s);
	return rc == 1 ? 0 : -1;
}

#define NAME_MAX_LENGTH 1024
#define NAMES_LISTED    1000

json_t *catalog_add_names(struct catalog *cat, const char *text, size_t length, struct error *err)
{
	json_int_t added = 0, known = 0;
	json_t *listed = json_array();
	size_t line = 0;

	if (catalog_exec(cat, ST_BEGIN, "starting a transaction", err) < 0) {
		json_decref(listed);
		return NULL;
	}
	for (size_t pos = 0; pos < length;) {
		const char *start = text + pos, *nl = memchr(start, '\n', length - pos);
		size_t len = nl ? (size_t)(nl - start) : length - pos;
		struct db_stmt *s;
		char handle[2][11];
		int rc;

		pos += len + (nl != NULL);
		line++;
		while (len > 0 &&
		       (start[len - 1] == '\r' || start[len - 1] == ' ' || start[len - 1] == '\t'))
			len--;
		while (len > 0 && (*start == ' ' || *start == '\t'))
			start++, len--;
		if (len == 0 || *start == '#')
			continue;
		if (len > NAME_MAX_LENGTH || memchr(start, '\0', len) || !utf8_valid(start, len)) {
			error_set(err, ERROR_BAD_PARAMETER, "names", (long long)(start - text),
			          "names: line %zu is %s; a name is UTF-8 text of at most %d bytes",
			          line, len > NAME_MAX_LENGTH ? "too long" : "not UTF-8 text",
			          NAME_MAX_LENGTH);
			goto fail;
		}
		s = db_prepare(cat->db, ST_ADD_NAME, err);
		if (!s)
			goto fail;
		uint32_t a = hash_asobo32(start, len), c = hash_crc32_lower(start, len);
		db_bind_text_n(s, 1, start, len);
		db_bind_int64(s, 2, a);
		db_bind_int64(s, 3, c);
		rc = db_step(s, "storing a name", err); /* a row when it is new */
		db_reset(s);
		if (rc < 0)
			goto fail;
		if (rc == 1)
			added++;
		else
			known++;
		if (json_array_size(listed) < NAMES_LISTED) {
			render_handle(a, handle[0]);
			render_handle(c, handle[1]);
			json_array_append_new(listed,
			                      json_pack("{s:s%, s:s, s:s}", "name", start, len,
			                                "asobo32", handle[0], "crc32", handle[1]));
		}
	}
	if (catalog_exec(cat, ST_COMMIT, "committing the names", err) < 0)
		goto fail;
	return json_pack("{s:I, s:I, s:o}", "added", added, "known", known, "names", listed);
fail:
	json_decref(listed);
	catalog_rollback(cat);
	return NULL;
}

int catalog_handle_name(struct catalog *cat, uint32_t handle, int asobo32, char *out, size_t size)
{
	struct db_stmt *s =
	    db_prepare(cat->db, asobo32 ? ST_NAME_BY_ASOBO32 : ST_NAME_BY_CRC32, NULL);
	int found = -1;

	if (!s)
		return -1;
	db_bind_int64(s, 1, handle);
	if (db_step(s, "reading a name", NULL) == 1) {
		snprintf(out, size, "%s", db_column_text(s, 0));
		found = 0;
	}
	db_reset(s);
	return found;
}

int catalog_token_add(struct catalog *cat, const char *name, const char *token_sha256,
                      struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_TOKEN_ADD, err);
	struct error failure;
	int rc;

	if (!s)
		return -1;
	error_init(&failure);
	db_bind_text(s, 1, name);
	db_bind_text(s, 2, token_sha256);
	db_bind_int64(s, 3, now_ms());
	rc = db_step(s, "storing a token", &failure);
	db_reset(s);
	if (rc >= 0)
		return 0;
	if (failure.code == ERROR_CONFLICT)
		error_set(
		    err, ERROR_CONFLICT, "name", -1,
		    "name: a token named '%s' already exists (revoked tokens keep their name)",
		    name);
	else
		error_set(err, failure.code, NULL, -1, "%s", failure.message);
	return -1;
}

int catalog_token_revoke(struct catalog *cat, const char *name, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_TOKEN_REVOKE, err);
	int rc;

	if (!s)
		return -1;
	db_bind_text(s, 1, name);
	db_bind_int64(s, 2, now_ms());
	rc = db_step(s, "revoking a token", err); /* a row when one was revoked */
	db_reset(s);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		error_set(err, ERROR_NOT_FOUND, "name", -1, "name: no valid token is named '%s'",
		          name);
		return -1;
	}
	return 0;
}

json_t *catalog_token_list(struct catalog *cat, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_TOKEN_LIST, err);
	json_t *list;
	char when[32];
	int rc;

	if (!s)
		return NULL;
	list = json_array();
	while ((rc = db_step(s, "listing tokens", err)) == 1) {
		json_t *row = json_object();
		json_object_set_new(row, "name", column_text_or_null(s, 0));
		render_time_ms(db_column_int64(s, 1), when);
		json_object_set_new(row, "created_at", json_string(when));
		if (!db_column_is_null(s, 2)) {
			render_time_ms(db_column_int64(s, 2), when);
			json_object_set_new(row, "revoked_at", json_string(when));
		} else {
			json_object_set_new(row, "revoked_at", json_null());
		}
		json_array_append_new(list, row);
	}
	db_reset(s);
	if (rc < 0) {
		json_decref(list);
		return NULL;
	}
	return list;
}

int catalog_token_count(struct catalog *cat)
{
	struct db_stmt *s = db_prepare(cat->db, ST_TOKEN_ALL, NULL);
	int n = 0, rc;

	if (!s)
		return -1;
	while ((rc = db_step(s, "counting tokens", NULL)) == 1)
		n += !db_column_int64(s, 2);
	db_reset(s);
	return rc < 0 ? -1 : n;
}

enum token_check catalog_token_check(struct catalog *cat, const char *token, char *name,
                                     size_t name_size)
{
	struct db_stmt *s = db_prepare(cat->db, ST_TOKEN_ALL, NULL);
	enum token_check result = TOKEN_NONE_EXIST;
	char given[SHA256_HEX_SIZE];
	int rc;

	if (!s)
		return TOKEN_UNKNOWN; /* fail closed */
	if (token)
		sha256_hex(token, strlen(token), given);
	while ((rc = db_step(s, "checking a token", NULL)) == 1) {
		const char *hash = db_column_text(s, 1);
		unsigned char diff = 0;
		if (result == TOKEN_NONE_EXIST)
			result = token ? TOKEN_WRONG : TOKEN_MISSING;
		if (!token || !hash || strlen(hash) != SHA256_HEX_SIZE - 1)
			continue;
		/* constant time: every byte is compared, whatever differs */
		for (size_t i = 0; i < SHA256_HEX_SIZE - 1; i++)
			diff |= (unsigned char)(hash[i] ^ given[i]);
		if (diff == 0) {
			result = db_column_int64(s, 2) ? TOKEN_REVOKED : TOKEN_VALID;
			snprintf(name, name_size, "%s", db_column_text(s, 0));
		}
	}
	db_reset(s);
	return rc < 0 ? TOKEN_UNKNOWN : result; /* fail closed */
}

/* Decoder versions and redecoding. */

int64_t catalog_outdated(struct catalog *cat, struct error *err)
{
	size_t count;
	const struct format *const *formats = format_table(&count);
	int64_t total = 0;

	for (size_t i = 0; i < count; i++) {
		struct db_stmt *s = db_prepare(cat->db, ST_OUTDATED, err);
		if (!s)
			return -1;
		db_bind_text(s, 1, formats[i]->family);
		db_bind_int64(s, 2, (int64_t)formats[i]->version);
		if (db_step(s, "counting outdated entries", err) != 1) {
			db_reset(s);
			error_set(err, ERROR_INTERNAL, NULL, -1,
			          "catalogue: counting gave nothing");
			return -1;
		}
		total += db_column_int64(s, 0);
		db_reset(s);
	}
	return total;
}

/* Appends the first column of every row to a malloc'd array. */
static int collect_ids(struct db_stmt *s, const char *what, int64_t **ids, size_t *count,
                       struct error *err)
{
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*count = 0;
	while ((rc = db_step(s, what, err)) == 1) {
		if (*count == cap) {
			int64_t *grown = realloc(*ids, (cap = cap ? 2 * cap : 256) * sizeof(**ids));
			if (!grown) {
				error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
				rc = -1;
				break;
			}
			*ids = grown;
		}
		(*ids)[(*count)++] = db_column_int64(s, 0);
	}
	db_reset(s);
	if (rc < 0) {
		free(*ids);
		*ids = NULL;
		*count = 0;
		return -1;
	}
	return 0;
}

int catalog_select_ids(struct catalog *cat, const char *family, const char *class_name, int64_t id,
                       int64_t **ids, size_t *count, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_SELECT_IDS, err);

	*ids = NULL;
	*count = 0;
	if (!s)
		return -1;
	db_bind_text(s, 1, family);
	db_bind_text(s, 2, class_name);
	db_bind_int64(s, 3, id);
	return collect_ids(s, "selecting entries", ids, count, err);
}

int catalog_get_stored(struct catalog *cat, int64_t id, struct catalog_stored *out,
                       struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_GET_STORED, err);
	int failed = 0;

	memset(out, 0, sizeof(*out));
	if (!s || step_resource(s, id, "reading an entry's bytes", err) < 0)
		return -1;
	out->id = id;
	out->part = (unsigned)db_column_int64(s, 0);
	snprintf(out->family, sizeof(out->family), "%s", db_column_text(s, 1));
	snprintf(out->class_name, sizeof(out->class_name), "%s", db_column_text(s, 2));
	out->decoder_version = (unsigned)db_column_int64(s, 3);
	snprintf(out->crc32_source, sizeof(out->crc32_source), "%s", db_column_text(s, 4));
	out->structure = json_loads(db_column_text(s, 5), 0, NULL);
	out->filename = column_text_copy(s, 6, &failed);
	out->bytes = column_blob_copy(s, 7, &out->length);
	db_reset(s);
	if (!out->bytes || failed) {
		catalog_stored_cleanup(out);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return 0;
}

void catalog_stored_cleanup(struct catalog_stored *stored)
{
	free(stored->bytes);
	free(stored->filename);
	json_decref(stored->structure);
	memset(stored, 0, sizeof(*stored));
}

/* One SHA-256 per row of a statement bound to a resource id: every column, typed, so two
 * rows digest alike exactly when they hold the same values. */
static int row_digests(struct catalog *cat, enum statement st, int64_t id,
                       uint8_t (**digests)[SHA256_DIGEST_SIZE], size_t *count, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, st, err);
	size_t cap = 0;
	int rc;

	*digests = NULL;
	*count = 0;
	if (!s)
		return -1;
	db_bind_int64(s, 1, id);
	while ((rc = db_step(s, "reading tracks", err)) == 1) {
		struct sha256 h;
		int columns = s->ops->column_count(s);
		if (*count == cap) {
			void *grown =
			    realloc(*digests, (cap = cap ? 2 * cap : 16) * sizeof(**digests));
			if (!grown) {
				error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
				rc = -1;
				break;
			}
			*digests = grown;
		}
		sha256_init(&h);
		for (int c = 0; c < columns; c++) {
			uint8_t type = (uint8_t)db_column_type(s, c);
			int64_t integer;
			double real;
			const void *p = NULL;
			size_t len = 0;
			switch (type) {
			case DB_INTEGER:
				integer = db_column_int64(s, c);
				p = &integer, len = sizeof(integer);
				break;
			case DB_REAL:
				real = db_column_double(s, c);
				p = &real, len = sizeof(real);
				break;
			case DB_TEXT:
				p = db_column_text(s, c);
				len = strlen(p);
				break;
			case DB_BLOB: p = db_column_blob(s, c, &len); break;
			default: break;
			}
			uint64_t len64 = len;
			sha256_update(&h, &type, 1);
			sha256_update(&h, &len64, sizeof(len64));
			if (p && len)
				sha256_update(&h, p, len);
		}
		sha256_final(&h, (*digests)[(*count)++]);
	}
	db_reset(s);
	if (rc < 0) {
		free(*digests);
		*digests = NULL;
		*count = 0;
		return -1;
	}
	return 0;
}

static int exec_for_id(struct catalog *cat, enum statement st, int64_t id, const char *what,
                       struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, st, err);
	int rc;

	if (!s)
		return -1;
	db_bind_int64(s, 1, id);
	rc = db_step(s, what, err);
	db_reset(s);
	return rc < 0 ? -1 : 0;
}

int catalog_replace_decoded(struct catalog *cat, int64_t id, const struct resource *res,
                            struct catalog_changes *changes, struct error *err)
{
	uint8_t(*before)[SHA256_DIGEST_SIZE] = NULL, (*after)[SHA256_DIGEST_SIZE] = NULL;
	uint8_t(*refs_before)[SHA256_DIGEST_SIZE] = NULL, (*refs_after)[SHA256_DIGEST_SIZE] = NULL;
	size_t nb = 0, na = 0, rb = 0, ra = 0;
	struct catalog_stored old = {0};
	char *structure_text = NULL, *assumed_text = NULL, *old_assumed = NULL;
	int64_t old_handle = 0;
	struct db_stmt *s;
	int rc = -1, stepped;

	memset(changes, 0, sizeof(*changes));
	if (catalog_exec(cat, ST_BEGIN, "starting a transaction", err) < 0)
		return -1;
	if (catalog_get_stored(cat, id, &old, err) < 0 ||
	    row_digests(cat, ST_TRACK_DIGESTS, id, &before, &nb, err) < 0 ||
	    row_digests(cat, ST_REF_DIGESTS, id, &refs_before, &rb, err) < 0)
		goto done;
	s = db_prepare(cat->db, ST_GET_RESOURCE, err);
	if (!s || step_resource(s, id, "reading an entry", err) < 0)
		goto done;
	old_assumed = strdup(db_column_text(s, 17));
	old_handle = db_column_int64(s, 4);
	db_reset(s);
	if (!old_assumed || stored_texts(res, &structure_text, &assumed_text) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	if (exec_for_id(cat, ST_DELETE_TRACKS, id, "removing the old tracks", err) < 0 ||
	    exec_for_id(cat, ST_DELETE_REFS, id, "removing the old references", err) < 0 ||
	    insert_refs(cat, id, res, err) < 0)
		goto done;
	for (size_t n = 0; n < res->clip.channel_count; n++)
		if (insert_track(cat, id, res, (unsigned)n, NULL, err) < 0)
			goto done;
	s = db_prepare(cat->db, ST_UPDATE_DECODED, err);
	if (!s)
		goto done;
	db_bind_int64(s, 1, id);
	if (res->clip.sampler_count || res->clip.duration > 0)
		db_bind_double(s, 2, res->clip.duration);
	db_bind_int64(s, 3, (int64_t)res->clip.channel_count);
	db_bind_text(s, 4, structure_text);
	db_bind_text(s, 5, assumed_text);
	db_bind_int64(s, 6, (int64_t)res->decoder_version);
	/* the handle stays, unless the entry never had one of its own (an older decoder left
	 * crc32_source empty) */
	if (old.crc32_source[0]) {
		db_bind_int64(s, 7, old_handle);
		db_bind_text(s, 8, old.crc32_source);
	} else {
		db_bind_int64(s, 7, res->crc32);
		db_bind_text(s, 8, res->crc32_source);
		changes->handle = 1;
	}
	stepped = db_step(s, "updating the entry", err);
	db_reset(s);
	if (stepped < 0 || row_digests(cat, ST_TRACK_DIGESTS, id, &after, &na, err) < 0 ||
	    row_digests(cat, ST_REF_DIGESTS, id, &refs_after, &ra, err) < 0)
		goto done;
	for (size_t n = 0; n < na || n < nb; n++) {
		if (n >= nb)
			changes->tracks_added++;
		else if (n >= na)
			changes->tracks_removed++;
		else if (memcmp(before[n], after[n], SHA256_DIGEST_SIZE) != 0)
			changes->tracks_changed++;
	}
	{
		char *old_structure = old.structure ? render_json_stored(old.structure) : NULL;
		changes->structure = !old_structure || strcmp(old_structure, structure_text) != 0 ||
		                     strcmp(old_assumed, assumed_text) != 0;
		free(old_structure);
	}
	changes->references =
	    ra != rb || (ra && memcmp(refs_before, refs_after, ra * SHA256_DIGEST_SIZE) != 0);
	changes->changed = changes->tracks_added || changes->tracks_removed ||
	                   changes->tracks_changed || changes->structure || changes->references ||
	                   changes->handle;
	if ((changes->changed && bump_generation(cat, err) < 0) ||
	    catalog_exec(cat, ST_COMMIT, "committing the entry", err) < 0)
		goto done;
	__atomic_add_fetch(&catalog_generation, 1, __ATOMIC_ACQ_REL); /* no stale cached track */
	rc = 0;
done:
	if (rc < 0)
		catalog_rollback(cat);
	free(before);
	free(after);
	free(refs_before);
	free(refs_after);
	free(structure_text);
	free(assumed_text);
	free(old_assumed);
	catalog_stored_cleanup(&old);
	return rc;
}
