/* burnout_native.c: an entry written back as a Burnout resource (formats/native.h, doc/formats.md
 * 2.1 and 2.5).
 *
 * A Vehicle Animation holds no curves but its state animations: two vectors each, which the
 * decoder shows as a FLOAT4 track from trigger input 0 to 1. The template (the resource as the
 * game stored it) gives every other byte: parts, animation records and their matrices, the
 * wheels, the padding. In the template's own layout the file is the template's bytes, its
 * multi-byte fields swapped in place for the other byte order, and each changed state's
 * vectors written over its own; in the other layout (32-bit <-> 64-bit) the header is written
 * anew and the arrays follow it in order (animations and states 16-byte aligned), every
 * record's bytes copied, each offset 0 where the template's is (the fallback rule of 2.1). A Body
 * Part Remap Data resource is its size, count and part indexes. Whatever is written is decoded
 * again and compared with the template and the entry. Put back into its BND2 bundle
 * (burnout_bundle_replace, doc/formats.md 2.5), the bundle is decoded again too: the resource
 * replaced must read back as the file, every other one as it was.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burnout.h"
#include "formats/native.h"
#include "writer.h"

static const char *order_name(enum byte_order o)
{
	return o == BYTE_ORDER_LITTLE ? "little" : "big";
}

static int oom(struct error *err)
{
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

/* Reverses the bytes of each of count fields of size bytes from p. */
static void swap_fields(uint8_t *p, size_t count, size_t size)
{
	for (size_t i = 0; i < count; i++, p += size)
		for (size_t j = 0; j < size / 2; j++) {
			uint8_t t = p[j];
			p[j] = p[size - 1 - j];
			p[size - 1 - j] = t;
		}
}

/* What is written for a Vehicle Animation: the template's shape, the vectors of each state. */
struct vehicle_plan {
	struct burnout_vehicle_shape in;
	int is64;
	enum byte_order out;
	float (*vectors)[8]; /* per state */
	char *changed;       /* per state */
};

/* The entry's state tracks onto the template's states: each must be a state's vectors, two
 * FLOAT4 keys at trigger input 0 and 1. Report rows for the states the entry has; the others
 * are kept_from_template. */
static int plan_states(struct vehicle_plan *p, const struct resource *tmpl,
                       const struct resource *src, json_t *rows, json_t *kept, struct error *err)
{
	size_t states = (size_t)p->in.count[2];
	char *given = calloc(states + 1, 1);

	if (!given)
		return oom(err);
	for (size_t i = 0; i < states; i++)
		memcpy(p->vectors[i], tmpl->clip.samplers[i].values, sizeof(p->vectors[i]));
	for (size_t ch = 0; ch < src->clip.channel_count; ch++) {
		const struct channel *c = &src->clip.channels[ch];
		const struct target *t = &src->clip.targets[c->target];
		const struct sampler *s = &src->clip.samplers[c->sampler];
		const char *name =
		    src->track_names && src->track_names[ch] ? src->track_names[ch] : "track";
		const float *v = s->values;
		json_t *row;
		if (strcmp(t->schema, SCHEMA_BURNOUT) != 0 ||
		    c->property != BURNOUT_STATE_VECTORS || t->object >= states) {
			error_set(
			    err, ERROR_INVALID, name, -1,
			    "%s: a Vehicle Animation has no place for this track; it holds the "
			    "vectors of its %zu state animations (Burnout state tracks 0 to %zu)",
			    name, states, states ? states - 1 : 0);
			free(given);
			return -1;
		}
		if (s->type != VALUE_FLOAT4 || s->array_size != 1 || s->key_count != 2 ||
		    s->interp != INTERP_LINEAR || s->times[0] != 0 || s->times[1] != 1) {
			error_set(err, ERROR_INVALID, name, -1,
			          "%s: a state animation is two vectors, at trigger input 0 and 1 "
			          "(FLOAT4, "
			          "LINEAR, keys at 0 and 1); this track has %" PRIu32 " %s %s keys",
			          name, s->key_count, interpolation_name(s->interp),
			          value_type_name(s->type));
			free(given);
			return -1;
		}
		for (int k = 0; k < 8; k++)
			if (!isfinite(v[k])) {
				error_set(err, ERROR_VALUE_NOT_FINITE, name, -1,
				          "%s: component %d of its vectors is not finite", name, k);
				free(given);
				return -1;
			}
		given[t->object] = 1;
		p->changed[t->object] =
		    memcmp(p->vectors[t->object], v, sizeof(p->vectors[0])) != 0;
		memcpy(p->vectors[t->object], v, sizeof(p->vectors[0]));
		row = json_pack("{s:s, s:s, s:i}", "track", name, "class",
		                "BrnVehicleStateAnimation", "keys", 2);
		json_object_set_new(row, "kept", json_boolean(!p->changed[t->object]));
		if (p->changed[t->object])
			json_object_set_new(row, "written", json_integer(2));
		json_array_append_new(rows, row);
	}
	for (size_t i = 0; i < states; i++)
		if (!given[i])
			json_array_append_new(kept, json_string(tmpl->track_names[i]));
	free(given);
	return 0;
}

/* In the template's layout: its bytes, swapped in place for the other byte order, each
 * changed state's vectors written over its own. */
static int vehicle_in_place(const struct vehicle_plan *p, const struct upload *tmpl,
                            struct native_file *out, struct error *err)
{
	const struct burnout_vehicle_shape *in = &p->in;
	uint8_t *b = malloc(tmpl->length ? tmpl->length : 1);
	struct writer w = {{0}, p->out};

	if (!b)
		return oom(err);
	memcpy(b, tmpl->data, tmpl->length);
	if (p->out != in->order) { /* 32-bit: every header field is a u32 */
		swap_fields(b, 8, 4);
		swap_fields(b + in->wheel_matrices, 64, 4);
		for (uint64_t i = 0; i < in->count[1]; i++)
			swap_fields(b + in->start[1] + i * BURNOUT_ANIMATION_SIZE + 16, 12, 4);
		for (uint64_t i = 0; i < in->count[2]; i++)
			swap_fields(b + in->start[2] + i * BURNOUT_STATE_SIZE + 16, 8, 4);
	}
	buf_init(&w.b, 64);
	for (uint64_t i = 0; i < in->count[2]; i++) {
		if (!p->changed[i])
			continue;
		w.b.len = 0;
		for (int k = 0; k < 8; k++)
			writer_f32(&w, p->vectors[i][k]);
		if (w.b.overflow) {
			buf_cleanup(&w.b);
			free(b);
			return oom(err);
		}
		memcpy(b + in->start[2] + i * BURNOUT_STATE_SIZE + 16, w.b.data, 32);
	}
	buf_cleanup(&w.b);
	out->bytes = b;
	out->length = tmpl->length;
	return 0;
}

/* Copies n bytes of the template from `at`. */
static void copy_bytes(struct writer *w, const struct upload *tmpl, uint64_t at, size_t n)
{
	buf_append(&w->b, tmpl->data + at, n);
}

/* Copies count f32 of the template from `at`, into the output's byte order. */
static void copy_floats(struct writer *w, struct reader *r, uint64_t at, size_t count)
{
	reader_seek(r, (size_t)at, "floats");
	for (size_t i = 0; i < count; i++)
		writer_f32(w, reader_f32(r, "floats"));
}

static void pad_to(struct writer *w, size_t at)
{
	static const uint8_t zero[16];

	while (w->b.len < at && !w->b.overflow)
		buf_append(&w->b, zero, at - w->b.len < 16 ? at - w->b.len : 16);
}

/* In the other layout: a new header, the arrays after it in order, every record copied. */
static int vehicle_relaid(const struct vehicle_plan *p, const struct upload *tmpl,
                          struct native_file *out, struct error *err)
{
	static const size_t element[3] = {BURNOUT_PART_SIZE, BURNOUT_ANIMATION_SIZE,
	                                  BURNOUT_STATE_SIZE};
	const struct burnout_vehicle_shape *in = &p->in;
	size_t header = p->is64 ? 0x140 : 0x130, at[3], end = header, total;
	struct writer w = {{0}, p->out};
	struct reader r;

	for (int i = 0; i < 3; i++) { /* in order after the header, as the fallback rule reads */
		if (i > 0)
			end = (end + 15) & ~(size_t)15;
		at[i] = end;
		end += (size_t)in->count[i] * element[i];
	}
	total = (end + 15) & ~(size_t)15;
	reader_init(&r, tmpl->data, tmpl->length, in->order, err);
	buf_init(&w.b, NATIVE_MAX_BYTES);
	writer_u32(&w, (uint32_t)total);
	writer_u32(&w, 1); /* version */
	for (int i = 0; i < 3; i++) {
		/* an offset of 0 where the template has 0 (the array follows in order, as here) */
		uint64_t offset = in->offset[i] ? at[i] : 0;
		writer_u32(&w, (uint32_t)in->count[i]);
		if (p->is64) {
			writer_u32(&w, 0);
			writer_u64(&w, offset);
		} else {
			writer_u32(&w, (uint32_t)offset);
		}
	}
	copy_bytes(&w, tmpl, in->wheel_indices, 4);
	pad_to(&w, p->is64 ? 0x40 : 0x30);
	copy_floats(&w, &r, in->wheel_matrices, 64);
	for (uint64_t i = 0; i < in->count[0]; i++)
		copy_bytes(&w, tmpl, in->start[0] + i * BURNOUT_PART_SIZE, BURNOUT_PART_SIZE);
	for (uint64_t i = 0; i < in->count[1]; i++) {
		uint64_t from = in->start[1] + i * BURNOUT_ANIMATION_SIZE;
		pad_to(&w, at[1] + (size_t)i * BURNOUT_ANIMATION_SIZE);
		copy_bytes(&w, tmpl, from, 16);
		copy_floats(&w, &r, from + 16, 12);
	}
	for (uint64_t i = 0; i < in->count[2]; i++) {
		pad_to(&w, at[2] + (size_t)i * BURNOUT_STATE_SIZE);
		copy_bytes(&w, tmpl, in->start[2] + i * BURNOUT_STATE_SIZE, 16);
		for (int k = 0; k < 8; k++)
			writer_f32(&w, p->vectors[i][k]);
	}
	pad_to(&w, total);
	if (reader_failed(&r) || w.b.overflow) {
		buf_cleanup(&w.b);
		return error_is_set(err) ? -1 : oom(err);
	}
	out->bytes = (uint8_t *)buf_steal(&w.b, &out->length);
	return out->bytes ? 0 : oom(err);
}

/* Decodes what was written and compares it with the template (parts, animations, wheels) and
 * with the states planned: a difference is a 500 (a bug, never silence). */
static int vehicle_check(const struct vehicle_plan *p, const struct resource *tmpl,
                         const struct native_file *out, struct error *err)
{
	struct error e;
	struct resource *again;
	static const char *const same[] = {"parts", "animations", "wheels"};
	const char *differs = NULL;

	error_init(&e);
	again = burnout_vehicle_animation(out->bytes, out->length, p->is64 ? "64" : "32", &e);
	if (!again) {
		error_set(
		    err, ERROR_INTERNAL, NULL, -1,
		    "native: the Vehicle Animation written does not decode again (%s); this is "
		    "a bug in animdex's encoder",
		    e.message);
		return -1;
	}
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]) && !differs; i++)
		if (!json_equal(json_object_get(again->metadata, same[i]),
		                json_object_get(tmpl->metadata, same[i])))
			differs = same[i];
	for (uint64_t i = 0; i < p->in.count[2] && !differs; i++)
		if (again->clip.sampler_count <= i ||
		    memcmp(again->clip.samplers[i].values, p->vectors[i], sizeof(p->vectors[i])) !=
		        0)
			differs = "states";
	resource_free(again);
	if (differs) {
		error_set(
		    err, ERROR_INTERNAL, differs, -1,
		    "native: the Vehicle Animation written reads back with other %s; this is a "
		    "bug in animdex's encoder",
		    differs);
		return -1;
	}
	return 0;
}

static int native_vehicle(const struct upload *tmpl, const struct resource *src,
                          const struct native_options *opt, struct native_file *out,
                          struct error *err)
{
	struct vehicle_plan p = {0};
	struct resource *t;
	json_t *rows = json_array(), *kept = json_array(), *notes = json_array();
	int rc = -1;

	if (burnout_vehicle_shape(tmpl->data, tmpl->length, tmpl->layout, &p.in, err) < 0)
		goto done;
	t = burnout_vehicle_animation(tmpl->data, tmpl->length, p.in.is64 ? "64" : "32", err);
	if (!t)
		goto done;
	p.is64 = opt->layout ? opt->layout == 64 : p.in.is64;
	p.out = opt->byte_order >= 0 ? (enum byte_order)opt->byte_order
	        : opt->layout == 64  ? BYTE_ORDER_LITTLE
	                             : p.in.order;
	if (p.is64 && p.out == BYTE_ORDER_BIG) {
		error_set(
		    err, ERROR_BAD_PARAMETER, opt->layout ? "layout" : "byte_order", -1,
		    "%s: a 64-bit Vehicle Animation is little-endian (Remastered on PS4, Xbox "
		    "One and Switch); big-endian ones are 32-bit (Xbox 360, PS3)",
		    opt->layout ? "layout" : "byte_order");
		resource_free(t);
		goto done;
	}
	p.vectors = calloc((size_t)p.in.count[2] + 1, sizeof(*p.vectors));
	p.changed = calloc((size_t)p.in.count[2] + 1, 1);
	if (!p.vectors || !p.changed) {
		oom(err);
		resource_free(t);
		goto done;
	}
	if (plan_states(&p, t, src, rows, kept, err) < 0 ||
	    (p.is64 == p.in.is64 ? vehicle_in_place(&p, tmpl, out, err)
	                         : vehicle_relaid(&p, tmpl, out, err)) < 0 ||
	    vehicle_check(&p, t, out, err) < 0) {
		native_file_cleanup(out);
		resource_free(t);
		goto done;
	}
	resource_free(t);
	if (p.is64 != p.in.is64)
		json_array_append_new(
		    notes,
		    json_sprintf("written %d-bit; the template is %d-bit: the header is new, "
		                 "the arrays follow it in order",
		                 p.is64 ? 64 : 32, p.in.is64 ? 64 : 32));
	if (p.out != p.in.order)
		json_array_append_new(notes,
		                      json_sprintf("written %s-endian; the template is %s-endian",
		                                   order_name(p.out), order_name(p.in.order)));
	if (opt->reduce > 0)
		json_array_append_new(notes,
		                      json_string("reduce= has no effect on a Vehicle "
		                                  "Animation: a state animation is two vectors"));
	out->extension = "dat";
	out->report = json_pack("{s:s, s:i, s:s, s:O, s:O, s:O}", "container", "VehicleAnimation",
	                        "layout", p.is64 ? 64 : 32, "byte_order", order_name(p.out),
	                        "tracks", rows, "kept_from_template", kept, "notes", notes);
	rc = out->report ? 0 : oom(err);
	for (size_t i = 0; rc == 0 && i < json_array_size(rows); i++)
		json_object_set_new(json_array_get(rows, i), "largest_difference", json_real(0));
done:
	free(p.vectors);
	free(p.changed);
	json_decref(rows);
	json_decref(kept);
	json_decref(notes);
	return rc;
}

/* Body Part Remap Data: the size, the count and the part indexes of the entry (itself such a
 * resource), in the byte order asked for, with the template's trailing bytes. */
static int native_remap(const struct upload *tmpl, const struct resource *src,
                        const struct native_options *opt, struct native_file *out,
                        struct error *err)
{
	struct resource *t = burnout_body_part_remap(tmpl->data, tmpl->length, err);
	struct writer w = {{0}, BYTE_ORDER_LITTLE};
	json_t *parts, *part;
	enum byte_order in;
	uint32_t size;
	size_t i;
	int same_count;

	if (!t)
		return -1;
	if (strcmp(src->class_name, "BodyPartRemapData") != 0) {
		error_set(
		    err, ERROR_INVALID, "template", -1,
		    "template: a Body Part Remap Data resource holds part indexes, no tracks; "
		    "write it from a Body Part Remap Data entry, not a %s",
		    src->class_name);
		resource_free(t);
		return -1;
	}
	in = strcmp(json_string_value(json_object_get(t->metadata, "byte_order")), "big") == 0
	         ? BYTE_ORDER_BIG
	         : BYTE_ORDER_LITTLE;
	w.order = opt->byte_order >= 0 ? (enum byte_order)opt->byte_order : in;
	parts = json_object_get(src->metadata, "parts");
	same_count = json_integer_value(json_object_get(t->metadata, "count")) ==
	             (json_int_t)json_array_size(parts);
	/* the template's size (it may count padding) while the count is the same */
	size = same_count ? (uint32_t)json_integer_value(json_object_get(t->metadata, "size"))
	                  : (uint32_t)(8 + 2 * json_array_size(parts));
	buf_init(&w.b, NATIVE_MAX_BYTES);
	writer_u32(&w, size);
	writer_u32(&w, (uint32_t)json_array_size(parts));
	json_array_foreach(parts, i, part) writer_u16(&w, (uint16_t)json_integer_value(part));
	if (same_count) { /* the template's bytes after its parts (its padding) */
		size_t tail = 8 + 2 * json_array_size(parts);
		if (tail <= tmpl->length)
			buf_append(&w.b, tmpl->data + tail, tmpl->length - tail);
	}
	if (w.b.overflow) {
		buf_cleanup(&w.b);
		resource_free(t);
		return oom(err);
	}
	out->bytes = (uint8_t *)buf_steal(&w.b, &out->length);
	{
		struct error e;
		struct resource *again;
		error_init(&e);
		again = burnout_body_part_remap(out->bytes, out->length, &e);
		if (!again || !json_equal(json_object_get(again->metadata, "parts"), parts)) {
			error_set(
			    err, ERROR_INTERNAL, "parts", -1,
			    "native: the Body Part Remap Data written reads back otherwise; this "
			    "is a bug in animdex's encoder");
			resource_free(again);
			resource_free(t);
			native_file_cleanup(out);
			return -1;
		}
		resource_free(again);
	}
	out->extension = "dat";
	out->report =
	    json_pack("{s:s, s:s, s:[], s:[], s:[]}", "container", "BodyPartRemapData",
	              "byte_order", order_name(w.order), "tracks", "kept_from_template", "notes");
	if (w.order != in)
		json_array_append_new(json_object_get(out->report, "notes"),
		                      json_sprintf("written %s-endian; the template is %s-endian",
		                                   order_name(w.order), order_name(in)));
	resource_free(t);
	return out->report ? 0 : oom(err);
}

int native_burnout(const struct upload *tmpl, const struct resource *source,
                   const struct native_options *opt, struct native_file *out, struct error *err)
{
	const char *cls = tmpl->class_name ? tmpl->class_name : "";

	memset(out, 0, sizeof(*out));
	if (opt->bff >= 0 || opt->name || opt->promote) {
		const char *p = opt->bff >= 0 ? "bff" : opt->name ? "name" : "promote";
		error_set(err, ERROR_BAD_PARAMETER, p, -1,
		          "%s: applies to Zouna files; a Burnout resource has no BFF0 or object "
		          "header and no compressed classes",
		          p);
		return -1;
	}
	if (strcmp(cls, "BodyPartRemapData") == 0) {
		if (opt->layout) {
			error_set(err, ERROR_BAD_PARAMETER, "layout", -1,
			          "layout: a Body Part Remap Data resource has one layout; layout= "
			          "(32 or 64) applies to Vehicle Animation");
			return -1;
		}
		return native_remap(tmpl, source, opt, out, err);
	}
	return native_vehicle(tmpl, source, opt, out, err);
}

int native_burnout_bundle_resource(const struct upload *bundle, uint32_t id, uint8_t **bytes,
                                   size_t *length, struct error *err)
{
	return burnout_bundle_resource(bundle, id, bytes, length, err);
}

int native_burnout_bundle(const struct upload *bundle, uint32_t id, struct native_file *file,
                          struct error *err)
{
	struct burnout_bundle_rebuilt rb;
	struct upload again = *bundle;
	struct decode_result before, after;
	struct error e;
	uint8_t *back = NULL;
	size_t back_length = 0;
	const char *differs = NULL;
	char layout[8];
	int rc;

	if (burnout_bundle_replace(bundle, id, file->bytes, file->length, &rb, err) < 0)
		return -1;
	again.data = rb.bytes;
	again.length = rb.length;
	error_init(&e);
	decode_result_init(&before);
	decode_result_init(&after);
	/* decoded again: the resource replaced is the file, every other one as it was (read in
	 * the layout it was written in when the bytes alone cannot tell) */
	rc = burnout_bundle_decode(bundle, &before, &e);
	if (rc == 0 && burnout_bundle_decode(&again, &after, &e) < 0) {
		rc = -1;
		if (json_object_get(file->report, "layout")) {
			snprintf(layout, sizeof(layout), "%d",
			         (int)json_integer_value(json_object_get(file->report, "layout")));
			again.layout = layout;
			decode_result_cleanup(&after);
			decode_result_init(&after);
			error_init(&e);
			rc = burnout_bundle_decode(&again, &after, &e);
		}
	}
	if (rc < 0 || burnout_bundle_resource(&again, id, &back, &back_length, &e) < 0)
		differs = e.message;
	else if (back_length != file->length || memcmp(back, file->bytes, back_length) != 0)
		differs = "the resource replaced reads back otherwise";
	else if (before.count != after.count)
		differs = "another number of resources";
	for (size_t i = 0; !differs && i < before.count; i++)
		if (before.resources[i]->crc32 != id &&
		    !json_equal(before.resources[i]->metadata, after.resources[i]->metadata))
			differs = "another resource reads back otherwise";
	free(back);
	decode_result_cleanup(&before);
	decode_result_cleanup(&after);
	if (differs) {
		error_set(
		    err, ERROR_INTERNAL, "bundle", -1,
		    "native: the bundle rebuilt does not read back as it should (%.200s); this "
		    "is a bug in animdex's encoder",
		    differs);
		free(rb.bytes);
		return -1;
	}
	free(file->bytes);
	file->bytes = rb.bytes;
	file->length = rb.length;
	json_object_set_new(file->report, "bundle",
	                    json_pack("{s:i, s:o, s:b, s:I}", "index", (int)rb.entry, "resource_id",
	                              json_sprintf("0x%08" PRIX32, id), "compressed", rb.compressed,
	                              "moved", (json_int_t)rb.moved));
	return 0;
}
