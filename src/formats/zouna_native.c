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
 *
 * This file reads the template and lays the file out; its keys are encoded by
 * zouna_native_keys.c, the slices planned by zouna_native_plan.c (tracks found through
 * zouna_native_chains.c), and the file written checked by zouna_native_check.c.
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
#include "zouna_native.h"

const struct record_layout zouna_native_layouts[REC_KINDS] = {
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
		return zouna_native_oom(nb);
	memcpy(p, nb->tmpl->data + from, n);
	zouna_native_swap_keys(k, p, n);
	buf_append(&w->b, p, n);
	free(p);
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
		const struct record_layout *l = &zouna_native_layouts[kind];
		uint32_t count = reader_u32(&r, l->field);
		if (reader_check_count(&r, count, l->size, l->field) < 0)
			return -1;
		nb->records[kind] = calloc((size_t)count + 1, sizeof(struct record));
		if (!nb->records[kind])
			return zouna_native_oom(nb);
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
		return zouna_native_oom(nb);
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

#define SPLIT_NOTE                                                                                 \
	"segments split at their middles until their per-segment tangents fit the class's 16-bit " \
	"range: the same curve, to within the class's rounding of the keys added"

/* Writes a track in k's class, its segments split first where its tangents need it (said in
 * row); *s becomes what was written. The keys' count, or -1 with err set. */
static long write_split(struct native_build *nb, const struct zouna_keys *k, uint16_t flags,
                        const struct sampler **s, struct sampler *split, const char *track,
                        uint8_t **bytes, size_t *length, double *worst, json_t *row,
                        int write_flags, struct error *err)
{
	uint32_t added = 0;
	int rc;

	free(split->times);
	free(split->values);
	memset(split, 0, sizeof(*split));
	json_object_del(row, "split");
	rc = zouna_native_split_segments(k, *s, split, &added);
	if (rc == -1) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	/* values past the class are named by the entry's keys, not the split track's */
	if (rc != 0 && zouna_native_check_values(k, *s, track, write_flags, err) < 0)
		return -1;
	if (rc == 1) {
		*s = split;
		json_object_set_new(
		    row, "split",
		    json_pack("{s:I, s:s}", "keys_added", (json_int_t)added, "note", SPLIT_NOTE));
	}
	return zouna_native_write_track(k, flags, *s, track, nb->out, bytes, length, worst,
	                                write_flags | (rc != 0 ? WRITE_SPLIT_TRIED : 0), err);
}

/* A reduced track whose fitted tangents pass what its class holds (a 422 for the reduced
 * keys, though the track's own fit): written with its own keys instead, said in the report. */
static long write_reduced_or_own(struct native_build *nb, const struct zouna_keys *k,
                                 uint16_t flags, const struct sampler **s,
                                 const struct sampler *own, struct sampler *split,
                                 const char *track, uint8_t **bytes, size_t *length, double *worst,
                                 json_t *row, int write_flags, struct error *err)
{
	const struct sampler *tried = *s;
	long keys =
	    write_split(nb, k, flags, s, split, track, bytes, length, worst, row, write_flags, err);

	if (keys >= 0 || tried == own || err->code != ERROR_VALUE_OUT_OF_RANGE)
		return keys;
	error_init(err);
	*s = own;
	keys =
	    write_split(nb, k, flags, s, split, track, bytes, length, worst, row, write_flags, err);
	if (keys >= 0)
		json_object_set_new(json_object_get(row, "reduced"), "undone",
		                    json_sprintf("the fewest keys' fitted tangents pass what %s "
		                                 "holds, so the track's own keys are written",
		                                 k->cls->name));
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
			keys = write_reduced_or_own(nb, &nb->kf[s->keyframer].keys,
			                            nb->kf[s->keyframer].flags, &s->source, own,
			                            &s->split, s->track, &s->bytes, &s->length,
			                            &worst, row, 0, nb->err);
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
		const struct record_layout *l = &zouna_native_layouts[s->kind];
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
		const struct record_layout *l = &zouna_native_layouts[kind];
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
		return zouna_native_oom(nb);
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
		zouna_native_swap_words((uint8_t *)w->b.data + header_at + OBJECT_HEADER_SIZE,
		                        nb->h.link_size);
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
		return zouna_native_oom(nb);
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
		free(nb->slices[i].split.times);
		free(nb->slices[i].split.values);
	}
	free(nb->split.times);
	free(nb->split.values);
	free(nb->reduced.times);
	free(nb->reduced.values);
	free(nb->slices);
	free(nb->source_used);
	zouna_native_chains_free(&nb->sources);
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

	if (read_template(nb) < 0 || zouna_native_plan_template(nb) < 0 ||
	    zouna_native_plan_new(nb) < 0 || encode_changed(nb) < 0)
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

/* Whether the entry's track is the bare template's, as the decoder makes it or as the export
 * baked it (a bezierRot's Euler angles come back from glTF as the rotation they were exported
 * as): 1, 0, or -1 when out of memory. */
static int keyframer_unchanged(struct native_build *nb, const struct zouna_class *c,
                               const struct sampler *s)
{
	struct native_keyframer *kf = &nb->kf[0];
	struct track_target tt = {SCHEMA_ZOUNA, 0, c->name, ZOUNA_VALUE, 0, 0};
	struct resource *scratch = resource_create("zouna", c->name);
	int same = 0;

	if (!scratch)
		return zouna_native_oom(nb);
	if (c->kind == KIND_MESSAGE)
		tt.property = ZOUNA_MESSAGES;
	else if (strcmp(c->name, "KeyframerBezierRot_Z") == 0)
		tt.property = ZOUNA_EULER_ROTATION;
	if (zouna_add_track(scratch, NULL, &kf->keys, 0, kf->keys.count, &tt, c->name, nb->err) >=
	    0)
		same = sampler_equal(&scratch->clip.samplers[0], s) ||
		       zouna_native_plan_equals_export(nb, &scratch->clip.samplers[0], 0,
		                                       tt.property == ZOUNA_EULER_ROTATION, s);
	error_init(nb->err);
	resource_free(scratch);
	return same;
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
	double worst = 0;
	json_t *row;
	int same;

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
		return out->bytes ? 0 : zouna_native_oom(nb);
	}
	if (src->clip.channel_count != 1) {
		error_set(nb->err, ERROR_INVALID, "template", -1,
		          "template: a bare %s holds one track, and the entry has %zu; choose an "
		          "entry of one track (or an Animation_Z template)",
		          c->name, src->clip.channel_count);
		return -1;
	}
	s = &src->clip.samplers[src->clip.channels[0].sampler];
	same = keyframer_unchanged(nb, c, s);
	if (same < 0)
		return -1;
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
		keys = write_reduced_or_own(
		    nb, &kf->keys, kf->flags, &s, own, &nb->split,
		    json_string_value(json_object_get(row, "track")), &bytes, &length, &worst, row,
		    !nb->opt->promote && uncompressed_class(c) ? WRITE_PROMOTABLE : 0, &first);
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
			keys = zouna_native_write_track(
			    &kf->keys, kf->flags, s,
			    json_string_value(json_object_get(row, "track")), nb->out, &bytes,
			    &length, &worst, 0, &first);
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
		return zouna_native_oom(nb);
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
		return zouna_native_oom(&nb);
	}
	if (zouna_native_chains_build(&nb.sources, source) < 0) {
		build_cleanup(&nb);
		return zouna_native_oom(&nb);
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
	if (rc == 0 && zouna_native_check_written(&nb, out, bare) < 0) {
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
			                 zouna_native_order_name(nb.out),
			                 zouna_native_order_name(nb.in)));
		out->report = json_pack("{s:s, s:s, s:O, s:O, s:O}", "container",
		                        bare ? "bare keyframer" : "Animation_Z", "byte_order",
		                        zouna_native_order_name(nb.out), "tracks", nb.report_tracks,
		                        "kept_from_template", nb.kept, "notes", nb.defaults);
		if (!out->report) {
			native_file_cleanup(out);
			rc = zouna_native_oom(&nb);
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
