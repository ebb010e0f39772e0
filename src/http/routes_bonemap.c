/* routes_bonemap.c: GET /api/bonemap?from=ID&to=ID, the proposed map from one entry's rig onto
 * another's (core/bonemap.h), or with map=ID a stored bone map's pairs on them: each pair with
 * how it was found and a confidence, and every bone of either side left unmapped. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/bonemap_answer.h"
#include "http/http.h"

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
		int made =
		    map_id ? bonemap_answer_stored(cat, map_id, &from, &to, &map, &not_found, &err)
		           : bonemap_propose(&from, &to, &map);
		if (made == 0 && !(answer = bonemap_answer_json(from_id, &from, to_id, &to, &map)))
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
