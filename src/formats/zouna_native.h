/* zouna_native.h: what the parts of Zouna's write-back share (zouna_native.c lays the file
 * out; zouna_native_keys.c encodes keys, zouna_native_chains.c finds tracks by target and
 * property, zouna_native_plan.c matches the entry's tracks to the template's slices,
 * zouna_native_check.c decodes the written file again and measures it). Not a public
 * interface. */
#ifndef ANIMDEX_ZOUNA_NATIVE_H
#define ANIMDEX_ZOUNA_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "formats/native.h"
#include "formats/reader.h"
#include "zouna.h"

/* One keyframer of the template as read, with where its keys' bytes are. */
struct native_keyframer {
	struct zouna_keys keys;
	size_t keys_at; /* the first key's offset in the template */
	size_t end;     /* one past its last byte */
	uint16_t flags; /* the header's flags, written again */
};

/* Which record holds a slice, and what track it is. */
enum record_kind { REC_NODE, REC_MATERIAL, REC_MESH, REC_MORPH, REC_KINDS };

struct record {
	uint32_t crc;
	uint16_t id, flag;
	uint32_t pairs[5][2]; /* start, count in the record's order */
};

struct record_layout {
	const char *field; /* "nodes" ... */
	size_t size;       /* bytes a record */
	unsigned pair_count;
	int keyframer[5];          /* the keyframer each pair slices */
	uint64_t property[5];      /* the track it makes */
	const char *schema[5];     /* of its target */
	const char *pair_name[5];  /* for messages */
	int is_signed;             /* i16 starts and counts */
	const char *target_prefix; /* "bone", "material" ... */
};

/* One slice of a keyframer, as the output lays it out. */
struct slice {
	int keyframer;
	uint32_t start, count; /* in the template; count 0 for a new slice */
	int kind;              /* enum record_kind */
	size_t record;
	unsigned pair;
	const struct sampler *source; /* the entry's track, or NULL */
	char track[160];              /* its name */
	int changed;                  /* written from the source */
	int euler_kept;               /* an Euler slice kept for the entry's baked rotation */
	struct sampler reduced;       /* source reduced by reduce= (its keys then the source's) */
	struct sampler split;         /* what is written, split where its tangents need it */
	uint8_t *bytes;               /* the keys written (changed) */
	size_t length;
	uint32_t written; /* keys written */
	uint32_t new_start, new_count;
};

/* A resource's channels by (target crc, property): chains from a bucket's head through
 * next[], in channel order. */
struct channel_chains {
	uint32_t *head, *next, mask;
};

struct native_build {
	const struct upload *tmpl;
	const struct resource *source;
	const struct native_options *opt;
	struct zouna_object_header h;
	enum byte_order in, out;
	struct native_keyframer kf[KF_KEYFRAMER_COUNT];
	float max_time, smooth;
	uint16_t flag, node_flag;
	struct record *records[REC_KINDS];
	size_t record_count[REC_KINDS];
	size_t trailing_at; /* the bytes after the records, kept */
	struct slice *slices;
	size_t slice_count, slice_cap;
	char *source_used;             /* per source channel: matched to a slice */
	struct channel_chains sources; /* matched channels are unlinked as they are met */
	struct sampler reduced;        /* a bare keyframer's track under reduce= */
	struct sampler split;          /* a bare keyframer's track split (split_segments) */
	json_t *report_tracks, *kept, *defaults;
	struct error *err;
};

extern const struct record_layout zouna_native_layouts[REC_KINDS];

static inline int zouna_native_oom(struct native_build *nb)
{
	error_set(nb->err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

static inline const char *zouna_native_order_name(enum byte_order o)
{
	return o == BYTE_ORDER_BIG ? "big" : "little";
}

/* zouna_native_keys.c: the keys in p[0, n) from one byte order to the other (padding kept),
 * message keys word by word; and a source track written as keys of k's class (the keys'
 * count, or -1 with err set: a 422 naming the track and what the class cannot hold, with
 * advice by flags, enum write_flags). */
enum write_flags {
	WRITE_PROMOTABLE = 1,  /* a bare keyframer whose class has an uncompressed form */
	WRITE_SPLIT_TRIED = 2, /* its segments were split as far as they go */
};
void zouna_native_swap_keys(const struct zouna_keys *k, uint8_t *p, size_t n);
void zouna_native_swap_words(uint8_t *p, size_t n);
long zouna_native_write_track(const struct zouna_keys *k, uint16_t flags, const struct sampler *s,
                              const char *track, enum byte_order order, uint8_t **bytes,
                              size_t *length, double *worst, int write_flags, struct error *err);
/* Every value of a track for a compressed class within its range: 0, or -1 with err set (the
 * 422 write_track gives, naming the entry's key). */
int zouna_native_check_values(const struct zouna_keys *k, const struct sampler *s,
                              const char *track, int write_flags, struct error *err);
/* A cubic track for a compressed Hermite class whose per-segment tangents the class cannot
 * hold: its segments split at their middles until they fit, into out (the same curve, to
 * within the class's rounding of the keys added, `added` of them). 1 when split, 0 when no
 * split is needed (out untouched), -1 out of memory, -2 when no split fits. */
int zouna_native_split_segments(const struct zouna_keys *k, const struct sampler *s,
                                struct sampler *out, uint32_t *added);

/* zouna_native_chains.c */
#define NO_CHANNEL UINT32_MAX
/* The crc a track's target names: a Zouna entry's object is its handle; elsewhere the
 * target's name, as "0x1234ABCD" somewhere in it or hashed (Asobo32) whole. 0, or -1. */
int zouna_native_chains_target_crc(const struct resource *r, const struct target *t, uint32_t *crc);
/* Chains every channel of r whose target names a crc under its (crc, property); -1 when out
 * of memory. */
int zouna_native_chains_build(struct channel_chains *cc, const struct resource *r);
/* The head of the chain (crc, property) falls in: channels of other keys may be on it. */
uint32_t *zouna_native_chains_head(struct channel_chains *cc, uint32_t crc, uint64_t property);
void zouna_native_chains_free(struct channel_chains *cc);

/* zouna_native_plan.c: every slice of the template's records, kept or to be written from the
 * entry's matching track; then the entry's tracks no slice took, as new slices. */
int zouna_native_plan_template(struct native_build *nb);
int zouna_native_plan_new(struct native_build *nb);
/* Whether the source track is what the export writes for the template's track. */
int zouna_native_plan_equals_export(struct native_build *nb, const struct sampler *tmpl,
                                    int rotation, int euler, const struct sampler *source);

/* zouna_native_check.c: decodes the file written and measures every track the entry gave
 * against it; a 500 naming the track beyond the class's half step. */
int zouna_native_check_written(struct native_build *nb, struct native_file *out, int bare);

#endif
