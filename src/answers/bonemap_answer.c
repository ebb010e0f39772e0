/* bonemap_answer.c: bone maps as answers give them (bonemap_answer.h): a stored BoneMap
 * entry's pairs on two rigs, and any map as JSON. */
#include "answers/bonemap_answer.h"

#include <stdlib.h>
#include <string.h>

#include "formats/format.h"

static json_t *node_json(const struct rig *rig, uint32_t i)
{
	char label[300];

	rig_node_label(&rig->nodes[i], label, sizeof(label));
	return json_pack("{s:I, s:s}", "source", (json_int_t)rig->nodes[i].source, "name", label);
}

json_t *bonemap_answer_json(int64_t from_id, const struct rig *from, int64_t to_id,
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

int bonemap_answer_stored(struct catalog *cat, int64_t map_id, const struct rig *from,
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
