/* check_roundtrip.c: nothing lost on the way back, against a real daemon on loopback and a
 * real SQLite catalogue. Every family's export comes back through its upload (bare keyframers
 * of every class in both byte orders, a Vehicle Animation whose states are edited in the .glb),
 * animdex takes its own export back (a message track with two messages at one time, a key
 * before 0), and native is byte for byte from the .glb where nothing changed. */
#define _GNU_SOURCE /* mknod, makedev */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

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

/* Uploads name: the one entry it made (asserted), as the API answers it (the caller's). */
static json_t *upload_entry(const char *name, const void *data, size_t length)
{
	const char *names[1] = {name};
	const void *datas[1] = {data};
	size_t lengths[1] = {length};
	struct http_reply r;
	json_t *answer, *entry;

	ck_assert_int_eq(http_upload(&d, 1, names, datas, lengths, NULL, &r), 0);
	ck_assert_msg(r.status == 201, "%s: %ld %.400s", name, r.status, r.body);
	answer = http_json(&r);
	http_reply_cleanup(&r);
	ck_assert_uint_eq(json_array_size(json_object_get(answer, "resources")), 1);
	entry = json_incref(json_array_get(json_object_get(answer, "resources"), 0));
	json_decref(answer);
	return entry;
}

/* The entry's export (.glb) uploaded again: the entry it made, asserted to hold `tracks`. */
static json_t *through_glb(json_int_t id, const char *name, size_t tracks, struct http_reply *glb)
{
	char path[128];
	json_t *back;

	snprintf(path, sizeof(path), "/api/resources/%lld/export", (long long)id);
	get(path, 200, glb);
	back = upload_entry(name, glb->body, glb->length);
	ck_assert_msg(strcmp(json_string_value(json_object_get(back, "class")), "Skeleton") != 0,
	              "%s came back as a Skeleton", name);
	ck_assert_msg(json_integer_value(json_object_get(back, "track_count")) ==
	                  (json_int_t)tracks,
	              "%s came back with %lld tracks, not %zu", name,
	              (long long)json_integer_value(json_object_get(back, "track_count")), tracks);
	return back;
}

/* native?template=TEMPLATE of entry id is `want`, byte for byte. */
static void assert_native_of(json_int_t id, json_int_t template_id, const struct zbuf *want)
{
	char path[160];
	struct http_reply r;

	snprintf(path, sizeof(path), "/api/resources/%lld/native?template=%lld", (long long)id,
	         (long long)template_id);
	get(path, 200, &r);
	ck_assert_msg(r.length == want->len && memcmp(r.body, want->data, want->len) == 0,
	              "%s: %zu bytes, not the %zu of the game's file", path, r.length, want->len);
	http_reply_cleanup(&r);
}

static const char *const bare_classes[] = {
    "KeyframerFloat_Z",
    "KeyframerFloatComp_Z",
    "KeyframerFloatLinearComp_Z",
    "KeyframerVec2fLinear_Z",
    "KeyframerVec2fLinearComp_Z",
    "KeyframerVec3fComp_Z",
    "KeyframerVec3fLinear_Z",
    "KeyframerExtVec3f_Z",
    "KeyframerVec4fLinear_Z",
    "KeyframerVec4fLinearComp_Z",
    "KeyframerRot_Z",
    "KeyframerBezierRot_Z",
    "KeyframerHdl_Z",
    "KeyframerFlag_Z",
    "KeyframerMessage_Z",
    "KeyframerFloatLinear_Z",
    "KeyframerVec2f_Z",
    "KeyframerVec2fComp_Z",
    "KeyframerVec3f_Z",
    "KeyframerVec3fLinearComp_Z",
    "KeyframerVec4f_Z",
    "KeyframerVec4fComp_Z",
};

/* A bare keyframer of every class, in both byte orders, exported (its track kept in a node's
 * extras, or animated: a bezierRot's rotation) and uploaded again: the same class's entry of
 * one track, and native with the original as its template is the original. */
START_TEST(every_bare_keyframer_comes_back_through_a_glb)
{
	static const struct zmessage m = {12, 0xDEADBEEF, 1, 0.5f, 7};
	struct zkey keys[2] = {
	    {.time = 0, .v = {0.5f, 0, 0, 1}, .tout = {1}, .word = 3},
	    {.time = 1, .v = {1, 0.25f, 0, 0}, .messages = &m, .message_count = 1}};

	for (size_t i = 0; i < 2 * sizeof(bare_classes) / sizeof(bare_classes[0]); i++) {
		const char *cls = bare_classes[i / 2];
		struct zbuf b;
		struct http_reply glb;
		char name[96];
		json_t *entry, *back;
		keys[0].word = (uint32_t)i; /* classes of one layout: files of their own */
		keys[1].time = 1 + (float)i / 64;
		zbuf_init(&b, (int)(i % 2));
		ck_assert_int_eq(zouna_write_keyframer(&b, cls, 0x1, keys, 2, 0), 0);
		snprintf(name, sizeof(name), "bare%zu.%s", i, cls);
		entry = upload_entry(name, b.data, b.len);
		snprintf(name, sizeof(name), "bare%zu.glb", i);
		back = through_glb(json_integer_value(json_object_get(entry, "id")), name, 1, &glb);
		assert_native_of(json_integer_value(json_object_get(back, "id")),
		                 json_integer_value(json_object_get(entry, "id")), &b);
		http_reply_cleanup(&glb);
		json_decref(entry);
		json_decref(back);
		zbuf_free(&b);
	}
}
END_TEST

/* The glTF of a .glb (its JSON chunk) and its BIN chunk's first byte. */
static json_t *glb_parts(const struct http_reply *r, uint8_t **bin)
{
	uint32_t json_length;

	memcpy(&json_length, r->body + 12, 4);
	*bin = (uint8_t *)r->body + 20 + json_length + 8;
	return json_loadb(r->body + 20, json_length, 0, NULL);
}

/* A Vehicle Animation's states through glTF: its export keeps them in the entry's node; the
 * .glb uploaded again is a Vehicle Animation's clip of them, native with the original as its
 * template is the original, and a state's value edited in the .glb is the edited value in the
 * game's file. */
START_TEST(a_vehicle_animation_is_edited_through_a_glb)
{
	static const struct bpart parts[2] = {{{0, -1, -1}}, {{1, -1, -1}}};
	static const struct bstate states[2] = {{0, 11, 1, {0, 0, 0, 0, 2, 4, 6, 8}},
	                                        {1, 10, 0, {1, 1, 1, 1, 0, 0, 0, 0}}};
	struct bvehicle v = {parts, 2, NULL, 0, states, 2, {0, 1, -1, -1}, {{0}}, 0};
	struct zbuf b;
	struct http_reply glb, edited;
	json_t *entry, *back, *doc, *node, *kept, *again, *keys;
	json_int_t id, accessor, view;
	uint8_t *bin;
	float nine = 9;
	size_t n;
	char path[160];

	zbuf_init(&b, 0);
	burnout_write_vehicle(&b, &v, 0);
	entry = upload_entry("pusmc01_vanm.dat", b.data, b.len);
	id = json_integer_value(json_object_get(entry, "id"));
	back = through_glb(id, "vehicle.glb", 2, &glb);
	assert_native_of(json_integer_value(json_object_get(back, "id")), id, &b);
	/* state 0's last vector's w (8) made 9 in the .glb */
	doc = glb_parts(&glb, &bin);
	kept = NULL;
	json_array_foreach(json_object_get(doc, "nodes"), n, node)
	{
		kept = json_object_get(json_object_get(json_object_get(node, "extras"), "animdex"),
		                       "not_animated");
		if (kept)
			break;
	}
	ck_assert_msg(json_array_size(kept) == 2, "no node keeps the two states");
	accessor = json_integer_value(json_object_get(json_array_get(kept, 0), "output"));
	view = json_integer_value(json_object_get(
	    json_array_get(json_object_get(doc, "accessors"), (size_t)accessor), "bufferView"));
	memcpy(bin +
	           json_integer_value(json_object_get(
	               json_array_get(json_object_get(doc, "bufferViews"), (size_t)view),
	               "byteOffset")) +
	           7 * sizeof(float),
	       &nine, sizeof(nine));
	again = upload_entry("vehicle edited.glb", glb.body, glb.length);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?template=%lld",
	         (long long)json_integer_value(json_object_get(again, "id")), (long long)id);
	get(path, 200, &edited);
	ck_assert_uint_eq(edited.length, b.len);
	ck_assert_msg(memcmp(edited.body, b.data, b.len) != 0, "the edit did not reach the file");
	json_decref(again);
	again = upload_entry("pusmc01_vanm edited.dat", edited.body, edited.length);
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/keys",
	         (long long)json_integer_value(json_object_get(again, "id")));
	keys = http_get_json(&d, path, 200);
	ck_assert_double_eq(json_number_value(json_array_get(
	                        json_array_get(json_object_get(keys, "values"), 1), 3)),
	                    9);
	json_decref(keys);
	json_decref(again);
	json_decref(doc);
	http_reply_cleanup(&edited);
	http_reply_cleanup(&glb);
	json_decref(entry);
	json_decref(back);
	zbuf_free(&b);
}
END_TEST

/* An Animation_Z whose message track has two messages at one time and one before 0: its export
 * keeps the track in the animation's extras, and the .glb is taken back (the track is held to
 * its format's rules, not glTF's), with the file byte for byte through native. */
START_TEST(animdex_takes_its_own_export_back)
{
	static const struct zmessage m[2] = {{36, 0xDEADBEEF, 0, 1.0f, 1}, {12, 0, 0, 0.5f, 2}};
	static const struct zkey msgs[3] = {{.time = -0.25f, .messages = &m[0], .message_count = 1},
	                                    {.time = 0.5f, .messages = &m[0], .message_count = 1},
	                                    {.time = 0.5f, .messages = &m[1], .message_count = 1}};
	static const struct zkey rot[2] = {{.time = 0, .v = {0, 0, 0, 1}},
	                                   {.time = 1, .v = {0, 0, 1, 0}}};
	struct znode node = {0, 0, 1, {0, 0}, {0, 2}, {0, 0}, {0, 0}, {0, 3}};
	struct zanimation a = {0};
	struct zbuf b;
	struct http_reply glb;
	json_t *entry, *back;

	node.bone_crc = hash_asobo32("TETE", 4);
	a.max_time = 1;
	a.smooth_ratio = 0.5f;
	a.keys[0] = rot, a.counts[0] = 2;
	a.keys[4] = msgs, a.counts[4] = 3;
	a.nodes = &node, a.node_count = 1;
	a.name_crc = hash_asobo32("footsteps", 9);
	zbuf_init(&b, 0);
	zouna_write_animation(&b, &a, 0, 0);
	entry = upload_entry("footsteps.Animation_Z", b.data, b.len);
	back = through_glb(json_integer_value(json_object_get(entry, "id")), "footsteps.glb",
	                   (size_t)json_integer_value(json_object_get(entry, "track_count")), &glb);
	assert_native_of(json_integer_value(json_object_get(back, "id")),
	                 json_integer_value(json_object_get(entry, "id")), &b);
	http_reply_cleanup(&glb);
	json_decref(entry);
	json_decref(back);
	zbuf_free(&b);
}
END_TEST

/* A clip document of one track of the Zouna schema (target "x", property 1): times and values
 * as JSON text. */
static json_int_t upload_clip(const char *name, const char *type, const char *interpolation,
                              const char *times, const char *values, int targets)
{
	char doc[12000];

	snprintf(doc, sizeof(doc),
	         "{\"name\": \"%s\", \"duration\": 2000, \"targets\": [{\"schema\": "
	         "\"5A0E7D1C-4F2B-4B8E-9C3A-A5B0C0DE0001\", \"object\": 0, \"name\": \"x\"}%s], "
	         "\"samplers\": [{\"value\": {\"type\": \"%s\"}, \"interpolation\": \"%s\", "
	         "\"times\": %s, \"values\": %s}%s], \"channels\": [{\"target\": 0, \"property\": "
	         "1, \"sampler\": 0}%s]}",
	         name,
	         targets == 2 ? ", {\"schema\": \"5A0E7D1C-4F2B-4B8E-9C3A-A5B0C0DE0001\", "
	                        "\"object\": 1, \"name\": \"x\"}"
	                      : "",
	         type, interpolation, times, values,
	         targets == 2 ? ", {\"value\": {\"type\": \"FLOAT\"}, \"interpolation\": "
	                        "\"LINEAR\", \"times\": [0, 1], \"values\": [0, 1]}"
	                      : "",
	         targets == 2 ? ", {\"target\": 1, \"property\": 1, \"sampler\": 1}" : "");
	return http_upload_one(&d, name, doc, strlen(doc));
}

/* A bare keyframer of class cls (two keys), uploaded: its entry. */
static json_int_t upload_bare(const char *cls, float second_time)
{
	static const struct zmessage m = {12, 0xDEADBEEF, 1, 0.5f, 7};
	struct zkey keys[2] = {{.time = 0, .v = {0.5f, 0, 0, 1}, .word = 3},
	                       {.time = second_time, .v = {1}, .messages = &m, .message_count = 1}};
	struct zbuf b;
	char name[96];
	json_int_t id;

	zbuf_init(&b, 0);
	ck_assert_int_eq(zouna_write_keyframer(&b, cls, 0x1, keys, 2, 0), 0);
	snprintf(name, sizeof(name), "limit %s.%s", cls, cls);
	id = http_upload_one(&d, name, b.data, b.len);
	zbuf_free(&b);
	return id;
}

/* native of entry id onto template: a 422 whose message holds each of `words`. */
static void assert_refused(json_int_t id, json_int_t template_id, const char *const *words)
{
	char path[160];
	struct http_reply r;

	snprintf(path, sizeof(path), "/api/resources/%lld/native?template=%lld", (long long)id,
	         (long long)template_id);
	get(path, 422, &r);
	for (; *words; words++)
		ck_assert_msg(strstr(r.body, *words), "%s: no '%s' in %s", path, *words, r.body);
	http_reply_cleanup(&r);
}

/* What the template's class or format cannot hold is a 422 naming the track and the key, never
 * a 500: a tangent past float32 once times its segment, times the decoder would not read, two
 * keys at one time in a clip document, two targets of one name; and a file whose tangent per
 * second overflows is refused at upload, not stored as infinity. */
START_TEST(what_a_format_cannot_hold_is_refused_by_name)
{
	static const float keys_inf[] = {0, 1, 0, 3e38f, 0.5f, 2, 0, 0};
	const char *big_tangent[] = {"x value", "key 0's out-tangent", "float32", NULL};
	const char *tiny_time[] = {"x value", "key 1's time", NULL};
	const char *twin_keys[] = {"key 1's time 0.5", "not after the key before it", NULL};
	const char *twin_targets[] = {"targets[0] and targets[1]", "'x'", NULL};
	struct zbuf b;
	struct http_reply r;
	const char *names[1] = {"inf.KeyframerFloat_Z"};
	const void *datas[1];
	size_t lengths[1];
	json_int_t radient;

	assert_refused(upload_clip("big tangent", "FLOAT", "CUBIC_SPLINE", "[0, 1000]",
	                           "[0, 0, 3e38, 0, 1, 0]", 1),
	               upload_bare("KeyframerFloat_Z", 1), big_tangent);
	assert_refused(upload_clip("tiny handle time", "UINT", "STEP", "[0, 1e-8]", "[1, 2]", 1),
	               upload_bare("KeyframerHdl_Z", 1), tiny_time);
	assert_refused(upload_clip("tiny vector time", "FLOAT3", "LINEAR", "[0, 1e-8]",
	                           "[1, 2, 3, 4, 5, 6]", 1),
	               upload_bare("KeyframerExtVec3f_Z", 1), tiny_time);
	radient = upload_clip("a clip", "FLOAT", "LINEAR", "[0, 1]", "[0, 1]", 1);
	{ /* two messages at one time: one key of a message keyframer */
		static const struct zmessage two[2] = {{36, 0xBEEF, 0, 1, 7}, {12, 0, 0, 0.5f, 8}};
		const struct zkey key = {.time = 0.5f, .messages = two, .message_count = 2};
		zbuf_init(&b, 0);
		ck_assert_int_eq(zouna_write_keyframer(&b, "KeyframerMessage_Z", 0, &key, 1, 0), 0);
		assert_refused(http_upload_one(&d, "two.KeyframerMessage_Z", b.data, b.len),
		               radient, twin_keys);
		zbuf_free(&b);
	}
	assert_refused(upload_clip("twins", "FLOAT", "LINEAR", "[0, 1]", "[5, 6]", 2), radient,
	               twin_targets);
	/* keys at 0 and 0.5 s, out-tangent 3e38 per segment: 6e38 per second */
	zbuf_init(&b, 0);
	zbuf_u16(&b, 0);
	zbuf_u32(&b, 2);
	for (size_t i = 0; i < 8; i++)
		zbuf_f32(&b, keys_inf[i]);
	datas[0] = b.data;
	lengths[0] = b.len;
	ck_assert_int_eq(http_upload(&d, 1, names, datas, lengths, NULL, &r), 0);
	ck_assert_msg(r.status == 422 && strstr(r.body, "keys[0]") && strstr(r.body, "out-tangent"),
	              "%ld %s", r.status, r.body);
	http_reply_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* `animdexd native -o` and `export -o` write into a FIFO or a device as it is, never replacing
 * it with a regular file: a reader of the FIFO gets the game's file; a device node of the test's
 * own (a null device, made when the test runs as root) is still a device after both. */
START_TEST(the_commands_write_into_a_fifo_or_a_device_as_it_is)
{
	struct zbuf b;
	char cmd[3000], fifo[700], got[700], device[700], *said, *bytes;
	struct stat st;
	size_t length;
	json_int_t id;
	int status;

	zbuf_init(&b, 0);
	burnout_write_vehicle(
	    &b,
	    &(struct bvehicle){(const struct bpart[]){{{0, -1, -1}}},
	                       1,
	                       NULL,
	                       0,
	                       (const struct bstate[]){{0, 11, 1, {0, 0, 0, 0, 2, 4, 6, 8}}},
	                       1,
	                       {0, -1, -1, -1},
	                       {{0}},
	                       0},
	    0);
	id = http_upload_one(&d, "fifo_vanm.dat", b.data, b.len);
	snprintf(fifo, sizeof(fifo), "%s/game.fifo", dir);
	snprintf(got, sizeof(got), "%s/read from the fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	snprintf(cmd, sizeof(cmd),
	         "cat '%s' > '%s' & '%s' native --db '%s' %lld -o '%s' 2>&1; wait", fifo, got,
	         getenv("ANIMDEXD"), db, (long long)id, fifo);
	said = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0, "%s", said);
	free(said);
	ck_assert_int_eq(stat(fifo, &st), 0);
	ck_assert_msg(S_ISFIFO(st.st_mode), "the FIFO was replaced");
	bytes = testutil_read_file(got, &length);
	ck_assert_msg(bytes && length == b.len && memcmp(bytes, b.data, b.len) == 0,
	              "the FIFO's reader got %zu bytes, not the file's %zu", length, b.len);
	free(bytes);
	snprintf(device, sizeof(device), "%s/null", dir);
	if (geteuid() == 0 && mknod(device, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		snprintf(
		    cmd, sizeof(cmd),
		    "'%s' native --db '%s' %lld -o '%s' 2>&1 && '%s' export --db '%s' --id %lld "
		    "-o '%s' 2>&1",
		    getenv("ANIMDEXD"), db, (long long)id, device, getenv("ANIMDEXD"), db,
		    (long long)id, device);
		said = testutil_shell(cmd, &status);
		ck_assert_msg(status == 0, "%s", said);
		free(said);
		ck_assert_int_eq(stat(device, &st), 0);
		ck_assert_msg(S_ISCHR(st.st_mode), "the device node was replaced by a file");
	}
	zbuf_free(&b);
}
END_TEST

/* native?summary=1 is counted against --answer-memory before it is made: a 1.6 MB keyframer
 * asked of a daemon allowed 1 MiB of answers is a 503 at once, not after building its file. */
START_TEST(a_native_answer_is_counted_before_it_is_made)
{
	struct daemon_proc small;
	struct zbuf b;
	struct http_reply r;
	json_int_t id;
	char path[96];

	ck_assert_int_eq(zouna_write_long_keyframer(&b, 100000), 0);
	id = http_upload_one(&d, "long.KeyframerFloat_Z", b.data, b.len);
	ck_assert_int_eq(daemon_start(&small, db, "--answer-memory 1M"), 0);
	snprintf(path, sizeof(path), "/api/resources/%lld/native?summary=1", (long long)id);
	ck_assert_int_eq(http_request(&small, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_msg(r.status == 503 && strstr(r.body, "answer-memory"), "%ld %s", r.status,
	              r.body);
	http_reply_cleanup(&r);
	ck_assert_int_eq(daemon_stop(&small), 0);
	get(path, 200, &r); /* the default allows it */
	http_reply_cleanup(&r);
	zbuf_free(&b);
}
END_TEST

/* Compare across families pairs as native does: an Animation_Z and its export brought back
 * (.glb: glTF nodes named by the bones' handles) pair every track, none is only on one side,
 * and each pair says how it was made. */
START_TEST(compare_across_families_pairs_as_native_does)
{
	struct zbuf b;
	struct http_reply glb;
	uint32_t bone[3];
	json_t *entry, *back, *answer, *pair;
	char path[160];
	size_t i;

	zouna_write_example_animation(&b, 0, 0, 1.0f, bone);
	entry = upload_entry("compared.Animation_Z", b.data, b.len);
	back = through_glb(json_integer_value(json_object_get(entry, "id")), "compared.glb",
	                   (size_t)json_integer_value(json_object_get(entry, "track_count")), &glb);
	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld",
	         (long long)json_integer_value(json_object_get(back, "id")),
	         (long long)json_integer_value(json_object_get(entry, "id")));
	answer = http_get_json(&d, path, 200);
	ck_assert_msg(json_array_size(json_object_get(answer, "only_in_a")) == 0 &&
	                  json_array_size(json_object_get(answer, "only_in_b")) == 0,
	              "%s: %zu only in a, %zu only in b", path,
	              json_array_size(json_object_get(answer, "only_in_a")),
	              json_array_size(json_object_get(answer, "only_in_b")));
	ck_assert_uint_eq(json_array_size(json_object_get(answer, "pairs")),
	                  (size_t)json_integer_value(json_object_get(entry, "track_count")));
	json_array_foreach(json_object_get(answer, "pairs"), i, pair) ck_assert_msg(
	    json_string_value(json_object_get(pair, "paired")), "pair %zu: no how", i);
	json_decref(answer);
	http_reply_cleanup(&glb);
	json_decref(entry);
	json_decref(back);
	zbuf_free(&b);
}
END_TEST

/* The id of the entry of class `cls` an upload made (asserted there is one). */
static json_int_t upload_and_find(const char *name, const void *data, size_t length,
                                  const char *cls)
{
	const char *names[1] = {name};
	const void *datas[1] = {data};
	size_t lengths[1] = {length};
	struct http_reply r;
	json_t *answer, *entry;
	json_int_t id = 0;
	size_t i;

	ck_assert_int_eq(http_upload(&d, 1, names, datas, lengths, NULL, &r), 0);
	ck_assert_msg(r.status == 201, "%s: %ld %.300s", name, r.status, r.body);
	answer = http_json(&r);
	json_array_foreach(
	    json_object_get(answer, "resources"), i,
	    entry) if (strcmp(json_string_value(json_object_get(entry, "class")), cls) == 0) id =
	    json_integer_value(json_object_get(entry, "id"));
	ck_assert_msg(id > 0, "%s made no %s", name, cls);
	json_decref(answer);
	http_reply_cleanup(&r);
	return id;
}

/* A Vehicle Animation uploaded on its own, reshaped (another number of states than the
 * bundle's), goes into the bundle as it is with native?bundle=ID: the bundle rebuilt holds it
 * byte for byte in place of the old resource. */
START_TEST(a_reshaped_vehicle_animation_goes_into_its_bundle)
{
	static const struct bpart parts[2] = {{{0, -1, -1}}, {{1, -1, -1}}};
	static const struct bstate two[2] = {{0, 11, 1, {0, 0, 0, 0, 2, 4, 6, 8}},
	                                     {1, 10, 0, {1, 1, 1, 1, 0, 0, 0, 0}}};
	static const struct bstate three[3] = {{0, 11, 1, {0, 0, 0, 0, 2, 4, 6, 8}},
	                                       {1, 10, 0, {1, 1, 1, 1, 0, 0, 0, 0}},
	                                       {1, 11, 1, {3, 3, 3, 3, 5, 5, 5, 5}}};
	struct bvehicle v = {parts, 2, NULL, 0, two, 2, {0, 1, -1, -1}, {{0}}, 0};
	struct bvehicle reshaped = {parts, 2, NULL, 0, three, 3, {0, 1, -1, -1}, {{0}}, 0};
	struct zbuf bnd, alone;
	struct http_reply r, back;
	json_int_t in_bundle, own, rebuilt;
	char path[160];

	burnout_write_vehicle_bundle(&bnd, &v, 0, NULL);
	in_bundle = upload_and_find("VEH_RESHAPED_AT.BIN", bnd.data, bnd.len, "VehicleAnimation");
	zbuf_init(&alone, 0);
	burnout_write_vehicle(&alone, &reshaped, 0);
	own = upload_and_find("reshaped_vanm.dat", alone.data, alone.len, "VehicleAnimation");
	snprintf(path, sizeof(path), "/api/resources/%lld/native?bundle=%lld", (long long)own,
	         (long long)in_bundle);
	get(path, 200, &r);
	rebuilt =
	    upload_and_find("VEH_RESHAPED_AT again.BIN", r.body, r.length, "VehicleAnimation");
	snprintf(path, sizeof(path), "/api/resources/%lld/native?bundle=0", (long long)rebuilt);
	get(path, 200, &back);
	ck_assert_msg(back.length == alone.len && memcmp(back.body, alone.data, alone.len) == 0,
	              "the bundle's resource is %zu bytes, not the %zu of the file put in it",
	              back.length, alone.len);
	http_reply_cleanup(&back);
	http_reply_cleanup(&r);
	zbuf_free(&alone);
	zbuf_free(&bnd);
}
END_TEST

/* reduce= keeps to what the class and float32 can hold: a tolerance so loose that the fitted
 * tangents pass a compressed class's range writes the track's own keys (said, not a 422), and
 * one finer than float32 tells apart says so beside its error. */
START_TEST(reduce_keeps_to_what_the_class_holds)
{
	char times[4000], values[4000], path[200];
	size_t nt = 0, nv = 0;
	json_int_t clip, bare;
	json_t *report, *reduced;

	for (int i = 0; i < 200; i++) {
		nt += (size_t)snprintf(times + nt, sizeof(times) - nt, "%s%g", i ? ", " : "[",
		                       i / 30.0);
		nv += (size_t)snprintf(values + nv, sizeof(values) - nv, "%s%.6f", i ? ", " : "[",
		                       5 * sin(3 * i / 30.0));
	}
	snprintf(times + nt, sizeof(times) - nt, "]");
	snprintf(values + nv, sizeof(values) - nv, "]");
	clip = upload_clip("a wave", "FLOAT", "LINEAR", times, values, 1);
	bare = upload_bare("KeyframerFloatComp_Z", 1);
	snprintf(path, sizeof(path),
	         "/api/resources/%lld/native?template=%lld&reduce=1e6&summary=1", (long long)clip,
	         (long long)bare);
	report = http_get_json(&d, path, 200);
	reduced = json_object_get(json_array_get(json_object_get(report, "tracks"), 0), "reduced");
	ck_assert_msg(json_string_value(json_object_get(reduced, "undone")) &&
	                  json_integer_value(json_object_get(
	                      json_array_get(json_object_get(report, "tracks"), 0), "keys")) == 200,
	              "%s", path);
	json_decref(report);
	snprintf(path, sizeof(path),
	         "/api/resources/%lld/native?template=%lld&reduce=1e-300&summary=1",
	         (long long)clip, (long long)bare);
	report = http_get_json(&d, path, 200);
	reduced = json_object_get(json_array_get(json_object_get(report, "tracks"), 0), "reduced");
	ck_assert_msg(json_number_value(json_object_get(reduced, "largest_error")) <= 1e-300 ||
	                  strstr(json_string_value(json_object_get(reduced, "note")), "float32"),
	              "%s: an error above the tolerance without a note", path);
	json_decref(report);
}
END_TEST

/* `animdexd native --byte-order big` writes big-endian: the little-endian example Animation_Z
 * comes out as the same animation written big-endian, byte for byte. */
START_TEST(the_command_writes_the_byte_order_asked)
{
	struct zbuf little, big;
	uint32_t bone[3];
	char cmd[2400], out[700], *said, *bytes;
	size_t length;
	json_int_t id;
	int status;

	zouna_write_example_animation(&little, 0, 0, 1.5f, bone);
	zouna_write_example_animation(&big, 1, 0, 1.5f, bone);
	id = http_upload_one(&d, "order.Animation_Z", little.data, little.len);
	snprintf(out, sizeof(out), "%s/order big.Animation_Z", dir);
	snprintf(cmd, sizeof(cmd), "'%s' native --db '%s' --byte-order big %lld -o '%s' 2>&1",
	         getenv("ANIMDEXD"), db, (long long)id, out);
	said = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0, "%s", said);
	free(said);
	bytes = testutil_read_file(out, &length);
	ck_assert_msg(bytes && length == big.len && memcmp(bytes, big.data, big.len) == 0,
	              "--byte-order big: %zu bytes, not the big-endian file's %zu", length,
	              big.len);
	free(bytes);
	zbuf_free(&little);
	zbuf_free(&big);
}
END_TEST

/* An Animation_Z of `records` bones, each naming rot keys [start, start + count) of one
 * keyframer of `keys` keys (start i * step). */
static void write_records(struct zbuf *b, uint32_t records, uint32_t keys, uint16_t step,
                          uint16_t count)
{
	struct zkey *rot = calloc(keys, sizeof(*rot));
	struct znode *nodes = calloc(records, sizeof(*nodes));
	struct zanimation a = {0};
	char name[24];

	ck_assert(rot && nodes);
	for (uint32_t i = 0; i < keys; i++) {
		rot[i].time = (float)i / 30;
		rot[i].v[3] = 1;
	}
	for (uint32_t i = 0; i < records; i++) {
		snprintf(name, sizeof(name), "BONE_%u", i);
		nodes[i].bone_crc = hash_asobo32(name, strlen(name));
		nodes[i].id = (int16_t)i;
		nodes[i].rot[0] = (uint16_t)(i * step);
		nodes[i].rot[1] = count;
	}
	a.max_time = (float)keys / 30;
	a.smooth_ratio = 0.5f;
	a.keys[0] = rot, a.counts[0] = keys; /* node.rot */
	a.nodes = nodes, a.node_count = records;
	a.name_crc = hash_asobo32("records", 7);
	zbuf_init(b, 0);
	zouna_write_animation(b, &a, 0, 0);
	free(rot);
	free(nodes);
}

START_TEST(every_record_decodes_and_what_records_name_is_bounded)
{
	struct zbuf many, shared;
	struct http_reply r;
	json_t *entry, *got, *animation;
	char path[96];
	json_int_t id;

	/* 5,000 bones of a key each: every one a track, the structure lists 4,096, and native
	 * gives the file back */
	write_records(&many, 5000, 5000, 1, 1);
	entry = upload_entry("many bones.Animation_Z", many.data, many.len);
	id = json_integer_value(json_object_get(entry, "id"));
	ck_assert_int_eq(json_integer_value(json_object_get(entry, "track_count")), 5000);
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)id);
	got = http_get_json(&d, path, 200);
	animation = json_object_get(json_object_get(json_object_get(got, "structure"), "metadata"),
	                            "animation");
	ck_assert_uint_eq(json_array_size(json_object_get(animation, "nodes")), 4096);
	ck_assert_int_eq(json_integer_value(json_object_get(animation, "nodes_unlisted")), 904);
	assert_native_of(id, id, &many);
	json_decref(got);
	json_decref(entry);
	/* 1,600 bones each naming the one 65,535-key slice: 105 million keys from 1.6 MB,
	 * refused by the record that passes the bound, and nothing stored */
	write_records(&shared, 1600, 65535, 0, 65535);
	{
		const char *names[1] = {"shared slice.Animation_Z"};
		const void *datas[1] = {shared.data};
		size_t lengths[1] = {shared.len};
		json_t *answer;
		const char *message;
		ck_assert_int_eq(http_upload(&d, 1, names, datas, lengths, NULL, &r), 0);
		ck_assert_msg(r.status == 422, "%ld %.400s", r.status, r.body);
		answer = http_json(&r);
		message =
		    json_string_value(json_object_get(json_object_get(answer, "error"), "message"));
		ck_assert_msg(message && strstr(message, "nodes[9].rot") &&
		                  strstr(message, "8 times the 65535 keys"),
		              "%s", message ? message : r.body);
		json_decref(answer);
		http_reply_cleanup(&r);
	}
	got = http_get_json(&d, "/api/resources?name=shared%20slice", 200);
	ck_assert_int_eq(json_integer_value(json_object_get(got, "total")), 0);
	json_decref(got);
	got = http_get_json(&d, "/api/resources?name=many%20bones", 200); /* the filter finds */
	ck_assert_int_eq(json_integer_value(json_object_get(got, "total")), 1);
	json_decref(got);
	zbuf_free(&many);
	zbuf_free(&shared);
}
END_TEST

/* A request of several files answers 201 when any made an entry, whatever its last file is:
 * new bytes then the same bytes again, and new bytes then bytes already catalogued. */
START_TEST(a_request_that_made_entries_answers_201_whatever_its_last_file)
{
	struct zbuf a, b;
	uint32_t bone[3];
	struct http_reply r;

	zouna_write_example_animation(&a, 0, 0, 2.0f, bone);
	zouna_write_example_animation(&b, 1, 0, 2.0f, bone);
	{
		const char *names[2] = {"twice.Animation_Z", "twice again.Animation_Z"};
		const void *datas[2] = {a.data, a.data};
		size_t lengths[2] = {a.len, a.len};
		ck_assert_int_eq(http_upload(&d, 2, names, datas, lengths, NULL, &r), 0);
		ck_assert_msg(r.status == 201, "the same bytes twice: %ld %.300s", r.status,
		              r.body);
		http_reply_cleanup(&r);
	}
	{
		const char *names[2] = {"new.Animation_Z", "known.Animation_Z"};
		const void *datas[2] = {b.data, a.data};
		size_t lengths[2] = {b.len, a.len};
		ck_assert_int_eq(http_upload(&d, 2, names, datas, lengths, NULL, &r), 0);
		ck_assert_msg(r.status == 201, "new, then known bytes: %ld %.300s", r.status,
		              r.body);
		http_reply_cleanup(&r);
		ck_assert_int_eq(http_upload(&d, 2, names, datas, lengths, NULL, &r), 0);
		ck_assert_msg(r.status == 200, "both known: %ld %.300s", r.status, r.body);
		http_reply_cleanup(&r);
	}
	zbuf_free(&a);
	zbuf_free(&b);
}
END_TEST

/* A target's object number above 2^63 - 1 (a custom schema's 64-bit handle) reads back as
 * written: in the entry's structure and its track, and in native's clip document. */
START_TEST(an_object_number_past_int64_reads_back_as_written)
{
	static const char *const doc =
	    "{\"name\": \"wide handle\", \"duration\": 1, \"targets\": [{\"schema\": "
	    "\"11111111-2222-3333-4444-555555555555\", \"object\": \"18446744073709551614\"}],"
	    "\"samplers\": [{\"value\": {\"type\": \"FLOAT\"}, \"times\": [0, 1], "
	    "\"values\": [1, 2]}],"
	    "\"channels\": [{\"target\": 0, \"property\": \"9223372036854775809\", "
	    "\"sampler\": 0}]}";
	json_t *entry = upload_entry("wide handle.json", doc, strlen(doc)), *got, *target;
	char path[96];
	json_int_t id = json_integer_value(json_object_get(entry, "id"));

	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)id);
	got = http_get_json(&d, path, 200);
	target = json_array_get(
	    json_object_get(json_object_get(json_object_get(got, "structure"), "clip"), "targets"),
	    0);
	ck_assert_msg(json_is_string(json_object_get(target, "object")) &&
	                  strcmp(json_string_value(json_object_get(target, "object")),
	                         "18446744073709551614") == 0,
	              "the structure's object: %s", json_dumps(target, 0));
	{
		char *text = json_dumps(json_array_get(json_object_get(got, "tracks"), 0), 0);
		ck_assert_msg(text && strstr(text, "\"18446744073709551614\"") &&
		                  strstr(text, "\"9223372036854775809\""),
		              "the track: %.600s", text ? text : "none");
		free(text);
	}
	json_decref(got);
	json_decref(entry);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("roundtrip");
	TCase *tc = tcase_create("roundtrip");

	tcase_add_unchecked_fixture(tc, start, stop);
	tcase_add_test(tc, every_bare_keyframer_comes_back_through_a_glb);
	tcase_add_test(tc, a_vehicle_animation_is_edited_through_a_glb);
	tcase_add_test(tc, animdex_takes_its_own_export_back);
	tcase_add_test(tc, what_a_format_cannot_hold_is_refused_by_name);
	tcase_add_test(tc, the_commands_write_into_a_fifo_or_a_device_as_it_is);
	tcase_add_test(tc, a_native_answer_is_counted_before_it_is_made);
	tcase_add_test(tc, compare_across_families_pairs_as_native_does);
	tcase_add_test(tc, a_reshaped_vehicle_animation_goes_into_its_bundle);
	tcase_add_test(tc, reduce_keeps_to_what_the_class_holds);
	tcase_add_test(tc, the_command_writes_the_byte_order_asked);
	tcase_add_test(tc, every_record_decodes_and_what_records_name_is_bounded);
	tcase_add_test(tc, a_request_that_made_entries_answers_201_whatever_its_last_file);
	tcase_add_test(tc, an_object_number_past_int64_reads_back_as_written);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
