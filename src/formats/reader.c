/* reader.c: bounds-checked little/big-endian reads for every decoder. */
#include "formats/reader.h"

#include <string.h>

void reader_init(struct reader *r, const void *data, size_t length, enum byte_order order,
                 struct error *err)
{
	r->data = data;
	r->length = length;
	r->pos = 0;
	r->order = order;
	r->failed = 0;
	r->err = err;
}

int reader_failed(const struct reader *r)
{
	return r->failed;
}

size_t reader_remaining(const struct reader *r)
{
	return r->pos <= r->length ? r->length - r->pos : 0;
}

static int reader_fail(struct reader *r, const char *field, size_t need)
{
	if (!r->failed)
		error_set(r->err, ERROR_MALFORMED, field, (long long)r->pos,
		          "%s: needs %zu bytes at offset %zu but the input ends at %zu",
		          field ? field : "data", need, r->pos, r->length);
	r->failed = 1;
	return -1;
}

/* Returns a pointer to n readable bytes and advances, or NULL after reporting. */
static const uint8_t *reader_take(struct reader *r, size_t n, const char *field)
{
	const uint8_t *p;

	if (r->failed)
		return NULL;
	if (n > reader_remaining(r)) {
		reader_fail(r, field, n);
		return NULL;
	}
	p = r->data + r->pos;
	r->pos += n;
	return p;
}

int reader_seek(struct reader *r, size_t pos, const char *field)
{
	if (r->failed)
		return -1;
	if (pos > r->length) {
		if (!r->failed)
			error_set(r->err, ERROR_MALFORMED, field, (long long)pos,
			          "%s: offset %zu is past the end of the input (%zu bytes)",
			          field ? field : "offset", pos, r->length);
		r->failed = 1;
		return -1;
	}
	r->pos = pos;
	return 0;
}

int reader_skip(struct reader *r, size_t n, const char *field)
{
	return reader_take(r, n, field) ? 0 : -1;
}

int reader_check_count(struct reader *r, uint64_t count, size_t size, const char *field)
{
	uint64_t remaining = reader_remaining(r);

	if (r->failed)
		return -1;
	if (size != 0 && count > remaining / size) {
		error_set(r->err, ERROR_MALFORMED, field, (long long)r->pos,
		          "%s: count %llu of %zu-byte elements needs more than the %llu bytes "
		          "left at offset %zu",
		          field ? field : "count", (unsigned long long)count, size,
		          (unsigned long long)remaining, r->pos);
		r->failed = 1;
		return -1;
	}
	return 0;
}

static uint64_t reader_uint(struct reader *r, size_t n, const char *field)
{
	const uint8_t *p = reader_take(r, n, field);
	uint64_t v = 0;
	size_t i;

	if (!p)
		return 0;
	for (i = 0; i < n; i++) {
		size_t k = r->order == BYTE_ORDER_LITTLE ? n - 1 - i : i;
		v = (v << 8) | p[k];
	}
	return v;
}

uint8_t reader_u8(struct reader *r, const char *field)
{
	return (uint8_t)reader_uint(r, 1, field);
}

uint16_t reader_u16(struct reader *r, const char *field)
{
	return (uint16_t)reader_uint(r, 2, field);
}

uint32_t reader_u32(struct reader *r, const char *field)
{
	return (uint32_t)reader_uint(r, 4, field);
}

uint64_t reader_u64(struct reader *r, const char *field)
{
	return reader_uint(r, 8, field);
}

int16_t reader_i16(struct reader *r, const char *field)
{
	return (int16_t)reader_u16(r, field);
}

int32_t reader_i32(struct reader *r, const char *field)
{
	return (int32_t)reader_u32(r, field);
}

float reader_f32(struct reader *r, const char *field)
{
	uint32_t bits = reader_u32(r, field);
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

int reader_bytes(struct reader *r, void *out, size_t n, const char *field)
{
	const uint8_t *p = reader_take(r, n, field);

	if (!p)
		return -1;
	memcpy(out, p, n);
	return 0;
}
