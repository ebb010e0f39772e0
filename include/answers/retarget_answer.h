/* retarget_answer.h: the answer of GET /api/resources/{id}/retarget: an entry's motion put on
 * another entry's rig (core/retarget.h), through a stored bone map or the proposed one, with
 * what it is worth (retarget_measure), as a report, as JSON tracks, or as one animation of a
 * glTF asset on the target's node tree. Knows the catalogue and the model, not the transport.
 */
#ifndef ANIMDEX_RETARGET_ANSWER_H
#define ANIMDEX_RETARGET_ANSWER_H

#include <jansson.h>
#include <stdint.h>

#include "answers/export.h"
#include "base/error.h"
#include "catalog/catalog.h"
#include "core/retarget.h"

struct retarget_request {
	int64_t id;   /* the clip */
	int64_t onto; /* the entry whose rig takes the motion */
	int64_t from; /* the entry whose rig the clip moves, when it has none of its own; or 0 */
	int64_t map;  /* a BoneMap entry, or 0 for the proposed map */
	struct retarget_options opt;
	int unmeasured; /* the quality figures left out (an export's takes: nobody reads them) */
};

struct retarget_answer;

/* Reads the clip, both rigs and the map, and retargets. NULL with err set: ERROR_NOT_FOUND (no
 * such clip), ERROR_CONFLICT (the clip has no rig and no from=), ERROR_BAD_PARAMETER naming
 * "onto", "from" or "map". */
struct retarget_answer *retarget_answer_make(struct catalog *cat, const struct retarget_request *rq,
                                             struct error *err);
void retarget_answer_free(struct retarget_answer *a);

/* {"id", "onto", "from", "mode", "root", "map": {the map, as GET /api/bonemap}, "tracks":
 * {"source", "matched", "written", "rewritten", "baked", "ignored": [{"n", "reason"}]},
 * "keys": {"rewritten", "baked"}, "root_motion": {"hips": {"from", "to"}, "scale", "heights"},
 * "quality": {"identity", "cycle", "effectors", "foot_skate", "samples", "unmapped"},
 * "notes": [...]}. */
json_t *retarget_answer_json(const struct retarget_answer *a);
/* The report with every written track's keys, as JSON text ("retargeted": [{"node", "name",
 * "property", "interpolation", "baked", "times", "values"}], the floats as float32 reads them
 * back): their floats are written as text, never held as JSON values. NULL when out of memory. */
char *retarget_answer_text(const struct retarget_answer *a, size_t *length);

/* The retargeted clip as one animation of ex (which must have no skeleton=), on the target
 * rig's node tree. 0, or -1 with err set. */
int retarget_answer_export(const struct retarget_answer *a, struct exporter *ex, struct error *err);

/* The retargeted clip as a resource of its own (family "retarget", class "RetargetedClip",
 * the clip's name and handle), for native: each track a node target named by the target
 * bone's handle ("0x1234ABCD") where it has one, else by its name; the keys copied. NULL when
 * out of memory; resource_free() it. */
struct resource *retarget_answer_resource(const struct retarget_answer *a);

/* The target's rig and the written tracks (for a pose of the answer). */
const struct rig *retarget_answer_rig(const struct retarget_answer *a);
const struct retarget_result *retarget_answer_result(const struct retarget_answer *a);

/* What an asset of the answer is called: the clip's name (or NULL) and the target's id. */
void retarget_answer_file_name(const struct retarget_answer *a, char *out, size_t size);

/* a's clip as an export entry (export_internal.h) whose tracks are a's: a becomes the entry's,
 * freed with it. Its written tracks name the target's bones, for an exporter put on the
 * target's rig (exporter_set_skeleton). */
void retarget_answer_entry(struct retarget_answer *a, struct export_entry *out);

/* An export source (export.h) that puts each entry an export reads on rq's target, through
 * rq's map and options (rq->id is each entry's). 0, or -1 when out of memory. */
int retarget_export_source(const struct retarget_request *rq, struct export_source *out);

/* What the answer holds, for the answer budget. */
size_t retarget_answer_memory(const struct retarget_answer *a);

#endif
