/* routes_native.c: an entry as the game's own bytes (GET /api/resources/{id}/native).
 *
 * template=ID, byte_order=, bff=, name=, promote=, reduce=, layout=, bundle=
 * (answers/native_answer.h);
 * summary=1 answers the report as JSON instead of the file. The file's answer carries the
 * report's figures in X-Animdex-Native (tracks kept byte for byte, tracks written, the largest
 * difference between the entry's values and what the game will read; under reduce=, the keys
 * before and after and the largest error against the dense keys; for a bundle rebuilt, the
 * resource ID replaced and how far the blocks after it moved).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/native_answer.h"
#include "http/http.h"

const char *route_request_lookup(void *ctx, const char *name)
{
	return request_arg(ctx, name);
}

/* "kept=N; written=N; largest_difference=X" from the report, then under reduce=
 * "; keys_before_reduce=N; keys_after_reduce=N; reduce_error=X", then for a bundle
 * "; bundle_resource=0x...; bundle_moved=N". */
static void report_header(const json_t *report, char *out, size_t size)
{
	size_t kept = 0, written = 0, i, reduced = 0;
	json_int_t before = 0, after = 0;
	double worst = 0, reduce_error = 0;
	json_t *row, *bundle;
	int n;

	json_array_foreach(json_object_get(report, "tracks"), i, row)
	{
		double d = json_number_value(json_object_get(row, "largest_difference"));
		json_t *r = json_object_get(row, "reduced");
		if (json_is_true(json_object_get(row, "kept")))
			kept++;
		else
			written++;
		if (d > worst)
			worst = d;
		if (r) {
			reduced++;
			before += json_integer_value(json_object_get(r, "keys_before"));
			after += json_integer_value(json_object_get(r, "keys_after"));
			d = json_number_value(json_object_get(r, "largest_error"));
			if (d > reduce_error)
				reduce_error = d;
		}
	}
	n = snprintf(out, size, "kept=%zu; written=%zu; largest_difference=%.9g", kept, written,
	             worst);
	if (reduced && n > 0 && (size_t)n < size)
		snprintf(out + n, size - (size_t)n,
		         "; keys_before_reduce=%" JSON_INTEGER_FORMAT
		         "; keys_after_reduce=%" JSON_INTEGER_FORMAT "; reduce_error=%.9g",
		         before, after, reduce_error);
	bundle = json_object_get(report, "bundle");
	n = (int)strlen(out);
	if (bundle && (size_t)n < size)
		snprintf(out + n, size - (size_t)n,
		         "; bundle_resource=%s; bundle_moved=%" JSON_INTEGER_FORMAT,
		         json_string_value(json_object_get(bundle, "resource_id")),
		         json_integer_value(json_object_get(bundle, "moved")));
}

/* The memory a native answer holds while it is made, counted against --answer-memory before
 * any of it is made (summary=1 builds the whole file too): the entry, the template and the
 * bundle decoded and written, about 16 times their stored bytes together, and the entry's
 * tracks. 0, or -1 with err set (503, or 404 for an entry that is not there). */
static int reserve_native(struct request *req, struct catalog *cat, const struct native_request *rq,
                          struct error *err)
{
	const int64_t ids[3] = {rq->id, rq->template_id, rq->bundle_id};
	size_t bytes = 65536;

	for (int i = 0; i < 3; i++) {
		struct catalog_weight w;
		if (ids[i] <= 0 || (i > 0 && ids[i] == rq->id))
			continue;
		if (catalog_entry_weight(cat, ids[i], &w, err) < 0) {
			if (err->code != ERROR_NOT_FOUND || i == 0)
				return -1;
			error_init(err); /* a missing template or bundle: said by name later */
			continue;
		}
		bytes += 16 * (size_t)w.file_bytes + catalog_weight_tree_bytes(&w);
	}
	return request_reserve(req, bytes, "the game's file", err);
}

void route_native(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	const char *summary = request_arg(req, "summary");
	struct native_request rq;
	struct native_file file;
	struct error err;
	char *name = NULL;

	error_init(&err);
	if (!cat || route_id(req, resp, &rq.id) < 0)
		return;
	if (summary && strcmp(summary, "0") != 0 && strcmp(summary, "1") != 0) {
		error_set(&err, ERROR_BAD_PARAMETER, "summary", -1,
		          "summary: '%.64s' is not 0 or 1 (1: the report as JSON, not the file)",
		          summary);
		response_error(resp, &err);
		return;
	}
	if (native_request_parse(&rq, route_request_lookup, req, &err) < 0 ||
	    reserve_native(req, cat, &rq, &err) < 0 ||
	    native_answer_make(cat, &rq, &file, &name, &err) < 0) {
		response_error(resp, &err);
		return;
	}
	route_answer_native(resp, &file, name, summary && summary[0] == '1');
	native_file_cleanup(&file);
	free(name);
}

void route_answer_native(struct response *resp, struct native_file *file, const char *name,
                         int summary)
{
	char header[256];

	report_header(file->report, header, sizeof(header));
	if (summary) {
		response_json(resp, 200, json_incref(file->report));
	} else {
		response_take(resp, 200, "application/octet-stream", (char *)file->bytes,
		              file->length);
		file->bytes = NULL;
		resp->disposition = malloc(strlen(name) + 32);
		if (resp->disposition)
			sprintf(resp->disposition, "attachment; filename=\"%s\"", name);
	}
	response_header(resp, "X-Animdex-Native", header);
}
