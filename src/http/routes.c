/* routes.c: the route table (DESIGN section 3) and helpers shared by the handlers. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

/* Most specific first; the static route last answers every other GET. */
static const struct route routes[] = {
    {"POST", "/api/resources", route_upload, 1},
    {"GET", "/api/resources", route_list, 0},
    {"GET", "/api/resources/{}", route_get, 0},
    {"DELETE", "/api/resources/{}", route_delete, 0},
    {"GET", "/api/resources/{}/raw", route_raw, 0},
    {"GET", "/api/resources/{}/tracks/{}/keys", route_keys, 0},
    {"GET", "/api/resources/{}/tracks/{}/sample", route_sample, 0},
    {"GET", "/api/handles/{}", route_handle, 0},
    {"POST", "/api/names", route_names, 1},
    {"GET", "/api/classes", route_classes, 0},
    {"GET", "/api/health", route_health, 0},
};

/* Matches path against pattern; {} matches one non-empty segment, copied into storage. */
static int route_match(const char *pattern, const char *path,
                       char storage[REQUEST_MAX_CAPTURES][64])
{
	int n = 0;

	while (*pattern && *path) {
		if (pattern[0] == '{' && pattern[1] == '}') {
			size_t len = strcspn(path, "/");
			if (len == 0 || len >= 64 || n == REQUEST_MAX_CAPTURES)
				return 0;
			memcpy(storage[n], path, len);
			storage[n][len] = '\0';
			n++;
			path += len;
			pattern += 2;
			continue;
		}
		if (*pattern != *path)
			return 0;
		pattern++, path++;
	}
	if (*path == '/' && path[1] == '\0')
		path++; /* a trailing slash is the same resource */
	return *pattern == '\0' && *path == '\0';
}

const struct route *routes_find(const char *method, const char *path, struct request *req,
                                int *path_known)
{
	static const struct route static_route = {"GET", "/", route_static, 0};

	*path_known = 0;
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		memset(req->capture_text, 0, sizeof(req->capture_text));
		if (!route_match(routes[i].pattern, path, req->capture_text))
			continue;
		*path_known = 1;
		if (strcmp(routes[i].method, method) != 0)
			continue;
		for (int k = 0; k < REQUEST_MAX_CAPTURES; k++)
			req->captures[k] = req->capture_text[k][0] ? req->capture_text[k] : NULL;
		return &routes[i];
	}
	if (strncmp(path, "/api/", 5) == 0 || strcmp(path, "/api") == 0)
		return NULL;
	if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
		return &static_route;
	*path_known = 1;
	return NULL;
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

int route_id(struct request *req, struct response *resp, int64_t *id)
{
	const char *text = req->captures[0];
	char *end;
	long long v;
	struct error err;

	error_init(&err);
	v = text ? strtoll(text, &end, 10) : 0;
	if (!text || *end || v <= 0) {
		error_set(&err, ERROR_BAD_PARAMETER, "id", -1,
		          "id: '%s' is not a resource id (a positive integer)", text ? text : "");
		response_error(resp, &err);
		return -1;
	}
	*id = v;
	return 0;
}
