/* catalog_pool.c: connections shared by the daemon's threads, and the one writing thread
 * that commits uploads in groups (one sync for many 201s). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog_internal.h"

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
