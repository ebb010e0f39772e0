/* check_native_file.c: what a file written back says around its keys (formats/native.h): a
 * new BFF0 header's platform byte follows the byte order written; an Animation_Z's maxTime
 * covers keys past the template's last time; a Radient clip document keeps every float32
 * exactly, with 8 or 9 digits where the shortest text needs them. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "formats/native.h"
#include "testutil.h"
#include "zouna_writer.h"

static const struct native_options defaults = {.byte_order = -1, .bff = -1};

/* A bare Animation_Z (no BFF0 header) written with a 16-byte header in the other byte order:
 * byte 6 is the platform, 5 (PS3) for big-endian and 0 (PC) for little, whatever the
 * template's order was. */
START_TEST(a_new_bff0_header_names_the_platform_of_the_order_written)
{
	struct zbuf b;
	struct decode_result r;
	struct native_file f;
	struct native_options opt = defaults;
	struct error err;
	struct resource *res;
	uint32_t bone[3];
	int big = _i;

	zouna_write_example_animation(&b, big, 0, 1.5f, bone);
	res = testutil_zouna_decode(b.data, b.len, "Animation_Z", &r);
	opt.bff = 16;
	opt.byte_order = !big;
	ck_assert_msg(testutil_zouna_native(b.data, b.len, "Animation_Z", res, &opt, &f, &err) == 0,
	              "%s", err.message);
	ck_assert_uint_eq(f.length, b.len + 16);
	ck_assert_int_eq(memcmp(f.bytes, "BFF0", 4), 0);
	ck_assert_int_eq(f.bytes[6], big ? 0 : 5);
	native_file_cleanup(&f);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* A key moved past the template's maxTime: the file's maxTime (the entry's duration once
 * decoded) reaches it. */
START_TEST(max_time_covers_keys_past_the_templates_last)
{
	struct zbuf b;
	struct decode_result r, back;
	struct native_file f;
	struct error err;
	struct resource *res, *again;
	struct sampler *s = NULL;
	uint32_t bone[3];
	float late;

	zouna_write_example_animation(&b, 0, 0, 1.5f, bone);
	res = testutil_zouna_decode(b.data, b.len, "Animation_Z", &r);
	for (size_t c = 0; c < res->clip.channel_count && !s; c++)
		if (res->clip.channels[c].property == NODE_TRANSLATION)
			s = &res->clip.samplers[res->clip.channels[c].sampler];
	ck_assert_ptr_nonnull(s);
	late = res->clip.duration + 1.25f;
	s->times[s->key_count - 1] = late;
	ck_assert_msg(
	    testutil_zouna_native(b.data, b.len, "Animation_Z", res, &defaults, &f, &err) == 0,
	    "%s", err.message);
	again = testutil_zouna_decode(f.bytes, f.length, "Animation_Z", &back);
	ck_assert_msg(again->clip.duration >= late, "maxTime %g, the last key at %g",
	              (double)again->clip.duration, (double)late);
	native_file_cleanup(&f);
	decode_result_cleanup(&back);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

static struct resource *decode_clip(const char *text, size_t length, struct decode_result *r)
{
	struct upload up = {0};
	struct error err;

	up.data = (const uint8_t *)text;
	up.length = length;
	up.family = "radient";
	decode_result_init(r);
	error_init(&err);
	ck_assert_msg(format_decode(&up, r, &err) == 0, "%s", err.message);
	return r->resources[0];
}

/* Values a float32 holds that need 8 and 9 significant digits (0.1's neighbours, 1/3, two
 * that only 9 digits tell apart) written into a clip document come back bit for bit. */
START_TEST(a_clip_document_keeps_every_float32)
{
	static const char *const tmpl =
	    "{\"name\": \"t\", \"duration\": 1, \"targets\": [{\"schema\": \"" SCHEMA_NODE
	    "\", \"object\": 0, \"name\": \"a\"}], \"samplers\": [{\"value\": {\"type\": "
	    "\"FLOAT3\"}, \"times\": [0, 1], \"values\": [0, 0, 0, 1, 1, 1]}], \"channels\": "
	    "[{\"target\": 0, \"property\": 1, \"sampler\": 0}]}";
	/* 0.100246795 and 0.101604156 need 9 digits: 0.1002468 reads back as another float */
	const float want[6] = {nextafterf(0.1f, 1), nextafterf(0.1f, 0), 1.0f / 3,
	                       0.100246795f,        0.101604156f,        -2.7182817f};
	struct decode_result t, e, back;
	struct native_file f;
	struct error err;
	struct resource *entry, *again;
	struct upload tu = {0};
	float *v, *got;

	decode_clip(tmpl, strlen(tmpl), &t);
	entry = decode_clip(tmpl, strlen(tmpl), &e);
	v = entry->clip.samplers[0].values;
	memcpy(v, want, sizeof(want));
	tu.data = (const uint8_t *)tmpl;
	tu.length = strlen(tmpl);
	tu.family = "radient";
	error_init(&err);
	ck_assert_msg(native_radient(&tu, entry, &defaults, &f, &err) == 0, "%s", err.message);
	again = decode_clip((const char *)f.bytes, f.length, &back);
	got = again->clip.samplers[0].values;
	for (int i = 0; i < 6; i++)
		ck_assert_msg(memcmp(&got[i], &want[i], sizeof(float)) == 0,
		              "value %d: %.9g written, %.9g read back (%.*s)", i, (double)want[i],
		              (double)got[i], (int)f.length, (const char *)f.bytes);
	native_file_cleanup(&f);
	decode_result_cleanup(&back);
	decode_result_cleanup(&e);
	decode_result_cleanup(&t);
}
END_TEST

/* An entry whose track has the template's values but another interpolation (STEP for a
 * linear keyframer) is a change, refused by the class, not the template's bytes kept. */
START_TEST(another_interpolation_is_a_change)
{
	static const struct zkey keys[2] = {{.time = 0, .v = {0.5f}}, {.time = 1, .v = {1}}};
	struct zbuf b;
	struct decode_result r;
	struct native_file f;
	struct error err;
	struct resource *res;

	zbuf_init(&b, 0);
	ck_assert_int_eq(zouna_write_keyframer(&b, "KeyframerFloatLinearComp_Z", 0, keys, 2, 0), 0);
	res = testutil_zouna_decode(b.data, b.len, "KeyframerFloatLinearComp_Z", &r);
	ck_assert_int_eq(res->clip.samplers[0].interp, INTERP_LINEAR);
	res->clip.samplers[0].interp = INTERP_STEP;
	ck_assert_int_eq(testutil_zouna_native(b.data, b.len, "KeyframerFloatLinearComp_Z", res,
	                                       &defaults, &f, &err),
	                 -1);
	ck_assert_msg(strstr(err.message, "stepped track"), "%s", err.message);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("native_file");
	TCase *tc = tcase_create("file");

	tcase_add_loop_test(tc, a_new_bff0_header_names_the_platform_of_the_order_written, 0, 2);
	tcase_add_test(tc, max_time_covers_keys_past_the_templates_last);
	tcase_add_test(tc, a_clip_document_keeps_every_float32);
	tcase_add_test(tc, another_interpolation_is_a_change);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
