/* check_gltf.c: glTF 2.0 import. Conformance with ../shared/fixtures/gltf (samples from an
 * independent implementation, and the official validator's reports), and files written by
 * tests/lib/gltf_writer.c for every interpolation on every path and for hostile input. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/curve.h"
#include "formats/format.h"
#include "gltf_writer.h"
#include "base/hash.h"
#include "testutil.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define FLOAT  5126
#define BYTE   5120
#define UBYTE  5121
#define SHORT  5122
#define USHORT 5123

/* Loads a .gltf and the files its buffers name (from the same folder) as siblings. */
struct loaded {
	char *data;
	size_t length;
	struct upload_sibling siblings[4];
	char *sibling_data[4];
	char names[4][256];
	size_t count;
};

static int load_with_buffers(const char *path, struct loaded *l)
{
	json_t *doc;
	size_t i;
	json_t *b;
	char dir[1024];

	memset(l, 0, sizeof(*l));
	l->data = testutil_read_file(path, &l->length);
	if (!l->data)
		return -1;
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	doc = json_loadb(l->data, l->length, 0, NULL);
	json_array_foreach(json_object_get(doc, "buffers"), i, b)
	{
		const char *uri = json_string_value(json_object_get(b, "uri"));
		char file[1400];
		if (!uri || strncmp(uri, "data:", 5) == 0 || l->count == 4)
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, uri);
		snprintf(l->names[l->count], sizeof(l->names[0]), "%s", uri);
		l->sibling_data[l->count] = testutil_read_file(file, &l->siblings[l->count].length);
		if (!l->sibling_data[l->count])
			continue;
		l->siblings[l->count].filename = l->names[l->count];
		l->siblings[l->count].data = (const uint8_t *)l->sibling_data[l->count];
		l->count++;
	}
	json_decref(doc);
	return 0;
}

static void loaded_free(struct loaded *l)
{
	free(l->data);
	for (size_t i = 0; i < l->count; i++)
		free(l->sibling_data[i]);
}

static int decode_bytes(const void *data, size_t length, const char *filename,
                        struct upload_sibling *siblings, size_t sibling_count,
                        struct decode_result *r, struct error *err)
{
	struct upload up = {0};

	up.data = data;
	up.length = length;
	up.filename = filename;
	up.siblings = siblings;
	up.sibling_count = sibling_count;
	error_init(err);
	decode_result_init(r);
	return format_decode(&up, r, err);
}

/* Conformance */

static const char *const conformance[][2] = {
    {"gltf/BoxAnimated.gltf", "gltf/expected/BoxAnimated.json"},
    {"gltf/AnimatedTriangle.gltf", "gltf/expected/AnimatedTriangle.json"},
    {"gltf/InterpolationTest.embedded-notextures.gltf", "gltf/expected/InterpolationTest.json"},
    {"gltf/InterpolationTest-separate/InterpolationTest.gltf",
     "gltf/expected/InterpolationTest.json"},
};

/* Is either key around t a quaternion of non-unit length? (three.js slerps such keys
 * without normalising them; doc/formats.md 3.2 normalises first.) */
static int around_non_unit(const struct sampler *s, float t)
{
	uint32_t k = 0;

	while (k + 1 < s->key_count && s->times[k + 1] <= t)
		k++;
	for (uint32_t j = k; j <= k + 1 && j < s->key_count; j++) {
		const float *q = (const float *)s->values + (size_t)j * 4;
		if (fabsf(sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1) > 1e-6f)
			return 1;
	}
	return 0;
}

START_TEST(every_track_samples_like_the_independent_implementation)
{
	const char *fixtures = testutil_fixtures("glTF import conformance");
	char path[1024];
	struct loaded l;
	struct decode_result r;
	struct error err;
	json_t *expected, *clip;
	size_t ci, checked = 0, relaxed = 0;

	if (!fixtures)
		return;
	snprintf(path, sizeof(path), "%s/%s", fixtures, conformance[_i][0]);
	ck_assert_int_eq(load_with_buffers(path, &l), 0);
	ck_assert_msg(decode_bytes(l.data, l.length, path, l.siblings, l.count, &r, &err) == 0,
	              "%s", err.message);
	snprintf(path, sizeof(path), "%s/%s", fixtures, conformance[_i][1]);
	expected = json_load_file(path, 0, NULL);
	ck_assert_uint_eq(r.count, json_array_size(json_object_get(expected, "clips")));
	json_array_foreach(json_object_get(expected, "clips"), ci, clip)
	{
		const struct resource *res = r.resources[ci];
		json_t *track;
		size_t ti;
		const char *clip_name = json_string_value(json_object_get(clip, "name"));
		unsigned index;
		char named[300], stem[256];
		/* three.js calls an unnamed clip animation_N; animdex names it after the file:
		 * "BoxAnimated #N" */
		if (sscanf(clip_name, "animation_%u", &index) == 1) {
			const char *base = strrchr(conformance[_i][0], '/');
			base = base ? base + 1 : conformance[_i][0];
			snprintf(stem, sizeof(stem), "%.*s",
			         (int)(strrchr(base, '.') ? (size_t)(strrchr(base, '.') - base)
			                                  : strlen(base)),
			         base);
			snprintf(named, sizeof(named), "%s #%u", stem, index);
			clip_name = named;
		}
		ck_assert_str_eq(res->name, clip_name);
		ck_assert_double_eq_tol(res->clip.duration,
		                        json_number_value(json_object_get(clip, "duration")), 1e-6);
		json_array_foreach(json_object_get(clip, "tracks"), ti, track)
		{
			const struct sampler *s =
			    &res->clip.samplers[res->clip.channels[ti].sampler];
			int quat = s->semantic == SEMANTIC_NORMALIZED_QUATERNION;
			json_t *smp;
			size_t si;
			json_array_foreach(json_object_get(track, "samples"), si, smp)
			{
				float t = (float)json_number_value(json_array_get(smp, 0)), got[4],
				      w[4];
				json_t *want = json_array_get(smp, 1);
				size_t n = json_array_size(want);
				float sign = 1, tol = 1e-5f, norm = 0;
				testutil_sample(res, ti, t, got);
				for (size_t k = 0; k < n; k++)
					w[k] = (float)json_number_value(json_array_get(want, k));
				if (quat) {
					for (size_t k = 0; k < 4; k++)
						norm += w[k] * w[k];
					for (size_t k = 0; k < 4; k++)
						w[k] /= sqrtf(norm);
					if (got[0] * w[0] + got[1] * w[1] + got[2] * w[2] +
					        got[3] * w[3] <
					    0)
						sign = -1;
					if (s->interp == INTERP_LINEAR && around_non_unit(s, t))
						tol = 1e-4f, relaxed++;
				}
				for (size_t k = 0; k < n; k++)
					ck_assert_msg(
					    fabsf(sign * got[k] - w[k]) <= tol,
					    "%s %s t=%g [%zu]: %.9g, expected %.9g",
					    conformance[_i][0],
					    json_string_value(json_object_get(track, "name")),
					    (double)t, k, (double)(sign * got[k]), (double)w[k]);
				checked++;
			}
		}
	}
	ck_assert_uint_gt(checked, 10);
	if (relaxed)
		printf("note: %s: %zu of %zu samples lie between non-unit quaternion keys and were "
		       "compared within 1e-4\n",
		       conformance[_i][0], relaxed, checked);
	json_decref(expected);
	decode_result_cleanup(&r);
	loaded_free(&l);
}
END_TEST

/* Validator cases: every file whose official report has an error is refused with that
 * error's code; every other file is accepted. */
static char *validator_files[64];
static int validator_count;

static void list_validator_files(void)
{
	const char *fixtures = getenv("ANIMDEX_FIXTURES");
	static const char *const dirs[] = {"gltf/validator/animation",
	                                   "gltf/validator/animation_data"};

	for (size_t d = 0; fixtures && d < 2; d++) {
		char dir[1024];
		struct dirent **names;
		int n;
		snprintf(dir, sizeof(dir), "%s/%s", fixtures, dirs[d]);
		n = scandir(dir, &names, NULL, alphasort);
		for (int i = 0; i < n; i++) {
			size_t len = strlen(names[i]->d_name);
			if (len > 5 && strcmp(names[i]->d_name + len - 5, ".gltf") == 0 &&
			    validator_count < 64) {
				char path[1400];
				snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
				validator_files[validator_count++] = strdup(path);
			}
			free(names[i]);
		}
		if (n >= 0)
			free(names);
	}
}

START_TEST(validator_cases_get_the_validators_code)
{
	char report_path[1500];
	json_t *report, *m;
	const char *want = NULL;
	struct loaded l;
	struct decode_result r;
	struct error err;
	size_t i;
	int rc;

	if (validator_count == 0) {
		testutil_fixtures("glTF validator cases");
		return;
	}
	snprintf(report_path, sizeof(report_path), "%s.report.json", validator_files[_i]);
	report = json_load_file(report_path, 0, NULL);
	ck_assert_ptr_nonnull(report);
	json_array_foreach(json_object_get(json_object_get(report, "issues"), "messages"), i, m)
	{
		if (json_integer_value(json_object_get(m, "severity")) == 0) {
			want = json_string_value(json_object_get(m, "code"));
			break;
		}
	}
	ck_assert_int_eq(load_with_buffers(validator_files[_i], &l), 0);
	rc = decode_bytes(l.data, l.length, validator_files[_i], l.siblings, l.count, &r, &err);
	if (want && strcmp(want, "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE") == 0) {
		/* its strides equal its elements' sizes: the bytes of no stride, which animdex
		 * reads as three.js and Blender do (issue "Skeletons";
		 * strides_that_change_nothing_are_ accepted checks the reading). This file has no
		 * buffer data either, so it may be refused, but not for its strides. */
		ck_assert_msg(rc == 0 || !strstr(err.message, want),
		              "%s: refused for its strides: %s", validator_files[_i], err.message);
	} else if (want) {
		ck_assert_msg(rc == -1, "%s: accepted, but the validator reports %s",
		              validator_files[_i], want);
		ck_assert_msg(strncmp(err.message, want, strlen(want)) == 0 &&
		                  err.message[strlen(want)] == ' ',
		              "%s: want %s, got %s", validator_files[_i], want, err.message);
		ck_assert_int_eq(err.code, ERROR_GLTF_INVALID);
	} else {
		ck_assert_msg(rc == 0, "%s: refused: %s", validator_files[_i], err.message);
	}
	json_decref(report);
	decode_result_cleanup(&r);
	loaded_free(&l);
}
END_TEST

/* Written files */

static const float times2[2] = {0, 1};

/* Translation, rotation, scale and weights with one interpolation, in one animation. */
static void every_path(struct gltf_writer *w, const char *interpolation, int anim)
{
	int cubic = strcmp(interpolation, "CUBICSPLINE") == 0;
	float s = sqrtf(0.5f);
	float t[2][3] = {{0, 0, 0}, {2, 4, 6}}, sc[2][3] = {{1, 1, 1}, {3, 3, 3}};
	float q[2][4] = {{0, 0, 0, 1}, {s, 0, 0, s}}, wt[2][2] = {{0, 1}, {1, 0}};
	float buf[64];
	int input = gltf_writer_accessor(w, FLOAT, "SCALAR", 2, times2, sizeof(times2), 0, 1);
	int nodes[4];
	const float *keys[4] = {&t[0][0], &q[0][0], &sc[0][0], &wt[0][0]};
	static const int comps[4] = {3, 4, 3, 2};
	static const char *const paths[4] = {"translation", "rotation", "scale", "weights"};
	static const char *const types[4] = {"VEC3", "VEC4", "VEC3", "SCALAR"};

	nodes[0] = gltf_writer_node(w, "mover", 0);
	nodes[1] = gltf_writer_node(w, "turner", 0);
	nodes[2] = gltf_writer_node(w, "grower", 0);
	nodes[3] = gltf_writer_node(w, "face", 2);
	for (int p = 0; p < 4; p++) {
		size_t n = 0;
		int out;
		for (int k = 0; k < 2; k++) {
			if (cubic) /* zero in-tangents */
				for (int c = 0; c < comps[p]; c++)
					buf[n++] = 0;
			for (int c = 0; c < comps[p]; c++)
				buf[n++] = keys[p][k * comps[p] + c];
			if (cubic)
				for (int c = 0; c < comps[p]; c++)
					buf[n++] = 0;
		}
		out = gltf_writer_accessor(w, FLOAT, types[p], n / (p == 3 ? 1 : (size_t)comps[p]),
		                           buf, n * sizeof(float), 0, 0);
		gltf_writer_channel(w, anim, nodes[p], paths[p], interpolation, input, out);
	}
}

START_TEST(every_interpolation_on_every_path)
{
	static const char *const interps[3] = {"STEP", "LINEAR", "CUBICSPLINE"};
	struct gltf_writer w;
	struct decode_result r;
	struct error err;
	uint8_t *file;
	size_t len;
	float out[4], s45 = sinf((float)M_PI / 8), c45 = cosf((float)M_PI / 8);

	gltf_writer_init(&w);
	for (int i = 0; i < 3; i++)
		every_path(&w, interps[i], i);
	file = _i ? gltf_writer_glb(&w, &len) : gltf_writer_embedded(&w, &len);
	ck_assert_msg(decode_bytes(file, len, _i ? "m.glb" : "m.gltf", NULL, 0, &r, &err) == 0,
	              "%s", err.message);
	ck_assert_uint_eq(r.count, 3);
	for (int i = 0; i < 3; i++) {
		const struct resource *res = r.resources[i];
		int step = i == 0;
		ck_assert_uint_eq(res->clip.channel_count, 4);
		{
			char want[64];
			snprintf(want, sizeof(want), "node %d \"turner\" rotation", i * 4 + 1);
			ck_assert_str_eq(res->track_names[1], want);
		}
		testutil_sample(res, 0, 0.5f, out); /* translation */
		ck_assert_float_eq_tol(out[2], step ? 0.0f : 3.0f, 1e-6f);
		testutil_sample(res, 1, 0.5f, out); /* rotation: halfway to 90 degrees about x */
		ck_assert_float_eq_tol(out[0], step ? 0.0f : s45, 1e-6f);
		ck_assert_float_eq_tol(out[3], step ? 1.0f : c45, 1e-6f);
		testutil_sample(res, 2, 0.5f, out); /* scale */
		ck_assert_float_eq_tol(out[1], step ? 1.0f : 2.0f, 1e-6f);
		testutil_sample(res, 3, 0.5f, out); /* weights of two morph targets */
		ck_assert_float_eq_tol(out[0], step ? 0.0f : 0.5f, 1e-6f);
		ck_assert_float_eq_tol(out[1], step ? 1.0f : 0.5f, 1e-6f);
		ck_assert_uint_eq(res->clip.samplers[3].array_size, 2);
		ck_assert_str_eq(res->clip.targets[res->clip.channels[3].target].schema,
		                 SCHEMA_MORPH);
		testutil_sample(res, 0, 1.0f, out);
		ck_assert_float_eq(out[0], 2.0f);
	}
	free(file);
	decode_result_cleanup(&r);
	gltf_writer_cleanup(&w);
}
END_TEST

/* A channel without target.node is valid glTF (an extension may name the target): it is
 * listed in skipped with the reason and the rest is imported; a file whose every channel is
 * skipped is a clear 422. Several animations each get the handle of their own name. */
/* A byteStride equal to the element's size (the older Fox.gltf's) is read as no stride, and
 * said in `assumed`; one that would change which bytes are read is still refused. */
START_TEST(strides_that_change_nothing_are_accepted)
{
	static const float times[2] = {0, 1};
	static const float moves[6] = {0, 0, 0, 1, 2, 3};
	static const int strides[3][2] = {{4, 12}, {0, 12}, {8, 12}};

	for (int v = 0; v < 3; v++) {
		struct gltf_writer w;
		struct decode_result r;
		struct error err;
		json_t *views;
		uint8_t *data;
		size_t length;
		int in, out, rc;
		gltf_writer_init(&w);
		gltf_writer_node(&w, "box", 0);
		in = gltf_writer_accessor(&w, FLOAT, "SCALAR", 2, times, sizeof(times), 0, 1);
		out = gltf_writer_accessor(&w, FLOAT, "VEC3", 2, moves, sizeof(moves), 0, 0);
		gltf_writer_channel(&w, 0, 0, "translation", "LINEAR", in, out);
		views = json_object_get(w.doc, "bufferViews");
		if (strides[v][0])
			json_object_set_new(json_array_get(views, 0), "byteStride",
			                    json_integer(strides[v][0]));
		json_object_set_new(json_array_get(views, 1), "byteStride",
		                    json_integer(strides[v][1]));
		data = gltf_writer_embedded(&w, &length);
		rc = decode_bytes(data, length, "fox.gltf", NULL, 0, &r, &err);
		if (v < 2) {
			const struct sampler *sm;
			char *notes;
			ck_assert_msg(rc == 0, "strides %d, %d: %s", strides[v][0], strides[v][1],
			              err.message);
			sm = &r.resources[0]->clip.samplers[0];
			ck_assert_float_eq(((const float *)sm->values)[5], 3);
			ck_assert_float_eq(sm->times[1], 1);
			notes = json_dumps(r.resources[0]->assumed, 0);
			ck_assert_ptr_nonnull(
			    strstr(notes, "byteStride equal to its element's size"));
			free(notes);
		} else {
			ck_assert_int_eq(rc, -1);
			ck_assert_msg(
			    strstr(err.message, "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE"), "%s",
			    err.message);
		}
		decode_result_cleanup(&r);
		free(data);
		gltf_writer_cleanup(&w);
	}
}
END_TEST

START_TEST(channels_without_a_node_are_skipped)
{
	struct gltf_writer w;
	struct decode_result r;
	struct error err;
	uint8_t *file;
	size_t len;
	json_t *channels;

	gltf_writer_init(&w);
	every_path(&w, "LINEAR", 0);
	every_path(&w, "STEP", 1);
	json_object_set_new(json_array_get(json_object_get(w.doc, "animations"), 0), "name",
	                    json_string("Step Scale"));
	json_object_set_new(json_array_get(json_object_get(w.doc, "animations"), 1), "name",
	                    json_string("Linear"));
	channels =
	    json_object_get(json_array_get(json_object_get(w.doc, "animations"), 0), "channels");
	json_object_del(json_object_get(json_array_get(channels, 1), "target"), "node");
	file = gltf_writer_glb(&w, &len);
	ck_assert_msg(decode_bytes(file, len, "m.glb", NULL, 0, &r, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(r.count, 2);
	ck_assert_uint_eq(r.resources[0]->clip.channel_count, 3);
	ck_assert_uint_eq(json_array_size(r.skipped), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(r.skipped, 0), "name")),
	                 "animations[0].channels[1]");
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(json_array_get(r.skipped, 0), "reason")),
	           "no target node"));
	ck_assert_uint_eq(r.resources[0]->crc32, 0x0A106D6F);
	ck_assert_str_eq(r.resources[0]->crc32_source, "name");
	ck_assert_uint_eq(r.resources[1]->crc32, hash_crc32_lower("Linear", 6));
	free(file);
	decode_result_cleanup(&r);
	/* every channel without a node: nothing to import */
	for (size_t a = 0; a < 2; a++) {
		channels = json_object_get(json_array_get(json_object_get(w.doc, "animations"), a),
		                           "channels");
		for (size_t c = 0; c < json_array_size(channels); c++)
			json_object_del(json_object_get(json_array_get(channels, c), "target"),
			                "node");
	}
	file = gltf_writer_glb(&w, &len);
	ck_assert_int_eq(decode_bytes(file, len, "m.glb", NULL, 0, &r, &err), -1);
	ck_assert_int_eq(error_http_status(err.code), 422);
	ck_assert_msg(strstr(err.message, "every channel is skipped") &&
	                  strstr(err.message, "no target node"),
	              "%s", err.message);
	free(file);
	decode_result_cleanup(&r);
	gltf_writer_cleanup(&w);
}
END_TEST

/* glTF times must increase: two keys at one time are the validator's
 * ACCESSOR_ANIMATION_INPUT_NON_INCREASING, whatever the interpolation. */
START_TEST(equal_times_are_refused)
{
	static const float times[3] = {0, 0.5f, 0.5f};
	static const float moves[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
	struct gltf_writer w;
	struct decode_result r;
	struct error err;
	uint8_t *file;
	size_t len;
	int in, out;

	gltf_writer_init(&w);
	in = gltf_writer_accessor(&w, FLOAT, "SCALAR", 3, times, sizeof(times), 0, 1);
	out = gltf_writer_accessor(&w, FLOAT, "VEC3", 3, moves, sizeof(moves), 0, 0);
	gltf_writer_channel(&w, 0, gltf_writer_node(&w, "n", 0), "translation", "STEP", in, out);
	file = gltf_writer_glb(&w, &len);
	ck_assert_int_eq(decode_bytes(file, len, "e.glb", NULL, 0, &r, &err), -1);
	ck_assert_int_eq(error_http_status(err.code), 422);
	ck_assert_msg(strncmp(err.message, "ACCESSOR_ANIMATION_INPUT_NON_INCREASING", 39) == 0,
	              "%s", err.message);
	free(file);
	decode_result_cleanup(&r);
	gltf_writer_cleanup(&w);
}
END_TEST

START_TEST(normalised_integer_rotations)
{
	struct gltf_writer w;
	struct decode_result r;
	struct error err;
	uint8_t *file;
	size_t len;
	int8_t b[8] = {0, 0, 0, 127, -128, 0, 0, 0};
	uint8_t ub[8] = {0, 0, 0, 255, 180, 0, 0, 180};
	int16_t sh[8] = {0, 0, 0, 32767, -32768, 0, 0, 0}; /* -32768 / 32767 clamps to -1 */
	uint16_t us[8] = {0, 0, 0, 65535, 46341, 0, 0, 46341};
	const void *data[4] = {b, ub, sh, us};
	const size_t sizes[4] = {sizeof(b), sizeof(ub), sizeof(sh), sizeof(us)};
	const int types[4] = {BYTE, UBYTE, SHORT, USHORT};
	const float second_x[4] = {-1.0f, 180 / 255.0f, -1.0f, 46341 / 65535.0f};

	gltf_writer_init(&w);
	for (int i = 0; i < 4; i++) {
		int input =
		    gltf_writer_accessor(&w, FLOAT, "SCALAR", 2, times2, sizeof(times2), 0, 1);
		int out = gltf_writer_accessor(&w, types[i], "VEC4", 2, data[i], sizes[i], 1, 0);
		gltf_writer_channel(&w, 0, gltf_writer_node(&w, NULL, 0), "rotation", "STEP", input,
		                    out);
	}
	file = gltf_writer_embedded(&w, &len);
	ck_assert_msg(decode_bytes(file, len, "r.gltf", NULL, 0, &r, &err) == 0, "%s", err.message);
	for (int i = 0; i < 4; i++) {
		const float *v = r.resources[0]->clip.samplers[i].values;
		ck_assert_float_eq(v[3], 1.0f);
		ck_assert_float_eq(v[4], second_x[i]);
	}
	ck_assert_str_eq(r.resources[0]->track_names[0], "node 0 rotation");
	free(file);
	decode_result_cleanup(&r);
	gltf_writer_cleanup(&w);
}
END_TEST

START_TEST(cubic_morph_weights_keep_the_a_v_b_layout)
{
	struct gltf_writer w;
	struct decode_result r;
	struct error err;
	uint8_t *file;
	size_t len;
	/* 2 keys x (a1 a2, v1 v2, b1 b2) */
	float wt[12] = {0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 0};
	float out[2];
	int input, output, node;

	gltf_writer_init(&w);
	node = gltf_writer_node(&w, "face", 2);
	input = gltf_writer_accessor(&w, FLOAT, "SCALAR", 2, times2, sizeof(times2), 0, 1);
	output = gltf_writer_accessor(&w, FLOAT, "SCALAR", 12, wt, sizeof(wt), 0, 0);
	gltf_writer_channel(&w, 0, node, "weights", "CUBICSPLINE", input, output);
	file = gltf_writer_embedded(&w, &len);
	ck_assert_msg(decode_bytes(file, len, "w.gltf", NULL, 0, &r, &err) == 0, "%s", err.message);
	/* u = 0.5, d = 1: weight 0 = h00*0 + h10*2 + h01*1 + 0 = 0.125*2 + 0.5 = 0.75 */
	testutil_sample(r.resources[0], 0, 0.5f, out);
	ck_assert_float_eq_tol(out[0], 0.75f, 1e-6f);
	ck_assert_float_eq_tol(out[1], 0.5f, 1e-6f);
	free(file);
	decode_result_cleanup(&r);
	gltf_writer_cleanup(&w);
}
END_TEST

START_TEST(sparse_accessors_replace_their_elements)
{
	struct gltf_writer w;
	struct decode_result r;
	struct error err;
	uint8_t *file;
	size_t len;
	float base[6] = {0, 0, 0, 0, 0, 0}, repl[3] = {5, 6, 7}, out[3];
	uint16_t idx[1] = {1};
	int input, output;
	json_t *acc;

	gltf_writer_init(&w);
	input = gltf_writer_accessor(&w, FLOAT, "SCALAR", 2, times2, sizeof(times2), 0, 1);
	output = gltf_writer_accessor(&w, FLOAT, "VEC3", 2, base, sizeof(base), 0, 0);
	acc = json_array_get(json_object_get(w.doc, "accessors"), (size_t)output);
	json_object_set_new(acc, "sparse",
	                    json_pack("{s:i, s:{s:i, s:i}, s:{s:i}}", "count", 1, "indices",
	                              "bufferView", gltf_writer_view(&w, idx, sizeof(idx)),
	                              "componentType", USHORT, "values", "bufferView",
	                              gltf_writer_view(&w, repl, sizeof(repl))));
	gltf_writer_channel(&w, 0, gltf_writer_node(&w, "n", 0), "translation", "LINEAR", input,
	                    output);
	file = gltf_writer_embedded(&w, &len);
	ck_assert_msg(decode_bytes(file, len, "s.gltf", NULL, 0, &r, &err) == 0, "%s", err.message);
	testutil_sample(r.resources[0], 0, 1.0f, out);
	ck_assert_float_eq(out[0], 5.0f);
	ck_assert_float_eq(out[2], 7.0f);
	testutil_sample(r.resources[0], 0, 0.0f, out);
	ck_assert_float_eq(out[1], 0.0f);
	free(file);
	decode_result_cleanup(&r);
	gltf_writer_cleanup(&w);
}
END_TEST

/* One translation channel; `patch` damages the document before it is written. */
static uint8_t *small_file(void (*patch)(json_t *doc), int glb, size_t *len)
{
	struct gltf_writer w;
	float v[6] = {0, 0, 0, 1, 1, 1};
	uint8_t *file;
	int input, output;

	gltf_writer_init(&w);
	input = gltf_writer_accessor(&w, FLOAT, "SCALAR", 2, times2, sizeof(times2), 0, 1);
	output = gltf_writer_accessor(&w, FLOAT, "VEC3", 2, v, sizeof(v), 0, 0);
	gltf_writer_channel(&w, 0, gltf_writer_node(&w, "n", 0), "translation", "LINEAR", input,
	                    output);
	if (patch)
		patch(w.doc);
	file = glb ? gltf_writer_glb(&w, len) : gltf_writer_embedded(&w, len);
	gltf_writer_cleanup(&w);
	return file;
}

static json_t *accessor(json_t *doc, size_t i)
{
	return json_array_get(json_object_get(doc, "accessors"), i);
}

static void huge_count(json_t *doc)
{
	json_object_set_new(accessor(doc, 1), "count", json_integer(0x7FFFFFFF));
	json_object_set_new(accessor(doc, 0), "count", json_integer(0x7FFFFFFF));
}

static void past_its_buffer(json_t *doc)
{
	json_object_set_new(accessor(doc, 1), "byteOffset", json_integer(16));
}

static void view_past_buffer(json_t *doc)
{
	json_object_set_new(json_array_get(json_object_get(doc, "bufferViews"), 1), "byteLength",
	                    json_integer(4096));
}

static void huge_zero_accessor(json_t *doc)
{
	json_object_del(accessor(doc, 1), "bufferView");
	json_object_set_new(accessor(doc, 1), "count", json_integer(0x40000000));
	json_object_set_new(accessor(doc, 0), "count", json_integer(0x40000000));
}

static void negative_offset(json_t *doc)
{
	json_object_set_new(json_array_get(json_object_get(doc, "bufferViews"), 0), "byteOffset",
	                    json_integer(-4));
}

/* A file named .gltf is a glTF file, however broken: its errors are glTF's, never those of
 * another JSON format (a Radient clip's "duration"). */
START_TEST(a_broken_gltf_is_called_a_gltf_file)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
	    {"{\"asset\": {\"version\": \"2.0\"}, \"animations\": [",
	     "the glTF JSON is not valid: "},
	    {"{\"animations\": []}", "asset"},
	    {"  {}", "asset"},
	};
	struct decode_result r;
	struct error err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(decode_bytes(cases[i].text, strlen(cases[i].text), "Walk.GLTF",
		                              NULL, 0, &r, &err),
		                 -1);
		ck_assert_msg(strstr(err.message, cases[i].message) != NULL &&
		                  strstr(err.message, "duration") == NULL &&
		                  strstr(err.message, "clip document") == NULL,
		              "case %zu: %s", i, err.message);
		decode_result_cleanup(&r);
	}
}
END_TEST

START_TEST(hostile_files_get_clear_errors)
{
	static const struct {
		void (*patch)(json_t *);
		const char *code;
	} cases[] = {{huge_count, "ACCESSOR_TOO_LONG"},
	             {past_its_buffer, "ACCESSOR_TOO_LONG"},
	             {view_past_buffer, "BUFFER_VIEW_TOO_LONG"},
	             {huge_zero_accessor, "ACCESSOR_TOO_LONG"},
	             {negative_offset, "INVALID_VALUE"}};
	struct decode_result r;
	struct error err;
	size_t len;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t *file = small_file(cases[i].patch, (int)(i % 2), &len);
		ck_assert_int_eq(decode_bytes(file, len, "h.gltf", NULL, 0, &r, &err), -1);
		ck_assert_msg(strncmp(err.message, cases[i].code, strlen(cases[i].code)) == 0,
		              "case %zu: want %s, got %s", i, cases[i].code, err.message);
		decode_result_cleanup(&r);
		free(file);
	}
	/* bad base64 */
	{
		uint8_t *file = small_file(NULL, 0, &len);
		char *p = strstr((char *)file, "base64,");
		p[10] = '*';
		ck_assert_int_eq(decode_bytes(file, len, "b.gltf", NULL, 0, &r, &err), -1);
		ck_assert_msg(strncmp(err.message, "INVALID_URI", 11) == 0, "%s", err.message);
		decode_result_cleanup(&r);
		free(file);
	}
	/* a .glb whose lengths lie */
	{
		uint8_t *file = small_file(NULL, 1, &len);
		uint8_t saved = file[14];
		file[14] = 0x7F; /* the JSON chunk's length, far past the file */
		ck_assert_int_eq(decode_bytes(file, len, "l.glb", NULL, 0, &r, &err), -1);
		ck_assert_msg(strncmp(err.message, "GLB_CHUNK_TOO_BIG", 17) == 0, "%s",
		              err.message);
		decode_result_cleanup(&r);
		file[14] = saved;
		file[12] -= 8; /* shorter than the JSON: the JSON is cut */
		ck_assert_int_eq(decode_bytes(file, len, "l.glb", NULL, 0, &r, &err), -1);
		ck_assert_int_eq(err.code, ERROR_MALFORMED);
		decode_result_cleanup(&r);
		file[12] += 8;
		file[8] ^= 4; /* the total length */
		ck_assert_int_eq(decode_bytes(file, len, "l.glb", NULL, 0, &r, &err), -1);
		ck_assert_msg(strncmp(err.message, "GLB_LENGTH_MISMATCH", 19) == 0, "%s",
		              err.message);
		decode_result_cleanup(&r);
		free(file);
	}
	/* a missing external buffer is named */
	{
		const char *doc =
		    "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":24,"
		    "\"uri\":\"anim%20data.bin\"}],\"bufferViews\":[{\"buffer\":0,"
		    "\"byteLength\":8}],\"accessors\":[{\"bufferView\":0,\"componentType\":"
		    "5126,\"type\":\"SCALAR\",\"count\":2,\"min\":[0],\"max\":[1]},"
		    "{\"componentType\":5126,\"type\":\"VEC3\",\"count\":2}],\"nodes\":[{}],"
		    "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"
		    "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":"
		    "\"scale\"}}]}]}";
		ck_assert_int_eq(decode_bytes(doc, strlen(doc), "x.gltf", NULL, 0, &r, &err), -1);
		ck_assert_int_eq(err.code, ERROR_BAD_PARAMETER);
		ck_assert_msg(strstr(err.message, "'anim data.bin' was not uploaded"), "%s",
		              err.message);
		decode_result_cleanup(&r);
	}
}
END_TEST

START_TEST(every_truncated_glb_is_a_clear_error)
{
	size_t len, checked = 0;
	uint8_t *file = small_file(NULL, 1, &len);
	struct decode_result r;
	struct error err;

	for (size_t cut = 4; cut < len; cut++) {
		ck_assert_msg(decode_bytes(file, cut, "t.glb", NULL, 0, &r, &err) == -1, "cut %zu",
		              cut);
		ck_assert_msg(error_http_status(err.code) >= 400 &&
		                  error_http_status(err.code) < 500,
		              "cut %zu: %s", cut, err.message);
		decode_result_cleanup(&r);
		checked++;
	}
	ck_assert_uint_gt(checked, 100);
	free(file);
}
END_TEST

/* 45,000 channels, three paths on each of 15,000 nodes sharing one sampler each: the check
 * for duplicate targets is linear (comparing each channel with every earlier one took 15 s
 * for 20,000 channels: past the test case's time-out); a duplicate at the end is still found
 * and names the first channel of its target. */
START_TEST(many_channels_are_checked_in_linear_time)
{
	enum { NODES = 15000 };
	static const float times[2] = {0, 1};
	static const float moves[6] = {0, 0, 0, 1, 0, 0};
	static const float turns[8] = {0, 0, 0, 1, 0, 0, 0, 1};
	static const char *const paths[3] = {"translation", "rotation", "scale"};
	struct gltf_writer w;
	struct decode_result r;
	struct error err;
	json_t *nodes = json_array(), *channels, *samplers;
	uint8_t *data;
	size_t length;
	int input, vec3, quat;

	gltf_writer_init(&w);
	for (int i = 0; i < NODES; i++)
		json_array_append_new(nodes, json_object());
	json_object_set_new(w.doc, "nodes", nodes);
	input = gltf_writer_accessor(&w, 5126, "SCALAR", 2, times, sizeof(times), 0, 1);
	vec3 = gltf_writer_accessor(&w, 5126, "VEC3", 2, moves, sizeof(moves), 0, 0);
	quat = gltf_writer_accessor(&w, 5126, "VEC4", 2, turns, sizeof(turns), 0, 0);
	samplers = json_pack("[{s:i, s:i}, {s:i, s:i}]", "input", input, "output", vec3, "input",
	                     input, "output", quat);
	channels = json_array();
	for (int i = 0; i < NODES; i++)
		for (int p = 0; p < 3; p++)
			json_array_append_new(channels,
			                      json_pack("{s:i, s:{s:i, s:s}}", "sampler", p == 1,
			                                "target", "node", i, "path", paths[p]));
	json_object_set_new(w.doc, "animations",
	                    json_pack("[{s:o, s:o}]", "samplers", samplers, "channels", channels));
	data = gltf_writer_glb(&w, &length);
	ck_assert_msg(decode_bytes(data, length, "many.glb", NULL, 0, &r, &err) == 0, "%s",
	              err.message);
	ck_assert_uint_eq(r.resources[0]->clip.channel_count, NODES * 3);
	decode_result_cleanup(&r);
	free(data);
	json_array_append_new(channels, json_pack("{s:i, s:{s:i, s:s}}", "sampler", 1, "target",
	                                          "node", NODES - 2, "path", "rotation"));
	data = gltf_writer_glb(&w, &length);
	ck_assert_int_eq(decode_bytes(data, length, "many.glb", NULL, 0, &r, &err), -1);
	ck_assert_msg(strstr(err.message, "ANIMATION_DUPLICATE_TARGETS at /animations/0/channels/"
	                                  "45000/target: channel 44995 already animates node "
	                                  "14998's rotation"),
	              "%s", err.message);
	decode_result_cleanup(&r);
	free(data);
	gltf_writer_cleanup(&w);
}
END_TEST

/* A .gltf's image files go up with it and are kept inside it (data URIs), as its buffers are, so
 * that the 3D view shows the mesh with its texture; an image not uploaded is said on the entry. */
START_TEST(images_uploaded_with_a_gltf_are_kept_inside_it)
{
	static const char *const doc =
	    "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
	    "\"nodes\":[{\"name\":\"n\"}],\"buffers\":[{\"uri\":\"m.bin\",\"byteLength\":32}],"
	    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,"
	    "\"byteLength\":24}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
	    "\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},{\"bufferView\":1,"
	    "\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],\"images\":[{\"uri\":"
	    "\"skin%20one.png\"}],\"textures\":[{\"source\":0}],\"materials\":[{"
	    "\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
	    "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[{"
	    "\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}";
	static const float bin[8] = {0, 1, 0, 0, 0, 1, 0, 0};
	static const uint8_t png[8] = {0x89, 'P', 'N', 'G', 13, 10, 26, 10};
	struct upload_sibling siblings[2] = {{"m.bin", (const uint8_t *)bin, sizeof(bin), 0},
	                                     {"skin one.png", png, sizeof(png), 0}};
	struct decode_result r;
	struct error err;
	char *stored;

	ck_assert_msg(decode_bytes(doc, strlen(doc), "skin.gltf", siblings, 2, &r, &err) == 0, "%s",
	              err.message);
	ck_assert_msg(r.stored != NULL, "the .gltf is not kept with its files inside");
	stored = strndup((const char *)r.stored, r.stored_length);
	ck_assert_msg(strstr(stored, "\"uri\":\"data:image/png;base64,iVBORw0KGgo=\""), "%s",
	              stored);
	ck_assert_msg(strstr(stored, "data:application/octet-stream;base64,"), "%s", stored);
	ck_assert_int_eq(siblings[1].used, 1);
	free(stored);
	decode_result_cleanup(&r);
	/* the image not uploaded: decoded all the same, and said */
	siblings[0].used = 0;
	ck_assert_msg(decode_bytes(doc, strlen(doc), "skin.gltf", siblings, 1, &r, &err) == 0, "%s",
	              err.message);
	stored = json_dumps(r.resources[0]->assumed, 0);
	ck_assert_msg(strstr(stored, "images[0]: 'skin one.png' was not uploaded with the glTF"),
	              "%s", stored);
	free(stored);
	decode_result_cleanup(&r);
}
END_TEST

/* An animdex .glb's tracks kept in extras (what glTF cannot animate) are read back as the same
 * tracks, values as stored; an item animdex would not write is left out and said, and a float
 * track claiming event words is not taken for events. */
START_TEST(tracks_kept_in_animdex_extras_are_read_back)
{
	static const char *const doc =
	    "{\"asset\":{\"version\":\"2.0\",\"extras\":{\"animdex\":{\"entry\":1}}},\"scene\":0,"
	    "\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"n\"}],\"buffers\":[{\"uri\":\"k."
	    "bin\","
	    "\"byteLength\":48}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,"
	    "\"byteOffset\":8,\"byteLength\":24},{\"buffer\":0,\"byteOffset\":32,\"byteLength\":8},"
	    "{\"buffer\":0,\"byteOffset\":40,\"byteLength\":8}],\"accessors\":[{\"bufferView\":0,"
	    "\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
	    "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},{"
	    "\"bufferView\":2,"
	    "\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},{\"bufferView\":3,"
	    "\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}],\"animations\":[{"
	    "\"samplers\":"
	    "[{\"input\":0,\"output\":1}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,"
	    "\"path\":\"translation\"}}],\"extras\":{\"animdex\":{\"not_animated\":["
	    "{\"track\":1,\"name\":\"material 0x0BADF00D translation u\",\"type\":\"FLOAT\","
	    "\"array_size\":1,\"interpolation\":\"LINEAR\",\"key_count\":2,\"target\":{\"schema\":"
	    "\"5A0E7D1C-4F2B-4B8E-9C3A-A5B0C0DE0001\",\"name\":\"0x0BADF00D\",\"object\":195948557}"
	    ","
	    "\"property\":4,\"input\":2,\"output\":3,\"event_words\":[\"a\"]},"
	    "{\"track\":2,\"name\":\"odd\",\"type\":\"NOT_A_TYPE\",\"input\":2,\"output\":3}]}}}]}";
	static const float bin[12] = {0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.25f, 0.5f};
	struct upload_sibling siblings[1] = {{"k.bin", (const uint8_t *)bin, sizeof(bin), 0}};
	struct decode_result r;
	struct error err;
	const struct resource *res;
	const float *v;
	char *assumed;

	ck_assert_msg(decode_bytes(doc, strlen(doc), "k.gltf", siblings, 1, &r, &err) == 0, "%s",
	              err.message);
	res = r.resources[0];
	ck_assert_uint_eq(res->clip.channel_count, 2);
	ck_assert_str_eq(res->clip.targets[res->clip.channels[1].target].schema, SCHEMA_ZOUNA);
	ck_assert_str_eq(res->clip.targets[res->clip.channels[1].target].name, "0x0BADF00D");
	ck_assert_uint_eq(res->clip.channels[1].property, 4);
	v = res->clip.samplers[res->clip.channels[1].sampler].values;
	ck_assert(v[0] == 0.25f && v[1] == 0.5f);
	ck_assert_int_eq(res->extras[1].events, 0);
	ck_assert_str_eq(res->track_names[1], "material 0x0BADF00D translation u");
	assumed = json_dumps(res->assumed, 0);
	ck_assert_msg(strstr(assumed, "not_animated/1: not a track animdex's export kept"), "%s",
	              assumed);
	free(assumed);
	decode_result_cleanup(&r);
	{
		/* a kept track of no times is refused, naming it */
		char *none = strdup(doc),
		     *at = strstr(none, "\"bufferView\":2,\"componentType\":5126,\"count\":2");
		ck_assert_ptr_nonnull(at);
		at[strlen("\"bufferView\":2,\"componentType\":5126,\"count\":")] = '0';
		ck_assert_int_eq(decode_bytes(none, strlen(none), "k.gltf", siblings, 1, &r, &err),
		                 -1);
		ck_assert_msg(strstr(err.path, "not_animated/0") ||
		                  strstr(err.message, "not_animated/0"),
		              "%s: %s", err.path, err.message);
		decode_result_cleanup(&r);
		free(none);
	}
}
END_TEST

static Suite *gltf_suite(void)
{
	Suite *s = suite_create("gltf");
	TCase *conf = tcase_create("conformance"), *own = tcase_create("written");

	list_validator_files();
	tcase_add_loop_test(conf, every_track_samples_like_the_independent_implementation, 0,
	                    sizeof(conformance) / sizeof(conformance[0]));
	tcase_add_loop_test(conf, validator_cases_get_the_validators_code, 0,
	                    validator_count ? validator_count : 1);
	tcase_add_loop_test(own, every_interpolation_on_every_path, 0, 2);
	tcase_add_test(own, channels_without_a_node_are_skipped);
	tcase_add_test(own, images_uploaded_with_a_gltf_are_kept_inside_it);
	tcase_add_test(own, tracks_kept_in_animdex_extras_are_read_back);
	tcase_add_test(own, strides_that_change_nothing_are_accepted);
	tcase_add_test(own, normalised_integer_rotations);
	tcase_add_test(own, equal_times_are_refused);
	tcase_add_test(own, cubic_morph_weights_keep_the_a_v_b_layout);
	tcase_add_test(own, sparse_accessors_replace_their_elements);
	tcase_add_test(own, a_broken_gltf_is_called_a_gltf_file);
	tcase_add_test(own, hostile_files_get_clear_errors);
	tcase_add_test(own, every_truncated_glb_is_a_clear_error);
	tcase_add_test(own, many_channels_are_checked_in_linear_time);
	tcase_set_timeout(own, 30);
	suite_add_tcase(s, conf);
	suite_add_tcase(s, own);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gltf_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int i = 0; i < validator_count; i++)
		free(validator_files[i]);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
