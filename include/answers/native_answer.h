/* native_answer.h: an entry as the game's own bytes (GET /api/resources/{id}/native,
 * animdexd native): the entry's tracks in the layout of a template of the game's own bytes
 * (formats/native.h), checked by decoding them again before they go out. */
#ifndef ANIMDEX_NATIVE_ANSWER_H
#define ANIMDEX_NATIVE_ANSWER_H

#include <stdint.h>

#include "answers/reduce_answer.h"
#include "base/error.h"
#include "catalog/catalog.h"
#include "formats/native.h"

struct native_request {
	int64_t id;          /* the entry: its tracks are the values written */
	int64_t template_id; /* the game's bytes the layout comes from; 0: the bundle entry
	                      * when bundle=ID is given, else the entry itself */
	/* Burnout: the entry out of a BND2 bundle whose bundle is rebuilt with the file in place
	 * of that entry's resource; -1 (not given): the template's bundle when the template came
	 * out of one; 0: the resource alone */
	int64_t bundle_id;
	/* as=Animation_Z: an Animation_Z made new, without a template (its defaults in the
	 * report's notes); NULL otherwise */
	const char *as_class;
	/* layout=fuel|rat|walle: a Zouna Animation_Z's link-header form; NULL: the template's */
	const char *zouna_layout;
	/* skeleton=ID: the rig the entry is judged on in object space (its own when 0) */
	int64_t skeleton;
	/* reduce=, error=, vv=: reduce=object (object.object) reduces across the rig before the
	 * keys are written; reduce=TOLERANCE is opt.reduce */
	struct reduce_request object;
	struct native_options opt;
};

/* Reads the request's parameters through arg(ctx, name) (NULL when absent): template, byte_order
 * (little, big), bff (0, 16), name, promote (0, 1), reduce (a tolerance above 0, or object
 * with error= and vv=), skeleton (an entry id), layout (32, 64), bundle (an entry id, or 0),
 * as (Animation_Z, without template). 0, or -1 with
 * err naming the parameter, its value and the rule. */
int native_request_parse(struct native_request *rq, const char *(*arg)(void *ctx, const char *name),
                         void *ctx, struct error *err);

/* Makes the file: 0, or -1 with err set (404 for a missing entry, 422 naming the parameter,
 * the track or the key that cannot be written). *file_name (malloc'd) is the name extraction
 * tools give such a file ("hero_run.Animation_Z", "1175485833.Animation_Z"); out->report
 * gains "entry", "template", "file_name", "length". */
int native_answer_make(struct catalog *cat, const struct native_request *rq,
                       struct native_file *out, char **file_name, struct error *err);

/* The same for a clip made in memory (a retargeted one, src), written on template= (a Zouna
 * Animation_Z or bare keyframer, a Radient clip document) or as=Animation_Z: the report's
 * "entry" is rq->id. 400 naming template when there is neither, 422 naming it for a template
 * a clip does not go into (a Skel_Z, a Burnout resource). */
int native_answer_make_of(struct catalog *cat, const struct native_request *rq,
                          const struct resource *src, struct native_file *out, char **file_name,
                          struct error *err);

#endif
