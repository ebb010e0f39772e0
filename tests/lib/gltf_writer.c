/* gltf_writer.c: glTF test documents. */
#include "gltf_writer.h"

#include <stdlib.h>
#include <string.h>

#include "base/base64.h"

void gltf_writer_init(struct gltf_writer *w)
{
	memset(w, 0, sizeof(*w));
	w->doc =
	    json_pack("{s:{s:s}, s:[], s:[], s:[], s:[], s:[], s:[]}", "asset", "version", "2.0",
	              "nodes", "meshes", "accessors", "bufferViews", "buffers", "animations");
}

void gltf_writer_cleanup(struct gltf_writer *w)
{
	json_decref(w->doc);
	free(w->bin);
	memset(w, 0, sizeof(*w));
}

int gltf_writer_view(struct gltf_writer *w, const void *data, size_t length)
{
	json_t *views = json_object_get(w->doc, "bufferViews");
	size_t offset = (w->bin_len + 3) & ~(size_t)3;

	if (offset + length > w->bin_cap) {
		w->bin_cap = (offset + length) * 2 + 64;
		w->bin = realloc(w->bin, w->bin_cap);
	}
	memset(w->bin + w->bin_len, 0, offset - w->bin_len);
	memcpy(w->bin + offset, data, length);
	w->bin_len = offset + length;
	json_array_append_new(views,
	                      json_pack("{s:i, s:I, s:I}", "buffer", 0, "byteOffset",
	                                (json_int_t)offset, "byteLength", (json_int_t)length));
	return (int)json_array_size(views) - 1;
}

int gltf_writer_accessor(struct gltf_writer *w, int component_type, const char *type, size_t count,
                         const void *data, size_t length, int normalized, int bounds)
{
	json_t *accessors = json_object_get(w->doc, "accessors");
	json_t *a =
	    json_pack("{s:i, s:i, s:s, s:I}", "bufferView", gltf_writer_view(w, data, length),
	              "componentType", component_type, "type", type, "count", (json_int_t)count);

	if (normalized)
		json_object_set_new(a, "normalized", json_true());
	if (bounds) {
		const float *f = data;
		json_object_set_new(a, "min", json_pack("[f]", (double)f[0]));
		json_object_set_new(a, "max", json_pack("[f]", (double)f[count - 1]));
	}
	json_array_append_new(accessors, a);
	return (int)json_array_size(accessors) - 1;
}

int gltf_writer_node(struct gltf_writer *w, const char *name, int morph_targets)
{
	json_t *nodes = json_object_get(w->doc, "nodes"), *node = json_object();

	if (name)
		json_object_set_new(node, "name", json_string(name));
	if (morph_targets > 0) {
		json_t *meshes = json_object_get(w->doc, "meshes"), *targets = json_array();
		for (int i = 0; i < morph_targets; i++)
			json_array_append_new(targets, json_object());
		json_array_append_new(meshes, json_pack("{s:[{s:{}, s:o}]}", "primitives",
		                                        "attributes", "targets", targets));
		json_object_set_new(node, "mesh",
		                    json_integer((json_int_t)json_array_size(meshes) - 1));
	}
	json_array_append_new(nodes, node);
	return (int)json_array_size(nodes) - 1;
}

void gltf_writer_channel(struct gltf_writer *w, int anim, int node, const char *path,
                         const char *interpolation, int input, int output)
{
	json_t *anims = json_object_get(w->doc, "animations"), *a, *samplers;

	while ((int)json_array_size(anims) <= anim)
		json_array_append_new(anims, json_pack("{s:[], s:[]}", "samplers", "channels"));
	a = json_array_get(anims, (size_t)anim);
	samplers = json_object_get(a, "samplers");
	json_array_append_new(samplers, json_pack("{s:i, s:i, s:s}", "input", input, "output",
	                                          output, "interpolation", interpolation));
	json_array_append_new(json_object_get(a, "channels"),
	                      json_pack("{s:I, s:{s:i, s:s}}", "sampler",
	                                (json_int_t)json_array_size(samplers) - 1, "target", "node",
	                                node, "path", path));
}

static void set_buffer(struct gltf_writer *w, const char *uri)
{
	json_t *buffers = json_object_get(w->doc, "buffers");

	json_array_clear(buffers);
	if (uri)
		json_array_append_new(buffers, json_pack("{s:I, s:s}", "byteLength",
		                                         (json_int_t)w->bin_len, "uri", uri));
	else
		json_array_append_new(buffers,
		                      json_pack("{s:I}", "byteLength", (json_int_t)w->bin_len));
}

uint8_t *gltf_writer_embedded(struct gltf_writer *w, size_t *length)
{
	char *b64 = base64_encode(w->bin, w->bin_len, NULL);
	char *uri = malloc(strlen(b64) + 64);
	char *text;

	strcpy(uri, "data:application/octet-stream;base64,");
	strcat(uri, b64);
	set_buffer(w, uri);
	text = json_dumps(w->doc, JSON_COMPACT);
	*length = strlen(text);
	free(b64);
	free(uri);
	return (uint8_t *)text;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
	p[3] = (uint8_t)(v >> 24);
}

uint8_t *gltf_writer_glb(struct gltf_writer *w, size_t *length)
{
	char *json;
	size_t json_len, json_pad, bin_pad, total;
	uint8_t *out;

	set_buffer(w, NULL);
	json = json_dumps(w->doc, JSON_COMPACT);
	json_len = strlen(json);
	json_pad = (json_len + 3) & ~(size_t)3;
	bin_pad = (w->bin_len + 3) & ~(size_t)3;
	total = 12 + 8 + json_pad + 8 + bin_pad;
	out = calloc(1, total);
	memcpy(out, "glTF", 4);
	put_u32(out + 4, 2);
	put_u32(out + 8, (uint32_t)total);
	put_u32(out + 12, (uint32_t)json_pad);
	memcpy(out + 16, "JSON", 4);
	memcpy(out + 20, json, json_len);
	memset(out + 20 + json_len, ' ', json_pad - json_len);
	put_u32(out + 20 + json_pad, (uint32_t)bin_pad);
	memcpy(out + 24 + json_pad, "BIN\0", 4);
	if (w->bin_len) /* a node tree alone has no buffer */
		memcpy(out + 28 + json_pad, w->bin, w->bin_len);
	free(json);
	*length = total;
	return out;
}
