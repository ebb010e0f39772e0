/* render.h: the model and samples as JSON, CSV and raw floats; fast float formatting. */
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

#endif
