/* render.h: the model as JSON (render.c), JSON as text (render_json.c), and with them float32
 * as text (render_float.h) and UTF-8 checks (utf8.h). Below both the catalogue and the HTTP
 * layer. */
#ifndef ANIMDEX_RENDER_H
#define ANIMDEX_RENDER_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "core/model.h"
#include "render/render_float.h"
#include "base/utf8.h"

/* "0x1A2B3C4D" */
void render_handle(uint32_t crc32, char out[11]);
/* ISO 8601 UTC with milliseconds. */
void render_time_ms(int64_t ms, char out[32]);
/* An unsigned 64-bit as a JSON integer, or as a decimal string above 2^63-1. */
json_t *render_u64(uint64_t v);

/* The decoded structure of a resource: clip header, targets, samplers, channels, and the
 * family's metadata. */
json_t *render_structure(const struct resource *res);
/* What an upload would store, without a catalogue: summary, structure, tracks. */
json_t *render_decoded(const struct resource *res);

/* The JSON text of a value (malloc'd, *length set), ending with a newline: compact, or
 * indented by `indent` spaces a level. Reals that are float32 values are written as the
 * shortest text that reads back as the same float32 (as samples are), other reals as the
 * shortest that reads back as the same double; integers as integers. */
char *render_json(const json_t *json, int indent, size_t *length);
/* The same appended to b, without the newline; -1 when b refused it. */
int render_json_append(struct buf *b, const json_t *json, int indent);

/* The text the catalogue stores for an object or array (malloc'd): byte for byte what
 * json_dumps(json, JSON_COMPACT) writes, and NULL where it gives NULL (out of memory, a string
 * that is not UTF-8, anything but an object or array). */
char *render_json_stored(const json_t *json);
/* render_json_stored(render_structure(res)), byte for byte, written without the tree: every
 * import and upload stores it, and the tree cost a third of import's reading thread. */
char *render_structure_stored(const struct resource *res);

/* Values written as JSON text made beforehand: each placeholder an empty JSON string of the
 * caller's own making (found by its address, so nothing read from input can pose as one),
 * written as its text. Large documents of many small parts keep them as text rather than as
 * thousands of jansson values to build, walk and free. */
struct render_splice {
	const json_t *value;
	const char *text;
	size_t length;
};
struct render_splices {
	struct render_splice *items;
	size_t count, cap;
};
/* render_json(json, 0, length) with the splices' texts in place of their placeholders (the
 * splices are sorted); NULL when out of memory. */
char *render_json_spliced(const json_t *json, struct render_splices *sp, size_t *length);

/* A JSON string of text appended to b ("null" for NULL or text that is not UTF-8). */
void render_string_append(struct buf *b, const char *text);
#endif
