/* gltf.c: glTF 2.0 animations (doc/formats.md 4), each one a Radient-shaped clip.
 *
 * A .glb is a 12-byte header ("glTF", u32 version 2, u32 length) and chunks (u32 length,
 * u32 type, data padded to 4): JSON first, then an optional BIN chunk that is buffer 0. A
 * .gltf is the JSON alone; its buffers are data URIs, or files uploaded in the same request
 * and matched by their URI. Only the buffers that animations read are loaded: images and
 * mesh-only buffers are not needed.
 *
 * Animation samplers read two accessors: input (SCALAR float times, with min and max) and
 * output (values; CUBICSPLINE stores in-tangent, value, out-tangent per key, as Radient does).
 * Rotations may be normalised integers; weights hold one value per morph target per key.
 * Every rule the official validator checks for animations is checked here, and its code starts
 * the error message ("ANIMATION_DUPLICATE_TARGETS at /animations/0/channels/1/target: ...").
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base64.h"
#include "format.h"
#include "reader.h"

#define GLB_MAGIC            0x46546C67u /* "glTF" */
#define GLB_CHUNK_JSON       0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN        0x004E4942u /* "BIN\0" */
#define QUATERNION_TOLERANCE 0.00769f
#define MAX_ZERO_ELEMENTS    (1u << 24) /* components of an accessor without a buffer view */

enum {
	COMPONENT_BYTE = 5120,
	COMPONENT_UBYTE,
	COMPONENT_SHORT,
	COMPONENT_USHORT,
	COMPONENT_UINT = 5125,
	COMPONENT_FLOAT
};

enum path { PATH_TRANSLATION, PATH_ROTATION, PATH_SCALE, PATH_WEIGHTS, PATH_OTHER };

struct gltf_buffer {
	const uint8_t *data; /* NULL until loaded */
	size_t length;
	uint8_t *owned; /* decoded data URI */
	int sibling;    /* index of the request file it came from, or -1 */
};

struct gltf {
	const struct upload *up;
	json_t *doc;
	const uint8_t *bin; /* a .glb's BIN chunk */
	size_t bin_length;
	int glb;
	struct gltf_buffer *buffers;
	size_t buffer_count;
	struct error *err;
};

static int fail(struct gltf *g, const char *code, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct gltf *g, const char *code, const char *pointer, const char *fmt, ...)
{
	char text[360];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	error_set(g->err, ERROR_GLTF_INVALID, pointer, -1, "%s at %s: %s", code, pointer, text);
	return -1;
}

static const json_t *array_item(const json_t *doc, const char *key, json_int_t index)
{
	const json_t *a = json_object_get(doc, key);
	return index >= 0 && (size_t)index < json_array_size(a) ? json_array_get(a, (size_t)index)
	                                                        : NULL;
}

static json_int_t int_or(const json_t *o, const char *key, json_int_t fallback)
{
	const json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : fallback;
}

/* Containers. */

static int parse_container(struct gltf *g)
{
	const struct upload *up = g->up;
	json_error_t jerr;
	const char *json = (const char *)up->data;
	size_t json_length = up->length;

	if (up->length >= 4 && memcmp(up->data, "glTF", 4) == 0) {
		struct reader r;
		uint32_t version, length, chunk_length, chunk_type;
		reader_init(&r, up->data, up->length, BYTE_ORDER_LITTLE, g->err);
		reader_skip(&r, 4, "glb.magic");
		version = reader_u32(&r, "glb.version");
		length = reader_u32(&r, "glb.length");
		if (reader_failed(&r))
			return -1;
		if (version != 2)
			return fail(g, "GLB_INVALID_VERSION", "/", "version %" PRIu32 " is not 2",
			            version);
		if (length != up->length)
			return fail(g, "GLB_LENGTH_MISMATCH", "/",
			            "the header says %" PRIu32 " bytes, the file has %zu", length,
			            up->length);
		chunk_length = reader_u32(&r, "glb.chunk[0].length");
		chunk_type = reader_u32(&r, "glb.chunk[0].type");
		if (reader_failed(&r))
			return -1;
		if (chunk_type != GLB_CHUNK_JSON)
			return fail(g, "GLB_UNEXPECTED_FIRST_CHUNK", "/",
			            "the first chunk is not JSON");
		if (chunk_length > reader_remaining(&r))
			return fail(g, "GLB_CHUNK_TOO_BIG", "/",
			            "the JSON chunk says %" PRIu32 " bytes; %zu are left",
			            chunk_length, reader_remaining(&r));
		json = (const char *)up->data + r.pos;
		json_length = chunk_length;
		reader_skip(&r, (chunk_length + 3u) & ~3u, "glb.chunk[0]");
		if (reader_failed(&r)) /* padding of the last chunk may be missing: allow */
			r.failed = 0, r.pos = up->length;
		if (reader_remaining(&r) >= 8) {
			chunk_length = reader_u32(&r, "glb.chunk[1].length");
			chunk_type = reader_u32(&r, "glb.chunk[1].type");
			if (chunk_type == GLB_CHUNK_BIN) {
				if (chunk_length > reader_remaining(&r))
					return fail(g, "GLB_CHUNK_TOO_BIG", "/",
					            "the BIN chunk says %" PRIu32
					            " bytes; %zu are left",
					            chunk_length, reader_remaining(&r));
				g->bin = up->data + r.pos;
				g->bin_length = chunk_length;
			}
		}
		g->glb = 1;
	}
	g->doc = json_loadb(json, json_length, JSON_REJECT_DUPLICATES, &jerr);
	if (!g->doc) {
		error_set(g->err, ERROR_MALFORMED, NULL, jerr.position,
		          "the glTF JSON is not valid: %s at line %d, column %d", jerr.text,
		          jerr.line, jerr.column);
		return -1;
	}
	if (!json_is_object(g->doc) || !json_is_object(json_object_get(g->doc, "asset")))
		return fail(g, "UNDEFINED_PROPERTY", "/asset", "a glTF needs an asset object");
	g->buffer_count = json_array_size(json_object_get(g->doc, "buffers"));
	g->buffers = calloc(g->buffer_count + 1, sizeof(*g->buffers));
	if (!g->buffers) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return 0;
}

/* "a%20b.bin" -> "a b.bin"; returns 0, or -1 for a bad escape. */
static int uri_decode(const char *uri, char *out, size_t size)
{
	size_t o = 0;

	for (const char *p = uri; *p; p++) {
		if (o + 1 >= size)
			return -1;
		if (*p == '%') {
			unsigned v;
			if (!p[1] || !p[2] || sscanf(p + 1, "%2x", &v) != 1)
				return -1;
			out[o++] = (char)v;
			p += 2;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	return 0;
}

static const char *basename_of(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path;
}

static int load_buffer(struct gltf *g, json_int_t index, const char *pointer)
{
	const json_t *b = array_item(g->doc, "buffers", index);
	struct gltf_buffer *buf;
	const char *uri;
	json_int_t declared;
	char where[64];

	if (!b)
		return fail(g, "UNRESOLVED_REFERENCE", pointer, "buffer %lld does not exist",
		            (long long)index);
	buf = &g->buffers[index];
	if (buf->data)
		return 0;
	snprintf(where, sizeof(where), "/buffers/%lld", (long long)index);
	declared = int_or(b, "byteLength", -1);
	if (declared < 1)
		return fail(g, "UNDEFINED_PROPERTY", where,
		            "byteLength must be a positive integer");
	uri = json_string_value(json_object_get(b, "uri"));
	buf->sibling = -1;
	if (!uri) {
		if (!g->glb || index != 0 || !g->bin)
			return fail(g, "BUFFER_MISSING_GLB_DATA", where,
			            "the buffer has no uri and there is no GLB BIN chunk for it");
		buf->data = g->bin;
		buf->length = g->bin_length;
	} else if (strncmp(uri, "data:", 5) == 0) {
		const char *comma = strchr(uri, ',');
		size_t bad = 0;
		if (!comma || !strstr(uri, ";base64,") || strstr(uri, ";base64,") + 7 != comma)
			return fail(g, "INVALID_URI", where, "the data URI is not base64");
		buf->owned = base64_decode(comma + 1, strlen(comma + 1), &buf->length, &bad);
		if (!buf->owned)
			return fail(g, "INVALID_URI", where,
			            "the data URI's base64 is invalid at character %zu", bad);
		buf->data = buf->owned;
	} else {
		char name[512];
		if (uri_decode(uri, name, sizeof(name)) < 0)
			return fail(g, "INVALID_URI", where, "'%.100s' is not a valid URI", uri);
		for (size_t i = 0; i < g->up->sibling_count; i++) {
			struct upload_sibling *s = &g->up->siblings[i];
			if (s->filename &&
			    (strcmp(s->filename, name) == 0 ||
			     strcmp(basename_of(s->filename), basename_of(name)) == 0)) {
				buf->data = s->data;
				buf->length = s->length;
				buf->sibling = (int)i;
				s->used = 1;
				break;
			}
		}
		if (!buf->data) {
			error_set(
			    g->err, ERROR_BAD_PARAMETER, where, -1,
			    "buffers[%lld].uri: '%.200s' was not uploaded with the glTF; send it "
			    "in the same request (curl -F file=@model.gltf -F file=@%.100s)",
			    (long long)index, name, basename_of(name));
			return -1;
		}
	}
	if ((json_int_t)buf->length < declared)
		return fail(g, "BUFFER_BYTE_LENGTH_MISMATCH", where,
		            "byteLength is %lld but the data has %zu bytes", (long long)declared,
		            buf->length);
	buf->length = (size_t)declared;
	return 0;
}

/* Accessors. */

static unsigned type_components(const char *type)
{
	static const struct {
		const char *name;
		unsigned n;
	} types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4},
	             {"MAT2", 4},   {"MAT3", 9}, {"MAT4", 16}};
	for (size_t i = 0; type && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(type, types[i].name) == 0)
			return types[i].n;
	return 0;
}

static size_t component_size(json_int_t type)
{
	switch (type) {
	case COMPONENT_BYTE:
	case COMPONENT_UBYTE: return 1;
	case COMPONENT_SHORT:
	case COMPONENT_USHORT: return 2;
	case COMPONENT_UINT:
	case COMPONENT_FLOAT: return 4;
	default: return 0;
	}
}

static float read_component(const uint8_t *p, json_int_t type, int normalized)
{
	switch (type) {
	case COMPONENT_BYTE: {
		float v = (float)(int8_t)p[0];
		return normalized ? fmaxf(v / 127.0f, -1.0f) : v;
	}
	case COMPONENT_UBYTE: return normalized ? (float)p[0] / 255.0f : (float)p[0];
	case COMPONENT_SHORT: {
		int16_t s;
		memcpy(&s, p, 2);
		return normalized ? fmaxf((float)s / 32767.0f, -1.0f) : (float)s;
	}
	case COMPONENT_USHORT: {
		uint16_t s;
		memcpy(&s, p, 2);
		return normalized ? (float)s / 65535.0f : (float)s;
	}
	case COMPONENT_UINT: {
		uint32_t u;
		memcpy(&u, p, 4);
		return (float)u;
	}
	default: {
		float f;
		memcpy(&f, p, 4);
		return f;
	}
	}
}

/* Bytes [offset, offset + need) of buffer view `index`, checked. */
static const uint8_t *view_bytes(struct gltf *g, json_int_t index, size_t offset, size_t need,
                                 size_t align, const char *pointer)
{
	const json_t *v = array_item(g->doc, "bufferViews", index);
	json_int_t buffer, view_offset, view_length;
	char where[64];

	if (!v) {
		fail(g, "UNRESOLVED_REFERENCE", pointer, "buffer view %lld does not exist",
		     (long long)index);
		return NULL;
	}
	snprintf(where, sizeof(where), "/bufferViews/%lld", (long long)index);
	buffer = int_or(v, "buffer", -1);
	view_offset = int_or(v, "byteOffset", 0);
	view_length = int_or(v, "byteLength", -1);
	if (view_offset < 0 || view_length < 1) {
		fail(g, "INVALID_VALUE", where,
		     "byteOffset and byteLength must be set and positive");
		return NULL;
	}
	if (load_buffer(g, buffer, where) < 0)
		return NULL;
	if ((uint64_t)view_offset + (uint64_t)view_length > g->buffers[buffer].length) {
		fail(g, "BUFFER_VIEW_TOO_LONG", where,
		     "bytes [%lld, %llu) are past the buffer's %zu bytes", (long long)view_offset,
		     (unsigned long long)view_offset + (unsigned long long)view_length,
		     g->buffers[buffer].length);
		return NULL;
	}
	if (align > 1 && ((size_t)view_offset + offset) % align != 0) {
		fail(g, "ACCESSOR_OFFSET_ALIGNMENT", pointer,
		     "the data starts at byte %llu, which is not a multiple of its component size "
		     "%zu",
		     (unsigned long long)view_offset + offset, align);
		return NULL;
	}
	if ((uint64_t)offset + need > (uint64_t)view_length) {
		fail(g, "ACCESSOR_TOO_LONG", pointer,
		     "bytes [%zu, %llu) of buffer view %lld are past its %lld bytes", offset,
		     (unsigned long long)offset + need, (long long)index, (long long)view_length);
		return NULL;
	}
	return g->buffers[buffer].data + view_offset + offset;
}

struct accessor {
	json_int_t component_type;
	unsigned components;
	size_t count;
	int normalized;
	int has_bounds;
	int has_stride; /* its buffer view sets byteStride */
};

static int accessor_info(struct gltf *g, json_int_t index, const char *pointer, struct accessor *a)
{
	const json_t *acc = array_item(g->doc, "accessors", index);
	json_int_t count;

	if (!acc)
		return fail(g, "UNRESOLVED_REFERENCE", pointer, "accessor %lld does not exist",
		            (long long)index);
	a->component_type = int_or(acc, "componentType", -1);
	a->components = type_components(json_string_value(json_object_get(acc, "type")));
	count = int_or(acc, "count", -1);
	a->normalized = json_is_true(json_object_get(acc, "normalized"));
	a->has_bounds = json_object_get(acc, "min") && json_object_get(acc, "max");
	a->has_stride =
	    json_object_get(acc, "bufferView") &&
	    json_object_get(array_item(g->doc, "bufferViews", int_or(acc, "bufferView", -1)),
	                    "byteStride") != NULL;
	if (!component_size(a->component_type) || !a->components || count < 1)
		return fail(g, "INVALID_VALUE", pointer,
		            "accessor %lld needs a componentType, a type and a count >= 1",
		            (long long)index);
	a->count = (size_t)count;
	return 0;
}

/* Reads accessor `index` as floats (normalised integers converted), sparse applied. */
static float *accessor_read(struct gltf *g, json_int_t index, const char *pointer,
                            const struct accessor *a)
{
	const json_t *acc = array_item(g->doc, "accessors", index), *sparse;
	size_t csize = component_size(a->component_type), n = a->components;
	size_t elem = csize * n;
	float *out;

	if (!json_object_get(acc, "bufferView") && a->count * n > MAX_ZERO_ELEMENTS) {
		fail(g, "ACCESSOR_TOO_LONG", pointer,
		     "%zu components without a buffer view is more than animdex accepts",
		     a->count * n);
		return NULL;
	}
	if (json_object_get(acc, "bufferView")) {
		/* bounds first: a hostile count must not size an allocation */
		if (!view_bytes(g, int_or(acc, "bufferView", -1),
		                (size_t)int_or(acc, "byteOffset", 0), a->count * elem, csize,
		                pointer))
			return NULL;
	}
	out = calloc(a->count * n + 1, sizeof(float));
	if (!out) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	if (json_object_get(acc, "bufferView")) {
		const uint8_t *p = view_bytes(g, int_or(acc, "bufferView", -1),
		                              (size_t)int_or(acc, "byteOffset", 0), a->count * elem,
		                              csize, pointer);
		for (size_t i = 0; i < a->count * n; i++)
			out[i] = read_component(p + i * csize, a->component_type, a->normalized);
	}
	sparse = json_object_get(acc, "sparse");
	if (sparse) {
		const json_t *idx = json_object_get(sparse, "indices"),
		             *val = json_object_get(sparse, "values");
		json_int_t scount = int_or(sparse, "count", -1),
		           itype = int_or(idx, "componentType", -1);
		size_t isize =
		    itype == COMPONENT_UBYTE || itype == COMPONENT_USHORT || itype == COMPONENT_UINT
		        ? component_size(itype)
		        : 0;
		const uint8_t *ip, *vp;
		uint64_t previous = 0;
		if (scount < 1 || (size_t)scount > a->count || !isize || !idx || !val) {
			fail(g, "INVALID_VALUE", pointer,
			     "sparse needs a count from 1 to the accessor's count, and indices of "
			     "UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT with values");
			goto fail;
		}
		ip = view_bytes(g, int_or(idx, "bufferView", -1),
		                (size_t)int_or(idx, "byteOffset", 0), (size_t)scount * isize, isize,
		                pointer);
		vp = ip ? view_bytes(g, int_or(val, "bufferView", -1),
		                     (size_t)int_or(val, "byteOffset", 0), (size_t)scount * elem,
		                     csize, pointer)
		        : NULL;
		if (!vp)
			goto fail;
		for (size_t s = 0; s < (size_t)scount; s++) {
			uint64_t i = isize == 1 ? ip[s]
			             : isize == 2
			                 ? (uint64_t)ip[2 * s] | (uint64_t)ip[2 * s + 1] << 8
			                 : (uint64_t)ip[4 * s] | (uint64_t)ip[4 * s + 1] << 8 |
			                       (uint64_t)ip[4 * s + 2] << 16 |
			                       (uint64_t)ip[4 * s + 3] << 24;
			if (i >= a->count) {
				fail(g, "ACCESSOR_SPARSE_INDEX_OOB", pointer,
				     "sparse index %" PRIu64 " is not below the count %zu", i,
				     a->count);
				goto fail;
			}
			if (s > 0 && i <= previous) {
				fail(g, "ACCESSOR_SPARSE_INDICES_NON_INCREASING", pointer,
				     "sparse index %" PRIu64 " follows %" PRIu64, i, previous);
				goto fail;
			}
			previous = i;
			for (size_t c = 0; c < n; c++)
				out[i * n + c] = read_component(vp + s * elem + c * csize,
				                                a->component_type, a->normalized);
		}
	}
	return out;
fail:
	free(out);
	return NULL;
}

/* Does the accessor have data of its own (a buffer view or sparse values)? */
static int has_data(struct gltf *g, json_int_t index)
{
	const json_t *acc = array_item(g->doc, "accessors", index);
	return json_object_get(acc, "bufferView") || json_object_get(acc, "sparse");
}

/* Animations. */

static enum path path_of(const char *path)
{
	if (!path)
		return PATH_OTHER;
	if (strcmp(path, "translation") == 0)
		return PATH_TRANSLATION;
	if (strcmp(path, "rotation") == 0)
		return PATH_ROTATION;
	if (strcmp(path, "scale") == 0)
		return PATH_SCALE;
	if (strcmp(path, "weights") == 0)
		return PATH_WEIGHTS;
	return PATH_OTHER;
}

static const char *const path_names[] = {"translation", "rotation", "scale", "weights"};

/* Morph targets of the node's mesh, or 0. */
static size_t morph_targets(struct gltf *g, const json_t *node)
{
	const json_t *mesh = array_item(g->doc, "meshes", int_or(node, "mesh", -1));
	const json_t *prims = json_object_get(mesh, "primitives");
	return json_array_size(json_object_get(json_array_get(prims, 0), "targets"));
}

static int output_format_ok(enum path p, const struct accessor *a)
{
	int norm_int =
	    a->normalized &&
	    (a->component_type == COMPONENT_BYTE || a->component_type == COMPONENT_UBYTE ||
	     a->component_type == COMPONENT_SHORT || a->component_type == COMPONENT_USHORT);
	int f = a->component_type == COMPONENT_FLOAT;

	switch (p) {
	case PATH_TRANSLATION:
	case PATH_SCALE: return f && a->components == 3;
	case PATH_ROTATION: return (f || norm_int) && a->components == 4;
	case PATH_WEIGHTS: return (f || norm_int) && a->components == 1;
	default: return 0;
	}
}

static void skip(struct decode_result *out, const char *name, const char *type, const char *reason)
{
	json_array_append_new(out->skipped, json_pack("{s:s, s:s, s:s}", "name", name, "type", type,
	                                              "reason", reason));
}

/* The structure of every animation, before any data is read (the validator's order). */
static int check_structure(struct gltf *g, const json_t *anims)
{
	char ptr[128];
	size_t ai;
	const json_t *anim;

	if (json_array_size(anims) == 0)
		return fail(g, "EMPTY_ENTITY", "/animations", "the animations array is empty");
	json_array_foreach(anims, ai, anim)
	{
		const json_t *channels = json_object_get(anim, "channels");
		const json_t *samplers = json_object_get(anim, "samplers");
		size_t i;
		const json_t *x;
		snprintf(ptr, sizeof(ptr), "/animations/%zu", ai);
		if (!json_is_array(channels))
			return fail(g, "UNDEFINED_PROPERTY", ptr, "an animation needs channels");
		if (!json_is_array(samplers))
			return fail(g, "UNDEFINED_PROPERTY", ptr, "an animation needs samplers");
		if (json_array_size(channels) == 0) {
			snprintf(ptr, sizeof(ptr), "/animations/%zu/channels", ai);
			return fail(g, "EMPTY_ENTITY", ptr, "channels is empty");
		}
		if (json_array_size(samplers) == 0) {
			snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers", ai);
			return fail(g, "EMPTY_ENTITY", ptr, "samplers is empty");
		}
		json_array_foreach(channels, i, x)
		{
			snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu", ai, i);
			if (!json_object_get(x, "sampler"))
				return fail(g, "UNDEFINED_PROPERTY", ptr,
				            "a channel needs a sampler");
			if (!json_object_get(x, "target"))
				return fail(g, "UNDEFINED_PROPERTY", ptr,
				            "a channel needs a target");
			snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu/target", ai, i);
			if (!json_object_get(json_object_get(x, "target"), "path"))
				return fail(g, "UNDEFINED_PROPERTY", ptr, "a target needs a path");
		}
		json_array_foreach(samplers, i, x)
		{
			snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu", ai, i);
			if (!json_object_get(x, "input"))
				return fail(g, "UNDEFINED_PROPERTY", ptr,
				            "a sampler needs an input");
			if (!json_object_get(x, "output"))
				return fail(g, "UNDEFINED_PROPERTY", ptr,
				            "a sampler needs an output");
		}
	}
	return 0;
}

/* One glTF animation -> one resource (or none, when every channel is skipped). */
/* One animation's samplers once checked: their accessors and interpolation. */
struct anim_samplers {
	size_t count;
	struct accessor *inputs, *outputs;
	int *interp; /* enum interpolation */
};

/* The samplers' references, interpolation, input format and bounds, strides. */
static int check_samplers(struct gltf *g, const json_t *samplers, size_t ai,
                          struct anim_samplers *as)
{
	char ptr[160];
	size_t i;
	const json_t *x;

	json_array_foreach(samplers, i, x)
	{
		const char *ip = json_string_value(json_object_get(x, "interpolation"));
		struct accessor *in = &as->inputs[i], *out = &as->outputs[i];
		snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu/input", ai, i);
		if (accessor_info(g, int_or(x, "input", -1), ptr, in) < 0)
			return -1;
		snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu/output", ai, i);
		if (accessor_info(g, int_or(x, "output", -1), ptr, out) < 0)
			return -1;
		as->interp[i] = !ip || strcmp(ip, "LINEAR") == 0 ? INTERP_LINEAR
		                : strcmp(ip, "STEP") == 0        ? INTERP_STEP
		                : strcmp(ip, "CUBICSPLINE") == 0 ? INTERP_CUBIC_SPLINE
		                                                 : -1;
		if (as->interp[i] < 0) {
			snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu/interpolation", ai,
			         i);
			return fail(g, "VALUE_NOT_IN_LIST", ptr,
			            "interpolation must be LINEAR, STEP or CUBICSPLINE");
		}
		snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu/input", ai, i);
		if (in->component_type != COMPONENT_FLOAT || in->components != 1)
			return fail(g, "ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT", ptr,
			            "input must be a SCALAR FLOAT accessor");
		if (!in->has_bounds)
			return fail(g, "ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS", ptr,
			            "the input accessor must have min and max");
		if (in->has_stride)
			return fail(
			    g, "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE", ptr,
			    "a sampler's accessors must not use a buffer view with byteStride");
		snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu/output", ai, i);
		if (out->has_stride)
			return fail(
			    g, "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE", ptr,
			    "a sampler's accessors must not use a buffer view with byteStride");
		snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu/input", ai, i);
		if (as->interp[i] == INTERP_CUBIC_SPLINE && in->count < 2)
			return fail(g, "ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS", ptr,
			            "CUBICSPLINE needs at least 2 keys, not %zu", in->count);
	}
	return 0;
}

/* The channels' sampler and node references, formats, counts, duplicate targets. */
static int check_channels(struct gltf *g, const json_t *channels, size_t ai,
                          const struct anim_samplers *as)
{
	char ptr[160];
	size_t i;
	const json_t *x;

	json_array_foreach(channels, i, x)
	{
		const json_t *target = json_object_get(x, "target"), *node;
		json_int_t s = int_or(x, "sampler", -1), n = int_or(target, "node", -1);
		enum path p = path_of(json_string_value(json_object_get(target, "path")));
		size_t want;
		snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu/sampler", ai, i);
		if (s < 0 || (size_t)s >= as->count)
			return fail(g, "UNRESOLVED_REFERENCE", ptr, "sampler %lld does not exist",
			            (long long)s);
		if (p == PATH_OTHER || !json_object_get(target, "node"))
			continue; /* skipped when read, with the reason */
		snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu/target/node", ai, i);
		node = array_item(g->doc, "nodes", n);
		if (!node)
			return fail(g, "UNRESOLVED_REFERENCE", ptr, "node %lld does not exist",
			            (long long)n);
		snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu/target", ai, i);
		if (json_object_get(node, "matrix"))
			return fail(g, "ANIMATION_CHANNEL_TARGET_NODE_MATRIX", ptr,
			            "node %lld has a matrix and cannot be animated", (long long)n);
		if (p == PATH_WEIGHTS && morph_targets(g, node) == 0)
			return fail(g, "ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS", ptr,
			            "node %lld has no morph targets to weigh", (long long)n);
		for (size_t j = 0; j < i; j++) {
			const json_t *t2 = json_object_get(json_array_get(channels, j), "target");
			if (int_or(t2, "node", -2) == n &&
			    path_of(json_string_value(json_object_get(t2, "path"))) == p)
				return fail(g, "ANIMATION_DUPLICATE_TARGETS", ptr,
				            "channel %zu already animates node %lld's %s", j,
				            (long long)n, path_names[p]);
		}
		snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu/sampler", ai, i);
		if (!output_format_ok(p, &as->outputs[s]))
			return fail(g, "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT", ptr,
			            "the output accessor's format does not fit %s", path_names[p]);
		want = as->inputs[s].count * (as->interp[s] == INTERP_CUBIC_SPLINE ? 3 : 1) *
		       (p == PATH_WEIGHTS ? morph_targets(g, node) : 1);
		if (as->outputs[s].count != want)
			return fail(g, "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT", ptr,
			            "the output has %zu elements; %s needs %zu",
			            as->outputs[s].count, path_names[p], want);
	}
	return 0;
}

/* Sampler s's key times, checked (finite, not negative, increasing), or NULL with the error
 * set. An input without data is all zeros, as glTF allows: noted in res's assumptions. */
static float *read_times(struct gltf *g, const json_t *sm, size_t ai, json_int_t s,
                         const struct accessor *in, struct resource *res)
{
	char ptr[160], note[256];
	float *times;

	snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%lld/input", ai, (long long)s);
	times = accessor_read(g, int_or(sm, "input", -1), ptr, in);
	if (!times)
		return NULL;
	if (!has_data(g, int_or(sm, "input", -1))) {
		/* the validator does not check such data, and neither does animdex */
		snprintf(
		    note, sizeof(note),
		    "animations[%zu].samplers[%lld].input has no data: glTF reads it as zeros, "
		    "so its keys all sit at time 0",
		    ai, (long long)s);
		resource_assume(res, note);
		return times;
	}
	for (size_t k = 0; k < in->count; k++) {
		if (!isfinite(times[k]))
			fail(g, "ACCESSOR_INVALID_FLOAT", ptr, "time %zu is not finite", k);
		else if (times[k] < 0)
			fail(g, "ACCESSOR_ANIMATION_INPUT_NEGATIVE", ptr, "time %zu is %g", k,
			     (double)times[k]);
		else if (k > 0 && !(times[k] > times[k - 1]))
			fail(g, "ACCESSOR_ANIMATION_INPUT_NON_INCREASING", ptr,
			     "time %zu (%.9g) is not greater than time %zu (%.9g)", k,
			     (double)times[k], k - 1, (double)times[k - 1]);
		else
			continue;
		free(times);
		return NULL;
	}
	return times;
}

/* Sampler s's values (comps floats each), checked (finite; rotations unit quaternions), or
 * NULL with the error set. Channel i is named when a quaternion is refused. */
static float *read_values(struct gltf *g, const json_t *sm, size_t ai, size_t i, json_int_t s,
                          enum path p, size_t comps, const struct anim_samplers *as)
{
	char ptr[160];
	float *values;

	snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%lld/output", ai, (long long)s);
	values = accessor_read(g, int_or(sm, "output", -1), ptr, &as->outputs[s]);
	if (!values)
		return NULL;
	for (size_t k = 0; k < as->outputs[s].count * comps; k++)
		if (!isfinite(values[k])) {
			free(values);
			fail(g, "ACCESSOR_INVALID_FLOAT", ptr, "component %zu is not finite", k);
			return NULL;
		}
	if (p != PATH_ROTATION || !has_data(g, int_or(sm, "output", -1)))
		return values;
	for (size_t k = 0; k < as->inputs[s].count; k++) {
		const float *q =
		    values + (as->interp[s] == INTERP_CUBIC_SPLINE ? k * 3 + 1 : k) * 4;
		float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
		if (fabsf(len - 1.0f) > QUATERNION_TOLERANCE) {
			free(values);
			snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu/sampler", ai, i);
			fail(g, "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION", ptr,
			     "key %zu's quaternion has length %.6g (tolerance %g)", k, (double)len,
			     (double)QUATERNION_TOLERANCE);
			return NULL;
		}
	}
	return values;
}

/* The index of node n's target of this schema in the clip, made when it is new. */
static uint32_t node_target(struct clip *clip, json_int_t n, const char *schema,
                            const char *node_name)
{
	size_t t;
	struct target *tg;

	for (t = 0; t < clip->target_count; t++)
		if (clip->targets[t].object == (uint64_t)n &&
		    strcmp(clip->targets[t].schema, schema) == 0)
			return (uint32_t)t;
	tg = &clip->targets[clip->target_count++];
	snprintf(tg->schema, sizeof(tg->schema), "%s", schema);
	tg->object = (uint64_t)n;
	tg->name = node_name ? strdup(node_name) : NULL;
	return (uint32_t)t;
}

/* Channel i of the animation into res: its target, sampler and track name. 0 (added, or
 * skipped with the reason in out), or -1 with the error set. */
static int read_channel(struct gltf *g, const json_t *x, const json_t *samplers, size_t ai,
                        size_t i, const struct anim_samplers *as, struct resource *res,
                        struct decode_result *out)
{
	const json_t *target = json_object_get(x, "target");
	json_int_t s = int_or(x, "sampler", -1), n = int_or(target, "node", -1);
	const char *path = json_string_value(json_object_get(target, "path"));
	enum path p = path_of(path);
	const json_t *node = array_item(g->doc, "nodes", n),
	             *sm = json_array_get(samplers, (size_t)s);
	const char *node_name = json_string_value(json_object_get(node, "name"));
	struct clip *clip = &res->clip;
	struct sampler *out_s;
	struct channel *ch;
	size_t m = p == PATH_WEIGHTS ? morph_targets(g, node) : 1;
	size_t comps = p == PATH_ROTATION ? 4 : p == PATH_WEIGHTS ? 1 : 3;
	float *times, *values;
	char label[256];

	if (p == PATH_OTHER || !json_object_get(target, "node")) {
		snprintf(label, sizeof(label), "animations[%zu].channels[%zu]", ai, i);
		if (p == PATH_OTHER)
			skip(out, label, path ? path : "(no path)",
			     path && strcmp(path, "pointer") == 0
			         ? "KHR_animation_pointer channels are not imported (yet)"
			         : "not a glTF 2.0 target path (translation, rotation, scale, "
			           "weights)");
		else
			skip(out, label, path,
			     "the channel has no target node: glTF allows that (an extension may "
			     "name the target), and there is nothing it animates here");
		return 0;
	}
	times = read_times(g, sm, ai, s, &as->inputs[s], res);
	if (!times)
		return -1;
	values = read_values(g, sm, ai, i, s, p, comps, as);
	if (!values) {
		free(times);
		return -1;
	}
	out_s = &clip->samplers[clip->sampler_count];
	out_s->type = p == PATH_ROTATION  ? VALUE_FLOAT4
	              : p == PATH_WEIGHTS ? VALUE_FLOAT
	                                  : VALUE_FLOAT3;
	out_s->array_size = (uint32_t)m;
	out_s->interp = (enum interpolation)as->interp[s];
	out_s->semantic =
	    p == PATH_ROTATION ? SEMANTIC_NORMALIZED_QUATERNION : SEMANTIC_COMPONENT_WISE;
	out_s->key_count = (uint32_t)as->inputs[s].count;
	out_s->times = times;
	out_s->values = values;
	out_s->value_bytes = as->outputs[s].count * comps * sizeof(float);
	if (clip->duration < times[as->inputs[s].count - 1])
		clip->duration = times[as->inputs[s].count - 1];
	ch = &clip->channels[clip->channel_count];
	ch->target =
	    node_target(clip, n, p == PATH_WEIGHTS ? SCHEMA_MORPH : SCHEMA_NODE, node_name);
	ch->property = p == PATH_WEIGHTS    ? MORPH_WEIGHTS
	               : p == PATH_ROTATION ? NODE_ROTATION
	               : p == PATH_SCALE    ? NODE_SCALE
	                                    : NODE_TRANSLATION;
	ch->sampler = (uint32_t)clip->sampler_count++;
	if (node_name)
		snprintf(label, sizeof(label), "node %lld \"%.80s\" %s", (long long)n, node_name,
		         path_names[p]);
	else
		snprintf(label, sizeof(label), "node %lld %s", (long long)n, path_names[p]);
	res->track_names[clip->channel_count++] = strdup(label);
	return 0;
}

/* A resource for an animation of nch channels, with room for them; NULL (error set) when out
 * of memory. */
static struct resource *animation_resource(struct gltf *g, size_t nch)
{
	struct resource *res = resource_create("gltf", "RadientAnimationClip");

	if (res) {
		res->track_names = calloc(nch + 1, sizeof(char *));
		res->clip.targets = calloc(nch * 2 + 1, sizeof(struct target));
		res->clip.samplers = calloc(nch + 1, sizeof(struct sampler));
		res->clip.channels = calloc(nch + 1, sizeof(struct channel));
	}
	if (!res || !res->track_names || !res->clip.targets || !res->clip.samplers ||
	    !res->clip.channels) {
		resource_free(res);
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	return res;
}

/* Animation ai of the document: checked whole first (samplers, then channels), then read
 * channel by channel into one entry; an animation none of whose channels can be read is
 * skipped with the reason. */
static int decode_animation(struct gltf *g, const json_t *anim, size_t ai,
                            struct decode_result *out)
{
	const json_t *channels = json_object_get(anim, "channels");
	const json_t *samplers = json_object_get(anim, "samplers");
	size_t nch = json_array_size(channels), nsm = json_array_size(samplers);
	struct anim_samplers as = {nsm, calloc(nsm + 1, sizeof(struct accessor)),
	                           calloc(nsm + 1, sizeof(struct accessor)),
	                           calloc(nsm + 1, sizeof(int))};
	struct resource *res = NULL;
	const char *anim_name = json_string_value(json_object_get(anim, "name"));
	char name[64];
	int rc = -1;
	size_t i;
	const json_t *x;

	if (!as.inputs || !as.outputs || !as.interp) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	if (check_samplers(g, samplers, ai, &as) < 0 || check_channels(g, channels, ai, &as) < 0)
		goto done;
	res = animation_resource(g, nch);
	if (!res)
		goto done;
	json_array_foreach(channels, i, x)
	{
		if (read_channel(g, x, samplers, ai, i, &as, res, out) < 0)
			goto done;
	}
	if (res->clip.channel_count == 0) {
		snprintf(name, sizeof(name), "animations[%zu]", ai);
		skip(out, name, "animation", "none of its channels could be imported");
		rc = 0;
		goto done;
	}
	if (anim_name && *anim_name) {
		res->name = strdup(anim_name);
	} else {
		snprintf(name, sizeof(name), "animation_%zu", ai);
		res->name = strdup(name);
	}
	res->clip.name = res->name ? strdup(res->name) : NULL;
	res->metadata =
	    json_pack("{s:s, s:I, s:O?}", "container", g->glb ? "glb" : "gltf", "animation_index",
	              (json_int_t)ai, "asset", json_object_get(g->doc, "asset"));
	rc = decode_result_add(out, res);
	res = NULL;
done:
	resource_free(res);
	free(as.inputs);
	free(as.outputs);
	free(as.interp);
	return rc;
}

/* A .gltf whose buffers came as separate files is kept with them embedded as data URIs. */
static int embed_external_buffers(struct gltf *g, struct decode_result *out)
{
	json_t *copy;
	char *text;
	int any = 0;

	for (size_t i = 0; i < g->buffer_count; i++)
		any |= g->buffers[i].sibling >= 0 && g->buffers[i].data;
	if (!any || g->glb)
		return 0;
	copy = json_deep_copy(g->doc);
	if (!copy)
		return -1;
	for (size_t i = 0; i < g->buffer_count; i++) {
		const struct upload_sibling *s;
		char *b64, *uri;
		size_t len;
		if (!g->buffers[i].data || g->buffers[i].sibling < 0)
			continue;
		s = &g->up->siblings[g->buffers[i].sibling];
		b64 = base64_encode(s->data, s->length, &len);
		uri = b64 ? malloc(len + 40) : NULL;
		if (!uri) {
			free(b64);
			json_decref(copy);
			return -1;
		}
		sprintf(uri, "data:application/octet-stream;base64,%s", b64);
		json_object_set_new(json_array_get(json_object_get(copy, "buffers"), i), "uri",
		                    json_string(uri));
		free(b64);
		free(uri);
	}
	text = json_dumps(copy, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(copy);
	if (!text)
		return -1;
	out->stored = (uint8_t *)text;
	out->stored_length = strlen(text);
	return 0;
}

static void gltf_cleanup(struct gltf *g)
{
	for (size_t i = 0; g->buffers && i < g->buffer_count; i++)
		free(g->buffers[i].owned);
	free(g->buffers);
	json_decref(g->doc);
}

static int gltf_decode(const struct upload *up, struct decode_result *out, struct error *err)
{
	struct gltf g = {0};
	const json_t *anims, *anim;
	size_t ai, before = out->count;
	int rc = -1;

	g.up = up;
	g.err = err;
	if (parse_container(&g) < 0)
		goto done;
	anims = json_object_get(g.doc, "animations");
	if (!anims) {
		error_set(err, ERROR_GLTF_INVALID, "/animations", -1,
		          "the glTF has no animations: there is nothing for animdex to catalogue");
		goto done;
	}
	if (check_structure(&g, anims) < 0)
		goto done;
	json_array_foreach(anims, ai, anim)
	{
		if (format_room_for_entry(up, out, err) < 0 ||
		    decode_animation(&g, anim, ai, out) < 0)
			goto done;
	}
	if (out->count == before) {
		json_t *first = json_array_get(out->skipped, 0);
		error_set(err, ERROR_GLTF_INVALID, "/animations", -1,
		          "no animation has a channel animdex can import: every channel is "
		          "skipped (%s: %s)",
		          first ? json_string_value(json_object_get(first, "name")) : "none",
		          first ? json_string_value(json_object_get(first, "reason"))
		                : "no channels");
		goto done;
	}
	if (embed_external_buffers(&g, out) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	rc = 0;
done:
	gltf_cleanup(&g);
	return rc;
}

static int contains(const uint8_t *data, size_t length, const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i + n <= length; i++)
		if (data[i] == (uint8_t)word[0] && memcmp(data + i, word, n) == 0)
			return 1;
	return 0;
}

static enum format_match gltf_match(const struct upload *up, char *why, size_t why_size)
{
	json_t *doc;
	int is_gltf;

	if (up->class_name) {
		snprintf(why, why_size, "class=%s: glTF files are detected by content",
		         up->class_name);
		return MATCH_NONE;
	}
	if (up->family) {
		if (strcasecmp(up->family, "gltf") == 0)
			return MATCH_EXPLICIT;
		snprintf(why, why_size, "family=%s is not gltf", up->family);
		return MATCH_NONE;
	}
	if (up->length >= 4 && memcmp(up->data, "glTF", 4) == 0)
		return MATCH_MAGIC;
	/* a JSON document with an "asset" object: only parse when the word is there */
	if (contains(up->data, up->length, "\"asset\"")) {
		doc = json_loadb((const char *)up->data, up->length, 0, NULL);
		is_gltf = json_is_object(json_object_get(doc, "asset"));
		json_decref(doc);
		if (is_gltf)
			return MATCH_CONTENT;
	}
	if (format_has_extension(up->filename, "gltf") || format_has_extension(up->filename, "glb"))
		return MATCH_EXTENSION;
	snprintf(why, why_size, "not a .glb (\"glTF\" magic) nor JSON with an \"asset\" object");
	return MATCH_NONE;
}

const struct format format_gltf = {
    .family = "gltf",
    .version = 2,
    .description = "glTF 2.0 animations (.gltf with data URIs or its .bin files, .glb)",
    .match = gltf_match,
    .decode = gltf_decode,
};
