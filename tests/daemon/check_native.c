/* check_native.c: GET /api/resources/{id}/native and `animdexd native` against a real daemon
 * on loopback and a real SQLite catalogue: uploaded Zouna files come back byte for byte in
 * every header and byte order, an edited version written on the layout of its earlier version
 * is that version's file, a Radient clip's values land in an Animation_Z's classes, and every
 * bad parameter is refused by name. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/hash.h"
#include "burnout_writer.h"
#include "testutil.h"
#include "zouna_writer.h"

static struct daemon_proc d;
static char *dir, db[600];

static void start(void)
{
	dir = testutil_temp_dir();
	snprintf(db, sizeof(db), "%s/animdex.db", dir);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
}

static void stop(void)
{
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}

/* GET path: asserts the status; the reply (the caller's). */
static void get(const char *path, long status, struct http_reply *r)
{
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, r), 0);
	ck_assert_msg(r->status == status, "%s: %ld %.400s", path, r->status, r->body);
}

static void assert_native_is(json_int_t id, const char *query, const struct zbuf *want,
                             const char *file_name)
{
	char path[256], disposition[300];
	struct http_reply r;

	snprintf(path, sizeof(path), "/api/resources/%lld/native%s", (long long)id, query);
	get(path, 200, &r);
	ck_assert_uint_eq(r.length, want->len);
	ck_assert_msg(memcmp(r.body, want->data, want->len) == 0, "%s: not byte for byte", path);
	ck_assert_str_eq(r.content_type, "application/octet-stream");
	snprintf(disposition, sizeof(disposition), "attachment; filename=\"%s\"", file_name);
	ck_assert_str_eq(r.disposition, disposition);
	ck_assert_msg(strstr(r.header_native, "written=0") || strstr(query, "template"), "%s",
	              r.header_native);
	http_reply_cleanup(&r);
}

START_TEST(uploaded_zouna_files_come_back_byte_for_byte)
{
	static const size_t bff[] = {0, 16, 22, 24};
	static const char *const classes[] = {"KeyframerRot_Z", "KeyframerVec3fComp_Z",
	                                      "KeyframerMessage_Z", "KeyframerFloat_Z"};
	uint32_t bone[3];

	for (int i = 0; i < 8; i++) {
		struct zbuf b;
		char name[64];
		json_int_t id;
		zouna_write_example_animation(&b, i % 2, bff[i / 2], 1.0f, bone);
		snprintf(name, sizeof(name), "run_%d.Animation_Z", i);
		id = http_upload_one(&d, name, b.data, b.len);
		snprintf(name, sizeof(name), "run_%d.Animation_Z", i);
		assert_native_is(id, "", &b, name);
		zbuf_free(&b);
	}
	for (int i = 0; i < 8; i++) {
		static const struct zmessage m = {12, 0xDEADBEEF, 1, 0.5f, 7};
		struct zkey keys[2] = {
		    {.time = 0, .v = {0.5f, 0, 0, 1}, .tout = {1}, .word = 3},
		    {.time = 1, .v = {1, 0.25f, 0, 0}, .messages = &m, .message_count = 1}};
		struct zbuf b;
		char name[64];
		json_int_t id;
		zbuf_init(&b, i % 2);
		ck_assert_int_eq(zouna_write_keyframer(&b, classes[i / 2], 0x1, keys, 2, 0), 0);
		snprintf(name, sizeof(name), "k%d.%s", i, classes[i / 2]);
		id = http_upload_one(&d, name, b.data, b.len);
		assert_native_is(id, "", &b, name);
		zbuf_free(&b);
	}
}
END_TEST

/* An edited version (one key moved) written on its earlier version's layout is its own file;
 * the report says which track was written and how far it is from the entry. */
START_TEST(an_edit_on_the_earlier_version_is_the_edited_file)
{
	struct zbuf v1, v2;
	uint32_t bone[3];
	json_int_t first, second;
	char path[256];
	struct http_reply r;
	json_t *report, *row;
	size_t i, written = 0;

	zouna_write_example_animation(&v1, 1, 16, 1.5f, bone);
	zouna_write_example_animation(&v2, 1, 16, 1.75f, bone);
	first = http_upload_one(&d, "walk.Animation_Z", v1.data, v1.len);
	second = http_upload_one(&d, "walk.Animation_Z", v2.data, v2.len);
	snprintf(path, sizeof(path), "?template=%lld", (long long)first);
	assert_native_is(second, path, &v2, "walk.Animation_Z");
	snprintf(path, sizeof(path), "/api/resources/%lld/native?template=%lld", (long long)second,
	         (long long)first);
	get(path, 200, &r);
	ck_assert_str_eq(r.header_native, "kept=10; written=1; largest_difference=0");
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?template=%lld&summary=1",
	         (long long)second, (long long)first);
	report = http_get_json(&d, path, 200);
	ck_assert_int_eq(json_integer_value(json_object_get(report, "template")), first);
	ck_assert_str_eq(json_string_value(json_object_get(report, "file_name")),
	                 "walk.Animation_Z");
	json_array_foreach(json_object_get(report, "tracks"), i, row)
	{
		if (json_is_true(json_object_get(row, "kept")))
			continue;
		written++;
		ck_assert_str_eq(json_string_value(json_object_get(row, "class")),
		                 "KeyframerVec3fComp_Z");
		ck_assert_ptr_nonnull(
		    strstr(json_string_value(json_object_get(row, "track")), "translation"));
	}
	ck_assert_uint_eq(written, 1);
	json_decref(report);
	/* the other byte order, and back through the command line */
	snprintf(path, sizeof(path), "/api/resources/%lld/native?byte_order=little&bff=0",
	         (long long)second);
	get(path, 200, &r);
	ck_assert_uint_eq(r.length, v2.len - 16);
	{
		/* the object header first, little-endian: dataSize = the rest after its 24 bytes */
		const unsigned char *p = (const unsigned char *)r.body;
		ck_assert_uint_eq((size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 |
		                      (size_t)p[3] << 24,
		                  r.length - 24);
	}
	http_reply_cleanup(&r);
	zbuf_free(&v1);
	zbuf_free(&v2);
}
END_TEST

/* The modder's round trip: Animation_Z -> export (.glb) -> upload the .glb -> native on the
 * Animation_Z's layout is the file, byte for byte: rotations the export made unit length,
 * Euler rotations it baked into quaternions, tracks it led with their last value, and what it
 * kept in extras (messages, material, mesh and morph tracks, read back from the .glb's
 * extras) all come back as their bytes; in both byte orders, with and without a BFF0 header, baked
 * at the default rate or another. */
START_TEST(a_glb_round_trip_is_the_file)
{
	static const size_t bff[] = {0, 16, 24};
	uint32_t bone[3];

	for (int i = 0; i < 6; i++) {
		struct zbuf b;
		struct http_reply r;
		json_int_t id, glb;
		char name[64], path[160];
		json_t *report;
		zouna_write_example_animation(&b, i % 2, bff[i / 2], 3.0f + (float)i / 8, bone);
		snprintf(name, sizeof(name), "trip_%d.Animation_Z", i);
		id = http_upload_one(&d, name, b.data, b.len);
		/* baked at the default 30 samples a second, or at 60 (the .glb says so) */
		snprintf(path, sizeof(path), "/api/resources/%lld/export%s", (long long)id,
		         i % 2 ? "?bake=60" : "");
		get(path, 200, &r);
		snprintf(name, sizeof(name), "trip_%d.glb", i);
		glb = http_upload_one(&d, name, r.body, r.length);
		http_reply_cleanup(&r);
		snprintf(path, sizeof(path), "?template=%lld", (long long)id);
		snprintf(name, sizeof(name), "trip_%d.Animation_Z", i);
		assert_native_is(glb, path, &b, name);
		snprintf(path, sizeof(path), "/api/resources/%lld/native?template=%lld&summary=1",
		         (long long)glb, (long long)id);
		report = http_get_json(&d, path, 200);
		/* four tracks came back through glTF's channels and seven through the asset's
		 * extras (messages, material, mesh, morph), each kept; none from the template */
		ck_assert_uint_eq(json_array_size(json_object_get(report, "tracks")), 11);
		ck_assert_uint_eq(json_array_size(json_object_get(report, "kept_from_template")),
		                  0);
		for (size_t k = 0; k < 11; k++)
			ck_assert(json_is_true(json_object_get(
			    json_array_get(json_object_get(report, "tracks"), k), "kept")));
		json_decref(report);
		zbuf_free(&b);
	}
}
END_TEST

/* The walk the Blender round trip starts from (tests/scripts/blender_native.sh) comes back
 * byte for byte, and is left in $ANIMDEX_NATIVE_DIR (tests/output/native) for that script. */
START_TEST(the_walk_for_blender_comes_back)
{
	const char *out =
	    getenv("ANIMDEX_NATIVE_DIR") ? getenv("ANIMDEX_NATIVE_DIR") : "tests/output/native";
	char path[1024];
	uint32_t bone[2];
	struct zbuf b;
	json_int_t id;
	FILE *f;

	zouna_write_walk_animation(&b, bone);
	id = http_upload_one(&d, "walk.Animation_Z", b.data, b.len);
	assert_native_is(id, "", &b, "walk.Animation_Z");
	mkdir("tests/output", 0755);
	mkdir(out, 0755);
	snprintf(path, sizeof(path), "%s/walk.Animation_Z", out);
	f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "%s: cannot write", path);
	ck_assert_uint_eq(fwrite(b.data, 1, b.len, f), b.len);
	ck_assert_int_eq(fclose(f), 0);
	zbuf_free(&b);
}
END_TEST

/* A Radient clip naming a bone by name: without a template it is its own document; its
 * translation lands in the Animation_Z's Hermite class; a value beyond that class is a 422
 * naming the track, the key and the class. */
START_TEST(a_clip_lands_in_the_templates_classes)
{
	static const char *const clip_fmt =
	    "{\"name\": \"tete_up\", \"duration\": 2, \"targets\": [{\"schema\": "
	    "\"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", \"object\": 0, \"name\": \"TETE\"}], "
	    "\"samplers\": [{\"value\": {\"type\": \"FLOAT3\"}, \"interpolation\": \"LINEAR\", "
	    "\"times\": [0, 1, 2], \"values\": [0, 0, 0, %s, 2, -1, 1, 2, -1]}], \"channels\": "
	    "[{\"target\": 0, \"property\": 1, \"sampler\": 0}]}";
	struct zbuf b;
	uint32_t bone[3];
	json_int_t tmpl, clip, far;
	char doc[1024], path[256];
	struct http_reply r;
	json_t *report;

	zouna_write_example_animation(&b, 0, 0, 2.0f, bone);
	tmpl = http_upload_one(&d, "tete.Animation_Z", b.data, b.len);
	snprintf(doc, sizeof(doc), clip_fmt, "0.5");
	clip = http_upload_one(&d, "tete_up.json", doc, strlen(doc));
	snprintf(doc, sizeof(doc), clip_fmt, "9.5");
	far = http_upload_one(&d, "tete_far.json", doc, strlen(doc));
	/* without a template, a clip is its own document */
	snprintf(path, sizeof(path), "/api/resources/%lld/native", (long long)clip);
	get(path, 200, &r);
	snprintf(doc, sizeof(doc), clip_fmt, "0.5");
	ck_assert_msg(r.length == strlen(doc) && memcmp(r.body, doc, r.length) == 0, "%s", r.body);
	ck_assert_str_eq(r.disposition, "attachment; filename=\"tete_up.json\"");
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?template=%lld&summary=1",
	         (long long)clip, (long long)tmpl);
	report = http_get_json(&d, path, 200);
	ck_assert_uint_eq(json_array_size(json_object_get(report, "tracks")), 1);
	ck_assert_uint_ge(json_array_size(json_object_get(report, "kept_from_template")), 5);
	ck_assert_str_eq(json_string_value(json_object_get(report, "file_name")),
	                 "tete_up.Animation_Z");
	json_decref(report);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?template=%lld", (long long)far,
	         (long long)tmpl);
	get(path, 422, &r);
	/* key 0's out-tangent (the segment's change, 9.5) is the first value beyond the class */
	ck_assert_msg(strstr(r.body, "TETE translation: key 0's out-tangent") &&
	                  strstr(r.body, "KeyframerVec3fComp_Z") &&
	                  strstr(r.body, "\"value_out_of_range\""),
	              "%s", r.body);
	http_reply_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* Burnout on loopback: a Vehicle Animation comes back byte for byte under its own name, goes
 * to 64-bit and back, takes a Radient clip's state vectors, and refuses by name what it cannot
 * be; bundle= names an entry read out of a bundle. */
START_TEST(burnout_resources_come_back)
{
	static const struct bpart parts[2] = {{{0, -1, -1}}, {{1, -1, -1}}};
	static const struct bstate states[2] = {{0, 11, 1, {0, 0, 0, 0, 2, 4, 6, 8}},
	                                        {1, 10, 0, {1, 1, 1, 1, 0, 0, 0, 0}}};
	static const char *const clip =
	    "{\"name\": \"throttle\", \"duration\": 1, \"targets\": [{\"schema\": "
	    "\"B0A2D7E1-5C3F-4E9A-8D21-7A6B5C4D3E01\", \"object\": 0, \"name\": \"state 0\"}], "
	    "\"samplers\": [{\"value\": {\"type\": \"FLOAT4\"}, \"interpolation\": \"LINEAR\", "
	    "\"times\": [0, 1], \"values\": [0, 0, 0, 0, 3, 5, 7, 9]}], \"channels\": "
	    "[{\"target\": "
	    "0, \"property\": 1, \"sampler\": 0}]}";
	struct bvehicle v = {parts, 2, NULL, 0, states, 2, {0, 1, -1, -1}, {{0}}, 0};
	struct zbuf b, bnd, wide = {0};
	struct http_reply r;
	json_int_t id, wide_id, clip_id, bundle_id;
	json_t *keys;
	char path[160];

	zbuf_init(&b, 0);
	burnout_write_vehicle(&b, &v, 0);
	id = http_upload_one(&d, "pusmc01_vanm.dat", b.data, b.len);
	assert_native_is(id, "", &b, "pusmc01_vanm.dat");
	snprintf(path, sizeof(path), "/api/resources/%lld/native?layout=64", (long long)id);
	get(path, 200, &r);
	ck_assert_uint_gt(r.length, b.len); /* the 64-bit header is 16 bytes longer */
	wide.data = (uint8_t *)r.body;
	wide.len = r.length;
	wide_id = http_upload_one(&d, "pusmc01_vanm.dat", wide.data, wide.len);
	http_reply_cleanup(&r);
	assert_native_is(wide_id, "?layout=32", &b, "pusmc01_vanm.dat");
	clip_id = http_upload_one(&d, "throttle.json", (const uint8_t *)clip, strlen(clip));
	snprintf(path, sizeof(path), "/api/resources/%lld/native?template=%lld", (long long)clip_id,
	         (long long)id);
	get(path, 200, &r);
	ck_assert_uint_eq(r.length, b.len);
	ck_assert_msg(strstr(r.header_native, "kept=0; written=1"), "%s", r.header_native);
	{
		json_int_t edited =
		    http_upload_one(&d, "edited.dat", (const uint8_t *)r.body, r.length);
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/keys",
		         (long long)edited);
		keys = http_get_json(&d, path, 200);
		ck_assert_double_eq(json_number_value(json_array_get(
		                        json_array_get(json_object_get(keys, "values"), 1), 3)),
		                    9);
		json_decref(keys);
	}
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?layout=64&byte_order=big",
	         (long long)id);
	get(path, 400, &r);
	ck_assert_msg(strstr(r.body, "\"layout\""), "%s", r.body);
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?bff=16", (long long)id);
	get(path, 400, &r);
	ck_assert_msg(strstr(r.body, "\"bff\""), "%s", r.body);
	http_reply_cleanup(&r);
	burnout_write_vehicle_bundle(&bnd, &v, 1, NULL);
	bundle_id = http_upload_one(&d, "VEH_AT.BIN", bnd.data, bnd.len);
	/* a resource that did not come out of a bundle is no bundle= */
	snprintf(path, sizeof(path), "/api/resources/%lld/native?bundle=%lld", (long long)bundle_id,
	         (long long)id);
	get(path, 422, &r);
	ck_assert_msg(strstr(r.body, "\"bundle\"") && strstr(r.body, "did not come out"), "%s",
	              r.body);
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?bundle=987654", (long long)id);
	get(path, 404, &r);
	ck_assert_msg(strstr(r.body, "\"bundle\""), "%s", r.body);
	http_reply_cleanup(&r);
	zbuf_free(&bnd);
	zbuf_free(&b);
}
END_TEST

/* A bundle's entry i as stored: its block's bytes and length (compressed size when the bundle
 * is compressed), read with the bundle's own offsets (little-endian, as tests write them). */
static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const uint8_t *stored_block(const uint8_t *bundle, size_t length, uint32_t i, size_t *stored)
{
	const uint8_t *e = bundle + le32(bundle + 20) + (size_t)i * 0x40;
	size_t at = (size_t)le32(bundle + 24) + le32(e + 40);

	*stored = (le32(bundle + 36) & 1) ? le32(e + 28) : (le32(e + 16) & 0x0FFFFFFFu);
	ck_assert_uint_le(at + *stored, length);
	return bundle + at;
}

/* Every entry of `again` but `replaced` stores the bytes `bundle` stores, and the debug XML is
 * the same. */
static void assert_others_kept(const struct zbuf *bundle, const uint8_t *again, size_t length,
                               uint32_t replaced)
{
	uint32_t count = le32(bundle->data + 16);

	ck_assert_uint_eq(le32(again + 16), count);
	for (uint32_t i = 0; i < count; i++) {
		size_t n0, n1;
		const uint8_t *b0 = stored_block(bundle->data, bundle->len, i, &n0);
		const uint8_t *b1 = stored_block(again, length, i, &n1);
		if (i == replaced)
			continue;
		ck_assert_msg(n0 == n1 && memcmp(b0, b1, n0) == 0, "entry %u: not byte for byte",
		              i);
	}
	ck_assert_uint_eq(le32(again + 12), le32(bundle->data + 12));
	ck_assert_msg(le32(bundle->data + 12) == 0 ||
	                  strcmp((const char *)again + le32(again + 12),
	                         (const char *)bundle->data + le32(bundle->data + 12)) == 0,
	              "the debug XML changed");
}

/* A bundle as the game has it (a Vehicle Animation importing two resources, a texture animdex
 * does not read, a Body Part Remap Data, the debug XML; zlib blocks or not) comes back byte for
 * byte as the native file of its Vehicle Animation; a Radient clip's state vectors written in
 * its place give a bundle that parses again, every other entry's stored bytes unchanged, the
 * replaced one decoding to the clip's values; a 64-bit layout moves the blocks after it; bundle=0
 * answers the resource alone. */
START_TEST(a_bundle_comes_back_with_one_resource_replaced)
{
	static const struct bpart parts[2] = {{{0, -1, -1}}, {{1, -1, -1}}};
	static const struct bstate states[2] = {{0, 11, 1, {0, 0, 0, 0, 2, 4, 6, 8}},
	                                        {1, 10, 0, {1, 1, 1, 1, 0, 0, 0, 0}}};
	static const uint64_t imports[2] = {0x11111111u, 0x22222222u};
	static const uint16_t map[2] = {7, 9};
	static const char *const xml =
	    "<ResourceStringTable>\n"
	    "<Resource id=\"2ce66ac1\" type=\"VehicleAnimation\" name=\"pusmc01_vanm\"/>\n"
	    "<Resource id=\"0000aaaa\" type=\"Texture\" name=\"pusmc01_tex\"/>\n"
	    "</ResourceStringTable>\n";
	static const char *const clip_format =
	    "{\"name\": \"throttle_in_bundle_%d\", \"duration\": 1, \"targets\": [{\"schema\": "
	    "\"B0A2D7E1-5C3F-4E9A-8D21-7A6B5C4D3E01\", \"object\": 0, \"name\": \"state 0\"}], "
	    "\"samplers\": [{\"value\": {\"type\": \"FLOAT4\"}, \"interpolation\": \"LINEAR\", "
	    "\"times\": [0, 1], \"values\": [0, 0, 0, 0, 3, 5, 7, 9]}], \"channels\": "
	    "[{\"target\": 0, \"property\": 1, \"sampler\": 0}]}";
	struct bvehicle v = {parts, 2, NULL, 0, states, 2, {0, 1, -1, -1}, {{0}}, 0};
	struct zbuf va, bpr, bnd;
	char clip[1024];
	uint8_t texture[300];
	struct bentry e[3];
	struct http_reply r;
	json_int_t va_id, clip_id, edited_id;
	json_t *keys, *list, *report;
	char path[200], name[32];

	for (size_t i = 0; i < sizeof(texture); i++)
		texture[i] = (uint8_t)(i * 7 + 3);
	zbuf_init(&va, 0);
	burnout_write_vehicle(&va, &v, 0);
	zbuf_init(&bpr, 0);
	burnout_write_remap(&bpr, map, 2);
	e[0] = (struct bentry){0x2CE66AC1u, 0x10023, va.data, va.len, imports, 2};
	e[1] = (struct bentry){0xAAAAu, 0x00001, texture, sizeof(texture), NULL, 0};
	e[2] = (struct bentry){0x87654321u, 0x10024, bpr.data, bpr.len, NULL, 0};
	zbuf_init(&bnd, 0);
	burnout_write_bundle(&bnd, e, 3, _i, xml);
	snprintf(name, sizeof(name), "VEH_PUSMC01_%d.BIN", _i);
	va_id = http_upload_one(&d, name, bnd.data, bnd.len);

	/* unchanged: the bundle, byte for byte, under its own name */
	assert_native_is(va_id, "", &bnd, name);

	/* the clip's state 0 in the Vehicle Animation's place */
	snprintf(clip, sizeof(clip), clip_format, _i);
	clip_id = http_upload_one(&d, "throttle.json", clip, strlen(clip));
	snprintf(path, sizeof(path), "/api/resources/%lld/native?template=%lld", (long long)clip_id,
	         (long long)va_id);
	get(path, 200, &r);
	/* the same size uncompressed: nothing after it moves */
	ck_assert_msg(strstr(r.header_native, _i ? "bundle_resource=0x2CE66AC1; bundle_moved="
	                                         : "bundle_resource=0x2CE66AC1; bundle_moved=0"),
	              "%s", r.header_native);
	ck_assert_msg(strstr(r.disposition, name), "%s", r.disposition);
	assert_others_kept(&bnd, (const uint8_t *)r.body, r.length, 0);
	snprintf(name, sizeof(name), "VEH_EDITED_%d.BIN", _i);
	{ /* it parses again: both resources, their names, the texture listed as skipped */
		const char *names[1] = {name};
		const void *data[1] = {r.body};
		size_t lengths[1] = {r.length};
		struct http_reply up;
		char *text;
		ck_assert_int_eq(http_upload(&d, 1, names, data, lengths, NULL, &up), 0);
		ck_assert_msg(up.status == 201, "%ld %s", up.status, up.body);
		list = http_json(&up);
		text = json_dumps(list, 0);
		ck_assert_msg(strstr(text, "pusmc01_vanm") && strstr(text, "BodyPartRemapData") &&
		                  strstr(text, "pusmc01_tex"),
		              "%s", text);
		edited_id = json_integer_value(
		    json_object_get(json_array_get(json_object_get(list, "resources"), 0), "id"));
		free(text);
		json_decref(list);
		http_reply_cleanup(&up);
	}
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/keys", (long long)edited_id);
	keys = http_get_json(&d, path, 200);
	ck_assert_double_eq(json_number_value(json_array_get(
	                        json_array_get(json_object_get(keys, "values"), 1), 3)),
	                    9);
	json_decref(keys);

	/* 64-bit: the block grows and what follows it moves by a multiple of the alignment */
	snprintf(path, sizeof(path), "/api/resources/%lld/native?layout=64&summary=1",
	         (long long)va_id);
	report = http_get_json(&d, path, 200);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(report, "bundle"), "moved")) % 128,
	    0);
	ck_assert_int_gt(
	    json_integer_value(json_object_get(json_object_get(report, "bundle"), "moved")), 0);
	json_decref(report);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?layout=64", (long long)va_id);
	get(path, 200, &r);
	assert_others_kept(&bnd, (const uint8_t *)r.body, r.length, 0);
	snprintf(name, sizeof(name), "VEH_WIDE_%d.BIN", _i);
	(void)http_upload_one(&d, name, r.body, r.length);
	http_reply_cleanup(&r);

	/* bundle=0: the resource alone, as extraction tools give it */
	snprintf(path, sizeof(path), "/api/resources/%lld/native?bundle=0", (long long)va_id);
	get(path, 200, &r);
	ck_assert_uint_eq(r.length, va.len);
	ck_assert_msg(memcmp(r.body, va.data, va.len) == 0, "the resource alone differs");
	ck_assert_msg(strstr(r.disposition, "pusmc01_vanm"), "%s", r.disposition);
	http_reply_cleanup(&r);
	zbuf_free(&bnd);
	zbuf_free(&va);
	zbuf_free(&bpr);
}
END_TEST

/* A Radient clip document comes back as itself, and through animdex's glTF export and back
 * (upload the .glb, native?template=<the clip>) as itself again, byte for byte. */
START_TEST(a_radient_clip_comes_back_through_gltf)
{
	char path[600], query[64];
	struct zbuf want = {0};
	struct http_reply r;
	json_int_t clip_id, glb_id;
	size_t length;
	char *text = testutil_read_file(
	    testutil_src_path("tests/data/radient/valid/walk.json", path, sizeof(path)), &length);

	ck_assert_msg(text != NULL, "%s", path);
	want.data = (uint8_t *)text;
	want.len = length;
	clip_id = http_upload_one(&d, "walk.json", text, length);
	assert_native_is(clip_id, "", &want, "walk.json");
	snprintf(path, sizeof(path), "/api/resources/%lld/export", (long long)clip_id);
	get(path, 200, &r);
	glb_id = http_upload_one(&d, "walk.glb", r.body, r.length);
	http_reply_cleanup(&r);
	snprintf(query, sizeof(query), "?template=%lld", (long long)clip_id);
	assert_native_is(glb_id, query, &want, "walk.json");
	free(text);
}
END_TEST

/* A Skel_Z comes back as itself, and through animdex's glTF export and back (upload the .glb,
 * native?template=<the skeleton>) as itself again, byte for byte; a bone moved in the glTF
 * lands in its bone. */
START_TEST(a_skeleton_comes_back_through_gltf)
{
	static const uint32_t links[1] = {0x12345678u};
	struct zbone bones[3];
	struct zskeleton sk = {.layout = ZSKEL_WALLE,
	                       .name_crc = 0x5EE1E7A1u,
	                       .links = links,
	                       .link_count = 1,
	                       .bones = bones,
	                       .bone_count = 3,
	                       .material_count = 1};
	struct zbuf b;
	struct http_reply r;
	json_int_t skel_id, glb_id, moved_id;
	json_t *rig;
	char path[200], query[64];
	char *glb, *at;

	memset(bones, 0, sizeof(bones));
	for (int i = 0; i < 3; i++) {
		bones[i].name_crc = 0xB0E50000u + (uint32_t)i;
		bones[i].parent = i - 1;
		bones[i].rotation[3] = 1;
		bones[i].scale[0] = bones[i].scale[1] = bones[i].scale[2] = 1;
		bones[i].translation[1] = i ? 0.5f : 0;
	}
	zbuf_init(&b, 0);
	zouna_write_skeleton(&b, &sk, 0, 0);
	skel_id = http_upload_one(&d, "rig.Skel_Z", b.data, b.len);
	assert_native_is(skel_id, "", &b, "rig.Skel_Z");
	snprintf(path, sizeof(path), "/api/resources/%lld/export?format=gltf", (long long)skel_id);
	get(path, 200, &r);
	glb_id = http_upload_one(&d, "rig.gltf", r.body, r.length);
	snprintf(query, sizeof(query), "?template=%lld", (long long)skel_id);
	assert_native_is(glb_id, query, &b, "rig.Skel_Z");
	/* bone 2 moved in the glTF: its translation [0, 0.5, 0] becomes [0, 0.75, 0] */
	glb = malloc(r.length + 1);
	memcpy(glb, r.body, r.length);
	glb[r.length] = '\0';
	at = strstr(glb, "\"name\":\"node 2\"");
	ck_assert_msg(at != NULL, "%s", glb);
	at = strstr(at, "0.5");
	ck_assert_msg(at != NULL, "%s", glb);
	memcpy(at, "0.7", 3); /* same length: the glTF's offsets stay */
	moved_id = http_upload_one(&d, "moved.gltf", glb, r.length);
	http_reply_cleanup(&r);
	free(glb);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?template=%lld",
	         (long long)moved_id, (long long)skel_id);
	get(path, 200, &r);
	ck_assert_msg(strstr(r.header_native, "kept=2; written=1"), "%s", r.header_native);
	moved_id = http_upload_one(&d, "moved.Skel_Z", r.body, r.length);
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)moved_id);
	rig = http_get_json(&d, path, 200);
	ck_assert_double_eq_tol(
	    json_number_value(json_array_get(
	        json_object_get(json_array_get(json_object_get(rig, "rig"), 2), "translation"), 1)),
	    0.7, 1e-6);
	json_decref(rig);
	zbuf_free(&b);
}
END_TEST

/* as=Animation_Z: a Radient clip with no Zouna file behind it becomes an Animation_Z made new,
 * its defaults told in the report; the file decodes to the clip's values within a step of each
 * class (1/4096 for translations, 1/2000 for quaternions). */
START_TEST(a_clip_is_made_an_animation_z)
{
	static const char *const clip =
	    "{\"name\": \"hop\", \"duration\": 1, \"targets\": ["
	    "{\"schema\": \"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", \"object\": 0, \"name\": "
	    "\"hips\"},"
	    "{\"schema\": \"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", \"object\": 1, \"name\": "
	    "\"knee\"}],"
	    "\"samplers\": [{\"value\": {\"type\": \"FLOAT3\"}, \"interpolation\": \"LINEAR\", "
	    "\"times\": [0, 0.5, 1], \"values\": [0, 1, 0, 0.25, 1.5, 0, 0, 1, 0]},"
	    "{\"value\": {\"type\": \"FLOAT4\"}, \"semantic\": \"NORMALIZED_QUATERNION\", "
	    "\"interpolation\": \"LINEAR\", \"times\": [0, 1], "
	    "\"values\": [0, 0, 0, 1, 0.38268343, 0, 0, 0.92387953]}],"
	    "\"channels\": [{\"target\": 0, \"property\": 1, \"sampler\": 0},"
	    "{\"target\": 1, \"property\": 2, \"sampler\": 1}]}";
	json_int_t clip_id, made_id;
	json_t *report, *keys, *list, *meta;
	struct http_reply r;
	char path[200];

	clip_id = http_upload_one(&d, "hop.json", clip, strlen(clip));
	snprintf(path, sizeof(path), "/api/resources/%lld/native?as=Animation_Z&summary=1",
	         (long long)clip_id);
	report = http_get_json(&d, path, 200);
	ck_assert_str_eq(json_string_value(json_object_get(report, "file_name")),
	                 "hop.Animation_Z");
	ck_assert(json_is_null(json_object_get(report, "template")));
	ck_assert_int_ge(json_array_size(json_object_get(report, "notes")), 3);
	json_decref(report);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?as=Animation_Z&byte_order=big",
	         (long long)clip_id);
	get(path, 200, &r);
	ck_assert_str_eq(r.disposition, "attachment; filename=\"hop.Animation_Z\"");
	made_id = http_upload_one(&d, "hop.Animation_Z", r.body, r.length);
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)made_id);
	list = http_get_json(&d, path, 200);
	ck_assert_str_eq(json_string_value(json_object_get(list, "class")), "Animation_Z");
	ck_assert_int_eq(json_integer_value(json_object_get(list, "track_count")), 2);
	meta = json_object_get(json_object_get(list, "structure"), "metadata");
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(meta, "container"), "byte_order")),
	    "big");
	json_decref(list);
	for (int n = 0; n < 2; n++) {
		json_t *values;
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/%d/keys",
		         (long long)made_id, n);
		keys = http_get_json(&d, path, 200);
		values = json_object_get(keys, "values");
		if (json_integer_value(json_object_get(keys, "key_count")) == 3) /* the hips */
			ck_assert_double_eq_tol(
			    json_number_value(json_array_get(json_array_get(values, 1), 1)), 1.5,
			    1.0 / 4096);
		else
			ck_assert_double_eq_tol(
			    json_number_value(json_array_get(json_array_get(values, 1), 0)),
			    0.38268343, 1.0 / 2000);
		json_decref(keys);
	}
}
END_TEST

/* layout=fuel|rat|walle: an Animation_Z's link header in a game's form (the name alone, or
 * the name, a count and link names), every track as it was; a file already in that form comes
 * back byte for byte. */
START_TEST(an_animation_takes_another_games_link_header)
{
	struct zbuf b, fuel = {0};
	uint32_t bone[3];
	json_int_t id, fuel_id, rat_id;
	json_t *report, *meta, *a, *z;
	struct http_reply r;
	char path[200];

	zouna_write_example_animation(&b, 0, 0, 2.5f, bone); /* an 8-byte link header */
	id = http_upload_one(&d, "linked.Animation_Z", b.data, b.len);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?layout=fuel&summary=1",
	         (long long)id);
	report = http_get_json(&d, path, 200);
	ck_assert_msg(strstr(json_string_value(json_array_get(json_object_get(report, "notes"), 0)),
	                     "the name alone"),
	              "%s", json_dumps(report, 0));
	json_decref(report);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?layout=fuel", (long long)id);
	get(path, 200, &r);
	ck_assert_uint_eq(r.length, b.len - 4);
	fuel.data = (uint8_t *)r.body;
	fuel.len = r.length;
	fuel_id = http_upload_one(&d, "fuel.Animation_Z", r.body, r.length);
	assert_native_is(fuel_id, "?layout=fuel", &fuel, "fuel.Animation_Z");
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?layout=walle", (long long)fuel_id);
	get(path, 200, &r);
	rat_id = http_upload_one(&d, "walle.Animation_Z", r.body, r.length);
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)rat_id);
	report = http_get_json(&d, path, 200);
	meta = json_object_get(json_object_get(report, "structure"), "metadata");
	ck_assert_int_eq(json_integer_value(json_object_get(
	                     json_object_get(json_object_get(meta, "container"), "object_header"),
	                     "link_header_size")),
	                 8);
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)id);
	a = http_get_json(&d, path, 200);
	ck_assert_int_eq(json_integer_value(json_object_get(report, "track_count")),
	                 json_integer_value(json_object_get(a, "track_count")));
	json_decref(a);
	json_decref(report);
	/* every track's keys as they were */
	for (int n = 0; n < 3; n++) {
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/%d/keys", (long long)id,
		         n);
		a = http_get_json(&d, path, 200);
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/%d/keys",
		         (long long)rat_id, n);
		z = http_get_json(&d, path, 200);
		ck_assert_msg(
		    json_equal(json_object_get(a, "values"), json_object_get(z, "values")) &&
		        json_equal(json_object_get(a, "times"), json_object_get(z, "times")),
		    "track %d differs", n);
		json_decref(a);
		json_decref(z);
	}
	zbuf_free(&b);
}
END_TEST

START_TEST(bad_parameters_are_refused_by_name)
{
	static const struct {
		const char *query;
		long status;
		const char *named;
	} cases[] = {
	    {"template=abc", 400, "\"template\""},
	    {"template=0", 400, "\"template\""},
	    {"template=99999", 404, "\"template\""},
	    {"byte_order=middle", 400, "\"byte_order\""},
	    {"bff=8", 400, "\"bff\""},
	    {"name=a%20b", 400, "\"name\""},
	    {"promote=2", 400, "\"promote\""},
	    {"summary=yes", 400, "\"summary\""},
	    {"as=Skel_Z", 400, "\"as\""},
	    {"as=Animation_Z&template=1", 400, "\"as\""},
	    {"as=Animation_Z&bundle=0", 400, "\"as\""},
	    {"reduce=0", 400, "\"reduce\""},
	    {"reduce=-1", 400, "\"reduce\""},
	    {"reduce=nan", 400, "\"reduce\""},
	    {"reduce=1e9", 400, "\"reduce\""},
	    {"reduce=0.1x", 400, "\"reduce\""},
	    {"layout=64", 400, "\"layout\""}, /* a Burnout layout for a Zouna file */
	    {"layout=gamecube", 400, "\"layout\""},
	    {"bundle=x1", 400, "\"bundle\""},
	    {"bundle=-3", 400, "\"bundle\""},
	    {"bundle=99999", 404, "\"bundle\""},
	};
	struct zbuf b;
	uint32_t bone[3];
	json_int_t id;
	char path[256];
	struct http_reply r;

	zouna_write_example_animation(&b, 0, 0, 2.25f, bone);
	id = http_upload_one(&d, "bad.Animation_Z", b.data, b.len);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), "/api/resources/%lld/native?%s", (long long)id,
		         cases[i].query);
		get(path, cases[i].status, &r);
		ck_assert_msg(strstr(r.body, cases[i].named), "%s: %s", path, r.body);
		http_reply_cleanup(&r);
	}
	get("/api/resources/99999/native", 404, &r);
	http_reply_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* animdexd native writes the same file, whole, and never over the catalogue. */
START_TEST(the_command_writes_the_same_file)
{
	struct zbuf b;
	uint32_t bone[3];
	json_int_t id;
	char cmd[2400], out[700], *said, *bytes;
	size_t length;
	int status;

	zouna_write_example_animation(&b, 1, 24, 2.5f, bone);
	id = http_upload_one(&d, "cli.Animation_Z", b.data, b.len);
	snprintf(out, sizeof(out), "%s/cli.Animation_Z", dir);
	snprintf(cmd, sizeof(cmd), "'%s' native --db '%s' %lld -o '%s' 2>&1", getenv("ANIMDEXD"),
	         db, (long long)id, out);
	said = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0, "%s", said);
	free(said);
	bytes = testutil_read_file(out, &length);
	ck_assert_ptr_nonnull(bytes);
	ck_assert_uint_eq(length, b.len);
	ck_assert(memcmp(bytes, b.data, b.len) == 0);
	free(bytes);
	snprintf(cmd, sizeof(cmd), "'%s' native --db '%s' %lld -o '%s' 2>&1", getenv("ANIMDEXD"),
	         db, (long long)id, db);
	said = testutil_shell(cmd, &status);
	ck_assert_msg(status != 0 && strstr(said, "refusing to write over it"), "%s", said);
	free(said);
	snprintf(cmd, sizeof(cmd), "'%s' native --db '%s' --bff 7 %lld -o '%s' 2>&1",
	         getenv("ANIMDEXD"), db, (long long)id, out);
	said = testutil_shell(cmd, &status);
	ck_assert_msg(status != 0 && strstr(said, "bff"), "%s", said);
	free(said);
	zbuf_free(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("native");
	TCase *tc = tcase_create("native");

	tcase_add_unchecked_fixture(tc, start, stop);
	tcase_add_test(tc, uploaded_zouna_files_come_back_byte_for_byte);
	tcase_add_test(tc, an_edit_on_the_earlier_version_is_the_edited_file);
	tcase_add_test(tc, a_glb_round_trip_is_the_file);
	tcase_add_test(tc, the_walk_for_blender_comes_back);
	tcase_add_test(tc, burnout_resources_come_back);
	tcase_add_loop_test(tc, a_bundle_comes_back_with_one_resource_replaced, 0, 2);
	tcase_add_test(tc, a_clip_lands_in_the_templates_classes);
	tcase_add_test(tc, a_radient_clip_comes_back_through_gltf);
	tcase_add_test(tc, a_skeleton_comes_back_through_gltf);
	tcase_add_test(tc, a_clip_is_made_an_animation_z);
	tcase_add_test(tc, an_animation_takes_another_games_link_header);
	tcase_add_test(tc, bad_parameters_are_refused_by_name);
	tcase_add_test(tc, the_command_writes_the_same_file);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
