/* check_retarget.c: GET /api/resources/{id}/retarget against the real daemon, with Debian's CMU
 * take 01_01 (assimp-testmodels): onto its own rig, its keys come back bit for bit; onto the
 * same skeleton remade in an A-pose (arms 45 degrees down) with other local bone axes, as a
 * glTF, the answer's .glb uploaded again poses every joint on the source's world path within
 * 1e-4 of the height; onto that rig 1.5 times as large, on the path 1.5 times as large; and
 * every refusal names its parameter. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "core/quat.h"
#include "gltf_writer.h"
#include "testutil.h"
#include "zouna_writer.h"

#define CMU_01_01 "/usr/share/assimp/models/BVH/01_01.bvh"
#define CMU_01_03 "/usr/share/assimp/models/BVH/01_03.bvh"
#define MAX_BONES 64

static struct daemon_proc d;
static char *dir;
static json_int_t cmu, cmu_03; /* 0 when the takes are not on this machine */

static void start(void)
{
	char db[512];
	size_t length;
	char *text;

	dir = testutil_temp_dir();
	snprintf(db, sizeof(db), "%s/retarget.db", dir);
	if (daemon_start(&d, db, "--max-samples 200000") < 0)
		exit(1);
	if (access(CMU_01_01, R_OK) != 0)
		return;
	testutil_export_folder("retarget"); /* the glTF validator reads what is written there */
	text = testutil_read_file(CMU_01_01, &length);
	cmu = http_upload_one(&d, "01_01.bvh", text, length);
	free(text);
	text = testutil_read_file(CMU_01_03, &length);
	cmu_03 = http_upload_one(&d, "01_03.bvh", text, length);
	free(text);
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

static int have_cmu(const char *test)
{
	if (cmu)
		return 1;
	printf("SKIP: %s: needs Debian's assimp-testmodels (%s; the test command installs it)\n",
	       test, CMU_01_01);
	return 0;
}

static double number(const json_t *a, size_t i)
{
	return json_number_value(json_array_get(a, i));
}

/* A rig as GET /api/resources/{id} gives it, with its rest world positions. */
struct bones {
	size_t count;
	char names[MAX_BONES][64];
	int parent[MAX_BONES]; /* by place, which is the source index in a BVH rig */
	double world_p[MAX_BONES][3], world_q[MAX_BONES][4];
};

static void read_bones(json_int_t id, struct bones *b)
{
	char path[64];
	json_t *entry, *rig, *node;
	size_t i;

	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)id);
	entry = http_get_json(&d, path, 200);
	rig = json_object_get(entry, "rig");
	ck_assert_uint_le(json_array_size(rig), MAX_BONES);
	b->count = json_array_size(rig);
	json_array_foreach(rig, i, node)
	{
		const json_t *t = json_object_get(node, "translation"),
		             *r = json_object_get(node, "rotation");
		double local_q[4] = {number(r, 0), number(r, 1), number(r, 2), number(r, 3)};
		double off[3] = {number(t, 0), number(t, 1), number(t, 2)};
		int p = json_is_integer(json_object_get(node, "parent"))
		            ? (int)json_integer_value(json_object_get(node, "parent"))
		            : -1;
		ck_assert_int_eq(json_integer_value(json_object_get(node, "source")),
		                 (json_int_t)i);
		ck_assert_int_lt(p, (int)i); /* BVH: parents first */
		snprintf(b->names[i], sizeof(b->names[i]), "%s",
		         json_string_value(json_object_get(node, "name")));
		b->parent[i] = p;
		if (p >= 0) {
			quat_rotate(b->world_q[p], off, off);
			quat_multiply(b->world_q[p], local_q, b->world_q[i]);
		} else {
			memcpy(b->world_q[i], local_q, sizeof(local_q));
		}
		for (int c = 0; c < 3; c++)
			b->world_p[i][c] = off[c] + (p >= 0 ? b->world_p[p][c] : 0);
	}
	json_decref(entry);
}

static int find_bone(const struct bones *b, const char *name)
{
	for (size_t i = 0; i < b->count; i++)
		if (strcmp(b->names[i], name) == 0)
			return (int)i;
	ck_abort_msg("no bone %s", name);
	return -1;
}

static int under(const struct bones *b, int bone, int ancestor)
{
	for (; bone >= 0; bone = b->parent[bone])
		if (bone == ancestor)
			return 1;
	return 0;
}

static uint32_t seed = 5;

static double random_unit(void)
{
	seed = seed * 1664525u + 1013904223u;
	return (double)(seed >> 8) / (double)(1u << 23) - 1.0;
}

/* The rig's joints with both arms turned 45 degrees down about their shoulders, scaled, each
 * bone given world axes of its own: each bone's local translation and rotation. */
static void a_pose(const struct bones *b, double scale, double local_t[][3], double local_r[][4])
{
	double pos[MAX_BONES][3], axes[MAX_BONES][4];
	const char *arms[2][2] = {{"LeftArm", "LeftForeArm"}, {"RightArm", "RightForeArm"}};

	memcpy(pos, b->world_p, sizeof(pos));
	for (int side = 0; side < 2; side++) {
		int arm = find_bone(b, arms[side][0]), fore = find_bone(b, arms[side][1]);
		double along[3], down[3] = {0, -1, 0}, axis[3], turn[4], len;
		for (int c = 0; c < 3; c++)
			along[c] = b->world_p[fore][c] - b->world_p[arm][c];
		axis[0] = along[1] * down[2] - along[2] * down[1];
		axis[1] = along[2] * down[0] - along[0] * down[2];
		axis[2] = along[0] * down[1] - along[1] * down[0];
		len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
		ck_assert_double_gt(len, 0);
		for (int c = 0; c < 3; c++)
			turn[c] = axis[c] / len * sin(3.14159265358979323846 / 8);
		turn[3] = cos(3.14159265358979323846 / 8);
		for (size_t i = 0; i < b->count; i++) {
			double v[3];
			if ((int)i == arm || !under(b, (int)i, arm))
				continue;
			for (int c = 0; c < 3; c++)
				v[c] = b->world_p[i][c] - b->world_p[arm][c];
			quat_rotate(turn, v, v);
			for (int c = 0; c < 3; c++)
				pos[i][c] = b->world_p[arm][c] + v[c];
		}
	}
	for (size_t i = 0; i < b->count; i++) {
		double angle = 3 * random_unit(), axis[3] = {random_unit(), random_unit(), 1}, len,
		       back[4] = {0, 0, 0, 1};
		int p = b->parent[i];
		len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
		for (int c = 0; c < 3; c++)
			axes[i][c] = axis[c] / len * sin(angle / 2);
		axes[i][3] = cos(angle / 2);
		if (p >= 0)
			quat_conjugate(axes[p], back);
		for (int c = 0; c < 3; c++)
			local_t[i][c] = scale * (pos[i][c] - (p >= 0 ? pos[p][c] : 0));
		quat_rotate(back, local_t[i], local_t[i]);
		quat_multiply(back, axes[i], local_r[i]);
	}
}

/* That rig as a glTF node tree (no animation). */
static uint8_t *a_pose_gltf(const struct bones *b, double scale, size_t *length)
{
	double t[MAX_BONES][3], r[MAX_BONES][4];
	struct gltf_writer w;
	json_t *nodes;
	uint8_t *data;

	a_pose(b, scale, t, r);
	gltf_writer_init(&w);
	for (size_t i = 0; i < b->count; i++)
		gltf_writer_node(&w, b->names[i], 0);
	nodes = json_object_get(w.doc, "nodes");
	for (size_t i = 0; i < b->count; i++) {
		int p = b->parent[i];
		json_t *node = json_array_get(nodes, i);
		json_object_set_new(node, "translation",
		                    json_pack("[f,f,f]", t[i][0], t[i][1], t[i][2]));
		json_object_set_new(node, "rotation",
		                    json_pack("[f,f,f,f]", r[i][0], r[i][1], r[i][2], r[i][3]));
		if (p >= 0) {
			json_t *parent = json_array_get(nodes, (size_t)p);
			if (!json_object_get(parent, "children"))
				json_object_set_new(parent, "children", json_array());
			json_array_append_new(json_object_get(parent, "children"),
			                      json_integer((int)i));
		}
	}
	json_object_set_new(w.doc, "scenes", json_pack("[{s:[i]}]", "nodes", 0));
	json_object_del(w.doc, "animations"); /* a skeleton alone */
	data = gltf_writer_glb(&w, length);
	gltf_writer_cleanup(&w);
	return data;
}

/* GET's body, of the status wanted. */
static struct http_reply get(const char *path, long want)
{
	struct http_reply r;

	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_msg(r.status == want, "GET %s: %ld %.300s", path, r.status, r.body);
	return r;
}

/* Every 45th frame's time of the take (1/120 s a frame), as t=: at its keys, where the take's
 * Euler angles and the quaternions written for them agree (between two frames, a line in angles
 * and a slerp part, most where an angle wraps past 180 degrees). */
static void frame_times(char *out, size_t size)
{
	size_t at = 0;

	for (int k = 0; k < 60; k++)
		at += (size_t)snprintf(out + at, size - at, "%s%.7g", k ? "," : "",
		                       (double)(float)(k * 45 * 0.0083333f));
	ck_assert_uint_lt(at, size);
}

/* The largest distance between a joint of entry b (world positions over scale) and the joint
 * of entry a of its name, at 60 frames of the take. */
static double poses_apart(json_int_t a, json_int_t b, const char *b_query, double scale)
{
	char path[1200], times[1000];
	json_t *pa, *pb, *na, *nb;
	double worst = 0;
	size_t i, k, compared = 0;
	json_t *node;

	frame_times(times, sizeof(times));
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?t=%s", (long long)a, times);
	pa = http_get_json(&d, path, 200);
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?t=%s%s", (long long)b, times,
	         b_query);
	pb = http_get_json(&d, path, 200);
	na = json_object_get(pa, "nodes");
	nb = json_object_get(pb, "nodes");
	json_array_foreach(na, i, node)
	{
		const char *name = json_string_value(json_object_get(node, "name"));
		size_t j = json_array_size(nb);
		for (k = 0; k < json_array_size(nb); k++)
			if (strcmp(
			        json_string_value(json_object_get(json_array_get(nb, k), "name")),
			        name) == 0)
				j = k;
		if (j == json_array_size(nb))
			continue; /* an end site: a glTF upload's rig is the nodes its tracks move
			           */
		compared++;
		for (k = 0; k < 60; k++) {
			const json_t *wa = json_array_get(
			    json_object_get(json_array_get(json_object_get(pa, "poses"), k),
			                    "world"),
			    i);
			const json_t *wb = json_array_get(
			    json_object_get(json_array_get(json_object_get(pb, "poses"), k),
			                    "world"),
			    j);
			for (int c = 12; c < 15; c++)
				worst = fmax(worst, fabs(number(wb, c) / scale - number(wa, c)));
		}
	}
	ck_assert_uint_ge(compared, 31); /* every joint that moves */
	json_decref(pa);
	json_decref(pb);
	return worst;
}

static double paths_apart(json_int_t a, json_int_t b, double scale)
{
	return poses_apart(a, b, "", scale);
}

START_TEST(a_take_onto_its_own_rig_gives_its_keys_back)
{
	char path[160];
	json_t *j, *q, *keys, *track;
	struct http_reply r;

	if (!have_cmu("a_take_onto_its_own_rig_gives_its_keys_back"))
		return;
	snprintf(path, sizeof(path), "/api/resources/%lld/retarget?onto=%lld", (long long)cmu,
	         (long long)cmu);
	j = http_get_json(&d, path, 200);
	q = json_object_get(j, "quality");
	ck_assert(json_is_true(json_object_get(q, "identity")));
	ck_assert_double_lt(json_number_value(json_object_get(q, "cycle")), 1e-6);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "keys"), "baked")),
	                 0);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "map"), "count")),
	                 38);
	/* the hips' rotation keys, as the entry's own track 1 keeps them (degrees, ZXY) */
	track = NULL;
	{
		size_t i;
		json_t *t;
		json_array_foreach(
		    json_object_get(j, "retargeted"), i,
		    t) if (strcmp(json_string_value(json_object_get(t, "name")), "Hips") == 0 &&
		           strcmp(json_string_value(json_object_get(t, "property")), "rotation") ==
		               0) track = t;
	}
	ck_assert_ptr_nonnull(track);
	ck_assert_str_eq(json_string_value(json_object_get(track, "euler")), "rotation ZYX");
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/1/keys?limit=3", (long long)cmu);
	r = get(path, 200);
	keys = http_json(&r);
	for (size_t k = 0; k < 3; k++)
		for (size_t c = 0; c < 3; c++)
			ck_assert_double_eq(
			    number(json_array_get(json_object_get(track, "values"), k), c),
			    number(json_array_get(json_object_get(keys, "values"), k), c));
	json_decref(keys);
	http_reply_cleanup(&r);
	json_decref(j);
}
END_TEST

/* The take onto its rig remade (A-pose, other axes, scaled): the .glb answered, uploaded again,
 * poses every joint on the source's path times scale. */
static void onto_remade(double scale)
{
	struct bones b;
	char path[200];
	size_t length;
	uint8_t *glb;
	json_int_t target, again;
	struct http_reply r;
	json_t *j, *q;
	double height, apart;

	read_bones(cmu, &b);
	glb = a_pose_gltf(&b, scale, &length);
	target = http_upload_one(&d, "a-pose.glb", glb, length);
	free(glb);
	snprintf(path, sizeof(path), "/api/resources/%lld/retarget?onto=%lld&summary=1",
	         (long long)cmu, (long long)target);
	j = http_get_json(&d, path, 200);
	q = json_object_get(j, "quality");
	height = json_number_value(
	    json_object_get(json_object_get(json_object_get(j, "root_motion"), "heights"), "from"));
	ck_assert(json_is_false(json_object_get(q, "identity")));
	ck_assert_double_eq_tol(
	    json_number_value(json_object_get(json_object_get(j, "root_motion"), "scale")), scale,
	    1e-5);
	ck_assert_msg(json_number_value(json_object_get(q, "cycle")) < 1e-4, "cycle %g",
	              json_number_value(json_object_get(q, "cycle")));
	ck_assert_msg(json_number_value(json_object_get(q, "effectors")) < 1e-4, "effectors %g",
	              json_number_value(json_object_get(q, "effectors")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "keys"), "baked")),
	                 0);
	json_decref(j);
	/* ground=1: the lowest foot kept on the ground, its slide no worse than the take's */
	snprintf(path, sizeof(path), "/api/resources/%lld/retarget?onto=%lld&ground=1&summary=1",
	         (long long)cmu, (long long)target);
	j = http_get_json(&d, path, 200);
	q = json_object_get(json_object_get(j, "quality"), "foot_skate");
	ck_assert(json_is_true(json_object_get(j, "ground")));
	ck_assert_msg(json_number_value(json_object_get(q, "to")) <=
	                  json_number_value(json_object_get(q, "from")) * 1.01,
	              "feet slide %g, the take's %g", json_number_value(json_object_get(q, "to")),
	              json_number_value(json_object_get(q, "from")));
	json_decref(j);
	snprintf(path, sizeof(path), "/api/resources/%lld/retarget?onto=%lld&format=glb",
	         (long long)cmu, (long long)target);
	r = get(path, 200);
	ck_assert_str_eq(r.content_type, "model/gltf-binary");
	testutil_write_export(scale == 1 ? "cmu-01_01-on-a-pose.glb"
	                                 : "cmu-01_01-on-a-pose-1.5.glb",
	                      r.body, r.length);
	again = http_upload_one(&d, "retargeted.glb", r.body, r.length);
	http_reply_cleanup(&r);
	apart = paths_apart(cmu, again, scale);
	ck_assert_msg(apart < 1e-4 * height, "scale %g: a joint %g off its path (height %g)", scale,
	              apart, height);
	/* posed live, as the page's view asks: the same paths */
	snprintf(path, sizeof(path), "&skeleton=%lld&retarget=1", (long long)target);
	apart = poses_apart(cmu, cmu, path, scale);
	ck_assert_msg(apart < 1e-4 * height, "pose?retarget=1: a joint %g off its path", apart);
	/* from= is a time there, as the view's sweeps ask */
	snprintf(path, sizeof(path),
	         "/api/resources/%lld/pose?from=0&to=1&count=3&format=f32&skeleton=%lld&retarget=1",
	         (long long)cmu, (long long)target);
	r = get(path, 200);
	ck_assert_uint_eq(r.length, 3 * (1 + 38 * 26) * sizeof(float));
	http_reply_cleanup(&r);
}

START_TEST(a_take_onto_an_a_pose_rig_of_other_axes_follows_its_paths)
{
	if (have_cmu("a_take_onto_an_a_pose_rig_of_other_axes_follows_its_paths"))
		onto_remade(1.0);
}
END_TEST

START_TEST(onto_a_rig_half_as_large_again_the_paths_scale)
{
	if (have_cmu("onto_a_rig_half_as_large_again_the_paths_scale"))
		onto_remade(1.5);
}
END_TEST

/* The entry of a multi-animation upload named `name`. */
static json_int_t entry_named(const struct http_reply *created, const char *name)
{
	json_t *j = http_json(created), *e;
	json_int_t id = 0;
	size_t i;

	json_array_foreach(json_object_get(j, "resources"), i,
	                   e) if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0)
	    id = json_integer_value(json_object_get(e, "id"));
	json_decref(j);
	ck_assert_msg(id, "no entry %s", name);
	return id;
}

static struct http_reply upload_reply(const char *name, const void *data, size_t length)
{
	const char *names[1] = {name};
	const void *datas[1] = {data};
	struct http_reply r;

	ck_assert_int_eq(http_upload(&d, 1, names, datas, &length, NULL, &r), 0);
	ck_assert_msg(r.status == 201, "upload %s: %ld %.300s", name, r.status, r.body);
	return r;
}

/* Two takes onto one rig at once, by GET /api/export?retarget=1 (made again as it is sent:
 * larger than the 2 MB held) and by `animdexd retarget`: each animation poses as the take's
 * own retarget does. */
START_TEST(many_takes_onto_one_rig_at_once)
{
	struct bones b;
	char path[300], cmd[1200], out[600];
	size_t length;
	uint8_t *glb;
	json_int_t target, alone, many_01, many_03, cli;
	struct http_reply r, created;
	char *text;
	int status;

	if (!have_cmu("many_takes_onto_one_rig_at_once"))
		return;
	read_bones(cmu, &b);
	glb = a_pose_gltf(&b, 1.25, &length);
	target = http_upload_one(&d, "a-pose.glb", glb, length);
	free(glb);
	snprintf(path, sizeof(path), "/api/resources/%lld/retarget?onto=%lld&format=glb",
	         (long long)cmu, (long long)target);
	r = get(path, 200);
	alone = http_upload_one(&d, "alone.glb", r.body, r.length);
	http_reply_cleanup(&r);
	/* a second daemon on the catalogue, holding answers to 1 MB: the asset is made again,
	 * take by take, as it is sent */
	snprintf(path, sizeof(path), "/api/export?ids=%lld,%lld&skeleton=%lld&retarget=1",
	         (long long)cmu, (long long)cmu_03, (long long)target);
	{
		struct daemon_proc small;
		struct daemon_proc keep = d;
		ck_assert_int_eq(daemon_start(&small, d.db, "--answer-memory 8M"), 0);
		d = small;
		r = get(path, 200);
		d = keep;
		ck_assert_int_eq(daemon_stop(&small), 0);
	}
	ck_assert_uint_gt(r.length, 1u << 20); /* made again, not held */
	created = upload_reply("many.glb", r.body, r.length);
	many_01 = entry_named(&created, "01_01");
	many_03 = entry_named(&created, "01_03");
	http_reply_cleanup(&created);
	http_reply_cleanup(&r);
	ck_assert_double_lt(paths_apart(alone, many_01, 1.0), 1e-5);
	ck_assert(many_03 != many_01);
	/* the command line, on the same catalogue */
	snprintf(out, sizeof(out), "%s/cli.glb", dir);
	snprintf(cmd, sizeof(cmd),
	         "'%s' retarget --db '%s' --onto %lld --id %lld --quiet -o '%s' 2>&1",
	         getenv("ANIMDEXD"), d.db, (long long)target, (long long)cmu, out);
	text = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0, "animdexd retarget: %s", text);
	free(text);
	ck_assert_ptr_nonnull(text = testutil_read_file(out, &length));
	created = upload_reply("cli.glb", text, length);
	cli = entry_named(&created, "01_01");
	http_reply_cleanup(&created);
	free(text);
	ck_assert_double_lt(paths_apart(alone, cli, 1.0), 1e-5);
	/* refusals */
	{
		json_t *j = http_get_json(&d, "/api/export?ids=1&retarget=1", 400);
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_object_get(j, "error"), "path")),
		    "skeleton");
		json_decref(j);
		j = http_get_json(&d, "/api/export?ids=1&skeleton=1&retarget=2", 400);
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_object_get(j, "error"), "path")),
		    "retarget");
		json_decref(j);
	}
}
END_TEST

/* The rig remade (A-pose, other axes, scaled) as a FUEL Skel_Z: each bone's handle the Asobo32
 * of its name, as the game's tools name bones. */
static json_int_t upload_skeleton(const struct bones *b, double scale)
{
	double t[MAX_BONES][3], r[MAX_BONES][4];
	struct zbone bones[MAX_BONES];
	struct zskeleton sk = {
	    .layout = ZSKEL_FUEL, .bones = bones, .bone_count = (uint32_t)b->count};
	struct zbuf z;
	json_int_t id;

	a_pose(b, scale, t, r);
	memset(bones, 0, sizeof(bones));
	for (size_t i = 0; i < b->count; i++) {
		bones[i].name_crc = hash_asobo32(b->names[i], strlen(b->names[i]));
		bones[i].parent = b->parent[i];
		for (int c = 0; c < 3; c++) {
			bones[i].translation[c] = (float)t[i][c];
			bones[i].scale[c] = 1;
		}
		for (int c = 0; c < 4; c++)
			bones[i].rotation[c] = (float)r[i][c];
	}
	zbuf_init(&z, 0);
	zouna_write_skeleton(&z, &sk, 0, 0);
	id = http_upload_one(&d, "cmu.Skel_Z", z.data, z.len);
	zbuf_free(&z);
	return id;
}

/* An Animation_Z of that skeleton as a game would ship one: a record for every joint that is not
 * an end site, two rotation keys each (at rest: the layout is what the template gives), and the
 * hips' two translation keys. */
static json_int_t upload_animation_template(const struct bones *b)
{
	static struct zkey rot[2 * MAX_BONES], trans[2];
	static struct znode nodes[MAX_BONES];
	struct zanimation a = {0};
	struct zbuf z;
	uint16_t count = 0;
	json_int_t id;

	memset(rot, 0, sizeof(rot));
	memset(trans, 0, sizeof(trans));
	memset(nodes, 0, sizeof(nodes));
	for (size_t i = 0; i < b->count; i++) {
		if (strncmp(b->names[i], "EndSite_", 8) == 0)
			continue;
		nodes[count].bone_crc = hash_asobo32(b->names[i], strlen(b->names[i]));
		nodes[count].id = (int16_t)count;
		nodes[count].flag = 1;
		nodes[count].rot[0] = (uint16_t)(2 * count);
		nodes[count].rot[1] = 2;
		rot[2 * count].v[3] = rot[2 * count + 1].v[3] = 1;
		rot[2 * count + 1].time = 22.9f;
		count++;
	}
	nodes[0].trans[1] = 2; /* the hips */
	trans[1].time = 22.9f;
	a.max_time = 22.9f;
	a.node_flag = 1;
	a.keys[0] = rot, a.counts[0] = 2u * count;
	a.keys[3] = trans, a.counts[3] = 2;
	a.nodes = nodes, a.node_count = count;
	a.name_crc = hash_asobo32("walk", 4);
	zbuf_init(&z, 0);
	zouna_write_animation(&z, &a, 0, 0);
	id = http_upload_one(&d, "walk.Animation_Z", z.data, z.len);
	zbuf_free(&z);
	return id;
}

/* The retargeted track of the Skel_Z bone of handle crc and property ("rotation"), or NULL. */
static const json_t *retargeted_track(const json_t *answer, const json_t *skel_rig, uint32_t crc,
                                      const char *property)
{
	size_t i;
	json_t *t;

	json_array_foreach(json_object_get(answer, "retargeted"), i, t)
	{
		json_int_t node = json_integer_value(json_object_get(t, "node"));
		const char *handle = json_string_value(
		    json_object_get(json_array_get(skel_rig, (size_t)node), "handle"));
		if (handle && strtoul(handle, NULL, 16) == crc &&
		    strcmp(json_string_value(json_object_get(t, "property")), property) == 0)
			return t;
	}
	return NULL;
}

/* CMU 01_01 onto a Skel_Z, into an Animation_Z of that skeleton (reduce= keeps each record's
 * keys within its 16-bit fields), uploaded again: every key the game reads is one of the
 * retargeted keys, within one quantisation step of its class. */
START_TEST(a_take_goes_into_the_games_bytes)
{
	struct bones b;
	char path[300];
	json_int_t skel, tmpl, again;
	json_t *answer, *entry, *skel_entry, *report, *t;
	struct http_reply r;
	size_t i, checked = 0, keys = 0;
	double worst = 0;

	if (!have_cmu("a_take_goes_into_the_games_bytes"))
		return;
	read_bones(cmu, &b);
	skel = upload_skeleton(&b, 0.05); /* a game's metres: the hips' travel within 8 units */
	tmpl = upload_animation_template(&b);
	snprintf(path, sizeof(path),
	         "/api/resources/%lld/retarget?onto=%lld&format=native&template=%lld&reduce=0.001",
	         (long long)cmu, (long long)skel, (long long)tmpl);
	r = get(path, 200);
	ck_assert_str_eq(r.content_type, "application/octet-stream");
	ck_assert_ptr_nonnull(strstr(r.disposition, "01_01.Animation_Z"));
	again = http_upload_one(&d, "walk.Animation_Z", r.body, r.length);
	http_reply_cleanup(&r);
	{
		char with_summary[320];
		snprintf(with_summary, sizeof(with_summary), "%s&summary=1", path);
		report = http_get_json(&d, with_summary, 200);
	}
	ck_assert(json_is_object(json_object_get(report, "retarget"))); /* the retarget's report */
	snprintf(path, sizeof(path), "/api/resources/%lld/retarget?onto=%lld", (long long)cmu,
	         (long long)skel);
	answer = http_get_json(&d, path, 200);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(answer, "map"), "count")),
	    38); /* the take's names hashed onto the Skel_Z's handles */
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)skel);
	skel_entry = http_get_json(&d, path, 200);
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)again);
	entry = http_get_json(&d, path, 200);
	json_array_foreach(json_object_get(entry, "tracks"), i, t)
	{
		const char *name = json_string_value(json_object_get(t, "name"));
		int rotation = strstr(name, "rotation") != NULL;
		double step = rotation ? 1.0 / 2000 : 1.0 / 4096; /* KeyframerRot_Z, Vec3fComp_Z */
		uint32_t crc = (uint32_t)json_integer_value(
		    json_object_get(json_object_get(t, "target"), "object"));
		const json_t *want = retargeted_track(answer, json_object_get(skel_entry, "rig"),
		                                      crc, rotation ? "rotation" : "translation");
		json_t *got, *times, *values, *wt, *wv;
		size_t k, w = 0;
		if (!strstr(name, "rotation") && !strstr(name, "translation"))
			continue;
		ck_assert_msg(want != NULL, "%s: no retargeted track of its bone", name);
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/%zu/keys",
		         (long long)again, i);
		got = http_get_json(&d, path, 200);
		times = json_object_get(got, "times");
		values = json_object_get(got, "values");
		wt = json_object_get(want, "times");
		wv = json_object_get(want, "values");
		for (k = 0; k < json_array_size(times); k++) {
			double tk = number(times, k), sign = 1, dot = 0;
			const json_t *a = json_array_get(values, k), *e;
			while (w < json_array_size(wt) && number(wt, w) < tk - 1e-6)
				w++;
			ck_assert_msg(w < json_array_size(wt) && fabs(number(wt, w) - tk) < 1e-6,
			              "%s: a key at %g the retarget has not", name, tk);
			e = json_array_get(wv, w);
			for (size_t c = 0; rotation && c < 4; c++)
				dot += number(a, c) * number(e, c);
			sign = dot < 0 ? -1 : 1;
			for (size_t c = 0; c < json_array_size(a); c++) {
				double diff = fabs(number(a, c) - sign * number(e, c));
				worst = fmax(worst, diff / step);
				ck_assert_msg(diff <= step + 1e-6,
				              "%s at %g: %g, the retarget's %g", name, tk,
				              number(a, c), sign * number(e, c));
			}
			keys++;
		}
		checked++;
		json_decref(got);
	}
	ck_assert_uint_eq(checked, 32); /* 31 joints' rotations and the hips' translation */
	/* the Skel_Z's handles named (POST /api/names, as a modder names a game's bones): posed
	 * live on it, every joint on the take's path, 0.05 times as large */
	{
		char names[4096] = "", *at = names;
		double apart;
		for (size_t k = 0; k < b.count; k++)
			at +=
			    snprintf(at, sizeof(names) - (size_t)(at - names), "%s\n", b.names[k]);
		ck_assert_int_eq(
		    http_request(&d, "POST", "/api/names", names, strlen(names), "text/plain", &r),
		    0);
		ck_assert_int_eq(r.status, 200);
		http_reply_cleanup(&r);
		snprintf(path, sizeof(path), "&skeleton=%lld&retarget=1", (long long)skel);
		apart = poses_apart(cmu, cmu, path, 0.05);
		ck_assert_msg(apart < 1e-4 * 25.65,
		              "a joint %g off its path on the Skel_Z (its units)", apart);
	}
	printf("retarget: %zu keys of 32 tracks read back from the Animation_Z, the largest %.2f "
	       "of a step off the retarget\n",
	       keys, worst);
	json_decref(entry);
	json_decref(skel_entry);
	json_decref(answer);
	json_decref(report);
}
END_TEST

static void refused(const char *query, long status, const char *field, const char *words)
{
	char path[300];
	json_t *j, *e;

	snprintf(path, sizeof(path), "/api/resources/%lld/retarget%s", (long long)cmu, query);
	j = http_get_json(&d, path, status);
	e = json_object_get(j, "error");
	ck_assert_str_eq(json_string_value(json_object_get(e, "path")), field);
	ck_assert_msg(strstr(json_string_value(json_object_get(e, "message")), words), "%s: %s",
	              query, json_string_value(json_object_get(e, "message")));
	json_decref(j);
}

START_TEST(refusals_name_the_parameter)
{
	char query[120];
	static const char doc[] = "{\"bone_map\": {\"name\": \"hips only\", \"from\": \"cmu\", "
	                          "\"to\": \"cmu\", \"pairs\": "
	                          "[{\"from\": \"Hips\", \"to\": \"Hips\"}]}}";
	json_int_t map, plain;

	if (!have_cmu("refusals_name_the_parameter"))
		return;
	refused("", 400, "onto", "onto: missing");
	refused("?onto=x", 400, "onto", "not an entry id");
	refused("?onto=999999", 400, "onto", "no entry has id 999999");
	snprintf(query, sizeof(query), "?onto=%lld&mode=sideways", (long long)cmu);
	refused(query, 400, "mode", "'sideways' is not rest");
	snprintf(query, sizeof(query), "?onto=%lld&root=float", (long long)cmu);
	refused(query, 400, "root", "'float' is not scale");
	snprintf(query, sizeof(query), "?onto=%lld&ground=2", (long long)cmu);
	refused(query, 400, "ground", "'2' is not 0 or 1");
	snprintf(query, sizeof(query), "?onto=%lld&map=%lld", (long long)cmu, (long long)cmu);
	refused(query, 400, "map", "not a BoneMap");
	snprintf(query, sizeof(query), "?onto=%lld&format=native", (long long)cmu);
	refused(query, 400, "template", "template: missing");
	snprintf(query, sizeof(query), "?onto=%lld&format=fbx", (long long)cmu);
	refused(query, 400, "format", "'fbx' is not glb or gltf");
	/* a stored map is used as it is: the hips alone move */
	map = http_upload_one(&d, "hips.json", doc, strlen(doc));
	snprintf(query, sizeof(query), "/api/resources/%lld/retarget?onto=%lld&map=%lld&summary=1",
	         (long long)cmu, (long long)cmu, (long long)map);
	{
		json_t *j = http_get_json(&d, query, 200);
		ck_assert_int_eq(
		    json_integer_value(json_object_get(json_object_get(j, "map"), "count")), 1);
		ck_assert_int_eq(
		    json_integer_value(json_object_get(json_object_get(j, "tracks"), "written")),
		    2);
		ck_assert(
		    json_is_false(json_object_get(json_object_get(j, "quality"), "identity")));
		json_decref(j);
	}
	/* a clip with no rig of its own says which parameter gives it one */
	{
		static const char clip[] =
		    "{\"name\": \"bare\", \"duration\": 1, \"targets\": [{\"schema\": "
		    "\"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", \"object\": 0, \"name\": "
		    "\"Hips\"}], "
		    "\"samplers\": [{\"value\": {\"type\": \"FLOAT3\"}, \"times\": [0, 1], "
		    "\"values\": [0, 0, 0, 1, 0, 0]}], "
		    "\"channels\": [{\"target\": 0, \"property\": 1, \"sampler\": 0}]}";
		json_t *j;
		plain = http_upload_one(&d, "bare.json", clip, strlen(clip));
		snprintf(query, sizeof(query), "/api/resources/%lld/retarget?onto=%lld",
		         (long long)plain, (long long)cmu);
		j = http_get_json(&d, query, 409);
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_object_get(j, "error"), "path")),
		    "from");
		json_decref(j);
		/* from= puts it on a rig: its Hips track moves the take's hips */
		snprintf(query, sizeof(query), "/api/resources/%lld/retarget?onto=%lld&from=%lld",
		         (long long)plain, (long long)cmu, (long long)cmu);
		j = http_get_json(&d, query, 200);
		ck_assert_int_eq(
		    json_integer_value(json_object_get(json_object_get(j, "tracks"), "matched")),
		    1);
		json_decref(j);
	}
}
END_TEST

static Suite *retarget_suite(void)
{
	Suite *s = suite_create("retarget");
	TCase *tc = tcase_create("retarget");

	tcase_add_unchecked_fixture(tc, start, stop);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, a_take_onto_its_own_rig_gives_its_keys_back);
	tcase_add_test(tc, a_take_onto_an_a_pose_rig_of_other_axes_follows_its_paths);
	tcase_add_test(tc, onto_a_rig_half_as_large_again_the_paths_scale);
	tcase_add_test(tc, a_take_goes_into_the_games_bytes);
	tcase_add_test(tc, many_takes_onto_one_rig_at_once);
	tcase_add_test(tc, refusals_name_the_parameter);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(retarget_suite());
}
