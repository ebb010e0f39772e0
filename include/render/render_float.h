/* render_float.h: float32 as decimal text (render_float.c). */
#ifndef ANIMDEX_RENDER_FLOAT_H
#define ANIMDEX_RENDER_FLOAT_H

#include <stddef.h>
#include <stdint.h>

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

#endif
