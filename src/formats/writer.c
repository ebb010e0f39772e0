/* writer.c: bytes out in a chosen byte order (writer.h). */
#include "writer.h"

#include <string.h>

void writer_u16(struct writer *w, uint16_t v)
{
	uint8_t p[2] = {(uint8_t)v, (uint8_t)(v >> 8)};

	if (w->order == BYTE_ORDER_BIG)
		p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v;
	buf_append(&w->b, p, 2);
}

void writer_put_u32(uint8_t *p, uint32_t v, enum byte_order order)
{
	for (int i = 0; i < 4; i++)
		p[order == BYTE_ORDER_BIG ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}

void writer_put_f32(uint8_t *p, float f, enum byte_order order)
{
	uint32_t v;

	memcpy(&v, &f, 4);
	writer_put_u32(p, v, order);
}

void writer_u32(struct writer *w, uint32_t v)
{
	uint8_t p[4];

	writer_put_u32(p, v, w->order);
	buf_append(&w->b, p, 4);
}

void writer_u64(struct writer *w, uint64_t v)
{
	uint8_t p[8];

	for (int i = 0; i < 8; i++)
		p[w->order == BYTE_ORDER_BIG ? 7 - i : i] = (uint8_t)(v >> (8 * i));
	buf_append(&w->b, p, 8);
}

void writer_f32(struct writer *w, float f)
{
	uint32_t v;

	memcpy(&v, &f, 4);
	writer_u32(w, v);
}
