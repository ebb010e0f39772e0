/* routes.c: the route table (the API: README, "The API"; man/animdexd.1) and helpers shared by the
 * handlers. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"

/* A path fits one pattern at most ({} is one whole segment; a pattern may have several
 * methods), so the order is free: the busiest first. The static route answers every other
 * GET. */
static const struct route routes[] = {
    {"GET", "/api/resources/{}/tracks/{}/sample", route_sample, 0},
    {"GET", "/api/resources/{}/tracks/{}/keys", route_keys, 0},
    {"POST", "/api/resources", route_upload, 1},
    {"POST", "/api/resources/{}/edits", route_edits, 1},
    {"GET", "/api/resources", route_list, 0},
    {"GET", "/api/resources/{}", route_get, 0},
    {"DELETE", "/api/resources/{}", route_delete, 0},
    {"GET", "/api/resources/{}/raw", route_raw, 0},
    {"GET", "/api/resources/{}/pose", route_pose, 0},
    {"GET", "/api/resources/{}/skeletons", route_skeletons, 0},
    {"GET", "/api/resources/{}/export", route_export_one, 0},
    {"GET", "/api/resources/{}/native", route_native, 0},
    {"GET", "/api/resources/{}/retarget", route_retarget, 0},
    {"GET", "/api/export", route_export_many, 0},
    {"GET", "/api/compare", route_compare, 0},
    {"GET", "/api/bonemap", route_bonemap, 0},
    {"GET", "/api/events", route_events, 0},
    {"GET", "/api/handles/{}", route_handle, 0},
    {"POST", "/api/names", route_names, 1},
    {"GET", "/api/classes", route_classes, 0},
    {"GET", "/api/health", route_health, 0},
};

/* Does path fit pattern ("{}" stands for one segment)? The segments go to storage; returns
 * how many, or -1 when the path does not fit. */
static int route_match(const char *pattern, const char *path,
                       char storage[REQUEST_MAX_CAPTURES][64])
{
	int n = 0;

	while (*pattern && *path) {
		if (pattern[0] == '{' && pattern[1] == '}') {
			size_t len = strcspn(path, "/");
			if (len == 0 || len >= 64 || n == REQUEST_MAX_CAPTURES)
				return -1;
			memcpy(storage[n], path, len);
			storage[n][len] = '\0';
			n++;
			path += len;
			pattern += 2;
			continue;
		}
		if (*pattern != *path)
			return -1;
		pattern++, path++;
	}
	if (*path == '/' && path[1] == '\0')
		path++; /* a trailing slash is the same resource */
	return *pattern == '\0' && *path == '\0' ? n : -1;
}

const struct route *routes_find(const char *method, const char *path, struct request *req,
                                int *path_known)
{
	static const struct route static_route = {"GET", "/", route_static, 0};

	/* HEAD is GET without the body (libmicrohttpd leaves it out) */
	const char *as = strcmp(method, "HEAD") == 0 ? "GET" : method;

	*path_known = 0;
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		int captured = route_match(routes[i].pattern, path, req->capture_text);
		if (captured < 0)
			continue;
		*path_known = 1;
		if (strcmp(routes[i].method, as) != 0)
			continue;
		for (int k = 0; k < REQUEST_MAX_CAPTURES; k++)
			req->captures[k] = k < captured ? req->capture_text[k] : NULL;
		return &routes[i];
	}
	if (strncmp(path, "/api/", 5) == 0 || strcmp(path, "/api") == 0)
		return NULL;
	if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
		return &static_route;
	*path_known = 1;
	return NULL;
}

const char *routes_allowed(const char *path, char *out, size_t size)
{
	char storage[REQUEST_MAX_CAPTURES][64];
	int get = 0, post = 0, del = 0;

	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		if (route_match(routes[i].pattern, path, storage) < 0)
			continue;
		get |= strcmp(routes[i].method, "GET") == 0;
		post |= strcmp(routes[i].method, "POST") == 0;
		del |= strcmp(routes[i].method, "DELETE") == 0;
	}
	if (!get && !post && !del && strncmp(path, "/api/", 5) != 0 && strcmp(path, "/api") != 0)
		get = 1; /* the static files */
	if (!get && !post && !del)
		return NULL;
	snprintf(out, size, "%s%s%s%s", get ? "GET, HEAD" : "",
	         post ? (get ? ", POST" : "POST") : "",
	         del ? (get || post ? ", DELETE" : "DELETE") : "", "");
	return out;
}

struct catalog *route_catalog(struct request *req, struct response *resp)
{
	struct error err;
	struct catalog *cat;

	error_init(&err);
	cat = catalog_pool_get(req->pool, &err);
	if (!cat)
		response_error(resp, &err);
	return cat;
}

int route_decimal(const char *text, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	/* digits only: no sign, no space, no leading zero (one number, one way to write it) */
	if (!text || !*text || (text[0] == '0' && text[1]))
		return -1;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9' || v > (max - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

int route_index(const char *text, const char *field, const char *what, uint64_t max, unsigned *out,
                struct error *err)
{
	uint64_t v;

	if (max > UINT_MAX)
		max = UINT_MAX;
	if (route_decimal(text, max, &v) < 0) {
		error_set(err, ERROR_BAD_PARAMETER, field, -1,
		          "%s: '%s' is not %s: digits only, at most %" PRIu64, field,
		          text ? text : "", what, max);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

int route_id(struct request *req, struct response *resp, int64_t *id)
{
	const char *text = req->captures[0];
	uint64_t v;
	struct error err;

	error_init(&err);
	if (route_decimal(text, INT64_MAX, &v) < 0 || v == 0) {
		error_set(
		    &err, ERROR_BAD_PARAMETER, "id", -1,
		    "id: '%s' is not a resource id: a positive whole number in digits, at most "
		    "%" PRId64,
		    text ? text : "", INT64_MAX);
		response_error(resp, &err);
		return -1;
	}
	*id = (int64_t)v;
	return 0;
}

void route_link_entry(json_t *entry)
{
	json_t *ordered = json_object(), *value;
	const char *key;
	char url[48];

	if (!json_is_object(entry) || !ordered) {
		json_decref(ordered);
		return;
	}
	snprintf(url, sizeof(url), "/api/resources/%" PRId64,
	         (int64_t)json_integer_value(json_object_get(entry, "id")));
	json_object_foreach(entry, key, value)
	{
		json_object_set(ordered, key, value);
		if (strcmp(key, "part") == 0)
			json_object_set_new(ordered, "url", json_string(url));
	}
	json_object_clear(entry);
	json_object_update(entry, ordered);
	json_decref(ordered);
}

void route_link_entries(json_t *entries)
{
	size_t i;
	json_t *entry;

	json_array_foreach(entries, i, entry) route_link_entry(entry);
}
