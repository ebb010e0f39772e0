/* check_skel.c: Skel_Z resources (doc/formats.md 1.7), written by tests/lib/zouna_writer.c in
 * every layout and both byte orders, bare and after a BFF0 header, and hostile ones: the rig
 * read back must be the bones written, and every bad count, index and parent a clear error. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "formats/native.h"
#include "base/hash.h"
#include "core/rig.h"
#include "testutil.h"
#include "zouna_writer.h"

static int decode(const struct zbuf *b, const char *filename, struct decode_result *result,
                  struct error *err)
{
	struct upload up = {0};

	up.data = b->data;
	up.length = b->len;
	up.filename = filename;
	error_init(err);
	decode_result_init(result);
	return format_decode(&up, result, err);
}

/* Five bones, children before their parents in the array: 0 root, 3 spine (child of 0),
 * 1 head (of 3), 2 and 4 arms (of 3). */
#define BONES 5
static void five_bones(struct zbone bones[BONES])
{
	static const char *const names[BONES] = {"ROOT", "TETE", "BRAS_G", "DOS", "BRAS_D"};
	static const int32_t parents[BONES] = {-1, 3, 3, 0, 3};
	const float h = 0.70710678f;

	memset(bones, 0, sizeof(struct zbone) * BONES);
	for (int i = 0; i < BONES; i++) {
		bones[i].name_crc = hash_asobo32(names[i], strlen(names[i]));
		bones[i].parent = parents[i];
		bones[i].rotation[3] = 1;
		bones[i].scale[0] = bones[i].scale[1] = bones[i].scale[2] = 1;
		bones[i].translation[1] = (float)i * 0.5f;
		bones[i].flags = (uint32_t)i;
	}
	/* the example of doc/formats.md 1.7: the root turned a quarter about z, a child one
	 * unit along x with scale (2, 1, 1) */
	bones[0].rotation[2] = h;
	bones[0].rotation[3] = h;
	bones[3].translation[0] = 1;
	bones[3].translation[1] = 0;
	bones[3].scale[0] = 2;
	bones[2].rotation[0] = 0.6f;
	bones[2].rotation[3] = 0.8f;
}

static void write(struct zbuf *b, int layout, int big, size_t bff, const struct zbone *bones,
                  uint32_t count)
{
	static const uint32_t links[2] = {0x12345678u, 0x9ABCDEF0u};
	struct zskeleton s = {.layout = (enum zskel_layout)layout,
	                      .name_crc = 0xCAFEF00Du,
	                      .links = links,
	                      .link_count = 2,
	                      .bones = bones,
	                      .bone_count = count,
	                      .material_count = 2,
	                      .object_data_count = 1,
	                      .sphere_count = 1,
	                      .box_count = 1};
	zbuf_init(b, big);
	zouna_write_skeleton(b, &s, bff, big ? 12 : 0);
}

static const char *const layout_names[3] = {"rat", "walle", "fuel"};

START_TEST(every_layout_byte_order_and_header)
{
	int layout = _i % 3, big = (_i / 3) % 2;
	size_t bff = (size_t)(_i / 6) * 16;
	struct zbone bones[BONES];
	struct zbuf b;
	struct decode_result r;
	struct error err;
	const struct rig *rig;
	json_t *sk;

	five_bones(bones);
	write(&b, layout, big, bff, bones, BONES);
	ck_assert_msg(decode(&b, "hero.Skel_Z", &r, &err) == 0, "%s %s: %s", layout_names[layout],
	              big ? "big" : "little", err.message);
	ck_assert_int_eq(r.count, 1);
	ck_assert_str_eq(r.resources[0]->class_name, "Skel_Z");
	ck_assert_str_eq(r.resources[0]->family, "zouna");
	ck_assert_uint_eq(r.resources[0]->crc32, 0xCAFEF00Du);
	ck_assert_str_eq(r.resources[0]->name, "hero");
	ck_assert_uint_eq(r.resources[0]->clip.channel_count, 0);
	rig = &r.resources[0]->rig;
	ck_assert_uint_eq(rig->count, BONES);
	for (int i = 0; i < BONES; i++) {
		const struct rig_node *n = &rig->nodes[i];
		ck_assert_uint_eq(n->source, (unsigned)i);
		ck_assert_int_eq(n->parent, bones[i].parent);
		ck_assert(n->has_handle);
		ck_assert_uint_eq(n->handle, bones[i].name_crc);
		ck_assert_ptr_null(n->name);
		ck_assert_mem_eq(n->rotation, bones[i].rotation, sizeof(n->rotation));
		ck_assert_mem_eq(n->scale, bones[i].scale, sizeof(n->scale));
		ck_assert_mem_eq(n->translation, bones[i].translation, sizeof(n->translation));
	}
	sk = json_object_get(r.resources[0]->metadata, "skeleton");
	ck_assert_str_eq(json_string_value(json_object_get(sk, "layout")), layout_names[layout]);
	ck_assert_int_eq(json_integer_value(json_object_get(sk, "bone_count")), BONES);
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(sk, "tail"), "materials")),
	                 2);
	/* the stored rest matrices agree with the TRS chain (the writer made them as the engine
	 * does): a float's rounding apart */
	ck_assert_double_lt(json_real_value(json_object_get(sk, "rest_matrix_max_difference")),
	                    1e-6);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_object_get(r.resources[0]->metadata, "container"), "byte_order")),
	                 big ? "big" : "little");
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(the_example_of_formats_1_7_poses_as_the_engine)
{
	/* root rotation (0, 0, √½, √½), child translation (1, 0, 0), scale (2, 1, 1): the child's
	 * model row 0 is (0, 2, 0) and its translation (0, 1, 0) */
	struct zbone bones[BONES];
	struct zbuf b;
	struct decode_result r;
	struct error err;
	double local[BONES * 16], world[BONES * 16];

	five_bones(bones);
	write(&b, 0, 0, 0, bones, BONES);
	ck_assert_msg(decode(&b, "hero.Skel_Z", &r, &err) == 0, "%s", err.message);
	for (int i = 0; i < BONES; i++) {
		const struct rig_node *n = &r.resources[0]->rig.nodes[i];
		rig_compose(n->translation, n->rotation, n->scale, local + i * 16);
	}
	ck_assert_int_eq(rig_world(&r.resources[0]->rig, local, world), 0);
	ck_assert_double_eq_tol(world[3 * 16 + 0], 0, 1e-6);
	ck_assert_double_eq_tol(world[3 * 16 + 1], 2, 1e-6);
	ck_assert_double_eq_tol(world[3 * 16 + 2], 0, 1e-6);
	ck_assert_double_eq_tol(world[3 * 16 + 12], 0, 1e-6);
	ck_assert_double_eq_tol(world[3 * 16 + 13], 1, 1e-6);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* A hostile file: the error names the field. */
static void expect_refusal(struct zbuf *b, const char *field)
{
	struct decode_result r;
	struct error err;

	ck_assert_msg(decode(b, "bad.Skel_Z", &r, &err) < 0, "accepted a file with a bad %s",
	              field);
	ck_assert_msg(strstr(err.message, field) != NULL, "'%s' does not name %s", err.message,
	              field);
	decode_result_cleanup(&r);
}

START_TEST(hostile_skeletons_are_refused_naming_the_field)
{
	for (int layout = 0; layout < 3; layout++) {
		struct zbone bones[BONES];
		struct zbuf b;

		/* a parent out of range */
		five_bones(bones);
		bones[1].parent = 9;
		write(&b, layout, 0, 0, bones, BONES);
		expect_refusal(&b, "bones[1].parent");
		zbuf_free(&b);
		/* a second root */
		five_bones(bones);
		bones[4].parent = -1;
		write(&b, layout, 0, 0, bones, BONES);
		expect_refusal(&b, "bones[4].parent");
		zbuf_free(&b);
		/* a cycle of parents (1 -> 2 -> 1), with links that agree with it */
		five_bones(bones);
		bones[1].parent = 2;
		bones[2].parent = 1;
		write(&b, layout, 0, 0, bones, BONES);
		expect_refusal(&b, "cycle");
		zbuf_free(&b);
		/* a child column that disagrees with the parents */
		five_bones(bones);
		for (int i = 0; i < BONES; i++) {
			bones[i].links[0] = bones[i].links[2] = bones[i].links[3] = -1;
			bones[i].links[1] = bones[i].parent;
		}
		bones[0].links[0] = 1; /* bone 1's parent is 3 */
		{
			struct zskeleton s = {.layout = (enum zskel_layout)layout,
			                      .name_crc = 1,
			                      .bones = bones,
			                      .bone_count = BONES,
			                      .raw_links = 1};
			zbuf_init(&b, 0);
			zouna_write_skeleton(&b, &s, 0, 0);
			expect_refusal(&b, "bones[0].child");
			zbuf_free(&b);
		}
		/* a bone count past the file's end */
		five_bones(bones);
		{
			struct zskeleton s = {.layout = (enum zskel_layout)layout,
			                      .name_crc = 1,
			                      .bones = bones,
			                      .bone_count = BONES,
			                      .declared_bone_count = 1000000};
			zbuf_init(&b, 0);
			zouna_write_skeleton(&b, &s, 0, 0);
			expect_refusal(&b, "boneCount");
			zbuf_free(&b);
		}
		/* a rotation that is no rotation */
		five_bones(bones);
		bones[2].rotation[3] = 3;
		write(&b, layout, 0, 0, bones, BONES);
		expect_refusal(&b, "bones[2].rotation");
		zbuf_free(&b);
		/* a value that is not finite */
		five_bones(bones);
		bones[1].translation[2] = NAN;
		write(&b, layout, 0, 0, bones, BONES);
		expect_refusal(&b, "bones[1]");
		zbuf_free(&b);
	}
}
END_TEST

/* A bone count that lies (7 in a file of 5 bones, or 0x7FFFFFFF) in a Ratatouille or WALL-E
 * layout, where both prefixes fail: the error names the count the file holds and its offset,
 * not what the other layout's prefix reads there. */
START_TEST(a_lying_bone_count_is_named_as_the_file_holds_it)
{
	static const uint32_t lies[2] = {7, 0x7FFFFFFFu};

	for (int layout = ZSKEL_RAT; layout <= ZSKEL_WALLE; layout++)
		for (int big = 0; big < 2; big++)
			for (int k = 0; k < 2; k++) {
				struct zbone bones[BONES];
				struct zskeleton s = {.layout = (enum zskel_layout)layout,
				                      .name_crc = 1,
				                      .bones = bones,
				                      .bone_count = BONES,
				                      .declared_bone_count = lies[k]};
				/* object header 24, link header 8, the prefix (its flag included),
				 * the count: the reader names the offset after it, where the bones
				 * would start */
				size_t at = 24 + 8 + (layout == ZSKEL_RAT ? 36 : 20) + 4;
				struct decode_result result;
				struct error err;
				struct zbuf b;
				char want[64];

				five_bones(bones);
				zbuf_init(&b, big);
				zouna_write_skeleton(&b, &s, 0, 0);
				ck_assert_int_eq(decode(&b, "lie.Skel_Z", &result, &err), -1);
				snprintf(want, sizeof(want), "boneCount: count %u", lies[k]);
				ck_assert_msg(strstr(err.message, want) != NULL,
				              "%s layout, %s: %s (want '%s')", layout_names[layout],
				              big ? "big" : "little", err.message, want);
				ck_assert_msg(err.offset == (long long)at,
				              "%s: offset %lld, want %zu", err.message, err.offset,
				              at);
				decode_result_cleanup(&result);
				zbuf_free(&b);
			}
}
END_TEST

START_TEST(bytes_after_the_tail_and_truncations_are_refused)
{
	struct zbone bones[BONES];
	struct zbuf b;
	struct zskeleton s = {.layout = ZSKEL_FUEL, .name_crc = 1, .bones = NULL, .trailing = 4};
	struct decode_result r;
	struct error err;

	five_bones(bones);
	s.bones = bones;
	s.bone_count = BONES;
	zbuf_init(&b, 0);
	zouna_write_skeleton(&b, &s, 0, 0);
	expect_refusal(&b, "tail");
	zbuf_free(&b);
	/* every truncation of a whole file (with its sizes made to add up again) is an error,
	 * never a crash or a skeleton */
	write(&b, 1, 1, 0, bones, BONES);
	for (size_t cut = 24; cut < b.len; cut += 7) {
		struct zbuf t;
		uint32_t data = (uint32_t)(cut - 24);
		zbuf_init(&t, 1);
		zbuf_bytes(&t, b.data, cut);
		for (int k = 0; k < 4; k++)
			t.data[k] = (uint8_t)(data >> (24 - 8 * k));
		ck_assert_msg(decode(&t, "cut.Skel_Z", &r, &err) < 0, "a cut at %zu was accepted",
		              cut);
		ck_assert_int_ne(err.code, ERROR_NONE);
		decode_result_cleanup(&r);
		zbuf_free(&t);
	}
	zbuf_free(&b);
}
END_TEST

static const struct native_options defaults = {.byte_order = -1, .bff = -1};

/* Every layout, byte order and header: native of a skeleton on itself is its bytes. */
START_TEST(a_skeleton_comes_back_as_itself)
{
	int layout = _i % 3, big = (_i / 3) % 2;
	size_t bff = (size_t)(_i / 6) * 16;
	struct zbone bones[BONES];
	struct zbuf b;
	struct decode_result r;
	struct native_file f;
	struct upload up = {0};
	struct error err;

	five_bones(bones);
	write(&b, layout, big, bff, bones, BONES);
	ck_assert_msg(decode(&b, "hero.Skel_Z", &r, &err) == 0, "%s", err.message);
	up.data = b.data;
	up.length = b.len;
	up.filename = "hero.Skel_Z";
	ck_assert_msg(native_zouna_skeleton(&up, r.resources[0], &defaults, &f, &err) == 0, "%s",
	              err.message);
	ck_assert_msg(f.length == b.len && memcmp(f.bytes, b.data, b.len) == 0,
	              "%s %s bff %zu: not byte for byte", layout_names[layout],
	              big ? "big" : "little", bff);
	ck_assert_str_eq(f.extension, "Skel_Z");
	native_file_cleanup(&f);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* A bone moved: its vectors written, the rest model matrices of it and the bones under it made
 * again from the TRS chain (the file's stored matrices agree with the chain again), every
 * other bone's bytes kept; what a Skel_Z cannot take is refused by name. */
START_TEST(an_edited_bone_moves_the_bones_under_it)
{
	struct zbone bones[BONES];
	struct zbuf b;
	struct decode_result r, again;
	struct native_file f;
	struct native_options big = defaults;
	struct upload up = {0};
	struct error err;
	struct rig_node *spine;
	size_t bones_at;
	json_t *skel;

	five_bones(bones);
	write(&b, 0, 1, 0, bones, BONES); /* Ratatouille, GameCube byte order */
	ck_assert_msg(decode(&b, "hero.Skel_Z", &r, &err) == 0, "%s", err.message);
	up.data = b.data;
	up.length = b.len;
	up.filename = "hero.Skel_Z";
	spine = &r.resources[0]->rig.nodes[3];
	spine->translation[0] = 1.5f;
	spine->translation[2] = -0.25f;
	ck_assert_msg(native_zouna_skeleton(&up, r.resources[0], &defaults, &f, &err) == 0, "%s",
	              err.message);
	ck_assert_uint_eq(f.length, b.len);
	ck_assert_msg(decode(&(struct zbuf){.data = f.bytes, .len = f.length}, "hero.Skel_Z",
	                     &again, &err) == 0,
	              "%s", err.message);
	ck_assert_float_eq(again.resources[0]->rig.nodes[3].translation[0], 1.5f);
	ck_assert_float_eq(again.resources[0]->rig.nodes[3].translation[2], -0.25f);
	skel = json_object_get(again.resources[0]->metadata, "skeleton");
	ck_assert_double_le(json_number_value(json_object_get(skel, "rest_matrix_max_difference")),
	                    1e-5);
	/* the root (bone 0) is above the spine: its 248 bytes are the file's; the head (1, under
	 * the spine) keeps its own vectors and gets a new rest matrix (Ratatouille: a 24-byte
	 * object header, a 16-byte link header, a 36-byte prefix and the count before bone 0) */
	bones_at = 24 + 16 + 36 + 4;
	ck_assert(memcmp(f.bytes + bones_at, b.data + bones_at, 248) == 0);
	ck_assert(memcmp(f.bytes + bones_at + 248 + 4, b.data + bones_at + 248 + 4, 44) == 0);
	ck_assert(memcmp(f.bytes + bones_at + 248 + 164, b.data + bones_at + 248 + 164, 64) != 0);
	ck_assert(memcmp(f.bytes + bones_at + 3 * 248 + 36, b.data + bones_at + 3 * 248 + 36, 12) !=
	          0);
	ck_assert_int_eq(json_array_size(json_object_get(f.report, "tracks")), BONES);
	ck_assert(json_is_false(
	    json_object_get(json_array_get(json_object_get(f.report, "tracks"), 3), "kept")));
	ck_assert(json_is_true(
	    json_object_get(json_array_get(json_object_get(f.report, "tracks"), 1), "kept")));
	ck_assert_msg(memcmp(f.bytes, b.data, b.len) != 0, "nothing changed");
	native_file_cleanup(&f);
	decode_result_cleanup(&again);

	spine->rotation[3] = 2; /* not a unit quaternion */
	ck_assert_int_eq(native_zouna_skeleton(&up, r.resources[0], &defaults, &f, &err), -1);
	ck_assert_str_eq(err.path, "template");
	ck_assert_msg(strstr(err.message, "unit quaternion"), "%s", err.message);
	big.byte_order = 0;
	error_init(&err);
	ck_assert_int_eq(native_zouna_skeleton(&up, r.resources[0], &big, &f, &err), -1);
	ck_assert_str_eq(err.path, "byte_order");
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

static Suite *skel_suite(void)
{
	Suite *s = suite_create("skel");
	TCase *layouts = tcase_create("layouts"), *hostile = tcase_create("hostile");

	tcase_add_loop_test(layouts, every_layout_byte_order_and_header, 0, 12);
	tcase_add_test(layouts, the_example_of_formats_1_7_poses_as_the_engine);
	tcase_add_loop_test(layouts, a_skeleton_comes_back_as_itself, 0, 12);
	tcase_add_test(layouts, an_edited_bone_moves_the_bones_under_it);
	tcase_add_test(hostile, hostile_skeletons_are_refused_naming_the_field);
	tcase_add_test(hostile, bytes_after_the_tail_and_truncations_are_refused);
	tcase_add_test(hostile, a_lying_bone_count_is_named_as_the_file_holds_it);
	suite_add_tcase(s, layouts);
	suite_add_tcase(s, hostile);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(skel_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
