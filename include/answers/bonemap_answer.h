/* bonemap_answer.h: bone maps as answers give them (GET /api/bonemap, and the map a retarget
 * used): a stored BoneMap entry's pairs put on two rigs, and a map as JSON. Knows the
 * catalogue and the model, not the transport.
 */
#ifndef ANIMDEX_BONEMAP_ANSWER_H
#define ANIMDEX_BONEMAP_ANSWER_H

#include <jansson.h>
#include <stdint.h>

#include "base/error.h"
#include "catalog/catalog.h"
#include "core/bonemap.h"

/* The map stored as entry map_id applied to the two rigs: 0, or -1 with err set (map names no
 * BoneMap entry: ERROR_BAD_PARAMETER naming "map"). *not_found lists the pairs whose bones are
 * not there: [{"pair", "from", "to"}]. */
int bonemap_answer_stored(struct catalog *cat, int64_t map_id, const struct rig *from,
                          const struct rig *to, struct bonemap *map, json_t **not_found,
                          struct error *err);

/* {"from": {"id", "nodes"}, "to": {...}, "count", "pairs": [{"from": {"source", "name"},
 * "to": {...}, "how", "confidence"}], "unmapped": {"from": [...], "to": [...]}}. */
json_t *bonemap_answer_json(int64_t from_id, const struct rig *from, int64_t to_id,
                            const struct rig *to, const struct bonemap *map);

#endif
