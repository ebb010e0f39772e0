/* check_hash.c: Asobo32 and Burnout CRC-32 test vectors (doc/formats.md 1.6, 2.4), handle parsing,
 * SHA-256 (FIPS 180-4 examples), base64. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "base/hash.h"

static uint32_t asobo(const char *s)
{
	return hash_asobo32(s, strlen(s));
}

static uint32_t crc(const char *s)
{
	return hash_crc32_lower(s, strlen(s));
}

START_TEST(asobo32_vectors)
{
	ck_assert_uint_eq(asobo(""), 0x00000000u);
	ck_assert_uint_eq(asobo("a"), 0xA864DB20u);
	ck_assert_uint_eq(asobo("A"), 0xA864DB20u);
	ck_assert_uint_eq(asobo("123456789"), 0xF014556Bu);
	ck_assert_uint_eq(asobo("Animation_Z"), 0x46107D89u);
	ck_assert_uint_eq(asobo("Animation_Z"), 1175485833u);
	ck_assert_uint_eq(asobo("MaterialAnim_Z"), 3834418854u);
	ck_assert_uint_eq(asobo("Rtc_Z"), 705810152u);
	ck_assert_uint_eq(asobo("KeyframerRot_Z"), 0x119D99BDu);
}
END_TEST

START_TEST(burnout_crc32_vectors)
{
	ck_assert_uint_eq(crc("123456789"), 0xCBF43926u);
	ck_assert_uint_eq(crc("pusmc01_vanm"), 0x2CE66AC1u);
	ck_assert_uint_eq(crc("PUSMC01_VANM"), 0x2CE66AC1u);
	ck_assert_uint_eq(crc("carbb1gt_vanm"), 0xECC975F6u);
	ck_assert_uint_eq(crc(""), 0u);
}
END_TEST

START_TEST(crc32_of_long_names_is_chunk_independent)
{
	char name[1000];
	memset(name, 'Q', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	/* the same bytes lower-cased by hand */
	char lower[1000];
	memset(lower, 'q', sizeof(lower) - 1);
	lower[sizeof(lower) - 1] = '\0';
	ck_assert_uint_eq(crc(name), crc(lower));
	ck_assert_uint_ne(crc(name), 0);
}
END_TEST

START_TEST(handle_parsing)
{
	uint32_t v;
	ck_assert_int_eq(hash_parse_handle("0x1A2B3C4D", &v), 0);
	ck_assert_uint_eq(v, 0x1A2B3C4Du);
	ck_assert_int_eq(hash_parse_handle("0x1a2b3c4d", &v), 0);
	ck_assert_uint_eq(v, 0x1A2B3C4Du);
	ck_assert_int_eq(hash_parse_handle("1175485833", &v), 0);
	ck_assert_uint_eq(v, 0x46107D89u);
	ck_assert_int_eq(hash_parse_handle("4294967295", &v), 0);
	ck_assert_uint_eq(v, 0xFFFFFFFFu);
	ck_assert_int_eq(hash_parse_handle("-1", &v), 0);
	ck_assert_uint_eq(v, 0xFFFFFFFFu);
	ck_assert_int_eq(hash_parse_handle("-2147483648", &v), 0);
	ck_assert_uint_eq(v, 0x80000000u);
	ck_assert_int_eq(hash_parse_handle("4294967296", &v), -1);
	ck_assert_int_eq(hash_parse_handle("-2147483649", &v), -1);
	ck_assert_int_eq(hash_parse_handle("0x100000000", &v), -1);
	ck_assert_int_eq(hash_parse_handle("0x", &v), -1);
	ck_assert_int_eq(hash_parse_handle("0x-1", &v), -1);
	ck_assert_int_eq(hash_parse_handle("12ab", &v), -1);
	ck_assert_int_eq(hash_parse_handle("", &v), -1);
}
END_TEST

START_TEST(sha256_vectors)
{
	char hex[SHA256_HEX_SIZE];
	char *million = malloc(1000000);
	struct sha256 s;
	uint8_t d[32];

	sha256_hex("", 0, hex);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, hex);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', 1000000);
	sha256_hex(million, 1000000, hex);
	ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* streaming in odd pieces gives the same digest */
	sha256_init(&s);
	for (size_t off = 0; off < 1000000;) {
		size_t n = (off * 7 + 13) % 1000 + 1;
		if (n > 1000000 - off)
			n = 1000000 - off;
		sha256_update(&s, million + off, n);
		off += n;
	}
	sha256_final(&s, d);
	ck_assert_uint_eq(d[0], 0xcd);
	ck_assert_uint_eq(d[31], 0xd0);
	free(million);
}
END_TEST

START_TEST(base64_decoding)
{
	size_t len, bad;
	uint8_t *out = base64_decode("AACAPw==", 8, &len, &bad);
	float f;

	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(len, 4);
	memcpy(&f, out, 4);
	ck_assert_float_eq(f, 1.0f);
	free(out);
	out = base64_decode("AACAPw", 6, &len, &bad);
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(len, 4);
	free(out);
	ck_assert_ptr_null(base64_decode("AA*APw==", 8, &len, &bad));
	ck_assert_uint_eq(bad, 2);
	ck_assert_ptr_null(base64_decode("A", 1, &len, &bad));
}
END_TEST

static Suite *hash_suite(void)
{
	Suite *s = suite_create("hash");
	TCase *tc = tcase_create("vectors");

	tcase_add_test(tc, asobo32_vectors);
	tcase_add_test(tc, burnout_crc32_vectors);
	tcase_add_test(tc, crc32_of_long_names_is_chunk_independent);
	tcase_add_test(tc, handle_parsing);
	tcase_add_test(tc, sha256_vectors);
	tcase_add_test(tc, base64_decoding);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hash_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
