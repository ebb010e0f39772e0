/* check_export_rig.c: rigs exported as glTF node trees against the real daemon: a glTF tree
 * with an unnamed node, a matrix ancestor and a skin; a Zouna animation onto its Skel_Z's tree
 * (skeleton=) and many entries onto one tree; a BVH take baked in its channels' orders; 100,000
 * nodes of one name in linear time. Each asset, and the world positions Blender must show
 * (EXPECTED.json), is written to $ANIMDEX_EXPORT_DIR for tests/scripts/export.sh (the Khronos
 * validator and Blender), after tests/daemon/check_export has emptied it. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "core/model.h"
#include "gltf_writer.h"
#include "testutil.h"
#include "zouna_writer.h"

static struct daemon_proc d;
static char *dir;

static void start(void)
{
	char db[512];

	dir = testutil_temp_dir();
	snprintf(db, sizeof(db), "%s/export_rig.db", dir);
	if (daemon_start(&d, db, "--max-samples 1000000") < 0)
		exit(1);
	testutil_export_folder("rig");
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

/* Rigs: a glTF tree with an unnamed node, a matrix ancestor and a skin, and a Zouna animation
 * put on the Skel_Z its bones fit. */
static json_int_t upload_one(const char *name, const void *data, size_t len)
{
	return http_upload_one(&d, name, data, len);
}

/* arm.glb (the rig tree below); `again`: the same tree, its animation under another name (so
 * other bytes: an entry of its own, on an equal rig). */
static json_int_t upload_rig_tree_as(int again);

static json_int_t upload_rig_tree(void)
{
	return upload_rig_tree_as(0);
}

static json_int_t upload_rig_tree_as(int again)
{
	static const float times[3] = {0, 1, 2};
	static const float turns[12] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f, 0, 0, 1, 0};
	static const float moves[9] = {1, 0, 0, 1, 2, 0, 1, 0, 0};
	static const float ibm[2 * 16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0,  -3, 0, 1,
	                                  1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, -3, 0, 1};
	struct gltf_writer w;
	json_t *nodes;
	size_t length;
	uint8_t *data;
	int input, output, bind;
	json_int_t id;

	gltf_writer_init(&w);
	gltf_writer_node(&w, "hips", 0);
	gltf_writer_node(&w, NULL, 0);
	gltf_writer_node(&w, "hand", 0);
	nodes = json_object_get(w.doc, "nodes");
	json_object_set_new(json_array_get(nodes, 0), "children", json_pack("[i]", 1));
	json_object_set_new(json_array_get(nodes, 1), "children", json_pack("[i]", 2));
	/* the root as a matrix: T(0, 3, 0) */
	json_object_set_new(json_array_get(nodes, 0), "matrix",
	                    json_pack("[i,i,i,i, i,i,i,i, i,i,i,i, i,i,i,i]", 1, 0, 0, 0, 0, 1, 0,
	                              0, 0, 0, 1, 0, 0, 3, 0, 1));
	input = gltf_writer_accessor(&w, 5126, "SCALAR", 3, times, sizeof(times), 0, 1);
	output = gltf_writer_accessor(&w, 5126, "VEC4", 3, turns, sizeof(turns), 0, 0);
	gltf_writer_channel(&w, 0, 1, "rotation", "LINEAR", input, output);
	output = gltf_writer_accessor(&w, 5126, "VEC3", 3, moves, sizeof(moves), 0, 0);
	gltf_writer_channel(&w, 0, 2, "translation", "LINEAR", input, output);
	bind = gltf_writer_accessor(&w, 5126, "MAT4", 2, ibm, sizeof(ibm), 0, 0);
	json_object_set_new(
	    w.doc, "skins",
	    json_pack("[{s:[i, i], s:i}]", "joints", 1, 2, "inverseBindMatrices", bind));
	if (again)
		json_object_set_new(json_array_get(json_object_get(w.doc, "animations"), 0), "name",
		                    json_string("wave again"));
	data = gltf_writer_glb(&w, &length);
	id = upload_one(again ? "arm-again.glb" : "arm.glb", data, length);
	free(data);
	gltf_writer_cleanup(&w);
	return id;
}

static json_int_t upload_hero_skeleton(void)
{
	static const char *const names[4] = {"ROOT", "Bip01 Pelvis", "Bip01 Spine", "Bip01 Head"};
	struct zbone bones[4];
	struct zskeleton s = {.layout = ZSKEL_RAT, .bones = bones, .bone_count = 4};
	struct zbuf b;
	json_int_t id;

	memset(bones, 0, sizeof(bones));
	for (int i = 0; i < 4; i++) {
		bones[i].name_crc = hash_asobo32(names[i], strlen(names[i]));
		bones[i].parent = i - 1;
		bones[i].rotation[3] = 1;
		bones[i].scale[0] = bones[i].scale[1] = bones[i].scale[2] = 1;
		bones[i].translation[1] = 0.75f;
	}
	s.name_crc = hash_asobo32("hero", 4);
	zbuf_init(&b, 0);
	zouna_write_skeleton(&b, &s, 16, 0);
	id = upload_one("hero.Skel_Z", b.data, b.len);
	zbuf_free(&b);
	return id;
}

/* The glTF of an export, parsed; and its nodes' names by index. */
static json_t *glb_doc(const struct http_reply *r)
{
	uint32_t json_len;

	memcpy(&json_len, r->body + 12, 4);
	return json_loadb(r->body + 20, json_len, 0, NULL);
}

static const char *node_name(const json_t *doc, json_int_t i)
{
	return json_string_value(
	    json_object_get(json_array_get(json_object_get(doc, "nodes"), (size_t)i), "name"));
}

/* Every node's parent by name (null for a root), as the asset says. */
static json_t *parents_of(const json_t *doc)
{
	json_t *parents = json_object(), *node, *child;
	size_t i, k;

	json_array_foreach(json_object_get(doc, "nodes"), i,
	                   node) if (!json_object_get(parents, node_name(doc, (json_int_t)i)))
	    json_object_set_new(parents, node_name(doc, (json_int_t)i), json_null());
	json_array_foreach(json_object_get(doc, "nodes"), i, node)
	    json_array_foreach(json_object_get(node, "children"), k, child)
	        json_object_set_new(parents, node_name(doc, json_integer_value(child)),
	                            json_string(node_name(doc, (json_int_t)i)));
	return parents;
}

/* What Blender must show of a rig export: its animation, every node's parent, and the world
 * position of every rig node at t = 0, 1, 2 as animdex poses it. */
static void write_rig_expected(const char *file, const json_t *doc, const char *pose_path)
{
	json_t *pose = http_get_json(&d, pose_path, 200), *world = json_array(), *p;
	json_t *expected, *nodes = json_object_get(pose, "nodes");
	size_t i, n;
	char *text;

	json_array_foreach(json_object_get(pose, "poses"), i, p)
	{
		json_t *positions = json_object();
		for (n = 0; n < json_array_size(nodes); n++) {
			json_t *m = json_array_get(json_object_get(p, "world"), n);
			json_object_set_new(
			    positions,
			    json_string_value(json_object_get(json_array_get(nodes, n), "name")),
			    json_pack("[O, O, O]", json_array_get(m, 12), json_array_get(m, 13),
			              json_array_get(m, 14)));
		}
		json_array_append_new(world, json_pack("{s:O, s:o}", "t", json_object_get(p, "t"),
		                                       "positions", positions));
	}
	expected = json_pack(
	    "{s:[{s:O, s:[]}], s:o, s:o}", "animations", "name",
	    json_object_get(json_array_get(json_object_get(doc, "animations"), 0), "name"),
	    "channels", "parents", parents_of(doc), "world", world);
	text = json_dumps(expected, JSON_COMPACT);
	testutil_write_export(file, text, strlen(text));
	free(text);
	json_decref(expected);
	json_decref(pose);
}

START_TEST(rigs_export_as_node_trees)
{
	json_int_t tree = upload_rig_tree(), hero = upload_hero_skeleton(), run = 0;
	struct http_reply r;
	char path[200];
	json_t *doc, *parents, *anim, *extras, *e;
	size_t i;

	/* hero_stride: its bones are the Skel_Z's (and one the Skel_Z lacks), every channel keyed
	 * at 0, 1 and 2 s (Blender 3.4 drops CUBICSPLINE tangents: it agrees at keys only) */
	{
		static struct zkey rot[3] = {{.time = 0, .v = {0, 0, 0, 1}},
		                             {.time = 1, .v = {0, 0, 0.70710678f, 0.70710678f}},
		                             {.time = 2, .v = {0.6f, 0, 0, 0.8f}}};
		static struct zkey trans[6] = {
		    {.time = 0, .v = {0, 1, 0}}, {.time = 1, .v = {1, 1, 0}},
		    {.time = 2, .v = {0, 2, 1}}, {.time = 0, .v = {5, 0, 0}},
		    {.time = 1, .v = {6, 0, 0}}, {.time = 2, .v = {7, 0, 0}}};
		static struct zkey scale[3] = {{.time = 0, .v = {1, 1, 1}},
		                               {.time = 1, .v = {2, 1, 1}},
		                               {.time = 2, .v = {1, 1, 3}}};
		struct znode nodes[3] = {
		    {hash_asobo32("Bip01 Pelvis", 12),
		     0,
		     0,
		     {0, 3},
		     {0, 3},
		     {0, 0},
		     {0, 0},
		     {0, 0}},
		    {hash_asobo32("Bip01 Spine", 11), 1, 0, {0, 0}, {0, 0}, {0, 0}, {0, 3}, {0, 0}},
		    {hash_asobo32("Bip01 Tail", 10), 2, 0, {3, 3}, {0, 0}, {0, 0}, {0, 0}, {0, 0}},
		};
		struct zanimation a = {0};
		struct zbuf b;
		a.max_time = 2.0f;
		a.keys[0] = rot, a.counts[0] = 3;
		a.keys[2] = scale, a.counts[2] = 3;
		a.keys[3] = trans, a.counts[3] = 6;
		a.nodes = nodes, a.node_count = 3;
		a.name_crc = hash_asobo32("hero_stride", 11);
		zbuf_init(&b, 0);
		zouna_write_animation(&b, &a, 0, 0);
		run = upload_one("hero_stride.Animation_Z", b.data, b.len);
		zbuf_free(&b);
	}

	/* the glTF tree: parents as children, rest TRS, names kept, unnamed nodes after their
	 * index, sources in extras, the skin with its joints */
	snprintf(path, sizeof(path), "/api/resources/%lld/export", (long long)tree);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	testutil_write_export("rig-tree.glb", r.body, r.length);
	doc = glb_doc(&r);
	parents = parents_of(doc);
	ck_assert(json_is_null(json_object_get(parents, "hips")));
	ck_assert_str_eq(json_string_value(json_object_get(parents, "node 1")), "hips");
	ck_assert_str_eq(json_string_value(json_object_get(parents, "hand")), "node 1");
	ck_assert_int_eq(
	    json_integer_value(json_object_get(
	        json_object_get(
	            json_object_get(json_array_get(json_object_get(doc, "nodes"), 1), "extras"),
	            "animdex"),
	        "source")),
	    1);
	ck_assert_double_eq(
	    json_number_value(json_array_get(
	        json_object_get(json_array_get(json_object_get(doc, "nodes"), 0), "translation"),
	        1)),
	    3);
	ck_assert_int_eq(json_array_size(json_object_get(
	                     json_array_get(json_object_get(doc, "skins"), 0), "joints")),
	                 2);
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?t=0,1,2", (long long)tree);
	write_rig_expected("rig-tree.expected.json", doc, path);
	json_decref(parents);
	json_decref(doc);
	http_reply_cleanup(&r);

	/* two entries on equal rigs after another rig: the tree written once, after the
	 * skeleton's nodes, and its skin's joints are the nodes of the tree (by their index in the
	 * asset, not in the rig) */
	{
		json_int_t twin = upload_rig_tree_as(1);
		json_t *joints, *all;
		size_t hand = 0;
		snprintf(path, sizeof(path), "/api/export?ids=%lld,%lld,%lld&format=gltf",
		         (long long)hero, (long long)tree, (long long)twin);
		doc = http_get_json(&d, path, 200);
		all = json_object_get(doc, "nodes");
		/* hero's four bones, its entry's node (nothing of it is animated), the tree's three
		 */
		ck_assert_uint_eq(json_array_size(all), 4 + 1 + 3);
		ck_assert_uint_eq(json_array_size(json_object_get(doc, "animations")), 2);
		ck_assert_uint_eq(json_array_size(json_object_get(doc, "skins")), 1);
		joints =
		    json_object_get(json_array_get(json_object_get(doc, "skins"), 0), "joints");
		ck_assert_uint_eq(json_array_size(joints), 2);
		ck_assert_str_eq(
		    json_string_value(json_object_get(
		        json_array_get(all, (size_t)json_integer_value(json_array_get(joints, 0))),
		        "name")),
		    "node 1 #2"); /* named after the skeleton's "node 1" */
		hand = (size_t)json_integer_value(json_array_get(joints, 1));
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_array_get(all, hand), "name")), "hand");
		/* the second rig's children are its own nodes: every child a node of its parent's
		 * entry, and the tree's hand a child of one of them */
		{
			size_t k, c, links = 0;
			json_t *node, *child;
			json_array_foreach(all, k, node)
			{
				json_t *from =
				    json_object_get(json_object_get(node, "extras"), "animdex");
				json_array_foreach(json_object_get(node, "children"), c, child)
				{
					json_t *to = json_object_get(
					    json_object_get(
					        json_array_get(all,
					                       (size_t)json_integer_value(child)),
					        "extras"),
					    "animdex");
					ck_assert_msg(from && to &&
					                  json_equal(json_object_get(from, "entry"),
					                             json_object_get(to, "entry")),
					              "node %zu's child %lld is another rig's node",
					              k, (long long)json_integer_value(child));
					links += (size_t)json_integer_value(child) == hand;
				}
			}
			ck_assert_uint_eq(links, 1);
		}
		json_decref(doc);
	}

	/* uploaded back: the same tree, rest poses bit for bit, the same poses */
	{
		json_int_t back;
		json_t *a, *b, *pa, *pb;
		snprintf(path, sizeof(path), "/api/resources/%lld/export", (long long)tree);
		ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
		back = upload_one("arm-again.glb", r.body, r.length);
		http_reply_cleanup(&r);
		snprintf(path, sizeof(path), "/api/resources/%lld", (long long)tree);
		a = http_get_json(&d, path, 200);
		snprintf(path, sizeof(path), "/api/resources/%lld", (long long)back);
		b = http_get_json(&d, path, 200);
		ck_assert_uint_eq(json_array_size(json_object_get(a, "rig")),
		                  json_array_size(json_object_get(b, "rig")));
		for (i = 0; i < json_array_size(json_object_get(a, "rig")); i++) {
			json_t *x = json_array_get(json_object_get(a, "rig"), i);
			json_t *y = json_array_get(json_object_get(b, "rig"), i);
			static const char *const same[] = {"translation", "rotation", "scale",
			                                   "inverse_bind_matrix"};
			for (int k = 0; k < 4; k++)
				ck_assert_msg(json_equal(json_object_get(x, same[k]),
				                         json_object_get(y, same[k])),
				              "rig node %zu's %s changed", i, same[k]);
			ck_assert(json_is_null(json_object_get(x, "parent")) ==
			          json_is_null(json_object_get(y, "parent")));
		}
		json_decref(a);
		json_decref(b);
		snprintf(path, sizeof(path), "/api/resources/%lld/pose?from=0&to=2&count=41",
		         (long long)tree);
		pa = http_get_json(&d, path, 200);
		snprintf(path, sizeof(path), "/api/resources/%lld/pose?from=0&to=2&count=41",
		         (long long)back);
		pb = http_get_json(&d, path, 200);
		for (i = 0; i < 41; i++)
			for (size_t n = 0; n < 3; n++)
				for (size_t k = 0; k < 16; k++) {
					double x = json_number_value(json_array_get(
					    json_array_get(
					        json_object_get(
					            json_array_get(json_object_get(pa, "poses"), i),
					            "world"),
					        n),
					    k));
					double y = json_number_value(json_array_get(
					    json_array_get(
					        json_object_get(
					            json_array_get(json_object_get(pb, "poses"), i),
					            "world"),
					        n),
					    k));
					ck_assert_msg(fabs(x - y) < 1e-6,
					              "pose %zu node %zu: %g, not %g", i, n, y, x);
				}
		json_decref(pa);
		json_decref(pb);
	}

	/* hero_run on the Skel_Z: its tree, its bones' channels, the tracks of bones the
	 * skeleton lacks in extras with the reason */
	snprintf(path, sizeof(path), "/api/resources/%lld/export?skeleton=%lld", (long long)run,
	         (long long)hero);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_msg(r.status == 200, "%.300s", r.body);
	testutil_write_export("rig-skeleton.glb", r.body, r.length);
	doc = glb_doc(&r);
	ck_assert_int_eq(json_array_size(json_object_get(doc, "nodes")), 4);
	parents = parents_of(doc);
	ck_assert_str_eq(json_string_value(json_object_get(parents, "node 3")), "node 2");
	anim = json_array_get(json_object_get(doc, "animations"), 0);
	ck_assert_int_ge(json_array_size(json_object_get(anim, "channels")), 3);
	extras = json_object_get(json_object_get(json_object_get(anim, "extras"), "animdex"),
	                         "not_animated");
	ck_assert_int_eq(json_array_size(extras), 1); /* the Tail's translation */
	json_array_foreach(extras, i, e) ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(e, "reason")), "has no node for it"));
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?skeleton=%lld&t=0,1,2",
	         (long long)run, (long long)hero);
	write_rig_expected("rig-skeleton.expected.json", doc, path);
	json_decref(parents);
	json_decref(doc);
	http_reply_cleanup(&r);

	/* a batch on one skeleton: one tree, an animation per entry; the glTF tree's tracks
	 * find no bone there and are kept with the reason */
	snprintf(path, sizeof(path), "/api/export?ids=%lld,%lld&skeleton=%lld", (long long)run,
	         (long long)tree, (long long)hero);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_msg(r.status == 200, "%.300s", r.body);
	doc = glb_doc(&r);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(
	        json_object_get(json_object_get(json_object_get(doc, "asset"), "extras"),
	                        "animdex"),
	        "skeleton")),
	    hero);
	{
		char *text = json_dumps(doc, JSON_COMPACT);
		char reason[64];
		snprintf(reason, sizeof(reason), "skeleton %lld has no node for it",
		         (long long)hero);
		ck_assert_ptr_nonnull(strstr(text, reason));
		free(text);
	}
	/* the 4 bones, and the node that carries the entry glTF could animate nothing of */
	ck_assert_int_eq(json_array_size(json_object_get(doc, "nodes")), 5);
	json_decref(doc);
	http_reply_cleanup(&r);

	/* a skeleton that is none */
	snprintf(path, sizeof(path), "/api/resources/%lld/export?skeleton=%lld", (long long)run,
	         (long long)run);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 400);
	ck_assert_ptr_nonnull(strstr(r.body, "skeleton"));
	http_reply_cleanup(&r);
}
END_TEST

/* A BVH take exports as its joints' node tree, each Euler rotation baked in its own channel
 * order: Blender must pose every joint where animdex does (written for tests/scripts/export.sh),
 * and the asset keeps every track. */
START_TEST(bvh_takes_export_as_node_trees)
{
	char file[600], path[200], *text;
	size_t length;
	struct http_reply r;
	json_int_t take;
	json_t *doc, *parents;

	testutil_src_path("tests/data/bvh/three_orders.bvh", file, sizeof(file));
	ck_assert_ptr_nonnull(text = testutil_read_file(file, &length));
	take = upload_one("three_orders.bvh", text, length);
	free(text);
	snprintf(path, sizeof(path), "/api/resources/%lld/export", (long long)take);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	testutil_write_export("bvh-take.glb", r.body, r.length);
	doc = glb_doc(&r);
	parents = parents_of(doc);
	ck_assert_str_eq(json_string_value(json_object_get(parents, "Neck")), "Chest");
	ck_assert_str_eq(json_string_value(json_object_get(parents, "EndSite_Neck")), "Neck");
	ck_assert_str_eq(json_string_value(json_object_get(parents, "LeftLeg")), "Hips");
	ck_assert_uint_eq(json_array_size(json_object_get(
	                      json_array_get(json_object_get(doc, "animations"), 0), "channels")),
	                  5); /* the root's position and four rotations, none kept aside */
	snprintf(path, sizeof(path), "/api/resources/%lld/pose?t=0,1,2", (long long)take);
	write_rig_expected("bvh-take.expected.json", doc, path);
	json_decref(parents);
	json_decref(doc);
	http_reply_cleanup(&r);
}
END_TEST

/* Node names are made unique in linear time: a skeleton of 100,000 nodes of one name ("bone",
 * "bone #2" ... "bone #100000") exports in seconds (trying every suffix from 2 for each node
 * took minutes: past this test case's time-out of 120 s). */
START_TEST(many_nodes_of_one_name_export_in_linear_time)
{
	enum { NODES = 100000 };
	char *folder = testutil_temp_dir(), db[600];
	struct daemon_proc own;
	struct http_reply r;
	char *text = malloc((size_t)NODES * 32 + 256);
	size_t length;
	json_t *j, *nodes;

	ck_assert_ptr_nonnull(text);
	length = (size_t)sprintf(text, "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [");
	for (int i = 0; i < NODES; i++)
		length += (size_t)sprintf(text + length, "%s{\"name\": \"bone\"}", i ? ", " : "");
	length += (size_t)sprintf(text + length, "]}");
	snprintf(db, sizeof(db), "%s/many.db", folder);
	ck_assert_int_eq(daemon_start(&own, db, NULL), 0);
	ck_assert_int_eq(http_request(&own, "POST", "/api/resources?filename=many.gltf", text,
	                              length, "model/gltf+json", &r),
	                 0);
	ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
	http_reply_cleanup(&r);
	j = http_get_json(&own, "/api/resources/1/export?summary=1", 200);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "nodes")), NODES);
	json_decref(j);
	ck_assert_int_eq(
	    http_request(&own, "GET", "/api/resources/1/export?format=gltf", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	j = json_loadb(r.body, r.length, 0, NULL);
	nodes = json_object_get(j, "nodes");
	ck_assert_uint_eq(json_array_size(nodes), NODES + 1); /* and the entry's own node */
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(nodes, 1), "name")),
	                 "bone #2");
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_array_get(nodes, NODES - 1), "name")),
	    "bone #100000");
	json_decref(j);
	http_reply_cleanup(&r);
	free(text);
	ck_assert_int_eq(daemon_stop(&own), 0);
	testutil_remove_tree(folder);
	free(folder);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("export_rig");
	TCase *tc = tcase_create("rigs"), *limits = tcase_create("limits");

	tcase_add_unchecked_fixture(tc, start, stop);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, rigs_export_as_node_trees);
	tcase_add_test(tc, bvh_takes_export_as_node_trees);
	suite_add_tcase(s, tc);
	tcase_add_test(limits, many_nodes_of_one_name_export_in_linear_time);
	tcase_set_timeout(limits, 120);
	suite_add_tcase(s, limits);
	return testutil_run(s);
}
