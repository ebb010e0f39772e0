/* zouna_native.c: Zouna files written back (doc/formats.md 1.8): an Animation_Z or a bare
 * keyframer shaped like a template of the game's own bytes, with the entry's values.
 *
 * The template is read as the decoder reads it (its keyframers by zouna_read_keyframer, its
 * records as 1.5 lays them out). Each record's slice of a shared keyframer becomes the track
 * the decoder would make of it (zouna_add_track); when the entry holds a track of the same
 * target and property with the same values, the slice's bytes are copied, else the entry's
 * keys are written in the keyframer's class. Keyframers are then laid out again: every key
 * outside any slice where it was, each slice where it was with its new length, new slices at
 * the end, and every record's (start, count) following. Counts, sizes and maxTime are derived;
 * the link header, flags, ids, smoothRatio and trailing bytes are kept.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/hash.h"
#include "core/reduce.h"
#include "formats/native.h"
#include "formats/reader.h"
#include "writer.h"
#include "zouna.h"

static void swap_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint8_t t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

static const char *order_name(enum byte_order o)
{
	return o == BYTE_ORDER_BIG ? "big" : "little";
}

/* One keyframer of the template as read, with where its keys' bytes are. */
struct native_keyframer {
	struct zouna_keys keys;
	size_t keys_at; /* the first key's offset in the template */
	size_t end;     /* one past its last byte */
	uint16_t flags; /* the header's flags, written again */
};

/* The byte offset of key i (i == count: the end) within the template. */
static size_t key_offset(const struct native_keyframer *kf, uint32_t i)
{
	const struct zouna_keys *k = &kf->keys;

	if (i >= k->count)
		return kf->end;
	if (k->cls->kind == KIND_MESSAGE)
		return kf->keys_at + (size_t)i * 8 + (size_t)k->first[i] * MESSAGE_SIZE;
	return kf->keys_at + (size_t)i * zouna_key_size(k->cls, k->compressed);
}

/* Swaps every field of the keys in p[0, n) from one byte order to the other (padding kept);
 * not for messages (swap_words). */
static void swap_keys(const struct zouna_keys *k, uint8_t *p, size_t n)
{
	const struct zouna_class *c = k->cls;
	int seed = k->reading && strncmp(k->reading, "u16 time", 8) == 0;
	size_t size = zouna_key_size(c, k->compressed), at = 0;

	while (at < n) {
		uint8_t *key = p + at;
		size_t q = 0, width = k->compressed ? 2 : 4, fields;
		if (seed) {
			swap_bytes(key, 2);
			swap_bytes(key + 2, 2);
			q = 4;
			width = 4;
		} else {
			swap_bytes(key, 4);
			q = 4;
		}
		switch (c->kind) {
		case KIND_HERMITE: fields = 3 * c->n; break;
		case KIND_LINEAR: fields = c->n; break;
		case KIND_ROT: fields = 4, width = 2; break;
		default: fields = 1, width = 4; break;
		}
		for (size_t f = 0; f < fields; f++, q += width)
			swap_bytes(key + q, width);
		at += size;
	}
}

/* Messages: every field is a 4-byte word, so a slice of message keys swaps word by word. */
static void swap_words(uint8_t *p, size_t n)
{
	for (size_t at = 0; at + 4 <= n; at += 4)
		swap_bytes(p + at, 4);
}

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

static const struct record_layout layouts[REC_KINDS] = {
    {"nodes",
     28,
     5,
     {KF_NODE_TRANS, KF_NODE_ROT, KF_NODE_BEZIER, KF_NODE_SCALE, KF_NODE_MSG},
     {NODE_TRANSLATION, NODE_ROTATION, ZOUNA_EULER_ROTATION, NODE_SCALE, ZOUNA_MESSAGES},
     {SCHEMA_NODE, SCHEMA_NODE, SCHEMA_ZOUNA, SCHEMA_NODE, SCHEMA_ZOUNA},
     {"trans", "rot", "bezierRot", "scale", "msg"},
     0,
     "bone"},
    {"materials",
     28,
     5,
     {KF_MAT_TRANS_U, KF_MAT_EMISSIVE, KF_MAT_DIFFUSE, KF_MAT_ROT, KF_MAT_TRANS_V},
     {ZOUNA_MATERIAL_TRANS_U, ZOUNA_MATERIAL_EMISSIVE, ZOUNA_MATERIAL_DIFFUSE,
      ZOUNA_MATERIAL_ROTATION, ZOUNA_MATERIAL_TRANS_V},
     {SCHEMA_ZOUNA, SCHEMA_ZOUNA, SCHEMA_ZOUNA, SCHEMA_ZOUNA, SCHEMA_ZOUNA},
     {"transU", "emissive", "diffuse", "rot", "transV"},
     1,
     "material"},
    {"meshes", 12, 1, {KF_MESH}, {ZOUNA_MESH}, {SCHEMA_ZOUNA}, {"keys"}, 1, "mesh"},
    {"morphs", 12, 1, {KF_MORPH}, {ZOUNA_MORPH}, {SCHEMA_ZOUNA}, {"keys"}, 1, "morph"},
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
	json_t *report_tracks, *kept, *defaults;
	struct error *err;
};

/* The crc a source track's target names: a Zouna entry's object is its handle; elsewhere
 * the target's name, as "0x1234ABCD" somewhere in it or hashed (Asobo32) whole. */
static int source_target_crc(const struct resource *src, const struct target *t, uint32_t *crc)
{
	if (strcmp(src->family, "zouna") == 0) {
		*crc = (uint32_t)t->object;
		return t->object <= UINT32_MAX ? 0 : -1;
	}
	return hash_named_handle(t->name, crc) < 0 ? -1 : 0;
}

/* Whether a source channel's target and property are (schema, crc, property). */
static int source_matches(const struct resource *src, size_t ch, const char *schema, uint32_t crc,
                          uint64_t property)
{
	const struct channel *c = &src->clip.channels[ch];
	const struct target *t = &src->clip.targets[c->target];
	uint32_t named;

	return c->property == property && strcmp(t->schema, schema) == 0 &&
	       source_target_crc(src, t, &named) == 0 && named == crc;
}

static int oom(struct native_build *nb)
{
	error_set(nb->err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

/* A compressed component: the nearest step, half away from zero (doc/formats.md 1.8); -1
 * when the class cannot hold it. */
static int quantise(float v, float factor, int16_t *out)
{
	double x = round((double)v * factor);

	if (!(x >= -32768.0 && x <= 32767.0))
		return -1;
	*out = (int16_t)x;
	return 0;
}

struct key_writer {
	struct writer w;
	const struct zouna_class *cls;
	int compressed;
	const char *track;
	struct error *err;
	uint32_t key;
	const char *part;  /* "value", "in-tangent", "out-tangent" */
	double worst_step; /* the largest quantisation error */
};

static int put_component(struct key_writer *kw, float v)
{
	int16_t q;

	if (!kw->compressed) {
		if (!isfinite(v)) { /* a finite tangent per second times a long segment */
			error_set(
			    kw->err, ERROR_VALUE_OUT_OF_RANGE, kw->track, -1,
			    "%s: key %" PRIu32 "'s %s per segment (its tangent per second "
			    "times the segment's length) is past float32's range (|v| <= %g), "
			    "all %s holds; keys closer together or a smaller tangent fit",
			    kw->track, kw->key, kw->part, (double)FLT_MAX, kw->cls->name);
			return -1;
		}
		writer_f32(&kw->w, v);
		return 0;
	}
	if (quantise(v, kw->cls->factor, &q) < 0) {
		error_set(kw->err, ERROR_VALUE_OUT_OF_RANGE, kw->track, -1,
		          "%s: key %" PRIu32 "'s %s %.9g%s is beyond what %s can hold (16-bit "
		          "steps of 1/%g: |v| <= %.6g); give promote=1 for the uncompressed "
		          "class where one exists",
		          kw->track, kw->key, kw->part, (double)v,
		          strcmp(kw->part, "value") ? " (per segment)" : "", kw->cls->name,
		          (double)kw->cls->factor, 32767.0 / kw->cls->factor);
		return -1;
	}
	if (fabs((double)q / kw->cls->factor - v) > kw->worst_step)
		kw->worst_step = fabs((double)q / kw->cls->factor - v);
	writer_u16(&kw->w, (uint16_t)q);
	return 0;
}

static void pad_key(struct key_writer *kw, size_t key_start)
{
	size_t size = zouna_key_size(kw->cls, kw->compressed);

	while (kw->w.b.len - key_start < size)
		buf_putc(&kw->w.b, (char)0xFF);
}

/* Why a track cannot go into a keyframer: 422 naming the track and the class. */
static int refuse_track(struct key_writer *kw, const char *why)
{
	error_set(kw->err, ERROR_INVALID, kw->track, -1, "%s: %s cannot be written as %s keys",
	          kw->track, why, kw->cls->name);
	return -1;
}

/* The keys of a value class (Hermite, linear, rotation) from a sampler. */
static int write_value_keys(struct key_writer *kw, const struct sampler *s, int step)
{
	const struct zouna_class *c = kw->cls;
	uint32_t n = c->n, count = s->key_count;
	const float *v = s->values;
	int cubic = s->interp == INTERP_CUBIC_SPLINE;
	size_t stride = cubic ? 3 * (size_t)n : n;

	if (s->type != (enum value_type)(VALUE_FLOAT + n - 1) || s->array_size != 1)
		return refuse_track(kw, c->kind == KIND_ROT
		                            ? "a track that is not quaternions (FLOAT4)"
		                            : "a track of another value type");
	if (step != (s->interp == INTERP_STEP))
		return refuse_track(kw, step ? "a track that interpolates (the keyframer's flags "
		                               "hold the step bit 0x8)"
		                             : "a stepped track (the keyframer's flags do not "
		                               "hold the step bit 0x8)");
	if (cubic && c->kind != KIND_HERMITE)
		return refuse_track(kw, "a cubic spline (a linear class)");
	for (uint32_t i = 0; i < count; i++) {
		size_t key_start = kw->w.b.len;
		const float *value = v + i * stride + (cubic ? n : 0);
		kw->key = i;
		kw->part = "value";
		writer_f32(&kw->w, s->times[i]);
		for (uint32_t j = 0; j < n; j++)
			if (put_component(kw, value[j]) < 0)
				return -1;
		if (c->kind == KIND_HERMITE) {
			/* per-segment tangents (1.3): a cubic spline's per-second ones times the
			 * segment's length; a linear track's the segment's change */
			float d_in = i > 0 ? s->times[i] - s->times[i - 1] : 0;
			float d_out = i + 1 < count ? s->times[i + 1] - s->times[i] : 0;
			for (int side = 0; side < 2; side++)
				for (uint32_t j = 0; j < n; j++) {
					kw->part = side ? "out-tangent" : "in-tangent";
					float t = 0;
					if (cubic) {
						float a = v[i * stride + (side ? 2 * n : 0) + j];
						float d = side ? d_out : d_in;
						t = d > 0 ? a * d : a;
					} else if (!step && side == 0 && i > 0) {
						t = value[j] - v[(i - 1) * stride + j];
					} else if (!step && side == 1 && i + 1 < count) {
						t = v[(i + 1) * stride + j] - value[j];
					}
					if (put_component(kw, t) < 0)
						return -1;
				}
		}
		pad_key(kw, key_start);
	}
	return 0;
}

/* Handle and flag keys: a word a key, in the template's order of time and word. */
static int write_word_keys(struct key_writer *kw, const struct sampler *s, int word_first)
{
	const uint32_t *words = s->values;

	if (s->type != VALUE_UINT || s->array_size != 1 || s->interp != INTERP_STEP)
		return refuse_track(kw, "a track that is not stepped UINT words");
	for (uint32_t i = 0; i < s->key_count; i++) {
		if (word_first)
			writer_u32(&kw->w, words[i]);
		writer_f32(&kw->w, s->times[i]);
		if (!word_first)
			writer_u32(&kw->w, words[i]);
	}
	return 0;
}

/* Message keys: the events of one time make one key. */
static uint32_t write_message_keys(struct key_writer *kw, const struct sampler *s)
{
	const uint32_t *w = s->values;
	uint32_t keys = 0;

	if (s->type != VALUE_UINT || s->array_size != EVENT_WORDS || s->interp != INTERP_STEP)
		return (uint32_t)refuse_track(kw, "a track that is not events (UINT[5], STEP)");
	for (uint32_t i = 0; i < s->key_count;) {
		uint32_t n = 1;
		while (i + n < s->key_count && s->times[i + n] == s->times[i])
			n++;
		writer_f32(&kw->w, s->times[i]);
		writer_u32(&kw->w, n);
		for (uint32_t m = 0; m < n; m++)
			for (int word = 0; word < EVENT_WORDS; word++)
				writer_u32(&kw->w, w[(size_t)(i + m) * EVENT_WORDS + (size_t)word]);
		i += n;
		keys++;
	}
	return keys;
}

/* Writes a source track as keys of a keyframer's class: the keys' count, or -1. */
static long write_track(const struct zouna_keys *k, uint16_t flags, const struct sampler *s,
                        const char *track, enum byte_order order, uint8_t **bytes, size_t *length,
                        double *worst, struct error *err)
{
	struct key_writer kw = {{{0}, order}, k->cls, k->compressed, track, err, 0, "value", 0};
	int step = k->cls->has_flags && (flags & FLAG_STEP);
	long keys = s->key_count;
	int rc;

	buf_init(&kw.w.b, NATIVE_MAX_BYTES);
	if (k->reading && strncmp(k->reading, "u16 time", 8) == 0) {
		error_set(err, ERROR_INVALID, track, -1,
		          "%s: the template's %s keys are in the seed's layout (u16 time, u16 "
		          "flags), which animdex reads but does not write; use a template in the "
		          "f32-time layout",
		          track, k->cls->name);
		return -1;
	}
	{
		const char *rule = NULL;
		long bad = zouna_first_unreadable_time(k->cls, s->times, s->key_count, &rule);
		if (bad >= 0) {
			error_set(err, ERROR_TIME_OUT_OF_RANGE, track, -1,
			          "%s: key %ld's time %.9g cannot be written as %s keys: %s", track,
			          bad, (double)s->times[bad], k->cls->name, rule);
			return -1;
		}
	}
	switch (k->cls->kind) {
	case KIND_HANDLE:
	case KIND_FLAG:
		rc = write_word_keys(&kw, s,
		                     k->reading && strncmp(k->reading, "handle, then", 12) == 0);
		break;
	case KIND_MESSAGE:
		keys = (long)(int32_t)write_message_keys(&kw, s);
		rc = keys < 0 ? -1 : 0;
		break;
	default: rc = write_value_keys(&kw, s, step); break;
	}
	if (rc == 0 && kw.w.b.overflow) {
		error_set(err, ERROR_TOO_LARGE, track, -1, "%s: the keys pass 2 GiB", track);
		rc = -1;
	}
	if (rc < 0) {
		buf_cleanup(&kw.w.b);
		return -1;
	}
	*bytes = (uint8_t *)buf_steal(&kw.w.b, length);
	*worst = kw.worst_step;
	return keys;
}

/* The template's bytes [from, to) in the output's byte order. */
static int copy_keys(struct native_build *nb, struct writer *w, const struct zouna_keys *k,
                     size_t from, size_t to)
{
	size_t n = to - from;
	uint8_t *p;

	if (nb->in == nb->out)
		return buf_append(&w->b, nb->tmpl->data + from, n);
	p = malloc(n + 1);
	if (!p)
		return oom(nb);
	memcpy(p, nb->tmpl->data + from, n);
	if (k->cls->kind == KIND_MESSAGE)
		swap_words(p, n);
	else
		swap_keys(k, p, n);
	buf_append(&w->b, p, n);
	free(p);
	return 0;
}

static int add_slice(struct native_build *nb, const struct slice *s)
{
	if (nb->slice_count == nb->slice_cap) {
		size_t cap = nb->slice_cap ? nb->slice_cap * 2 : 64;
		struct slice *p = realloc(nb->slices, cap * sizeof(*p));
		if (!p)
			return oom(nb);
		nb->slices = p;
		nb->slice_cap = cap;
	}
	nb->slices[nb->slice_count++] = *s;
	return 0;
}

/* Reads the template's body: scalars, keyframers, records. */
static int read_template(struct native_build *nb)
{
	struct reader r;
	size_t body = nb->h.start + OBJECT_HEADER_SIZE + nb->h.link_size;

	reader_init(&r, nb->tmpl->data, nb->tmpl->length, nb->in, nb->err);
	reader_seek(&r, body, "body");
	nb->max_time = reader_f32(&r, "maxTime");
	nb->smooth = reader_f32(&r, "smoothRatio");
	nb->flag = reader_u16(&r, "flag");
	for (int i = 0; i < KF_KEYFRAMER_COUNT && !reader_failed(&r); i++) {
		const struct zouna_class *c =
		    zouna_class_named(zouna_animation_keyframers[i].class_name);
		if (i == KF_NODE_ROT)
			nb->node_flag = reader_u16(&r, "node.flag");
		if (zouna_read_keyframer(&r, c, zouna_animation_keyframers[i].field, 0,
		                         &nb->kf[i].keys, nb->err) < 0)
			return -1;
		nb->kf[i].flags = nb->kf[i].keys.flags;
		nb->kf[i].keys_at = nb->kf[i].keys.offset + (c->has_flags ? 2 : 0) + 4;
		nb->kf[i].end = r.pos;
	}
	for (int kind = 0; kind < REC_KINDS && !reader_failed(&r); kind++) {
		const struct record_layout *l = &layouts[kind];
		uint32_t count = reader_u32(&r, l->field);
		if (reader_check_count(&r, count, l->size, l->field) < 0)
			return -1;
		nb->records[kind] = calloc((size_t)count + 1, sizeof(struct record));
		if (!nb->records[kind])
			return oom(nb);
		nb->record_count[kind] = count;
		for (uint32_t i = 0; i < count; i++) {
			struct record *rec = &nb->records[kind][i];
			rec->crc = reader_u32(&r, l->field);
			rec->id = reader_u16(&r, l->field);
			rec->flag = reader_u16(&r, l->field);
			for (unsigned p = 0; p < l->pair_count; p++)
				for (int q = 0; q < 2; q++)
					rec->pairs[p][q] =
					    l->is_signed
					        ? (uint32_t)(int32_t)reader_i16(&r, l->field)
					        : reader_u16(&r, l->field);
		}
	}
	nb->trailing_at = r.pos;
	return reader_failed(&r) ? -1 : 0;
}

#define NO_CHANNEL UINT32_MAX

static uint32_t chains_bucket(const struct channel_chains *cc, uint32_t crc, uint64_t property)
{
	uint64_t h = ((uint64_t)crc * 0x9E3779B97F4A7C15u) ^ (property * 0xC2B2AE3D27D4EB4Fu);
	return (uint32_t)(h >> 32) & cc->mask;
}

/* Chains every channel of r whose target names a crc under its (crc, property). */
static int chains_build(struct channel_chains *cc, const struct resource *r)
{
	size_t n = r->clip.channel_count, buckets = 16;

	while (buckets < 2 * n)
		buckets *= 2;
	cc->mask = (uint32_t)(buckets - 1);
	cc->head = malloc(buckets * sizeof(*cc->head));
	cc->next = malloc((n + 1) * sizeof(*cc->next));
	if (!cc->head || !cc->next || n >= NO_CHANNEL)
		return -1;
	memset(cc->head, 0xFF, buckets * sizeof(*cc->head));
	for (size_t ch = n; ch-- > 0;) {
		const struct channel *c = &r->clip.channels[ch];
		uint32_t crc, b;
		cc->next[ch] = NO_CHANNEL;
		if (source_target_crc(r, &r->clip.targets[c->target], &crc) < 0)
			continue;
		b = chains_bucket(cc, crc, c->property);
		cc->next[ch] = cc->head[b];
		cc->head[b] = (uint32_t)ch;
	}
	return 0;
}

static void chains_free(struct channel_chains *cc)
{
	free(cc->head);
	free(cc->next);
}

/* Finds the source channel of a target not yet matched (the n-th of equal ones). */
static long find_source(struct native_build *nb, const char *schema, uint32_t crc,
                        uint64_t property)
{
	uint32_t *link = &nb->sources.head[chains_bucket(&nb->sources, crc, property)];

	while (*link != NO_CHANNEL) {
		uint32_t ch = *link;
		if (nb->source_used[ch]) {
			*link = nb->sources.next[ch]; /* matched: never a candidate again */
			continue;
		}
		if (source_matches(nb->source, ch, schema, crc, property))
			return (long)ch;
		link = &nb->sources.next[ch];
	}
	return -1;
}

/* A record's track as the decoder names it: "bone 0x1234ABCD rotation". */
static void track_name(char *out, size_t size, const struct record_layout *l, uint32_t crc,
                       unsigned pair)
{
	const char *what = schema_property_name(l->schema[pair], l->property[pair]);

	snprintf(out, size, "%s 0x%08" PRIX32 " %s", l->target_prefix, crc,
	         what ? what : l->pair_name[pair]);
}

/* Whether the source track is what the export writes for the template's track. */
static int equals_export(struct native_build *nb, const struct sampler *tmpl, int rotation,
                         int euler, const struct sampler *source)
{
	struct sampler out;
	int same;

	if (!nb->opt->exported ||
	    nb->opt->exported(nb->opt->exported_ctx, tmpl, rotation, euler, &out) < 0)
		return 0;
	same = out.key_count > 0 && sampler_equal(&out, source);
	free(out.times);
	free(out.values);
	return same;
}

/* Decides, for one slice of the template, whether its bytes are kept: the entry's track of
 * its target and property equals the template's, as the decoder or the export gives it. An
 * Euler rotation (bezierRot) also matches the entry's rotation that equals its export's
 * baking (a glTF round trip). */
static int plan_slice(struct native_build *nb, struct slice *s, const char *schema,
                      uint64_t property, uint32_t crc, int is_track)
{
	struct native_keyframer *kf = &nb->kf[s->keyframer];
	struct resource *scratch;
	struct track_target tt = {schema, crc, NULL, property, 1, crc};
	const struct sampler *tmpl;
	/* property numbers are per schema: Zouna's Euler rotation is 2, as a node's rotation */
	int euler = strcmp(schema, SCHEMA_ZOUNA) == 0 && property == ZOUNA_EULER_ROTATION;
	int rotation = strcmp(schema, SCHEMA_NODE) == 0 && property == NODE_ROTATION, made;
	long ch;

	if (s->count == 0)
		return 0; /* no keys: the record's pair is written as it was */
	if (!is_track)
		return add_slice(nb, s); /* not a track the decoder makes: its keys kept */
	scratch = resource_create("zouna", "Animation_Z");
	if (!scratch)
		return oom(nb);
	made = zouna_add_track(scratch, NULL, &kf->keys, s->start, s->count, &tt,
	                       zouna_animation_keyframers[s->keyframer].field, nb->err);
	if (made < 0) { /* the template's own slice is no track: rewritten when the entry has one */
		error_init(nb->err);
		resource_free(scratch);
		scratch = NULL;
	}
	tmpl = scratch ? &scratch->clip.samplers[0] : NULL;
	ch = find_source(nb, schema, crc, property);
	if (ch < 0 && euler && tmpl) {
		ch = find_source(nb, SCHEMA_NODE, crc, NODE_ROTATION);
		if (ch >= 0 &&
		    !equals_export(
		        nb, tmpl, 0, 1,
		        &nb->source->clip.samplers[nb->source->clip.channels[ch].sampler]))
			ch = -1; /* an edited rotation: a rot slice of its own (plan_new_slices) */
	}
	if (ch < 0) {
		json_array_append_new(nb->kept, json_string(s->track));
		resource_free(scratch);
		return add_slice(nb, s);
	}
	nb->source_used[ch] = 1;
	s->source = &nb->source->clip.samplers[nb->source->clip.channels[ch].sampler];
	if (nb->source->track_names && nb->source->track_names[ch])
		snprintf(s->track, sizeof(s->track), "%s", nb->source->track_names[ch]);
	s->changed = !tmpl || !(sampler_equal(tmpl, s->source) ||
	                        equals_export(nb, tmpl, rotation, euler, s->source));
	s->euler_kept = euler && !s->changed && s->source->type == VALUE_FLOAT4;
	resource_free(scratch);
	return add_slice(nb, s);
}

/* Every record's slices, in record order. */
static int plan_template_slices(struct native_build *nb)
{
	for (int kind = 0; kind < REC_KINDS; kind++) {
		const struct record_layout *l = &layouts[kind];
		for (size_t i = 0; i < nb->record_count[kind]; i++) {
			const struct record *rec = &nb->records[kind][i];
			for (unsigned p = 0; p < l->pair_count; p++) {
				struct slice s = {0};
				int is_track;
				s.keyframer = l->keyframer[p];
				s.start = rec->pairs[p][0];
				s.count = rec->pairs[p][1];
				s.kind = kind;
				s.record = i;
				s.pair = p;
				track_name(s.track, sizeof(s.track), l, rec->crc, p);
				is_track = !(kind == REC_NODE && p == 2 && rec->pairs[1][1] > 0);
				if ((uint64_t)s.start + s.count > nb->kf[s.keyframer].keys.count) {
					/* the decoder reads no track there (a bezierRot slice
					 * beside rot keys): the pair is written as it was */
					if (!is_track)
						continue;
					error_set(nb->err, ERROR_INDEX_OUT_OF_RANGE, l->field, -1,
					          "template: %s[%zu].%s: keys [%" PRIu32
					          ", %" PRIu64 ") are outside its keyframer",
					          l->field, i, l->pair_name[p], s.start,
					          (uint64_t)s.start + s.count);
					return -1;
				}
				/* a bone uses rot when it has rot keys, else bezierRot */
				if (plan_slice(nb, &s, l->schema[p], l->property[p], rec->crc,
				               is_track) < 0)
					return -1;
			}
		}
	}
	return 0;
}

/* Where a source property goes in an Animation_Z: record kind and pair; -1 when nowhere. */
static int place_property(const char *schema, uint64_t property, int *kind, unsigned *pair)
{
	for (int k = 0; k < REC_KINDS; k++)
		for (unsigned p = 0; p < layouts[k].pair_count; p++)
			if (layouts[k].property[p] == property &&
			    strcmp(layouts[k].schema[p], schema) == 0) {
				*kind = k;
				*pair = p;
				return 0;
			}
	return -1;
}

/* The entry's tracks the template has no slice for: new slices at their keyframers' ends,
 * in a record of their target (added when the template has none). */
static int plan_new_slices(struct native_build *nb)
{
	const struct resource *src = nb->source;

	for (size_t ch = 0; ch < src->clip.channel_count; ch++) {
		const struct channel *c = &src->clip.channels[ch];
		const struct target *t = &src->clip.targets[c->target];
		struct slice s = {0};
		uint32_t crc;
		int kind;
		unsigned pair;
		size_t i;
		if (nb->source_used[ch])
			continue;
		if (place_property(t->schema, c->property, &kind, &pair) < 0 ||
		    source_target_crc(src, t, &crc) < 0) {
			error_set(
			    nb->err, ERROR_INVALID, src->track_names ? src->track_names[ch] : NULL,
			    -1,
			    "track %zu (%s): an Animation_Z has no place for it (its keyframers "
			    "hold bone translation, rotation, Euler rotation, scale and "
			    "messages, material, mesh and morph values, each target named by a "
			    "handle or a name)",
			    ch,
			    src->track_names && src->track_names[ch] ? src->track_names[ch]
			                                             : "unnamed");
			return -1;
		}
		for (i = 0; i < nb->record_count[kind]; i++)
			if (nb->records[kind][i].crc == crc)
				break;
		if (i == nb->record_count[kind]) {
			struct record *p = realloc(nb->records[kind], (i + 1) * sizeof(*p));
			if (!p)
				return oom(nb);
			nb->records[kind] = p;
			memset(&p[i], 0, sizeof(p[i]));
			p[i].crc = crc;
			p[i].id = 0xFFFF; /* the engine sets it from the name's CRC when it loads */
			nb->record_count[kind]++;
		} else if (nb->records[kind][i].pairs[pair][1] != 0) {
			error_set(
			    nb->err, ERROR_INVALID, src->track_names ? src->track_names[ch] : NULL,
			    -1,
			    "track %zu: a second track for %s 0x%08" PRIX32 " %s; the template's "
			    "record holds one",
			    ch, layouts[kind].target_prefix, crc, layouts[kind].pair_name[pair]);
			return -1;
		}
		s.keyframer = layouts[kind].keyframer[pair];
		s.kind = kind;
		s.record = i;
		s.pair = pair;
		s.start = nb->kf[s.keyframer].keys.count; /* after every key */
		s.source = &src->clip.samplers[c->sampler];
		s.changed = 1;
		if (src->track_names && src->track_names[ch])
			snprintf(s.track, sizeof(s.track), "%s", src->track_names[ch]);
		else
			track_name(s.track, sizeof(s.track), &layouts[kind], crc, pair);
		nb->source_used[ch] = 1;
		if (add_slice(nb, &s) < 0)
			return -1;
	}
	return 0;
}

static int by_keyframer_then_start(const void *a, const void *b)
{
	const struct slice *x = *(const struct slice *const *)a,
	                   *y = *(const struct slice *const *)b;

	if (x->keyframer != y->keyframer)
		return x->keyframer < y->keyframer ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Encodes the changed slices in their keyframers' classes. */
/* A changed track under reduce=: the fewest keys within the tolerance of its dense keys
 * (core/reduce.h), fitted with tangents for a Hermite class; *s then points at them and the
 * report row says how many keys went and how far the result strays. Tracks of words, and
 * every track without reduce=, are written as they are. */
static int reduce_track(struct native_build *nb, const struct zouna_class *c,
                        const struct sampler **s, struct sampler *reduced, json_t *row)
{
	struct reduce_result r;

	if (!(nb->opt->reduce > 0) || !reduce_applies(*s))
		return 0;
	if (reduce_sampler(*s, nb->opt->reduce,
	                   c->kind == KIND_HERMITE ? REDUCE_HERMITE : REDUCE_LINEAR, reduced,
	                   &r) < 0)
		return oom(nb);
	*s = reduced;
	json_object_set_new(row, "reduced",
	                    json_pack("{s:I, s:I, s:f, s:f}", "keys_before",
	                              (json_int_t)r.keys_before, "keys_after",
	                              (json_int_t)r.keys_after, "largest_error", r.largest_error,
	                              "tolerance", nb->opt->reduce));
	if (r.largest_error > nb->opt->reduce)
		json_object_set_new(json_object_get(row, "reduced"), "note",
		                    json_string(NATIVE_TOLERANCE_BELOW_FLOAT32));
	return 0;
}

/* A reduced track whose fitted tangents pass what its class holds (a 422 for the reduced
 * keys, though the track's own fit): written with its own keys instead, said in the report. */
static long write_reduced_or_own(const struct zouna_keys *k, uint16_t flags,
                                 const struct sampler **s, const struct sampler *own,
                                 const char *track, enum byte_order order, uint8_t **bytes,
                                 size_t *length, double *worst, json_t *row, struct error *err)
{
	long keys = write_track(k, flags, *s, track, order, bytes, length, worst, err);

	if (keys >= 0 || *s == own || err->code != ERROR_VALUE_OUT_OF_RANGE)
		return keys;
	error_init(err);
	keys = write_track(k, flags, own, track, order, bytes, length, worst, err);
	if (keys >= 0) {
		*s = own;
		json_object_set_new(json_object_get(row, "reduced"), "undone",
		                    json_sprintf("the fewest keys' fitted tangents pass what %s "
		                                 "holds, so the track's own keys are written",
		                                 k->cls->name));
	}
	return keys;
}

static int encode_changed(struct native_build *nb)
{
	for (size_t i = 0; i < nb->slice_count; i++) {
		struct slice *s = &nb->slices[i];
		double worst = 0;
		long keys;
		json_t *row;
		if (!s->source)
			continue;
		row = json_pack("{s:s, s:s}", "track", s->track, "class",
		                nb->kf[s->keyframer].keys.cls->name);
		if (!s->changed) {
			json_object_set_new(row, "keys", json_integer(s->count));
			json_object_set_new(row, "kept", json_true());
		} else {
			const struct sampler *own = s->source;
			if (reduce_track(nb, nb->kf[s->keyframer].keys.cls, &s->source, &s->reduced,
			                 row) < 0) {
				json_decref(row);
				return -1;
			}
			keys = write_reduced_or_own(
			    &nb->kf[s->keyframer].keys, nb->kf[s->keyframer].flags, &s->source, own,
			    s->track, nb->out, &s->bytes, &s->length, &worst, row, nb->err);
			if (keys < 0) {
				json_decref(row);
				return -1;
			}
			s->written = (uint32_t)keys;
			json_object_set_new(row, "keys", json_integer(keys));
			json_object_set_new(row, "kept", json_false());
			json_object_set_new(row, "written", json_integer(keys));
			if (nb->kf[s->keyframer].keys.compressed)
				json_object_set_new(row, "quantisation", json_real(worst));
		}
		json_array_append_new(nb->report_tracks, row);
	}
	return 0;
}

/* Lays out one keyframer: its header, every key outside a slice where it was, each slice
 * where it was (with its new keys when changed), new slices last. */
static int write_keyframer(struct native_build *nb, struct writer *w, int k, struct slice **sorted,
                           size_t n)
{
	struct native_keyframer *kf = &nb->kf[k];
	const struct zouna_keys *keys = &kf->keys;
	size_t count_at;
	uint32_t at = 0, out_count = 0;

	if (keys->cls->has_flags)
		writer_u16(w, kf->flags);
	count_at = w->b.len;
	writer_u32(w, 0); /* the count, set below */
	for (size_t i = 0; i < n; i++) {
		struct slice *s = sorted[i];
		if (s->start < at) {
			/* the same keys as the slice before (shared) or overlapping it */
			struct slice *prev = sorted[i - 1];
			if (s->start == prev->start && s->count == prev->count && !s->changed &&
			    !prev->changed) {
				s->new_start = prev->new_start;
				s->new_count = prev->new_count;
				continue;
			}
			error_set(nb->err, ERROR_INVALID, s->track, -1,
			          "%s: its keys [%" PRIu32 ", %" PRIu32 ") overlap %s's in the "
			          "template's %s keyframer, and one of them changed: overlapping "
			          "slices are written back only when neither changes",
			          s->track, s->start, s->start + s->count, prev->track,
			          zouna_animation_keyframers[k].field);
			return -1;
		}
		if (s->start > at) { /* keys no record names, kept where they were */
			if (copy_keys(nb, w, keys, key_offset(kf, at), key_offset(kf, s->start)) <
			    0)
				return -1;
			out_count += s->start - at;
			at = s->start;
		}
		s->new_start = out_count;
		if (s->changed) {
			buf_append(&w->b, s->bytes, s->length);
			s->new_count = s->written;
		} else {
			if (copy_keys(nb, w, keys, key_offset(kf, s->start),
			              key_offset(kf, s->start + s->count)) < 0)
				return -1;
			s->new_count = s->count;
		}
		out_count += s->new_count;
		at = s->start + s->count;
	}
	if (at < keys->count) {
		if (copy_keys(nb, w, keys, key_offset(kf, at), kf->end) < 0)
			return -1;
		out_count += keys->count - at;
	}
	/* the count, in place */
	for (int i = 0; i < 4; i++)
		w->b.data[count_at + (size_t)(w->order == BYTE_ORDER_BIG ? 3 - i : i)] =
		    (char)(uint8_t)(out_count >> (8 * i));
	return 0;
}

static int write_records(struct native_build *nb, struct writer *w)
{
	for (size_t i = 0; i < nb->slice_count; i++) {
		const struct slice *s = &nb->slices[i];
		const struct record_layout *l = &layouts[s->kind];
		uint32_t limit = l->is_signed ? 32767 : 65535;
		if (s->new_start > limit || s->new_count > limit) {
			error_set(nb->err, ERROR_VALUE_OUT_OF_RANGE, s->track, -1,
			          "%s: its keys would start at %" PRIu32 " and number %" PRIu32
			          ", beyond the record's %s 16-bit fields (at most %" PRIu32 ")",
			          s->track, s->new_start, s->new_count,
			          l->is_signed ? "signed" : "unsigned", limit);
			return -1;
		}
		nb->records[s->kind][s->record].pairs[s->pair][0] = s->new_start;
		nb->records[s->kind][s->record].pairs[s->pair][1] = s->new_count;
	}
	for (int kind = 0; kind < REC_KINDS; kind++) {
		const struct record_layout *l = &layouts[kind];
		writer_u32(w, (uint32_t)nb->record_count[kind]);
		for (size_t i = 0; i < nb->record_count[kind]; i++) {
			const struct record *rec = &nb->records[kind][i];
			writer_u32(w, rec->crc);
			writer_u16(w, rec->id);
			writer_u16(w, rec->flag);
			for (unsigned p = 0; p < l->pair_count; p++) {
				writer_u16(w, (uint16_t)rec->pairs[p][0]);
				writer_u16(w, (uint16_t)rec->pairs[p][1]);
			}
		}
	}
	return 0;
}

/* The latest key time any changed slice writes. */
static float last_written_time(const struct native_build *nb)
{
	float last = 0;

	for (size_t i = 0; i < nb->slice_count; i++) {
		const struct sampler *s = nb->slices[i].source;
		if (nb->slices[i].changed && s && s->key_count && s->times[s->key_count - 1] > last)
			last = s->times[s->key_count - 1];
	}
	return last;
}

/* The BFF0 header, the object header, the link header and the body. */
static int write_animation(struct native_build *nb, struct writer *w)
{
	size_t n = nb->slice_count, header_at, body_at, link_at = nb->h.start + OBJECT_HEADER_SIZE;
	struct slice **sorted = malloc((n + 1) * sizeof(*sorted));
	uint32_t name_crc = nb->h.name_crc;
	float last = last_written_time(nb);

	if (!sorted)
		return oom(nb);
	for (size_t i = 0; i < n; i++)
		sorted[i] = &nb->slices[i];
	qsort(sorted, n, sizeof(*sorted), by_keyframer_then_start);
	if (nb->opt->name)
		name_crc = hash_asobo32(nb->opt->name, strlen(nb->opt->name));
	if (nb->opt->bff == -1 ? nb->h.bff_size > 0 : nb->opt->bff > 0) {
		/* the template's own header when it has one of the size asked for */
		if (nb->h.bff_size &&
		    (nb->opt->bff == -1 || (size_t)nb->opt->bff == nb->h.bff_size))
			buf_append(&w->b, nb->tmpl->data, nb->h.bff_size);
		else { /* a 16-byte BFF0 header of our own (doc/formats.md 1.5) */
			static const uint8_t bff[16] = {'B', 'F', 'F', '0', 10, 0};
			uint8_t own[16];
			memcpy(own, bff, 16);
			own[6] = nb->out == BYTE_ORDER_BIG ? 5 : 0; /* PS3 or PC */
			buf_append(&w->b, own, 16);
		}
	}
	header_at = w->b.len;
	for (int i = 0; i < 6; i++)
		writer_u32(w, 0); /* the object header, set below */
	/* the link header: read as handles, so swapped word by word */
	buf_append(&w->b, nb->tmpl->data + link_at, nb->h.link_size);
	if (nb->in != nb->out)
		swap_words((uint8_t *)w->b.data + header_at + OBJECT_HEADER_SIZE, nb->h.link_size);
	body_at = w->b.len;
	writer_f32(w, last > nb->max_time ? last : nb->max_time);
	writer_f32(w, nb->smooth);
	writer_u16(w, nb->flag);
	for (int k = 0; k < KF_KEYFRAMER_COUNT; k++) {
		size_t from = 0, to;
		if (k == KF_NODE_ROT)
			writer_u16(w, nb->node_flag);
		while (from < n && sorted[from]->keyframer != k)
			from++;
		to = from;
		while (to < n && sorted[to]->keyframer == k)
			to++;
		if (write_keyframer(nb, w, k, sorted + from, to - from) < 0) {
			free(sorted);
			return -1;
		}
	}
	free(sorted);
	if (write_records(nb, w) < 0)
		return -1;
	buf_append(&w->b, nb->tmpl->data + nb->trailing_at, nb->tmpl->length - nb->trailing_at);
	if (w->b.overflow)
		return oom(nb);
	{
		struct writer head = {{0}, nb->out};
		uint32_t body = (uint32_t)(w->b.len - body_at);
		buf_init(&head.b, 64);
		writer_u32(&head, nb->h.link_size + body);
		writer_u32(&head, nb->h.link_size);
		/* decompressedSize: the body's length (kept as the template has it while the
		 * body keeps its length, so that a file nothing changed in is itself) */
		writer_u32(&head, body == nb->h.data_size - nb->h.link_size
		                      ? nb->h.decompressed_size
		                      : body);
		writer_u32(&head, 0);
		writer_u32(&head, nb->h.class_crc);
		writer_u32(&head, name_crc);
		memcpy(w->b.data + header_at, head.b.data, OBJECT_HEADER_SIZE);
		buf_cleanup(&head.b);
	}
	return 0;
}

/* One component of key i's value (a cubic spline's middle third). */
static double key_value(const struct sampler *s, uint32_t i, size_t j)
{
	size_t n = sampler_components(s);
	size_t at =
	    s->interp == INTERP_CUBIC_SPLINE ? (size_t)i * 3 * n + n + j : (size_t)i * n + j;

	if (value_type_scalar(s->type) == SCALAR_FLOAT)
		return ((const float *)s->values)[at];
	return ((const uint32_t *)s->values)[at];
}

/* How far one written track is from the entry's: the largest difference of a key's value, or
 * -1 when their keys differ in number or time (a bug). */
static double track_difference(const struct sampler *want, const struct sampler *got)
{
	size_t n = sampler_components(want);
	double worst = 0;

	if (want->key_count != got->key_count || sampler_components(got) != n)
		return -1;
	for (uint32_t i = 0; i < want->key_count; i++) {
		if (want->times[i] != got->times[i])
			return -1;
		for (size_t j = 0; j < n; j++) {
			double d = fabs(key_value(want, i, j) - key_value(got, i, j));
			if (d > worst)
				worst = d;
		}
	}
	return worst;
}

/* The written track of a target and property, or NULL. */
static const struct sampler *written_track(const struct resource *r,
                                           const struct channel_chains *cc, const char *schema,
                                           uint32_t crc, uint64_t property, int bare)
{
	if (bare)
		return r->clip.channel_count ? &r->clip.samplers[r->clip.channels[0].sampler]
		                             : NULL;
	for (uint32_t ch = cc->head[chains_bucket(cc, crc, property)]; ch != NO_CHANNEL;
	     ch = cc->next[ch]) {
		const struct channel *c = &r->clip.channels[ch];
		const struct target *t = &r->clip.targets[c->target];
		if (c->property == property && strcmp(t->schema, schema) == 0 && t->object == crc)
			return &r->clip.samplers[c->sampler];
	}
	return NULL;
}

/* Decodes the file written with animdex's own decoder and measures every track the entry
 * gave against it: beyond the class's half step, a 500 naming the track (a bug, never
 * silence). Each report row gains its largest difference. */
static int check_written(struct native_build *nb, struct native_file *out, int bare)
{
	struct upload up = {0};
	struct decode_result result;
	struct error e;
	struct channel_chains cc = {0};
	size_t row = 0;
	int rc = -1;

	up.data = out->bytes;
	up.length = out->length;
	up.family = "zouna";
	up.class_name = out->extension;
	up.endian = order_name(nb->out);
	decode_result_init(&result);
	error_init(&e);
	if (format_decode(&up, &result, &e) < 0 || result.count != 1) {
		error_set(nb->err, ERROR_INTERNAL, NULL, -1,
		          "native: the file written does not decode again (%s); this is a bug in "
		          "animdex's encoder",
		          e.message);
		goto done;
	}
	if (chains_build(&cc, result.resources[0]) < 0) {
		oom(nb);
		goto done;
	}
	for (size_t i = 0; i < (bare ? nb->source->clip.channel_count : nb->slice_count); i++) {
		const struct slice *s = bare ? NULL : &nb->slices[i];
		const struct sampler *want =
		    bare ? (nb->reduced.key_count
		                ? &nb->reduced
		                : &nb->source->clip.samplers[nb->source->clip.channels[0].sampler])
		         : s->source;
		const struct record_layout *l = bare ? NULL : &layouts[s->kind];
		const struct sampler *got;
		const struct zouna_class *c =
		    bare ? nb->kf[0].keys.cls : nb->kf[s->keyframer].keys.cls;
		json_t *report = json_array_get(nb->report_tracks, row);
		double d, allowed;
		if (!want)
			continue;
		row++;
		got = written_track(result.resources[0], &cc, bare ? NULL : l->schema[s->pair],
		                    bare ? 0 : nb->records[s->kind][s->record].crc,
		                    bare ? 0 : l->property[s->pair], bare);
		d = got ? track_difference(want, got) : -1;
		allowed = (bare ? nb->kf[0].keys.compressed : nb->kf[s->keyframer].keys.compressed)
		              ? 0.5 / c->factor * 1.0001 + 1e-6
		              : 1e-6;
		if (s ? !s->changed : json_is_true(json_object_get(report, "kept"))) {
			/* its bytes are the template's, whose export the entry's track is: what the
			 * game reads differs from the entry by what the export did (a rotation made
			 * unit length), or, for an Euler rotation, is the Euler angles themselves
			 */
			if ((s && s->euler_kept) || (got && got->type != want->type) || d < 0)
				d = 0;
		} else if (d < 0 || d > allowed) {
			error_set(
			    nb->err, ERROR_INTERNAL,
			    json_string_value(json_object_get(report, "track")), -1,
			    "native: %s reads back %s (%s); this is a bug in animdex's encoder",
			    json_string_value(json_object_get(report, "track")),
			    !got    ? "missing"
			    : d < 0 ? "with other keys"
			            : "beyond half a step",
			    c->name);
			goto done;
		}
		json_object_set_new(report, "largest_difference", json_real(d));
	}
	rc = 0;
done:
	chains_free(&cc);
	decode_result_cleanup(&result);
	return rc;
}

static void build_cleanup(struct native_build *nb)
{
	for (int k = 0; k < KF_KEYFRAMER_COUNT; k++)
		zouna_keys_cleanup(&nb->kf[k].keys);
	for (int kind = 0; kind < REC_KINDS; kind++)
		free(nb->records[kind]);
	for (size_t i = 0; i < nb->slice_count; i++) {
		free(nb->slices[i].bytes);
		free(nb->slices[i].reduced.times);
		free(nb->slices[i].reduced.values);
	}
	free(nb->reduced.times);
	free(nb->reduced.values);
	free(nb->slices);
	free(nb->source_used);
	chains_free(&nb->sources);
	json_decref(nb->report_tracks);
	json_decref(nb->kept);
	json_decref(nb->defaults);
}

/* The byte order the template was read in: as recorded, else as its header adds up. */
static int template_order(const struct upload *tmpl, enum byte_order *order, int *forced,
                          struct error *err)
{
	enum byte_order orders[2];
	int n = zouna_byte_orders(tmpl, orders, err);

	if (n < 0)
		return -1;
	*order = orders[0];
	*forced = n == 1;
	return 0;
}

static int native_animation(struct native_build *nb, struct native_file *out)
{
	struct writer w = {{0}, nb->out};

	if (read_template(nb) < 0 || plan_template_slices(nb) < 0 || plan_new_slices(nb) < 0 ||
	    encode_changed(nb) < 0)
		return -1;
	buf_init(&w.b, NATIVE_MAX_BYTES);
	if (write_animation(nb, &w) < 0) {
		buf_cleanup(&w.b);
		return -1;
	}
	out->bytes = (uint8_t *)buf_steal(&w.b, &out->length);
	out->extension = "Animation_Z";
	return 0;
}

/* The uncompressed class of a compressed one, for promote=1 ("KeyframerVec3fComp_Z" ->
 * "KeyframerVec3f_Z"), or NULL. */
static const struct zouna_class *uncompressed_class(const struct zouna_class *c)
{
	char name[64];
	const char *comp = strstr(c->name, "Comp_Z");

	if (!c->compressed || !comp)
		return NULL;
	snprintf(name, sizeof(name), "%.*s_Z", (int)(comp - c->name), c->name);
	return zouna_class_named(name);
}

/* A bare keyframer: the entry's one track (or its one Zouna value track) in the template's
 * class. */
static int native_keyframer(struct native_build *nb, const struct zouna_class *c,
                            struct native_file *out)
{
	const struct resource *src = nb->source;
	struct native_keyframer *kf = &nb->kf[0];
	struct reader r;
	struct writer w = {{0}, nb->out};
	const struct sampler *s;
	struct resource *scratch;
	struct track_target tt = {SCHEMA_ZOUNA, 0, c->name, ZOUNA_VALUE, 0, 0};
	double worst = 0;
	json_t *row;
	int same = 0;

	reader_init(&r, nb->tmpl->data, nb->tmpl->length, nb->in, nb->err);
	if (zouna_read_keyframer(&r, c, c->name, 1, &kf->keys, nb->err) < 0)
		return -1;
	kf->flags = kf->keys.flags;
	kf->keys_at = (c->has_flags ? 2 : 0) + 4;
	kf->end = nb->tmpl->length;
	if (src->clip.channel_count == 0 && kf->keys.count == 0) {
		/* no keys in either (the decoder makes no track of none): the empty keyframer */
		buf_init(&w.b, 64);
		if (c->has_flags)
			writer_u16(&w, kf->flags);
		writer_u32(&w, 0);
		out->bytes = (uint8_t *)buf_steal(&w.b, &out->length);
		out->extension = c->name;
		return out->bytes ? 0 : oom(nb);
	}
	if (src->clip.channel_count != 1) {
		error_set(nb->err, ERROR_INVALID, "template", -1,
		          "template: a bare %s holds one track, and the entry has %zu; choose an "
		          "entry of one track (or an Animation_Z template)",
		          c->name, src->clip.channel_count);
		return -1;
	}
	s = &src->clip.samplers[src->clip.channels[0].sampler];
	if (c->kind == KIND_MESSAGE)
		tt.property = ZOUNA_MESSAGES;
	else if (strcmp(c->name, "KeyframerBezierRot_Z") == 0)
		tt.property = ZOUNA_EULER_ROTATION;
	scratch = resource_create("zouna", c->name);
	if (!scratch)
		return oom(nb);
	/* the same track, as the decoder makes it or as the export baked it (a bezierRot's Euler
	 * angles come back from glTF as the rotation they were exported as) */
	if (zouna_add_track(scratch, NULL, &kf->keys, 0, kf->keys.count, &tt, c->name, nb->err) >=
	    0)
		same = sampler_equal(&scratch->clip.samplers[0], s) ||
		       equals_export(nb, &scratch->clip.samplers[0], 0,
		                     tt.property == ZOUNA_EULER_ROTATION, s);
	error_init(nb->err);
	resource_free(scratch);
	buf_init(&w.b, NATIVE_MAX_BYTES);
	row = json_pack("{s:s, s:s}", "track",
	                src->track_names && src->track_names[0] ? src->track_names[0] : c->name,
	                "class", c->name);
	if (same) {
		if (c->has_flags)
			writer_u16(&w, kf->flags);
		writer_u32(&w, kf->keys.count);
		copy_keys(nb, &w, &kf->keys, kf->keys_at, kf->end);
		json_object_set_new(row, "keys", json_integer(kf->keys.count));
		json_object_set_new(row, "kept", json_true());
	} else {
		uint8_t *bytes = NULL;
		size_t length = 0;
		struct error first;
		long keys;
		error_init(&first);
		const struct sampler *own = s;
		if (reduce_track(nb, c, &s, &nb->reduced, row) < 0) {
			json_decref(row);
			buf_cleanup(&w.b);
			return -1;
		}
		keys = write_reduced_or_own(&kf->keys, kf->flags, &s, own,
		                            json_string_value(json_object_get(row, "track")),
		                            nb->out, &bytes, &length, &worst, row, &first);
		if (s == own && nb->reduced.key_count) { /* undone: checked against its own keys */
			free(nb->reduced.times);
			free(nb->reduced.values);
			memset(&nb->reduced, 0, sizeof(nb->reduced));
		}
		if (keys < 0 && first.code == ERROR_VALUE_OUT_OF_RANGE && nb->opt->promote &&
		    uncompressed_class(c)) {
			kf->keys.cls = c = uncompressed_class(c);
			kf->keys.compressed = 0;
			json_object_set_new(row, "class", json_string(c->name));
			json_object_set_new(row, "promoted", json_true());
			keys = write_track(&kf->keys, kf->flags, s,
			                   json_string_value(json_object_get(row, "track")),
			                   nb->out, &bytes, &length, &worst, &first);
		}
		if (keys < 0) {
			*nb->err = first;
			json_decref(row);
			buf_cleanup(&w.b);
			return -1;
		}
		if (c->has_flags)
			writer_u16(&w, kf->flags);
		writer_u32(&w, (uint32_t)keys);
		buf_append(&w.b, bytes, length);
		free(bytes);
		json_object_set_new(row, "keys", json_integer(keys));
		json_object_set_new(row, "kept", json_false());
		json_object_set_new(row, "written", json_integer(keys));
		if (kf->keys.compressed)
			json_object_set_new(row, "quantisation", json_real(worst));
	}
	json_array_append_new(nb->report_tracks, row);
	if (w.b.overflow) {
		buf_cleanup(&w.b);
		return oom(nb);
	}
	out->bytes = (uint8_t *)buf_steal(&w.b, &out->length);
	out->extension = c->name;
	return 0;
}

int native_zouna(const struct upload *given, const struct resource *source,
                 const struct native_options *opt, struct native_file *out, struct error *err)
{
	struct upload view = format_without_bom(given); /* as the decoder saw it */
	const struct upload *tmpl = &view;
	struct native_build nb = {0};
	const char *cls = tmpl->class_name ? tmpl->class_name : format_extension(tmpl->filename);
	const struct zouna_class *c = zouna_class_named(cls);
	int bare = c && !(tmpl->length >= 4 && memcmp(tmpl->data, "BFF0", 4) == 0);
	int forced, rc;

	memset(out, 0, sizeof(*out));
	nb.tmpl = tmpl;
	nb.source = source;
	nb.opt = opt;
	nb.err = err;
	nb.report_tracks = json_array();
	nb.kept = json_array();
	nb.defaults = json_array();
	nb.source_used = calloc(source->clip.channel_count + 1, 1);
	if (!nb.source_used) {
		build_cleanup(&nb);
		return oom(&nb);
	}
	if (chains_build(&nb.sources, source) < 0) {
		build_cleanup(&nb);
		return oom(&nb);
	}
	if (template_order(tmpl, &nb.in, &forced, err) < 0) {
		build_cleanup(&nb);
		return -1;
	}
	if (bare) {
		nb.out = opt->byte_order >= 0 ? (enum byte_order)opt->byte_order : nb.in;
		if (opt->bff > 0 || opt->name) {
			error_set(err, ERROR_BAD_PARAMETER, opt->bff > 0 ? "bff" : "name", -1,
			          "%s: a bare %s has no object header (nor a BFF0 header); these "
			          "apply to Animation_Z files",
			          opt->bff > 0 ? "bff" : "name", c->name);
			build_cleanup(&nb);
			return -1;
		}
		rc = native_keyframer(&nb, c, out);
	} else {
		if (zouna_find_object_header(tmpl, &nb.h, nb.in, forced, err) < 0) {
			build_cleanup(&nb);
			return -1;
		}
		nb.in = nb.h.order;
		nb.out = opt->byte_order >= 0 ? (enum byte_order)opt->byte_order : nb.in;
		if (nb.h.class_crc != ANIMATION_Z_CRC || nb.h.compressed_size) {
			error_set(
			    err, ERROR_INVALID, "template", -1,
			    "template: a native file is made from an Animation_Z or a bare "
			    "keyframer of the game's own (uncompressed) bytes; this one is %s",
			    zouna_class_of_crc(nb.h.class_crc) ? zouna_class_of_crc(nb.h.class_crc)
			                                       : "of an unknown class");
			build_cleanup(&nb);
			return -1;
		}
		rc = native_animation(&nb, out);
	}
	if (rc == 0 && check_written(&nb, out, bare) < 0) {
		native_file_cleanup(out);
		rc = -1;
	}
	if (rc == 0) {
		if (opt->promote && !bare)
			json_array_append_new(
			    nb.defaults,
			    json_string("promote=1 has no effect on an Animation_Z: its "
			                "keyframers' classes are fixed by the engine"));
		if (nb.in != nb.out)
			json_array_append_new(
			    nb.defaults,
			    json_sprintf("written %s-endian; the template is %s-endian",
			                 order_name(nb.out), order_name(nb.in)));
		out->report = json_pack("{s:s, s:s, s:O, s:O, s:O}", "container",
		                        bare ? "bare keyframer" : "Animation_Z", "byte_order",
		                        order_name(nb.out), "tracks", nb.report_tracks,
		                        "kept_from_template", nb.kept, "notes", nb.defaults);
		if (!out->report) {
			native_file_cleanup(out);
			rc = oom(&nb);
		}
	}
	build_cleanup(&nb);
	return rc;
}

void native_file_cleanup(struct native_file *f)
{
	free(f->bytes);
	json_decref(f->report);
	memset(f, 0, sizeof(*f));
}

int native_zouna_blank_animation(int byte_order, uint32_t name_crc, uint8_t **bytes, size_t *length,
                                 struct error *err)
{
	enum byte_order order = byte_order == BYTE_ORDER_BIG ? BYTE_ORDER_BIG : BYTE_ORDER_LITTLE;
	struct writer body = {.order = order}, file = {.order = order};
	size_t body_length;

	buf_init(&body.b, 4096);
	buf_init(&file.b, 4096);
	writer_f32(&body, 0); /* maxTime: the encoder makes it the last key's time */
	writer_f32(&body, 0); /* smoothRatio */
	writer_u16(&body, 0); /* the header's flag */
	for (int i = 0; i < KF_KEYFRAMER_COUNT; i++) {
		const struct zouna_class *c =
		    zouna_class_named(zouna_animation_keyframers[i].class_name);
		if (i == 0)
			writer_u16(&body, 0); /* the node keyframers' flag */
		if (c && c->has_flags)
			writer_u16(&body, 0);
		writer_u32(&body, 0); /* no keys */
	}
	for (int i = 0; i < 4; i++)
		writer_u32(&body, 0); /* no node, material, mesh or morph records */
	body_length = body.b.len;
	writer_u32(&file, (uint32_t)(4 + body_length)); /* dataSize: link header and body */
	writer_u32(&file, 4);                           /* linkHeaderSize: the name alone */
	writer_u32(&file, (uint32_t)body_length);       /* decompressedSize */
	writer_u32(&file, 0);                           /* compressedSize: stored raw */
	writer_u32(&file, hash_asobo32("Animation_Z", 11));
	writer_u32(&file, name_crc);
	writer_u32(&file, name_crc); /* the link header */
	buf_append(&file.b, body.b.data, body_length);
	buf_cleanup(&body.b);
	if (file.b.overflow) {
		buf_cleanup(&file.b);
		return zouna_oom(err);
	}
	*bytes = (uint8_t *)buf_steal(&file.b, length);
	return 0;
}

int native_zouna_relink(const struct upload *given, const char *layout, uint8_t **bytes,
                        size_t *length, json_t *notes, struct error *err)
{
	struct upload tmpl = format_without_bom(given);
	struct zouna_object_header h;
	enum byte_order orders[2];
	int forced = zouna_byte_orders(&tmpl, orders, err), fuel = strcmp(layout, "fuel") == 0;
	uint32_t name, count = 0;
	size_t link_at, body_at, body_length, new_link;
	struct reader r;
	struct writer w;

	if (forced < 0 || zouna_find_object_header(&tmpl, &h, orders[0], forced == 1, err) < 0)
		return -1;
	link_at = h.start + OBJECT_HEADER_SIZE;
	body_at = link_at + h.link_size;
	body_length = tmpl.length - body_at;
	reader_init(&r, tmpl.data, tmpl.length, h.order, err);
	reader_seek(&r, link_at, "link header");
	name = h.link_size >= 4 ? reader_u32(&r, "link header") : h.name_crc;
	if (h.link_size >= 8)
		count = reader_u32(&r, "link header");
	if (reader_failed(&r))
		return -1;
	/* the forms (bff's link headers): FUEL's is the name alone; Ratatouille's and WALL-E's the
	 * name, a count and that many names, then whatever bytes the engine keeps */
	if (fuel)
		new_link = 4;
	else if (h.link_size >= 8 && (uint64_t)8 + (uint64_t)count * 4 <= h.link_size)
		new_link = h.link_size; /* already the name and its names */
	else
		new_link = 8;
	w.order = h.order;
	buf_init(&w.b, NATIVE_MAX_BYTES);
	buf_append(&w.b, tmpl.data, h.start); /* a BFF0 header as it was */
	writer_u32(&w, (uint32_t)(new_link + body_length));
	writer_u32(&w, (uint32_t)new_link);
	writer_u32(&w, h.decompressed_size);
	writer_u32(&w, h.compressed_size);
	writer_u32(&w, h.class_crc);
	writer_u32(&w, h.name_crc);
	if (new_link == h.link_size && !fuel) {
		buf_append(&w.b, tmpl.data + link_at, h.link_size);
	} else {
		writer_u32(&w, name);
		if (!fuel)
			writer_u32(&w, 0); /* no names */
	}
	buf_append(&w.b, tmpl.data + body_at, body_length);
	if (w.b.overflow) {
		buf_cleanup(&w.b);
		return zouna_oom(err);
	}
	if (fuel && h.link_size > 4)
		json_array_append_new(
		    notes,
		    json_sprintf("layout=fuel: the link header is the name alone; the "
		                 "template's %zu bytes after it (%" PRIu32 " link names) are "
		                 "not written",
		                 (size_t)h.link_size - 4, count));
	else if (!fuel && new_link != h.link_size)
		json_array_append_new(notes, json_sprintf("layout=%s: the link header is the name, "
		                                          "then a count of 0 link names",
		                                          layout));
	*bytes = (uint8_t *)buf_steal(&w.b, length);
	return 0;
}
