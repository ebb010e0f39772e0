/* check_rig.c: the rig's arithmetic (compose, decompose, world matrices) against values
 * worked out by hand, its checks on hostile parents, and the rig the glTF decoder makes of a
 * node tree: ancestors kept, siblings left out, matrices decomposed, skins' joints and their
 * inverse bind matrices, unnamed nodes by their index, and the validator's codes for trees
 * that are not trees. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "gltf_writer.h"
#include "core/pose.h"
#include "core/rig.h"

#define GLTF_FLOAT 5126

static void assert_close(double got, double want, double tolerance, const char *what)
{
	ck_assert_msg(fabs(got - want) <= tolerance, "%s: %.9g, not %.9g", what, got, want);
}

START_TEST(compose_and_decompose_are_inverse)
{
	srand(7);
	for (int n = 0; n < 2000; n++) {
		float t[3], r[4], s[3], t2[3], r2[4], s2[3];
		double m[16], m2[16], len = 0;
		for (int k = 0; k < 3; k++) {
			t[k] = (float)(rand() % 2001 - 1000) / 100.0f;
			s[k] = (float)(rand() % 400 + 1) / 100.0f;
		}
		for (int k = 0; k < 4; k++) {
			r[k] = (float)(rand() % 2001 - 1000) / 1000.0f;
			len += (double)r[k] * r[k];
		}
		if (len < 1e-6)
			continue;
		for (int k = 0; k < 4; k++)
			r[k] = (float)(r[k] / sqrt(len));
		rig_compose(t, r, s, m);
		ck_assert_int_eq(rig_decompose(m, t2, r2, s2), 0);
		rig_compose(t2, r2, s2, m2);
		for (int k = 0; k < 16; k++)
			assert_close(m2[k], m[k], 1e-4 * (1 + fabs(m[k])), "recomposed element");
		for (int k = 0; k < 3; k++) {
			assert_close(t2[k], t[k], 1e-6, "translation");
			assert_close(s2[k], s[k], 1e-4 * s[k], "scale");
		}
	}
}
END_TEST

START_TEST(matrices_that_are_not_trs_do_not_decompose)
{
	double shear[16] = {1, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
	double flat[16] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
	double projective[16] = {1, 0, 0, 0.1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
	double mirror[16] = {-2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4, 0, 5, 6, 7, 1};
	float t[3], r[4], s[3];
	double again[16];

	ck_assert_int_eq(rig_decompose(shear, t, r, s), -1);
	ck_assert_int_eq(rig_decompose(flat, t, r, s), -1);
	ck_assert_int_eq(rig_decompose(projective, t, r, s), -1);
	/* a mirror decomposes, the sign on x (as three.js puts it) */
	ck_assert_int_eq(rig_decompose(mirror, t, r, s), 0);
	assert_close(s[0], -2, 1e-6, "mirrored x scale");
	assert_close(s[1], 3, 1e-6, "y scale");
	assert_close(t[2], 7, 0, "z translation");
	rig_compose(t, r, s, again);
	for (int k = 0; k < 16; k++)
		assert_close(again[k], mirror[k], 1e-6, "mirror recomposed");
}
END_TEST

/* root T(1,0,0); child T(0,1,0) R(90 degrees about z); grandchild T(1,0,0): the grandchild's
 * world position is (1,1,0) + Rz(90) (1,0,0) = (1,2,0). The nodes come children first. */
START_TEST(world_matrices_chain_their_parents)
{
	const float s = (float)sqrt(0.5);
	struct rig_node nodes[3] = {
	    {.source = 2, .parent = 1, .translation = {1, 0, 0}, .rotation = {0, 0, 0, 1}},
	    {.source = 1, .parent = 2, .translation = {0, 1, 0}, .rotation = {0, 0, s, s}},
	    {.source = 0, .parent = -1, .translation = {1, 0, 0}, .rotation = {0, 0, 0, 1}},
	};
	struct rig rig = {nodes, 3};
	double local[3 * 16], world[3 * 16];
	struct error err;

	for (int i = 0; i < 3; i++) {
		nodes[i].scale[0] = nodes[i].scale[1] = nodes[i].scale[2] = 1;
		rig_compose(nodes[i].translation, nodes[i].rotation, nodes[i].scale,
		            local + i * 16);
	}
	error_init(&err);
	ck_assert_int_eq(rig_check(&rig, &err), 0);
	ck_assert_int_eq(rig_world(&rig, local, world), 0);
	assert_close(world[2 * 16 + 12], 1, 1e-12, "root x");
	assert_close(world[1 * 16 + 12], 1, 1e-6, "child x");
	assert_close(world[1 * 16 + 13], 1, 1e-6, "child y");
	assert_close(world[0 * 16 + 12], 1, 1e-6, "grandchild x");
	assert_close(world[0 * 16 + 13], 2, 1e-6, "grandchild y");
	assert_close(world[0 * 16 + 14], 0, 1e-6, "grandchild z");
	/* the grandchild's x axis is the child's rotated one: (0, 1, 0) */
	assert_close(world[0 * 16 + 0], 0, 1e-6, "grandchild x axis x");
	assert_close(world[0 * 16 + 1], 1, 1e-6, "grandchild x axis y");
}
END_TEST

START_TEST(hostile_parents_are_refused)
{
	struct rig_node nodes[3] = {{.parent = -1}, {.parent = 2}, {.parent = 1}};
	struct rig rig = {nodes, 3};
	struct error err;

	error_init(&err);
	ck_assert_int_eq(rig_check(&rig, &err), -1); /* 1 and 2 are each other's parent */
	ck_assert_ptr_nonnull(strstr(err.message, "cycle"));
	nodes[1].parent = 3;
	error_init(&err);
	ck_assert_int_eq(rig_check(&rig, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "rig.nodes[1].parent: 3"));
	nodes[1].parent = -7;
	error_init(&err);
	ck_assert_int_eq(rig_check(&rig, &err), -1);
	nodes[1].parent = 0;
	nodes[2].parent = 1;
	error_init(&err);
	ck_assert_int_eq(rig_check(&rig, &err), 0);
}
END_TEST

/* A file of six nodes: 0 (root, a matrix: T(0,0,5) and a scale of 2), its children 1 (named
 * "hips") and 5 (a sibling nothing animates), 1's child 2 (unnamed, animated), 3 and 4 (a
 * separate root and its child, joints of a skin with node 2). */
static uint8_t *tree_file(struct gltf_writer *w, const char *matrix_json, size_t *length)
{
	static const float times[2] = {0, 1};
	static const float moves[6] = {0, 0, 0, 1, 0, 0};
	static const float ibm[3 * 16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0,  0, 0, 1,
	                                  1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1,
	                                  2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0,  0, 0, 1};
	json_t *nodes, *skin;
	int input, output, joints;

	gltf_writer_init(w);
	for (int i = 0; i < 6; i++)
		gltf_writer_node(w, i == 1 ? "hips" : NULL, 0);
	nodes = json_object_get(w->doc, "nodes");
	json_object_set_new(json_array_get(nodes, 0), "matrix", json_loads(matrix_json, 0, NULL));
	json_object_set_new(json_array_get(nodes, 0), "children", json_pack("[i, i]", 1, 5));
	json_object_set_new(json_array_get(nodes, 1), "children", json_pack("[i]", 2));
	json_object_set_new(json_array_get(nodes, 3), "children", json_pack("[i]", 4));
	json_object_set_new(json_array_get(nodes, 1), "translation",
	                    json_pack("[f, f, f]", 0.0, 1.0, 0.0));
	input = gltf_writer_accessor(w, GLTF_FLOAT, "SCALAR", 2, times, sizeof(times), 0, 1);
	output = gltf_writer_accessor(w, GLTF_FLOAT, "VEC3", 2, moves, sizeof(moves), 0, 0);
	gltf_writer_channel(w, 0, 2, "translation", "LINEAR", input, output);
	joints = gltf_writer_accessor(w, GLTF_FLOAT, "MAT4", 3, ibm, sizeof(ibm), 0, 0);
	skin = json_pack("{s:[i, i, i], s:i}", "joints", 3, 2, 4, "inverseBindMatrices", joints);
	json_object_set_new(w->doc, "skins", json_pack("[o]", skin));
	return gltf_writer_embedded(w, length);
}

/* Decodes the document w holds as tree.gltf; w is let go. */
static int decode_written(struct gltf_writer *w, struct decode_result *out, struct error *err)
{
	struct upload up = {0};
	size_t length;
	uint8_t *data = gltf_writer_embedded(w, &length);
	int rc;

	up.data = data;
	up.length = length;
	up.filename = "tree.gltf";
	decode_result_init(out);
	error_init(err);
	rc = format_decode(&up, out, err);
	free(data);
	gltf_writer_cleanup(w);
	return rc;
}

static int decode_tree(const char *matrix_json, struct decode_result *out, struct error *err)
{
	struct gltf_writer w;
	size_t length;

	free(tree_file(&w, matrix_json, &length));
	return decode_written(&w, out, err);
}

static const struct rig_node *by_source(const struct rig *rig, uint32_t source)
{
	for (size_t i = 0; i < rig->count; i++)
		if (rig->nodes[i].source == source)
			return &rig->nodes[i];
	return NULL;
}

START_TEST(gltf_rig_keeps_ancestors_and_skin_joints)
{
	struct decode_result out;
	struct error err;
	const struct rig *rig;
	const struct rig_node *n0, *n1, *n2, *n3, *n4;

	ck_assert_msg(decode_tree("[2,0,0,0, 0,2,0,0, 0,0,2,0, 0,0,5,1]", &out, &err) == 0, "%s",
	              err.message);
	ck_assert_uint_eq(out.count, 1);
	rig = &out.resources[0]->rig;
	/* 0, 1, 2 (the animated node and its ancestors), 3 and 4 (the skin's joints); not 5 */
	ck_assert_uint_eq(rig->count, 5);
	ck_assert_ptr_null(by_source(rig, 5));
	n0 = by_source(rig, 0), n1 = by_source(rig, 1), n2 = by_source(rig, 2);
	n3 = by_source(rig, 3), n4 = by_source(rig, 4);
	ck_assert(n0 && n1 && n2 && n3 && n4);
	ck_assert_int_eq(n0->parent, -1);
	ck_assert(n1->parent >= 0 && n2->parent >= 0 && n4->parent >= 0);
	ck_assert_uint_eq(rig->nodes[n1->parent].source, 0);
	ck_assert_uint_eq(rig->nodes[n2->parent].source, 1);
	ck_assert_int_eq(n3->parent, -1);
	ck_assert_uint_eq(rig->nodes[n4->parent].source, 3);
	/* names kept, unnamed nodes have none (the rig names them by source index) */
	ck_assert_str_eq(n1->name, "hips");
	ck_assert(n1->has_handle);
	ck_assert_ptr_null(n2->name);
	ck_assert(!n2->has_handle);
	/* the matrix node decomposed: T(0,0,5), S(2,2,2) */
	assert_close(n0->translation[2], 5, 0, "node 0 z");
	assert_close(n0->scale[0], 2, 1e-6, "node 0 scale");
	assert_close(n0->rotation[3], 1, 1e-6, "node 0 rotation w");
	assert_close(n1->translation[1], 1, 0, "node 1 y");
	/* the skin's matrices go to its joints in order: 3, 2, 4 */
	ck_assert(n3->has_inverse_bind && n2->has_inverse_bind && n4->has_inverse_bind);
	assert_close(n2->inverse_bind[12], -1, 0, "node 2's inverse bind x");
	assert_close(n4->inverse_bind[0], 2, 0, "node 4's inverse bind scale");
	decode_result_cleanup(&out);
}
END_TEST

/* A file that lists a mesh, a camera and a light before its bones (hips, then its child
 * spine, animated): the rig holds the bones alone, and spine's parent is hips' index in the
 * rig, not in the file. */
START_TEST(bones_after_other_nodes_keep_their_parents)
{
	static const float times[2] = {0, 1};
	static const float moves[6] = {0, 0, 0, 1, 0, 0};
	struct gltf_writer w;
	struct decode_result out;
	struct error err;
	const struct rig *rig;
	const struct rig_node *hips, *spine;
	json_t *nodes;
	int input, output;

	gltf_writer_init(&w);
	gltf_writer_node(&w, "body", 1);
	gltf_writer_node(&w, "camera", 0);
	gltf_writer_node(&w, "light", 0);
	gltf_writer_node(&w, "hips", 0);
	gltf_writer_node(&w, "spine", 0);
	nodes = json_object_get(w.doc, "nodes");
	json_object_set_new(w.doc, "cameras",
	                    json_pack("[{s:s, s:{s:f, s:f}}]", "type", "perspective", "perspective",
	                              "yfov", 0.8, "znear", 0.1));
	json_object_set_new(json_array_get(nodes, 1), "camera", json_integer(0));
	json_object_set_new(json_array_get(nodes, 3), "children", json_pack("[i]", 4));
	json_object_set_new(json_array_get(nodes, 4), "translation",
	                    json_pack("[f, f, f]", 0.0, 0.5, 0.0));
	input = gltf_writer_accessor(&w, GLTF_FLOAT, "SCALAR", 2, times, sizeof(times), 0, 1);
	output = gltf_writer_accessor(&w, GLTF_FLOAT, "VEC3", 2, moves, sizeof(moves), 0, 0);
	gltf_writer_channel(&w, 0, 4, "translation", "LINEAR", input, output);
	ck_assert_msg(decode_written(&w, &out, &err) == 0, "%s", err.message);
	rig = &out.resources[0]->rig;
	hips = by_source(rig, 3), spine = by_source(rig, 4);
	ck_assert(hips && spine);
	ck_assert_ptr_null(by_source(rig, 1)); /* the camera and the light are not bones */
	ck_assert_ptr_null(by_source(rig, 2));
	ck_assert_int_eq(hips->parent, -1);
	ck_assert_int_ge(spine->parent, 0);
	ck_assert_int_lt(spine->parent, (int)rig->count);
	ck_assert_ptr_eq(&rig->nodes[spine->parent], hips);
	decode_result_cleanup(&out);
}
END_TEST

/* The same tree without its animation: a Skeleton entry with every node; and the clip's
 * name when the animation has none: the file's, with the animation's index. */
START_TEST(a_gltf_without_animations_is_a_skeleton)
{
	struct gltf_writer w;
	struct upload up = {0};
	struct decode_result out;
	struct error err;
	size_t length;
	uint8_t *data = tree_file(&w, "[2,0,0,0, 0,2,0,0, 0,0,2,0, 0,0,5,1]", &length);
	const struct rig *rig;

	free(data);
	json_object_del(w.doc, "animations");
	data = gltf_writer_embedded(&w, &length);
	up.data = data;
	up.length = length;
	up.filename = "dir/CesiumMan.gltf";
	decode_result_init(&out);
	error_init(&err);
	ck_assert_msg(format_decode(&up, &out, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(out.count, 1);
	ck_assert_str_eq(out.resources[0]->class_name, "Skeleton");
	ck_assert_str_eq(out.resources[0]->family, "gltf");
	ck_assert_str_eq(out.resources[0]->name, "CesiumMan");
	ck_assert_uint_eq(out.resources[0]->clip.channel_count, 0);
	rig = &out.resources[0]->rig;
	ck_assert_uint_eq(rig->count, 6);
	ck_assert_uint_eq(rig->nodes[by_source(rig, 5)->parent].source, 0);
	ck_assert(by_source(rig, 2)->has_inverse_bind);
	decode_result_cleanup(&out);
	free(data);
	gltf_writer_cleanup(&w);

	ck_assert_msg(decode_tree("[2,0,0,0, 0,2,0,0, 0,0,2,0, 0,0,5,1]", &out, &err) == 0, "%s",
	              err.message);
	ck_assert_str_eq(out.resources[0]->name, "tree #0");
	decode_result_cleanup(&out);
}
END_TEST

START_TEST(gltf_trees_that_are_not_trees_are_refused)
{
	struct decode_result out;
	struct error err;
	struct gltf_writer w;
	struct upload up = {0};
	uint8_t *data;
	size_t length;
	json_t *nodes;

	/* a matrix with shear on an ancestor of an animated node */
	ck_assert_int_eq(decode_tree("[1,0,0,0, 0.5,1,0,0, 0,0,1,0, 0,0,0,1]", &out, &err), -1);
	ck_assert_msg(strstr(err.message, "NODE_MATRIX_NON_TRS at /nodes/0/matrix"), "%s",
	              err.message);
	decode_result_cleanup(&out);

	/* node 2 a child of both 1 and 5; then 0 a child of 2 (a loop) */
	for (int variant = 0; variant < 2; variant++) {
		data = tree_file(&w, "[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]", &length);
		free(data);
		nodes = json_object_get(w.doc, "nodes");
		if (variant == 0)
			json_object_set_new(json_array_get(nodes, 5), "children",
			                    json_pack("[i]", 2));
		else
			json_object_set_new(json_array_get(nodes, 2), "children",
			                    json_pack("[i]", 0));
		data = gltf_writer_embedded(&w, &length);
		up = (struct upload){0};
		up.data = data;
		up.length = length;
		up.filename = "tree.gltf";
		decode_result_init(&out);
		error_init(&err);
		ck_assert_int_eq(format_decode(&up, &out, &err), -1);
		ck_assert_msg(
		    strstr(err.message, variant == 0 ? "NODE_PARENT_OVERRIDE" : "NODE_LOOP"), "%s",
		    err.message);
		decode_result_cleanup(&out);
		free(data);
		gltf_writer_cleanup(&w);
	}
}
END_TEST

/* Rig operations are linear in the nodes, however deep the tree: a chain of 300,000 nodes
 * given children first (node i's parent is i + 1) is checked, ordered parents first and
 * posed. Walking every node's ancestors (the quadratic way) takes minutes here: past the test
 * case's time-out, so this test fails on that code; the linear walk takes milliseconds. */
#define DEEP 300000
START_TEST(a_deep_chain_costs_what_a_wide_tree_costs)
{
	struct rig rig = {calloc(DEEP, sizeof(struct rig_node)), DEEP};
	size_t *place = malloc(DEEP * sizeof(*place));
	struct error err;
	struct pose pose;

	ck_assert(rig.nodes && place);
	for (size_t i = 0; i < DEEP; i++) {
		rig.nodes[i].parent = i + 1 < DEEP ? (int32_t)(i + 1) : -1;
		rig.nodes[i].source = (uint32_t)i;
		rig.nodes[i].translation[0] = 1;
		rig.nodes[i].rotation[3] = 1;
		rig.nodes[i].scale[0] = rig.nodes[i].scale[1] = rig.nodes[i].scale[2] = 1;
	}
	error_init(&err);
	ck_assert_msg(rig_check(&rig, &err) == 0, "%s", err.message);
	ck_assert_int_eq(pose_init(&pose, &rig), 0);
	for (size_t k = 0; k < DEEP; k++)
		place[pose.order[k]] = k;
	for (size_t i = 0; i + 1 < DEEP; i++)
		ck_assert_uint_lt(place[i + 1], place[i]); /* every parent before its child */
	pose_at(&pose, 0);
	assert_close(pose.world[0 * 16 + 12], DEEP, 0, "the deepest node's x");
	pose_cleanup(&pose);
	/* a cycle at the top of the chain is still found, and named by the first node below it */
	rig.nodes[DEEP - 1].parent = DEEP - 2;
	error_init(&err);
	ck_assert_int_eq(rig_check(&rig, &err), -1);
	ck_assert_msg(strstr(err.message, "rig.nodes[0].parent") && strstr(err.message, "cycle"),
	              "%s", err.message);
	free(place);
	free(rig.nodes);
}
END_TEST

/* Rest values that float32 holds but whose world matrices multiply past it (3e38 in a bone and
 * again in its child, as a hostile Skel_Z has them) are refused, naming the node: a pose of
 * them would be infinite, which JSON cannot carry. */
START_TEST(rest_poses_beyond_float32_are_refused)
{
	struct rig_node nodes[2] = {{.parent = -1, .source = 0}, {.parent = 0, .source = 1}};
	struct rig rig = {nodes, 2};
	struct error err;

	for (int i = 0; i < 2; i++) {
		nodes[i].translation[0] = 3e38f;
		nodes[i].rotation[3] = 1;
		nodes[i].scale[0] = nodes[i].scale[1] = nodes[i].scale[2] = 1;
	}
	error_init(&err);
	ck_assert_int_eq(rig_check(&rig, &err), -1);
	ck_assert_str_eq(error_code_name(err.code), "value_out_of_range");
	ck_assert_msg(strstr(err.message, "rig.nodes[1]: node 1's rest pose is beyond a 32-bit"),
	              "%s", err.message);
	nodes[1].translation[0] = -3e38f; /* back to 0: every float finite */
	error_init(&err);
	ck_assert_msg(rig_check(&rig, &err) == 0, "%s", err.message);
}
END_TEST

/* A glTF chain of 300,000 nodes, its deepest animated: the decoder's parent and loop checks
 * are linear too (they walked every node's ancestors). */
START_TEST(a_deep_gltf_chain_decodes)
{
	enum { N = 300000 };
	static const float times[2] = {0, 1};
	static const float moves[6] = {0, 0, 0, 1, 0, 0};
	struct gltf_writer w;
	struct upload up = {0};
	struct decode_result out;
	struct error err;
	json_t *nodes;
	uint8_t *data;
	size_t length;
	int input, output;

	gltf_writer_init(&w);
	nodes = json_array();
	for (int i = 0; i < N; i++)
		json_array_append_new(nodes, i + 1 < N ? json_pack("{s:[i]}", "children", i + 1)
		                                       : json_object());
	json_object_set_new(w.doc, "nodes", nodes);
	input = gltf_writer_accessor(&w, GLTF_FLOAT, "SCALAR", 2, times, sizeof(times), 0, 1);
	output = gltf_writer_accessor(&w, GLTF_FLOAT, "VEC3", 2, moves, sizeof(moves), 0, 0);
	gltf_writer_channel(&w, 0, N - 1, "translation", "LINEAR", input, output);
	data = gltf_writer_embedded(&w, &length);
	up.data = data;
	up.length = length;
	up.filename = "chain.gltf";
	decode_result_init(&out);
	error_init(&err);
	ck_assert_msg(format_decode(&up, &out, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(out.resources[0]->rig.count, N);
	decode_result_cleanup(&out);
	free(data);
	gltf_writer_cleanup(&w);
}
END_TEST

/* Decodes the tree file with node 1's `key` set to the JSON `value`. */
static int decode_tree_with(const char *key, const char *value, struct decode_result *out,
                            struct error *err)
{
	struct gltf_writer w;
	size_t length;

	free(tree_file(&w, "[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]", &length));
	json_object_set_new(json_array_get(json_object_get(w.doc, "nodes"), 1), key,
	                    json_loads(value, JSON_DECODE_ANY, NULL));
	return decode_written(&w, out, err);
}

/* A rest rotation within the validator's tolerance of unit length is kept as the file has it,
 * bit for bit, and nothing is noted; one beyond it is normalised, and `assumed` says so. */
START_TEST(rest_rotations_near_unit_are_kept_bit_for_bit)
{
	static const float near[4] = {0.1f, 0.2f, 0.3f, 0.93f}; /* length 1.00245 */
	struct decode_result out;
	struct error err;
	const struct rig_node *n1;

	ck_assert_msg(decode_tree_with("rotation", "[0.1, 0.2, 0.3, 0.93]", &out, &err) == 0, "%s",
	              err.message);
	n1 = by_source(&out.resources[0]->rig, 1);
	ck_assert_int_eq(memcmp(n1->rotation, near, sizeof(near)), 0);
	ck_assert_uint_eq(json_array_size(out.resources[0]->assumed), 0);
	decode_result_cleanup(&out);

	ck_assert_msg(decode_tree_with("rotation", "[0, 0, 0, 2]", &out, &err) == 0, "%s",
	              err.message);
	n1 = by_source(&out.resources[0]->rig, 1);
	ck_assert(n1->rotation[3] == 1.0f);
	ck_assert_msg(strstr(json_string_value(json_array_get(out.resources[0]->assumed, 0)),
	                     "nodes[1].rotation has length 2: normalised"),
	              "%s", json_dumps(out.resources[0]->assumed, 0));
	decode_result_cleanup(&out);
}
END_TEST

/* A rest value a double holds but float32 does not (1e300) is refused naming the node, the
 * element and the value: stored, it was infinite, and answers showed it as nothing. */
START_TEST(rest_values_beyond_float32_are_refused)
{
	struct decode_result out;
	struct error err;

	ck_assert_int_eq(decode_tree_with("translation", "[0, 1e300, 0]", &out, &err), -1);
	ck_assert_str_eq(error_code_name(err.code), "gltf_invalid");
	ck_assert_msg(strstr(err.message, "VALUE_NOT_FLOAT32 at /nodes/1/translation: node 1's "
	                                  "translation element 1 is 1.0000000000000001e+300"),
	              "%s", err.message);
	decode_result_cleanup(&out);
	ck_assert_int_eq(decode_tree_with("scale", "[1, 1, -3.5e38]", &out, &err), -1);
	ck_assert_msg(strstr(err.message, "/nodes/1/scale"), "%s", err.message);
	decode_result_cleanup(&out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rig");
	TCase *math = tcase_create("arithmetic"), *gltf = tcase_create("glTF");
	SRunner *sr;
	int failed;

	tcase_add_test(math, compose_and_decompose_are_inverse);
	tcase_add_test(math, matrices_that_are_not_trs_do_not_decompose);
	tcase_add_test(math, world_matrices_chain_their_parents);
	tcase_add_test(math, hostile_parents_are_refused);
	tcase_add_test(gltf, gltf_rig_keeps_ancestors_and_skin_joints);
	tcase_add_test(gltf, bones_after_other_nodes_keep_their_parents);
	tcase_add_test(gltf, gltf_trees_that_are_not_trees_are_refused);
	tcase_add_test(gltf, a_gltf_without_animations_is_a_skeleton);
	tcase_add_test(math, a_deep_chain_costs_what_a_wide_tree_costs);
	tcase_add_test(math, rest_poses_beyond_float32_are_refused);
	tcase_add_test(gltf, a_deep_gltf_chain_decodes);
	tcase_add_test(gltf, rest_rotations_near_unit_are_kept_bit_for_bit);
	tcase_add_test(gltf, rest_values_beyond_float32_are_refused);
	/* the deep chains take milliseconds when linear, minutes when not; 30 s leaves room for a
	 * loaded machine and the sanitizers */
	tcase_set_timeout(math, 30);
	tcase_set_timeout(gltf, 30);
	suite_add_tcase(s, math);
	suite_add_tcase(s, gltf);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
