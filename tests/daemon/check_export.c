/* check_export.c: glTF export against the real daemon. Entries of every family (the glTF
 * fixtures, and Zouna, Burnout, Radient and random clips from the writers) are exported one by
 * one and all together; each export is uploaded back into animdex, and every exported track
 * must sample as the original at 2,000 times (key times, between keys, before and after the
 * range) within 1e-6 relative, with keys equal bit for bit where nothing was converted.
 * The files, and for each the samples Blender must show (EXPECTED.json), are written to
 * $ANIMDEX_EXPORT_DIR for tests/scripts/export.sh, which runs the Khronos validator and Blender
 * on them. */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base64.h"
#include "burnout_writer.h"
#include "catalog/catalog.h"
#include "answers/export.h"
#include "gltf_writer.h"
#include "base/hash.h"
#include "core/model.h"
#include "testutil.h"
#include "zouna_writer.h"

static struct daemon_proc d;
static char *dir, out_dir[512];

/* Uploads bytes; the ids of the entries they gave. */
static json_t *upload(const char *name, const void *data, size_t len)
{
	struct http_reply r;
	const char *names[1] = {name};
	const void *datas[1] = {data};
	json_t *j, *ids = json_array(), *e;
	size_t i;

	ck_assert_int_eq(http_upload(&d, 1, names, datas, &len, NULL, &r), 0);
	ck_assert_msg(r.status == 201 || r.status == 200, "upload %s: %ld %.300s", name, r.status,
	              r.body);
	j = http_json(&r);
	http_reply_cleanup(&r);
	json_array_foreach(json_object_get(j, "resources"), i, e)
	    json_array_append(ids, json_object_get(e, "id"));
	json_decref(j);
	return ids;
}

/* The inputs: every family. */
static void upload_zouna(void)
{
	static struct zkey rot[2] = {{.time = 0, .v = {0, 0, 0, 1}},
	                             {.time = 2, .v = {0, 0, 1, 0}}};
	static struct zkey bezier[3] = {{.time = 0, .v = {0, 0.5f, 0}, .tout = {0.25f, 0, 0}},
	                                {.time = 1, .v = {0.75f, 0, -0.5f}},
	                                {.time = 2, .v = {1.5f, 0.25f, 0}, .tin = {0.5f, 0, 0}}};
	static struct zkey trans[3] = {{.time = 0.5f, .v = {1, 2, 3}, .tout = {0.5f, 0, 0}},
	                               {.time = 1.5f, .v = {4, 5, 6}},
	                               {.time = 2, .v = {-1, 0, 1}, .tin = {0, 0.25f, 0}}};
	static struct zkey scale[2] = {{.time = 0, .v = {1, 1, 1}}, {.time = 2, .v = {2, 2, 2}}};
	static struct zmessage msg = {36, 0xDEADBEEF, 0, 1.0f, 0x01020304};
	static struct zkey msgs[1] = {{.time = 0.5f, .messages = &msg, .message_count = 1}};
	static struct zkey mat[2] = {{.time = 0, .v = {0.25f}}, {.time = 1, .v = {0.5f}}};
	struct znode nodes[2] = {
	    {hash_asobo32("Bip01 Pelvis", 12), 0, 0, {0, 3}, {0, 2}, {0, 0}, {0, 2}, {0, 0}},
	    {hash_asobo32("Bip01 Spine", 11), 1, 0, {0, 0}, {0, 0}, {0, 3}, {0, 0}, {0, 1}},
	};
	struct zmaterial material = {0x0BADF00D, 0, 0, {0, 2}, {0, 0}, {0, 0}, {0, 0}, {0, 0}};
	struct zanimation a = {0};
	struct zbuf b;
	json_t *ids;

	a.max_time = 2.0f;
	a.keys[0] = rot, a.counts[0] = 2;
	a.keys[1] = bezier, a.counts[1] = 3;
	a.keys[2] = scale, a.counts[2] = 2;
	a.keys[3] = trans, a.counts[3] = 3;
	a.keys[4] = msgs, a.counts[4] = 1;
	a.keys[5] = mat, a.counts[5] = 2;
	a.nodes = nodes, a.node_count = 2;
	a.materials = &material, a.material_count = 1;
	a.name_crc = hash_asobo32("hero_run", 8);
	zbuf_init(&b, 0);
	zouna_write_animation(&b, &a, 16, 0);
	json_decref(upload("hero_run.Animation_Z", b.data, b.len));
	zbuf_free(&b);
	/* a second animation of the same skeleton: its bones share the first one's nodes */
	a.name_crc = hash_asobo32("hero_walk", 9);
	a.keys[4] = NULL, a.counts[4] = 0;
	nodes[1].msg[1] = 0;
	zbuf_init(&b, 1);
	zouna_write_animation(&b, &a, 0, 0);
	json_decref(upload("hero_walk.Animation_Z", b.data, b.len));
	zbuf_free(&b);
	/* a bare keyframer: nothing glTF animates */
	zbuf_init(&b, 0);
	zouna_write_keyframer(&b, "KeyframerFloat_Z", 1, trans, 2, 0);
	ids = upload("fade.KeyframerFloat_Z", b.data, b.len);
	json_decref(ids);
	zbuf_free(&b);
}

static void upload_burnout(void)
{
	static const struct bstate states[1] = {{0, 11, 1, {0, 0, 0, 0, 2, 4, 6, 8}}};
	static const struct bpart parts[1] = {{{0, -1, -1}}};
	struct bvehicle v = {parts, 1, NULL, 0, states, 1, {0, -1, -1, -1}, {{0}}, 0};
	struct zbuf bnd;

	burnout_write_vehicle_bundle(&bnd, &v, 1,
	                             "<Resource id=\"2ce66ac1\" name=\"pusmc01_vanm\"/>");
	json_decref(upload("VEH_AT.BIN", bnd.data, bnd.len));
	zbuf_free(&bnd);
}

/* A Radient clip with morph weights, visibility, and a cubic translation. */
static const char radient_doc[] =
    "{\"name\": \"face\", \"duration\": 2, \"targets\": ["
    "{\"schema\": \"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", \"object\": 3, \"name\": \"head\"},"
    "{\"schema\": \"8E3A3B5B-2267-4E06-B94A-316746AB9F61\", \"object\": 3, \"name\": \"head\"}],"
    " \"samplers\": ["
    "{\"value\": {\"type\": \"FLOAT\", \"array_size\": 3}, \"interpolation\": \"LINEAR\","
    " \"times\": [0, 1, 2], \"values\": [0,0.5,1, 1,0.5,0, 0.25,0.25,0.25]},"
    "{\"value\": {\"type\": \"BOOL\"}, \"interpolation\": \"STEP\", \"times\": [0, 1],"
    " \"values\": [true, false]},"
    "{\"value\": {\"type\": \"FLOAT3\"}, \"interpolation\": \"CUBIC_SPLINE\", \"times\": [0.25, 2],"
    " \"values\": [0,0,0, 1,2,3, 0.5,0,0, 0,1,0, 4,5,6, 0,0,0]}],"
    " \"channels\": [{\"target\": 1, \"property\": 1, \"sampler\": 0},"
    " {\"target\": 0, \"property\": 4, \"sampler\": 1},"
    " {\"target\": 0, \"property\": 1, \"sampler\": 2}]}";

/* Random clips: a node with translation, rotation (unit keys) and scale, each interpolation. */
static void upload_random(unsigned seed)
{
	static const char *const interps[3] = {"STEP", "LINEAR", "CUBIC_SPLINE"};
	char doc[65536], *p = doc, name[32];
	int keys = 3 + (int)(seed % 6);
	const char *interp = interps[seed % 3];
	int cubic = seed % 3 == 2;

	srand(seed);
	snprintf(name, sizeof(name), "random %u", seed);
	p += sprintf(
	    p,
	    "{\"name\": \"%s\", \"duration\": %d, \"targets\": [{\"schema\": "
	    "\"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", \"object\": %u, \"name\": \"r%u\"}], "
	    "\"samplers\": [",
	    name, keys, 100 + seed, seed);
	for (int s = 0; s < 3; s++) {
		int comps = s == 1 ? 4 : 3;
		p += sprintf(p,
		             "%s{\"value\": {\"type\": \"FLOAT%d\"}, \"interpolation\": \"%s\", "
		             "\"times\": [",
		             s ? "," : "", comps, interp);
		for (int k = 0; k < keys; k++)
			p += sprintf(p, "%s%g", k ? "," : "", (double)k * 0.75 + 0.125 * (s == 0));
		p += sprintf(p, "], \"values\": [");
		for (int k = 0; k < keys * (cubic ? 3 : 1); k++) {
			float v[4];
			if (s == 1) { /* a unit quaternion */
				double a = (double)rand() / RAND_MAX * 3.0, l;
				v[0] = (float)((double)rand() / RAND_MAX - 0.5);
				v[1] = (float)((double)rand() / RAND_MAX - 0.5);
				v[2] = (float)((double)rand() / RAND_MAX - 0.5);
				l = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] +
				         (double)v[2] * v[2]);
				for (int i = 0; i < 3; i++)
					v[i] = (float)(v[i] / l * sin(a / 2));
				v[3] = (float)cos(a / 2);
				if (cubic && k % 3 != 1)
					v[0] = v[1] = v[2] = v[3] = 0;
			} else {
				for (int i = 0; i < 3; i++)
					v[i] = (float)((double)rand() / RAND_MAX * 4 - 2);
			}
			for (int i = 0; i < comps; i++)
				p += sprintf(p, "%s%.9g", k || i ? "," : "", (double)v[i]);
		}
		p += sprintf(p, "]}");
	}
	sprintf(p,
	        "], \"channels\": [{\"target\": 0, \"property\": 1, \"sampler\": 0}, {\"target\": "
	        "0, \"property\": 2, \"sampler\": 1}, {\"target\": 0, \"property\": 3, "
	        "\"sampler\": 2}]}");
	snprintf(name, sizeof(name), "random%u.json", seed);
	json_decref(upload(name, doc, strlen(doc)));
}

static void upload_fixtures(void)
{
	const char *fixtures = testutil_fixtures("export of the glTF fixtures");
	static const char *const files[] = {"BoxAnimated.gltf", "AnimatedTriangle.gltf",
	                                    "InterpolationTest.embedded-notextures.gltf"};
	char path[1024];

	if (!fixtures)
		return;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t len;
		char *data;
		snprintf(path, sizeof(path), "%s/gltf/%s", fixtures, files[i]);
		data = testutil_read_file(path, &len);
		if (!data) {
			printf("SKIP: export of %s: not in the fixtures\n", files[i]);
			continue;
		}
		json_decref(upload(files[i], data, len));
		free(data);
	}
}

static void start(void)
{
	char db[512];

	dir = testutil_temp_dir();
	snprintf(db, sizeof(db), "%s/export.db", dir);
	if (daemon_start(&d, db, "--max-samples 1000000") < 0)
		exit(1);
	snprintf(out_dir, sizeof(out_dir), "%s", testutil_export_folder("all"));
	upload_fixtures();
	upload_zouna();
	upload_burnout();
	json_decref(upload("face.json", radient_doc, strlen(radient_doc)));
	for (unsigned seed = 1; seed <= 6; seed++)
		upload_random(seed);
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

/* Samples of track n of an entry at the given times, as [[v...]...]. */
static json_t *samples(json_int_t id, json_int_t n, const float *times, size_t count)
{
	json_t *all = json_array();

	for (size_t at = 0; at < count; at += 150) {
		char *path = malloc(16384), *p = path;
		json_t *j;
		p += sprintf(p, "/api/resources/%lld/tracks/%lld/sample?t=", (long long)id,
		             (long long)n);
		for (size_t i = at; i < count && i < at + 150; i++)
			p += sprintf(p, "%s%.9g", i > at ? "," : "", (double)times[i]);
		j = http_get_json(&d, path, 200);
		json_array_extend(all, json_object_get(j, "values"));
		json_decref(j);
		free(path);
	}
	return all;
}

/* For a bulk export: the animations Blender must make, by name. */
static void write_expected_names(const char *file, const struct http_reply *r)
{
	uint32_t json_len;
	json_t *doc, *anim, *expected = json_pack("{s:[]}", "animations");
	size_t i;
	char *text;

	memcpy(&json_len, r->body + 12, 4);
	doc = json_loadb(r->body + 20, json_len, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	json_array_foreach(json_object_get(doc, "animations"), i, anim) json_array_append_new(
	    json_object_get(expected, "animations"),
	    json_pack("{s:O, s:[]}", "name", json_object_get(anim, "name"), "channels"));
	text = json_dumps(expected, JSON_COMPACT);
	testutil_write_export(file, text, strlen(text));
	free(text);
	json_decref(expected);
	json_decref(doc);
}

static int close_enough(double a, double b, double relative)
{
	return fabs(a - b) <= relative * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* 2,000 times for a track: its keys, half-way between them, around and past its range. */
static size_t probe_times(const json_t *keys, int zouna, float *out)
{
	json_t *times = json_object_get(keys, "times");
	size_t n = json_array_size(times), count = 0;
	float t0 = (float)json_number_value(json_array_get(times, 0));
	float t1 = (float)json_number_value(json_array_get(times, n - 1));

	for (size_t k = 0; k < n && count < 1000; k++) {
		out[count++] = (float)json_number_value(json_array_get(times, k));
		if (k + 1 < n)
			out[count++] = (float)((json_number_value(json_array_get(times, k)) +
			                        json_number_value(json_array_get(times, k + 1))) /
			                       2);
	}
	out[count++] = t1 + 0.5f;
	out[count++] = t1 * 2 + 1;
	if (t0 > 0)
		out[count++] = t0 / 2, out[count++] = 0;
	if (!zouna) /* glTF has no time before 0; Zouna tracks differ there (doc/formats.md 1.3) */
		out[count++] = -0.5f;
	while (count < 2000) {
		double u = (double)(count * 7919 % 2000) / 2000.0;
		out[count++] = (float)(u * ((double)t1 * 1.25 + 0.5));
	}
	return count;
}

/* Exports entry `id`, uploads the export back, and compares every exported track with the
 * original; writes FILE.glb and FILE.expected.json for the validator and Blender. */
static void round_trip(json_int_t id, int *tracks_compared, int *values_compared)
{
	char path[256], file[128];
	struct http_reply r;
	json_t *entry, *summary, *back, *back_entry, *expected, *anim_channels;
	json_int_t back_id;
	size_t i, next = 0;
	json_t *track;

	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)id);
	entry = http_get_json(&d, path, 200);
	snprintf(path, sizeof(path), "/api/resources/%lld/export?summary=1", (long long)id);
	summary = http_get_json(&d, path, 200);
	snprintf(path, sizeof(path), "/api/resources/%lld/export", (long long)id);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_msg(r.status == 200, "%s: %ld %.300s", path, r.status, r.body);
	ck_assert_msg(strstr(r.content_type, "model/gltf-binary"), "%s", r.content_type);
	ck_assert_msg(strstr(r.disposition, ".glb\""), "%s", r.disposition);
	snprintf(file, sizeof(file), "entry-%lld.glb", (long long)id);
	testutil_write_export(file, r.body, r.length);
	/* the asset says where it came from */
	{
		uint32_t json_len;
		json_t *doc;
		memcpy(&json_len, r.body + 12, 4);
		doc = json_loadb(r.body + 20, json_len, 0, NULL);
		ck_assert_ptr_nonnull(doc);
		ck_assert_msg(strncmp(json_string_value(json_object_get(
		                          json_object_get(doc, "asset"), "generator")),
		                      "animdex ", 8) == 0,
		              "generator");
		ck_assert_int_eq(
		    json_integer_value(json_object_get(
		        json_object_get(json_object_get(json_object_get(doc, "asset"), "extras"),
		                        "animdex"),
		        "entry")),
		    id);
		json_decref(doc);
	}
	if (json_integer_value(json_object_get(summary, "channels")) == 0) {
		/* nothing glTF animates: still a valid asset, which says so */
		ck_assert_ptr_nonnull(strstr(r.body + 20, "glTF can animate none"));
		http_reply_cleanup(&r);
		json_decref(entry);
		json_decref(summary);
		return;
	}
	back = upload(file, r.body, r.length);
	http_reply_cleanup(&r);
	ck_assert_uint_eq(json_array_size(back), 1);
	back_id = json_integer_value(json_array_get(back, 0));
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)back_id);
	back_entry = http_get_json(&d, path, 200);
	expected = json_pack("{s:[{s:O, s:[]}]}", "animations", "name",
	                     json_object_get(back_entry, "name"), "channels");
	anim_channels =
	    json_object_get(json_array_get(json_object_get(expected, "animations"), 0), "channels");
	json_array_foreach(json_object_get(entry, "tracks"), i, track)
	{
		json_int_t n = json_integer_value(json_object_get(track, "n"));
		const json_t *t = json_object_get(track, "target");
		int in_extras = 0, euler, zouna;
		json_t *keys, *back_keys, *a, *b, *back_track;
		float times[2100];
		size_t count, e;
		json_t *x;
		json_array_foreach(json_object_get(summary, "in_extras"), e, x) in_extras |=
		    json_integer_value(json_object_get(x, "track")) == n;
		if (in_extras)
			continue;
		back_track = json_array_get(json_object_get(back_entry, "tracks"), next);
		ck_assert_ptr_nonnull(back_track);
		euler = strcmp(json_string_value(json_object_get(t, "schema")), SCHEMA_ZOUNA) == 0;
		zouna = strcmp(json_string_value(json_object_get(entry, "family")), "zouna") == 0;
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/%lld/keys", (long long)id,
		         (long long)n);
		keys = http_get_json(&d, path, 200);
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/%zu/keys",
		         (long long)back_id, next);
		back_keys = http_get_json(&d, path, 200);
		count = probe_times(keys, zouna, times);
		a = samples(id, n, times, count);
		b = samples(back_id, (json_int_t)next, times, count);
		for (size_t k = 0; k < count; k++) {
			json_t *va = json_array_get(a, k), *vb = json_array_get(b, k);
			if (euler) { /* baked: compare as rotations at the keys */
				float e3[3], q[4];
				double cx, sx, cy, sy, cz, sz;
				if (k % 2 ||
				    k >= 2 * json_array_size(json_object_get(keys, "times")) - 1)
					continue;
				for (int c = 0; c < 3; c++)
					e3[c] = (float)json_number_value(json_array_get(va, c));
				cx = cos(e3[0] / 2.0), sx = sin(e3[0] / 2.0), cy = cos(e3[1] / 2.0);
				sy = sin(e3[1] / 2.0), cz = cos(e3[2] / 2.0), sz = sin(e3[2] / 2.0);
				q[0] = (float)(sx * cy * cz - cx * sy * sz);
				q[1] = (float)(cx * sy * cz + sx * cy * sz);
				q[2] = (float)(cx * cy * sz - sx * sy * cz);
				q[3] = (float)(cx * cy * cz + sx * sy * sz);
				{
					double dot = 0;
					for (int c = 0; c < 4; c++)
						dot +=
						    q[c] * json_number_value(json_array_get(vb, c));
					ck_assert_msg(fabs(fabs(dot) - 1) < 1e-5,
					              "entry %lld track %lld (Euler) t=%g: dot %g",
					              (long long)id, (long long)n, (double)times[k],
					              dot);
				}
				(*values_compared)++;
				continue;
			}
			ck_assert_uint_eq(json_array_size(va), json_array_size(vb));
			for (size_t c = 0; c < json_array_size(va); c++) {
				double x1 = json_number_value(json_array_get(va, c));
				double x2 = json_number_value(json_array_get(vb, c));
				ck_assert_msg(
				    close_enough(x1, x2, 1e-6),
				    "entry %lld track %lld (%s) t=%.9g [%zu]: %.9g, back %.9g",
				    (long long)id, (long long)n,
				    json_string_value(json_object_get(track, "name")),
				    (double)times[k], c, x1, x2);
				(*values_compared)++;
			}
		}
		/* keys bit for bit where nothing was converted (same count of keys, no quaternion
		 * normalising) */
		if (!euler && json_array_size(json_object_get(keys, "times")) ==
		                  json_array_size(json_object_get(back_keys, "times"))) {
			char *k1 = json_dumps(json_object_get(keys, "times"), JSON_COMPACT);
			char *k2 = json_dumps(json_object_get(back_keys, "times"), JSON_COMPACT);
			ck_assert_str_eq(k1, k2);
			free(k1);
			free(k2);
			if (strcmp(json_string_value(json_object_get(back_track, "property_name")),
			           "rotation") != 0) {
				k1 = json_dumps(json_object_get(keys, "values"), JSON_COMPACT);
				k2 = json_dumps(json_object_get(back_keys, "values"), JSON_COMPACT);
				ck_assert_str_eq(k1, k2);
				free(k1);
				free(k2);
			}
		}
		/* what Blender must show: node paths, at keys and half-way */
		{
			const char *prop =
			    json_string_value(json_object_get(back_track, "property_name"));
			if (prop && (strcmp(prop, "translation") == 0 ||
			             strcmp(prop, "rotation") == 0 || strcmp(prop, "scale") == 0)) {
				json_t *list = json_array();
				size_t nk = json_array_size(json_object_get(back_keys, "times"));
				for (size_t k = 0;
				     k < count && k < 2 * nk - 1 && json_array_size(list) < 60; k++)
					if (times[k] >= 0)
						json_array_append_new(
						    list,
						    json_pack("[f, O, b]", (double)times[k],
						              json_array_get(b, k),
						              k % 2 ==
						                  0)); /* a key time, or half-way */
				json_array_append_new(
				    anim_channels,
				    json_pack("{s:O, s:s, s:O, s:o}", "node",
				              json_object_get(json_object_get(back_track, "target"),
				                              "name"),
				              "path", prop, "interpolation",
				              json_object_get(back_track, "interpolation"),
				              "samples", list));
			}
		}
		(*tracks_compared)++;
		json_decref(keys);
		json_decref(back_keys);
		json_decref(a);
		json_decref(b);
		next++;
	}
	/* and every track kept in extras comes back too, after them, with its keys */
	ck_assert_uint_eq(next + json_array_size(json_object_get(summary, "in_extras")),
	                  json_array_size(json_object_get(back_entry, "tracks")));
	json_array_foreach(json_object_get(summary, "in_extras"), i, track)
	{
		json_t *keys, *back_keys;
		char *k1, *k2;
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/%lld/keys", (long long)id,
		         (long long)json_integer_value(json_object_get(track, "track")));
		keys = http_get_json(&d, path, 200);
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/%zu/keys",
		         (long long)back_id, next + i);
		back_keys = http_get_json(&d, path, 200);
		k1 = json_dumps(keys, JSON_COMPACT);
		k2 = json_dumps(back_keys, JSON_COMPACT);
		ck_assert_msg(json_object_get(keys, "events")
		                  ? json_equal(json_object_get(keys, "events"),
		                               json_object_get(back_keys, "events"))
		                  : json_equal(json_object_get(keys, "times"),
		                               json_object_get(back_keys, "times")) &&
		                        json_equal(json_object_get(keys, "values"),
		                                   json_object_get(back_keys, "values")),
		              "a track kept in extras came back otherwise: %.300s / %.300s", k1,
		              k2);
		free(k1);
		free(k2);
		json_decref(keys);
		json_decref(back_keys);
	}
	snprintf(file, sizeof(file), "entry-%lld.expected.json", (long long)id);
	{
		char *text = json_dumps(expected, JSON_COMPACT);
		testutil_write_export(file, text, strlen(text));
		free(text);
	}
	/* the import of the export is removed again, so that later exports do not take it in */
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)back_id);
	ck_assert_int_eq(http_request(&d, "DELETE", path, NULL, 0, NULL, &r), 0);
	http_reply_cleanup(&r);
	json_decref(expected);
	json_decref(back);
	json_decref(back_entry);
	json_decref(entry);
	json_decref(summary);
}

START_TEST(every_entry_exports_and_comes_back_the_same)
{
	json_t *list = http_get_json(&d, "/api/resources?limit=500", 200), *e;
	int tracks = 0, values = 0;
	size_t i;

	ck_assert_uint_ge(json_array_size(json_object_get(list, "resources")), 12);
	json_array_foreach(json_object_get(list, "resources"), i, e)
	    round_trip(json_integer_value(json_object_get(e, "id")), &tracks, &values);
	printf("export round trip: %zu entries, %d tracks, %d values compared\n",
	       json_array_size(json_object_get(list, "resources")), tracks, values);
	ck_assert_int_ge(tracks, 20);
	json_decref(list);
}
END_TEST

/* The mapping of what glTF cannot animate: extras with keys and reasons, a mesh for weights,
 * Euler rotations baked, shared nodes for one skeleton. */
START_TEST(the_mapping_keeps_everything)
{
	json_t *summary = http_get_json(&d, "/api/export?family=zouna&summary=1", 200), *x;
	struct http_reply r;
	json_t *doc;
	uint32_t json_len;
	size_t i;
	int material = 0, events = 0, bare = 0;

	json_array_foreach(json_object_get(summary, "in_extras"), i, x)
	{
		const char *reason = json_string_value(json_object_get(x, "reason"));
		material += strstr(reason, "material") != NULL;
		events += strstr(reason, "events") != NULL;
		bare += strstr(reason, "bare keyframer") != NULL;
	}
	ck_assert_int_ge(material, 2);
	ck_assert_int_eq(events, 1);
	ck_assert_int_eq(bare, 1);
	{
		char *notes = json_dumps(json_object_get(summary, "notes"), 0);
		ck_assert_ptr_nonnull(strstr(notes, "X, then Y"));
		free(notes);
	}
	json_decref(summary);
	/* the two animations of one skeleton share its two bone nodes */
	ck_assert_int_eq(http_request(&d, "GET", "/api/export?family=zouna", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	testutil_write_export("zouna.glb", r.body, r.length);
	write_expected_names("zouna.expected.json", &r);
	memcpy(&json_len, r.body + 12, 4);
	doc = json_loadb(r.body + 20, json_len, 0, NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "animations")), 2);
	{
		size_t bones = 0;
		json_array_foreach(json_object_get(doc, "nodes"), i, x) bones +=
		    strncmp(json_string_value(json_object_get(x, "name")), "bone 0x", 7) == 0;
		ck_assert_uint_eq(bones, 2);
	}
	/* the events and the material channel are in the first animation's extras, their keys
	 * in the buffer */
	ck_assert_ptr_nonnull(strstr(r.body + 20, "\"event_words\":[\"message_class\""));
	json_decref(doc);
	http_reply_cleanup(&r);
	/* morph weights need a mesh with as many morph targets */
	ck_assert_int_eq(
	    http_request(&d, "GET", "/api/export?name=face&format=gltf", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_msg(strstr(r.content_type, "model/gltf+json"), "%s", r.content_type);
	testutil_write_export("face.gltf", r.body, r.length);
	doc = json_loadb(r.body, r.length, 0, NULL);
	{
		json_t *mesh = json_array_get(json_object_get(doc, "meshes"), 0);
		json_t *primitive = json_array_get(json_object_get(mesh, "primitives"), 0);
		ck_assert_uint_eq(json_array_size(json_object_get(primitive, "targets")), 3);
	}
	ck_assert_ptr_nonnull(strstr(r.body, "visibility"));
	ck_assert_ptr_nonnull(strstr(r.body, "data:application/octet-stream;base64,"));
	json_decref(doc);
	http_reply_cleanup(&r);
	/* everything in one request, and with the command line */
	ck_assert_int_eq(http_request(&d, "GET", "/api/export", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	testutil_write_export("everything.glb", r.body, r.length);
	write_expected_names("everything.expected.json", &r);
	http_reply_cleanup(&r);
	{
		char cmd[2048];
		int status;
		snprintf(cmd, sizeof(cmd),
		         "'%s' export --db '%s' --quiet -o '%s/cli-everything.glb'",
		         getenv("ANIMDEXD"), d.db, out_dir);
		status = system(cmd);
		ck_assert_int_eq(status, 0);
		snprintf(cmd, sizeof(cmd), "%s/cli-everything.glb", out_dir);
		r.body = testutil_read_file(cmd, &r.length);
		ck_assert_ptr_nonnull(r.body);
		write_expected_names("cli-everything.expected.json", &r);
		free(r.body);
		/* an entry that cannot be read stops the export, named, after those before it
		 * were read ahead */
		snprintf(cmd, sizeof(cmd),
		         "'%s' export --db '%s' --quiet --id 1 --id 2 --id 999999 -o "
		         "'%s/cli-missing.glb' 2>'%s/cli-missing.err'",
		         getenv("ANIMDEXD"), d.db, out_dir, out_dir);
		status = system(cmd);
		ck_assert_int_ne(status, 0);
		snprintf(cmd, sizeof(cmd), "%s/cli-missing.err", out_dir);
		r.body = testutil_read_file(cmd, &r.length);
		ck_assert_msg(r.body && strstr(r.body, "no resource has id 999999"), "%s",
		              r.body ? r.body : "(no message)");
		free(r.body);
		snprintf(cmd, sizeof(cmd), "%s/cli-missing.err", out_dir);
		remove(cmd);
	}
}
END_TEST

/* The kept track of entry id numbered n in the asset's extras, or NULL. */
static json_t *kept_track(json_t *doc, json_int_t id, json_int_t n)
{
	static const char *const lists[] = {"animations", "nodes"};
	size_t i, k;
	json_t *item, *kept;

	for (int l = 0; l < 2; l++)
		json_array_foreach(json_object_get(doc, lists[l]), i, item)
		{
			json_t *about = json_object_get(json_object_get(item, "extras"), "animdex");
			if (json_integer_value(json_object_get(about, "entry")) != id)
				continue;
			json_array_foreach(
			    json_object_get(about, "not_animated"), k,
			    kept) if (json_integer_value(json_object_get(kept, "track")) ==
			              n) return kept;
		}
	return NULL;
}

/* Accessor `index` of a .gltf whose buffer 0 (its data URI) is `bin`: its bytes, count and
 * component type (a SCALAR accessor, as kept tracks have them). */
static const uint8_t *accessor_data(json_t *doc, const uint8_t *bin, size_t bin_length,
                                    json_int_t index, size_t *count, int *component_type)
{
	json_t *acc = json_array_get(json_object_get(doc, "accessors"), (size_t)index);
	json_t *view =
	    json_array_get(json_object_get(doc, "bufferViews"),
	                   (size_t)json_integer_value(json_object_get(acc, "bufferView")));
	size_t offset = (size_t)json_integer_value(json_object_get(view, "byteOffset"));
	size_t length = (size_t)json_integer_value(json_object_get(view, "byteLength"));

	ck_assert_ptr_nonnull(acc);
	ck_assert_str_eq(json_string_value(json_object_get(acc, "type")), "SCALAR");
	ck_assert_uint_le(offset + length, bin_length);
	*count = (size_t)json_integer_value(json_object_get(acc, "count"));
	*component_type = (int)json_integer_value(json_object_get(acc, "componentType"));
	ck_assert_uint_eq(length, *count * (*component_type == 5121 ? 1 : 4));
	return bin + offset;
}

/* Component k of a kept accessor as a number: FLOAT, UNSIGNED_INT (an INT track's as its two's
 * complement, when `signed_int`) or UNSIGNED_BYTE. */
static double accessor_number(const uint8_t *data, int component_type, size_t k, int signed_int)
{
	float f;
	uint32_t u;

	if (component_type == 5121)
		return data[k];
	memcpy(&u, data + 4 * k, 4);
	if (component_type == 5126) {
		memcpy(&f, &u, 4);
		return f;
	}
	return signed_int ? (double)(int32_t)u : (double)u;
}

/* A JSON number, or a boolean as 0 and 1. */
static double number_of(const json_t *v)
{
	return json_is_boolean(v) ? (json_is_true(v) ? 1 : 0) : json_number_value(v);
}

/* Every track the summary says is kept in extras is there, in its entry's extras, with its
 * number, name and reason, its type, interpolation and key count, and its keys in the buffer
 * as two accessors ("input": the times, "output": every key's components in order, a cubic
 * key's in-tangent, value and out-tangent): the keys the keys route gives, or the events it
 * lists (five words a key). */
START_TEST(kept_tracks_carry_their_keys)
{
	json_t *summary = http_get_json(&d, "/api/export?summary=1", 200), *x;
	struct http_reply r;
	json_t *doc;
	size_t i, with_keys = 0, with_events = 0, bin_length = 0;
	const char *uri;
	uint8_t *bin;

	ck_assert_int_eq(http_request(&d, "GET", "/api/export?format=gltf", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	doc = json_loadb(r.body, r.length, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	uri = json_string_value(
	    json_object_get(json_array_get(json_object_get(doc, "buffers"), 0), "uri"));
	ck_assert_ptr_nonnull(uri);
	uri = strchr(uri, ',') + 1;
	bin = base64_decode(uri, strlen(uri), &bin_length, NULL);
	ck_assert_ptr_nonnull(bin);
	json_array_foreach(json_object_get(summary, "in_extras"), i, x)
	{
		json_int_t id = json_integer_value(json_object_get(x, "entry"));
		json_int_t n = json_integer_value(json_object_get(x, "track"));
		json_t *kept = kept_track(doc, id, n), *keys, *expected;
		size_t times_count, values_count, key_count;
		int times_type, values_type, signed_int;
		const uint8_t *times, *values;
		char path[128];
		ck_assert_msg(kept != NULL, "entry %lld track %lld is not in the extras",
		              (long long)id, (long long)n);
		ck_assert(json_equal(json_object_get(kept, "name"), json_object_get(x, "name")));
		ck_assert(
		    json_equal(json_object_get(kept, "reason"), json_object_get(x, "reason")));
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/%lld/keys", (long long)id,
		         (long long)n);
		keys = http_get_json(&d, path, 200);
		times = accessor_data(doc, bin, bin_length,
		                      json_integer_value(json_object_get(kept, "input")),
		                      &times_count, &times_type);
		values = accessor_data(doc, bin, bin_length,
		                       json_integer_value(json_object_get(kept, "output")),
		                       &values_count, &values_type);
		key_count = (size_t)json_integer_value(json_object_get(kept, "key_count"));
		ck_assert_int_eq(times_type, 5126);
		ck_assert_uint_eq(times_count, key_count);
		if (json_object_get(keys, "events")) {
			json_t *events = json_object_get(keys, "events"), *e;
			size_t k;
			ck_assert_ptr_nonnull(json_object_get(kept, "event_words"));
			ck_assert_uint_eq(json_array_size(events), key_count);
			ck_assert_uint_eq(values_count, key_count * 5);
			ck_assert_int_eq(values_type, 5125);
			json_array_foreach(events, k, e)
			{
				uint32_t receiver, message_id;
				ck_assert(hash_parse_handle(
				              json_string_value(json_object_get(e, "receiver")),
				              &receiver) == 0);
				ck_assert(hash_parse_handle(
				              json_string_value(json_object_get(e, "message_id")),
				              &message_id) == 0);
				ck_assert(accessor_number(times, 5126, k, 0) ==
				          json_number_value(json_object_get(e, "time")));
				ck_assert(accessor_number(values, 5125, k * 5, 0) ==
				          number_of(json_object_get(e, "message_class")));
				ck_assert(accessor_number(values, 5125, k * 5 + 1, 0) == receiver);
				ck_assert(accessor_number(values, 5125, k * 5 + 2, 0) ==
				          number_of(json_object_get(e, "c")));
				ck_assert(accessor_number(values, 5126, k * 5 + 3, 0) ==
				          number_of(json_object_get(e, "parameter")));
				ck_assert(accessor_number(values, 5125, k * 5 + 4, 0) ==
				          message_id);
			}
			with_events++;
			json_decref(keys);
			continue;
		}
		ck_assert(json_equal(json_object_get(kept, "type"), json_object_get(keys, "type")));
		ck_assert(json_equal(json_object_get(kept, "interpolation"),
		                     json_object_get(keys, "interpolation")));
		ck_assert_uint_eq(json_array_size(json_object_get(keys, "times")), key_count);
		for (size_t k = 0; k < key_count; k++)
			ck_assert(
			    accessor_number(times, 5126, k, 0) ==
			    json_number_value(json_array_get(json_object_get(keys, "times"), k)));
		expected = json_array();
		for (size_t k = 0; k < key_count; k++) {
			if (json_object_get(keys, "in_tangents")) {
				json_array_extend(
				    expected,
				    json_array_get(json_object_get(keys, "in_tangents"), k));
				json_array_extend(
				    expected, json_array_get(json_object_get(keys, "values"), k));
				json_array_extend(
				    expected,
				    json_array_get(json_object_get(keys, "out_tangents"), k));
			} else {
				json_t *v = json_array_get(json_object_get(keys, "values"), k);
				if (json_is_array(v))
					json_array_extend(expected, v);
				else
					json_array_append(expected, v);
			}
		}
		ck_assert_uint_eq(values_count, json_array_size(expected));
		signed_int =
		    strncmp(json_string_value(json_object_get(kept, "type")), "INT", 3) == 0;
		for (size_t k = 0; k < values_count; k++)
			ck_assert_msg(accessor_number(values, values_type, k, signed_int) ==
			                  number_of(json_array_get(expected, k)),
			              "entry %lld track %lld: kept value %zu differs from the keys",
			              (long long)id, (long long)n, k);
		with_keys++;
		json_decref(expected);
		json_decref(keys);
	}
	ck_assert_uint_ge(with_keys, 3);
	ck_assert_uint_ge(with_events, 1);
	free(bin);
	json_decref(doc);
	http_reply_cleanup(&r);
	json_decref(summary);
}
END_TEST

START_TEST(bad_export_requests)
{
	static const char *const bad[][2] = {
	    {"/api/resources/999/export", "404"},
	    {"/api/resources/1/export?format=fbx", "400"},
	    {"/api/resources/1/export?bake=0", "400"},
	    {"/api/export?ids=1,x", "400"},
	    {"/api/export?crc32=zz", "400"},
	    {"/api/export?ids=999", "404"},
	};
	struct http_reply r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(http_request(&d, "GET", bad[i][0], NULL, 0, NULL, &r), 0);
		ck_assert_msg(r.status == atol(bad[i][1]) && strstr(r.body, "\"error\""),
		              "%s: %ld %s", bad[i][0], r.status, r.body);
		http_reply_cleanup(&r);
	}
}
END_TEST

/* An asset built with hold_bytes, read whole in blocks of `block` bytes; its length in
 * *length (and what its plan said). */
static char *asset_bytes(struct catalog *cat, const int64_t *ids, size_t count, int glb,
                         size_t hold, size_t block, size_t *length, uint64_t *planned)
{
	struct export_options opt = {.glb = glb, .bake_rate = 30, .hold_bytes = hold};
	struct exporter *ex = exporter_create(&opt);
	struct export_asset *a;
	struct error err;
	json_t *summary;
	char *bytes = NULL;
	size_t at = 0;
	long n;

	error_init(&err);
	ck_assert_ptr_nonnull(ex);
	for (size_t i = 0; i < count; i++)
		ck_assert_msg(exporter_add(ex, cat, ids[i], &err) == 0, "%s", err.message);
	a = exporter_finish(ex, &summary, &err);
	ck_assert_msg(a != NULL, "%s", err.message);
	exporter_free(ex);
	json_decref(summary);
	*planned = export_asset_length(a);
	bytes = malloc((size_t)*planned + block);
	ck_assert_ptr_nonnull(bytes);
	while ((n = export_asset_read(a, cat, bytes + at, block, &err)) > 0)
		at += (size_t)n;
	ck_assert_msg(n == 0, "%s", err.message);
	export_asset_free(a);
	*length = at;
	return bytes;
}

/* An asset whose buffer is made again from the catalogue as it is sent (larger than what is
 * held) is byte for byte the one whose buffer is held, in .glb and .gltf, one entry or all,
 * read in blocks of any size; its length is the one planned. */
START_TEST(an_asset_made_again_is_the_asset_held)
{
	char db[600];
	struct catalog *cat;
	struct catalog_query q = {0};
	struct error err;
	int64_t *ids;
	size_t count, compared = 0;
	static const size_t blocks[] = {1, 3, 1000, 131072};

	error_init(&err);
	snprintf(db, sizeof(db), "%s/export.db", dir);
	cat = catalog_open_read_only(db, &err);
	ck_assert_msg(cat != NULL, "%s", err.message);
	ck_assert_int_eq(catalog_select_matching(cat, &q, 1000, &ids, &count, &err), 0);
	ck_assert_uint_ge(count, 12);
	for (size_t i = 0; i <= count; i++) {
		const int64_t *these = i < count ? &ids[i] : ids;
		size_t how_many = i < count ? 1 : count;
		for (int glb = 0; glb <= 1; glb++) {
			size_t held_length, again_length;
			uint64_t held_plan, again_plan;
			size_t block = blocks[(i + (size_t)glb) % 4];
			char *held = asset_bytes(cat, these, how_many, glb, 0, 131072, &held_length,
			                         &held_plan);
			char *again = asset_bytes(cat, these, how_many, glb, 1, block,
			                          &again_length, &again_plan);
			ck_assert_uint_eq(held_length, held_plan);
			ck_assert_uint_eq(again_length, again_plan);
			ck_assert_uint_eq(held_length, again_length);
			ck_assert_msg(memcmp(held, again, held_length) == 0,
			              "entry %zu (%s): the asset made again differs", i,
			              glb ? "glb" : "gltf");
			compared += held_length;
			free(held);
			free(again);
		}
	}
	printf("note: %zu assets made again from the catalogue, %zu bytes, the same as held\n",
	       2 * (count + 1), compared);
	free(ids);
	catalog_close(cat);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("glTF");

	tcase_add_unchecked_fixture(tc, start, stop);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, every_entry_exports_and_comes_back_the_same);
	tcase_add_test(tc, the_mapping_keeps_everything);
	tcase_add_test(tc, kept_tracks_carry_their_keys);
	tcase_add_test(tc, bad_export_requests);
	tcase_add_test(tc, an_asset_made_again_is_the_asset_held);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
