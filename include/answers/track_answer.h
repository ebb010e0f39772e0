/* track_answer.h: an answer about one track (its samples, keys or events) as JSON, CSV or raw
 * float32, made a piece at a time; see track_answer.c. Knows the model and the catalogue's
 * tracks, not the transport.
 */
#ifndef ANIMDEX_TRACK_ANSWER_H
#define ANIMDEX_TRACK_ANSWER_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "catalog/catalog.h"
#include "core/curve.h"
#include "base/error.h"

enum sample_format { FORMAT_JSON, FORMAT_CSV, FORMAT_F32 };

/* The times to sample: a list from t=, or evenly spaced from `from`. */
struct sample_times {
	float *list;           /* t=..., or NULL */
	size_t count;          /* how many */
	double from, to, step; /* step > 0: from + i step; else count points from..to */
};

/* The times of samples [first, first + count) into out, as every answer computes them (from
 * the list, or from + step i, or count points from..to both included, in double, rounded). */
void track_answer_times(const struct sample_times *st, size_t first, size_t count, float *out);

/* What a streamed answer about one track holds: its own copy of the track, where the
 * production stands, and the text produced and not yet sent. */
enum answer_kind { ANSWER_SAMPLES, ANSWER_KEYS, ANSWER_EVENTS };

struct track_answer {
	enum answer_kind kind;
	enum sample_format format;
	int digits;
	struct catalog_track track; /* owned */
	size_t m, csize;            /* components per value, bytes per component */
	struct sample_times times;  /* ANSWER_SAMPLES */
	struct curve curve;
	struct curve_cursor cursor;
	uint8_t *value; /* one sample's value, m * csize bytes */
	float *block;   /* float tracks: the values of samples [block_first, +count) */
	size_t block_first, block_count, block_cap;
	float *time_block; /* ANSWER_SAMPLES: the times of samples [time_first, +time_count) */
	size_t time_first, time_count;
	double from, to;           /* ANSWER_EVENTS: the range [from, to) */
	struct catalog_pool *pool; /* ANSWER_EVENTS: names of handles */
	int phase;                 /* which part of the answer is being produced */
	size_t i;                  /* the next item of that part */
	size_t listed;             /* events listed so far */
	int done;
	size_t item_room;   /* the most one item (and the text that may follow it) takes */
	struct buf pending; /* produced, not yet sent */
	size_t sent;        /* bytes of pending already sent */
};

/* A new answer about a loaded track, which it takes over (borrowed from the connection's cache
 * or owned: track_answer_own makes a copy when the answer outlives the request). `samples`:
 * how many times an ANSWER_SAMPLES answer will have (its caller then sets ta->times); an
 * ANSWER_EVENTS answer's caller sets from, to and the pool that names handles. NULL with err
 * set (the track cleaned up). */
struct track_answer *track_answer_create(struct catalog_track *track, enum answer_kind kind,
                                         enum sample_format format, int digits, size_t samples,
                                         struct error *err);
void track_answer_free(void *state);

/* The next piece of the answer appended to b; 0 when the answer is complete. */
int track_answer_produce(struct track_answer *ta, struct buf *b);
/* Up to `room` bytes of the answer into out, streamed (struct response_stream's fill): the
 * count, 0 at the end, -1 when an item outgrew its bound (the answer is cut, never wrong). */
long track_answer_fill(void *state, char *out, size_t room);

/* The answer's length, roughly, before it is made: what decides between buffering it and
 * streaming it. */
uint64_t track_answer_estimate(const struct track_answer *ta);
/* What the answer holds in memory while it is streamed. */
size_t track_answer_memory(const struct track_answer *ta);
/* Gives the answer a copy of its track when it is borrowed: a borrowed track may be evicted
 * from the connection's cache by the next request on the same thread while this answer is
 * still being sent. -1 when out of memory. */
int track_answer_own(struct track_answer *ta);

#endif
