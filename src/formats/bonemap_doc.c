/* bonemap_doc.c: a bone map document (doc/reference.md "Bone maps") becomes an entry of its
 * own, class BoneMap: a team's map from one rig's bones onto another's, made once, versioned
 * and shared like any entry.
 *
 *   {"bone_map": {"name": "CMU onto hero", "from": "CMU 01_01", "to": "hero.Skel_Z",
 *                 "pairs": [{"from": "LeftUpLeg", "to": "Bip01 L Thigh"}, ...]}}
 *
 * name is optional (the file's name otherwise); from and to say which rigs it is for; each pair
 * names a bone of each (its name, its handle's name, or "node N"), each bone at most once a side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/format.h"

#define BONEMAP_MAX_PAIRS 4096
#define BONEMAP_MAX_NAME  255

/* Whether "bone_map" (with its quotes) is in the bytes: only then is the JSON parsed. */
static int has_key(const uint8_t *data, size_t length)
{
	static const char key[] = "\"bone_map\"";

	for (size_t i = 0; i + sizeof(key) - 1 <= length; i++)
		if (data[i] == '"' && memcmp(data + i, key, sizeof(key) - 1) == 0)
			return 1;
	return 0;
}

static enum format_match bonemap_doc_match(const struct upload *up, char *why, size_t why_size)
{
	json_t *doc;
	int is_map;

	if (up->family && strcasecmp(up->family, "bonemap") == 0)
		return MATCH_EXPLICIT;
	if (up->class_name && strcasecmp(up->class_name, "BoneMap") == 0)
		return MATCH_EXPLICIT;
	if (!has_key(up->data, up->length)) {
		snprintf(why, why_size, "not a JSON object with a \"bone_map\"");
		return MATCH_NONE;
	}
	doc = json_loadb((const char *)up->data, up->length, 0, NULL);
	is_map = json_object_get(doc, "bone_map") != NULL; /* its decoder says what is wrong */
	json_decref(doc);
	if (is_map)
		return MATCH_CONTENT;
	snprintf(why, why_size, "not a JSON object with a \"bone_map\"");
	return MATCH_NONE;
}

/* A bone's or a rig's name at path: a string of 1 to 255 bytes. */
static const char *name_at(json_t *v, const char *path, struct error *err)
{
	const char *s = json_string_value(v);

	if (!s) {
		error_set(err, ERROR_INVALID, path, -1, "%s: a string is needed", path);
		return NULL;
	}
	if (!*s || strlen(s) > BONEMAP_MAX_NAME) {
		error_set(err, ERROR_INVALID, path, -1,
		          "%s: a name of 1 to 255 bytes is needed, not %zu", path, strlen(s));
		return NULL;
	}
	return s;
}

/* The pairs, checked: each bone once a side. */
static int check_pairs(json_t *pairs, struct error *err)
{
	size_t n = json_array_size(pairs);
	char path[80];

	if (!json_is_array(pairs) || n == 0 || n > BONEMAP_MAX_PAIRS) {
		error_set(err, ERROR_INVALID, "bone_map.pairs", -1,
		          "bone_map.pairs: an array of 1 to 4,096 pairs is needed%s",
		          json_is_array(pairs) ? "" : " (it is missing or not an array)");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *p = json_array_get(pairs, i);
		const char *side[2] = {"from", "to"};
		if (!json_is_object(p)) {
			snprintf(path, sizeof(path), "bone_map.pairs[%zu]", i);
			error_set(err, ERROR_INVALID, path, -1,
			          "%s: an object {\"from\", \"to\"} is needed", path);
			return -1;
		}
		for (int s = 0; s < 2; s++) {
			const char *name;
			snprintf(path, sizeof(path), "bone_map.pairs[%zu].%s", i, side[s]);
			if (!(name = name_at(json_object_get(p, side[s]), path, err)))
				return -1;
			for (size_t k = 0; k < i; k++)
				if (strcmp(json_string_value(
				               json_object_get(json_array_get(pairs, k), side[s])),
				           name) == 0) {
					error_set(err, ERROR_INVALID, path, -1,
					          "%s: bone '%.100s' is already in pairs[%zu]: a "
					          "bone is mapped "
					          "once",
					          path, name, k);
					return -1;
				}
		}
	}
	return 0;
}

static int bonemap_doc_decode(const struct upload *up, struct decode_result *out, struct error *err)
{
	json_error_t parse;
	json_t *doc = json_loadb((const char *)up->data, up->length, 0, &parse), *map;
	struct resource *res = NULL;
	const char *name = NULL;

	if (!doc) {
		error_set(err, ERROR_MALFORMED, NULL, parse.position,
		          "the bone map is not valid JSON: %s at line %d", parse.text, parse.line);
		return -1;
	}
	map = json_object_get(doc, "bone_map");
	if (!json_is_object(map)) {
		error_set(err, ERROR_INVALID, "bone_map", -1, "bone_map: an object is needed");
		goto fail;
	}
	if (json_object_get(map, "name") &&
	    !(name = name_at(json_object_get(map, "name"), "bone_map.name", err)))
		goto fail;
	if (!name_at(json_object_get(map, "from"), "bone_map.from", err) ||
	    !name_at(json_object_get(map, "to"), "bone_map.to", err) ||
	    check_pairs(json_object_get(map, "pairs"), err) < 0)
		goto fail;
	if (!(res = resource_create("bonemap", "BoneMap")) || (name && !(res->name = strdup(name))))
		goto oom;
	res->metadata = json_pack("{s:O, s:O, s:I, s:O}", "from", json_object_get(map, "from"),
	                          "to", json_object_get(map, "to"), "count",
	                          (json_int_t)json_array_size(json_object_get(map, "pairs")),
	                          "pairs", json_object_get(map, "pairs"));
	if (!res->metadata || decode_result_add(out, res) < 0)
		goto oom;
	json_decref(doc);
	return 0;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
fail:
	resource_free(res);
	json_decref(doc);
	return -1;
}

const struct format format_bonemap = {
    .family = "bonemap",
    .version = 1,
    .description = "bone maps (JSON {\"bone_map\": {\"from\", \"to\", \"pairs\"}})",
    .match = bonemap_doc_match,
    .decode = bonemap_doc_decode,
};
