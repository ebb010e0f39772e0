/* check_reader.c: the one bounds-checked reader every decoder reads through (reader.c), on its
 * own: every read at exactly the bytes left, one byte over, with nothing left, offsets and
 * counts near SIZE_MAX, both byte orders. The decoders' own size checks would hide a reader
 * that let one byte too many through; these tests do not. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/reader.h"

static const uint8_t bytes[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};

/* The input in a buffer of exactly its size, so that a read past it is also a memory error
 * under AddressSanitizer. */
static uint8_t *exact(size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	memcpy(p, bytes, n);
	return p;
}

/* Each read function, by the bytes it takes. */
enum read_fn {
	READ_U8,
	READ_U16,
	READ_I16,
	READ_U32,
	READ_I32,
	READ_F32,
	READ_U64,
	READ_BYTES,
	READ_SKIP,
	READ_FNS
};
static const size_t read_size[READ_FNS] = {1, 2, 2, 4, 4, 4, 8, 3, 5};

static uint64_t do_read(struct reader *r, enum read_fn fn)
{
	uint8_t out[8] = {0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE};
	float f;
	uint64_t v;

	switch (fn) {
	case READ_U8: return reader_u8(r, "f");
	case READ_U16: return reader_u16(r, "f");
	case READ_I16: return (uint16_t)reader_i16(r, "f");
	case READ_U32: return reader_u32(r, "f");
	case READ_I32: return (uint32_t)reader_i32(r, "f");
	case READ_F32:
		f = reader_f32(r, "f");
		memcpy(&v, &f, 4);
		return v & 0xFFFFFFFFu;
	case READ_U64: return reader_u64(r, "f");
	case READ_BYTES:
		if (reader_bytes(r, out, 3, "f") < 0) {
			/* nothing copied on failure */
			ck_assert_uint_eq(out[0], 0xEE);
			return 0;
		}
		return (uint64_t)out[0] << 16 | (uint64_t)out[1] << 8 | out[2];
	case READ_SKIP: return (uint64_t)(reader_skip(r, 5, "f") == 0);
	default: return 0;
	}
}

/* What each read gives at offset 0 of `bytes`, little- and big-endian. */
static uint64_t expected(enum read_fn fn, int big)
{
	uint64_t v = 0;
	size_t n = read_size[fn];

	if (fn == READ_BYTES)
		return 0x010203;
	if (fn == READ_SKIP)
		return 1;
	for (size_t i = 0; i < n; i++)
		v = v << 8 | bytes[big ? i : n - 1 - i];
	return v;
}

START_TEST(every_read_at_exactly_the_bytes_left)
{
	enum read_fn fn = (enum read_fn)(_i / 2);
	int big = _i % 2;
	size_t n = read_size[fn];
	uint8_t *data = exact(n);
	struct reader r;
	struct error err;

	error_init(&err);
	reader_init(&r, data, n, big ? BYTE_ORDER_BIG : BYTE_ORDER_LITTLE, &err);
	ck_assert_uint_eq(do_read(&r, fn), expected(fn, big));
	ck_assert(!reader_failed(&r));
	ck_assert_uint_eq(reader_remaining(&r), 0);
	ck_assert(!error_is_set(&err));
	free(data);
}
END_TEST

START_TEST(every_read_one_byte_over_fails_and_reports)
{
	enum read_fn fn = (enum read_fn)(_i / 2);
	int big = _i % 2;
	size_t n = read_size[fn] - 1;
	uint8_t *data = exact(n);
	struct reader r;
	struct error err;

	error_init(&err);
	reader_init(&r, data, n, big ? BYTE_ORDER_BIG : BYTE_ORDER_LITTLE, &err);
	ck_assert_uint_eq(do_read(&r, fn), 0);
	ck_assert(reader_failed(&r));
	ck_assert_int_eq(err.code, ERROR_MALFORMED);
	ck_assert_str_eq(err.path, "f");
	ck_assert_int_eq(err.offset, 0);
	ck_assert_msg(strstr(err.message, "needs") && strstr(err.message, "ends at"), "%s",
	              err.message);
	/* the position did not move */
	ck_assert_uint_eq(reader_remaining(&r), n);
	free(data);
}
END_TEST

START_TEST(nothing_left_fails_every_read)
{
	struct reader r;
	struct error err;

	for (int fn = 0; fn < READ_FNS; fn++) {
		error_init(&err);
		reader_init(&r, bytes, 8, BYTE_ORDER_LITTLE, &err);
		ck_assert_int_eq(reader_seek(&r, 8, "end"), 0); /* the end itself is a position */
		ck_assert_uint_eq(reader_remaining(&r), 0);
		ck_assert_uint_eq(do_read(&r, (enum read_fn)fn), 0);
		ck_assert(reader_failed(&r));
		ck_assert_int_eq(err.offset, 8);
	}
	/* an empty input */
	error_init(&err);
	reader_init(&r, NULL, 0, BYTE_ORDER_BIG, &err);
	ck_assert_uint_eq(reader_u8(&r, "first"), 0);
	ck_assert(reader_failed(&r));
	ck_assert_str_eq(err.path, "first");
	/* a zero-byte read with nothing left is fine */
	error_init(&err);
	reader_init(&r, bytes, 0, BYTE_ORDER_LITTLE, &err);
	ck_assert_int_eq(reader_skip(&r, 0, "none"), 0);
	ck_assert(!reader_failed(&r));
}
END_TEST

START_TEST(failure_is_sticky_and_the_first_error_wins)
{
	struct reader r;
	struct error err;

	error_init(&err);
	reader_init(&r, bytes, 8, BYTE_ORDER_LITTLE, &err);
	ck_assert_uint_eq(reader_u32(&r, "a"), 0x04030201u);
	ck_assert_uint_eq(reader_u64(&r, "b"), 0); /* 4 left: fails */
	ck_assert_str_eq(err.path, "b");
	ck_assert_int_eq(err.offset, 4);
	/* later reads fail too, even ones that would fit, and keep the first error */
	ck_assert_uint_eq(reader_u8(&r, "c"), 0);
	ck_assert_int_eq(reader_seek(&r, 0, "d"), -1);
	ck_assert_int_eq(reader_check_count(&r, 0, 1, "e"), -1);
	ck_assert_str_eq(err.path, "b");
	ck_assert(reader_failed(&r));
}
END_TEST

START_TEST(offsets_and_counts_near_size_max)
{
	struct reader r;
	struct error err;

	error_init(&err);
	reader_init(&r, bytes, 8, BYTE_ORDER_LITTLE, &err);
	ck_assert_int_eq(reader_seek(&r, SIZE_MAX, "far"), -1);
	ck_assert(reader_failed(&r));
	ck_assert_msg(strstr(err.message, "past the end"), "%s", err.message);
	ck_assert_int_eq(reader_seek(&(struct reader){0}, 1, NULL), -1);

	error_init(&err);
	reader_init(&r, bytes, 8, BYTE_ORDER_LITTLE, &err);
	ck_assert_int_eq(reader_seek(&r, 9, "past"), -1); /* one past the end */
	error_init(&err);
	reader_init(&r, bytes, 8, BYTE_ORDER_LITTLE, &err);
	ck_assert_int_eq(reader_seek(&r, 3, "mid"), 0);
	ck_assert_int_eq(reader_skip(&r, SIZE_MAX, "huge"), -1); /* pos + n would wrap */
	ck_assert_uint_eq(reader_remaining(&r), 5);
	error_init(&err);
	reader_init(&r, bytes, 8, BYTE_ORDER_LITTLE, &err);
	ck_assert_int_eq(reader_skip(&r, SIZE_MAX - 2, "wrap"), -1);

	/* counts: count * size must not wrap, and must fit exactly */
	error_init(&err);
	reader_init(&r, bytes, 8, BYTE_ORDER_LITTLE, &err);
	ck_assert_int_eq(reader_check_count(&r, 2, 4, "n"), 0);
	ck_assert_int_eq(reader_check_count(&r, 8, 1, "n"), 0);
	ck_assert_int_eq(reader_check_count(&r, 0, 4, "n"), 0);
	ck_assert_int_eq(reader_check_count(&r, 3, 0, "n"), 0);
	ck_assert(!reader_failed(&r));
	ck_assert_int_eq(reader_check_count(&r, 3, 3, "n"), -1); /* 9 > 8 */
	ck_assert_str_eq(err.path, "n");
	error_init(&err);
	reader_init(&r, bytes, 8, BYTE_ORDER_LITTLE, &err);
	ck_assert_int_eq(reader_check_count(&r, UINT64_MAX, 2, "wraps"), -1);
	error_init(&err);
	reader_init(&r, bytes, 8, BYTE_ORDER_LITTLE, &err);
	ck_assert_int_eq(reader_check_count(&r, ((uint64_t)1 << 63) + 1, 2, "wraps"), -1);
	error_init(&err);
	reader_init(&r, bytes, 8, BYTE_ORDER_LITTLE, &err);
	ck_assert_int_eq(reader_check_count(&r, 1, SIZE_MAX, "wide"), -1);
	/* counted from the position, not the start */
	error_init(&err);
	reader_init(&r, bytes, 8, BYTE_ORDER_LITTLE, &err);
	reader_u16(&r, "x");
	ck_assert_int_eq(reader_check_count(&r, 3, 2, "n"), 0);
	ck_assert_int_eq(reader_check_count(&r, 4, 2, "n"), -1);
}
END_TEST

START_TEST(byte_orders_and_signs)
{
	static const uint8_t neg[4] = {0xFF, 0xFE, 0x80, 0x00};
	struct reader r;

	reader_init(&r, neg, 4, BYTE_ORDER_LITTLE, NULL);
	ck_assert_int_eq(reader_i16(&r, NULL), -257);
	ck_assert_int_eq(reader_i16(&r, NULL), 128);
	reader_init(&r, neg, 4, BYTE_ORDER_BIG, NULL);
	ck_assert_int_eq(reader_i16(&r, NULL), -2);
	ck_assert_int_eq(reader_i16(&r, NULL), -32768);
	reader_init(&r, neg, 4, BYTE_ORDER_BIG, NULL);
	ck_assert_int_eq(reader_i32(&r, NULL), (int32_t)0xFFFE8000u);
	reader_init(&r, (const uint8_t[]){0x3F, 0x80, 0, 0}, 4, BYTE_ORDER_BIG, NULL);
	ck_assert_float_eq(reader_f32(&r, NULL), 1.0f);
	reader_init(&r, (const uint8_t[]){0, 0, 0x80, 0x3F}, 4, BYTE_ORDER_LITTLE, NULL);
	ck_assert_float_eq(reader_f32(&r, NULL), 1.0f);
	reader_init(&r, bytes, 8, BYTE_ORDER_BIG, NULL);
	ck_assert_uint_eq(reader_u64(&r, NULL), 0x0102030405060708ull);
	reader_init(&r, bytes, 8, BYTE_ORDER_LITTLE, NULL);
	ck_assert_uint_eq(reader_u64(&r, NULL), 0x0807060504030201ull);
	/* a NULL error struct is allowed */
	ck_assert_uint_eq(reader_u8(&r, NULL), 0);
	ck_assert(reader_failed(&r));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("bounds");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, every_read_at_exactly_the_bytes_left, 0, READ_FNS * 2);
	tcase_add_loop_test(tc, every_read_one_byte_over_fails_and_reports, 0, READ_FNS * 2);
	tcase_add_test(tc, nothing_left_fails_every_read);
	tcase_add_test(tc, failure_is_sticky_and_the_first_error_wins);
	tcase_add_test(tc, offsets_and_counts_near_size_max);
	tcase_add_test(tc, byte_orders_and_signs);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
