/* check_pose.c: skeletons and poses over HTTP, on the real daemon: a Zouna Animation_Z posed on
 * the Skel_Z its bones fit (ranked first by /skeletons), untracked bones at rest, world
 * matrices chained through their parents; a glTF animation on its own rig; the bounds and
 * refusals; names given to handles naming rig nodes. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_writer.h"
#include "base/hash.h"
#include "testutil.h"
#include "zouna_writer.h"

static struct daemon_proc d;
static char *dir;
static json_int_t hero, other, run, tree;

static const char *const bone_names[4] = {"ROOT", "Bip01 Pelvis", "Bip01 Spine", "Bip01 Head"};

/* hero: the four bones (Head untracked); other: ROOT and Pelvis only. */
static json_int_t upload_skeleton(const char *file, uint32_t count)
{
	struct zbone bones[4];
	struct zskeleton s = {.layout = ZSKEL_FUEL, .bones = bones, .bone_count = count};
	struct zbuf b;
	json_int_t id;

	memset(bones, 0, sizeof(bones));
	for (uint32_t i = 0; i < count; i++) {
		bones[i].name_crc = hash_asobo32(bone_names[i], strlen(bone_names[i]));
		bones[i].parent = (int32_t)i - 1;
		bones[i].rotation[3] = 1;
		bones[i].scale[0] = bones[i].scale[1] = bones[i].scale[2] = 1;
		bones[i].translation[1] = 1.5f; /* each a bone length above its parent */
	}
	bones[3].rotation[0] = 0.6f, bones[3].rotation[3] = 0.8f; /* the head, turned at rest */
	bones[0].translation[0] = 2;
	s.name_crc = hash_asobo32(file, strlen(file));
	zbuf_init(&b, 1); /* big-endian, as on a GameCube */
	zouna_write_skeleton(&b, &s, 0, 0);
	id = http_upload_one(&d, file, b.data, b.len);
	zbuf_free(&b);
	return id;
}

/* run: Pelvis turns a half turn about z and moves, Spine scales; Tail (no such bone in the
 * skeletons) translates. */
static json_int_t upload_animation(void)
{
	static struct zkey rot[2] = {{.time = 0, .v = {0, 0, 0, 1}},
	                             {.time = 2, .v = {0, 0, 1, 0}}};
	static struct zkey trans[4] = {{.time = 0, .v = {0, 1, 0}},
	                               {.time = 2, .v = {0, 3, 0}},
	                               {.time = 0, .v = {5, 5, 5}},
	                               {.time = 1, .v = {6, 6, 6}}};
	static struct zkey scale[2] = {{.time = 0, .v = {1, 1, 1}}, {.time = 2, .v = {2, 2, 2}}};
	struct znode nodes[3] = {
	    {hash_asobo32("Bip01 Pelvis", 12), 0, 0, {0, 2}, {0, 2}, {0, 0}, {0, 0}, {0, 0}},
	    {hash_asobo32("Bip01 Spine", 11), 1, 0, {0, 0}, {0, 0}, {0, 0}, {0, 2}, {0, 0}},
	    {hash_asobo32("Bip01 Tail", 10), 2, 0, {2, 2}, {0, 0}, {0, 0}, {0, 0}, {0, 0}},
	};
	struct zanimation a = {0};
	struct zbuf b;
	json_int_t id;

	a.max_time = 2.0f;
	a.keys[0] = rot, a.counts[0] = 2;
	a.keys[2] = scale, a.counts[2] = 2;
	a.keys[3] = trans, a.counts[3] = 4;
	a.nodes = nodes, a.node_count = 3;
	a.name_crc = hash_asobo32("run", 3);
	zbuf_init(&b, 0);
	zouna_write_animation(&b, &a, 16, 0);
	id = http_upload_one(&d, "run.Animation_Z", b.data, b.len);
	zbuf_free(&b);
	return id;
}

/* A glTF tree: 0 (root, translated, not animated), its child 1 ("arm", animated rotation),
 * 1's child 2 (unnamed, its translation along x animated but constant). */
static json_int_t upload_tree(void)
{
	static const float times[2] = {0, 1};
	static const float turns[8] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f};
	static const float along[6] = {1, 0, 0, 1, 0, 0};
	struct gltf_writer w;
	json_t *nodes;
	size_t length;
	uint8_t *data;
	int input, output;
	json_int_t id;

	gltf_writer_init(&w);
	gltf_writer_node(&w, NULL, 0);
	gltf_writer_node(&w, "arm", 0);
	gltf_writer_node(&w, NULL, 0);
	nodes = json_object_get(w.doc, "nodes");
	json_object_set_new(json_array_get(nodes, 0), "children", json_pack("[i]", 1));
	json_object_set_new(json_array_get(nodes, 1), "children", json_pack("[i]", 2));
	json_object_set_new(json_array_get(nodes, 0), "translation",
	                    json_pack("[f,f,f]", 0.0, 0.0, 3.0));
	json_object_set_new(json_array_get(nodes, 2), "translation",
	                    json_pack("[f,f,f]", 1.0, 0.0, 0.0));
	input = gltf_writer_accessor(&w, 5126, "SCALAR", 2, times, sizeof(times), 0, 1);
	output = gltf_writer_accessor(&w, 5126, "VEC4", 2, turns, sizeof(turns), 0, 0);
	gltf_writer_channel(&w, 0, 1, "rotation", "LINEAR", input, output);
	output = gltf_writer_accessor(&w, 5126, "VEC3", 2, along, sizeof(along), 0, 0);
	gltf_writer_channel(&w, 0, 2, "translation", "LINEAR", input, output);
	data = gltf_writer_embedded(&w, &length);
	id = http_upload_one(&d, "tree.gltf", data, length);
	free(data);
	gltf_writer_cleanup(&w);
	return id;
}

static void start(void)
{
	char db[512];

	dir = testutil_temp_dir();
	snprintf(db, sizeof(db), "%s/pose.db", dir);
	if (daemon_start(&d, db, "--max-samples 2000") < 0)
		exit(1);
	hero = upload_skeleton("hero.Skel_Z", 4);
	other = upload_skeleton("other.Skel_Z", 2);
	run = upload_animation();
	tree = upload_tree();
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

static double number(const json_t *a, size_t i)
{
	return json_number_value(json_array_get(a, i));
}

/* out = a * b, column-major */
static void multiply(const double *a, const double *b, double *out)
{
	double r[16];
	for (int c = 0; c < 4; c++)
		for (int row = 0; row < 4; row++) {
			r[c * 4 + row] = 0;
			for (int k = 0; k < 4; k++)
				r[c * 4 + row] += a[k * 4 + row] * b[c * 4 + k];
		}
	memcpy(out, r, sizeof(r));
}

/* T * R * S from the answer's local values, written out (not rig.c's) */
static void local_matrix(const json_t *t, const json_t *q, const json_t *s, double *m)
{
	double x = number(q, 0), y = number(q, 1), z = number(q, 2), w = number(q, 3);
	double sx = number(s, 0), sy = number(s, 1), sz = number(s, 2);
	double r[16] = {1 - 2 * (y * y + z * z),
	                2 * (x * y + z * w),
	                2 * (x * z - y * w),
	                0,
	                2 * (x * y - z * w),
	                1 - 2 * (x * x + z * z),
	                2 * (y * z + x * w),
	                0,
	                2 * (x * z + y * w),
	                2 * (y * z - x * w),
	                1 - 2 * (x * x + y * y),
	                0,
	                number(t, 0),
	                number(t, 1),
	                number(t, 2),
	                1};
	for (int k = 0; k < 4; k++)
		r[k] *= sx, r[4 + k] *= sy, r[8 + k] *= sz;
	r[3] = r[7] = r[11] = 0;
	memcpy(m, r, sizeof(r));
}

/* Every world matrix of a pose is world(parent) x local, parents by source index. */
static void assert_chained(const json_t *answer, const json_t *pose)
{
	const json_t *nodes = json_object_get(answer, "nodes");
	double world[16][16];

	ck_assert_uint_le(json_array_size(nodes), 16);
	for (size_t i = 0; i < json_array_size(nodes); i++) {
		const json_t *node = json_array_get(nodes, i),
		             *parent = json_object_get(node, "parent");
		double m[16];
		local_matrix(json_array_get(json_object_get(pose, "translation"), i),
		             json_array_get(json_object_get(pose, "rotation"), i),
		             json_array_get(json_object_get(pose, "scale"), i), m);
		if (json_is_integer(parent)) {
			size_t p = 0;
			while (p < json_array_size(nodes) &&
			       json_integer_value(
			           json_object_get(json_array_get(nodes, p), "source")) !=
			           json_integer_value(parent))
				p++;
			ck_assert_uint_lt(p, i); /* these rigs list parents first */
			multiply(world[p], m, m);
		}
		memcpy(world[i], m, sizeof(m));
		for (int e = 0; e < 16; e++)
			ck_assert_msg(
			    fabs(number(json_array_get(json_object_get(pose, "world"), i),
			                (size_t)e) -
			         m[e]) < 1e-5,
			    "node %zu element %d: %g, not %g", i, e,
			    number(json_array_get(json_object_get(pose, "world"), i), (size_t)e),
			    m[e]);
	}
}

START_TEST(skeletons_rank_the_rig_the_bones_fit)
{
	char path[128];
	json_t *j, *first, *second;

	snprintf(path, sizeof(path), "/api/resources/%lld/skeletons", (long long)run);
	j = http_get_json(&d, path, 200);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "targets")), 3);
	first = json_array_get(json_object_get(j, "skeletons"), 0);
	second = json_array_get(json_object_get(j, "skeletons"), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(first, "id")), hero);
	ck_assert_int_eq(json_integer_value(json_object_get(first, "matched")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(first, "nodes")), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(first, "untracked_nodes")), 2);
	ck_assert_int_eq(json_array_size(json_object_get(first, "missing")), 1);
	{
		char tail[11];
		snprintf(tail, sizeof(tail), "0x%08X", hash_asobo32("Bip01 Tail", 10));
		ck_assert_str_eq(
		    json_string_value(json_array_get(json_object_get(first, "missing"), 0)), tail);
	}
	ck_assert_int_eq(json_integer_value(json_object_get(second, "id")), other);
	ck_assert_int_eq(json_integer_value(json_object_get(second, "matched")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(first, "class")), "Skel_Z");
	json_decref(j);
	/* of two skeletons with the same bones of the animation, the one with fewer others
	 * comes first: "three" (ROOT, Pelvis, Spine: one untracked) before hero (two) */
	{
		json_int_t three = upload_skeleton("three.Skel_Z", 3);
		struct http_reply r;
		snprintf(path, sizeof(path), "/api/resources/%lld/skeletons", (long long)run);
		j = http_get_json(&d, path, 200);
		first = json_array_get(json_object_get(j, "skeletons"), 0);
		second = json_array_get(json_object_get(j, "skeletons"), 1);
		ck_assert_int_eq(json_integer_value(json_object_get(first, "id")), three);
		ck_assert_int_eq(json_integer_value(json_object_get(first, "untracked_nodes")), 1);
		ck_assert_int_eq(json_integer_value(json_object_get(second, "id")), hero);
		json_decref(j);
		snprintf(path, sizeof(path), "/api/resources/%lld", (long long)three);
		ck_assert_int_eq(http_request(&d, "DELETE", path, NULL, 0, NULL, &r), 0);
		ck_assert_int_eq(r.status, 200);
		http_reply_cleanup(&r);
	}
	/* no rig has the glTF tree's nodes: an empty list */
	snprintf(path, sizeof(path), "/api/resources/%lld/skeletons", (long long)tree);
	j = http_get_json(&d, path, 200);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "count")), 0);
	ck_assert_int_eq(json_array_size(json_object_get(j, "skeletons")), 0);
	json_decref(j);
}
END_TEST

START_TEST(a_zouna_animation_posed_on_its_skeleton)
{
	char path[160];
	json_t *j, *pose, *tracks, *nodes;
	size_t i;
	json_t *t;

	snprintf(path, sizeof(path), "/api/resources/%lld/pose?skeleton=%lld&t=0,0.5,1,3",
	         (long long)run, (long long)hero);
	j = http_get_json(&d, path, 200);
	nodes = json_object_get(j, "nodes");
	ck_assert_int_eq(json_array_size(nodes), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "skeleton")), hero);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "count")), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "untracked_nodes")), 2);
	/* the Tail's track is listed, with why it moves nothing */
	tracks = json_object_get(j, "tracks");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "unmatched")), 1);
	json_array_foreach(tracks, i, t) if (json_is_null(json_object_get(t, "node")))
	    ck_assert_ptr_nonnull(
	        strstr(json_string_value(json_object_get(t, "reason")), "handle"));
	for (size_t k = 0; k < 4; k++) {
		pose = json_array_get(json_object_get(j, "poses"), k);
		assert_chained(j, pose);
		/* untracked bones keep their rest pose: the root at (2, 1.5, 0), the head turned */
		ck_assert_double_eq(
		    number(json_array_get(json_object_get(pose, "translation"), 0), 0), 2);
		ck_assert_double_eq_tol(
		    number(json_array_get(json_object_get(pose, "rotation"), 3), 0), 0.6, 1e-7);
	}
	/* at t = 1: the pelvis half-way through its half turn (slerp: a quarter turn) and at
	 * (0, 2, 0); the spine scaled 1.5 */
	pose = json_array_get(json_object_get(j, "poses"), 2);
	ck_assert_double_eq_tol(number(json_array_get(json_object_get(pose, "rotation"), 1), 2),
	                        0.70710678, 1e-6);
	ck_assert_double_eq_tol(number(json_array_get(json_object_get(pose, "translation"), 1), 1),
	                        2, 1e-6);
	ck_assert_double_eq_tol(number(json_array_get(json_object_get(pose, "scale"), 2), 0), 1.5,
	                        1e-6);
	/* t = 3, past the end: the last keys */
	pose = json_array_get(json_object_get(j, "poses"), 3);
	ck_assert_double_eq_tol(number(json_array_get(json_object_get(pose, "translation"), 1), 1),
	                        3, 1e-6);
	json_decref(j);
}
END_TEST

START_TEST(f32_carries_the_same_pose)
{
	char path[160];
	struct http_reply r;
	json_t *j;

	snprintf(path, sizeof(path), "/api/resources/%lld/pose?skeleton=%lld&from=0&to=2&count=5",
	         (long long)run, (long long)hero);
	j = http_get_json(&d, path, 200);
	snprintf(path, sizeof(path),
	         "/api/resources/%lld/pose?skeleton=%lld&from=0&to=2&count=5&format=f32",
	         (long long)run, (long long)hero);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_uint_eq(r.length, 5 * (1 + 4 * 26) * sizeof(float));
	ck_assert_str_eq(r.header_count, "5");
	for (size_t k = 0; k < 5; k++) {
		const float *f = (const float *)r.body + k * (1 + 4 * 26);
		json_t *pose = json_array_get(json_object_get(j, "poses"), k);
		ck_assert_float_eq(f[0], (float)json_number_value(json_object_get(pose, "t")));
		for (size_t n = 0; n < 4; n++) {
			const float *node = f + 1 + n * 26;
			ck_assert_float_eq(
			    node[3 + 2],
			    (float)number(json_array_get(json_object_get(pose, "rotation"), n), 2));
			ck_assert_float_eq(
			    node[10 + 13],
			    (float)number(json_array_get(json_object_get(pose, "world"), n), 13));
		}
	}
	http_reply_cleanup(&r);
	json_decref(j);
}
END_TEST

START_TEST(a_gltf_animation_poses_on_its_own_rig)
{
	char path[160];
	json_t *j, *pose;

	/* the entry's tracks point at the rig nodes they move */
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)tree);
	j = http_get_json(&d, path, 200);
	ck_assert_int_eq(json_integer_value(json_object_get(
	                     json_array_get(json_object_get(j, "tracks"), 0), "rig_node")),
	                 1);
	ck_assert_int_eq(json_integer_value(json_object_get(
	                     json_array_get(json_object_get(j, "tracks"), 1), "rig_node")),
	                 2);
	json_decref(j);
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?t=0.5", (long long)tree);
	j = http_get_json(&d, path, 200);
	ck_assert(json_is_null(json_object_get(j, "skeleton")));
	ck_assert_int_eq(json_array_size(json_object_get(j, "nodes")), 3);
	/* unnamed nodes are named after their source index */
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(j, "nodes"), 2), "name")),
	                 "node 2");
	pose = json_array_get(json_object_get(j, "poses"), 0);
	assert_chained(j, pose);
	/* node 2 at t = 0.5: the arm turned 45 degrees about z, so (cos 45, sin 45, 3) */
	ck_assert_double_eq_tol(number(json_array_get(json_object_get(pose, "world"), 2), 12),
	                        0.70710678, 1e-6);
	ck_assert_double_eq_tol(number(json_array_get(json_object_get(pose, "world"), 2), 13),
	                        0.70710678, 1e-6);
	ck_assert_double_eq_tol(number(json_array_get(json_object_get(pose, "world"), 2), 14), 3,
	                        1e-6);
	json_decref(j);
}
END_TEST

START_TEST(refusals_name_the_parameter)
{
	char path[160];
	json_t *j;

	/* no rig of its own, no skeleton: 409, saying where to look */
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?t=0", (long long)run);
	j = http_get_json(&d, path, 409);
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(json_object_get(j, "error"), "message")),
	           "skeletons"));
	json_decref(j);
	/* skeleton=0 names no entry */
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?skeleton=0&t=0", (long long)tree);
	j = http_get_json(&d, path, 400);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "path")),
	                 "skeleton");
	json_decref(j);
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?skeleton=999", (long long)run);
	j = http_get_json(&d, path, 400);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "path")),
	                 "skeleton");
	json_decref(j);
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?skeleton=x1", (long long)run);
	json_decref(http_get_json(&d, path, 400));
	/* a skeleton without a rig: an animation with none */
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?skeleton=%lld", (long long)tree,
	         (long long)run);
	json_decref(http_get_json(&d, path, 400));
	/* --max-samples 2000 counts nodes x times: 4 nodes x 501 times is too many */
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?skeleton=%lld&count=501",
	         (long long)run, (long long)hero);
	j = http_get_json(&d, path, 400);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "path")),
	                 "count");
	json_decref(j);
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?skeleton=%lld&count=500",
	         (long long)run, (long long)hero);
	json_decref(http_get_json(&d, path, 200));
	snprintf(path, sizeof(path), "/api/resources/99999/pose");
	json_decref(http_get_json(&d, path, 404));
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?format=csv", (long long)tree);
	json_decref(http_get_json(&d, path, 400));
}
END_TEST

START_TEST(names_given_to_handles_name_rig_nodes)
{
	struct http_reply r;
	char path[160];
	const char *names = "Bip01 Head\n";
	json_t *j;

	ck_assert_int_eq(
	    http_request(&d, "POST", "/api/names", names, strlen(names), "text/plain", &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)hero);
	j = http_get_json(&d, path, 200);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(j, "rig"), 3), "handle_name")),
	                 "Bip01 Head");
	ck_assert(
	    json_is_null(json_object_get(json_array_get(json_object_get(j, "rig"), 3), "name")));
	json_decref(j);
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?skeleton=%lld&t=0", (long long)run,
	         (long long)hero);
	j = http_get_json(&d, path, 200);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(j, "nodes"), 3), "name")),
	                 "Bip01 Head");
	json_decref(j);
	/* every export names the node too, the handle kept in its extras: the entry's own */
	ck_assert_int_eq(
	    http_request(&d, "POST", "/api/names", "Bip01 Spine\n", 12, "text/plain", &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld/export?format=gltf", (long long)run);
	j = http_get_json(&d, path, 200);
	{
		json_t *nodes = json_object_get(j, "nodes"), *node;
		size_t i, named = 0;
		json_array_foreach(nodes, i, node)
		{
			const char *name = json_string_value(json_object_get(node, "name"));
			ck_assert_msg(!strstr(name, "0x546B18B0"), "node %zu still '%s'", i, name);
			if (strcmp(name, "Bip01 Spine") == 0) {
				named++;
				ck_assert_str_eq(
				    json_string_value(json_object_get(
				        json_object_get(json_object_get(node, "extras"), "animdex"),
				        "handle")),
				    "0x546B18B0");
			}
		}
		ck_assert_uint_eq(named, 1);
	}
	json_decref(j);
}
END_TEST

/* A Zouna bone's Euler rotation (KeyframerBezierRot_Z) turns the bone as the export bakes it:
 * radians applied X, then Y, then Z, said in "assumed". */
START_TEST(euler_rotations_turn_their_bone)
{
	static struct zkey bezier[2] = {{.time = 0, .v = {0, 0, 0}}, {.time = 1, .v = {0, 0, 1}}};
	struct znode node = {
	    hash_asobo32("Bip01 Head", 10), 0, 0, {0, 0}, {0, 0}, {0, 2}, {0, 0}, {0, 0}};
	struct zanimation a = {0};
	struct zbuf b;
	json_int_t id;
	char path[160];
	json_t *j, *q;

	a.max_time = 1;
	a.keys[1] = bezier, a.counts[1] = 2;
	a.nodes = &node, a.node_count = 1;
	a.name_crc = hash_asobo32("nod", 3);
	zbuf_init(&b, 0);
	zouna_write_animation(&b, &a, 0, 0);
	id = http_upload_one(&d, "nod.Animation_Z", b.data, b.len);
	zbuf_free(&b);
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?skeleton=%lld&t=1", (long long)id,
	         (long long)hero);
	j = http_get_json(&d, path, 200);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "matched")), 1);
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_array_get(json_object_get(j, "assumed"), 0)), "Euler"));
	q = json_array_get(
	    json_object_get(json_array_get(json_object_get(j, "poses"), 0), "rotation"), 3);
	ck_assert_double_eq_tol(number(q, 0), 0, 1e-7);
	ck_assert_double_eq_tol(number(q, 2), sin(0.5), 1e-6);
	ck_assert_double_eq_tol(number(q, 3), cos(0.5), 1e-6);
	json_decref(j);
}
END_TEST

/* A glTF of two nodes: 0 at x = base, its child 1 at x = rest (at rest), moving along x from 0
 * to `to` in 1 s. */
static uint8_t *far_tree(double base, double rest, float to, size_t *length)
{
	const float times[2] = {0, 1}, along[6] = {0, 0, 0, to, 0, 0};
	struct gltf_writer w;
	json_t *nodes;
	uint8_t *data;
	int input, output;

	gltf_writer_init(&w);
	gltf_writer_node(&w, "base", 0);
	gltf_writer_node(&w, "far", 0);
	nodes = json_object_get(w.doc, "nodes");
	json_object_set_new(json_array_get(nodes, 0), "children", json_pack("[i]", 1));
	json_object_set_new(json_array_get(nodes, 0), "translation",
	                    json_pack("[f,f,f]", base, 0.0, 0.0));
	json_object_set_new(json_array_get(nodes, 1), "translation",
	                    json_pack("[f,f,f]", rest, 0.0, 0.0));
	input = gltf_writer_accessor(&w, 5126, "SCALAR", 2, times, sizeof(times), 0, 1);
	output = gltf_writer_accessor(&w, 5126, "VEC3", 2, along, sizeof(along), 0, 0);
	gltf_writer_channel(&w, 0, 1, "translation", "LINEAR", input, output);
	data = gltf_writer_embedded(&w, length);
	gltf_writer_cleanup(&w);
	return data;
}

/* Numbers beyond float32 never reach an answer as null: a rig at rest beyond it is refused at
 * upload, naming the node; a pose whose keys carry it beyond (3e38 on a node at 3e38) is a
 * 422 naming the node and the time, in JSON and in f32, while the times before it pose. */
START_TEST(poses_beyond_float32_are_refused_not_written_as_null)
{
	struct http_reply r;
	char path[160];
	size_t length;
	uint8_t *data = far_tree(3e38, 3e38, 0, &length);
	json_int_t id;
	json_t *j;

	/* node 1 at rest at 3e38 from node 0 at 3e38: 6e38 */
	ck_assert_int_eq(http_request(&d, "POST", "/api/resources?filename=far.gltf", data, length,
	                              "model/gltf+json", &r),
	                 0);
	ck_assert_int_eq(r.status, 422);
	ck_assert_msg(strstr(r.body, "far's rest pose is beyond a 32-bit float"), "%s", r.body);
	http_reply_cleanup(&r);
	free(data);
	/* at rest node 1 sits on node 0; its key at 1 s takes it to 3e38 + 3e38 */
	data = far_tree(3e38, 0, 3e38f, &length);
	id = http_upload_one(&d, "far.gltf", data, length);
	free(data);
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?t=0", (long long)id);
	json_decref(http_get_json(&d, path, 200));
	for (int f32 = 0; f32 < 2; f32++) {
		snprintf(path, sizeof(path), "/api/resources/%lld/pose?t=1%s", (long long)id,
		         f32 ? "&format=f32" : "");
		j = http_get_json(&d, path, 422);
		ck_assert_msg(strstr(json_string_value(
		                         json_object_get(json_object_get(j, "error"), "message")),
		                     "at 1 s the pose of far (source 1) is beyond a 32-bit float"),
		              "%s", json_dumps(j, 0));
		json_decref(j);
	}
}
END_TEST

/* A proposed bone map between two takes of one skeleton named by two conventions: every bone
 * paired, each saying how; the parameters refused by name. */
START_TEST(bone_maps_are_proposed_between_rigs)
{
	static const char *const renames[][2] = {{"ROOT Hips", "ROOT mixamorig:Hips"},
	                                         {"JOINT Chest", "JOINT mixamorig:Spine"},
	                                         {"JOINT Neck", "JOINT mixamorig:Neck"},
	                                         {"JOINT LeftLeg", "JOINT mixamorig:leg_l"}};
	char file[600], path[200], *text, *renamed;
	size_t length;
	json_int_t cmu, mixamo;
	json_t *j, *pairs, *p;
	size_t i;

	testutil_src_path("tests/data/bvh/three_orders.bvh", file, sizeof(file));
	ck_assert_ptr_nonnull(text = testutil_read_file(file, &length));
	cmu = http_upload_one(&d, "three_orders.bvh", text, length);
	renamed = malloc(length + 256);
	ck_assert_ptr_nonnull(renamed);
	strcpy(renamed, text);
	for (i = 0; i < 4; i++) {
		char *at = strstr(renamed, renames[i][0]), rest[4096];
		ck_assert_ptr_nonnull(at);
		snprintf(rest, sizeof(rest), "%s", at + strlen(renames[i][0]));
		sprintf(at, "%s%s", renames[i][1], rest);
	}
	mixamo = http_upload_one(&d, "mixamo_names.bvh", renamed, strlen(renamed));
	snprintf(path, sizeof(path), "/api/bonemap?from=%lld&to=%lld", (long long)cmu,
	         (long long)mixamo);
	j = http_get_json(&d, path, 200);
	pairs = json_object_get(j, "pairs");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "count")), 6);
	ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(j, "unmapped"), "from")),
	                  0);
	ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(j, "unmapped"), "to")),
	                  0);
	json_array_foreach(pairs, i, p)
	{
		const char *from = json_string_value(
		               json_object_get(json_object_get(p, "from"), "name")),
		           *how = json_string_value(json_object_get(p, "how"));
		json_int_t a = json_integer_value(
		               json_object_get(json_object_get(p, "from"), "source")),
		           b = json_integer_value(
		               json_object_get(json_object_get(p, "to"), "source"));
		ck_assert_msg(a == b, "%s paired with node %lld", from, (long long)b);
		if (strcmp(from, "LeftLeg") == 0 || strcmp(from, "Hips") == 0)
			ck_assert_str_eq(how, "folded");
		if (strcmp(from, "Chest") == 0)
			ck_assert_str_eq(how, "structure");
	}
	json_decref(j);
	/* refusals name their parameter */
	snprintf(path, sizeof(path), "/api/bonemap?from=%lld", (long long)cmu);
	j = http_get_json(&d, path, 400);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "path")),
	                 "to");
	json_decref(j);
	snprintf(path, sizeof(path), "/api/bonemap?from=0&to=%lld", (long long)cmu);
	j = http_get_json(&d, path, 400);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "path")),
	                 "from");
	json_decref(j);
	snprintf(path, sizeof(path), "/api/bonemap?from=%lld&to=999999", (long long)cmu);
	j = http_get_json(&d, path, 400);
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(json_object_get(j, "error"), "message")),
	           "to: no entry has id 999999"));
	json_decref(j);
	snprintf(path, sizeof(path), "/api/bonemap?from=%lld&to=%lld", (long long)run,
	         (long long)cmu); /* an animation without a rig of its own */
	j = http_get_json(&d, path, 400);
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(json_object_get(j, "error"), "message")),
	           "has no rig"));
	json_decref(j);
	/* a team's stored map: an entry of its own, applied by map=; what it names and the rigs
	 * lack is said */
	{
		static const char doc[] =
		    "{\"bone_map\": {\"name\": \"three orders onto mixamo\", \"from\": \"cmu\", "
		    "\"to\": \"mixamo\", \"pairs\": [{\"from\": \"Hips\", \"to\": "
		    "\"mixamorig:Hips\"}, "
		    "{\"from\": \"Chest\", \"to\": \"mixamorig:Neck\"}, {\"from\": \"Tail\", "
		    "\"to\": "
		    "\"mixamorig:Spine\"}]}}";
		json_int_t stored = http_upload_one(&d, "map.json", doc, strlen(doc));
		snprintf(path, sizeof(path), "/api/bonemap?from=%lld&to=%lld&map=%lld",
		         (long long)cmu, (long long)mixamo, (long long)stored);
		j = http_get_json(&d, path, 200);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "count")), 2);
		p = json_array_get(json_object_get(j, "pairs"), 1);
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_object_get(p, "from"), "name")),
		    "Chest");
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_object_get(p, "to"), "name")),
		    "mixamorig:Neck"); /* the map's word, not the proposal's */
		ck_assert_str_eq(json_string_value(json_object_get(p, "how")), "map");
		ck_assert_uint_eq(json_array_size(json_object_get(j, "not_found")), 1);
		json_decref(j);
		snprintf(path, sizeof(path), "/api/bonemap?from=%lld&to=%lld&map=%lld",
		         (long long)cmu, (long long)mixamo, (long long)cmu);
		j = http_get_json(&d, path, 400);
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_object_get(j, "error"), "path")), "map");
		json_decref(j);
	}
	free(text);
	free(renamed);
}
END_TEST

static Suite *pose_suite(void)
{
	Suite *s = suite_create("pose");
	TCase *tc = tcase_create("pose");

	tcase_add_unchecked_fixture(tc, start, stop);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, skeletons_rank_the_rig_the_bones_fit);
	tcase_add_test(tc, a_zouna_animation_posed_on_its_skeleton);
	tcase_add_test(tc, f32_carries_the_same_pose);
	tcase_add_test(tc, a_gltf_animation_poses_on_its_own_rig);
	tcase_add_test(tc, refusals_name_the_parameter);
	tcase_add_test(tc, bone_maps_are_proposed_between_rigs);
	tcase_add_test(tc, names_given_to_handles_name_rig_nodes);
	tcase_add_test(tc, euler_rotations_turn_their_bone);
	tcase_add_test(tc, poses_beyond_float32_are_refused_not_written_as_null);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(pose_suite());
}
