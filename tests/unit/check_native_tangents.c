/* check_native_tangents.c: tangents a compressed class cannot hold (formats/native.h, issue 44
 * item 4). A Hermite segment whose per-segment tangents pass the class's 16-bit range is split
 * at its middle, with a key there holding the curve's value and slope, until every half fits:
 * the file written is the same curve to within the class's rounding, and the report says how
 * many keys were added. What no split can hold is refused with advice for its container: an
 * Animation_Z's classes are the engine's (no promote=1), a bare keyframer's may be promoted. */
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

static struct resource *decoded(const uint8_t *data, size_t length, const char *class_name,
                                struct decode_result *r)
{
	return testutil_zouna_decode(data, length, class_name, r);
}

static int native_of(const struct zbuf *tmpl, const char *class_name, const struct resource *source,
                     const struct native_options *opt, struct native_file *out, struct error *err)
{
	return testutil_zouna_native(tmpl->data, tmpl->len, class_name, source, opt, out, err);
}

/* Channel n's per-second out-tangent of key 0 and in-tangent of key 1, component j (cubic:
 * [in, value, out] a key). */
static void set_tangents(struct resource *res, size_t n, uint32_t comps, uint32_t j, float out0,
                         float in1)
{
	struct sampler *s = &res->clip.samplers[res->clip.channels[n].sampler];
	float *v = s->values;

	ck_assert_int_eq(s->interp, INTERP_CUBIC_SPLINE);
	v[0 * 3 * comps + 2 * comps + j] = out0;
	v[1 * 3 * comps + 0 * comps + j] = in1;
}

/* The file written samples as the entry does, track n, across its first segment. */
static void assert_same_curve(const struct resource *want, const struct resource *got, size_t n,
                              uint32_t comps, double tolerance)
{
	const struct sampler *s = &want->clip.samplers[want->clip.channels[n].sampler];
	float t0 = s->times[0], t1 = s->times[1];

	for (int i = 0; i <= 64; i++) {
		float t = t0 + (t1 - t0) * (float)i / 64, a[4], b[4];
		testutil_sample(want, n, t, a);
		testutil_sample(got, n, t, b);
		for (uint32_t j = 0; j < comps; j++)
			ck_assert_msg(fabs((double)a[j] - b[j]) <= tolerance,
			              "t=%g component %u: the entry's %.7g, the file's %.7g",
			              (double)t, j, (double)a[j], (double)b[j]);
	}
}

/* The report's row of the first track written (not kept). */
static json_t *written_row(const struct native_file *f)
{
	size_t i;
	json_t *row;

	json_array_foreach(json_object_get(f->report, "tracks"), i, row)
	{
		if (json_is_false(json_object_get(row, "kept")))
			return row;
	}
	return NULL;
}

/* Animation_Z: the first translation's segment gets tangents of 30 and -20 per second over
 * 0.25 s (7.5 and -5 per segment, within 7.99976) and then over longer segments past it. */
START_TEST(an_animation_z_segment_is_split_until_its_tangents_fit)
{
	struct zbuf b;
	struct decode_result r, back;
	struct native_file f;
	struct error err;
	struct resource *res, *again;
	uint32_t bone[3];
	long n = -1;
	json_t *row, *split;

	zouna_write_example_animation(&b, 0, 0, 1.5f, bone);
	res = decoded(b.data, b.len, "Animation_Z", &r);
	for (size_t c = 0; c < res->clip.channel_count; c++)
		if (res->clip.channels[c].property == NODE_TRANSLATION && n < 0)
			n = (long)c;
	ck_assert_int_ge(n, 0);
	set_tangents(res, (size_t)n, 3, 1, 30.0f, -20.0f);
	ck_assert_msg(native_of(&b, "Animation_Z", res, &defaults, &f, &err) == 0, "%s",
	              err.message);
	row = written_row(&f);
	ck_assert_ptr_nonnull(row);
	split = json_object_get(row, "split");
	ck_assert_msg(split && json_integer_value(json_object_get(split, "keys_added")) >= 1, "%s",
	              json_dumps(row, 0));
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(split, "note")), "same curve"));
	again = decoded(f.bytes, f.length, "Animation_Z", &back);
	/* a compressed class rounds values and tangents to 1/4096: the curve within a few steps */
	assert_same_curve(res, again, (size_t)n, 3, 4.0 / 4096);
	{
		/* the track written has the keys added, and its other segments are untouched */
		const struct sampler *s = &res->clip.samplers[res->clip.channels[n].sampler];
		const struct sampler *w = &again->clip.samplers[again->clip.channels[n].sampler];
		ck_assert_uint_eq(w->key_count, s->key_count + json_integer_value(json_object_get(
		                                                   split, "keys_added")));
		ck_assert_float_eq(w->times[w->key_count - 1], s->times[s->key_count - 1]);
	}
	native_file_cleanup(&f);
	decode_result_cleanup(&back);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(what_no_split_holds_is_refused_with_advice_for_its_container)
{
	struct zbuf b;
	struct decode_result r;
	struct native_file f;
	struct error err;
	struct resource *res;
	uint32_t bone[3];
	long n = -1;
	float *v;

	zouna_write_example_animation(&b, 0, 0, 1.5f, bone);
	res = decoded(b.data, b.len, "Animation_Z", &r);
	for (size_t c = 0; c < res->clip.channel_count; c++)
		if (res->clip.channels[c].property == NODE_TRANSLATION && n < 0)
			n = (long)c;
	/* a tangent no halving brings in (3e30 per second), and then a value past the class */
	set_tangents(res, (size_t)n, 3, 0, 3e30f, 0);
	ck_assert_int_eq(native_of(&b, "Animation_Z", res, &defaults, &f, &err), -1);
	ck_assert_int_eq(err.code, ERROR_VALUE_OUT_OF_RANGE);
	ck_assert_msg(strstr(err.message, "out-tangent") && strstr(err.message, "split") &&
	                  strstr(err.message, "engine") && !strstr(err.message, "promote"),
	              "%s", err.message);
	set_tangents(res, (size_t)n, 3, 0, 0, 0);
	v = res->clip.samplers[res->clip.channels[n].sampler].values;
	v[1 * 9 + 3 + 2] = 9.5f; /* key 1's z: beyond 32767 / 4096 */
	ck_assert_int_eq(native_of(&b, "Animation_Z", res, &defaults, &f, &err), -1);
	ck_assert_msg(strstr(err.message, "key 1") && strstr(err.message, "engine") &&
	                  !strstr(err.message, "promote") && !strstr(err.message, "split"),
	              "%s", err.message);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* A bare KeyframerFloatComp_Z: split the same way; a value past it names promote=1. */
START_TEST(a_bare_keyframer_is_split_and_may_be_promoted)
{
	static const struct zkey keys[3] = {
	    {.time = 0, .v = {0.5f}}, {.time = 1, .v = {1}}, {.time = 2, .v = {0.25f}}};
	struct zbuf b;
	struct decode_result r, back;
	struct native_file f;
	struct error err;
	struct resource *res, *again;
	json_t *row;

	zbuf_init(&b, 0);
	ck_assert_int_eq(zouna_write_keyframer(&b, "KeyframerFloatComp_Z", 0, keys, 3, 0), 0);
	res = decoded(b.data, b.len, "KeyframerFloatComp_Z", &r);
	set_tangents(res, 0, 1, 0, -40.0f, 25.0f);
	ck_assert_msg(native_of(&b, "KeyframerFloatComp_Z", res, &defaults, &f, &err) == 0, "%s",
	              err.message);
	row = written_row(&f);
	ck_assert_int_ge(
	    json_integer_value(json_object_get(json_object_get(row, "split"), "keys_added")), 2);
	again = decoded(f.bytes, f.length, "KeyframerFloatComp_Z", &back);
	assert_same_curve(res, again, 0, 1, 4.0 / 4096);
	native_file_cleanup(&f);
	decode_result_cleanup(&back);
	((float *)res->clip.samplers[0].values)[2 * 3 + 1] = -8.5f;
	ck_assert_int_eq(native_of(&b, "KeyframerFloatComp_Z", res, &defaults, &f, &err), -1);
	ck_assert_msg(strstr(err.message, "key 2") && strstr(err.message, "promote=1"), "%s",
	              err.message);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("native_tangents");
	TCase *tc = tcase_create("tangents");

	tcase_add_test(tc, an_animation_z_segment_is_split_until_its_tangents_fit);
	tcase_add_test(tc, what_no_split_holds_is_refused_with_advice_for_its_container);
	tcase_add_test(tc, a_bare_keyframer_is_split_and_may_be_promoted);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
