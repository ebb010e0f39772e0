/* check_render.c: float32 text is the shortest that reads back as the same float. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

/* The obviously right and slow way: the shortest %.Ng that reads back. */
static void slow(float f, char *out)
{
	for (int p = 1; p < 9; p++) {
		snprintf(out, 32, "%.*g", p, (double)f);
		if (strtof(out, NULL) == f)
			return;
	}
	snprintf(out, 32, "%.9g", (double)f);
}

/* Significant digits of a decimal text: leading and trailing zeros of the digits dropped. */
static int significant(const char *s)
{
	char d[40];
	int m = 0, i = 0, j;

	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9')
			d[m++] = *s;
	while (i < m && d[i] == '0')
		i++;
	for (j = m; j > i && d[j - 1] == '0'; j--)
		;
	return j - i;
}

START_TEST(random_floats_round_trip_with_the_fewest_digits)
{
	unsigned seed = 20261130;
	long checked = 0;
	char fast[32], ref[32];

	for (long i = 0; i < 1000000; i++) {
		uint32_t bits = (uint32_t)rand_r(&seed) * 2654435761u ^ (uint32_t)rand_r(&seed);
		float f;
		memcpy(&f, &bits, 4);
		if (!isfinite(f))
			continue;
		render_float(f, 0, fast);
		slow(f, ref);
		ck_assert_msg(strtof(fast, NULL) == f || (f == 0 && strtof(fast, NULL) == 0),
		              "%a: '%s' does not read back", (double)f, fast);
		ck_assert_msg(significant(fast) <= significant(ref), "%a: '%s' is longer than '%s'",
		              (double)f, fast, ref);
		checked++;
	}
	ck_assert_int_gt(checked, 900000);
}
END_TEST

START_TEST(known_texts)
{
	static const struct {
		float f;
		const char *text;
	} cases[] = {{0.1f, "0.1"},
	             {1.0f, "1"},
	             {-2.5f, "-2.5"},
	             {1e-7f, "1e-7"},
	             {0.00001f, "0.00001"},
	             {123456792.0f, "123456790"},
	             {1e10f, "1e10"},
	             {3.4028235e38f, "3.4028235e38"},
	             {1.4e-45f, "1e-45"},
	             {-0.0f, "0"},
	             {0.707106769f, "0.70710677"},
	             {0.000012345f, "0.000012345"},
	             {-0.001f, "-0.001"},
	             {100.0f, "100"},
	             {-123456784.0f, "-123456780"},
	             {12345.678f, "12345.678"},
	             {-1.17549435e-38f, "-1.1754944e-38"},
	             {2.5e-6f, "2.5e-6"},
	             {-3e21f, "-3e21"},
	             {987654336.0f, "987654340"},
	             {9.8765434e9f, "9.876543e9"}};
	char out[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		render_float(cases[i].f, 0, out);
		ck_assert_str_eq(out, cases[i].text);
	}
	ck_assert_uint_eq(render_float(NAN, 0, out), 4);
	ck_assert_str_eq(out, "null");
	render_float(0.123456f, 2, out);
	ck_assert_str_eq(out, "0.12");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("render");
	TCase *tc = tcase_create("floats");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, random_floats_round_trip_with_the_fewest_digits);
	tcase_add_test(tc, known_texts);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
