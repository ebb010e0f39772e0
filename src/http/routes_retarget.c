/* routes_retarget.c: GET /api/resources/{id}/retarget?onto=ID, an entry's motion put on another
 * entry's rig (answers/retarget_answer.h): the request's parameters, and the answer as JSON
 * (the report and every written track's keys; summary=1 the report alone) or, format=glb or
 * gltf, as a glTF asset on the target's node tree; format=native, as the game's bytes on
 * template= (native's parameters: an Animation_Z of the target's skeleton), summary=1 its
 * report with the retarget's beside it.
 *
 * onto=ID (required) the entry whose rig takes the motion; from=ID the rig the clip moves when
 * it has none of its own; map=ID a BoneMap entry (else the proposed map); mode=rest|world;
 * root=scale|keep|in_place; ground=1 the lowest foot on the ground where the source's is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/export.h"
#include "answers/native_answer.h"
#include "answers/retarget_answer.h"
#include "http/http.h"

#define JSON_BYTES_PER_KEY_FLOAT 12 /* a float written as JSON text, at most about */

/* Which of `names` a parameter names (the first by default); -1 with err saying the rule. */
static int choice(struct request *req, const char *field, const char *const *names, int count,
                  const char *rule, int *out, struct error *err)
{
	const char *text = request_arg(req, field);

	*out = 0;
	if (!text)
		return 0;
	for (int i = 0; i < count; i++)
		if (strcmp(text, names[i]) == 0) {
			*out = i;
			return 0;
		}
	error_set(err, ERROR_BAD_PARAMETER, field, -1, "%s: '%.40s' is not %s", field, text, rule);
	return -1;
}

int route_retarget_wanted(struct request *req, const char *what, struct error *err)
{
	const char *want = request_arg(req, "retarget");

	if (!want || strcmp(want, "0") == 0)
		return 0;
	if (strcmp(want, "1") == 0)
		return 1;
	error_set(err, ERROR_BAD_PARAMETER, "retarget", -1,
	          "retarget: '%.40s' is not 0 or 1 (1: %s)", want, what);
	return -1;
}

int route_retarget_request(struct request *req, int64_t id, const char *onto, const char *from,
                           struct retarget_request *rq, struct error *err)
{
	static const char *const modes[] = {"rest", "world"};
	static const char *const roots[] = {"scale", "keep", "in_place"};
	static const char *const grounds[] = {"0", "1"};
	int mode, root, ground;

	memset(rq, 0, sizeof(*rq));
	rq->id = id;
	if (route_entry_arg(req, onto, &rq->onto, err) < 0 ||
	    (from && route_entry_arg(req, from, &rq->from, err) < 0) ||
	    route_entry_arg(req, "map", &rq->map, err) < 0 ||
	    choice(req, "mode", modes, 2,
	           "rest (the rest poses matched, each key rewritten) or world (world rotations "
	           "copied)",
	           &mode, err) < 0 ||
	    choice(req, "root", roots, 3,
	           "scale (the hips' travel by the ratio of hip heights), keep or in_place", &root,
	           err) < 0 ||
	    choice(req, "ground", grounds, 2,
	           "0 or 1 (1: the lowest foot kept on the ground wherever the source's is)",
	           &ground, err) < 0)
		return -1;
	if (rq->onto == 0) {
		error_set(err, ERROR_BAD_PARAMETER, onto, -1,
		          "%s: missing; give %s=ID, the entry whose rig takes the motion (a "
		          "skeleton, or a clip with a rig)",
		          onto, onto);
		return -1;
	}
	rq->opt.mode = (enum retarget_mode)mode;
	rq->opt.root = (enum retarget_root)root;
	rq->opt.ground = ground;
	return 0;
}

static void answer_json(struct request *req, struct response *resp, struct retarget_answer *a,
                        int summary)
{
	struct error err;
	size_t length;
	char *text;

	error_init(&err);
	if (summary) {
		json_t *o = retarget_answer_json(a);
		if (!o) {
			error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
			response_error(resp, &err);
			return;
		}
		response_json(resp, 200, o);
		return;
	}
	/* the keys' text, about 11 bytes a float, made at once */
	if (request_reserve(req, retarget_answer_memory(a) * JSON_BYTES_PER_KEY_FLOAT / 4,
	                    "this retarget", &err) < 0) {
		response_error(resp, &err);
		return;
	}
	if (!(text = retarget_answer_text(a, &length))) {
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		response_error(resp, &err);
		return;
	}
	response_take(resp, 200, "application/json", text, length);
}

static void answer_asset(struct request *req, struct response *resp, struct retarget_answer *a,
                         struct export_options *opt)
{
	struct exporter *ex;
	struct error err;
	char name[200];

	error_init(&err);
	retarget_answer_file_name(a, name, sizeof(name));
	/* the answer's keys are nowhere in the catalogue: the whole buffer is held */
	opt->hold_bytes = opt->max_bytes = EXPORT_DEFAULT_MAX_BYTES;
	ex = exporter_create(opt);
	if (!ex || retarget_answer_export(a, ex, &err) < 0) {
		if (!ex)
			error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		response_error(resp, &err);
	} else {
		route_answer_export(req, resp, ex, name, opt->glb, 0, NULL);
	}
	exporter_free(ex);
}

/* format=native: the retargeted clip written on template= as native writes an entry. */
static void answer_native(struct request *req, struct response *resp, struct catalog *cat,
                          struct retarget_answer *a, const struct native_request *nq, int summary)
{
	struct resource *src = retarget_answer_resource(a);
	struct native_file file;
	struct error err;
	char *name = NULL;

	error_init(&err);
	if (!src) {
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		response_error(resp, &err);
		return;
	}
	if (request_reserve(req, 16 * retarget_answer_memory(a), "the game's file", &err) < 0 ||
	    native_answer_make_of(cat, nq, src, &file, &name, &err) < 0) {
		response_error(resp, &err);
	} else {
		json_object_set_new(file.report, "retarget", retarget_answer_json(a));
		route_answer_native(resp, &file, name, summary);
		native_file_cleanup(&file);
	}
	free(name);
	resource_free(src);
}

void route_retarget(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	const char *format = request_arg(req, "format");
	struct retarget_request rq;
	struct retarget_answer *a;
	struct export_options opt;
	struct error err;
	int64_t id;
	struct native_request nq;
	int summary = 0, native = format && strcmp(format, "native") == 0;
	int asset = format && !native && strcmp(format, "json") != 0;

	error_init(&err);
	if (!cat || route_id(req, resp, &id) < 0)
		return;
	nq.id = id;
	if (route_retarget_request(req, id, "onto", "from", &rq, &err) < 0 ||
	    (asset && route_export_options(req, &opt, &summary, &err) < 0) ||
	    (native && native_request_parse(&nq, route_request_lookup, req, &err) < 0)) {
		response_error(resp, &err);
		return;
	}
	if (native && !nq.skeleton) /* judged in object space on the rig it was put on */
		nq.skeleton = rq.onto;
	if (!asset) {
		const char *s = request_arg(req, "summary");
		summary = s && strcmp(s, "0") != 0 && strcmp(s, "") != 0;
	}
	if (!(a = retarget_answer_make(cat, &rq, &err))) {
		response_error(resp, &err);
		return;
	}
	if (native)
		answer_native(req, resp, cat, a, &nq, summary);
	else if (asset && !summary)
		answer_asset(req, resp, a, &opt);
	else
		answer_json(req, resp, a, summary);
	retarget_answer_free(a);
}
