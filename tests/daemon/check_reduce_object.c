/* check_reduce_object.c: reduce=object against the real daemon, on export and on native.
 *
 * Export: a BVH take made here
 * (a T-pose first frame, then smooth turns with a little noise, as motion capture is) and, when
 * Debian's assimp-testmodels is installed, the CMU clip 01_03, exported at several largest
 * object-space errors: the report's figures hold together, fewer keys than the take has, and the
 * reduced .glb, uploaded back, posed by the daemon at every frame and between frames, stays
 * within the threshold of the unreduced export at every bone's three virtual vertices (measured
 * here, from the world matrices `pose` answers); bad reduce=, error= and vv= are 400s naming
 * the parameter, an entry with no rig a 422.
 *
 * Native: an Animation_Z of dense rotation keys on a Skel_Z written here. Its native report
 * gives the object-space error on skeleton= (0 where every key is kept byte for byte; null, with
 * a note, on no rig); reduce=object&skeleton= writes fewer keys, and the file, uploaded back and
 * posed on the skeleton, stays within the threshold plus one quantisation step of the class
 * (1/2000 a quaternion component) through the chain of bones it turns. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "testutil.h"
#include "zouna_writer.h"

#define FRAMES     361
#define FRAME_TIME (1.0 / 120)

static struct daemon_proc d;
static char *dir;

static void start(void)
{
	char db[512];

	dir = testutil_temp_dir();
	snprintf(db, sizeof(db), "%s/reduce_object.db", dir);
	if (daemon_start(&d, db, "--max-samples 10000000") < 0)
		exit(1);
}

static void stop(void)
{
	if (daemon_stop(&d) != 0) {
		printf("FAIL: the daemon exited badly\n");
		exit(1);
	}
	testutil_remove_tree(dir);
	free(dir);
}

/* A take of five joints: frame 0 the T-pose (every channel 0), then turns of up to 25 degrees
 * at a few Hz with noise of 0.02 degrees, and the hips travelling. */
static char *make_take(void)
{
	static const char hierarchy[] =
	    "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n"
	    " CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
	    " JOINT Spine\n {\n  OFFSET 0 10 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
	    "  JOINT Head\n  {\n   OFFSET 0 12 0\n   CHANNELS 3 Zrotation Xrotation Yrotation\n"
	    "   End Site\n   {\n    OFFSET 0 6 0\n   }\n  }\n }\n"
	    " JOINT LeftLeg\n {\n  OFFSET 3 -2 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
	    "  JOINT LeftFoot\n  {\n   OFFSET 0 -16 0\n   CHANNELS 3 Zrotation Xrotation "
	    "Yrotation\n"
	    "   End Site\n   {\n    OFFSET 0 0 4\n   }\n  }\n }\n}\n";
	size_t cap = 64 * 1024 + (size_t)FRAMES * 20 * 16, len;
	char *out = malloc(cap);
	unsigned seed = 12345;

	ck_assert_ptr_nonnull(out);
	len = (size_t)snprintf(out, cap, "%sMOTION\nFrames: %d\nFrame Time: %.7f\n", hierarchy,
	                       FRAMES, FRAME_TIME);
	for (int f = 0; f < FRAMES; f++) {
		double t = f * FRAME_TIME, v[18];
		for (int c = 0; c < 18; c++) {
			double noise;
			seed = seed * 1103515245u + 12345u;
			noise = ((double)(seed >> 16 & 0x7fff) / 0x7fff - 0.5) * 0.04;
			if (f == 0)
				v[c] = 0;
			else if (c < 3)
				v[c] = c == 0   ? 20 * t
				       : c == 1 ? 1 + 0.5 * sin(6 * t)
				                : 0.2 * sin(3 * t);
			else
				v[c] = 25 * sin((1.5 + 0.37 * c) * t + c) + noise;
		}
		for (int c = 0; c < 18; c++)
			len += (size_t)snprintf(out + len, cap - len, c ? " %.4f" : "%.4f", v[c]);
		len += (size_t)snprintf(out + len, cap - len, "\n");
	}
	return out;
}

/* The entry the bytes make, or are already (200: the same bytes catalogued before). */
static json_int_t upload_bytes(const char *name, const void *data, size_t length)
{
	struct http_reply r;
	const char *names[1] = {name};
	const void *datas[1] = {data};
	json_t *doc;
	json_int_t id;

	ck_assert_int_eq(http_upload(&d, 1, names, datas, &length, NULL, &r), 0);
	ck_assert_msg(r.status == 201 || r.status == 200, "upload %s: %ld %.300s", name, r.status,
	              r.body);
	doc = http_json(&r);
	id = json_integer_value(
	    json_object_get(json_array_get(json_object_get(doc, "resources"), 0), "id"));
	json_decref(doc);
	http_reply_cleanup(&r);
	ck_assert_int_gt(id, 0);
	return id;
}

/* GET path: the body (the caller's), asserting the status. */
static char *get(const char *path, long want, size_t *length)
{
	struct http_reply r;
	char *body;

	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_msg(r.status == want, "GET %s: %ld, not %ld: %.400s", path, r.status, want,
	              r.body);
	body = r.body;
	*length = r.length;
	r.body = NULL;
	http_reply_cleanup(&r);
	return body;
}

/* The export of entry id (query appended) uploaded back: the new entry's id. */
static json_int_t export_again(json_int_t id, const char *query, const char *name)
{
	char path[512];
	size_t length;
	char *glb;
	json_int_t again;

	snprintf(path, sizeof(path), "/api/resources/%lld/export?%s", (long long)id, query);
	glb = get(path, 200, &length);
	again = upload_bytes(name, glb, length);
	free(glb);
	return again;
}

static double number(const json_t *v)
{
	return json_number_value(v);
}

static float *world_matrices_on(json_int_t id, json_int_t skeleton, const double *times,
                                size_t count, json_t *names);

/* The world matrices of entry id at `count` times: [time][node][16], nodes in the order of
 * `names` (asserting every one is found); the caller frees. */
static float *world_matrices(json_int_t id, const double *times, size_t count, json_t *names)
{
	return world_matrices_on(id, 0, times, count, names);
}

/* The same posed on skeleton's rig (0: the entry's own). */
static float *world_matrices_on(json_int_t id, json_int_t skeleton, const double *times,
                                size_t count, json_t *names)
{
	size_t nodes = json_array_size(names), at = 0;
	float *out = calloc(count * nodes * 16, sizeof(float));

	ck_assert_ptr_nonnull(out);
	while (at < count) {
		char path[8192];
		size_t len = (size_t)snprintf(path, sizeof(path),
		                              "/api/resources/%lld/pose?t=", (long long)id);
		size_t batch = 0, n;
		if (skeleton)
			len = (size_t)snprintf(path, sizeof(path),
			                       "/api/resources/%lld/pose?skeleton=%lld&t=",
			                       (long long)id, (long long)skeleton);
		json_t *doc, *index = json_object(), *node;
		for (; at + batch < count && batch < 100; batch++)
			len += (size_t)snprintf(path + len, sizeof(path) - len,
			                        batch ? ",%.9g" : "%.9g", times[at + batch]);
		doc = http_get_json(&d, path, 200);
		json_array_foreach(json_object_get(doc, "nodes"), n, node)
		    json_object_set_new(index, json_string_value(json_object_get(node, "name")),
		                        json_integer((json_int_t)n));
		for (size_t k = 0; k < batch; k++) {
			json_t *world = json_object_get(
			    json_array_get(json_object_get(doc, "poses"), k), "world");
			for (size_t b = 0; b < nodes; b++) {
				const char *name = json_string_value(json_array_get(names, b));
				json_t *slot = json_object_get(index, name);
				json_t *m;
				ck_assert_msg(slot, "entry %lld has no node %s", (long long)id,
				              name);
				m = json_array_get(world, (size_t)json_integer_value(slot));
				ck_assert_msg(json_array_size(m) == 16,
				              "entry %lld at t=%g: no world matrix of %s (%zu "
				              "poses of %zu, %zu matrices)",
				              (long long)id, times[at + k], name,
				              json_array_size(json_object_get(doc, "poses")), batch,
				              json_array_size(world));
				for (int e = 0; e < 16; e++)
					out[((at + k) * nodes + b) * 16 + e] =
					    (float)number(json_array_get(m, e));
			}
		}
		json_decref(index);
		json_decref(doc);
		at += batch;
	}
	return out;
}

/* The largest distance between the two poses' virtual vertices (vv from each bone's origin
 * along its three axes), the straightforward way. */
static double largest_vertex_error(const float *a, const float *b, size_t matrices, double vv)
{
	double worst = 0;

	for (size_t m = 0; m < matrices; m++) {
		const float *x = a + m * 16, *y = b + m * 16;
		for (int axis = 0; axis < 3; axis++) {
			double d2 = 0;
			for (int r = 0; r < 3; r++) {
				double p = x[12 + r] + vv * x[axis * 4 + r];
				double q = y[12 + r] + vv * y[axis * 4 + r];
				d2 += (p - q) * (p - q);
			}
			if (sqrt(d2) > worst)
				worst = sqrt(d2);
		}
	}
	return worst;
}

/* Entry id reduced at `cm`: the report checked, the reduced file uploaded back and posed at
 * every frame and between frames against the unreduced export. */
static void reduce_and_check(json_int_t id, const char *label, double cm, size_t frames,
                             double frame_time)
{
	char path[256], query[128];
	json_t *doc, *report, *names = json_array();
	double threshold_units, vv_units, largest_cm, *times;
	json_int_t before_keys, after_keys, plain, reduced;
	size_t count = 2 * frames - 1, nodes, n;
	float *want, *got;
	json_t *node;

	snprintf(query, sizeof(query), "reduce=object&error=%gcm", cm);
	snprintf(path, sizeof(path), "/api/resources/%lld/export?%s&summary=1", (long long)id,
	         query);
	doc = http_get_json(&d, path, 200);
	report = json_array_get(json_object_get(doc, "reduction"), 0);
	ck_assert_msg(report, "%s: no reduction in the summary", label);
	before_keys =
	    json_integer_value(json_object_get(json_object_get(report, "keys"), "before"));
	after_keys = json_integer_value(json_object_get(json_object_get(report, "keys"), "after"));
	threshold_units =
	    number(json_object_get(json_object_get(report, "threshold"), "rig_units"));
	vv_units = number(json_object_get(json_object_get(report, "vv"), "rig_units"));
	largest_cm = number(
	    json_object_get(json_object_get(json_object_get(report, "error"), "largest"), "cm"));
	ck_assert_msg(after_keys > 0 && after_keys < before_keys, "%s at %g cm: %lld keys of %lld",
	              label, cm, (long long)after_keys, (long long)before_keys);
	ck_assert_msg(
	    fabs(number(json_object_get(json_object_get(report, "threshold"), "cm")) - cm) < 1e-9,
	    "%s: threshold not %g cm", label, cm);
	ck_assert_msg(fabs(number(json_object_get(json_object_get(report, "vv"), "cm")) - 3) < 1e-9,
	              "%s: vv not 3 cm by default", label);
	ck_assert_msg(largest_cm <= cm, "%s: largest error %g cm over %g cm", label, largest_cm,
	              cm);
	ck_assert_msg(
	    number(json_object_get(json_object_get(json_object_get(report, "error"), "p99"),
	                           "cm")) <= largest_cm,
	    "%s: p99 above the largest", label);
	ck_assert(number(json_object_get(json_object_get(report, "error"),
	                                 "share_under_threshold")) <= 1);
	ck_assert(number(json_object_get(json_object_get(report, "rig"), "height")) > 0);
	ck_assert(json_is_string(json_object_get(json_object_get(report, "rig"), "height_from")));
	ck_assert_double_eq_tol(
	    threshold_units,
	    cm * number(json_object_get(json_object_get(report, "rig"), "units_per_cm")), 1e-9);
	json_decref(doc);

	plain = export_again(id, "", "plain.glb");
	snprintf(path, sizeof(path), "reduced-%g.glb", cm);
	reduced = export_again(id, query, path);
	ck_assert_int_ne(plain, reduced);
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?t=0", (long long)plain);
	doc = http_get_json(&d, path, 200);
	json_array_foreach(json_object_get(doc, "nodes"), n, node)
	    json_array_append(names, json_object_get(node, "name"));
	json_decref(doc);
	nodes = json_array_size(names);
	ck_assert_uint_gt(nodes, 1);
	times = malloc(count * sizeof(*times));
	for (size_t k = 0; k < count; k++) /* every frame, and halfway between each two */
		times[k] = (double)k * frame_time / 2;
	want = world_matrices(plain, times, count, names);
	got = world_matrices(reduced, times, count, names);
	{
		double worst = largest_vertex_error(want, got, count * nodes, vv_units);
		printf("%s at %g cm: %lld keys of %lld, largest error measured again %.5f cm "
		       "(reported %.5f cm)\n",
		       label, cm, (long long)after_keys, (long long)before_keys,
		       worst * cm / threshold_units, largest_cm);
		/* float32 world matrices, one rounding of the keys written */
		ck_assert_msg(worst <= threshold_units * 1.001 + 1e-5,
		              "%s at %g cm: a vertex %g rig units off, over %g", label, cm, worst,
		              threshold_units);
	}
	/* the first frame (a T-pose) is the take's own */
	ck_assert_msg(largest_vertex_error(want, got, nodes, vv_units) <= 1e-4, "%s: frame 0 moved",
	              label);
	free(want);
	free(got);
	free(times);
	json_decref(names);
}

START_TEST(a_take_reduced_stays_within_the_threshold)
{
	char *take = make_take();
	json_int_t id = upload_bytes("take.bvh", take, strlen(take));

	free(take);
	reduce_and_check(id, "take.bvh", 0.05, FRAMES, FRAME_TIME);
	reduce_and_check(id, "take.bvh", 0.5, FRAMES, FRAME_TIME);
}
END_TEST

START_TEST(a_cmu_clip_reduced_stays_within_the_threshold)
{
	static const char path[] = "/usr/share/assimp/models/BVH/01_03.bvh";
	size_t length;
	char *bytes = testutil_read_file(path, &length);
	json_int_t id;

	if (!bytes) {
		printf("SKIP: %s is missing (Debian's assimp-testmodels)\n", path);
		return;
	}
	id = upload_bytes("01_03.bvh", bytes, length);
	free(bytes);
	/* 01_03: 120 frames a second; the first 600 (5 s) are posed */
	reduce_and_check(id, "01_03.bvh", 0.01, 600, 1.0 / 120);
}
END_TEST

static void expect_error(const char *path, long status, const char *field)
{
	json_t *doc = http_get_json(&d, path, status);
	json_t *e = json_object_get(doc, "error");
	const char *got = json_string_value(json_object_get(e, "path"));

	if (field)
		ck_assert_msg(got && strcmp(got, field) == 0, "%s: path %s, not %s", path,
		              got ? got : "(none)", field);
	ck_assert(json_is_string(json_object_get(e, "message")));
	json_decref(doc);
}

START_TEST(bad_reductions_are_refused)
{
	static const char clip[] =
	    "{\"name\": \"blink\", \"duration\": 1, \"targets\": [{\"schema\": "
	    "\"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", \"object\": 3, \"name\": \"lid\"}],"
	    " \"samplers\": [{\"value\": {\"type\": \"FLOAT3\"}, \"interpolation\": \"LINEAR\","
	    " \"times\": [0, 0.5, 1], \"values\": [0,0,0, 0,1,0, 0,0,0]}],"
	    " \"channels\": [{\"target\": 0, \"property\": 1, \"sampler\": 0}]}";
	char *take = make_take(), path[256];
	json_int_t id = upload_bytes("take.bvh", take, strlen(take)), bare;
	static const char *const bad[][2] = {
	    {"reduce=object&error=abc", "error"},
	    {"reduce=object&error=-1cm", "error"},
	    {"reduce=object&error=0cm", "error"},
	    {"reduce=object&error=1km", "error"},
	    {"reduce=object&vv=0", "vv"},
	    {"reduce=object&vv=x", "vv"},
	    {"error=1cm", "error"},
	    {"vv=3cm", "vv"},
	    {"reduce=objects", "reduce"},
	    {"reduce=-1", "reduce"},
	};

	free(take);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "/api/resources/%lld/export?%s&summary=1",
		         (long long)id, bad[i][0]);
		expect_error(path, 400, bad[i][1]);
	}
	bare = upload_bytes("blink.json", clip, strlen(clip));
	snprintf(path, sizeof(path), "/api/resources/%lld/export?reduce=object&summary=1",
	         (long long)bare);
	expect_error(path, 422, NULL);
	/* the track-local reduction stays what it was, and is measured too */
	snprintf(path, sizeof(path), "/api/resources/%lld/export?reduce=0.001&summary=1",
	         (long long)id);
	{
		json_t *doc = http_get_json(&d, path, 200);
		json_t *report = json_array_get(json_object_get(doc, "reduction"), 0);
		ck_assert_str_eq(json_string_value(json_object_get(report, "reduce")), "tolerance");
		ck_assert(json_is_object(json_object_get(report, "error")));
		json_decref(doc);
	}
}
END_TEST

/* A chain of four bones 0.75 apart (2.25 units tall: a unit is 80 cm) and an Animation_Z
 * turning two of them every 1/120 s for a second, smoothly. *skeleton and *animation get the
 * entries. */
#define NATIVE_KEYS 121
static void upload_native_pair(json_int_t *skeleton, json_int_t *animation)
{
	static const char *const names[4] = {"ROOT", "Bip01 Pelvis", "Bip01 Spine", "Bip01 Head"};
	static struct zkey rot[2 * NATIVE_KEYS];
	struct zbone bones[4];
	struct zskeleton s = {.layout = ZSKEL_RAT, .bones = bones, .bone_count = 4};
	struct znode nodes[2] = {
	    {hash_asobo32(names[1], strlen(names[1])),
	     0,
	     0,
	     {0, 0},
	     {0, NATIVE_KEYS},
	     {0, 0},
	     {0, 0},
	     {0, 0}},
	    {hash_asobo32(names[2], strlen(names[2])),
	     1,
	     0,
	     {0, 0},
	     {NATIVE_KEYS, NATIVE_KEYS},
	     {0, 0},
	     {0, 0},
	     {0, 0}},
	};
	struct zanimation a = {0};
	struct zbuf b;

	memset(bones, 0, sizeof(bones));
	for (int i = 0; i < 4; i++) {
		bones[i].name_crc = hash_asobo32(names[i], strlen(names[i]));
		bones[i].parent = i - 1;
		bones[i].rotation[3] = 1;
		bones[i].scale[0] = bones[i].scale[1] = bones[i].scale[2] = 1;
		bones[i].translation[1] = 0.75f;
	}
	s.name_crc = hash_asobo32("chain", 5);
	zbuf_init(&b, 0);
	zouna_write_skeleton(&b, &s, 16, 0);
	*skeleton = upload_bytes("chain.Skel_Z", b.data, b.len);
	zbuf_free(&b);
	for (int k = 0; k < 2 * NATIVE_KEYS; k++) { /* about z, then about x */
		int bone = k / NATIVE_KEYS, i = k % NATIVE_KEYS;
		double t = i / 120.0, angle = 0.4 * sin(2 * M_PI * t + bone);
		rot[k].time = (float)t;
		rot[k].v[bone ? 0 : 2] = (float)sin(angle / 2);
		rot[k].v[3] = (float)cos(angle / 2);
	}
	a.max_time = 1.0f;
	a.keys[0] = rot, a.counts[0] = 2 * NATIVE_KEYS;
	a.nodes = nodes, a.node_count = 2;
	a.name_crc = hash_asobo32("chain_sway", 10);
	zbuf_init(&b, 0);
	zouna_write_animation(&b, &a, 0, 0);
	*animation = upload_bytes("chain_sway.Animation_Z", b.data, b.len);
	zbuf_free(&b);
}

static json_t *error_of(const json_t *report)
{
	return json_object_get(json_object_get(report, "object_error"), "error");
}

START_TEST(native_reports_and_reduces_in_object_space)
{
	json_int_t skeleton, animation, again;
	char path[256];
	json_t *doc, *names = json_array(), *node;
	double cm = 0.5, threshold_units, vv_units, step_units, worst, *times;
	size_t count = 2 * NATIVE_KEYS - 1, nodes, n, length;
	float *want, *got;
	char *file;

	upload_native_pair(&skeleton, &animation);
	/* nothing changed: every key kept byte for byte, no error at all */
	snprintf(path, sizeof(path), "/api/resources/%lld/native?summary=1&skeleton=%lld",
	         (long long)animation, (long long)skeleton);
	doc = http_get_json(&d, path, 200);
	ck_assert_msg(error_of(doc), "no object_error in %s", path);
	ck_assert_double_eq(
	    number(json_object_get(json_object_get(error_of(doc), "largest"), "rig_units")), 0);
	ck_assert_double_eq_tol(
	    number(json_object_get(json_object_get(json_object_get(doc, "object_error"), "rig"),
	                           "height")),
	    2.25, 1e-4);
	json_decref(doc);
	/* on no rig: null, and said */
	snprintf(path, sizeof(path), "/api/resources/%lld/native?summary=1", (long long)animation);
	doc = http_get_json(&d, path, 200);
	ck_assert(json_is_null(json_object_get(doc, "object_error")));
	json_decref(doc);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?summary=1&reduce=object",
	         (long long)animation);
	expect_error(path, 422, "reduce");
	snprintf(path, sizeof(path), "/api/resources/%lld/native?summary=1&skeleton=x",
	         (long long)animation);
	expect_error(path, 400, "skeleton");

	/* reduce=object at 0.5 cm */
	snprintf(path, sizeof(path),
	         "/api/resources/%lld/native?summary=1&reduce=object&error=%gcm&skeleton=%lld",
	         (long long)animation, cm, (long long)skeleton);
	doc = http_get_json(&d, path, 200);
	ck_assert_msg(json_integer_value(json_object_get(
	                  json_object_get(json_object_get(doc, "reduction"), "keys"), "after")) <
	                  2 * NATIVE_KEYS,
	              "reduce=object kept every key");
	threshold_units = number(json_object_get(
	    json_object_get(json_object_get(doc, "object_error"), "threshold"), "rig_units"));
	vv_units = number(json_object_get(
	    json_object_get(json_object_get(doc, "object_error"), "vv"), "rig_units"));
	json_decref(doc);
	snprintf(path, sizeof(path),
	         "/api/resources/%lld/native?reduce=object&error=%gcm&skeleton=%lld",
	         (long long)animation, cm, (long long)skeleton);
	file = get(path, 200, &length);
	again = upload_bytes("chain_sway_reduced.Animation_Z", file, length);
	free(file);
	ck_assert_int_ne(again, animation);

	snprintf(path, sizeof(path), "/api/resources/%lld/pose?skeleton=%lld&t=0",
	         (long long)animation, (long long)skeleton);
	doc = http_get_json(&d, path, 200);
	json_array_foreach(json_object_get(doc, "nodes"), n, node)
	    json_array_append(names, json_object_get(node, "name"));
	json_decref(doc);
	nodes = json_array_size(names);
	times = malloc(count * sizeof(*times));
	for (size_t k = 0; k < count; k++)
		times[k] = (double)k / 240;
	want = world_matrices_on(animation, skeleton, times, count, names);
	got = world_matrices_on(again, skeleton, times, count, names);
	worst = largest_vertex_error(want, got, count * nodes, vv_units);
	/* one rounding of a quaternion's components (1/4000 each, 4 of them) turns a bone by up
	 * to 2 * 0.0005 rad; the pelvis reaches 1.5 + vv, the spine 0.75 + vv */
	step_units = 0.001 * ((1.5 + vv_units) + (0.75 + vv_units));
	printf("chain_sway at %g cm: largest error measured again %.5f rig units (threshold %.5f, "
	       "one step %.5f)\n",
	       cm, worst, threshold_units, step_units);
	ck_assert_msg(worst <= threshold_units + step_units, "a vertex %g off, over %g + %g", worst,
	              threshold_units, step_units);
	free(want);
	free(got);
	free(times);
	json_decref(names);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reduce_object");
	TCase *tc = tcase_create("reduce_object");

	tcase_add_unchecked_fixture(tc, start, stop);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, a_take_reduced_stays_within_the_threshold);
	tcase_add_test(tc, a_cmu_clip_reduced_stays_within_the_threshold);
	tcase_add_test(tc, bad_reductions_are_refused);
	tcase_add_test(tc, native_reports_and_reduces_in_object_space);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
