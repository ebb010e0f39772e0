/* gltf_data.c: a glTF file's bytes as its animations read them: the container (.glb chunks or
 * .gltf text), buffers (the BIN chunk, data URIs, or files uploaded beside the .gltf), buffer
 * views and accessors, each read bounds-checked, with the validator's code in every error
 * (doc/formats.md 4). gltf.c makes the animations of them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/base64.h"
#include "gltf.h"
#include "formats/reader.h"

int gltf_fail(struct gltf *g, const char *code, const char *pointer, const char *fmt, ...)
{
	char text[360];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	error_set(g->err, ERROR_GLTF_INVALID, pointer, -1, "%s at %s: %s", code, pointer, text);
	return -1;
}

const json_t *gltf_item(const json_t *doc, const char *key, json_int_t index)
{
	const json_t *a = json_object_get(doc, key);
	return index >= 0 && (size_t)index < json_array_size(a) ? json_array_get(a, (size_t)index)
	                                                        : NULL;
}

json_int_t gltf_int(const json_t *o, const char *key, json_int_t fallback)
{
	const json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : fallback;
}

/* Containers. */

int gltf_parse_container(struct gltf *g)
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
			return gltf_fail(g, "GLB_INVALID_VERSION", "/",
			                 "version %" PRIu32 " is not 2", version);
		if (length != up->length)
			return gltf_fail(g, "GLB_LENGTH_MISMATCH", "/",
			                 "the header says %" PRIu32 " bytes, the file has %zu",
			                 length, up->length);
		chunk_length = reader_u32(&r, "glb.chunk[0].length");
		chunk_type = reader_u32(&r, "glb.chunk[0].type");
		if (reader_failed(&r))
			return -1;
		if (chunk_type != GLB_CHUNK_JSON)
			return gltf_fail(g, "GLB_UNEXPECTED_FIRST_CHUNK", "/",
			                 "the first chunk is not JSON");
		if (chunk_length > reader_remaining(&r))
			return gltf_fail(g, "GLB_CHUNK_TOO_BIG", "/",
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
					return gltf_fail(g, "GLB_CHUNK_TOO_BIG", "/",
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
		return gltf_fail(g, "UNDEFINED_PROPERTY", "/asset", "a glTF needs an asset object");
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

int gltf_load_buffer(struct gltf *g, json_int_t index, const char *pointer)
{
	const json_t *b = gltf_item(g->doc, "buffers", index);
	struct gltf_buffer *buf;
	const char *uri;
	json_int_t declared;
	char where[64];

	if (!b)
		return gltf_fail(g, "UNRESOLVED_REFERENCE", pointer, "buffer %lld does not exist",
		                 (long long)index);
	buf = &g->buffers[index];
	if (buf->data)
		return 0;
	snprintf(where, sizeof(where), "/buffers/%lld", (long long)index);
	declared = gltf_int(b, "byteLength", -1);
	if (declared < 1)
		return gltf_fail(g, "UNDEFINED_PROPERTY", where,
		                 "byteLength must be a positive integer");
	uri = json_string_value(json_object_get(b, "uri"));
	buf->sibling = -1;
	if (!uri) {
		if (!g->glb || index != 0 || !g->bin)
			return gltf_fail(
			    g, "BUFFER_MISSING_GLB_DATA", where,
			    "the buffer has no uri and there is no GLB BIN chunk for it");
		buf->data = g->bin;
		buf->length = g->bin_length;
	} else if (strncmp(uri, "data:", 5) == 0) {
		const char *comma = strchr(uri, ',');
		size_t bad = 0;
		if (!comma || !strstr(uri, ";base64,") || strstr(uri, ";base64,") + 7 != comma)
			return gltf_fail(g, "INVALID_URI", where, "the data URI is not base64");
		buf->owned = base64_decode(comma + 1, strlen(comma + 1), &buf->length, &bad);
		if (!buf->owned)
			return gltf_fail(g, "INVALID_URI", where,
			                 "the data URI's base64 is invalid at character %zu", bad);
		buf->data = buf->owned;
	} else {
		char name[512];
		int i = gltf_sibling(g, uri, name, sizeof(name));
		if (i == -2)
			return gltf_fail(g, "INVALID_URI", where, "'%.100s' is not a valid URI",
			                 uri);
		if (i >= 0) {
			buf->data = g->up->siblings[i].data;
			buf->length = g->up->siblings[i].length;
			buf->sibling = i;
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
		return gltf_fail(g, "BUFFER_BYTE_LENGTH_MISMATCH", where,
		                 "byteLength is %lld but the data has %zu bytes",
		                 (long long)declared, buf->length);
	buf->length = (size_t)declared;
	return 0;
}

int gltf_sibling(struct gltf *g, const char *uri, char *name, size_t size)
{
	if (uri_decode(uri, name, size) < 0)
		return -2;
	for (size_t i = 0; i < g->up->sibling_count; i++) {
		struct upload_sibling *s = &g->up->siblings[i];
		if (s->filename && (strcmp(s->filename, name) == 0 ||
		                    strcmp(basename_of(s->filename), basename_of(name)) == 0)) {
			s->used = 1;
			return (int)i;
		}
	}
	return -1;
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
	const json_t *v = gltf_item(g->doc, "bufferViews", index);
	json_int_t buffer, view_offset, view_length;
	char where[64];

	if (!v) {
		gltf_fail(g, "UNRESOLVED_REFERENCE", pointer, "buffer view %lld does not exist",
		          (long long)index);
		return NULL;
	}
	snprintf(where, sizeof(where), "/bufferViews/%lld", (long long)index);
	buffer = gltf_int(v, "buffer", -1);
	view_offset = gltf_int(v, "byteOffset", 0);
	view_length = gltf_int(v, "byteLength", -1);
	if (view_offset < 0 || view_length < 1) {
		gltf_fail(g, "INVALID_VALUE", where,
		          "byteOffset and byteLength must be set and positive");
		return NULL;
	}
	if (gltf_load_buffer(g, buffer, where) < 0)
		return NULL;
	if ((uint64_t)view_offset + (uint64_t)view_length > g->buffers[buffer].length) {
		gltf_fail(g, "BUFFER_VIEW_TOO_LONG", where,
		          "bytes [%lld, %llu) are past the buffer's %zu bytes",
		          (long long)view_offset,
		          (unsigned long long)view_offset + (unsigned long long)view_length,
		          g->buffers[buffer].length);
		return NULL;
	}
	if (align > 1 && ((size_t)view_offset + offset) % align != 0) {
		gltf_fail(
		    g, "ACCESSOR_OFFSET_ALIGNMENT", pointer,
		    "the data starts at byte %llu, which is not a multiple of its component size "
		    "%zu",
		    (unsigned long long)view_offset + offset, align);
		return NULL;
	}
	if ((uint64_t)offset + need > (uint64_t)view_length) {
		gltf_fail(g, "ACCESSOR_TOO_LONG", pointer,
		          "bytes [%zu, %llu) of buffer view %lld are past its %lld bytes", offset,
		          (unsigned long long)offset + need, (long long)index,
		          (long long)view_length);
		return NULL;
	}
	return g->buffers[buffer].data + view_offset + offset;
}

int gltf_accessor_info(struct gltf *g, json_int_t index, const char *pointer, struct accessor *a)
{
	const json_t *acc = gltf_item(g->doc, "accessors", index), *stride;
	json_int_t count;

	if (!acc)
		return gltf_fail(g, "UNRESOLVED_REFERENCE", pointer, "accessor %lld does not exist",
		                 (long long)index);
	a->component_type = gltf_int(acc, "componentType", -1);
	a->components = type_components(json_string_value(json_object_get(acc, "type")));
	count = gltf_int(acc, "count", -1);
	a->normalized = json_is_true(json_object_get(acc, "normalized"));
	a->has_bounds = json_object_get(acc, "min") && json_object_get(acc, "max");
	if (!component_size(a->component_type) || !a->components || count < 1)
		return gltf_fail(g, "INVALID_VALUE", pointer,
		                 "accessor %lld needs a componentType, a type and a count >= 1",
		                 (long long)index);
	/* a byteStride equal to the element's size says the elements are tightly packed: the
	 * same bytes as no byteStride, which is how they are read */
	stride =
	    json_object_get(acc, "bufferView")
	        ? json_object_get(gltf_item(g->doc, "bufferViews", gltf_int(acc, "bufferView", -1)),
	                          "byteStride")
	        : NULL;
	a->packed_stride =
	    stride && json_is_integer(stride) &&
	    (size_t)json_integer_value(stride) == component_size(a->component_type) * a->components;
	a->has_stride = stride && !a->packed_stride;
	a->count = (size_t)count;
	return 0;
}

uint8_t *gltf_accessor_raw(struct gltf *g, json_int_t index, const char *pointer,
                           const struct accessor *a)
{
	const json_t *acc = gltf_item(g->doc, "accessors", index);
	size_t csize = component_size(a->component_type), bytes = a->count * csize * a->components;
	const uint8_t *p;
	uint8_t *out;

	if (!json_object_get(acc, "bufferView") || json_object_get(acc, "sparse") ||
	    a->has_stride) {
		gltf_fail(
		    g, "INVALID_VALUE", pointer,
		    "a track kept in animdex's extras is read from a tightly packed buffer view, "
		    "without sparse values");
		return NULL;
	}
	p = view_bytes(g, gltf_int(acc, "bufferView", -1), (size_t)gltf_int(acc, "byteOffset", 0),
	               bytes, csize, pointer);
	if (!p)
		return NULL;
	out = malloc(bytes + 1);
	if (!out) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	memcpy(out, p, bytes);
	return out;
}

/* Reads accessor `index` as floats (normalised integers converted), sparse applied. */
float *gltf_accessor_read(struct gltf *g, json_int_t index, const char *pointer,
                          const struct accessor *a)
{
	const json_t *acc = gltf_item(g->doc, "accessors", index), *sparse;
	size_t csize = component_size(a->component_type), n = a->components;
	size_t elem = csize * n;
	float *out;

	if (!json_object_get(acc, "bufferView") && a->count * n > MAX_ZERO_ELEMENTS) {
		gltf_fail(g, "ACCESSOR_TOO_LONG", pointer,
		          "%zu components without a buffer view is more than animdex accepts",
		          a->count * n);
		return NULL;
	}
	if (json_object_get(acc, "bufferView")) {
		/* bounds first: a hostile count must not size an allocation */
		if (!view_bytes(g, gltf_int(acc, "bufferView", -1),
		                (size_t)gltf_int(acc, "byteOffset", 0), a->count * elem, csize,
		                pointer))
			return NULL;
	}
	out = calloc(a->count * n + 1, sizeof(float));
	if (!out) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	if (json_object_get(acc, "bufferView")) {
		const uint8_t *p = view_bytes(g, gltf_int(acc, "bufferView", -1),
		                              (size_t)gltf_int(acc, "byteOffset", 0),
		                              a->count * elem, csize, pointer);
		for (size_t i = 0; i < a->count * n; i++)
			out[i] = read_component(p + i * csize, a->component_type, a->normalized);
	}
	sparse = json_object_get(acc, "sparse");
	if (sparse) {
		const json_t *idx = json_object_get(sparse, "indices"),
		             *val = json_object_get(sparse, "values");
		json_int_t scount = gltf_int(sparse, "count", -1),
		           itype = gltf_int(idx, "componentType", -1);
		size_t isize =
		    itype == COMPONENT_UBYTE || itype == COMPONENT_USHORT || itype == COMPONENT_UINT
		        ? component_size(itype)
		        : 0;
		const uint8_t *ip, *vp;
		uint64_t previous = 0;
		if (scount < 1 || (size_t)scount > a->count || !isize || !idx || !val) {
			gltf_fail(
			    g, "INVALID_VALUE", pointer,
			    "sparse needs a count from 1 to the accessor's count, and indices of "
			    "UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT with values");
			goto fail;
		}
		ip = view_bytes(g, gltf_int(idx, "bufferView", -1),
		                (size_t)gltf_int(idx, "byteOffset", 0), (size_t)scount * isize,
		                isize, pointer);
		vp = ip ? view_bytes(g, gltf_int(val, "bufferView", -1),
		                     (size_t)gltf_int(val, "byteOffset", 0), (size_t)scount * elem,
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
				gltf_fail(g, "ACCESSOR_SPARSE_INDEX_OOB", pointer,
				          "sparse index %" PRIu64 " is not below the count %zu", i,
				          a->count);
				goto fail;
			}
			if (s > 0 && i <= previous) {
				gltf_fail(g, "ACCESSOR_SPARSE_INDICES_NON_INCREASING", pointer,
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
int gltf_has_data(struct gltf *g, json_int_t index)
{
	const json_t *acc = gltf_item(g->doc, "accessors", index);
	return json_object_get(acc, "bufferView") || json_object_get(acc, "sparse");
}

/* Animations. */
