/* gltf_writer.h: builds glTF 2.0 documents for tests: accessors packed into one buffer, then
 * written as a .gltf with a data URI or as a .glb. */
#ifndef ANIMDEX_GLTF_WRITER_H
#define ANIMDEX_GLTF_WRITER_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct gltf_writer {
	json_t *doc;  /* the document being built */
	uint8_t *bin; /* buffer 0 */
	size_t bin_len, bin_cap;
};

void gltf_writer_init(struct gltf_writer *w);
void gltf_writer_cleanup(struct gltf_writer *w);
/* Appends data to buffer 0 (aligned to 4) in its own buffer view; returns the view index. */
int gltf_writer_view(struct gltf_writer *w, const void *data, size_t length);
/* An accessor over a new view of `data`; min/max of SCALAR floats when `bounds`. */
int gltf_writer_accessor(struct gltf_writer *w, int component_type, const char *type, size_t count,
                         const void *data, size_t length, int normalized, int bounds);
/* A node; returns its index. morph_targets > 0 gives it a mesh with that many targets. */
int gltf_writer_node(struct gltf_writer *w, const char *name, int morph_targets);
/* Adds a sampler and a channel to animation `anim` (created as needed). */
void gltf_writer_channel(struct gltf_writer *w, int anim, int node, const char *path,
                         const char *interpolation, int input, int output);
/* The whole file; caller frees. */
uint8_t *gltf_writer_embedded(struct gltf_writer *w, size_t *length);
uint8_t *gltf_writer_glb(struct gltf_writer *w, size_t *length);

#endif
