/* check_zouna.c: Zouna keyframers and Animation_Z resources, written by tests/lib/zouna_writer.c
 * from explicit keys so that every expected value is known (doc/formats.md 1). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/curve.h"
#include "formats/format.h"
#include "base/hash.h"
#include "testutil.h"
#include "zouna_writer.h"

static int decode(const struct zbuf *b, const char *filename, const char *class_name,
                  const char *endian, struct decode_result *result, struct error *err)
{
	struct upload up = {0};

	up.data = b->data;
	up.length = b->len;
	up.filename = filename;
	up.class_name = class_name;
	up.endian = endian;
	error_init(err);
	decode_result_init(result);
	return format_decode(&up, result, err);
}

/* The engine's Hermite (doc/formats.md 1.3), written independently of the sampler:
 * A = 2P0 - 2P1 + T0 + T1, B = -3P0 + 3P1 - 2T0 - T1, P0 + (T0 + (B + A u) u) u. */
static float engine_hermite(float p0, float t0, float p1, float t1, float u)
{
	float a = 2 * p0 - 2 * p1 + t0 + t1, b = -3 * p0 + 3 * p1 - 2 * t0 - t1;
	return p0 + (t0 + (b + a * u) * u) * u;
}

START_TEST(hermite_vectors_of_formats_1_3)
{
	/* (P0, T0, P1, T1, u) = (0,0,1,0,0.25) -> 0.15625; (0,1,1,1,0.25) -> 0.25, on a segment
	 * of 0.5 s starting at 2 s, in both byte orders */
	static const float tangents[2] = {0, 1}, want[2] = {0.15625f, 0.25f};
	for (int big = 0; big < 2; big++)
		for (int v = 0; v < 2; v++) {
			struct zkey keys[2] = {{.time = 2.0f, .v = {0}, .tout = {tangents[v]}},
			                       {.time = 2.5f, .v = {1}, .tin = {tangents[v]}}};
			struct zbuf b;
			struct decode_result r;
			struct error err;
			float out[1];
			zbuf_init(&b, big);
			zouna_write_keyframer(&b, "KeyframerFloat_Z", 0x1, keys, 2, 0);
			ck_assert_msg(decode(&b, "v.KeyframerFloat_Z", NULL, NULL, &r, &err) == 0,
			              "%s", err.message);
			testutil_sample(r.resources[0], 0, 2.0f + 0.25f * 0.5f, out);
			ck_assert_float_eq_tol(out[0], want[v], 1e-6f);
			ck_assert_str_eq(json_string_value(json_object_get(r.resources[0]->metadata,
			                                                   "byte_order")),
			                 big ? "big" : "little");
			decode_result_cleanup(&r);
			zbuf_free(&b);
		}
}
END_TEST

/* Every class: keys at 0, 1 and 3 s with values exact in their storage; samples at keys,
 * between them and outside, against the engine's formulas. */
static const struct {
	const char *name;
	int n, hermite, linear;
} value_classes[] = {
    {"KeyframerFloat_Z", 1, 1, 0},           {"KeyframerFloatComp_Z", 1, 1, 0},
    {"KeyframerFloatLinearComp_Z", 1, 0, 1}, {"KeyframerVec2fLinear_Z", 2, 0, 1},
    {"KeyframerVec2fLinearComp_Z", 2, 0, 1}, {"KeyframerVec3fComp_Z", 3, 1, 0},
    {"KeyframerVec3fLinear_Z", 3, 0, 1},     {"KeyframerExtVec3f_Z", 3, 1, 0},
    {"KeyframerVec4fLinear_Z", 4, 0, 1},     {"KeyframerVec4fLinearComp_Z", 4, 0, 1},
    {"KeyframerBezierRot_Z", 3, 1, 0},       {"KeyframerFloatLinear_Z", 1, 0, 1},
    {"KeyframerVec2f_Z", 2, 1, 0},           {"KeyframerVec2fComp_Z", 2, 1, 0},
    {"KeyframerVec3f_Z", 3, 1, 0},           {"KeyframerVec3fLinearComp_Z", 3, 0, 1},
    {"KeyframerVec4f_Z", 4, 1, 0},           {"KeyframerVec4fComp_Z", 4, 1, 0},
};
#define VALUE_CLASSES (sizeof(value_classes) / sizeof(value_classes[0]))

static void make_keys(struct zkey keys[3], int n)
{
	static const float times[3] = {0.0f, 1.0f, 3.0f};
	memset(keys, 0, 3 * sizeof(*keys));
	for (int k = 0; k < 3; k++) {
		keys[k].time = times[k];
		for (int j = 0; j < n; j++) {
			keys[k].v[j] =
			    (float)((k * 3 + j) % 5) * 0.25f - 0.5f; /* exact in i16/4096 */
			keys[k].tin[j] = 0.125f * (float)(j + 1);
			keys[k].tout[j] = -0.25f * (float)(k + 1);
		}
	}
}

START_TEST(every_value_class_in_both_byte_orders)
{
	const char *name = value_classes[_i / 2].name;
	int n = value_classes[_i / 2].n, hermite = value_classes[_i / 2].hermite;
	int big = _i % 2;
	struct zkey keys[3];
	struct zbuf b;
	struct decode_result r;
	struct error err;
	static const float probes[] = {-1.0f, 0.0f, 0.25f, 0.5f, 1.0f, 1.5f, 2.9f, 3.0f, 7.0f};
	char filename[64];

	make_keys(keys, n);
	zbuf_init(&b, big);
	zouna_write_keyframer(&b, name, 0x1, keys, 3, 0);
	snprintf(filename, sizeof(filename), "clip.%s", name);
	ck_assert_msg(decode(&b, filename, NULL, NULL, &r, &err) == 0, "%s %s: %s", name,
	              big ? "BE" : "LE", err.message);
	ck_assert_str_eq(r.resources[0]->class_name, name);
	ck_assert_str_eq(json_string_value(json_object_get(r.resources[0]->metadata, "byte_order")),
	                 big ? "big" : "little");
	for (size_t p = 0; p < sizeof(probes) / sizeof(probes[0]); p++) {
		float t = probes[p], out[4], want;
		int k = t < 1.0f ? 0 : 1;
		float t0 = keys[k].time, t1 = keys[k + 1].time, u = (t - t0) / (t1 - t0);
		testutil_sample(r.resources[0], 0, t, out);
		for (int j = 0; j < n; j++) {
			if (t < 0.0f) /* the engine's forward search finds no segment: last key */
				want = keys[2].v[j];
			else if (t == 0.0f)
				want = keys[0].v[j];
			else if (t >= 3.0f)
				want = keys[2].v[j];
			else if (hermite)
				want = engine_hermite(keys[k].v[j], keys[k].tout[j],
				                      keys[k + 1].v[j], keys[k + 1].tin[j], u);
			else if (j == 3 && t != keys[k].time &&
			         strcmp(name, "KeyframerVec4fLinear_Z") == 0)
				want = 1.0f; /* w between keys (doc/formats.md 1.3) */
			else
				want = keys[k].v[j] + (keys[k + 1].v[j] - keys[k].v[j]) * u;
			ck_assert_msg(fabsf(out[j] - want) <= 2e-6f,
			              "%s %s t=%g [%d]: %.9g, want %.9g", name, big ? "BE" : "LE",
			              (double)t, j, (double)out[j], (double)want);
		}
	}
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(round_trip_gives_back_the_keys)
{
	const char *name = value_classes[_i].name;
	int n = value_classes[_i].n, hermite = value_classes[_i].hermite;
	struct zkey keys[3];
	struct zbuf b;
	struct decode_result r;
	struct error err;
	const struct sampler *s;
	const float *v;

	make_keys(keys, n);
	zbuf_init(&b, 0);
	zouna_write_keyframer(&b, name, 0x2, keys, 3, 0);
	ck_assert_int_eq(decode(&b, NULL, name, NULL, &r, &err), 0);
	s = &r.resources[0]->clip.samplers[0];
	v = s->values;
	ck_assert_uint_eq(s->key_count, 3);
	ck_assert_int_eq(s->interp, hermite ? INTERP_CUBIC_SPLINE : INTERP_LINEAR);
	for (int k = 0; k < 3; k++) {
		ck_assert_float_eq(s->times[k], keys[k].time);
		for (int j = 0; j < n; j++) {
			if (!hermite) {
				ck_assert_float_eq(v[k * n + j], keys[k].v[j]);
				continue;
			}
			/* per-second tangents times the segment they shape give the engine's back
			 */
			float d_in = k > 0 ? keys[k].time - keys[k - 1].time : 1;
			float d_out = k < 2 ? keys[k + 1].time - keys[k].time : 1;
			ck_assert_float_eq_tol(v[(k * 3 + 0) * n + j] * d_in, keys[k].tin[j],
			                       1e-6f);
			ck_assert_float_eq(v[(k * 3 + 1) * n + j], keys[k].v[j]);
			ck_assert_float_eq_tol(v[(k * 3 + 2) * n + j] * d_out, keys[k].tout[j],
			                       1e-6f);
		}
	}
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(the_step_flag_holds_the_previous_key)
{
	struct zkey keys[2] = {{.time = 0, .v = {0.5f}}, {.time = 1, .v = {1.5f}}};
	struct zbuf b;
	struct decode_result r;
	struct error err;
	float out[1];

	zbuf_init(&b, 0);
	zouna_write_keyframer(&b, "KeyframerFloatComp_Z", 0x8, keys, 2, 0);
	ck_assert_int_eq(decode(&b, "x.KeyframerFloatComp_Z", NULL, NULL, &r, &err), 0);
	ck_assert_int_eq(r.resources[0]->clip.samplers[0].interp, INTERP_STEP);
	testutil_sample(r.resources[0], 0, 0.99f, out);
	ck_assert_float_eq(out[0], 0.5f);
	testutil_sample(r.resources[0], 0, 1.0f, out);
	ck_assert_float_eq(out[0], 1.5f);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(rotation_keys_slerp_as_quaternions)
{
	/* identity, then 180 degrees about z: halfway is 90 degrees about z */
	struct zkey keys[2] = {{.time = 0, .v = {0, 0, 0, 1}}, {.time = 2, .v = {0, 0, 1, 0}}};
	struct zbuf b;
	struct decode_result r;
	struct error err;
	float out[4];

	for (int big = 0; big < 2; big++) {
		zbuf_init(&b, big);
		zouna_write_keyframer(&b, "KeyframerRot_Z", 0, keys, 2, 0);
		ck_assert_int_eq(decode(&b, "spin.KeyframerRot_Z", NULL, NULL, &r, &err), 0);
		ck_assert_int_eq(r.resources[0]->clip.samplers[0].semantic,
		                 SEMANTIC_NORMALIZED_QUATERNION);
		testutil_sample(r.resources[0], 0, 1.0f, out);
		ck_assert_float_eq_tol(out[2], sqrtf(0.5f), 1e-6f);
		ck_assert_float_eq_tol(out[3], sqrtf(0.5f), 1e-6f);
		ck_assert_uint_gt(json_array_size(r.resources[0]->assumed), 0);
		decode_result_cleanup(&r);
		zbuf_free(&b);
	}
}
END_TEST

/* The keys as decoded, before any normalising: i16 / 2000 (RatDecomp KEY_QUAT_COMP_FACTOR).
 * A key (1000, -500, 0, 2000) is (0.5, -0.25, 0, 1); sampled, it would be normalised, which
 * hides a wrong divisor, so the stored key values are checked. */
START_TEST(rotation_keys_are_divided_by_2000)
{
	struct zkey keys[2] = {{.time = 0, .v = {0.5f, -0.25f, 0, 1}},
	                       {.time = 1, .v = {0, 0, 0, -1}}};
	static const float want[8] = {0.5f, -0.25f, 0, 1, 0, 0, 0, -1};
	struct zbuf b;
	struct decode_result r;
	struct error err;

	for (int big = 0; big < 2; big++) {
		const struct sampler *s;
		zbuf_init(&b, big);
		zouna_write_keyframer(&b, "KeyframerRot_Z", 0, keys, 2, 0);
		/* the bytes hold 1000, -500, 0, 2000 */
		ck_assert_uint_eq(b.data[4 + 4 + (big ? 1 : 0)], big ? 0xE8 : 0xE8);
		ck_assert_int_eq(decode(&b, "k.KeyframerRot_Z", NULL, NULL, &r, &err), 0);
		s = &r.resources[0]->clip.samplers[0];
		ck_assert_uint_eq(s->value_bytes, sizeof(want));
		for (int i = 0; i < 8; i++)
			ck_assert_float_eq(((const float *)s->values)[i], want[i]);
		decode_result_cleanup(&r);
		zbuf_free(&b);
	}
}
END_TEST

static const char *reading_of(const struct resource *res)
{
	return json_string_value(
	    json_object_get(json_object_get(res->metadata, "keyframer"), "reading"));
}

START_TEST(the_three_readings_of_formats_1_4)
{
	struct zkey keys[3];
	struct zbuf b;
	struct decode_result r;
	struct error err;
	uint32_t words[3] = {0xAABBCCDD, 0x11223344, 0};

	/* ExtVec3f: f32 times, then the seed's u16 time and flags */
	make_keys(keys, 3);
	for (int layout = 0; layout < 2; layout++) {
		zbuf_init(&b, 0);
		zouna_write_keyframer(&b, "KeyframerExtVec3f_Z", 0, keys, 3,
		                      layout ? ZW_SEED_LAYOUT : 0);
		ck_assert_msg(decode(&b, "e.KeyframerExtVec3f_Z", NULL, NULL, &r, &err) == 0, "%s",
		              err.message);
		ck_assert_msg(strstr(reading_of(r.resources[0]), layout ? "seed" : "f32 time"),
		              "%s", reading_of(r.resources[0]));
		ck_assert_float_eq(r.resources[0]->clip.samplers[0].times[2], 3.0f);
		decode_result_cleanup(&r);
		zbuf_free(&b);
	}
	/* Vec4fLinearComp: i16 (12-byte keys) or f32 (20-byte keys), by the length */
	make_keys(keys, 4);
	keys[1].v[0] = 0.1f; /* not exact in i16: tells the readings apart */
	for (int layout = 0; layout < 2; layout++) {
		float out[4];
		zbuf_init(&b, 1);
		zouna_write_keyframer(&b, "KeyframerVec4fLinearComp_Z", 0, keys, 3,
		                      layout ? ZW_SEED_LAYOUT : 0);
		ck_assert_uint_eq(b.len, 6 + 3 * (layout ? 20 : 12));
		ck_assert_int_eq(decode(&b, "v.KeyframerVec4fLinearComp_Z", NULL, NULL, &r, &err),
		                 0);
		ck_assert(strstr(reading_of(r.resources[0]), layout ? "f32" : "i16"));
		testutil_sample(r.resources[0], 0, 1.0f, out);
		if (layout)
			ck_assert_float_eq(out[0], 0.1f);
		else
			ck_assert_float_eq(out[0], (float)lrintf(0.1f * 4096) / 4096);
		decode_result_cleanup(&r);
		zbuf_free(&b);
	}
	/* Hdl: (time, handle) or (handle, time); handles become references */
	for (int k = 0; k < 3; k++)
		keys[k].word = words[k];
	for (int order = 0; order < 2; order++) {
		const struct sampler *s;
		zbuf_init(&b, 0);
		zouna_write_keyframer(&b, "KeyframerHdl_Z", 0, keys, 3,
		                      order ? ZW_HANDLE_FIRST : 0);
		ck_assert_int_eq(decode(&b, "h.KeyframerHdl_Z", NULL, NULL, &r, &err), 0);
		ck_assert(strstr(reading_of(r.resources[0]),
		                 order ? "handle, then time" : "time, then handle"));
		s = &r.resources[0]->clip.samplers[0];
		ck_assert_int_eq(s->type, VALUE_UINT);
		ck_assert_int_eq(s->interp, INTERP_STEP);
		ck_assert_uint_eq(((uint32_t *)s->values)[1], 0x11223344u);
		ck_assert_float_eq(s->times[2], 3.0f);
		ck_assert_uint_eq(r.resources[0]->ref_count,
		                  2); /* the zero handle is no reference */
		ck_assert_uint_eq(r.resources[0]->refs[0].crc32, 0xAABBCCDDu);
		decode_result_cleanup(&r);
		zbuf_free(&b);
	}
}
END_TEST

START_TEST(flags_and_messages)
{
	struct zmessage m[3] = {{12, 0xCAFEF00D, 0, 0.5f, 0x00C0FFEE},
	                        {36, 0x12345678, 15, 1.0f, 0},
	                        {13, 0, 0, -2.0f, 0xABCDEF01}};
	struct zkey keys[3] = {{.time = 0.0f, .messages = m, .message_count = 2},
	                       {.time = 0.5f, .messages = NULL, .message_count = 0},
	                       {.time = 1.0f, .messages = m + 2, .message_count = 1}};
	struct zkey flags[2] = {{.time = 0, .word = 7}, {.time = 1, .word = 9}};
	struct zbuf b;
	struct decode_result r;
	struct error err;
	const struct sampler *s;
	const uint32_t *w;
	float param;

	zbuf_init(&b, 1);
	zouna_write_keyframer(&b, "KeyframerMessage_Z", 0, keys, 3, 0);
	ck_assert_msg(decode(&b, "m.KeyframerMessage_Z", NULL, NULL, &r, &err) == 0, "%s",
	              err.message);
	ck_assert(r.resources[0]->extras[0].events);
	s = &r.resources[0]->clip.samplers[0];
	ck_assert_uint_eq(s->key_count, 3); /* one per message */
	ck_assert_float_eq(s->times[1], 0.0f);
	ck_assert_float_eq(s->times[2], 1.0f);
	w = s->values;
	ck_assert_uint_eq(w[EVENT_WORDS + EVENT_MESSAGE_CLASS], 36);
	ck_assert_uint_eq(w[EVENT_WORDS + EVENT_RECEIVER], 0x12345678u);
	memcpy(&param, &w[2 * EVENT_WORDS + EVENT_PARAMETER], 4);
	ck_assert_float_eq(param, -2.0f);
	/* receivers and message IDs are references */
	ck_assert_uint_eq(r.resources[0]->ref_count, 4);
	decode_result_cleanup(&r);
	zbuf_free(&b);

	zbuf_init(&b, 0);
	zouna_write_keyframer(&b, "KeyframerFlag_Z", 0, flags, 2, 0);
	ck_assert_int_eq(decode(&b, "f.KeyframerFlag_Z", NULL, NULL, &r, &err), 0);
	ck_assert_uint_eq(((uint32_t *)r.resources[0]->clip.samplers[0].values)[1], 9);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(class_and_handle_from_file_name_and_parameters)
{
	struct zkey keys[1] = {{.time = 0, .v = {1}}};
	struct zbuf b;
	struct decode_result r;
	struct error err;

	zbuf_init(&b, 0);
	zouna_write_keyframer(&b, "KeyframerFloat_Z", 0, keys, 1, 0);
	ck_assert_int_eq(decode(&b, "dir/hero_run.KeyframerFloat_Z", NULL, NULL, &r, &err), 0);
	ck_assert_str_eq(r.resources[0]->name, "hero_run");
	ck_assert_uint_eq(r.resources[0]->crc32, hash_asobo32("hero_run", 8));
	decode_result_cleanup(&r);
	/* class= wins over the extension; endian= forces the byte order */
	ck_assert_int_eq(decode(&b, "x.bin", "KeyframerFloat_Z", "little", &r, &err), 0);
	decode_result_cleanup(&r);
	ck_assert_int_eq(decode(&b, "x.bin", "KeyframerFloat_Z", "big", &r, &err), -1);
	decode_result_cleanup(&r);
	ck_assert_int_eq(decode(&b, "x.bin", "KeyframerFloat_Z", "middle", &r, &err), -1);
	ck_assert_int_eq(err.code, ERROR_BAD_PARAMETER);
	decode_result_cleanup(&r);
	/* without a class anywhere, nothing claims the bytes */
	ck_assert_int_eq(decode(&b, "x.bin", NULL, NULL, &r, &err), -1);
	ck_assert_int_eq(err.code, ERROR_UNSUPPORTED_FORMAT);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* Animation_Z */

static uint32_t bone_crc[3];

static void build_animation(struct zbuf *b, int big, size_t bff, uint32_t compressed,
                            uint32_t class_crc)
{
	/* rot: bone 0 keys 0-1, bone 2 keys 2-3; bezierRot: bone 1 keys 0-1;
	 * trans: bone 0 keys 0-1; scale: bone 1 keys 0-0 (none); messages: bone 2 */
	static struct zkey rot[4] = {{.time = 0, .v = {0, 0, 0, 1}},
	                             {.time = 2, .v = {0, 0, 1, 0}},
	                             {.time = 0, .v = {1, 0, 0, 0}},
	                             {.time = 1, .v = {0, 1, 0, 0}}};
	static struct zkey bezier[2] = {{.time = 0, .v = {0, 1, 2}, .tout = {1, 1, 1}},
	                                {.time = 1, .v = {1, 2, 3}, .tin = {1, 1, 1}}};
	static struct zkey trans[2] = {{.time = 0, .v = {0, 0, 0}}, {.time = 2, .v = {1, 2, -1}}};
	static struct zmessage msg = {36, 0xDEADBEEF, 0, 1.0f, 0x01020304};
	static struct zkey msgs[1] = {{.time = 0.5f, .messages = &msg, .message_count = 1}};
	static struct zkey mat[1] = {{.time = 0, .v = {0.25f}}};
	static uint32_t link[2] = {0x11111111, 0x22222222};
	struct znode nodes[3] = {
	    {bone_crc[0], 0, 1, {0, 2}, {0, 2}, {0, 0}, {0, 0}, {0, 0}},
	    {bone_crc[1], 1, 6, {0, 0}, {0, 0}, {0, 2}, {0, 0}, {0, 0}},
	    {bone_crc[2], 2, 0, {0, 0}, {2, 2}, {0, 0}, {0, 0}, {0, 1}},
	};
	struct zmaterial material = {0x0BADF00D, 0, 0, {0, 1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}};
	struct zmesh mesh = {0x0EE5EE5E, 0, 0, {0, 1}};
	struct zanimation a = {0};

	a.max_time = 2.0f;
	a.smooth_ratio = 0.5f;
	a.flag = 3;
	a.node_flag = 1;
	a.keys[0] = rot, a.counts[0] = 4;
	a.keys[1] = bezier, a.counts[1] = 2;
	a.keys[3] = trans, a.counts[3] = 2;
	a.keys[4] = msgs, a.counts[4] = 1;
	a.keys[5] = mat, a.counts[5] = 1;
	a.keys[10] = mat, a.counts[10] = 1;
	a.nodes = nodes, a.node_count = 3;
	a.materials = &material, a.material_count = 1;
	a.meshes = &mesh, a.mesh_count = 1;
	a.link = link, a.link_count = 2;
	a.name_crc = hash_asobo32("hero_run", 8);
	a.compressed_size = compressed;
	a.class_crc = class_crc;
	zbuf_init(b, big);
	zouna_write_animation(b, &a, bff, big ? 10 : 0);
}

static const size_t header_sizes[] = {0, 16, 22, 24};

START_TEST(animation_z_with_every_header_in_both_byte_orders)
{
	size_t bff = header_sizes[_i / 2];
	int big = _i % 2;
	struct zbuf b;
	struct decode_result r;
	struct error err;
	const struct resource *res;
	json_t *container;
	float out[4];

	bone_crc[0] = hash_asobo32("Bip01 Pelvis", 12);
	bone_crc[1] = hash_asobo32("Bip01 Spine", 11);
	bone_crc[2] = hash_asobo32("Bip01 Head", 10);
	build_animation(&b, big, bff, 0, 0);
	ck_assert_msg(decode(&b, "hero_run.Animation_Z", NULL, NULL, &r, &err) == 0,
	              "header %zu %s: %s", bff, big ? "BE" : "LE", err.message);
	res = r.resources[0];
	ck_assert_str_eq(res->class_name, "Animation_Z");
	ck_assert_str_eq(res->name, "hero_run");
	ck_assert_uint_eq(res->crc32, hash_asobo32("hero_run", 8));
	ck_assert_str_eq(res->crc32_source, "header");
	ck_assert_double_eq(res->clip.duration, 2.0);
	container = json_object_get(res->metadata, "container");
	ck_assert_str_eq(json_string_value(json_object_get(container, "byte_order")),
	                 big ? "big" : "little");
	ck_assert_str_eq(json_string_value(json_object_get(container, "kind")),
	                 bff ? "bff" : "object");
	if (bff)
		ck_assert_int_eq(json_integer_value(json_object_get(container, "bff_header_size")),
		                 (json_int_t)bff);
	/* tracks: bone 0 translation + rotation, bone 1 euler rotation, bone 2 rotation +
	 * messages, material translation u, mesh */
	ck_assert_uint_eq(res->clip.channel_count, 7);
	{
		char want[64];
		snprintf(want, sizeof(want), "bone 0x%08X translation", bone_crc[0]);
		ck_assert_str_eq(res->track_names[0], want);
	}
	/* bone 0's rotation: identity to 180 degrees about z over 2 s */
	testutil_sample(res, 1, 1.0f, out);
	ck_assert_float_eq_tol(out[2], sqrtf(0.5f), 1e-6f);
	ck_assert_float_eq_tol(out[3], sqrtf(0.5f), 1e-6f);
	/* bone 0's translation, linear-free Hermite with zero tangents: halfway is halfway */
	testutil_sample(res, 0, 1.0f, out);
	ck_assert_float_eq_tol(out[1], 1.0f, 1e-6f);
	/* bone 2's rotation uses keys 2-3 of the shared keyframer */
	testutil_sample(res, 3, 0.0f, out);
	ck_assert_float_eq(out[0], 1.0f);
	ck_assert(res->extras[4].events);
	ck_assert_uint_eq(res->extras[1].handle, bone_crc[0]);
	/* node flags are named */
	ck_assert_str_eq(
	    json_string_value(json_array_get(
	        json_object_get(
	            json_array_get(
	                json_object_get(json_object_get(res->metadata, "animation"), "nodes"), 1),
	            "flags_named"),
	        0)),
	    "reset rotation");
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(animation_z_refusals)
{
	struct zbuf b;
	struct decode_result r;
	struct error err;

	build_animation(&b, 0, 16, 1234, 0);
	ck_assert_int_eq(decode(&b, "x.Animation_Z", NULL, NULL, &r, &err), -1);
	ck_assert_msg(error_http_status(err.code) == 422, "%s", err.message);
	ck_assert(strstr(err.message, "compressed"));
	decode_result_cleanup(&r);
	zbuf_free(&b);
	build_animation(&b, 0, 0, 0, hash_asobo32("MaterialAnim_Z", 14));
	ck_assert_int_eq(decode(&b, "x.MaterialAnim_Z", NULL, NULL, &r, &err), -1);
	ck_assert_int_eq(error_http_status(err.code), 415);
	ck_assert(strstr(err.message, "MaterialAnim_Z"));
	decode_result_cleanup(&r);
	zbuf_free(&b);
	build_animation(&b, 1, 24, 0, 0x12345678);
	ck_assert_int_eq(decode(&b, "x.Animation_Z", NULL, NULL, &r, &err), -1);
	ck_assert_int_eq(error_http_status(err.code), 415);
	decode_result_cleanup(&r);
	zbuf_free(&b);
	/* bogus sizes: the data size one byte off */
	build_animation(&b, 0, 16, 0, 0);
	b.data[16] ^= 1;
	ck_assert_int_eq(decode(&b, "x.Animation_Z", NULL, NULL, &r, &err), -1);
	ck_assert_msg(error_http_status(err.code) == 422, "%s", err.message);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* Every fixture cut at every byte: a 4xx error each time, never a crash. */
START_TEST(every_truncation_is_a_clear_error)
{
	struct zkey keys[3];
	struct zbuf fixtures[5];
	const char *names[5] = {"a.KeyframerVec3fComp_Z", "b.KeyframerMessage_Z",
	                        "c.KeyframerHdl_Z", "d.Animation_Z", "e.Animation_Z"};
	struct zmessage m = {1, 2, 3, 4, 5};
	size_t checked = 0;

	make_keys(keys, 4);
	keys[0].messages = keys[2].messages = &m;
	keys[0].message_count = keys[2].message_count = 1;
	keys[0].word = 0xABCDEF12, keys[1].word = 0x12345678, keys[2].word = 7;
	zbuf_init(&fixtures[0], 0);
	zouna_write_keyframer(&fixtures[0], "KeyframerVec3fComp_Z", 1, keys, 3, 0);
	zbuf_init(&fixtures[1], 1);
	zouna_write_keyframer(&fixtures[1], "KeyframerMessage_Z", 0, keys, 3, 0);
	zbuf_init(&fixtures[2], 0);
	zouna_write_keyframer(&fixtures[2], "KeyframerHdl_Z", 0, keys, 3, ZW_HANDLE_FIRST);
	build_animation(&fixtures[3], 0, 16, 0, 0);
	build_animation(&fixtures[4], 1, 0, 0, 0);
	for (int f = 0; f < 5; f++) {
		for (size_t len = 0; len < fixtures[f].len; len++) {
			struct zbuf cut = fixtures[f];
			struct decode_result r;
			struct error err;
			cut.len = len;
			ck_assert_msg(decode(&cut, names[f], NULL, NULL, &r, &err) == -1,
			              "%s cut at %zu decoded", names[f], len);
			ck_assert_msg(error_http_status(err.code) >= 400 &&
			                  error_http_status(err.code) < 500,
			              "%s cut at %zu: %s", names[f], len, err.message);
			ck_assert(err.message[0]);
			decode_result_cleanup(&r);
			checked++;
		}
		zbuf_free(&fixtures[f]);
	}
	ck_assert_uint_gt(checked, 500);
}
END_TEST

START_TEST(hostile_counts_times_and_sizes)
{
	struct zkey keys[3];
	struct zbuf b;
	struct decode_result r;
	struct error err;
	static const uint32_t counts[] = {0xFFFFFFFFu, 0xFFFFFFF0u, 0x80000000u, 0x10000000u};

	make_keys(keys, 3);
	/* counts near 2^32 */
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		zbuf_init(&b, 0);
		zouna_write_keyframer(&b, "KeyframerVec3fComp_Z", 1, keys, 3, 0);
		memcpy(b.data + 2, &counts[i], 4);
		ck_assert_int_eq(decode(&b, "x.KeyframerVec3fComp_Z", NULL, NULL, &r, &err), -1);
		ck_assert_int_eq(error_http_status(err.code), 400);
		decode_result_cleanup(&r);
		zbuf_free(&b);
	}
	/* a length the key size does not divide */
	zbuf_init(&b, 0);
	zouna_write_keyframer(&b, "KeyframerVec3fLinear_Z", 1, keys, 3, 0);
	zbuf_bytes(&b, "\0\0\0", 3);
	ck_assert_int_eq(decode(&b, "x.KeyframerVec3fLinear_Z", NULL, NULL, &r, &err), -1);
	ck_assert(strstr(err.message, "does not fit"));
	decode_result_cleanup(&r);
	zbuf_free(&b);
	/* NaN and decreasing times; NaN values */
	keys[1].time = NAN;
	zbuf_init(&b, 0);
	zouna_write_keyframer(&b, "KeyframerVec3fLinear_Z", 1, keys, 3, 0);
	ck_assert_int_eq(decode(&b, "x.KeyframerVec3fLinear_Z", NULL, "little", &r, &err), -1);
	ck_assert_int_eq(err.code, ERROR_TIME_NOT_FINITE);
	decode_result_cleanup(&r);
	zbuf_free(&b);
	keys[1].time = 5.0f;
	zbuf_init(&b, 0);
	zouna_write_keyframer(&b, "KeyframerVec3fLinear_Z", 1, keys, 3, 0);
	ck_assert_int_eq(decode(&b, "x.KeyframerVec3fLinear_Z", NULL, "little", &r, &err), -1);
	ck_assert_int_eq(err.code, ERROR_TIME_NOT_INCREASING);
	ck_assert_str_eq(err.path, "KeyframerVec3fLinear_Z.keys[2].time");
	decode_result_cleanup(&r);
	zbuf_free(&b);
	keys[1].time = 1.0f;
	keys[1].v[2] = NAN;
	zbuf_init(&b, 0);
	zouna_write_keyframer(&b, "KeyframerVec3fLinear_Z", 1, keys, 3, 0);
	ck_assert_int_eq(decode(&b, "x.KeyframerVec3fLinear_Z", NULL, "little", &r, &err), -1);
	ck_assert_int_eq(err.code, ERROR_VALUE_NOT_FINITE);
	decode_result_cleanup(&r);
	zbuf_free(&b);
	/* a record whose slice runs past its keyframer */
	bone_crc[0] = 1, bone_crc[1] = 2, bone_crc[2] = 3;
	build_animation(&b, 0, 0, 0, 0);
	{
		/* the first node record's rotCount sits 10 bytes into it; the records start
		 * after the keyframers: find bone 1's CRC and patch its translation count */
		uint32_t one = 1;
		for (size_t at = 0; at + 4 <= b.len; at++)
			if (memcmp(b.data + at, &one, 4) == 0 && at + 12 <= b.len &&
			    b.data[at + 4] == 0 && b.data[at + 6] == 1) {
				b.data[at + 10] = 200; /* trans count */
				break;
			}
	}
	ck_assert_int_eq(decode(&b, "x.Animation_Z", NULL, NULL, &r, &err), -1);
	ck_assert_int_eq(err.code, ERROR_INDEX_OUT_OF_RANGE);
	ck_assert_str_eq(err.path, "nodes[0].trans");
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* The material record's pairs are transU, emissive, diffuse, rot, transV, while the
 * keyframers are stored transU, transV, diffuse, emissive, rot (doc/formats.md 1.5). Five
 * keyframers of 2 to 6 keys, each with its own values, and two materials cutting different slices:
 * each track must hold exactly the keys of its own keyframer's slice. */
static float material_value(int keyframer, int key, int component)
{
	return (float)(keyframer + 1) + (float)key * 0.125f + (float)component * 0.0625f;
}

START_TEST(material_records_in_the_engine_order)
{
	int big = _i;
	static const int counts[5] = {2, 3, 4, 5, 6}; /* transU, transV, diffuse, emissive, rot */
	static const int comps[5] = {1, 1, 3, 3, 1};
	static const char *const names[5] = {"translation u", "translation v", "diffuse",
	                                     "emissive", "rotation"};
	struct zkey keys[5][6];
	/* per material: (start, count) for transU, transV, diffuse, emissive, rot */
	static const int16_t slices[2][5][2] = {{{0, 2}, {1, 2}, {0, 4}, {2, 3}, {5, 1}},
	                                        {{1, 1}, {0, 3}, {3, 1}, {0, 5}, {0, 6}}};
	struct zmaterial materials[2];
	struct zanimation a = {0};
	struct zbuf b;
	struct decode_result r;
	struct error err;
	const struct resource *res;

	memset(keys, 0, sizeof(keys));
	for (int kf = 0; kf < 5; kf++)
		for (int k = 0; k < counts[kf]; k++) {
			keys[kf][k].time = (float)k * 0.5f;
			for (int j = 0; j < comps[kf]; j++)
				keys[kf][k].v[j] = material_value(kf, k, j);
		}
	for (int m = 0; m < 2; m++) {
		struct zmaterial *mt = &materials[m];
		memset(mt, 0, sizeof(*mt));
		mt->crc = 0x11110000u + (uint32_t)m;
		memcpy(mt->trans_u, slices[m][0], sizeof(mt->trans_u));
		memcpy(mt->trans_v, slices[m][1], sizeof(mt->trans_v));
		memcpy(mt->diffuse, slices[m][2], sizeof(mt->diffuse));
		memcpy(mt->emissive, slices[m][3], sizeof(mt->emissive));
		memcpy(mt->rot, slices[m][4], sizeof(mt->rot));
	}
	a.max_time = 3.0f;
	for (int kf = 0; kf < 5; kf++)
		a.keys[5 + kf] = keys[kf], a.counts[5 + kf] = (uint32_t)counts[kf];
	a.materials = materials, a.material_count = 2;
	a.name_crc = 0x1234;
	zbuf_init(&b, big);
	zouna_write_animation(&b, &a, 16, big ? 10 : 0);
	ck_assert_msg(decode(&b, "m.Animation_Z", NULL, NULL, &r, &err) == 0, "%s %s",
	              big ? "BE" : "LE", err.message);
	res = r.resources[0];
	ck_assert_uint_eq(res->clip.channel_count, 10);
	for (int m = 0; m < 2; m++)
		for (int kf = 0; kf < 5; kf++) {
			size_t n = (size_t)m * 5 + (size_t)kf;
			const struct sampler *sp =
			    &res->clip.samplers[res->clip.channels[n].sampler];
			struct curve c;
			char want[64];
			snprintf(want, sizeof(want), "material 0x%08X %s", materials[m].crc,
			         names[kf]);
			ck_assert_str_eq(res->track_names[n], want);
			ck_assert_uint_eq(sp->key_count, (unsigned)slices[m][kf][1]);
			curve_from_sampler(&c, sp);
			for (int k = 0; k < slices[m][kf][1]; k++) {
				int key = slices[m][kf][0] + k;
				const float *v = curve_key_value(&c, (uint32_t)k);
				ck_assert_float_eq(sp->times[k], (float)key * 0.5f);
				for (int j = 0; j < comps[kf]; j++)
					ck_assert_msg(v[j] == material_value(kf, key, j),
					              "%s %s key %d [%d]: %g, want %g",
					              big ? "BE" : "LE", want, k, j, (double)v[j],
					              (double)material_value(kf, key, j));
			}
		}
	/* the metadata shows the record in its own order */
	{
		json_t *m0 = json_array_get(
		    json_object_get(json_object_get(res->metadata, "animation"), "materials"), 1);
		ck_assert_int_eq(
		    json_integer_value(json_array_get(json_object_get(m0, "emissive"), 1)), 5);
		ck_assert_int_eq(
		    json_integer_value(json_array_get(json_object_get(m0, "trans_v"), 1)), 3);
	}
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* Material, mesh and morph starts and counts are signed: a negative one is a 422 naming the
 * field, whichever of them it is. */
START_TEST(negative_record_fields_are_refused)
{
	static struct zkey one[1] = {{.time = 0, .v = {0.5f, 0.5f, 0.5f}}};
	static const char *const paths[14] = {
	    "materials[0].transU",   "materials[0].transU",  "materials[0].emissive",
	    "materials[0].emissive", "materials[0].diffuse", "materials[0].diffuse",
	    "materials[0].rot",      "materials[0].rot",     "materials[0].transV",
	    "materials[0].transV",   "meshes[0].keys",       "meshes[0].keys",
	    "morphs[0].keys",        "morphs[0].keys"};
	int field = _i / 2, big = _i % 2;
	struct zmaterial material = {7, 0, 0, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}};
	struct zmesh mesh = {8, 0, 0, {0, 1}}, morph = {9, 0, 0, {0, 1}};
	int16_t *targets[14] = {&material.trans_u[0],  &material.trans_u[1], &material.emissive[0],
	                        &material.emissive[1], &material.diffuse[0], &material.diffuse[1],
	                        &material.rot[0],      &material.rot[1],     &material.trans_v[0],
	                        &material.trans_v[1],  &mesh.keys[0],        &mesh.keys[1],
	                        &morph.keys[0],        &morph.keys[1]};
	struct zanimation a = {0};
	struct zbuf b;
	struct decode_result r;
	struct error err;

	a.max_time = 1;
	for (int kf = 5; kf < 12; kf++)
		a.keys[kf] = one, a.counts[kf] = 1;
	a.materials = &material, a.material_count = 1;
	a.meshes = &mesh, a.mesh_count = 1;
	a.morphs = &morph, a.morph_count = 1;
	/* valid as it is */
	zbuf_init(&b, big);
	zouna_write_animation(&b, &a, 0, 0);
	ck_assert_msg(decode(&b, "x.Animation_Z", NULL, NULL, &r, &err) == 0, "%s", err.message);
	decode_result_cleanup(&r);
	zbuf_free(&b);
	*targets[field] = field % 2 ? -2 : -32768;
	zbuf_init(&b, big);
	zouna_write_animation(&b, &a, 0, 0);
	ck_assert_int_eq(decode(&b, "x.Animation_Z", NULL, NULL, &r, &err), -1);
	ck_assert_int_eq(error_http_status(err.code), 422);
	ck_assert_str_eq(err.path, paths[field]);
	ck_assert_msg(strstr(err.message, "negative") && strstr(err.message, paths[field]), "%s",
	              err.message);
	ck_assert_msg(strstr(err.message, field % 2 ? "count -2" : "start -32768"), "%s",
	              err.message);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* Before the first key, every Zouna class gives its last key's value (doc/formats.md 1.3), in both
 * byte orders, bare or as an Animation_Z slice; at the first key, the first. */
START_TEST(before_the_first_key_every_class_gives_the_last_key)
{
	static const char *const others[] = {"KeyframerRot_Z", "KeyframerHdl_Z", "KeyframerFlag_Z"};
	size_t cls = (size_t)_i / 2;
	int big = _i % 2;
	const char *name =
	    cls < VALUE_CLASSES ? value_classes[cls].name : others[cls - VALUE_CLASSES];
	int n = cls < VALUE_CLASSES ? value_classes[cls].n : 4;
	struct zkey keys[3];
	struct zbuf b;
	struct decode_result r;
	struct error err;
	char filename[64];

	memset(keys, 0, sizeof(keys));
	for (int k = 0; k < 3; k++) {
		keys[k].time = 0.5f + (float)k;
		keys[k].word = 0x100u + (uint32_t)k;
		for (int j = 0; j < 4; j++)
			keys[k].v[j] = (float)(k + 1) * 0.25f + (float)j * 0.125f;
	}
	if (strcmp(name, "KeyframerRot_Z") == 0) /* distinct unit quaternions */
		for (int k = 0; k < 3; k++) {
			memset(keys[k].v, 0, sizeof(keys[k].v));
			keys[k].v[k] = 1.0f;
		}
	zbuf_init(&b, big);
	ck_assert_int_eq(zouna_write_keyframer(&b, name, 0x1, keys, 3, 0), 0);
	snprintf(filename, sizeof(filename), "late.%s", name);
	ck_assert_msg(decode(&b, filename, NULL, big ? "big" : NULL, &r, &err) == 0, "%s: %s", name,
	              err.message);
	{
		const struct resource *res = r.resources[0];
		const struct sampler *sp = &res->clip.samplers[0];
		struct curve c;
		struct curve_cursor cursor;
		static const float before[] = {-5.0f, 0.0f, 0.25f, 0.4999f};
		curve_from_sampler(&c, sp);
		ck_assert_uint_eq(sp->rules & RULE_LAST_BEFORE_FIRST, RULE_LAST_BEFORE_FIRST);
		for (size_t p = 0; p < sizeof(before) / sizeof(before[0]); p++) {
			curve_cursor_init(&cursor);
			ck_assert_uint_eq(curve_step_key(&c, &cursor, before[p]), 2);
			if (value_type_scalar(sp->type) == SCALAR_FLOAT) {
				float out[4];
				testutil_sample(res, 0, before[p], out);
				for (int j = 0; j < n; j++)
					ck_assert_msg(out[j] == keys[2].v[j],
					              "%s %s t=%g [%d]: %g, want the last key's %g",
					              name, big ? "BE" : "LE", (double)before[p], j,
					              (double)out[j], (double)keys[2].v[j]);
			} else {
				ck_assert_uint_eq(((const uint32_t *)sp->values)[2], 0x102);
			}
		}
		curve_cursor_init(&cursor);
		ck_assert_uint_eq(curve_step_key(&c, &cursor, 0.5f), 0);
		if (value_type_scalar(sp->type) == SCALAR_FLOAT) {
			float out[4];
			testutil_sample(res, 0, 0.5f, out);
			ck_assert_float_eq(out[0], keys[0].v[0]);
		}
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_object_get(res->metadata, "sampling"),
		                                      "before_first_key")),
		    "last key's value");
	}
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* An Animation_Z slice that starts after 0 shows the last key of its own slice there. */
START_TEST(an_animation_slice_before_its_first_key)
{
	static struct zkey trans[4] = {{.time = 0, .v = {9, 9, 9}},
	                               {.time = 0.5f, .v = {1, 2, 3}},
	                               {.time = 1.5f, .v = {4, 5, 6}},
	                               {.time = 0.25f, .v = {7, 7, 7}}};
	struct znode node = {0xB0, 0, 0, {1, 2}, {0, 0}, {0, 0}, {0, 0}, {0, 0}};
	struct zanimation a = {0};
	struct zbuf b;
	struct decode_result r;
	struct error err;
	float out[3];

	a.max_time = 2;
	a.keys[3] = trans, a.counts[3] = 4;
	a.nodes = &node, a.node_count = 1;
	for (int big = 0; big < 2; big++) {
		zbuf_init(&b, big);
		zouna_write_animation(&b, &a, 24, 0);
		ck_assert_msg(decode(&b, "s.Animation_Z", NULL, NULL, &r, &err) == 0, "%s",
		              err.message);
		testutil_sample(r.resources[0], 0, 0.25f, out);
		ck_assert_float_eq(out[0], 4.0f);
		ck_assert_float_eq(out[2], 6.0f);
		testutil_sample(r.resources[0], 0, 0.5f, out);
		ck_assert_float_eq(out[0], 1.0f);
		decode_result_cleanup(&r);
		zbuf_free(&b);
	}
}
END_TEST

/* KeyframerVec4fLinear_Z: between keys x, y, z interpolate and w is 1.0; at a key its own w;
 * the compressed class interpolates w like the rest (doc/formats.md 1.3). */
START_TEST(vec4f_linear_w_between_keys)
{
	struct zkey keys[2] = {{.time = 0, .v = {0, 0, 0, 0.25f}},
	                       {.time = 1, .v = {1, 2, 3, 0.75f}}};
	struct zbuf b;
	struct decode_result r;
	struct error err;
	float out[4];

	for (int big = 0; big < 2; big++) {
		zbuf_init(&b, big);
		zouna_write_keyframer(&b, "KeyframerVec4fLinear_Z", 0x2, keys, 2, 0);
		ck_assert_int_eq(
		    decode(&b, "c.KeyframerVec4fLinear_Z", NULL, big ? "big" : NULL, &r, &err), 0);
		testutil_sample(r.resources[0], 0, 0.5f, out);
		ck_assert_float_eq(out[0], 0.5f);
		ck_assert_float_eq(out[1], 1.0f);
		ck_assert_float_eq(out[2], 1.5f);
		ck_assert_float_eq(out[3], 1.0f);
		testutil_sample(r.resources[0], 0, 0.0f, out);
		ck_assert_float_eq(out[3], 0.25f);
		testutil_sample(r.resources[0], 0, 1.0f, out);
		ck_assert_float_eq(out[3], 0.75f);
		{
			char *assumed = json_dumps(r.resources[0]->assumed, 0);
			ck_assert_msg(strstr(assumed, "w is 1.0") != NULL,
			              "the assumption is stated");
			free(assumed);
		}
		decode_result_cleanup(&r);
		zbuf_free(&b);
	}
	zbuf_init(&b, 0);
	zouna_write_keyframer(&b, "KeyframerVec4fLinearComp_Z", 0x2, keys, 2, 0);
	ck_assert_int_eq(decode(&b, "c.KeyframerVec4fLinearComp_Z", NULL, NULL, &r, &err), 0);
	testutil_sample(r.resources[0], 0, 0.5f, out);
	ck_assert_float_eq(out[3], 0.5f);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

static Suite *zouna_suite(void)
{
	Suite *s = suite_create("zouna");
	TCase *keyframers = tcase_create("keyframers"), *animation = tcase_create("animation");
	TCase *hostile = tcase_create("hostile");

	tcase_add_test(keyframers, hermite_vectors_of_formats_1_3);
	tcase_add_loop_test(keyframers, every_value_class_in_both_byte_orders, 0,
	                    (int)VALUE_CLASSES * 2);
	tcase_add_loop_test(keyframers, round_trip_gives_back_the_keys, 0, (int)VALUE_CLASSES);
	tcase_add_test(keyframers, the_step_flag_holds_the_previous_key);
	tcase_add_test(keyframers, rotation_keys_slerp_as_quaternions);
	tcase_add_test(keyframers, rotation_keys_are_divided_by_2000);
	tcase_add_test(keyframers, the_three_readings_of_formats_1_4);
	tcase_add_test(keyframers, flags_and_messages);
	tcase_add_test(keyframers, class_and_handle_from_file_name_and_parameters);
	tcase_add_loop_test(animation, animation_z_with_every_header_in_both_byte_orders, 0, 8);
	tcase_add_test(animation, animation_z_refusals);
	tcase_add_loop_test(animation, material_records_in_the_engine_order, 0, 2);
	tcase_add_loop_test(animation, negative_record_fields_are_refused, 0, 28);
	tcase_add_test(animation, an_animation_slice_before_its_first_key);
	tcase_add_loop_test(keyframers, before_the_first_key_every_class_gives_the_last_key, 0,
	                    ((int)VALUE_CLASSES + 3) * 2);
	tcase_add_test(keyframers, vec4f_linear_w_between_keys);
	tcase_add_test(hostile, every_truncation_is_a_clear_error);
	tcase_add_test(hostile, hostile_counts_times_and_sizes);
	tcase_set_timeout(hostile, 60);
	suite_add_tcase(s, keyframers);
	suite_add_tcase(s, animation);
	suite_add_tcase(s, hostile);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(zouna_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
