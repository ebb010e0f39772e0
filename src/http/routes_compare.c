/* routes_compare.c: GET /api/compare?a=ID&b=ID: how two entries' tracks differ (two versions of
 * a resource, say). Tracks are paired by schema, target (its handle, else its name, else its
 * object) and property, in order; a track left over is paired, as native matches a glTF node to
 * a Zouna bone, with one of the other side's of the same schema, property and named handle (a
 * Zouna handle, a "0x..." in a name, or a name's Asobo32 hash); each pair says how it was made;
 * each pair is compared by compare.c over `count` times (1001 by default); the tracks one side has
 * and the other lacks are listed. JSON, or format=csv: a row a pair and component. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "answers/entry_json.h"
#include "base/hash.h"
#include "core/compare.h"
#include "http/http.h"
#include "render/render.h"

#define DEFAULT_COUNT 1001
/* about the bytes a track of either side holds while the answer is made: its target in the
 * entry's tree, its row (a pair's, or the list of one side's) as JSON and as text (measured:
 * an entry of 20,000 tracks compared with itself took 111 MB; this says 123 MB) */
#define COMPARE_TRACK_BYTES 3072

/* ?name=ID: 0, or -1 with err naming it. */
static int entry_arg(struct request *req, const char *name, int64_t *id, struct error *err)
{
	const char *text = request_arg(req, name);
	uint64_t v;

	if (!text || route_decimal(text, INT64_MAX, &v) < 0 || v == 0) {
		error_set(err, ERROR_BAD_PARAMETER, name, -1,
		          "%s: '%.40s' is not an entry id (1, 2, 3...); compare takes a=ID&b=ID",
		          name, text ? text : "");
		return -1;
	}
	*id = (int64_t)v;
	return 0;
}

/* What pairs a track with its counterpart: schema, target, property. */
static void pair_key(const struct catalog_target *track, char *out, size_t size)
{
	const struct pose_target *t = &track->target;

	if (t->has_handle)
		snprintf(out, size, "%s|h:%08" PRIX32 "|%" PRIu64, t->schema, t->handle,
		         t->property);
	else if (t->name)
		snprintf(out, size, "%s|n:%s|%" PRIu64, t->schema, t->name, t->property);
	else
		snprintf(out, size, "%s|o:%" PRIu64 "|%" PRIu64, t->schema, t->object, t->property);
}

/* The handle a track's target names, as native matches a track to a bone: a Zouna target's
 * handle; else a "0x1234ABCD" in its name; else its name hashed (Asobo32, the engine's hash of
 * a bone's name). 0, or -1 when it names none; *how says which. */
static int named_handle(const struct catalog_target *track, uint32_t *handle, const char **how)
{
	const struct pose_target *t = &track->target;
	int written;

	if (t->has_handle) {
		*handle = t->handle;
		*how = "its handle";
		return 0;
	}
	written = hash_named_handle(t->name, handle);
	*how = written ? "the handle written in its name" : "its name's hash (Asobo32)";
	return written < 0 ? -1 : 0;
}

static int euler_rotation(const struct pose_target *t)
{
	return strcmp(t->schema, SCHEMA_ZOUNA) == 0 && t->property == ZOUNA_EULER_ROTATION;
}

static int node_rotation(const struct pose_target *t)
{
	return strcmp(t->schema, SCHEMA_NODE) == 0 && t->property == NODE_ROTATION;
}

/* Whether two tracks left unpaired move one bone by native's rule (the same schema and
 * property, and one handle named: a glTF node's name hashes to a Zouna bone's handle); why. */
static int same_bone(const struct catalog_target *a, const struct catalog_target *b, char *why,
                     size_t size)
{
	uint32_t ha, hb;
	const char *how_a, *how_b;

	/* a bezierRot's Euler angles and the rotation its export baked them into */
	int euler = (euler_rotation(&a->target) && node_rotation(&b->target)) ||
	            (node_rotation(&a->target) && euler_rotation(&b->target));

	if ((!euler && (strcmp(a->target.schema, b->target.schema) != 0 ||
	                a->target.property != b->target.property)) ||
	    named_handle(a, &ha, &how_a) < 0 || named_handle(b, &hb, &how_b) < 0 || ha != hb)
		return 0;
	if (euler) {
		snprintf(why, size,
		         "by handle, as native matches them (0x%08" PRIX32 "): a by %s, b by %s; "
		         "the Euler rotation and the rotation an export bakes it into",
		         ha, how_a, how_b);
		return 1;
	}
	snprintf(why, size, "by handle, as native matches them (0x%08" PRIX32 "): a by %s, b by %s",
	         ha, how_a, how_b);
	return 1;
}

/* Whether b's track has a track of a of its own target and property (it waits for that). */
static int exact_partner(const struct catalog_target *track, const json_t *a_keys)
{
	char key[400];

	pair_key(track, key, sizeof(key));
	return json_object_get(a_keys, key) != NULL;
}

static json_t *doubles(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

/* One pair compared: its JSON. NULL with err set when a track cannot be read. */
static json_t *compare_pair(struct catalog *cat, int64_t a, int64_t b,
                            const struct catalog_target *ta, const struct catalog_target *tb,
                            size_t count, struct error *err)
{
	unsigned na = ta->n, nb = tb->n;
	struct catalog_track x, y;
	struct compare_result r;
	const char *unfit;
	json_t *row;

	if (catalog_read_track(cat, a, na, &x, err) < 0)
		return NULL;
	if (catalog_read_track(cat, b, nb, &y, err) < 0) {
		catalog_track_cleanup(&x);
		return NULL;
	}
	row = json_pack("{s:I, s:I, s:o, s:o}", "a", (json_int_t)na, "b", (json_int_t)nb, "name",
	                entry_json_text(ta->name), "target", entry_json_target(ta));
	unfit = x.events != y.events ? "one track holds events, the other values"
	        : x.events           ? NULL
	                             : compare_unfit(&x.sampler, &y.sampler);
	if (unfit) {
		json_object_set_new(row, "reason", json_string(unfit));
	} else if (compare_samplers(&x.sampler, &y.sampler, x.events ? 0 : count, &r) < 0) {
		json_decref(row);
		row = NULL;
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	} else if (x.events && !r.identical) {
		/* events are compared by their keys alone: said, not measured */
		json_object_set_new(row, "identical", json_false());
		json_object_set_new(row, "reason",
		                    json_string("events differ; they are compared "
		                                "by their keys only"));
	} else {
		json_object_set_new(row, "identical", json_boolean(r.identical));
		json_object_set_new(row, "keys",
		                    json_pack("{s:I, s:I, s:b, s:b}", "a",
		                              (json_int_t)x.sampler.key_count, "b",
		                              (json_int_t)y.sampler.key_count, "times_equal",
		                              r.times_equal, "values_equal", r.values_equal));
		json_object_set_new(row, "compared_as",
		                    json_string(r.as_angle ? "angle (radians)" : "components"));
		json_object_set_new(row, "largest", doubles(r.largest, r.components));
		json_object_set_new(row, "at", doubles(r.at, r.components));
		json_object_set_new(row, "rms", doubles(r.rms, r.components));
		if (!r.identical)
			json_object_set_new(row, "sampled", json_integer((json_int_t)r.count));
	}
	catalog_track_cleanup(&x);
	catalog_track_cleanup(&y);
	return row;
}

static json_t *only(const struct catalog_target *track)
{
	return json_pack("{s:I, s:o, s:o}", "n", (json_int_t)track->n, "name",
	                 entry_json_text(track->name), "target", entry_json_target(track));
}

/* The pairs and the tracks left over, into answer; -1 with err set. */
static int pair_tracks(struct catalog *cat, const struct catalog_entry *ea,
                       const struct catalog_entry *eb, size_t count, json_t *answer,
                       struct error *err)
{
	size_t nb = eb->track_count;
	unsigned char *taken = calloc(nb + 1, 1);
	json_t *waiting = json_object(); /* each key of b: its tracks' indices not paired yet */
	json_t *a_keys = json_object();  /* a's keys: a track of b with one waits for it */
	json_t *pairs = json_object_get(answer, "pairs");
	char key[400];

	if (!taken || !waiting || !a_keys) {
		free(taken);
		json_decref(waiting);
		json_decref(a_keys);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < nb; i++) {
		json_t *list;
		pair_key(&eb->tracks[i], key, sizeof(key));
		if (!(list = json_object_get(waiting, key)))
			json_object_set_new(waiting, key, list = json_array());
		json_array_append_new(list, json_integer((json_int_t)i));
	}
	for (size_t i = 0; i < ea->track_count; i++) {
		pair_key(&ea->tracks[i], key, sizeof(key));
		json_object_set_new(a_keys, key, json_true());
	}
	for (size_t i = 0; i < ea->track_count; i++) {
		const struct catalog_target *track = &ea->tracks[i];
		json_t *list, *row;
		size_t j;
		char why[256];
		pair_key(track, key, sizeof(key));
		list = json_object_get(waiting, key);
		if (json_array_size(list) > 0) {
			j = (size_t)json_integer_value(json_array_get(list, 0)); /* in order */
			json_array_remove(list, 0);
			snprintf(why, sizeof(why), "by target and property");
		} else { /* another family's track of the same bone: native's rule */
			for (j = 0; j < nb; j++)
				if (!taken[j] && !exact_partner(&eb->tracks[j], a_keys) &&
				    same_bone(track, &eb->tracks[j], why, sizeof(why)))
					break;
			if (j == nb) {
				json_array_append_new(json_object_get(answer, "only_in_a"),
				                      only(track));
				continue;
			}
		}
		taken[j] = 1;
		row = compare_pair(cat, ea->id, eb->id, track, &eb->tracks[j], count, err);
		if (!row) {
			free(taken);
			json_decref(waiting);
			json_decref(a_keys);
			return -1;
		}
		json_object_set_new(row, "paired", json_string(why));
		json_array_append_new(pairs, row);
	}
	for (size_t k = 0; k < nb; k++)
		if (!taken[k])
			json_array_append_new(json_object_get(answer, "only_in_b"),
			                      only(&eb->tracks[k]));
	free(taken);
	json_decref(waiting);
	json_decref(a_keys);
	return 0;
}

/* A name as one CSV field: quoted, its quotes doubled. */
static void csv_field(struct buf *b, const char *text)
{
	buf_putc(b, '"');
	for (const char *p = text ? text : ""; *p; p++) {
		if (*p == '"')
			buf_putc(b, '"');
		buf_putc(b, *p);
	}
	buf_putc(b, '"');
}

/* format=csv: a row a pair and component ("angle" for a rotation, "all" for identical
 * tracks); pairs that could not be compared, and tracks on one side only, say so. */
static void answer_csv(struct response *resp, const json_t *answer)
{
	static const char *const sides[2] = {"only_in_a", "only_in_b"};
	struct buf b;
	size_t i, len;
	json_t *row;
	char *body;

	buf_init(&b, (size_t)64 << 20);
	buf_puts(&b, "a_track,b_track,name,component,largest,at,rms,identical\n");
	json_array_foreach(json_object_get(answer, "pairs"), i, row)
	{
		const json_t *largest = json_object_get(row, "largest");
		int identical = json_is_true(json_object_get(row, "identical"));
		const char *as = json_string_value(json_object_get(row, "compared_as"));
		size_t n = largest ? json_array_size(largest) : 1;
		for (size_t c = 0; c < n; c++) {
			buf_printf(&b, "%lld,%lld,",
			           (long long)json_integer_value(json_object_get(row, "a")),
			           (long long)json_integer_value(json_object_get(row, "b")));
			csv_field(&b, json_string_value(json_object_get(row, "name")));
			if (!largest) {
				buf_puts(&b, ",,,,,not compared\n");
				continue;
			}
			if (identical)
				buf_puts(&b, ",all");
			else if (as && strcmp(as, "angle (radians)") == 0)
				buf_puts(&b, ",angle");
			else
				buf_printf(&b, ",%zu", c);
			buf_printf(
			    &b, ",%.9g,%.9g,%.9g,%s\n",
			    json_number_value(json_array_get(largest, c)),
			    json_number_value(json_array_get(json_object_get(row, "at"), c)),
			    json_number_value(json_array_get(json_object_get(row, "rms"), c)),
			    identical ? "yes" : "no");
		}
	}
	for (int side = 0; side < 2; side++)
		json_array_foreach(json_object_get(answer, sides[side]), i, row)
		{
			long long n = json_integer_value(json_object_get(row, "n"));
			buf_printf(&b, side ? ",%lld," : "%lld,,", n);
			csv_field(&b, json_string_value(json_object_get(row, "name")));
			buf_printf(&b, ",,,,,%s\n", sides[side]);
		}
	body = buf_steal(&b, &len);
	response_take(resp, 200, "text/csv", body ? body : strdup(""), body ? len : 0);
}

void route_compare(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	const char *format = request_arg(req, "format"), *count_text = request_arg(req, "count");
	struct catalog_entry ea = {0}, eb = {0};
	json_t *answer = NULL;
	struct error err;
	int64_t a, b;
	unsigned count = DEFAULT_COUNT;
	struct catalog_weight wa, wb;

	error_init(&err);
	if (!cat)
		return;
	if (entry_arg(req, "a", &a, &err) < 0 || entry_arg(req, "b", &b, &err) < 0)
		goto fail;
	if (format && strcasecmp(format, "json") != 0 && strcasecmp(format, "csv") != 0) {
		error_set(&err, ERROR_BAD_PARAMETER, "format", -1,
		          "format: '%.40s' is not json or csv", format);
		goto fail;
	}
	if (count_text && (route_index(count_text, "count", "a number of times, 2 or more",
	                               UINT32_MAX, &count, &err) < 0))
		goto fail;
	if (count < 2) {
		error_set(&err, ERROR_BAD_PARAMETER, "count", -1,
		          "count: %u is not a number of times, 2 or more", count);
		goto fail;
	}
	/* bounded before anything is read, as sampling is: each pair samples both its tracks
	 * count times, and every track of either side is listed (both sides counted) */
	if (catalog_entry_weight(cat, a, &wa, &err) < 0 ||
	    catalog_entry_weight(cat, b, &wb, &err) < 0)
		goto fail;
	if ((uint64_t)(wa.tracks + wb.tracks) * count > req->config->max_samples) {
		error_set(&err, ERROR_BAD_PARAMETER, "count", -1,
		          "count: %u times for the tracks of both entries (%lld in a, %lld in b) "
		          "is more than the %u samples one request may ask for (--max-samples)",
		          count, (long long)wa.tracks, (long long)wb.tracks,
		          req->config->max_samples);
		goto fail;
	}
	/* the two entries' tracks and the answer's rows, held while it is made */
	if (request_reserve(req, (size_t)(wa.tracks + wb.tracks) * COMPARE_TRACK_BYTES,
	                    "the comparison", &err) < 0)
		goto fail;
	if (catalog_entry_read(cat, a, CATALOG_ENTRY_TRACKS, &ea, &err) < 0 ||
	    catalog_entry_read(cat, b, CATALOG_ENTRY_TRACKS, &eb, &err) < 0)
		goto fail;
	answer = json_pack("{s:{s:I, s:o, s:o}, s:{s:I, s:o, s:o}, s:I, s:[], s:[], s:[]}", "a",
	                   "id", (json_int_t)a, "name", entry_json_text(ea.name), "class",
	                   entry_json_text(ea.class_name), "b", "id", (json_int_t)b, "name",
	                   entry_json_text(eb.name), "class", entry_json_text(eb.class_name),
	                   "count", (json_int_t)count, "pairs", "only_in_a", "only_in_b");
	if (!answer || pair_tracks(cat, &ea, &eb, count, answer, &err) < 0)
		goto fail;
	{
		size_t i;
		json_t *row;
		int same = json_array_size(json_object_get(answer, "only_in_a")) == 0 &&
		           json_array_size(json_object_get(answer, "only_in_b")) == 0;
		json_array_foreach(json_object_get(answer, "pairs"), i, row) same &=
		    json_is_true(json_object_get(row, "identical"));
		json_object_set_new(answer, "identical", json_boolean(same));
	}
	catalog_entry_cleanup(&ea);
	catalog_entry_cleanup(&eb);
	if (format && strcasecmp(format, "csv") == 0) {
		answer_csv(resp, answer);
		json_decref(answer);
	} else {
		response_json(resp, 200, answer);
	}
	return;
fail:
	catalog_entry_cleanup(&ea);
	catalog_entry_cleanup(&eb);
	json_decref(answer);
	response_error(resp, &err);
}
