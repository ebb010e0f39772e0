/* routes_bonemap.c: GET /api/bonemap?from=ID&to=ID, the proposed map from one entry's rig onto
 * another's (core/bonemap.h), or with map=ID a stored bone map's pairs on them: each pair with
 * how it was found and a confidence, and every bone of either side left unmapped. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "core/bonemap.h"
#include "formats/format.h"
#include "http/http.h"

static json_t *node_json(const struct rig *rig, uint32_t i)
{
	char label[300];

	rig_node_label(&rig->nodes[i], label, sizeof(label));
	return json_pack("{s:I, s:s}", "source", (json_int_t)rig->nodes[i].source, "name", label);
}

/* The entry id of a parameter the route needs: 0, or -1 with err naming it. */
static int entry_arg(struct request *req, const char *name, int64_t *id, struct error *err)
{
	if (route_entry_arg(req, name, id, err) < 0)
		return -1;
	if (*id == 0) {
		error_set(err, ERROR_BAD_PARAMETER, name, -1,
		          "%s: missing; give from=ID&to=ID, two entries with rigs", name);
		return -1;
	}
	return 0;
}

static json_t *bonemap_json(int64_t from_id, const struct rig *from, int64_t to_id,
                            const struct rig *to, const struct bonemap *map)
{
	json_t *pairs = json_array(), *left_from = json_array(), *left_to = json_array();

	for (size_t i = 0; i < map->pair_count; i++) {
		const struct bonemap_pair *p = &map->pairs[i];
		json_array_append_new(pairs, json_pack("{s:o, s:o, s:s, s:f}", "from",
		                                       node_json(from, p->from), "to",
		                                       node_json(to, p->to), "how", p->how,
		                                       "confidence", p->confidence));
	}
	for (size_t i = 0; i < from->count; i++)
		if (map->of_source[i] < 0)
			json_array_append_new(left_from, node_json(from, (uint32_t)i));
	for (size_t i = 0; i < to->count; i++)
		if (map->of_target[i] < 0)
			json_array_append_new(left_to, node_json(to, (uint32_t)i));
	return json_pack("{s:{s:I, s:I}, s:{s:I, s:I}, s:I, s:o, s:{s:o, s:o}}", "from", "id",
	                 (json_int_t)from_id, "nodes", (json_int_t)from->count, "to", "id",
	                 (json_int_t)to_id, "nodes", (json_int_t)to->count, "count",
	                 (json_int_t)map->pair_count, "pairs", pairs, "unmapped", "from", left_from,
	                 "to", left_to);
}

/* The map stored as entry map_id applied to the two rigs: 0, or -1 with err set (map names no
 * BoneMap entry: a 400 naming map). *not_found lists the pairs whose bones are not there. */
static int stored_map(struct catalog *cat, int64_t map_id, const struct rig *from,
                      const struct rig *to, struct bonemap *map, json_t **not_found,
                      struct error *err)
{
	struct catalog_stored st = {0};
	struct decode_result result;
	struct resource *res;
	json_t *pairs;
	const char **names = NULL;
	unsigned char *found = NULL;
	size_t n;
	int rc = -1;

	decode_result_init(&result);
	if (catalog_get_stored(cat, map_id, &st, err) < 0) {
		if (err->code == ERROR_NOT_FOUND) {
			error_init(err);
			error_set(err, ERROR_BAD_PARAMETER, "map", -1, "map: no entry has id %lld",
			          (long long)map_id);
		}
		goto done;
	}
	if (strcmp(st.class_name, "BoneMap") != 0) {
		error_set(err, ERROR_BAD_PARAMETER, "map", -1,
		          "map: entry %lld is a %s, not a BoneMap (upload a {\"bone_map\": ...} "
		          "document)",
		          (long long)map_id, st.class_name);
		goto done;
	}
	if (!(res = catalog_stored_decode(&st, &result, err)))
		goto done;
	pairs = json_object_get(res->metadata, "pairs");
	n = json_array_size(pairs);
	names = calloc(2 * n + 1, sizeof(char *));
	found = calloc(n + 1, 1);
	if (!names || !found || !(*not_found = json_array()))
		goto oom;
	for (size_t k = 0; k < n; k++) {
		names[2 * k] = json_string_value(json_object_get(json_array_get(pairs, k), "from"));
		names[2 * k + 1] =
		    json_string_value(json_object_get(json_array_get(pairs, k), "to"));
	}
	if (bonemap_from_pairs(from, to, names, n, map, found) < 0)
		goto oom;
	for (size_t k = 0; k < n; k++)
		if (!found[k])
			json_array_append_new(
			    *not_found, json_pack("{s:I, s:s, s:s}", "pair", (json_int_t)k, "from",
			                          names[2 * k], "to", names[2 * k + 1]));
	rc = 0;
	goto done;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
done:
	free(names);
	free(found);
	decode_result_cleanup(&result);
	catalog_stored_cleanup(&st);
	return rc;
}

void route_bonemap(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct rig from, to;
	struct bonemap map = {0};
	struct error err;
	int64_t from_id, to_id, map_id = 0;
	json_t *answer = NULL, *not_found = NULL;

	if (!cat)
		return;
	error_init(&err);
	rig_init(&from);
	rig_init(&to);
	if (entry_arg(req, "from", &from_id, &err) == 0 &&
	    entry_arg(req, "to", &to_id, &err) == 0 &&
	    route_entry_arg(req, "map", &map_id, &err) == 0 &&
	    catalog_read_rig_of(cat, from_id, "from", &from, &err) == 0 &&
	    catalog_read_rig_of(cat, to_id, "to", &to, &err) == 0) {
		int made = map_id ? stored_map(cat, map_id, &from, &to, &map, &not_found, &err)
		                  : bonemap_propose(&from, &to, &map);
		if (made == 0 && !(answer = bonemap_json(from_id, &from, to_id, &to, &map)))
			error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		else if (made < 0 && !error_is_set(&err))
			error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		if (answer && map_id) {
			json_object_set_new(answer, "map", json_integer((json_int_t)map_id));
			json_object_set(answer, "not_found", not_found);
		}
	}
	json_decref(not_found);
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
	response_result(resp, answer, &err);
}
