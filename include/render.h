/* render.h: the model as JSON and JSON as text; fast float formatting; UTF-8 checks. Below
 * both the catalogue and the HTTP layer. */
#ifndef ANIMDEX_RENDER_H
#define ANIMDEX_RENDER_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "model.h"

/* Writes the shortest decimal text that reads back as exactly f (float32 round trip), or,
 * with digits in 1..9, f rounded to that many significant digits. Non-finite values are
 * written as null. Returns the length; out must hold 32 bytes. */
size_t render_float(float f, int digits, char *out);

/* A float32's shortest decimal, digits x 10^exponent (digits may end in zeros). */
struct float_decimal {
	uint32_t digits;
	int32_t exponent;
};

/* render_float(f, 0, ...) in two steps, for runs of floats: the decimals of n floats (any
 * values; those of zeros and non-finite ones are not used), then each one's text (what
 * render_float writes, 32 bytes of room). A run of decimals made together, then written,
 * goes faster than float after float: the processor overlaps the runs' steps. */
void render_float_decimals(const float *v, size_t n, struct float_decimal *out);
size_t render_float_text(float f, struct float_decimal dec, char *out);

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
/* Is this valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF)? */
int utf8_valid(const char *text, size_t length);
/* Copies text with every byte that is not part of valid UTF-8 written as \xFF; returns the
 * length (cut short, on a whole character, when out is too small). */
size_t utf8_escape(const char *text, char *out, size_t size);

#endif
