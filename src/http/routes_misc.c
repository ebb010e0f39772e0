/* routes_misc.c: handles, classes, health, and the static files of www/. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event_hub.h"
#include "formats/format.h"
#include "base/hash.h"
#include "http/http.h"

#define STATIC_MAX_FILE (16u * 1024 * 1024)

void route_handle(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	const char *text = req->captures[0];
	struct error err;
	uint32_t crc;
	json_t *out;

	error_init(&err);
	if (!cat)
		return;
	if (hash_parse_handle(text, &crc) < 0) {
		error_set(&err, ERROR_BAD_PARAMETER, "crc32", -1,
		          "crc32: '%s' is not a handle; write it in hex (0x1A2B3C4D) or decimal "
		          "(signed or unsigned 32-bit)",
		          text ? text : "");
		response_error(resp, &err);
		return;
	}
	out = catalog_handle(cat, crc, &err);
	route_link_entries(json_object_get(out, "resources"));
	response_result(resp, out, &err);
}

/* A text list of names, one per line, as the body or as a multipart file. */
void route_names(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct error err;
	json_t *out;

	error_init(&err);
	if (!cat)
		return;
	if (req->file_count == 0 || req->files[0].data.len == 0) {
		error_set(&err, ERROR_BAD_PARAMETER, "names", -1,
		          "names: send a text list of names, one per line, as the body "
		          "(curl --data-binary @names.txt) or as a file part");
		response_error(resp, &err);
		return;
	}
	out = catalog_add_names(cat, req->files[0].data.data, req->files[0].data.len, &err);
	response_result(resp, out, &err);
}

void route_classes(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct error err;
	json_t *out;

	error_init(&err);
	if (!cat)
		return;
	out = catalog_classes(cat, &err);
	if (!out) {
		response_error(resp, &err);
		return;
	}
	response_json(resp, 200, json_pack("{s:o}", "classes", out));
}

void route_health(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct error err;
	json_t *counts, *families, *decoders, *out;
	int64_t outdated;
	size_t n;
	const struct format *const *table = format_table(&n);

	error_init(&err);
	if (!cat)
		return;
	counts = catalog_stats(cat, &err);
	if (!counts) {
		response_error(resp, &err);
		return;
	}
	outdated = catalog_outdated(cat, &err);
	if (outdated < 0) {
		json_decref(counts);
		response_error(resp, &err);
		return;
	}
	families = json_array();
	decoders = json_object();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(families, json_string(table[i]->family));
		json_object_set_new(decoders, table[i]->family, json_integer(table[i]->version));
	}
	out = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:I}", "status", "ok", "version",
	                PACKAGE_VERSION, "database", catalog_describe(cat), "counts", counts,
	                "families", families, "decoder_versions", decoders, "outdated_entries",
	                (json_int_t)outdated);
	/* writes: "accepted", or why not ("read-only": --read-only; a file gone: 503) */
	if (catalog_writable(cat, &err) < 0) {
		if (err.code != ERROR_READ_ONLY) {
			json_decref(out);
			response_error(resp, &err);
			return;
		}
		json_object_set_new(out, "writes", json_string("read-only"));
	} else {
		json_object_set_new(out, "writes", json_string("accepted"));
	}
	/* whether a token is needed (authorise.c): for writes once any token exists, for reads
	 * too with --private; the page offers its Token box only then */
	{
		char name[72];
		enum token_check tokens = catalog_token_check(cat, NULL, name, sizeof(name));
		int needed = tokens != TOKEN_NONE_EXIST;
		json_object_set_new(out, "token_needed",
		                    json_pack("{s:b, s:b}", "writes", needed, "reads",
		                              needed && req->config && req->config->private_reads));
	}
	/* the server-wide budgets, as they stand: what uploads being received and answers being
	 * sent hold, against --upload-memory and --answer-memory */
	if (req->uploading && req->answering)
		json_object_set_new(
		    out, "memory",
		    json_pack("{s:I, s:I, s:I, s:I}", "uploads",
		              (json_int_t)__atomic_load_n(req->uploading, __ATOMIC_ACQUIRE),
		              "upload_limit", (json_int_t)req->config->upload_memory, "answers",
		              (json_int_t)__atomic_load_n(req->answering, __ATOMIC_ACQUIRE),
		              "answer_limit", (json_int_t)req->config->answer_memory));
	/* GET /api/events: the streams open on this daemon */
	if (req->events)
		json_object_set_new(out, "events", event_hub_describe(req->events));
	if (outdated > 0)
		json_object_set_new(out, "outdated_hint",
		                    json_sprintf("%lld entries were made by an older decoder; "
		                                 "'animdexd redecode --db PATH' decodes them again",
		                                 (long long)outdated));
	response_json(resp, 200, out);
}

static const char *content_type_of(const char *path)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
	    {"html", "text/html; charset=utf-8"},
	    {"js", "text/javascript; charset=utf-8"},
	    {"css", "text/css; charset=utf-8"},
	    {"json", "application/json"},
	    {"svg", "image/svg+xml"},
	    {"png", "image/png"},
	    {"ico", "image/x-icon"},
	    {"txt", "text/plain; charset=utf-8"},
	};
	const char *ext = format_extension(path);

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcasecmp(ext, types[i].ext) == 0)
			return types[i].type;
	return "application/octet-stream";
}

/* Serves the file at `rel` below `dir` only: no "..", no hidden files, no listings, no links
 * out of the folder. */
static void serve_file(const char *dir, const char *rel, const char *shown, struct response *resp)
{
	char root[PATH_MAX], want[PATH_MAX], real[PATH_MAX];
	struct error err;
	struct stat st;
	char *body = NULL;
	size_t rootlen;
	int fd = -1;

	error_init(&err);
	if (rel[0] != '/' || strstr(rel, "/.") || strchr(rel, '\\') ||
	    strlen(rel) >= sizeof(want) - strlen(dir) - 1)
		goto not_found;
	if (!realpath(dir, root))
		goto not_found;
	snprintf(want, sizeof(want), "%s%s", root, rel);
	if (!realpath(want, real))
		goto not_found;
	rootlen = strlen(root);
	if (strncmp(real, root, rootlen) != 0 || real[rootlen] != '/')
		goto not_found;
	/* regular files only, opened without blocking: a FIFO would hang the polling thread */
	if (stat(real, &st) < 0 || !S_ISREG(st.st_mode))
		goto not_found;
	fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > STATIC_MAX_FILE)
		goto not_found;
	body = malloc((size_t)st.st_size + 1);
	if (!body)
		goto not_found;
	{
		size_t got = 0;
		while (got < (size_t)st.st_size) {
			ssize_t r = read(fd, body + got, (size_t)st.st_size - got);
			if (r <= 0)
				goto not_found;
			got += (size_t)r;
		}
	}
	close(fd);
	response_take(resp, 200, content_type_of(real), body, (size_t)st.st_size);
	return;
not_found:
	if (fd >= 0)
		close(fd);
	free(body);
	error_set(&err, ERROR_NOT_FOUND, NULL, -1, "no file %s", shown);
	response_error(resp, &err);
}

#define CHARTJS_PREFIX "/vendor/chart.js"
#define THREE_PREFIX   "/vendor/three"

void route_static(struct request *req, struct response *resp)
{
	const char *path = req->path;

	if (strncmp(path, CHARTJS_PREFIX "/", sizeof(CHARTJS_PREFIX)) == 0) {
		serve_file(req->config->chartjs_dir, path + strlen(CHARTJS_PREFIX), path, resp);
		return;
	}
	if (strncmp(path, THREE_PREFIX "/", sizeof(THREE_PREFIX)) == 0) {
		serve_file(req->config->three_dir, path + strlen(THREE_PREFIX), path, resp);
		return;
	}
	serve_file(req->config->www_dir, strcmp(path, "/") == 0 ? "/index.html" : path, path, resp);
}
