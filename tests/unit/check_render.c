/* check_render.c: float32 text is the shortest that reads back as the same float; stored texts
 * are what jansson writes. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "render/render.h"

/* The obviously right and slow way: the shortest %.Ng that reads back (glibc rounds the
 * float's exact value, so of that length it is the closest to it). */
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
		/* as short: the same decimal, the one of that length closest to f */
		ck_assert_msg(significant(fast) < significant(ref) ||
		                  strtod(fast, NULL) == strtod(ref, NULL),
		              "%a: '%s' is not the closest, '%s' is", (double)f, fast, ref);
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
	             {9.8765434e9f, "9.876543e9"},
	             /* powers of two: the float below is closer than the one above */
	             {0x1p-127f, "5.877472e-39"},
	             {0x1p-20f, "9.536743e-7"},
	             {0x1p30f, "1.0737418e9"},
	             {0x1p67f, "1.4757395e20"},
	             {0x1p100f, "1.2676506e30"},
	             {0x1.fffffep99f, "1.2676505e30"},
	             {0x1p127f, "1.7014118e38"}};
	char out[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		render_float(cases[i].f, 0, out);
		ck_assert_str_eq(out, cases[i].text);
	}
	ck_assert_uint_eq(render_float(NAN, 0, out), 4);
	ck_assert_str_eq(out, "null");
	render_float(0.123456f, 2, out);
	ck_assert_str_eq(out, "0.12");
	/* digits=9: nine significant digits, not the shortest text that reads back */
	render_float(0.1f, 9, out);
	ck_assert_str_eq(out, "0.100000001");
	render_float(0.1f, 8, out);
	ck_assert_str_eq(out, "0.1");
}
END_TEST

/* The two steps, for runs of every length up to 64 of random bit patterns (zeros, infinities,
 * NaNs and subnormals among them), give each float render_float's text. */
START_TEST(runs_of_decimals_give_each_float_its_text)
{
	uint64_t state = 20261202;
	float v[64];
	struct float_decimal dec[64];
	char one[32], run[32];

	for (int r = 0; r < 20000; r++) {
		size_t n = 1 + (size_t)(r % 64);
		for (size_t i = 0; i < n; i++) {
			uint32_t bits;
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			bits = (uint32_t)(state >> 32);
			if (i % 7 == 3) /* the edges: zeros, subnormals, infinities, NaNs */
				bits = (bits & 0x807FFFFFu) | (bits & 1 ? 0x7F800000u : 0);
			memcpy(&v[i], &bits, 4);
		}
		render_float_decimals(v, n, dec);
		for (size_t i = 0; i < n; i++) {
			size_t length = render_float_text(v[i], dec[i], run);
			ck_assert_uint_eq(length, strlen(run));
			render_float(v[i], 0, one);
			ck_assert_msg(strcmp(one, run) == 0, "%a: '%s' in a run, '%s' alone",
			              (double)v[i], run, one);
		}
	}
}
END_TEST

/* Random JSON for the stored-text comparison: every kind of value, strings of every kind
 * of character (control characters, quotes, backslashes, slashes, DEL, two- to four-byte
 * UTF-8, NUL), reals from random bit patterns and from the edges of %.17g. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static size_t random_text(uint64_t *rng, char *out, int allow_nul)
{
	static const char *const pieces[] = {
	    "a",  "Z",  "0",  " ",  "\"",   "\\",   "/",        "\x7f",         "\n",
	    "\r", "\t", "\b", "\f", "\x01", "\x1f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
	    "u",  "e"};
	size_t n = 0, count = next_random(rng) % 12;

	for (size_t i = 0; i < count; i++) {
		if (allow_nul && next_random(rng) % 16 == 0) {
			out[n++] = '\0';
			continue;
		}
		const char *p = pieces[next_random(rng) % (sizeof(pieces) / sizeof(*pieces))];
		memcpy(out + n, p, strlen(p));
		n += strlen(p);
	}
	out[n] = '\0';
	return n;
}

static double random_real(uint64_t *rng)
{
	static const double edges[] = {0.0,     -0.0, 1.0,   0.1,    1e21,   1e22,
	                               1e-5,    1e-7, 1e300, 5e-324, 2.5e-8, 123456789012345678.0,
	                               1.9144f, 0.1f, -3.75, 1e100,  1e-100, 9007199254740993.0};
	uint64_t bits = next_random(rng);
	double d;

	switch (next_random(rng) % 3) {
	case 0: return edges[next_random(rng) % (sizeof(edges) / sizeof(*edges))];
	case 1: {
		uint32_t fbits = (uint32_t)bits;
		float f;
		memcpy(&f, &fbits, sizeof(f));
		return isfinite(f) ? (double)f : 1.5;
	}
	default: memcpy(&d, &bits, sizeof(d)); return isfinite(d) ? d : -2.25;
	}
}

static json_t *random_json(uint64_t *rng, int depth)
{
	char text[128];
	size_t n;

	switch (next_random(rng) % (depth < 4 ? 9 : 7)) {
	case 0: n = random_text(rng, text, 1); return json_stringn(text, n);
	case 1: return json_integer((json_int_t)next_random(rng) >> (next_random(rng) % 64));
	case 2:
		return json_integer(next_random(rng) % 2 ? INT64_MIN
		                                         : -(json_int_t)(next_random(rng) % 1000));
	case 3: return json_real(random_real(rng));
	case 4: return json_true();
	case 5: return next_random(rng) % 2 ? json_false() : json_null();
	case 6: /* now and then, bytes that are not UTF-8: jansson refuses to write them */
		if (next_random(rng) % 50 == 0)
			return json_stringn_nocheck("a\xff", 2);
		n = random_text(rng, text, 0);
		return json_stringn(text, n);
	case 7: {
		json_t *o = json_object();
		for (uint64_t i = next_random(rng) % 6; i > 0; i--) {
			random_text(rng, text, 0);
			json_object_set_new(o, text, random_json(rng, depth + 1));
		}
		return o;
	}
	default: {
		json_t *a = json_array();
		for (uint64_t i = next_random(rng) % 6; i > 0; i--)
			json_array_append_new(a, random_json(rng, depth + 1));
		return a;
	}
	}
}

START_TEST(stored_texts_are_what_jansson_writes)
{
	uint64_t rng = 0x9e3779b97f4a7c15u;
	size_t compared = 0, refused = 0;
	json_t *scalar = json_string("x");

	for (int i = 0; i < 20000; i++) {
		json_t *top = next_random(&rng) % 2 ? json_object() : json_array();
		for (uint64_t k = 1 + next_random(&rng) % 6; k > 0; k--) {
			char key[128];
			random_text(&rng, key, 0);
			if (json_is_object(top))
				json_object_set_new(top, key, random_json(&rng, 1));
			else
				json_array_append_new(top, random_json(&rng, 1));
		}
		char *want = json_dumps(top, JSON_COMPACT), *got = render_json_stored(top);
		if (want) {
			ck_assert_msg(got != NULL, "refused what jansson writes: %s", want);
			ck_assert_str_eq(got, want);
			compared++;
		} else {
			ck_assert_msg(got == NULL, "wrote what jansson refuses: %s", got);
			refused++;
		}
		free(want);
		free(got);
		json_decref(top);
	}
	/* jansson writes only objects and arrays */
	ck_assert_ptr_null(render_json_stored(scalar));
	json_decref(scalar);
	ck_assert_uint_gt(compared, 15000);
	ck_assert_uint_gt(refused, 10);
}
END_TEST

/* A name, or NULL; now and then with a byte that is not UTF-8. */
static char *random_name(uint64_t *rng)
{
	char text[160];
	size_t n;

	if (next_random(rng) % 4 == 0)
		return NULL;
	n = random_text(rng, text, 0);
	if (next_random(rng) % 40 == 0)
		text[n++] = '\xff', text[n] = '\0';
	return strdup(text);
}

static float random_time(uint64_t *rng)
{
	static const float edges[] = {0.0f, 0.1f, 1.9144f, 1.0f / 3.0f, 1e-7f, 3.4e38f, 12.5f};
	if (next_random(rng) % 60 == 0)
		return next_random(rng) % 2 ? NAN : INFINITY;
	return edges[next_random(rng) % (sizeof(edges) / sizeof(*edges))];
}

static uint64_t random_u64(uint64_t *rng)
{
	uint64_t v = next_random(rng);
	return next_random(rng) % 3 ? v % 100000 : v; /* above 2^63 - 1 half the time */
}

/* A resource of every shape render_structure knows, and some it refuses. */
static struct resource *random_resource(uint64_t *rng)
{
	struct resource *res = resource_create("radient", "RadientAnimationClip");
	struct clip *c = &res->clip;
	static const double durations[] = {0.0, 1.0 / 3.0, 1e-7, 1e30, 12.5, 0.033333335071802139};

	c->name = random_name(rng);
	c->duration = next_random(rng) % 50 == 0
	                  ? NAN
	                  : durations[next_random(rng) % (sizeof(durations) / sizeof(*durations))];
	c->target_count = next_random(rng) % 4;
	c->targets = calloc(c->target_count + 1, sizeof(*c->targets));
	for (size_t i = 0; i < c->target_count; i++) {
		char *schema = random_name(rng);
		snprintf(c->targets[i].schema, sizeof(c->targets[i].schema), "%s",
		         schema ? schema : "E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3");
		free(schema);
		c->targets[i].object = random_u64(rng);
		c->targets[i].name = random_name(rng);
	}
	c->sampler_count = next_random(rng) % 4;
	c->samplers = calloc(c->sampler_count + 1, sizeof(*c->samplers));
	for (size_t i = 0; i < c->sampler_count; i++) {
		struct sampler *sm = &c->samplers[i];
		sm->type = (enum value_type)(next_random(rng) % VALUE_TYPE_COUNT);
		sm->array_size = 1 + (uint32_t)(next_random(rng) % 3);
		sm->interp = (enum interpolation)(next_random(rng) % 3);
		sm->semantic = (enum semantic)(next_random(rng) % 2);
		sm->key_count = 1 + (uint32_t)(next_random(rng) % 4);
		sm->times = malloc(sm->key_count * sizeof(float));
		for (uint32_t k = 0; k < sm->key_count; k++)
			sm->times[k] = random_time(rng);
		sm->value_bytes = (size_t)(next_random(rng) % 100000);
	}
	c->channel_count = next_random(rng) % 4;
	c->channels = calloc(c->channel_count + 1, sizeof(*c->channels));
	for (size_t i = 0; i < c->channel_count; i++) {
		c->channels[i].target = (uint32_t)next_random(rng);
		c->channels[i].property = random_u64(rng);
		c->channels[i].first_element = (uint32_t)(next_random(rng) % 5);
		c->channels[i].sampler = (uint32_t)(next_random(rng) % 4);
	}
	if (next_random(rng) % 3 == 0) {
		res->metadata = json_object();
		json_object_set_new(res->metadata, "header", random_json(rng, 1));
		json_object_set_new(res->metadata, "count",
		                    json_integer((json_int_t)(next_random(rng) % 9)));
	}
	return res;
}

START_TEST(the_stored_structure_is_the_tree_written)
{
	uint64_t rng = 0x2545f4914f6cdd1du;
	size_t compared = 0, refused = 0;

	for (int i = 0; i < 20000; i++) {
		struct resource *res = random_resource(&rng);
		json_t *tree = render_structure(res);
		char *want = tree ? render_json_stored(tree) : NULL,
		     *got = render_structure_stored(res);
		if (want) {
			ck_assert_msg(got != NULL, "no text where the tree gives %s", want);
			ck_assert_str_eq(got, want);
			compared++;
		} else {
			ck_assert_msg(got == NULL, "a text where the tree gives none: %s", got);
			refused++;
		}
		free(want);
		free(got);
		json_decref(tree);
		resource_free(res);
	}
	ck_assert_uint_gt(compared, 15000);
	ck_assert_uint_gt(refused, 10);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("render");
	TCase *tc = tcase_create("floats");
	SRunner *sr;
	int failed;

	/* a million floats against a slow reference: a minute alone, several on a loaded machine
	 * (under the sanitizers beside other builds); the bound is for a test that hangs */
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, random_floats_round_trip_with_the_fewest_digits);
	tcase_add_test(tc, known_texts);
	tcase_add_test(tc, runs_of_decimals_give_each_float_its_text);
	tcase_add_test(tc, stored_texts_are_what_jansson_writes);
	tcase_add_test(tc, the_stored_structure_is_the_tree_written);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
