/* routes_export.c: entries as glTF 2.0 (GET /api/resources/{id}/export, GET /api/export).
 *
 * format=glb (default) or gltf; bake=N samples a second for Euler rotations (default 30);
 * summary=1 answers what the asset would hold, as JSON, instead of the asset. The answer's
 * X-Animdex-Extras header counts the tracks kept in extras (glTF cannot animate them).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "hash.h"
#include "http.h"

static int export_options_from(struct request *req, struct export_options *opt, int *summary,
                               struct error *err)
{
	const char *format = request_arg(req, "format"), *bake = request_arg(req, "bake");
	const char *want_summary = request_arg(req, "summary");

	memset(opt, 0, sizeof(*opt));
	opt->glb = 1;
	opt->bake_rate = EXPORT_DEFAULT_BAKE_RATE;
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

static void answer_export(struct response *resp, struct exporter *ex, const char *name, int glb,
                          int summary)
{
	struct error err;
	json_t *about = NULL;
	size_t length;
	uint8_t *bytes;
	char file[160], header[24];

	error_init(&err);
	bytes = exporter_finish(ex, &length, &about, &err);
	if (!bytes) {
		response_error(resp, &err);
		return;
	}
	snprintf(header, sizeof(header), "%zu",
	         json_array_size(json_object_get(about, "in_extras")));
	if (summary) {
		free(bytes);
		response_json(resp, 200, about);
		response_header(resp, "X-Animdex-Extras", header);
		return;
	}
	json_decref(about);
	response_take(resp, 200, glb ? "model/gltf-binary" : "model/gltf+json", (char *)bytes,
	              length);
	export_file_name(name, glb, file, sizeof(file));
	resp->disposition = malloc(strlen(file) + 32);
	if (resp->disposition)
		sprintf(resp->disposition, "attachment; filename=\"%s\"", file);
	response_header(resp, "X-Animdex-Extras", header);
}

void route_export_one(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct export_options opt;
	struct exporter *ex;
	struct error err;
	int64_t id;
	int summary;
	json_t *entry;

	error_init(&err);
	if (!cat || route_id(req, resp, &id) < 0)
		return;
	if (export_options_from(req, &opt, &summary, &err) < 0) {
		response_error(resp, &err);
		return;
	}
	entry = catalog_get(cat, id, &err); /* 404 before any work, and the file's name */
	if (!entry) {
		response_error(resp, &err);
		return;
	}
	ex = exporter_create(&opt);
	if (!ex || exporter_add(ex, cat, id, &err) < 0) {
		if (!ex)
			error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		response_error(resp, &err);
	} else {
		answer_export(resp, ex, json_string_value(json_object_get(entry, "name")), opt.glb,
		              summary);
	}
	exporter_free(ex);
	json_decref(entry);
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
	*count = n;
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
	int summary;

	error_init(&err);
	if (!cat)
		return;
	if (export_options_from(req, &opt, &summary, &err) < 0)
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
	ex = exporter_create(&opt);
	if (!ex) {
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < count; i++)
		if (exporter_add(ex, cat, ids[i], &err) < 0)
			goto fail;
	answer_export(resp, ex, count == 1 ? NULL : "animdex-export", opt.glb, summary);
	exporter_free(ex);
	free(ids);
	return;
fail:
	exporter_free(ex);
	free(ids);
	response_error(resp, &err);
}
