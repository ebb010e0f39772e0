/* check_burnout.c: Burnout Paradise resources and bundles, written by tests/lib/burnout_writer.c
 * from explicit values (doc/formats.md 2). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burnout_writer.h"
#include "core/curve.h"
#include "formats/format.h"
#include "base/hash.h"

static const struct bpart parts[3] = {{{4, -1, -1}}, {{5, 6, -1}}, {{7, 8, 9}}};
static const struct banimation animations[2] = {
    {0, 1, -1, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}},
    {1, 3, 2, {0.5f, 0, 0, 0, 0, 0.5f, 0, 0, 0, 0, 0.5f, 0}}};
static const struct bstate states[2] = {{2, 10, 1, {0, 0, 0, 0, 1, 2, 3, 4}},
                                        {1, 17, 0, {-1, -1, -1, -1, 1, 1, 1, 1}}};

static void vehicle(struct zbuf *b, int big, int is64, int zero_offsets)
{
	struct bvehicle v = {parts,         3,     animations,  2, states, 2,
	                     {0, 1, -1, 2}, {{0}}, zero_offsets};

	for (int w = 0; w < 4; w++)
		for (int k = 0; k < 16; k++)
			v.wheel_matrices[w][k] = (float)(w * 16 + k);
	zbuf_init(b, big);
	burnout_write_vehicle(b, &v, is64);
}

static int decode(const struct zbuf *b, const char *filename, const char *class_name,
                  const char *layout, const char *name, struct decode_result *r, struct error *err)
{
	struct upload up = {0};

	up.data = b->data;
	up.length = b->len;
	up.filename = filename;
	up.class_name = class_name;
	up.layout = layout;
	up.name = name;
	up.max_inflate = 1 << 20;
	error_init(err);
	decode_result_init(r);
	return format_decode(&up, r, err);
}

static json_t *meta(const struct resource *res, const char *key)
{
	return json_object_get(res->metadata, key);
}

static const struct {
	int big, is64;
	const char *name;
} layouts[3] = {
    {0, 0, "32-bit little-endian"}, {1, 0, "32-bit big-endian"}, {0, 1, "64-bit little-endian"}};

START_TEST(every_layout_decodes_every_field)
{
	struct zbuf b;
	struct decode_result r;
	struct error err;
	const struct resource *res;
	json_t *a, *s, *w;
	float out[4];
	struct curve c;
	struct curve_cursor cur;

	vehicle(&b, layouts[_i].big, layouts[_i].is64, 0);
	ck_assert_msg(decode(&b, "pusmc01_vanm.dat", NULL, NULL, NULL, &r, &err) == 0, "%s: %s",
	              layouts[_i].name, err.message);
	res = r.resources[0];
	ck_assert_str_eq(res->class_name, "VehicleAnimation");
	ck_assert_int_eq(json_integer_value(meta(res, "layout")), layouts[_i].is64 ? 64 : 32);
	ck_assert_str_eq(json_string_value(meta(res, "byte_order")),
	                 layouts[_i].big ? "big" : "little");
	/* parts */
	ck_assert_int_eq(
	    json_integer_value(json_array_get(json_array_get(meta(res, "parts"), 2), 2)), 9);
	ck_assert_int_eq(
	    json_integer_value(json_array_get(json_array_get(meta(res, "parts"), 0), 1)), -1);
	/* animations: type names, unknown types as numbers, Matrix33 rows */
	a = meta(res, "animations");
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_object_get(json_array_get(a, 0), "type"), "name")),
	                 "rotate");
	ck_assert(
	    json_is_null(json_object_get(json_object_get(json_array_get(a, 1), "type"), "name")));
	ck_assert_int_eq(json_integer_value(json_object_get(
	                     json_object_get(json_array_get(a, 1), "type"), "value")),
	                 3);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(a, 1), "state_part")),
	                 2);
	ck_assert_double_eq(
	    json_real_value(json_array_get(
	        json_array_get(json_object_get(json_array_get(a, 1), "matrix33"), 2), 2)),
	    0.5);
	/* states: trigger names or numbers, loop, vectors */
	s = meta(res, "states");
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_object_get(json_array_get(s, 0), "trigger"), "name")),
	                 "brake");
	ck_assert(json_is_null(
	    json_object_get(json_object_get(json_array_get(s, 1), "trigger"), "name")));
	ck_assert(json_is_true(json_object_get(json_array_get(s, 0), "loop")));
	ck_assert(json_is_false(json_object_get(json_array_get(s, 1), "loop")));
	/* wheels: indices and matrices */
	w = meta(res, "wheels");
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(w, 2), "part_index")),
	                 -1);
	ck_assert_double_eq(
	    json_real_value(json_array_get(
	        json_array_get(json_object_get(json_array_get(w, 3), "matrix44"), 3), 3)),
	    63.0);
	/* a state track over the trigger input: halfway is the mean of the two vectors */
	ck_assert_uint_eq(res->clip.channel_count, 2);
	ck_assert_str_eq(res->track_names[0], "state 0 (part 2, brake) vectors");
	ck_assert_str_eq(res->track_names[1], "state 1 (part 1, trigger 17) vectors");
	curve_from_sampler(&c, &res->clip.samplers[0]);
	curve_cursor_init(&cur);
	curve_sample_f32(&c, &cur, 0.5f, out);
	ck_assert_float_eq(out[0], 0.5f);
	ck_assert_float_eq(out[3], 2.0f);
	ck_assert_uint_gt(json_array_size(res->assumed), 0);
	/* the handle: the name of the file is a name, not an ID */
	ck_assert_uint_eq(res->crc32, 0x2CE66AC1u);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* The vehicle's rig: a root, the animated parts under it, the wheels at their matrices (a part
 * that is also a wheel is one node). */
START_TEST(a_vehicle_has_a_rig_of_parts_and_wheels)
{
	static const float at[4][3] = {
	    {0.8f, 0.3f, 1.4f}, {-0.8f, 0.3f, 1.4f}, {0.8f, 0.3f, -1.4f}, {-0.8f, 0.3f, -1.4f}};
	struct bvehicle v = {parts, 3, animations, 2, states, 2, {0, 1, -1, 2}, {{0}}, 0};
	struct zbuf b;
	struct decode_result r;
	struct error err;
	const struct rig *rig;
	int found = 0;

	for (int w = 0; w < 4; w++) {
		for (int k = 0; k < 4; k++)
			v.wheel_matrices[w][k * 5] = 1; /* the identity */
		v.wheel_matrices[w][12] = at[w][0];
		v.wheel_matrices[w][13] = at[w][1];
		v.wheel_matrices[w][14] = at[w][2];
	}
	/* the front right wheel turned half a turn about y */
	v.wheel_matrices[1][0] = -1, v.wheel_matrices[1][10] = -1;
	zbuf_init(&b, layouts[_i].big);
	burnout_write_vehicle(&b, &v, layouts[_i].is64);
	ck_assert_msg(decode(&b, "pusmc01_vanm.dat", NULL, NULL, NULL, &r, &err) == 0, "%s",
	              err.message);
	rig = &r.resources[0]->rig;
	ck_assert_uint_eq(rig->count, 5);
	ck_assert_str_eq(rig->nodes[0].name, "vehicle");
	ck_assert_int_eq(rig->nodes[0].parent, -1);
	for (size_t i = 0; i < rig->count; i++) {
		const struct rig_node *n = &rig->nodes[i];
		ck_assert_int_eq(n->parent, i ? 0 : -1);
		if (strcmp(n->name, "wheel front right (part 1)") == 0) {
			ck_assert_uint_eq(n->source, 2);
			ck_assert_float_eq_tol(n->translation[0], -0.8f, 1e-6f);
			ck_assert_float_eq_tol(fabsf(n->rotation[1]), 1,
			                       1e-6f); /* half a turn about y */
			found++;
		} else if (strcmp(n->name, "wheel rear left") == 0) {
			ck_assert_uint_eq(n->source, 259);
			ck_assert_float_eq_tol(n->translation[2], -1.4f, 1e-6f);
			found++;
		} else if (strcmp(n->name, "wheel rear right (part 2)") == 0) {
			ck_assert_float_eq_tol(n->translation[1], 0.3f, 1e-6f);
			found++;
		}
	}
	ck_assert_int_eq(found, 3);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(zero_offsets_use_the_sequential_fallback)
{
	struct zbuf b;
	struct decode_result r;
	struct error err;

	for (int l = 0; l < 3; l++) {
		vehicle(&b, layouts[l].big, layouts[l].is64, 1);
		/* a 64-bit header with zero offsets also reads as a valid 32-bit one: say which */
		ck_assert_msg(decode(&b, "x.dat", "VehicleAnimation", layouts[l].is64 ? "64" : NULL,
		                     NULL, &r, &err) == 0,
		              "%s: %s", layouts[l].name, err.message);
		ck_assert_uint_eq(r.resources[0]->clip.channel_count, 2);
		ck_assert_int_eq(json_integer_value(json_array_get(
		                     json_array_get(meta(r.resources[0], "parts"), 1), 1)),
		                 6);
		decode_result_cleanup(&r);
		zbuf_free(&b);
	}
}
END_TEST

START_TEST(layouts_forced_and_ambiguous)
{
	struct zbuf b;
	struct decode_result r;
	struct error err;
	struct bvehicle empty = {0};

	vehicle(&b, 0, 1, 0);
	ck_assert_int_eq(decode(&b, "x.dat", "VehicleAnimation", "64", NULL, &r, &err), 0);
	decode_result_cleanup(&r);
	ck_assert_int_eq(decode(&b, "x.dat", "VehicleAnimation", "32", NULL, &r, &err), -1);
	ck_assert_msg(strstr(err.message, "layout=32"), "%s", err.message);
	decode_result_cleanup(&r);
	ck_assert_int_eq(decode(&b, "x.dat", "VehicleAnimation", "16", NULL, &r, &err), -1);
	ck_assert_int_eq(err.code, ERROR_BAD_PARAMETER);
	decode_result_cleanup(&r);
	zbuf_free(&b);
	/* empty and wheels unused: the 32-bit reading's wheel bytes fail, so it is 64-bit */
	memset(empty.wheels, -1, 4);
	zbuf_init(&b, 0);
	burnout_write_vehicle(&b, &empty, 1);
	ck_assert_int_eq(decode(&b, "x.dat", "VehicleAnimation", NULL, NULL, &r, &err), 0);
	ck_assert_int_eq(json_integer_value(meta(r.resources[0], "layout")), 64);
	decode_result_cleanup(&r);
	zbuf_free(&b);
	/* 64-bit with zero offsets: both layouts' checks hold; the error says so */
	vehicle(&b, 0, 1, 1);
	ck_assert_int_eq(decode(&b, "x.dat", "VehicleAnimation", NULL, NULL, &r, &err), -1);
	ck_assert_msg(strstr(err.message, "both layouts fit") && strstr(err.message, "layout=64"),
	              "%s", err.message);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* Patches a field of a 32-bit little-endian resource and expects the named check to fail. */
START_TEST(hostile_headers_name_the_failed_check)
{
	static const struct {
		size_t at;
		uint32_t value;
		const char *check;
	} cases[] = {
	    {0x0C, 0x7FFFFFF0u, "run past the end"}, /* parts offset */
	    {0x14, 0x130u, "overlap"},               /* animations onto the parts */
	    {0x14, 0x148u, "not 16-byte aligned"},   /* animations misaligned */
	    {0x08, 0xFFFFFFFFu, "run past the end"}, /* partCount near 2^32 */
	    {0x10, 0xFFFFFFF0u, "run past the end"}, /* animationCount near 2^32 */
	    {0x14, 0x20u, "overlap the header"},     /* inside the header */
	    {0x00, 12345u, "resourceSize"},
	};
	struct zbuf b;
	struct decode_result r;
	struct error err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		vehicle(&b, 0, 0, 0);
		memcpy(b.data + cases[i].at, &cases[i].value, 4);
		ck_assert_int_eq(decode(&b, "x.dat", "VehicleAnimation", "32", NULL, &r, &err), -1);
		ck_assert_int_eq(error_http_status(err.code), 422);
		ck_assert_msg(strstr(err.message, cases[i].check), "case %zu: %s", i, err.message);
		decode_result_cleanup(&r);
		zbuf_free(&b);
	}
	/* a wheel index at or past partCount */
	vehicle(&b, 0, 0, 0);
	b.data[0x21] = 3;
	ck_assert_int_eq(decode(&b, "x.dat", "VehicleAnimation", NULL, NULL, &r, &err), -1);
	ck_assert_msg(strstr(err.message, "wheel part index 1 is 3"), "%s", err.message);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(ids_from_file_names_and_names)
{
	struct zbuf b;
	struct decode_result r;
	struct error err;

	vehicle(&b, 0, 0, 0);
	ck_assert_int_eq(decode(&b, "out/ECC975F6.dat", NULL, NULL, NULL, &r, &err), 0);
	ck_assert_uint_eq(r.resources[0]->crc32, 0xECC975F6u);
	ck_assert_str_eq(r.resources[0]->crc32_source, "file name (YAP)");
	decode_result_cleanup(&r);
	ck_assert_int_eq(decode(&b, "F6_75_C9_EC.dat", NULL, NULL, NULL, &r, &err), 0);
	ck_assert_uint_eq(r.resources[0]->crc32, 0xECC975F6u); /* little-endian: reversed */
	ck_assert_str_eq(r.resources[0]->crc32_source, "file name (DGIorio)");
	decode_result_cleanup(&r);
	/* name= is better than a file name */
	ck_assert_int_eq(decode(&b, "ECC975F6.dat", NULL, NULL, "carbb1gt_vanm", &r, &err), 0);
	ck_assert_uint_eq(r.resources[0]->crc32, 0xECC975F6u);
	ck_assert_str_eq(r.resources[0]->crc32_source, "name");
	decode_result_cleanup(&r);
	ck_assert_int_eq(decode(&b, "F6_75_C9_EC.dat", NULL, NULL, "PUSMC01_VANM", &r, &err), 0);
	ck_assert_uint_eq(r.resources[0]->crc32, 0x2CE66AC1u);
	decode_result_cleanup(&r);
	zbuf_free(&b);
	/* big-endian: the bytes as stored are the ID's own order */
	vehicle(&b, 1, 0, 0);
	ck_assert_int_eq(decode(&b, "EC_C9_75_F6.dat", NULL, NULL, NULL, &r, &err), 0);
	ck_assert_uint_eq(r.resources[0]->crc32, 0xECC975F6u);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(body_part_remap_data)
{
	static const uint16_t map[5] = {3, 1, 4, 1, 5};
	struct zbuf b;
	struct decode_result r;
	struct error err;

	for (int big = 0; big < 2; big++) {
		zbuf_init(&b, big);
		burnout_write_remap(&b, map, 5);
		ck_assert_msg(
		    decode(&b, "pusmc01_bpr.dat", "BodyPartRemapData", NULL, NULL, &r, &err) == 0,
		    "%s", err.message);
		ck_assert_str_eq(r.resources[0]->class_name, "BodyPartRemapData");
		ck_assert_int_eq(
		    json_integer_value(json_object_get(r.resources[0]->metadata, "count")), 5);
		ck_assert_int_eq(json_integer_value(json_array_get(
		                     json_object_get(r.resources[0]->metadata, "parts"), 4)),
		                 5);
		decode_result_cleanup(&r);
		zbuf_free(&b);
	}
}
END_TEST

static const uint64_t imports[2] = {0x11112222u, 0x33334444u};

static void bundle(struct zbuf *out, int big, int compressed, int xml)
{
	static const uint16_t map[3] = {1, 2, 3};
	static const uint8_t texture[40] = {1, 2, 3};
	struct zbuf va, bpr;
	struct bentry e[3];
	const char *debug =
	    "<ResourceStringTable>\n"
	    "<Resource id=\"2ce66ac1\" type=\"VehicleAnimation\" name=\"pusmc01_vanm\"/>\n"
	    "<Resource id=\"0badf00d\" type=\"Texture\" name=\"pusmc01_tex\"/>\n"
	    "</ResourceStringTable>";

	vehicle(&va, big, 0, 0);
	zbuf_init(&bpr, big);
	burnout_write_remap(&bpr, map, 3);
	e[0] = (struct bentry){0x2CE66AC1u, 0x10023, va.data, va.len, imports, 2};
	e[1] = (struct bentry){0x0BADF00Du, 0x00001, texture, sizeof(texture), NULL, 0};
	e[2] = (struct bentry){
	    hash_crc32_lower("pusmc01_bpr", 11), 0x10024, bpr.data, bpr.len, NULL, 0};
	zbuf_init(out, big);
	burnout_write_bundle(out, e, 3, compressed, xml ? debug : NULL);
	zbuf_free(&va);
	zbuf_free(&bpr);
}

START_TEST(bundles_in_both_byte_orders_compressed_or_not)
{
	int big = _i & 1, compressed = (_i >> 1) & 1, xml = (_i >> 2) & 1;
	struct zbuf b;
	struct decode_result r;
	struct error err;
	const struct resource *va;

	bundle(&b, big, compressed, xml);
	ck_assert_msg(decode(&b, "VEH_PUSMC01_AT.BIN", NULL, NULL, NULL, &r, &err) == 0,
	              "big %d compressed %d xml %d: %s", big, compressed, xml, err.message);
	ck_assert_uint_eq(r.count, 2);
	va = r.resources[0];
	ck_assert_str_eq(va->class_name, "VehicleAnimation");
	ck_assert_uint_eq(va->crc32, 0x2CE66AC1u);
	ck_assert_str_eq(va->crc32_source, "bundle entry");
	if (xml)
		ck_assert_str_eq(va->name, "pusmc01_vanm");
	else
		ck_assert_ptr_null(va->name);
	ck_assert_uint_eq(va->clip.channel_count, 2);
	ck_assert_uint_eq(va->ref_count, 2);
	ck_assert_uint_eq(va->refs[1].crc32, 0x33334444u);
	ck_assert_str_eq(va->refs[1].kind, "import");
	ck_assert_str_eq(r.resources[1]->class_name, "BodyPartRemapData");
	/* the texture is skipped, with its type */
	ck_assert_uint_eq(json_array_size(r.skipped), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(r.skipped, 0), "type")),
	                 "0x00001");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(r.skipped, 0), "name")),
	                 xml ? "pusmc01_tex" : "0x0BADF00D");
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

START_TEST(hostile_bundles)
{
	struct zbuf b;
	struct decode_result r;
	struct error err;
	size_t checked = 0;

	/* truncated at every byte: a 4xx each time */
	bundle(&b, 0, 1, 1);
	for (size_t len = 0; len < b.len; len += (len < 0x200 ? 1 : 13)) {
		struct zbuf cut = b;
		cut.len = len;
		ck_assert_msg(decode(&cut, "b.BIN", "VehicleAnimation", NULL, NULL, &r, &err) ==
		                      -1 ||
		                  len >= 0x130,
		              "cut %zu", len);
		decode_result_cleanup(&r);
		if (len < 4 || len + 16 > b.len)
			continue; /* the last 15 bytes may be padding after the last block */
		ck_assert_msg(decode(&cut, "b.BIN", NULL, NULL, NULL, &r, &err) == -1,
		              "cut %zu decoded", len);
		ck_assert_msg(error_http_status(err.code) >= 400 &&
		                  error_http_status(err.code) < 500,
		              "cut %zu: %s", len, err.message);
		decode_result_cleanup(&r);
		checked++;
	}
	ck_assert_uint_gt(checked, 200);
	zbuf_free(&b);
	/* an entry pointing outside its block */
	bundle(&b, 0, 0, 0);
	b.data[0x30 + 0x28] = 0xF0, b.data[0x30 + 0x29] = 0xFF; /* entry 0's offset[0] */
	ck_assert_int_eq(decode(&b, "b.BIN", NULL, NULL, NULL, &r, &err), -1);
	ck_assert_msg(strstr(err.message, "outside"), "%s", err.message);
	decode_result_cleanup(&r);
	zbuf_free(&b);
	/* a corrupt zlib stream */
	bundle(&b, 0, 1, 0);
	{
		uint32_t data_offset;
		memcpy(&data_offset, b.data + 0x18, 4);
		b.data[data_offset + 4] ^= 0xFF;
		b.data[data_offset + 5] ^= 0xFF;
	}
	ck_assert_int_eq(decode(&b, "b.BIN", NULL, NULL, NULL, &r, &err), -1);
	ck_assert_int_eq(error_http_status(err.code), 422);
	decode_result_cleanup(&r);
	zbuf_free(&b);
	/* a small bundle declaring more than the limit: refused before inflating */
	bundle(&b, 0, 1, 0);
	b.data[0x30 + 0x13] = 0x0F, b.data[0x30 + 0x12] = 0xFF; /* uncompressedSize ~ 256 MiB */
	ck_assert_int_eq(decode(&b, "b.BIN", NULL, NULL, NULL, &r, &err), -1);
	ck_assert_int_eq(err.code, ERROR_TOO_LARGE);
	decode_result_cleanup(&r);
	zbuf_free(&b);
	/* one declaring less than it inflates to: inflation stops there */
	bundle(&b, 0, 1, 0);
	b.data[0x30 + 0x10] = 0x40, b.data[0x30 + 0x11] = 0x00; /* 0x40 bytes declared */
	ck_assert_int_eq(decode(&b, "b.BIN", NULL, NULL, NULL, &r, &err), -1);
	ck_assert_msg(strstr(err.message, "declared"), "%s", err.message);
	decode_result_cleanup(&r);
	zbuf_free(&b);
	/* entryCount near 2^32 */
	bundle(&b, 0, 0, 0);
	memset(b.data + 0x10, 0xFF, 4);
	ck_assert_int_eq(decode(&b, "b.BIN", NULL, NULL, NULL, &r, &err), -1);
	ck_assert_int_eq(err.code, ERROR_MALFORMED);
	decode_result_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

static Suite *burnout_suite(void)
{
	Suite *s = suite_create("burnout");
	TCase *res = tcase_create("resources"), *bnd = tcase_create("bundles");

	tcase_add_loop_test(res, every_layout_decodes_every_field, 0, 3);
	tcase_add_loop_test(res, a_vehicle_has_a_rig_of_parts_and_wheels, 0, 3);
	tcase_add_test(res, zero_offsets_use_the_sequential_fallback);
	tcase_add_test(res, layouts_forced_and_ambiguous);
	tcase_add_test(res, hostile_headers_name_the_failed_check);
	tcase_add_test(res, ids_from_file_names_and_names);
	tcase_add_test(res, body_part_remap_data);
	tcase_add_loop_test(bnd, bundles_in_both_byte_orders_compressed_or_not, 0, 8);
	tcase_add_test(bnd, hostile_bundles);
	tcase_set_timeout(bnd, 60);
	suite_add_tcase(s, res);
	suite_add_tcase(s, bnd);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(burnout_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
