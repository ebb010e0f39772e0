/* burnout.c: Burnout Paradise Vehicle Animation (0x10023) and Body Part Remap Data (0x10024)
 * resources, raw or inside BND2 bundles (doc/formats.md 2). The wiki marks every structure as
 * unconfirmed research: what rests on it is said in each entry's `assumed`.
 *
 * Vehicle Animation, 32-bit (0x130-byte header):      64-bit (0x140-byte header):
 *   0x00 u32 resourceSize  0x04 u32 version (1)        same, with each count followed by
 *   0x08 u32 partCount     0x0C u32 partsOffset        4 bytes of padding and each offset
 *   0x10 u32 animCount     0x14 u32 animsOffset        8 bytes wide: counts at 0x08, 0x18,
 *   0x18 u32 stateCount    0x1C u32 statesOffset       0x28; offsets at 0x10, 0x20, 0x30;
 *   0x20 i8[4] wheel part indices (FL, FR, RL, RR)     wheel indices at 0x38; wheel
 *   0x30 Matrix44Affine[4] wheel positions             matrices at 0x40
 * Parts are 3 x i8; animations 0x40 bytes (i8 part, i8 type, i8 state part, 13 padding,
 * Matrix33 = 3 rows of 4 f32); state animations 0x30 bytes (i8 part, i8 trigger, u8 loop,
 * 13 padding, Vector4[2]). Offsets count from the resource's start; a zero offset with a
 * non-zero count means the arrays follow the header in order (animations aligned to 16).
 *
 * Body Part Remap Data: u32 size; u32 count; u16 parts[count].
 *
 * BND2 bundles are burnout_bundle.c's.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "formats/format.h"
#include "base/hash.h"
#include "formats/reader.h"
#include "burnout.h"

#define PART_SIZE      BURNOUT_PART_SIZE
#define ANIMATION_SIZE BURNOUT_ANIMATION_SIZE
#define STATE_SIZE     BURNOUT_STATE_SIZE

static const char *const animation_types[] = {
    "none", "rotate", "transform", NULL, "rotate (reversed?)", "rotate once and return to origin"};

static const char *trigger_name(int trigger)
{
	switch (trigger) {
	case 1: return "turning";
	case 6: return "front-right wheel rotation";
	case 7: return "front-left wheel rotation";
	case 8: return "rear-right wheel rotation";
	case 9: return "rear-left wheel rotation";
	case 10: return "brake";
	case 11: return "throttle";
	case 13: return "speed";
	case 14: return "RPM";
	case 20: return "hover";
	case 21: return "boost";
	default: return NULL;
	}
}

static json_t *named_number(int value, const char *name)
{
	return name ? json_pack("{s:i, s:s}", "value", value, "name", name)
	            : json_pack("{s:i, s:n}", "value", value, "name");
}

/* Layouts */

struct layout {
	int is64;
	size_t header;                        /* 0x130 or 0x140 */
	uint64_t count[3], offset[3];         /* parts, animations, states */
	uint64_t start[3];                    /* where each array is, after the fallback */
	size_t wheel_indices, wheel_matrices; /* field offsets */
	int8_t wheels[4];
	uint32_t resource_size;
	char failed[600]; /* the checks this layout failed */
};

static const size_t element_size[3] = {PART_SIZE, ANIMATION_SIZE, STATE_SIZE};
static const char *const array_name[3] = {"parts", "animations", "states"};

static void failed(struct layout *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void failed(struct layout *l, const char *fmt, ...)
{
	size_t n = strlen(l->failed);
	va_list ap;

	if (n && n < sizeof(l->failed) - 2)
		l->failed[n++] = ';', l->failed[n++] = ' ', l->failed[n] = '\0';
	va_start(ap, fmt);
	vsnprintf(l->failed + n, sizeof(l->failed) - n, fmt, ap);
	va_end(ap);
}

/* Reads the header as one layout and checks doc/formats.md 2.2's rules; l->failed says what did not
 * hold (empty when the layout is valid). */
static void read_layout(const uint8_t *data, size_t length, enum byte_order order, int is64,
                        struct layout *l)
{
	struct reader r;

	memset(l, 0, sizeof(*l));
	l->is64 = is64;
	l->header = is64 ? 0x140 : 0x130;
	l->wheel_indices = is64 ? 0x38 : 0x20;
	l->wheel_matrices = is64 ? 0x40 : 0x30;
	if (length < l->header) {
		failed(l, "the resource is %zu bytes, shorter than the 0x%zx-byte header", length,
		       l->header);
		return;
	}
	reader_init(&r, data, length, order, NULL);
	l->resource_size = reader_u32(&r, NULL);
	reader_u32(&r, NULL); /* version */
	for (int i = 0; i < 3; i++) {
		l->count[i] = reader_u32(&r, NULL);
		if (is64) {
			reader_u32(&r, NULL);
			l->offset[i] = reader_u64(&r, NULL);
		} else {
			l->offset[i] = reader_u32(&r, NULL);
		}
	}
	reader_seek(&r, l->wheel_indices, NULL);
	for (int i = 0; i < 4; i++)
		l->wheels[i] = (int8_t)reader_u8(&r, NULL);
	if (l->resource_size > length || length - l->resource_size > 15)
		failed(l,
		       "resourceSize %" PRIu32 " is not the length %zu (up to 15 bytes of padding "
		       "allowed)",
		       l->resource_size, length);
	/* where the arrays are: their offsets, or in order after the header */
	{
		uint64_t next = l->header;
		for (int i = 0; i < 3; i++) {
			if (i > 0)
				next = (next + 15) & ~(uint64_t)15;
			l->start[i] = l->count[i] && l->offset[i] == 0 ? next : l->offset[i];
			if (l->count[i])
				next = l->start[i] + l->count[i] * element_size[i];
		}
	}
	for (int i = 0; i < 3; i++) {
		uint64_t end = l->start[i] + l->count[i] * element_size[i];
		if (!l->count[i])
			continue;
		if (l->count[i] > length || end > length)
			failed(l,
			       "%s (%" PRIu64 " x %zu bytes at 0x%" PRIx64
			       ") run past the end (%zu)",
			       array_name[i], l->count[i], element_size[i], l->start[i], length);
		else if (l->start[i] < l->header)
			failed(l, "%s at 0x%" PRIx64 " overlap the header", array_name[i],
			       l->start[i]);
		if (i > 0 && l->start[i] % 16)
			failed(l, "%s at 0x%" PRIx64 " are not 16-byte aligned", array_name[i],
			       l->start[i]);
		for (int j = 0; j < i; j++) {
			uint64_t other_end = l->start[j] + l->count[j] * element_size[j];
			if (l->count[j] && l->start[i] < other_end && l->start[j] < end)
				failed(l, "%s overlap %s", array_name[i], array_name[j]);
		}
	}
	for (int i = 0; i < 4; i++)
		if (l->wheels[i] != -1 &&
		    (l->wheels[i] < 0 || (uint64_t)l->wheels[i] >= l->count[0]))
			failed(l,
			       "wheel part index %d is %d: neither -1 nor below partCount %" PRIu64,
			       i, l->wheels[i], l->count[0]);
}

static json_t *floats(struct reader *r, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++) {
		float f = reader_f32(r, "matrix");
		json_array_append_new(a, isfinite(f) ? json_real(f) : json_null());
	}
	return a;
}

static json_t *rows(struct reader *r, int count)
{
	json_t *a = json_array();

	for (int i = 0; i < count; i++)
		json_array_append_new(a, floats(r, 4));
	return a;
}

static const char *order_name(enum byte_order o)
{
	return o == BYTE_ORDER_LITTLE ? "little" : "big";
}

/* Decodes one Vehicle Animation resource into a new resource. */
/* The byte order from the version (1) at 0x04; -1 with err set when neither reads 1. */
static int vehicle_byte_order(const uint8_t *data, size_t length, enum byte_order *order,
                              struct error *err)
{
	if (length < 8) {
		error_set(err, ERROR_MALFORMED, "header", 0,
		          "the Vehicle Animation resource is %zu bytes; its header alone is 0x130",
		          length);
		return -1;
	}
	if (data[4] == 1 && !data[5] && !data[6] && !data[7]) {
		*order = BYTE_ORDER_LITTLE;
	} else if (data[7] == 1 && !data[4] && !data[5] && !data[6]) {
		*order = BYTE_ORDER_BIG;
	} else {
		error_set(err, ERROR_INVALID, "version", 4,
		          "version: bytes %02x %02x %02x %02x at 0x04 are not version 1 in either "
		          "byte order",
		          data[4], data[5], data[6], data[7]);
		return -1;
	}
	return 0;
}

/* The layout the data is in: the one given (layout=32 or 64), or the 32-bit one for
 * big-endian data, or the only one of the two whose checks hold. NULL with err set
 * otherwise. *forced: 32 or 64 when given, else 0. */
static const struct layout *vehicle_layout(const uint8_t *data, size_t length,
                                           enum byte_order order, const char *layout_arg,
                                           struct layout layouts[2], int *forced, struct error *err)
{
	const struct layout *l;

	*forced = 0;
	if (layout_arg && *layout_arg) {
		if (strcmp(layout_arg, "32") != 0 && strcmp(layout_arg, "64") != 0) {
			error_set(err, ERROR_BAD_PARAMETER, "layout", -1,
			          "layout: '%s' is not 32 or 64", layout_arg);
			return NULL;
		}
		*forced = strcmp(layout_arg, "64") == 0 ? 64 : 32;
	}
	read_layout(data, length, order, 0, &layouts[0]);
	read_layout(data, length, order, 1, &layouts[1]);
	if (*forced) {
		l = &layouts[*forced == 64];
		if (l->failed[0]) {
			error_set(err, ERROR_INVALID, "layout", -1, "layout=%d: %s", *forced,
			          l->failed);
			return NULL;
		}
		return l;
	}
	if (order == BYTE_ORDER_BIG) { /* big-endian data is always 32-bit */
		if (layouts[0].failed[0]) {
			error_set(err, ERROR_INVALID, "layout", -1, "32-bit big-endian layout: %s",
			          layouts[0].failed);
			return NULL;
		}
		return &layouts[0];
	}
	if (!layouts[0].failed[0] && layouts[1].failed[0])
		return &layouts[0];
	if (layouts[0].failed[0] && !layouts[1].failed[0])
		return &layouts[1];
	error_set(err, ERROR_INVALID, "layout", -1,
	          "%s: 32-bit: %.250s; 64-bit: %.250s (give layout=32 or layout=64)",
	          layouts[0].failed[0] ? "neither layout fits" : "both layouts fit",
	          layouts[0].failed[0] ? layouts[0].failed : "every check holds",
	          layouts[1].failed[0] ? layouts[1].failed : "every check holds");
	return NULL;
}

/* The part records (3 signed bytes each) and the animation records, as the structure shows
 * them. */
static json_t *vehicle_parts(struct reader *r, const struct layout *l)
{
	json_t *parts = json_array();

	reader_seek(r, l->start[0], "parts");
	for (uint64_t i = 0; i < l->count[0]; i++) {
		int8_t a = (int8_t)reader_u8(r, "parts"), b = (int8_t)reader_u8(r, "parts");
		int8_t c = (int8_t)reader_u8(r, "parts");
		json_array_append_new(parts, json_pack("[i, i, i]", a, b, c));
	}
	return parts;
}

static json_t *vehicle_animations(struct reader *r, const struct layout *l)
{
	json_t *animations = json_array();

	for (uint64_t i = 0; i < l->count[1]; i++) {
		int8_t part, type, state_part;
		reader_seek(r, l->start[1] + i * ANIMATION_SIZE, "animations");
		part = (int8_t)reader_u8(r, "animations");
		type = (int8_t)reader_u8(r, "animations");
		state_part = (int8_t)reader_u8(r, "animations");
		reader_skip(r, 13, "animations");
		json_array_append_new(
		    animations,
		    json_pack(
		        "{s:i, s:o, s:i, s:o}", "part", part, "type",
		        named_number(type, type >= 0 && type < 6 ? animation_types[type] : NULL),
		        "state_part", state_part, "matrix33", rows(r, 3)));
	}
	return animations;
}

/* State animation i: its two vectors as a FLOAT4 track from trigger input 0 to 1, its
 * record appended to states. -1 with err set. */
static int vehicle_state(struct reader *r, const struct layout *l, uint64_t i, struct resource *res,
                         json_t *states, struct error *err)
{
	int8_t part, trigger;
	uint8_t loop;
	float v[8];
	struct sampler *s = &res->clip.samplers[i];
	struct target *t = &res->clip.targets[i];
	char name[96];
	const char *tname;

	reader_seek(r, l->start[2] + i * STATE_SIZE, "states");
	part = (int8_t)reader_u8(r, "states");
	trigger = (int8_t)reader_u8(r, "states");
	loop = reader_u8(r, "states");
	reader_skip(r, 13, "states");
	for (int k = 0; k < 8; k++)
		v[k] = reader_f32(r, "states");
	tname = trigger_name(trigger);
	json_array_append_new(
	    states, json_pack("{s:i, s:o, s:b, s:[[f,f,f,f],[f,f,f,f]]}", "part", part, "trigger",
	                      named_number(trigger, tname), "loop", loop != 0, "vectors",
	                      (double)v[0], (double)v[1], (double)v[2], (double)v[3], (double)v[4],
	                      (double)v[5], (double)v[6], (double)v[7]));
	for (int k = 0; k < 8; k++)
		if (!isfinite(v[k])) {
			error_set(err, ERROR_VALUE_NOT_FINITE, "states", (long long)r->pos,
			          "states[%" PRIu64 "].vectors: component %d is not finite", i, k);
			return -1;
		}
	s->type = VALUE_FLOAT4;
	s->array_size = 1;
	s->interp = INTERP_LINEAR;
	s->key_count = 2;
	s->times = malloc(2 * sizeof(float));
	s->values = malloc(sizeof(v));
	s->value_bytes = sizeof(v);
	if (!s->times || !s->values) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	s->times[0] = 0, s->times[1] = 1;
	memcpy(s->values, v, sizeof(v));
	snprintf(t->schema, sizeof(t->schema), "%s", SCHEMA_BURNOUT);
	t->object = i;
	if (tname)
		snprintf(name, sizeof(name), "state %" PRIu64 " (part %d, %s)", i, part, tname);
	else
		snprintf(name, sizeof(name), "state %" PRIu64 " (part %d, trigger %d)", i, part,
		         trigger);
	t->name = strdup(name);
	res->clip.channels[i] =
	    (struct channel){(uint32_t)i, BURNOUT_STATE_VECTORS, 0, (uint32_t)i};
	snprintf(name + strlen(name), sizeof(name) - strlen(name), " vectors");
	res->track_names[i] = strdup(name);
	res->clip.target_count = res->clip.sampler_count = res->clip.channel_count = i + 1;
	return 0;
}

/* The four wheels: their part indexes and matrices. */
static json_t *vehicle_wheels(struct reader *r, const struct layout *l)
{
	static const char *const corner[4] = {"front left", "front right", "rear left",
	                                      "rear right"};
	json_t *wheels = json_array();

	reader_seek(r, l->wheel_matrices, "wheel matrices");
	for (int i = 0; i < 4; i++)
		json_array_append_new(wheels,
		                      json_pack("{s:s, s:i, s:o}", "wheel", corner[i], "part_index",
		                                l->wheels[i], "matrix44", rows(r, 4)));
	return wheels;
}

struct resource *burnout_vehicle_animation(const uint8_t *data, size_t length,
                                           const char *layout_arg, struct error *err)
{
	struct layout layouts[2];
	const struct layout *l;
	enum byte_order order;
	struct resource *res;
	struct reader r;
	json_t *parts, *animations, *states = NULL, *wheels = NULL;
	int forced;

	if (vehicle_byte_order(data, length, &order, err) < 0)
		return NULL;
	l = vehicle_layout(data, length, order, layout_arg, layouts, &forced, err);
	if (!l)
		return NULL;
	res = resource_create("burnout", "VehicleAnimation");
	if (!res) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	reader_init(&r, data, length, order, err);
	parts = vehicle_parts(&r, l);
	animations = vehicle_animations(&r, l);
	states = json_array();
	res->clip.targets = calloc(l->count[2] + 1, sizeof(struct target));
	res->clip.samplers = calloc(l->count[2] + 1, sizeof(struct sampler));
	res->clip.channels = calloc(l->count[2] + 1, sizeof(struct channel));
	res->track_names = calloc(l->count[2] + 1, sizeof(char *));
	if (!res->clip.targets || !res->clip.samplers || !res->clip.channels || !res->track_names) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	for (uint64_t i = 0; i < l->count[2]; i++)
		if (vehicle_state(&r, l, i, res, states, err) < 0)
			goto fail;
	wheels = vehicle_wheels(&r, l);
	if (reader_failed(&r))
		goto fail;
	res->clip.duration = l->count[2] ? 1.0 : 0.0;
	res->metadata =
	    json_pack("{s:s, s:i, s:I, s:o, s:o, s:o, s:o}", "byte_order", order_name(order),
	              "layout", l->is64 ? 64 : 32, "resource_size", (json_int_t)l->resource_size,
	              "parts", parts, "animations", animations, "states", states, "wheels", wheels);
	parts = animations = states = wheels = NULL; /* the metadata owns them now */
	json_object_set_new(res->metadata, "layout_detection",
	                    json_string(forced                    ? "given by layout="
	                                : order == BYTE_ORDER_BIG ? "big-endian data is 32-bit"
	                                                          : "the other layout failed its "
	                                                            "checks"));
	resource_assume(res, "Burnout Vehicle Animation: every structure rests on unconfirmed "
	                     "research (burnout.wiki); the Matrix33 rows and the two Vector4 of a "
	                     "state animation are stored as read, their meaning unknown");
	if (l->count[2])
		resource_assume(res, "Burnout state animations: each is shown as a FLOAT4 LINEAR "
		                     "track from its first vector (trigger input 0) to its second "
		                     "(trigger input 1)");
	if (burnout_vehicle_rig(res, err) < 0)
		goto fail;
	return res;
fail:
	json_decref(parts);
	json_decref(animations);
	json_decref(states);
	json_decref(wheels);
	resource_free(res);
	return NULL;
}

int burnout_vehicle_shape(const uint8_t *data, size_t length, const char *layout_arg,
                          struct burnout_vehicle_shape *out, struct error *err)
{
	struct layout layouts[2];
	const struct layout *l;
	int forced;

	if (vehicle_byte_order(data, length, &out->order, err) < 0)
		return -1;
	l = vehicle_layout(data, length, out->order, layout_arg, layouts, &forced, err);
	if (!l)
		return -1;
	out->is64 = l->is64;
	out->header = l->header;
	out->wheel_indices = l->wheel_indices;
	out->wheel_matrices = l->wheel_matrices;
	out->resource_size = l->resource_size;
	memcpy(out->count, l->count, sizeof(out->count));
	memcpy(out->start, l->start, sizeof(out->start));
	memcpy(out->offset, l->offset, sizeof(out->offset));
	return 0;
}

/* Body Part Remap Data: u32 size; u32 count; u16 parts[count]. */
struct resource *burnout_body_part_remap(const uint8_t *data, size_t length, struct error *err)
{
	enum byte_order order = BYTE_ORDER_LITTLE;
	struct resource *res;
	struct reader r;
	uint32_t size, count;
	json_t *parts;

	for (int o = 0; o < 2; o++) {
		reader_init(&r, data, length, (enum byte_order)o, NULL);
		size = reader_u32(&r, NULL);
		count = reader_u32(&r, NULL);
		if (!reader_failed(&r) && size <= length && length - size <= 15 &&
		    (uint64_t)count * 2 + 8 <= size) {
			order = (enum byte_order)o;
			break;
		}
		if (o == 1) {
			error_set(
			    err, ERROR_INVALID, "size", 0,
			    "Body Part Remap Data: in neither byte order do size and count fit the "
			    "%zu bytes (size = length, 8 + 2 x count <= size)",
			    length);
			return NULL;
		}
	}
	reader_init(&r, data, length, order, err);
	reader_skip(&r, 8, "header");
	parts = json_array();
	for (uint32_t i = 0; i < count; i++)
		json_array_append_new(parts, json_integer(reader_u16(&r, "parts")));
	res = resource_create("burnout", "BodyPartRemapData");
	if (!res || reader_failed(&r)) {
		json_decref(parts);
		resource_free(res);
		if (!res)
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	res->metadata = json_pack("{s:s, s:I, s:I, s:o}", "byte_order", order_name(order), "size",
	                          (json_int_t)size, "count", (json_int_t)count, "parts", parts);
	resource_assume(res, "Body Part Remap Data: the layout rests on unconfirmed research");
	return res;
}

/* A resource ID from a file name: "ECC975F6.dat" (YAP), "F6_75_C9_EC.dat" (DGIorio's
 * unpacker: the bytes as stored, so reversed on little-endian platforms). */
static int id_from_filename(const char *filename, enum byte_order order, uint32_t *id,
                            const char **source)
{
	const char *base = strrchr(filename ? filename : "", '/');
	char stem[32];
	size_t n;

	base = base ? base + 1 : (filename ? filename : "");
	n = strcspn(base, ".");
	if (n >= sizeof(stem))
		return -1;
	memcpy(stem, base, n);
	stem[n] = '\0';
	if (n == 8 && strspn(stem, "0123456789abcdefABCDEF") == 8) {
		*id = (uint32_t)strtoul(stem, NULL, 16);
		*source = "file name (YAP)";
		return 0;
	}
	if (n == 11 && stem[2] == '_' && stem[5] == '_' && stem[8] == '_') {
		uint8_t b[4];
		for (int i = 0; i < 4; i++) {
			char hex[3] = {stem[3 * i], stem[3 * i + 1], 0};
			if (!isxdigit((unsigned char)hex[0]) || !isxdigit((unsigned char)hex[1]))
				return -1;
			b[i] = (uint8_t)strtoul(hex, NULL, 16);
		}
		*id = order == BYTE_ORDER_LITTLE ? (uint32_t)b[0] | (uint32_t)b[1] << 8 |
		                                       (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
		                                 : (uint32_t)b[3] | (uint32_t)b[2] << 8 |
		                                       (uint32_t)b[1] << 16 | (uint32_t)b[0] << 24;
		*source = "file name (DGIorio)";
		return 0;
	}
	return -1;
}

/* Bundles */

static int is_class(const char *name, const char *cls)
{
	return name && strcasecmp(name, cls) == 0;
}

static enum format_match burnout_match(const struct upload *up, char *why, size_t why_size)
{
	if (up->class_name) {
		if (is_class(up->class_name, "VehicleAnimation") ||
		    is_class(up->class_name, "BodyPartRemapData"))
			return MATCH_EXPLICIT;
		snprintf(why, why_size, "class=%s is not VehicleAnimation or BodyPartRemapData",
		         up->class_name);
		return MATCH_NONE;
	}
	if (up->family) {
		if (strcasecmp(up->family, "burnout") == 0)
			return MATCH_EXPLICIT;
		snprintf(why, why_size, "family=%s is not burnout", up->family);
		return MATCH_NONE;
	}
	if (up->length >= 4 && memcmp(up->data, "bnd2", 4) == 0)
		return MATCH_MAGIC;
	/* a Vehicle Animation's version 1 at 0x04 and a resourceSize that fits */
	if (up->length >= 0x130) {
		struct layout l;
		int le = up->data[4] == 1 && !up->data[5] && !up->data[6] && !up->data[7];
		int be = up->data[7] == 1 && !up->data[4] && !up->data[5] && !up->data[6];
		if (le || be) {
			read_layout(up->data, up->length, le ? BYTE_ORDER_LITTLE : BYTE_ORDER_BIG,
			            0, &l);
			if (!l.failed[0])
				return MATCH_PROBE;
			read_layout(up->data, up->length, BYTE_ORDER_LITTLE, 1, &l);
			if (le && !l.failed[0])
				return MATCH_PROBE;
		}
	}
	snprintf(why, why_size,
	         "no \"bnd2\" magic, no class=VehicleAnimation or BodyPartRemapData, and not a "
	         "Vehicle Animation resource whose checks hold");
	return MATCH_NONE;
}

static int burnout_decode(const struct upload *up, struct decode_result *out, struct error *err)
{
	struct resource *res;
	uint32_t id;
	const char *source;

	if (up->length >= 4 && memcmp(up->data, "bnd2", 4) == 0 && !up->class_name)
		return burnout_bundle_decode(up, out, err);
	if (is_class(up->class_name, "BodyPartRemapData"))
		res = burnout_body_part_remap(up->data, up->length, err);
	else
		res = burnout_vehicle_animation(up->data, up->length, up->layout, err);
	if (!res)
		return -1;
	/* a file name holds an ID only when nothing better is given */
	if (!up->name && !up->crc32 &&
	    id_from_filename(up->filename,
	                     up->length >= 8 && up->data[7] == 1 ? BYTE_ORDER_BIG
	                                                         : BYTE_ORDER_LITTLE,
	                     &id, &source) == 0) {
		res->crc32 = id;
		snprintf(res->crc32_source, sizeof(res->crc32_source), "%.31s", source);
	}
	return decode_result_add(out, res);
}

const struct format format_burnout = {
    .family = "burnout",
    .version = 2, /* 2: the vehicle's rig (doc/formats.md 2.1) */
    .description = "Burnout Paradise Vehicle Animation and Body Part Remap Data, raw or in BND2 "
                   "bundles",
    .match = burnout_match,
    .decode = burnout_decode,
};
