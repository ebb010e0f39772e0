/* reader.h: the one bounds-checked reader every binary decoder reads through.
 *
 * A reader walks a (buffer, length) pair in a chosen byte order. Every read checks that the
 * bytes exist; a failed read sets the reader's sticky failure flag, reports a "malformed"
 * error naming the field and the offset, and returns zero, so a decoder can read a whole
 * header and test reader_failed() once. Counts from files are hostile: reader_check_count()
 * tells whether `count` elements of `size` bytes can still be present before anything is
 * allocated for them.
 */
#ifndef ANIMDEX_READER_H
#define ANIMDEX_READER_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

enum byte_order { BYTE_ORDER_LITTLE = 0, BYTE_ORDER_BIG = 1 };

struct reader {
	const uint8_t *data;   /* the whole input; not owned */
	size_t length;         /* bytes in data */
	size_t pos;            /* next byte to read */
	enum byte_order order; /* how multi-byte fields are read */
	int failed;            /* sticky: set by the first out-of-bounds read */
	struct error *err;     /* where the first failure is reported; may be NULL */
};

void reader_init(struct reader *r, const void *data, size_t length, enum byte_order order,
                 struct error *err);
int reader_failed(const struct reader *r);
size_t reader_remaining(const struct reader *r);
/* Moves to an absolute offset; fails when past the end. */
int reader_seek(struct reader *r, size_t pos, const char *field);
int reader_skip(struct reader *r, size_t n, const char *field);
/* Fails (and reports) unless count * size bytes remain, without overflow. */
int reader_check_count(struct reader *r, uint64_t count, size_t size, const char *field);

uint8_t reader_u8(struct reader *r, const char *field);
uint16_t reader_u16(struct reader *r, const char *field);
uint32_t reader_u32(struct reader *r, const char *field);
uint64_t reader_u64(struct reader *r, const char *field);
int16_t reader_i16(struct reader *r, const char *field);
int32_t reader_i32(struct reader *r, const char *field);
float reader_f32(struct reader *r, const char *field);
/* Copies n bytes; fails without copying when they are not all present. */
int reader_bytes(struct reader *r, void *out, size_t n, const char *field);

#endif
