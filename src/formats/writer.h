/* writer.h: bytes out in a chosen byte order, for the encoders (zouna_native.c,
 * burnout_native.c); the writing side of reader.h. Growth is bounded by the buf's limit: a
 * write past it sets the buf's overflow flag, which the encoder checks once at the end. */
#ifndef ANIMDEX_FORMATS_WRITER_H
#define ANIMDEX_FORMATS_WRITER_H

#include <stdint.h>

#include "base/buf.h"
#include "formats/reader.h"

struct writer {
	struct buf b;
	enum byte_order order;
};

void writer_u16(struct writer *w, uint16_t v);
void writer_u32(struct writer *w, uint32_t v);
void writer_u64(struct writer *w, uint64_t v);
void writer_f32(struct writer *w, float f);
/* Over 4 bytes already there (a field written in place). */
void writer_put_u32(uint8_t *p, uint32_t v, enum byte_order order);
void writer_put_f32(uint8_t *p, float f, enum byte_order order);

#endif
