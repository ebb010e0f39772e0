/* catalog_tracks.c: one stored track read back for sampling, and each connection's cache of
 * the tracks it read last. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog_internal.h"

#define TRACK_CACHE_MAX_BYTES (4u * 1024 * 1024)
#define GENERATION_CHECK_MS   200

static uint64_t catalog_generation;       /* bumped by every change seen (atomic) */
static int64_t stored_generation = -1;    /* the database's, when last read (atomic) */
static int64_t stored_generation_read_ms; /* when (monotonic; atomic) */

void catalog_cache_invalidate(void)
{
	__atomic_add_fetch(&catalog_generation, 1, __ATOMIC_ACQ_REL);
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
	if (cat->db->ops->read_blob_into) {
		/* read straight into the track's arrays: held once, not twice */
		int64_t row = db_column_int64(s, 10);
		times_len = (size_t)db_column_int64(s, 6);
		values_len = (size_t)db_column_int64(s, 7);
		sp->times = malloc(times_len + 1);
		sp->values = malloc(values_len + 1);
		if (sp->times && sp->values &&
		    (cat->db->ops->read_blob_into(cat->db, "tracks", "times", row, sp->times,
		                                  times_len, err) < 0 ||
		     cat->db->ops->read_blob_into(cat->db, "tracks", "key_values", row, sp->values,
		                                  values_len, err) < 0)) {
			db_reset(s);
			catalog_track_cleanup(out);
			return -1;
		}
	} else {
		/* copies: the database's blob pointers carry no alignment promise */
		sp->times = catalog_blob_copy(s, 6, &times_len);
		sp->values = catalog_blob_copy(s, 7, &values_len);
	}
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

void catalog_cache_clear(struct catalog *cat)
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
		catalog_cache_invalidate();
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
		catalog_cache_clear(cat);
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
