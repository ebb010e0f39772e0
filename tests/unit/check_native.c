/* check_native.c: Zouna files and Burnout resources written back (formats/native.h,
 * doc/formats.md 1.8). Files the test writer makes, in every class, layout and byte order,
 * come back byte for byte; edits
 * (a key moved, added, removed; a bone added) are written in the template's classes, every
 * untouched slice keeping its bytes; values a class cannot hold are refused by name. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "core/curve.h"
#include "formats/format.h"
#include "formats/native.h"
#include "burnout_writer.h"
#include "testutil.h"
#include "zouna_writer.h"

static const char *const all_classes[] = {"KeyframerFloat_Z",
                                          "KeyframerFloatComp_Z",
                                          "KeyframerFloatLinearComp_Z",
                                          "KeyframerVec2fLinear_Z",
                                          "KeyframerVec2fLinearComp_Z",
                                          "KeyframerVec3fComp_Z",
                                          "KeyframerVec3fLinear_Z",
                                          "KeyframerExtVec3f_Z",
                                          "KeyframerVec4fLinear_Z",
                                          "KeyframerVec4fLinearComp_Z",
                                          "KeyframerRot_Z",
                                          "KeyframerBezierRot_Z",
                                          "KeyframerHdl_Z",
                                          "KeyframerFlag_Z",
                                          "KeyframerMessage_Z",
                                          "KeyframerFloatLinear_Z",
                                          "KeyframerVec2f_Z",
                                          "KeyframerVec2fComp_Z",
                                          "KeyframerVec3f_Z",
                                          "KeyframerVec3fLinearComp_Z",
                                          "KeyframerVec4f_Z",
                                          "KeyframerVec4fComp_Z"};
#define CLASS_COUNT (sizeof(all_classes) / sizeof(all_classes[0]))

/* The upload of some bytes as the catalogue records it: the class, and the byte order. */
static struct upload upload_of(const uint8_t *data, size_t length, const char *class_name,
                               const char *endian)
{
	struct upload up = {0};

	up.data = data;
	up.length = length;
	up.class_name = class_name;
	up.endian = endian;
	up.family = "zouna";
	return up;
}

static struct resource *decoded(const uint8_t *data, size_t length, const char *class_name,
                                const char *endian, struct decode_result *r)
{
	struct upload up = upload_of(data, length, class_name, endian);
	struct error err;

	error_init(&err);
	decode_result_init(r);
	ck_assert_msg(format_decode(&up, r, &err) == 0, "%s", err.message);
	return r->resources[0];
}

static const struct native_options defaults = {.byte_order = -1, .bff = -1};

/* The file written from `source` on the template's bytes. */
static int native_of(const struct zbuf *tmpl, const char *class_name, const char *endian,
                     const struct resource *source, const struct native_options *opt,
                     struct native_file *out, struct error *err)
{
	struct upload up = upload_of(tmpl->data, tmpl->len, class_name, endian);

	error_init(err);
	return native_zouna(&up, source, opt, out, err);
}

/* native of a file, its own decoding as the entry, is the file byte for byte; and written in
 * the other byte order and back, it is the file again. */
static void assert_round_trip(const struct zbuf *b, const char *class_name, const char *endian)
{
	struct decode_result r, swapped_r;
	struct native_file f, swapped, back;
	struct native_options other = defaults;
	struct error err;
	struct resource *res = decoded(b->data, b->len, class_name, endian, &r);
	const char *other_endian = strcmp(endian, "big") == 0 ? "little" : "big";

	ck_assert_msg(native_of(b, class_name, endian, res, &defaults, &f, &err) == 0, "%s: %s",
	              class_name, err.message);
	ck_assert_uint_eq(f.length, b->len);
	ck_assert_msg(memcmp(f.bytes, b->data, b->len) == 0, "%s %s: not byte for byte", class_name,
	              endian);
	other.byte_order = b->big ? 0 : 1;
	ck_assert_msg(native_of(b, class_name, endian, res, &other, &swapped, &err) == 0, "%s",
	              err.message);
	ck_assert_msg(memcmp(swapped.bytes, b->data, b->len) != 0 || b->len < 8, "%s: not swapped",
	              class_name);
	{
		struct zbuf s = {swapped.bytes, swapped.length, swapped.length, !b->big};
		struct resource *sres =
		    decoded(swapped.bytes, swapped.length, class_name, other_endian, &swapped_r);
		/* the other order decodes to the same tracks, and turns back into the file */
		ck_assert_uint_eq(sres->clip.channel_count, res->clip.channel_count);
		for (size_t i = 0; i < res->clip.sampler_count; i++) {
			ck_assert_uint_eq(sres->clip.samplers[i].value_bytes,
			                  res->clip.samplers[i].value_bytes);
			ck_assert(memcmp(sres->clip.samplers[i].values,
			                 res->clip.samplers[i].values,
			                 res->clip.samplers[i].value_bytes) == 0);
		}
		other.byte_order = b->big;
		ck_assert_msg(native_of(&s, class_name, other_endian, sres, &other, &back, &err) ==
		                  0,
		              "%s", err.message);
		ck_assert_uint_eq(back.length, b->len);
		ck_assert_msg(memcmp(back.bytes, b->data, b->len) == 0, "%s: swapped twice differs",
		              class_name);
		native_file_cleanup(&back);
		decode_result_cleanup(&swapped_r);
	}
	native_file_cleanup(&swapped);
	native_file_cleanup(&f);
	decode_result_cleanup(&r);
}

/* Three keys every class holds exactly (compressed values are whole steps). */
static void write_class(struct zbuf *b, const char *name, int big, int options)
{
	static const struct zmessage m[3] = {
	    {12, 0xDEADBEEF, 1, 0.5f, 7}, {36, 0x01020304, 0, -1.0f, 8}, {13, 0, 2, 2.0f, 9}};
	struct zkey keys[3] = {
	    {.time = 0, .v = {0.25f, -0.5f, 1, 0.5f}, .tout = {0.125f, 0, 0.25f, 0}, .word = 0xAA},
	    {.time = 0.5f,
	     .v = {1.5f, 0.75f, -2, 0.5f},
	     .tin = {0.5f, 0.25f, 0, 1},
	     .tout = {0.5f, -0.25f, 0, 1},
	     .word = 0xBB},
	    {.time = 1.25f, .v = {-1, 2, 0.5f, 0.5f}, .tin = {-0.25f, 0, 0.5f, 0}, .word = 0}};

	if (strcmp(name, "KeyframerMessage_Z") == 0) {
		keys[0].messages = &m[0], keys[0].message_count = 1;
		keys[1].messages = &m[1], keys[1].message_count = 2;
	}
	zbuf_init(b, big);
	ck_assert_int_eq(zouna_write_keyframer(b, name, 0x1, keys, 3, options), 0);
}

START_TEST(every_keyframer_class_in_both_byte_orders_is_itself)
{
	const char *name = all_classes[_i / 2];
	int big = _i % 2;
	struct zbuf b;

	write_class(&b, name, big, 0);
	assert_round_trip(&b, name, big ? "big" : "little");
	zbuf_free(&b);
	/* the other readings of doc/formats.md 1.4 */
	if (strcmp(name, "KeyframerHdl_Z") == 0 ||
	    strcmp(name, "KeyframerVec4fLinearComp_Z") == 0 ||
	    strcmp(name, "KeyframerExtVec3f_Z") == 0) {
		write_class(&b, name, big,
		            strcmp(name, "KeyframerHdl_Z") == 0 ? ZW_HANDLE_FIRST : ZW_SEED_LAYOUT);
		assert_round_trip(&b, name, big ? "big" : "little");
		zbuf_free(&b);
	}
}
END_TEST

static uint32_t bone[3];

static void build_animation(struct zbuf *b, int big, size_t bff)
{
	zouna_write_example_animation(b, big, bff, 1.0f, bone);
}

static const size_t header_sizes[] = {0, 16, 22, 24};

START_TEST(animation_z_with_every_record_header_and_byte_order_is_itself)
{
	struct zbuf b;

	build_animation(&b, _i % 2, header_sizes[_i / 2]);
	assert_round_trip(&b, "Animation_Z", _i % 2 ? "big" : "little");
	zbuf_free(&b);
}
END_TEST

/* The channel of a target (by handle) and property in a decoded Animation_Z, or -1. */
static long channel_of(const struct resource *r, uint32_t crc, uint64_t property)
{
	for (size_t c = 0; c < r->clip.channel_count; c++)
		if (r->clip.targets[r->clip.channels[c].target].object == crc &&
		    r->clip.channels[c].property == property)
			return (long)c;
	return -1;
}

static struct sampler *sampler_of(struct resource *r, uint32_t crc, uint64_t property)
{
	long c = channel_of(r, crc, property);

	ck_assert_int_ge(c, 0);
	return &r->clip.samplers[r->clip.channels[c].sampler];
}

/* How many bytes of two buffers of one length differ. */
static size_t bytes_differing(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += a[i] != b[i];
	return d;
}

START_TEST(a_moved_key_changes_its_value_bytes_and_nothing_else)
{
	struct zbuf b;
	struct decode_result r, back;
	struct native_file f;
	struct error err;
	struct resource *res, *again;
	float *v;

	build_animation(&b, _i, 16);
	res = decoded(b.data, b.len, "Animation_Z", _i ? "big" : "little", &r);
	/* bone 0's translation, key 1: x from 1 to 1.3 (a cubic spline: [in | value | out]) */
	v = sampler_of(res, bone[0], NODE_TRANSLATION)->values;
	v[1 * 9 + 3 + 0] = 1.3f;
	ck_assert_msg(native_of(&b, "Animation_Z", NULL, res, &defaults, &f, &err) == 0, "%s",
	              err.message);
	ck_assert_uint_eq(f.length, b.len);
	/* one i16: round(1.3 x 4096) = 5325, against 4096 before */
	ck_assert_uint_le(bytes_differing(f.bytes, b.data, b.len), 2);
	ck_assert_uint_ge(bytes_differing(f.bytes, b.data, b.len), 1);
	again = decoded(f.bytes, f.length, "Animation_Z", NULL, &back);
	v = sampler_of(again, bone[0], NODE_TRANSLATION)->values;
	ck_assert_float_eq_tol(v[1 * 9 + 3], 1.3f, 0.5f / 4096 + 1e-6f);
	ck_assert_float_eq(v[1 * 9 + 3], 5325.0f / 4096);
	/* the report: one track written, the rest kept */
	{
		json_t *row, *tracks = json_object_get(f.report, "tracks");
		size_t i, written = 0;
		json_array_foreach(tracks, i, row)
		{
			if (!json_is_true(json_object_get(row, "kept"))) {
				written++;
				ck_assert_str_eq(json_string_value(json_object_get(row, "class")),
				                 "KeyframerVec3fComp_Z");
				ck_assert_double_le(
				    json_number_value(json_object_get(row, "largest_difference")),
				    0.5 / 4096);
			}
		}
		ck_assert_uint_eq(written, 1);
		ck_assert_uint_eq(json_array_size(tracks), res->clip.channel_count);
	}
	native_file_cleanup(&f);
	decode_result_cleanup(&back);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* Replaces a sampler's keys by `count` LINEAR FLOAT4 keys. */
static void set_rotation_keys(struct sampler *s, const float *times, const float *q, uint32_t count)
{
	free(s->times);
	free(s->values);
	s->times = malloc(count * sizeof(float));
	s->values = malloc(count * 4 * sizeof(float));
	memcpy(s->times, times, count * sizeof(float));
	memcpy(s->values, q, count * 4 * sizeof(float));
	s->key_count = count;
	s->value_bytes = count * 4 * sizeof(float);
}

START_TEST(keys_added_and_removed_move_the_slices_after_them)
{
	static const float t3[3] = {0, 1, 2},
	                   q3[12] = {0, 0, 0, 1, 0, 0, 0.7071f, 0.7071f, 0, 0, 1, 0};
	static const float t1[1] = {0.5f}, q1[4] = {1, 0, 0, 0};
	struct zbuf b;
	struct decode_result r, back;
	struct native_file f;
	struct error err;
	struct resource *res, *again;

	build_animation(&b, _i, 0);
	res = decoded(b.data, b.len, "Animation_Z", NULL, &r);
	/* bone 0's rotation gains a key in the middle; bone 2's loses one */
	set_rotation_keys(sampler_of(res, bone[0], NODE_ROTATION), t3, q3, 3);
	set_rotation_keys(sampler_of(res, bone[2], NODE_ROTATION), t1, q1, 1);
	ck_assert_msg(native_of(&b, "Animation_Z", NULL, res, &defaults, &f, &err) == 0, "%s",
	              err.message);
	ck_assert_uint_eq(f.length, b.len); /* one key more, one less: 12 bytes each */
	again = decoded(f.bytes, f.length, "Animation_Z", NULL, &back);
	ck_assert_uint_eq(again->clip.channel_count, res->clip.channel_count);
	{
		const struct sampler *s = sampler_of(again, bone[0], NODE_ROTATION);
		const float *q = s->values;
		ck_assert_uint_eq(s->key_count, 3);
		ck_assert_float_eq(s->times[1], 1.0f);
		ck_assert_float_eq_tol(q[6], 0.7071f, 0.5f / 2000);
		s = sampler_of(again, bone[2], NODE_ROTATION);
		ck_assert_uint_eq(s->key_count, 1);
		ck_assert_float_eq(((const float *)s->values)[0], 1.0f);
	}
	/* every other track reads as it did */
	for (size_t c = 0; c < res->clip.channel_count; c++) {
		const struct channel *ch = &res->clip.channels[c];
		uint32_t crc = (uint32_t)res->clip.targets[ch->target].object;
		const struct sampler *want = &res->clip.samplers[ch->sampler];
		const struct sampler *got = sampler_of(again, crc, ch->property);
		if (ch->property == NODE_ROTATION)
			continue;
		ck_assert_uint_eq(got->value_bytes, want->value_bytes);
		ck_assert(memcmp(got->values, want->values, want->value_bytes) == 0);
		ck_assert(memcmp(got->times, want->times, want->key_count * 4) == 0);
	}
	/* the key no record named is still there, after the slices */
	ck_assert_int_eq(
	    json_integer_value(json_object_get(
	        json_object_get(
	            json_object_get(json_object_get(again->metadata, "animation"), "keyframers"),
	            "node.rot"),
	        "key_count")),
	    5);
	native_file_cleanup(&f);
	decode_result_cleanup(&back);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(a_bone_the_template_lacks_gets_a_node_record)
{
	static const float t2[2] = {0, 1}, v2[6] = {0, 0, 0, 0.5f, 1, 0};
	struct zbuf b;
	struct decode_result r, back;
	struct native_file f;
	struct error err;
	struct resource *res, *again;
	struct clip *clip;
	uint32_t crc = hash_asobo32("MAIN_D", 6);
	struct sampler *s;

	build_animation(&b, 0, 0);
	res = decoded(b.data, b.len, "Animation_Z", NULL, &r);
	clip = &res->clip;
	clip->targets = realloc(clip->targets, (clip->target_count + 1) * sizeof(*clip->targets));
	memset(&clip->targets[clip->target_count], 0, sizeof(*clip->targets));
	snprintf(clip->targets[clip->target_count].schema, SCHEMA_TEXT_SIZE, "%s", SCHEMA_NODE);
	clip->targets[clip->target_count].object = crc;
	clip->samplers = realloc(clip->samplers, (clip->sampler_count + 1) * sizeof(*s));
	s = &clip->samplers[clip->sampler_count];
	memset(s, 0, sizeof(*s));
	s->type = VALUE_FLOAT3;
	s->array_size = 1;
	s->interp = INTERP_LINEAR;
	s->key_count = 2;
	s->times = malloc(sizeof(t2));
	s->values = malloc(sizeof(v2));
	s->value_bytes = sizeof(v2);
	memcpy(s->times, t2, sizeof(t2));
	memcpy(s->values, v2, sizeof(v2));
	clip->channels =
	    realloc(clip->channels, (clip->channel_count + 1) * sizeof(*clip->channels));
	clip->channels[clip->channel_count] = (struct channel){
	    (uint32_t)clip->target_count, NODE_TRANSLATION, 0, (uint32_t)clip->sampler_count};
	res->track_names =
	    realloc(res->track_names, (clip->channel_count + 1) * sizeof(*res->track_names));
	res->track_names[clip->channel_count] = strdup("MAIN_D translation");
	if (res->extras) {
		res->extras =
		    realloc(res->extras, (clip->channel_count + 1) * sizeof(*res->extras));
		memset(&res->extras[clip->channel_count], 0, sizeof(*res->extras));
	}
	clip->target_count++, clip->sampler_count++, clip->channel_count++;
	ck_assert_msg(native_of(&b, "Animation_Z", NULL, res, &defaults, &f, &err) == 0, "%s",
	              err.message);
	again = decoded(f.bytes, f.length, "Animation_Z", NULL, &back);
	{
		/* a LINEAR track in a Hermite class: tangents that make the same straight line */
		const struct sampler *got = sampler_of(again, crc, NODE_TRANSLATION);
		float mid[3];
		ck_assert_uint_eq(got->key_count, 2);
		ck_assert_int_eq(got->interp, INTERP_CUBIC_SPLINE);
		testutil_sample(again, (size_t)channel_of(again, crc, NODE_TRANSLATION), 0.25f,
		                mid);
		ck_assert_float_eq_tol(mid[0], 0.125f, 1e-3f);
		ck_assert_float_eq_tol(mid[1], 0.25f, 1e-3f);
	}
	ck_assert_uint_eq(json_array_size(json_object_get(
	                      json_object_get(again->metadata, "animation"), "nodes")),
	                  4);
	native_file_cleanup(&f);
	decode_result_cleanup(&back);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(a_value_beyond_the_class_is_refused_by_track_and_key)
{
	struct zbuf b;
	struct decode_result r;
	struct native_file f;
	struct native_options promote = defaults;
	struct error err;
	struct resource *res;
	float *v;

	build_animation(&b, 0, 0);
	res = decoded(b.data, b.len, "Animation_Z", NULL, &r);
	v = sampler_of(res, bone[0], NODE_TRANSLATION)->values;
	v[2 * 9 + 3 + 1] = 9.5f; /* key 2, y: beyond 32767 / 4096 */
	ck_assert_int_eq(native_of(&b, "Animation_Z", NULL, res, &defaults, &f, &err), -1);
	ck_assert_int_eq(err.code, ERROR_VALUE_OUT_OF_RANGE);
	ck_assert_msg(strstr(err.message, "key 2") && strstr(err.message, "KeyframerVec3fComp_Z") &&
	                  strstr(err.message, "translation"),
	              "%s", err.message);
	decode_result_cleanup(&r);
	zbuf_free(&b);
	/* a bare compressed keyframer takes promote=1: the uncompressed class */
	write_class(&b, "KeyframerFloatComp_Z", 0, 0);
	res = decoded(b.data, b.len, "KeyframerFloatComp_Z", NULL, &r);
	((float *)res->clip.samplers[0].values)[1 * 3 + 1] = 9.5f;
	ck_assert_int_eq(native_of(&b, "KeyframerFloatComp_Z", NULL, res, &defaults, &f, &err), -1);
	ck_assert_int_eq(err.code, ERROR_VALUE_OUT_OF_RANGE);
	promote.promote = 1;
	ck_assert_msg(native_of(&b, "KeyframerFloatComp_Z", NULL, res, &promote, &f, &err) == 0,
	              "%s", err.message);
	ck_assert_str_eq(f.extension, "KeyframerFloat_Z");
	{
		struct decode_result back;
		struct resource *again =
		    decoded(f.bytes, f.length, "KeyframerFloat_Z", NULL, &back);
		ck_assert_float_eq(((const float *)again->clip.samplers[0].values)[1 * 3 + 1],
		                   9.5f);
		decode_result_cleanup(&back);
	}
	native_file_cleanup(&f);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(headers_and_names_follow_the_options)
{
	struct zbuf b;
	struct decode_result r, back;
	struct native_file f;
	struct native_options opt = defaults;
	struct error err;
	struct resource *res;

	build_animation(&b, 0, 22);
	res = decoded(b.data, b.len, "Animation_Z", NULL, &r);
	opt.bff = 0;
	opt.name = "hero_walk";
	ck_assert_msg(native_of(&b, "Animation_Z", NULL, res, &opt, &f, &err) == 0, "%s",
	              err.message);
	ck_assert_uint_eq(f.length, b.len - 22);
	ck_assert(memcmp(f.bytes + 24, b.data + 22 + 24, b.len - 22 - 24) == 0);
	ck_assert_uint_eq(decoded(f.bytes, f.length, "Animation_Z", NULL, &back)->crc32,
	                  hash_asobo32("hero_walk", 9));
	decode_result_cleanup(&back);
	native_file_cleanup(&f);
	opt.bff = 16;
	opt.name = NULL;
	ck_assert_msg(native_of(&b, "Animation_Z", NULL, res, &opt, &f, &err) == 0, "%s",
	              err.message);
	ck_assert_uint_eq(f.length, b.len - 22 + 16);
	ck_assert(memcmp(f.bytes, "BFF0", 4) == 0);
	decoded(f.bytes, f.length, "Animation_Z", NULL, &back);
	decode_result_cleanup(&back);
	native_file_cleanup(&f);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* A track sampled densely (every 1/60 s, linear), as Blender's exporter writes one. */
static void make_dense(struct sampler *s)
{
	struct curve c;
	struct curve_cursor cur;
	uint32_t n = (uint32_t)sampler_components(s);
	uint32_t count = (uint32_t)(s->times[s->key_count - 1] * 60) + 1;
	float *times = malloc(count * sizeof(float)), *values = malloc(count * n * sizeof(float));

	curve_from_sampler(&c, s);
	curve_cursor_init(&cur);
	for (uint32_t i = 0; i < count; i++) {
		times[i] = (float)i / 60;
		curve_sample_f32(&c, &cur, times[i], values + i * n);
	}
	free(s->times);
	free(s->values);
	s->times = times;
	s->values = values;
	s->key_count = count;
	s->interp = INTERP_LINEAR;
	s->value_bytes = count * n * sizeof(float);
}

/* The largest difference between two float tracks at 1,000 times over [0, 2] s: by component,
 * or the rotation angle, 4 atan2(|a - b|, |a + b|) (both are unit: the engine's). */
static double worst_at_1000(const struct sampler *a, const struct sampler *b)
{
	struct curve ca, cb;
	struct curve_cursor ua, ub;
	uint32_t n = (uint32_t)sampler_components(a);
	double worst = 0;

	curve_from_sampler(&ca, a);
	curve_from_sampler(&cb, b);
	curve_cursor_init(&ua);
	curve_cursor_init(&ub);
	for (int i = 0; i < 1000; i++) {
		float va[4], vb[4], t = 2.0f * (float)i / 999;
		double d = 0, dot = 0, minus = 0, plus = 0;
		curve_sample_f32(&ca, &ua, t, va);
		curve_sample_f32(&cb, &ub, t, vb);
		for (uint32_t j = 0; j < n; j++)
			dot += (double)va[j] * vb[j];
		for (uint32_t j = 0; j < n; j++) {
			double y = dot < 0 ? -vb[j] : vb[j];
			minus += (va[j] - y) * (va[j] - y);
			plus += (va[j] + y) * (va[j] + y);
			d = fmax(d, fabs((double)va[j] - vb[j]));
		}
		if (a->semantic == SEMANTIC_NORMALIZED_QUATERNION)
			d = 4 * atan2(sqrt(minus), sqrt(plus));
		worst = fmax(worst, d);
	}
	return worst;
}

/* reduce=: dense tracks (every 1/60 s) come back with few keys, within the tolerance and half
 * a step of the dense curve at 1,000 times; the report says keys before and after; a file
 * whose tracks did not change keeps its bytes under reduce= too. */
START_TEST(dense_tracks_are_reduced_within_the_tolerance)
{
	struct zbuf b;
	struct decode_result r, dense_r, back;
	struct native_file f;
	struct native_options opt = defaults;
	struct error err;
	struct resource *res, *dense, *again;
	uint32_t walk[2];
	json_t *row;
	size_t i, reduced = 0;

	zouna_write_walk_animation(&b, walk);
	res = decoded(b.data, b.len, "Animation_Z", NULL, &r);
	opt.reduce = 0.001;
	ck_assert_msg(native_of(&b, "Animation_Z", NULL, res, &opt, &f, &err) == 0, "%s",
	              err.message);
	ck_assert_uint_eq(f.length, b.len);
	ck_assert(memcmp(f.bytes, b.data, b.len) == 0); /* nothing changed: nothing reduced */
	native_file_cleanup(&f);
	dense = decoded(b.data, b.len, "Animation_Z", NULL, &dense_r);
	for (size_t c = 0; c < dense->clip.channel_count; c++) {
		struct sampler *s = &dense->clip.samplers[dense->clip.channels[c].sampler];
		if (s->type >= VALUE_FLOAT && s->type <= VALUE_FLOAT4)
			make_dense(s);
	}
	ck_assert_msg(native_of(&b, "Animation_Z", NULL, dense, &opt, &f, &err) == 0, "%s",
	              err.message);
	json_array_foreach(json_object_get(f.report, "tracks"), i, row)
	{
		json_t *red = json_object_get(row, "reduced");
		if (!red)
			continue;
		reduced++;
		ck_assert_int_eq(json_integer_value(json_object_get(red, "keys_before")), 121);
		ck_assert_int_lt(json_integer_value(json_object_get(red, "keys_after")), 20);
		ck_assert_int_eq(json_integer_value(json_object_get(row, "keys")),
		                 json_integer_value(json_object_get(red, "keys_after")));
		ck_assert_double_le(json_real_value(json_object_get(red, "largest_error")), 0.001);
	}
	ck_assert_uint_eq(reduced, 4);
	again = decoded(f.bytes, f.length, "Animation_Z", NULL, &back);
	for (size_t c = 0; c < dense->clip.channel_count; c++) {
		const struct channel *ch = &dense->clip.channels[c];
		const struct sampler *want = &dense->clip.samplers[ch->sampler];
		const struct sampler *got = sampler_of(
		    again, (uint32_t)dense->clip.targets[ch->target].object, ch->property);
		if (want->type < VALUE_FLOAT || want->type > VALUE_FLOAT4) {
			ck_assert_uint_eq(got->key_count, want->key_count); /* the message, kept */
			continue;
		}
		ck_assert_uint_lt(got->key_count, want->key_count);
		/* the tolerance and half a step (1/4096 a value, 1/2000 a quaternion component) */
		ck_assert_double_le(worst_at_1000(want, got),
		                    want->semantic == SEMANTIC_NORMALIZED_QUATERNION ? 0.0015
		                                                                     : 0.00113);
	}
	native_file_cleanup(&f);
	decode_result_cleanup(&back);
	decode_result_cleanup(&dense_r);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* Burnout: a Vehicle Animation in every layout (32-bit both byte orders, 64-bit, arrays at
 * their offsets or after the header) is itself byte for byte, goes into every other layout and
 * back, and takes edited state vectors in place; a Body Part Remap Data resource likewise in
 * both byte orders; what a Vehicle Animation cannot hold is refused by name. */
static const struct bpart vehicle_parts[3] = {{{4, -1, -1}}, {{5, 6, -1}}, {{7, 8, 9}}};
static const struct banimation vehicle_animations[2] = {
    {0, 1, -1, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}},
    {1, 3, 2, {0.5f, 0, 0, 0, 0, 0.5f, 0, 0, 0, 0, 0.5f, 0}}};
static const struct bstate vehicle_states[2] = {{2, 10, 1, {0, 0, 0, 0, 1, 2, 3, 4}},
                                                {1, 17, 0, {-1, -1, -1, -1, 1, 1, 1, 1}}};
static const struct {
	int big, is64;
	const char *layout;
} burnout_layouts[3] = {{0, 0, "32"}, {1, 0, "32"}, {0, 1, "64"}};

static void write_vehicle(struct zbuf *b, int layout, int zero_offsets)
{
	struct bvehicle v = {vehicle_parts, 3,     vehicle_animations, 2, vehicle_states, 2,
	                     {0, 1, -1, 2}, {{0}}, zero_offsets};

	for (int w = 0; w < 4; w++)
		for (int k = 0; k < 16; k++)
			v.wheel_matrices[w][k] = (float)(w * 16 + k) / 4;
	zbuf_init(b, burnout_layouts[layout].big);
	burnout_write_vehicle(b, &v, burnout_layouts[layout].is64);
}

static struct resource *decoded_vehicle(const uint8_t *data, size_t length, const char *layout,
                                        struct decode_result *r)
{
	struct upload up = {0};
	struct error err;

	up.data = data;
	up.length = length;
	up.family = "burnout";
	up.class_name = "VehicleAnimation";
	up.layout = layout;
	error_init(&err);
	decode_result_init(r);
	ck_assert_msg(format_decode(&up, r, &err) == 0, "%s", err.message);
	return r->resources[0];
}

static int native_vehicle_of(const struct zbuf *tmpl, const char *layout,
                             const struct resource *src, const struct native_options *opt,
                             struct native_file *out, struct error *err)
{
	struct upload up = {0};

	up.data = tmpl->data;
	up.length = tmpl->len;
	up.family = "burnout";
	up.class_name = "VehicleAnimation";
	up.layout = layout;
	error_init(err);
	return native_burnout(&up, src, opt, out, err);
}

START_TEST(vehicle_animations_in_every_layout_come_back)
{
	int layout = _i % 3, zero_offsets = _i / 3;
	struct zbuf b;
	struct decode_result r;
	struct native_file f;
	struct error err;
	struct resource *res;

	write_vehicle(&b, layout, zero_offsets);
	res = decoded_vehicle(b.data, b.len, burnout_layouts[layout].layout, &r);
	ck_assert_msg(
	    native_vehicle_of(&b, burnout_layouts[layout].layout, res, &defaults, &f, &err) == 0,
	    "%s", err.message);
	ck_assert_uint_eq(f.length, b.len);
	ck_assert_msg(memcmp(f.bytes, b.data, b.len) == 0, "layout %d: not byte for byte", _i);
	ck_assert_str_eq(f.extension, "dat");
	{
		/* nothing changed: every state kept, none written */
		size_t i;
		json_t *row;
		ck_assert_uint_gt(json_array_size(json_object_get(f.report, "tracks")), 0);
		json_array_foreach(json_object_get(f.report, "tracks"), i, row) ck_assert_msg(
		    json_is_true(json_object_get(row, "kept")), "state %zu written", i);
	}
	native_file_cleanup(&f);
	/* into every other layout and back */
	for (int other = 0; other < 3; other++) {
		struct native_options to = defaults, back = defaults;
		struct native_file there, again;
		struct decode_result tr, ar;
		struct zbuf there_buf = {0};
		struct resource *tres, *ares;
		if (other == layout)
			continue;
		to.layout = burnout_layouts[other].is64 ? 64 : 32;
		to.byte_order = burnout_layouts[other].big;
		ck_assert_msg(native_vehicle_of(&b, burnout_layouts[layout].layout, res, &to,
		                                &there, &err) == 0,
		              "%s", err.message);
		tres =
		    decoded_vehicle(there.bytes, there.length, burnout_layouts[other].layout, &tr);
		ck_assert_str_eq(json_string_value(json_object_get(tres->metadata, "byte_order")),
		                 burnout_layouts[other].big ? "big" : "little");
		ck_assert(json_equal(json_object_get(tres->metadata, "animations"),
		                     json_object_get(res->metadata, "animations")));
		ck_assert(json_equal(json_object_get(tres->metadata, "states"),
		                     json_object_get(res->metadata, "states")));
		ck_assert(json_equal(json_object_get(tres->metadata, "wheels"),
		                     json_object_get(res->metadata, "wheels")));
		there_buf.data = there.bytes;
		there_buf.len = there.length;
		back.layout = burnout_layouts[layout].is64 ? 64 : 32;
		back.byte_order = burnout_layouts[layout].big;
		ck_assert_msg(native_vehicle_of(&there_buf, burnout_layouts[other].layout, tres,
		                                &back, &again, &err) == 0,
		              "%s", err.message);
		ares =
		    decoded_vehicle(again.bytes, again.length, burnout_layouts[layout].layout, &ar);
		ck_assert(json_equal(ares->metadata, res->metadata));
		/* arrays in order after the header, at their offsets or by the fallback rule: as
		 * animdex lays them out */
		ck_assert_msg(again.length == b.len && memcmp(again.bytes, b.data, b.len) == 0,
		              "layout %d -> %d -> %d: not byte for byte", layout, other, layout);
		decode_result_cleanup(&ar);
		decode_result_cleanup(&tr);
		native_file_cleanup(&again);
		native_file_cleanup(&there);
	}
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(edited_state_vectors_are_written_in_place)
{
	static const float edited[8] = {0.5f, 0, 0, 1, 0, 0.25f, 0, 1};
	struct zbuf b;
	struct decode_result r, back;
	struct native_file f;
	struct error err;
	struct resource *res, *again;
	size_t differing = 0;

	write_vehicle(&b, _i, 0);
	res = decoded_vehicle(b.data, b.len, burnout_layouts[_i].layout, &r);
	memcpy(res->clip.samplers[1].values, edited, sizeof(edited));
	ck_assert_msg(native_vehicle_of(&b, burnout_layouts[_i].layout, res, &defaults, &f, &err) ==
	                  0,
	              "%s", err.message);
	ck_assert_uint_eq(f.length, b.len);
	for (size_t i = 0; i < b.len; i++)
		differing += f.bytes[i] != b.data[i];
	ck_assert_uint_le(differing, 32); /* state 1's vectors, nothing else */
	ck_assert_uint_gt(differing, 0);
	again = decoded_vehicle(f.bytes, f.length, burnout_layouts[_i].layout, &back);
	ck_assert(memcmp(again->clip.samplers[1].values, edited, sizeof(edited)) == 0);
	ck_assert(memcmp(again->clip.samplers[0].values, vehicle_states[0].vectors, 32) == 0);
	ck_assert(json_is_false(
	    json_object_get(json_array_get(json_object_get(f.report, "tracks"), 1), "kept")));
	decode_result_cleanup(&back);
	native_file_cleanup(&f);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(what_a_vehicle_animation_cannot_hold_is_refused)
{
	struct zbuf b;
	struct decode_result r;
	struct native_file f;
	struct native_options big64 = defaults, bff = defaults;
	struct error err;
	struct resource *res;

	write_vehicle(&b, 0, 0);
	res = decoded_vehicle(b.data, b.len, "32", &r);
	big64.layout = 64;
	big64.byte_order = 1; /* big */
	ck_assert_int_eq(native_vehicle_of(&b, "32", res, &big64, &f, &err), -1);
	ck_assert_int_eq(err.code, ERROR_BAD_PARAMETER);
	ck_assert_str_eq(err.path, "layout");
	bff.bff = 16;
	ck_assert_int_eq(native_vehicle_of(&b, "32", res, &bff, &f, &err), -1);
	ck_assert_str_eq(err.path, "bff");
	res->clip.samplers[0].times[1] = 2; /* a state's second vector is at trigger input 1 */
	ck_assert_int_eq(native_vehicle_of(&b, "32", res, &defaults, &f, &err), -1);
	ck_assert_int_eq(err.code, ERROR_INVALID);
	ck_assert_msg(strstr(err.message, "state 0") && strstr(err.message, "trigger input"), "%s",
	              err.message);
	res->clip.samplers[0].times[1] = 1;
	res->clip.targets[1].object = 7; /* no state 7 */
	ck_assert_int_eq(native_vehicle_of(&b, "32", res, &defaults, &f, &err), -1);
	ck_assert_msg(strstr(err.message, "no place"), "%s", err.message);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(body_part_remaps_come_back_in_both_byte_orders)
{
	static const uint16_t remap[3] = {7, 9, 300};
	struct zbuf b;
	struct upload up = {0};
	struct decode_result r, sr;
	struct native_file f, swapped, back;
	struct native_options other = defaults, home = defaults;
	struct error err;

	zbuf_init(&b, _i);
	burnout_write_remap(&b, remap, 3);
	up.data = b.data;
	up.length = b.len;
	up.family = "burnout";
	up.class_name = "BodyPartRemapData";
	decode_result_init(&r);
	error_init(&err);
	ck_assert_msg(format_decode(&up, &r, &err) == 0, "%s", err.message);
	ck_assert_int_eq(native_burnout(&up, r.resources[0], &defaults, &f, &err), 0);
	ck_assert_msg(f.length == b.len && memcmp(f.bytes, b.data, b.len) == 0,
	              "not byte for byte");
	other.byte_order = !_i;
	ck_assert_int_eq(native_burnout(&up, r.resources[0], &other, &swapped, &err), 0);
	ck_assert(memcmp(swapped.bytes, b.data, 8) != 0);
	up.data = swapped.bytes;
	up.length = swapped.length;
	decode_result_init(&sr);
	ck_assert_msg(format_decode(&up, &sr, &err) == 0, "%s", err.message);
	home.byte_order = _i;
	ck_assert_int_eq(native_burnout(&up, sr.resources[0], &home, &back, &err), 0);
	ck_assert_msg(back.length == b.len && memcmp(back.bytes, b.data, b.len) == 0,
	              "swapped and back: not byte for byte");
	native_file_cleanup(&back);
	other.layout = 64;
	ck_assert_int_eq(native_burnout(&up, sr.resources[0], &other, &back, &err), -1);
	ck_assert_str_eq(err.path, "layout");
	native_file_cleanup(&back);
	native_file_cleanup(&swapped);
	native_file_cleanup(&f);
	decode_result_cleanup(&sr);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* A bundle's resource put back: a smaller one leaves the bundle's length (the blocks after it do
 * not move by less than the alignment) and reads back; a resource ID two entries share and a
 * block whose bytes another entry's block shares are refused by name, not rebuilt. */
START_TEST(a_bundle_refuses_what_it_cannot_rebuild_alone)
{
	static const uint16_t map[3] = {7, 9, 11}, fewer[1] = {5};
	static const uint8_t texture[40] = {1, 2, 3};
	struct zbuf bpr, small, bnd;
	struct bentry e[3];
	struct upload up = {0};
	struct native_file f = {0};
	struct error err;
	uint8_t *bytes = NULL;
	size_t length;
	struct decode_result r;

	zbuf_init(&bpr, 0);
	burnout_write_remap(&bpr, map, 3);
	zbuf_init(&small, 0);
	burnout_write_remap(&small, fewer, 1);
	e[0] = (struct bentry){0x87654321u, 0x10024, bpr.data, bpr.len, NULL, 0};
	e[1] = (struct bentry){0xAAAAu, 0x00001, texture, sizeof(texture), NULL, 0};
	e[2] = (struct bentry){0xBBBBu, 0x00001, texture, sizeof(texture), NULL, 0};
	zbuf_init(&bnd, 0);
	burnout_write_bundle(&bnd, e, 3, 0, NULL);
	up.data = bnd.data;
	up.length = bnd.len;
	up.family = "burnout";
	error_init(&err);
	ck_assert_int_eq(native_burnout_bundle_resource(&up, 0x87654321u, &bytes, &length, &err),
	                 0);
	ck_assert_uint_eq(length, bpr.len);
	ck_assert(memcmp(bytes, bpr.data, length) == 0);
	free(bytes);
	f.bytes = malloc(small.len);
	memcpy(f.bytes, small.data, small.len);
	f.length = small.len;
	f.report = json_object();
	ck_assert_msg(native_burnout_bundle(&up, 0x87654321u, &f, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(f.length, bnd.len);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(f.report, "bundle"), "moved")), 0);
	up.data = f.bytes;
	up.length = f.length;
	decode_result_init(&r);
	ck_assert_msg(format_decode(&up, &r, &err) == 0, "%s", err.message);
	ck_assert_int_eq(json_array_size(json_object_get(r.resources[0]->metadata, "parts")), 1);
	decode_result_cleanup(&r);
	native_file_cleanup(&f);

	/* entry 2's block laid over entry 1's: neither can be replaced alone */
	up.data = bnd.data;
	up.length = bnd.len;
	memcpy(bnd.data + 0x30 + 2 * 0x40 + 40, bnd.data + 0x30 + 1 * 0x40 + 40, 4);
	f.bytes = malloc(4);
	memcpy(f.bytes, "abcd", 4);
	f.length = 4;
	f.report = json_object();
	error_init(&err);
	ck_assert_int_eq(native_burnout_bundle(&up, 0xAAAAu, &f, &err), -1);
	ck_assert_str_eq(err.path, "bundle");
	ck_assert_msg(strstr(err.message, "share bytes"), "%s", err.message);
	/* two entries of one resource ID */
	memcpy(bnd.data + 0x30 + 2 * 0x40, bnd.data + 0x30 + 1 * 0x40, 8);
	error_init(&err);
	ck_assert_int_eq(native_burnout_bundle(&up, 0xAAAAu, &f, &err), -1);
	ck_assert_msg(strstr(err.message, "both have resource ID 0x0000AAAA"), "%s", err.message);
	native_file_cleanup(&f);
	zbuf_free(&bnd);
	zbuf_free(&small);
	zbuf_free(&bpr);
}
END_TEST

/* A clip document decoded as an upload of it would be (family radient). */
static void decode_clip(const char *text, size_t length, struct upload *up, struct decode_result *r)
{
	struct error err;

	memset(up, 0, sizeof(*up));
	up->data = (const uint8_t *)text;
	up->length = length;
	up->family = "radient";
	decode_result_init(r);
	error_init(&err);
	ck_assert_msg(format_decode(up, r, &err) == 0, "%s", err.message);
}

/* Every valid clip document of the test data comes back as itself, byte for byte. */
START_TEST(radient_clips_come_back_as_themselves)
{
	static const char *const files[] = {"walk.json", "every-type.json", "empty.json"};
	char rel[80], path[600];
	struct upload up;
	struct decode_result r;
	struct native_file f;
	struct error err;
	size_t length;
	char *text;

	snprintf(rel, sizeof(rel), "tests/data/radient/valid/%s", files[_i]);
	text = testutil_read_file(testutil_src_path(rel, path, sizeof(path)), &length);
	ck_assert_msg(text != NULL, "%s", path);
	decode_clip(text, length, &up, &r);
	error_init(&err);
	ck_assert_msg(native_radient(&up, r.resources[0], &defaults, &f, &err) == 0, "%s",
	              err.message);
	ck_assert_msg(f.length == length && memcmp(f.bytes, text, length) == 0,
	              "%s: not byte for byte", files[_i]);
	ck_assert_str_eq(f.extension, "json");
	native_file_cleanup(&f);
	decode_result_cleanup(&r);
	free(text);
}
END_TEST

/* An edited clip lands in the template's document: the unchanged channel keeps the sampler it
 * shared, the changed one gets a sampler of its own, a target the template lacks is added (on
 * a free object), the template's own fields stay, and the document reads back as the entry. */
START_TEST(a_clip_edit_lands_in_the_templates_document)
{
	static const char *const tmpl =
	    "{\"name\": \"t\", \"duration\": 1, \"studio\": \"kept as it was\", \"targets\": ["
	    "{\"schema\": \"" SCHEMA_NODE "\", \"object\": 0, \"name\": \"a\"},"
	    "{\"schema\": \"" SCHEMA_NODE "\", \"object\": 1, \"name\": \"b\"}],"
	    "\"samplers\": [{\"value\": {\"type\": \"FLOAT3\"}, \"times\": [0, 1], "
	    "\"values\": [0, 0, 0, 1, 1, 1]}],"
	    "\"channels\": [{\"target\": 0, \"property\": 1, \"sampler\": 0},"
	    "{\"target\": 1, \"property\": 1, \"sampler\": 0}]}";
	static const char *const edited =
	    "{\"name\": \"t\", \"duration\": 2, \"targets\": ["
	    "{\"schema\": \"" SCHEMA_NODE "\", \"object\": 5, \"name\": \"b\"},"
	    "{\"schema\": \"" SCHEMA_NODE "\", \"object\": 1, \"name\": \"c\"},"
	    "{\"schema\": \"" SCHEMA_NODE "\", \"object\": 0, \"name\": \"a\"}],"
	    "\"samplers\": [{\"value\": {\"type\": \"FLOAT3\"}, \"times\": [0, 1], "
	    "\"values\": [0, 0, 0, 1, 1, 1]},"
	    "{\"value\": {\"type\": \"FLOAT3\"}, \"times\": [0, 0.5, 1], "
	    "\"values\": [0, 0, 0, 0.1, 0.2, 0.3, 2, 2, 2]},"
	    "{\"value\": {\"type\": \"FLOAT4\"}, \"semantic\": \"NORMALIZED_QUATERNION\", "
	    "\"times\": [0, 2], \"values\": [0, 0, 0, 1, 0, 1, 0, 0]}],"
	    "\"channels\": [{\"target\": 2, \"property\": 1, \"sampler\": 0},"
	    "{\"target\": 0, \"property\": 1, \"sampler\": 1},"
	    "{\"target\": 1, \"property\": 2, \"sampler\": 2}]}";
	struct upload tu, eu, ou;
	struct decode_result t, e, o;
	struct native_file f;
	struct error err;
	const struct clip *oc, *ec;
	json_t *doc, *rows;

	decode_clip(tmpl, strlen(tmpl), &tu, &t);
	decode_clip(edited, strlen(edited), &eu, &e);
	error_init(&err);
	ck_assert_msg(native_radient(&tu, e.resources[0], &defaults, &f, &err) == 0, "%s",
	              err.message);
	decode_clip((const char *)f.bytes, f.length, &ou, &o);
	oc = &o.resources[0]->clip;
	ec = &e.resources[0]->clip;
	ck_assert_uint_eq(oc->channel_count, 3);
	ck_assert(sampler_equal(&oc->samplers[oc->channels[0].sampler], &ec->samplers[0]));
	ck_assert(sampler_equal(&oc->samplers[oc->channels[1].sampler], &ec->samplers[1]));
	ck_assert(sampler_equal(&oc->samplers[oc->channels[2].sampler], &ec->samplers[2]));
	ck_assert_uint_eq(oc->sampler_count, 3); /* a's shared one, b's own, c's */
	ck_assert_str_eq(oc->targets[oc->channels[2].target].name, "c");
	ck_assert_uint_eq(oc->targets[oc->channels[2].target].object, 2); /* 1 is b's */
	ck_assert_double_eq(oc->duration, 2);
	doc = json_loadb((const char *)f.bytes, f.length, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "studio")), "kept as it was");
	json_decref(doc);
	ck_assert_msg(strstr((const char *)f.bytes, "[0.0, 0.1, 0.2, 0.3") ||
	                  strstr((const char *)f.bytes, "0.1, 0.2, 0.3"),
	              "floats as their shortest decimals: %.*s", (int)f.length, f.bytes);
	rows = json_object_get(f.report, "tracks");
	ck_assert_uint_eq(json_array_size(rows), 3);
	ck_assert(json_is_true(json_object_get(json_array_get(rows, 0), "kept")));
	ck_assert(json_is_false(json_object_get(json_array_get(rows, 1), "kept")));
	ck_assert(json_is_true(json_object_get(json_array_get(rows, 2), "added")));
	native_file_cleanup(&f);
	decode_result_cleanup(&o);
	decode_result_cleanup(&e);
	decode_result_cleanup(&t);
}
END_TEST

/* What a clip document cannot take is refused by name: a track of another value type than
 * its channel's, and the options of binary files. */
START_TEST(what_a_clip_document_cannot_take_is_refused)
{
	static const char *const tmpl =
	    "{\"name\": \"t\", \"duration\": 1, \"targets\": [{\"schema\": "
	    "\"11111111-2222-3333-4444-555555555555\", \"object\": \"18446744073709551614\"}],"
	    "\"samplers\": [{\"value\": {\"type\": \"FLOAT2\"}, \"times\": [0], \"values\": [1, "
	    "2]}],"
	    "\"channels\": [{\"target\": 0, \"property\": 5, \"sampler\": 0}]}";
	static const char *const other =
	    "{\"name\": \"t\", \"duration\": 1, \"targets\": [{\"schema\": "
	    "\"11111111-2222-3333-4444-555555555555\", \"object\": \"18446744073709551614\"}],"
	    "\"samplers\": [{\"value\": {\"type\": \"FLOAT\"}, \"times\": [0], \"values\": [1]}],"
	    "\"channels\": [{\"target\": 0, \"property\": 5, \"sampler\": 0}]}";
	struct upload tu, ou;
	struct decode_result t, o;
	struct native_file f;
	struct native_options bff = defaults;
	struct error err;

	decode_clip(tmpl, strlen(tmpl), &tu, &t);
	decode_clip(other, strlen(other), &ou, &o);
	error_init(&err);
	ck_assert_int_eq(native_radient(&tu, o.resources[0], &defaults, &f, &err), -1);
	ck_assert_str_eq(err.path, "template");
	ck_assert_msg(strstr(err.message, "FLOAT[1]") && strstr(err.message, "FLOAT2[1]"), "%s",
	              err.message);
	bff.bff = 16;
	error_init(&err);
	ck_assert_int_eq(native_radient(&tu, t.resources[0], &bff, &f, &err), -1);
	ck_assert_str_eq(err.path, "bff");
	decode_result_cleanup(&o);
	decode_result_cleanup(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("native");
	TCase *tc = tcase_create("native");

	tcase_add_loop_test(tc, every_keyframer_class_in_both_byte_orders_is_itself, 0,
	                    (int)CLASS_COUNT * 2);
	tcase_add_loop_test(tc, animation_z_with_every_record_header_and_byte_order_is_itself, 0,
	                    8);
	tcase_add_loop_test(tc, a_moved_key_changes_its_value_bytes_and_nothing_else, 0, 2);
	tcase_add_loop_test(tc, keys_added_and_removed_move_the_slices_after_them, 0, 2);
	tcase_add_test(tc, a_bone_the_template_lacks_gets_a_node_record);
	tcase_add_test(tc, dense_tracks_are_reduced_within_the_tolerance);
	tcase_add_loop_test(tc, vehicle_animations_in_every_layout_come_back, 0, 6);
	tcase_add_loop_test(tc, edited_state_vectors_are_written_in_place, 0, 3);
	tcase_add_test(tc, what_a_vehicle_animation_cannot_hold_is_refused);
	tcase_add_loop_test(tc, body_part_remaps_come_back_in_both_byte_orders, 0, 2);
	tcase_add_test(tc, a_bundle_refuses_what_it_cannot_rebuild_alone);
	tcase_add_loop_test(tc, radient_clips_come_back_as_themselves, 0, 3);
	tcase_add_test(tc, a_clip_edit_lands_in_the_templates_document);
	tcase_add_test(tc, what_a_clip_document_cannot_take_is_refused);
	tcase_add_test(tc, a_value_beyond_the_class_is_refused_by_track_and_key);
	tcase_add_test(tc, headers_and_names_follow_the_options);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
