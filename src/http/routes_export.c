/* routes_export.c: entries as glTF 2.0 (GET /api/resources/{id}/export, GET /api/export).
 *
 * format=glb (default) or gltf; bake=N samples a second for Euler rotations (default 30);
 * summary=1 answers what the asset would hold, as JSON, instead of the asset. GET /api/export
 * with retarget=1 puts every entry on skeleton=ID through a bone map (routes_retarget.c's
 * parameters), each made again as a large asset is sent. The answer's
 * X-Animdex-Extras header counts the tracks kept in extras (glTF cannot animate them).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/export.h"
#include "answers/reduce_answer.h"
#include "answers/retarget_answer.h"
#include "base/hash.h"
#include "http/http.h"

int route_export_options(struct request *req, struct export_options *opt, int *summary,
                         struct error *err)
{
	const char *format = request_arg(req, "format"), *bake = request_arg(req, "bake");
	const char *want_summary = request_arg(req, "summary");

	memset(opt, 0, sizeof(*opt));
	opt->glb = 1;
	opt->bake_rate = EXPORT_DEFAULT_BAKE_RATE;
	/* the buffer held while an asset is made: an eighth of the answer memory at most, so
	 * that exports side by side keep within it (a larger one is made again as it is sent) */
	opt->hold_bytes = req->config->answer_memory / 8 < EXPORT_DEFAULT_HOLD_BYTES
	                      ? req->config->answer_memory / 8 + 1
	                      : EXPORT_DEFAULT_HOLD_BYTES;
	if (format && strcmp(format, "glb") != 0 && strcmp(format, "gltf") != 0) {
		error_set(err, ERROR_BAD_PARAMETER, "format", -1,
		          "format: '%s' is not glb or gltf (the glTF 2.0 binary or JSON file)",
		          format);
		return -1;
	}
	opt->glb = !format || strcmp(format, "glb") == 0;
	if (bake && export_parse_bake_rate(bake, &opt->bake_rate) < 0) {
		error_set(
		    err, ERROR_BAD_PARAMETER, "bake", -1,
		    "bake: '%s' is not a number of samples a second above 0 and at most 1000, "
		    "in decimal digits (30, 29.97; Euler rotations are baked at that rate)",
		    bake);
		return -1;
	}
	*summary = want_summary && strcmp(want_summary, "0") != 0 && strcmp(want_summary, "") != 0;
	return 0;
}

/* An asset on its way out: read as it is sent, from the connection's thread. */
struct export_stream {
	struct export_asset *asset;
	struct catalog_pool *pool;
};

static long export_fill(void *state, char *out, size_t room)
{
	struct export_stream *es = state;
	struct catalog *cat;
	struct error err;
	long n;

	error_init(&err);
	cat = catalog_pool_get(es->pool, &err);
	n = cat ? export_asset_read(es->asset, cat, out, room, &err) : -1;
	if (n < 0) /* the length is promised: the connection ends short */
		fprintf(stderr, "animdexd: an export stopped while it was sent: %s\n", err.message);
	return n;
}

static void export_release(void *state)
{
	struct export_stream *es = state;

	export_asset_free(es->asset);
	free(es);
}

/* HEAD and summary=1 need what the asset holds and how long it is, not its buffer. */
static int plan_only(const struct request *req, int summary)
{
	return summary || strcmp(req->method, "HEAD") == 0;
}

void route_answer_export(struct request *req, struct response *resp, struct exporter *ex,
                         const char *name, int glb, int summary, json_t *reduction)
{
	struct error err;
	json_t *about = NULL;
	struct export_asset *asset;
	struct export_stream *es;
	char file[160], header[24];

	error_init(&err);
	asset = exporter_finish(ex, &about, &err);
	if (!asset) {
		response_error(resp, &err);
		return;
	}
	snprintf(header, sizeof(header), "%zu",
	         json_array_size(json_object_get(about, "in_extras")));
	if (reduction) { /* every entry was read once by now: each has its report */
		char line[320];
		reduce_report_line(json_array_get(reduction, 0), line, sizeof(line));
		json_object_set(about, "reduction", reduction);
		if (json_array_size(reduction) == 1)
			response_header(resp, "X-Animdex-Reduce", line);
	}
	if (summary) {
		export_asset_free(asset);
		response_json(resp, 200, about);
		response_header(resp, "X-Animdex-Extras", header);
		return;
	}
	json_decref(about);
	es = calloc(1, sizeof(*es));
	if (!es) {
		export_asset_free(asset);
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		response_error(resp, &err);
		return;
	}
	es->asset = asset;
	es->pool = req->pool;
	{
		struct response_stream stream = {export_fill,
		                                 export_release,
		                                 es,
		                                 sizeof(*es) + export_asset_memory(asset),
		                                 export_asset_length(asset),
		                                 0};
		response_stream(resp, 200, glb ? "model/gltf-binary" : "model/gltf+json", &stream);
	}
	export_file_name(name, glb, file, sizeof(file));
	resp->disposition = malloc(strlen(file) + 32);
	if (resp->disposition)
		sprintf(resp->disposition, "attachment; filename=\"%s\"", file);
	response_header(resp, "X-Animdex-Extras", header);
}

static const char *request_arg_of(void *req, const char *name)
{
	return request_arg(req, name);
}

/* reduce=, error=, vv=: every entry read through a reduction; *reports its reports (a new
 * array, the caller's), or NULL when reduce= is not given. */
static int reduce_source(struct request *req, struct exporter *ex, int64_t skeleton,
                         double bake_rate, json_t **reports, struct error *err)
{
	struct reduce_request rq;
	struct export_source source;

	*reports = NULL;
	if (reduce_request_parse(&rq, request_arg_of, req, err) < 0)
		return -1;
	if (!rq.wanted)
		return 0;
	if (request_arg(req, "retarget") && strcmp(request_arg(req, "retarget"), "0") != 0) {
		error_set(err, ERROR_BAD_PARAMETER, "reduce", -1,
		          "reduce: a retargeted export (retarget=1) is not reduced yet; export "
		          "without reduce=, or reduce the retargeted entry once it is uploaded");
		return -1;
	}
	rq.skeleton = skeleton;
	rq.bake_rate = bake_rate;
	*reports = json_array();
	if (!*reports || reduce_export_source(&rq, *reports, &source) < 0) {
		json_decref(*reports);
		*reports = NULL;
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	exporter_set_source(ex, &source);
	return 0;
}

void route_export_one(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct export_options opt;
	struct exporter *ex;
	struct error err;
	int64_t id, skeleton = 0;
	int summary;
	char *name;
	json_t *reports = NULL;

	error_init(&err);
	if (!cat || route_id(req, resp, &id) < 0)
		return;
	if (route_export_options(req, &opt, &summary, &err) < 0) {
		response_error(resp, &err);
		return;
	}
	/* 404 before any work, and the file's name (nothing else of the entry is read here) */
	if (catalog_entry_name(cat, id, &name, &err) < 0) {
		response_error(resp, &err);
		return;
	}
	opt.plan_only = plan_only(req, summary);
	ex = exporter_create(&opt);
	if (!ex || route_skeleton_arg(req, &skeleton, &err) < 0 ||
	    (skeleton && exporter_set_skeleton(ex, cat, skeleton, &err) < 0) ||
	    reduce_source(req, ex, skeleton, opt.bake_rate, &reports, &err) < 0 ||
	    exporter_add(ex, cat, id, &err) < 0) {
		if (!ex)
			error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		response_error(resp, &err);
	} else {
		route_answer_export(req, resp, ex, name, opt.glb, summary, reports);
	}
	exporter_free(ex);
	json_decref(reports);
	free(name);
}

/* The ids of ids=1,2,3: digits, commas, at most `max`. */
static int parse_ids(const char *text, int64_t **ids, size_t *count, size_t max, struct error *err)
{
	size_t n = 1;
	const char *p = text;

	for (const char *c = text; *c; c++)
		n += *c == ',';
	if (n > max) {
		error_set(err, ERROR_TOO_LARGE, "ids", -1,
		          "ids: %zu entries, more than the %zu one export may hold", n, max);
		return -1;
	}
	*ids = calloc(n, sizeof(**ids));
	if (!*ids)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char one[24];
		size_t len = strcspn(p, ",");
		uint64_t v;
		if (len >= sizeof(one))
			len = sizeof(one) - 1;
		memcpy(one, p, len);
		one[len] = '\0';
		if (route_decimal(one, INT64_MAX, &v) < 0 || v == 0) {
			error_set(
			    err, ERROR_BAD_PARAMETER, "ids", -1,
			    "ids: '%s' is not an entry id (ids=1,2,3: positive whole numbers)",
			    one);
			free(*ids);
			*ids = NULL;
			return -1;
		}
		(*ids)[i] = (int64_t)v;
		p += strcspn(p, ",");
		p += *p == ',';
	}
	/* an entry given twice is exported once, where it first came */
	*count = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < *count && (*ids)[k] != (*ids)[i])
			k++;
		if (k == *count)
			(*ids)[(*count)++] = (*ids)[i];
	}
	return 0;
}

/* retarget=1: every entry read through a retarget onto skeleton= (with map=, mode=, root=,
 * ground=, from= as the retarget route takes them). */
static int retarget_source(struct request *req, struct exporter *ex, struct error *err)
{
	struct retarget_request rq;
	struct export_source source;
	int wanted =
	    route_retarget_wanted(req, "every entry put on skeleton=ID through a bone map", err);

	if (wanted <= 0)
		return wanted;
	if (route_retarget_request(req, 0, "skeleton", "from", &rq, err) < 0)
		return -1;
	if (retarget_export_source(&rq, &source) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	exporter_set_source(ex, &source);
	return 0;
}

void route_export_many(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct export_options opt;
	struct exporter *ex = NULL;
	struct error err;
	const char *ids_text = request_arg(req, "ids"), *crc = request_arg(req, "crc32");
	int64_t *ids = NULL;
	size_t count = 0;
	int64_t skeleton = 0;
	int summary;
	json_t *reports = NULL;

	error_init(&err);
	if (!cat)
		return;
	if (route_export_options(req, &opt, &summary, &err) < 0)
		goto fail;
	opt.max_entries = EXPORT_DEFAULT_MAX_ENTRIES;
	if (ids_text) {
		if (parse_ids(ids_text, &ids, &count, opt.max_entries, &err) < 0)
			goto fail;
	} else {
		struct catalog_query q = {0};
		q.class_name = request_arg(req, "class");
		q.family = request_arg(req, "family");
		q.name = request_arg(req, "name");
		q.q = request_arg(req, "q");
		if (crc && *crc) {
			if (hash_parse_handle(crc, &q.crc32) < 0) {
				error_set(
				    &err, ERROR_BAD_PARAMETER, "crc32", -1,
				    "crc32: '%s' is not a handle; write it in hex (0x1A2B3C4D) or "
				    "decimal",
				    crc);
				goto fail;
			}
			q.has_crc32 = 1;
		}
		if (catalog_select_matching(cat, &q, opt.max_entries, &ids, &count, &err) < 0)
			goto fail;
	}
	opt.plan_only = plan_only(req, summary);
	ex = exporter_create(&opt);
	if (!ex) {
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	if (route_skeleton_arg(req, &skeleton, &err) < 0 ||
	    (skeleton && exporter_set_skeleton(ex, cat, skeleton, &err) < 0) ||
	    retarget_source(req, ex, &err) < 0 ||
	    reduce_source(req, ex, skeleton, opt.bake_rate, &reports, &err) < 0)
		goto fail;
	for (size_t i = 0; i < count; i++)
		if (exporter_add(ex, cat, ids[i], &err) < 0)
			goto fail;
	route_answer_export(req, resp, ex, count == 1 ? NULL : "animdex-export", opt.glb, summary,
	                    reports);
	exporter_free(ex);
	json_decref(reports);
	free(ids);
	return;
fail:
	exporter_free(ex);
	json_decref(reports);
	free(ids);
	response_error(resp, &err);
}
