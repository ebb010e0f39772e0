/* reduce_answer.h: reduce= on an export: an entry's tracks written with fewer keys, either each
 * track within a tolerance of its own (reduce=TOLERANCE, core/reduce.h's reduce_sampler) or the
 * whole rig within a largest object-space error (reduce=object&error=0.01cm&vv=3cm,
 * reduce_object), and the report of what that cost, measured in object space
 * (core/object_error.h) wherever the entry is on a rig. Knows the catalogue and the model,
 * not the transport.
 */
#ifndef ANIMDEX_REDUCE_ANSWER_H
#define ANIMDEX_REDUCE_ANSWER_H

#include <jansson.h>
#include <stdint.h>

#include "answers/export.h"
#include "base/error.h"
#include "core/object_error.h"

/* A length as error= and vv= take it: a number above 0 with "cm" or "mm" (on a rig scaled to
 * a person's height: object_error.h) or nothing (the rig's own units). */
struct reduce_length {
	double value;
	int in_cm; /* value is centimetres; else rig units */
};

struct reduce_request {
	int wanted;       /* reduce= was given */
	int object;       /* reduce=object; else reduce=TOLERANCE */
	double tolerance; /* reduce=TOLERANCE: the track's own units (radians, degrees of a BVH) */
	struct reduce_length error, vv;
	int64_t skeleton; /* the rig the entries are posed on (skeleton=), or 0: their own */
	double bake_rate; /* the export's: Euler rotations are reduced as it bakes them */
};

/* reduce=, error= and vv= from arg(ctx, name). 0 (rq->wanted 0 when reduce= is absent), or
 * -1 with err set (ERROR_BAD_PARAMETER naming the parameter, its value and the rule). */
int reduce_request_parse(struct reduce_request *rq, const char *(*arg)(void *ctx, const char *name),
                         void *ctx, struct error *err);

/* An export source that reads each entry from the catalogue and reduces it as rq asks;
 * each entry's report ({"entry", "reduce", "keys": {"before", "after"}, "tracks": {"reduced",
 * "kept"}, "rig": {"height", "height_from", "units_per_cm"}, "threshold", "vv", "error":
 * {"largest": {"rig_units", "cm", "node", "time"}, "p99", "share_under_threshold",
 * "samples", "times"}, "notes"}) is appended to `reports` (which the source holds a
 * reference to) the first time it is read. 0, or -1 when out of memory. */
int reduce_export_source(const struct reduce_request *rq, json_t *reports,
                         struct export_source *out);

/* A measured error as the reports give it: {"rig": {"height", "height_from", "units_per_cm",
 * "person_cm"}, "threshold", "vv", "error": {"largest", "p99", "share_under_threshold",
 * "samples", "times"}}, lengths in rig units and cm. */
json_t *reduce_error_json(const struct rig *rig, const struct object_scale *scale,
                          const struct object_error_report *e, double threshold, double vv);
/* A length in the rig's units. */
double reduce_length_units(const struct reduce_length *l, const struct object_scale *scale);
/* One line for a header, from a report: "88064 -> 70033 keys; largest error 0.0093 cm". */
void reduce_report_line(const json_t *report, char *out, size_t size);

#endif
