/* native_answer.c: an entry written back as the game's own bytes. Both sides are decoded
 * again from their stored uploads (catalog_stored_decode), so the encoder sees the entry's
 * tracks as its decoder made them and the template's bytes as they were uploaded; the
 * encoder (formats/zouna_native.c) decodes what it wrote before anything is answered. */
#include "answers/native_answer.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/export.h"
#include "answers/native_error.h"
#include "base/hash.h"
#include "formats/reader.h"

/* A whole number in digits, 1 to INT64_MAX. */
static int parse_id(const char *text, int64_t *out)
{
	int64_t v = 0;

	if (!text || !*text || *text == '0' || strspn(text, "0123456789") != strlen(text) ||
	    strlen(text) > 18)
		return -1;
	for (const char *p = text; *p; p++)
		v = v * 10 + (*p - '0');
	*out = v;
	return 0;
}

typedef const char *(*native_arg)(void *ctx, const char *name);

/* as=, template= and bundle=: what the file is written on. */
static int parse_sources(struct native_request *rq, native_arg arg, void *ctx, struct error *err)
{
	const char *tmpl = arg(ctx, "template"), *bundle = arg(ctx, "bundle"), *as = arg(ctx, "as");

	if (as && strcmp(as, "Animation_Z") != 0) {
		error_set(
		    err, ERROR_BAD_PARAMETER, "as", -1,
		    "as: '%.64s' is not a class animdex makes without a template: as=Animation_Z "
		    "makes a Zouna animation new; every other file is written on a template= "
		    "of the game's own bytes",
		    as);
		return -1;
	}
	if (as && (tmpl || bundle)) {
		error_set(err, ERROR_BAD_PARAMETER, "as", -1,
		          "as: makes a file without a template; give template=ID (or bundle=) or "
		          "as=Animation_Z, not both");
		return -1;
	}
	rq->as_class = as;
	if (tmpl && parse_id(tmpl, &rq->template_id) < 0) {
		error_set(err, ERROR_BAD_PARAMETER, "template", -1,
		          "template: '%.64s' is not an entry id (a positive whole number)", tmpl);
		return -1;
	}
	if (bundle && strcmp(bundle, "0") == 0) {
		rq->bundle_id = 0;
	} else if (bundle && parse_id(bundle, &rq->bundle_id) < 0) {
		error_set(
		    err, ERROR_BAD_PARAMETER, "bundle", -1,
		    "bundle: '%.64s' is not an entry id (a positive whole number: an entry read "
		    "out of a BND2 bundle, whose bundle is rebuilt) or 0 (the resource alone)",
		    bundle);
		return -1;
	}
	return 0;
}

/* byte_order=, bff= and name=: the file's header. */
static int parse_header(struct native_request *rq, native_arg arg, void *ctx, struct error *err)
{
	const char *order = arg(ctx, "byte_order"), *bff = arg(ctx, "bff"),
	           *name = arg(ctx, "name");

	if (order) {
		if (strcmp(order, "little") == 0)
			rq->opt.byte_order = BYTE_ORDER_LITTLE;
		else if (strcmp(order, "big") == 0)
			rq->opt.byte_order = BYTE_ORDER_BIG;
		else {
			error_set(err, ERROR_BAD_PARAMETER, "byte_order", -1,
			          "byte_order: '%.64s' is not little or big (leave it out for the "
			          "template's)",
			          order);
			return -1;
		}
	}
	if (bff) {
		if (strcmp(bff, "0") != 0 && strcmp(bff, "16") != 0) {
			error_set(err, ERROR_BAD_PARAMETER, "bff", -1,
			          "bff: '%.64s' is not 0 (no BFF0 header) or 16 (a 16-byte BFF0 "
			          "header, as bff writes them); leave it out for the template's",
			          bff);
			return -1;
		}
		rq->opt.bff = atoi(bff);
	}
	if (name) {
		size_t n = strlen(name);
		int printable = n > 0 && n <= 255;
		for (size_t i = 0; i < n && printable; i++)
			printable = name[i] > 0x20 && name[i] < 0x7F;
		if (!printable) {
			error_set(
			    err, ERROR_BAD_PARAMETER, "name", -1,
			    "name: '%.64s' is not a resource name (1 to 255 printable ASCII "
			    "characters, no spaces: its Asobo32 CRC goes into the object header)",
			    name);
			return -1;
		}
		rq->opt.name = name;
	}
	return 0;
}

/* promote=, layout= and reduce=: how the keys are encoded. */
static int parse_encoding(struct native_request *rq, native_arg arg, void *ctx, struct error *err)
{
	const char *promote = arg(ctx, "promote"), *layout = arg(ctx, "layout");
	const char *skeleton = arg(ctx, "skeleton");

	if (promote) {
		if (strcmp(promote, "0") != 0 && strcmp(promote, "1") != 0) {
			error_set(err, ERROR_BAD_PARAMETER, "promote", -1,
			          "promote: '%.64s' is not 0 or 1", promote);
			return -1;
		}
		rq->opt.promote = promote[0] == '1';
	}
	if (layout && (strcmp(layout, "fuel") == 0 || strcmp(layout, "rat") == 0 ||
	               strcmp(layout, "walle") == 0)) {
		rq->zouna_layout = layout;
	} else if (layout) {
		if (strcmp(layout, "32") != 0 && strcmp(layout, "64") != 0) {
			error_set(
			    err, ERROR_BAD_PARAMETER, "layout", -1,
			    "layout: '%.64s' is neither a Zouna game's (fuel, rat or walle: an "
			    "Animation_Z's link header) nor 32 or 64 (a Burnout Vehicle "
			    "Animation's: "
			    "32-bit "
			    "for PC, Xbox 360, PS3 and Remastered PC; 64-bit for Remastered "
			    "on PS4, "
			    "Xbox One and Switch)",
			    layout);
			return -1;
		}
		rq->opt.layout = atoi(layout);
	}
	if (reduce_request_parse(&rq->object, arg, ctx, err) < 0)
		return -1;
	rq->opt.reduce = rq->object.wanted && !rq->object.object ? rq->object.tolerance : 0;
	if (skeleton && parse_id(skeleton, &rq->skeleton) < 0) {
		error_set(err, ERROR_BAD_PARAMETER, "skeleton", -1,
		          "skeleton: '%.64s' is not an entry id (a positive whole number)",
		          skeleton);
		return -1;
	}
	return 0;
}

int native_request_parse(struct native_request *rq, const char *(*arg)(void *ctx, const char *name),
                         void *ctx, struct error *err)
{
	rq->template_id = 0;
	rq->bundle_id = -1;
	rq->as_class = NULL;
	rq->zouna_layout = NULL;
	rq->opt.byte_order = -1;
	rq->opt.bff = -1;
	rq->opt.name = NULL;
	rq->opt.promote = 0;
	rq->opt.reduce = 0;
	rq->opt.layout = 0;
	rq->skeleton = 0;
	if (parse_sources(rq, arg, ctx, err) < 0 || parse_header(rq, arg, ctx, err) < 0 ||
	    parse_encoding(rq, arg, ctx, err) < 0)
		return -1;
	return 0;
}

/* What a template may be: the game's own bytes of a kind animdex writes back. */
static int check_template(const struct catalog_stored *t, int64_t id, int is_entry,
                          struct error *err)
{
	if (strcmp(t->family, "zouna") == 0)
		return 0;
	if (strcmp(t->family, "burnout") == 0 || strcmp(t->family, "radient") == 0)
		return 0;
	if (is_entry)
		error_set(err, ERROR_INVALID, "template", -1,
		          "template: entry %" PRId64 " is a %s (%s); give template=ID, an entry of "
		          "the game's own bytes to take the layout from (an Animation_Z or a bare "
		          "keyframer: often an earlier version of the same handle). animdex writes "
		          "Zouna Animation_Z files and bare keyframers, Burnout Vehicle "
		          "Animation and Body Part Remap Data resources and Radient clip documents "
		          "back so far",
		          id, t->class_name, t->family);
	else
		error_set(err, ERROR_INVALID, "template", -1,
		          "template: entry %" PRId64 " is a %s (%s), not the game's own bytes of a "
		          "kind animdex writes back (a Zouna Animation_Z or a bare keyframer, a "
		          "Burnout resource, a Radient clip document)",
		          id, t->class_name, t->family);
	return -1;
}

/* What animdex's glTF export writes for a track (ctx: the bake rate), for the encoder to tell
 * a track that came back from an export unchanged. */
static int exported_track(void *ctx, const struct sampler *track, int rotation, int euler,
                          struct sampler *out)
{
	return export_track_sampler(track, rotation, euler, *(const double *)ctx, out);
}

/* The bake rate of the export an entry came from (a .glb brought back records it in its
 * asset's extras), else the export's default. */
static double bake_rate_of(const struct catalog_stored *entry)
{
	const json_t *about = json_object_get(
	    json_object_get(json_object_get(json_object_get(entry->structure, "metadata"), "asset"),
	                    "extras"),
	    "animdex");
	double rate = json_number_value(json_object_get(about, "bake_rate"));

	return rate > 0 && rate <= 1000 ? rate : EXPORT_DEFAULT_BAKE_RATE;
}

/* "<name>.<class>", the entry's name (or the name= given) else its handle in decimal, as bff
 * names the files it extracts. */
static char *file_name_of(const struct resource *src, const struct native_request *rq,
                          const char *extension)
{
	const char *name = rq->opt.name ? rq->opt.name : src->name;
	char handle[16], *out;
	size_t n;

	if (!name || !*name) { /* Zouna tools name by the decimal handle, Burnout's by hex */
		snprintf(handle, sizeof(handle),
		         strcmp(src->family, "burnout") == 0 ? "%08" PRIX32 : "%" PRIu32,
		         src->crc32);
		name = handle;
	}
	n = strlen(name) + strlen(extension) + 2;
	out = malloc(n);
	if (out)
		snprintf(out, n, "%s.%s", name, extension);
	return out;
}

/* The resource ID of an entry read out of a BND2 bundle (its handle: the decoder gives a bundle's
 * entries their resource IDs). */
static int bundle_resource_id(const struct catalog_stored *st, uint32_t *id, struct error *err)
{
	struct decode_result d;
	const struct resource *r;

	decode_result_init(&d);
	r = catalog_stored_decode(st, &d, err);
	if (r)
		*id = r->crc32;
	decode_result_cleanup(&d);
	return r ? 0 : -1;
}

/* The resource ID of a stored entry read out of a bundle: the entry's own handle when it is
 * the one already decoded (src), else decoded for it. */
static int resource_id_of(const struct catalog_stored *st, const struct catalog_stored *entry,
                          const struct resource *src, uint32_t *id, struct error *err)
{
	if (st == entry) {
		*id = src->crc32;
		return 0;
	}
	return bundle_resource_id(st, id, err);
}

/* A template read out of a bundle (its resource ID `id`): up (the bundle) becomes the
 * resource's own bytes, as extraction tools give it; *owned holds them. */
static int bundle_template(uint32_t id, struct upload *up, uint8_t **owned, struct error *err)
{
	size_t length;

	if (native_burnout_bundle_resource(up, id, owned, &length, err) < 0)
		return -1;
	up->data = *owned;
	up->length = length;
	return 0;
}

/* The bundle of bundle=ID (or of the template), checked: out of a bundle, of the template's
 * class. */
static int bundle_target(const struct catalog_stored *b, int64_t id, const struct catalog_stored *t,
                         struct error *err)
{
	if (!b->from_bundle) {
		error_set(err, ERROR_INVALID, "bundle", -1,
		          "bundle: entry %" PRId64 " is a %s (%s) that did not come out of a BND2 "
		          "bundle; bundle= names an entry read out of one, whose bundle is rebuilt "
		          "with the file in its place",
		          id, b->class_name, b->family);
		return -1;
	}
	if (strcmp(b->class_name, t->class_name) != 0) {
		error_set(err, ERROR_INVALID, "bundle", -1,
		          "bundle: entry %" PRId64 " is a %s; the file written is a %s (its "
		          "template's class), and a resource is replaced by one of its own class",
		          id, b->class_name, t->class_name);
		return -1;
	}
	return 0;
}

/* The bundle's file name as it was uploaded (its last path component, characters a
 * Content-Disposition carries plainly), else "<entry id>.BNDL". */
static char *bundle_file_name(const struct catalog_stored *b)
{
	const char *name = b->filename ? b->filename : "", *slash = strrchr(name, '/');
	char *out;
	size_t n = 0;

	name = slash ? slash + 1 : name;
	out = malloc(strlen(name) + 32);
	if (!out)
		return NULL;
	for (const char *p = name; *p; p++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p))
			out[n++] = *p;
	out[n] = '\0';
	if (n == 0 || strspn(out, ".") == n)
		sprintf(out, "%" PRId64 ".BNDL", b->id);
	return out;
}

static int finish_report(const struct native_request *rq, int64_t template_id,
                         struct native_file *out, char *file_name, struct error *err);

/* A Zouna file on the template up: native_zouna(), its link header first put in the form of
 * layout= when one is given (what that drops or adds in the report's notes). */
static int zouna_file(const struct upload *up, const struct native_request *rq,
                      const struct resource *src, const struct native_options *opt,
                      struct native_file *out, struct error *err)
{
	struct upload relinked = *up;
	uint8_t *bytes = NULL;
	json_t *notes = json_array();
	int rc = -1;

	if (rq->zouna_layout) {
		if (!notes || native_zouna_relink(up, rq->zouna_layout, &bytes, &relinked.length,
		                                  notes, err) < 0) {
			if (!notes)
				error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			json_decref(notes);
			return -1;
		}
		relinked.data = bytes;
	}
	if (native_zouna(&relinked, src, opt, out, err) == 0) {
		json_array_extend(json_object_get(out->report, "notes"), notes);
		rc = 0;
	}
	json_decref(notes);
	free(bytes);
	return rc;
}

/* as=Animation_Z: the entry written on an Animation_Z made new (no records, no keys; its
 * defaults told in the report's notes). */
static int made_new(const struct resource *src, const struct native_request *rq,
                    struct native_file *out, char **file_name, struct error *err)
{
	static const char *const defaults[] = {
	    "as=Animation_Z: no template; an Animation_Z made new",
	    "link header: the name's CRC alone, FUEL's form (layout=rat or walle: the name and a "
	    "count of 0 link names; a game that wants links wants a template)",
	    "smoothRatio 0; the header's, the node keyframers' and every keyframer's flags 0",
	    "node records: bone id 0xFFFF (the engine sets it from the bone's CRC), flag 0",
	    "classes: rotations KeyframerRot_Z, translations and scales KeyframerVec3fComp_Z "
	    "(1/4096 steps, at most 7.99976), messages KeyframerMessage_Z"};
	struct native_options opt = rq->opt;
	const char *name = rq->opt.name ? rq->opt.name : src->name;
	struct upload up = {0};
	uint8_t *blank = NULL;
	json_t *notes;

	if (opt.layout) {
		error_set(
		    err, ERROR_BAD_PARAMETER, "layout", -1,
		    "layout: 32 and 64 are a Burnout Vehicle Animation's; an Animation_Z takes "
		    "fuel, rat or walle (its link header's form)");
		return -1;
	}
	if (native_zouna_blank_animation(opt.byte_order >= 0 ? opt.byte_order : BYTE_ORDER_LITTLE,
	                                 name && *name ? hash_asobo32(name, strlen(name))
	                                               : src->crc32,
	                                 &blank, &up.length, err) < 0)
		return -1;
	up.data = blank;
	up.family = "zouna";
	up.class_name = "Animation_Z";
	up.endian = opt.byte_order == BYTE_ORDER_BIG ? "big" : "little";
	opt.exported = NULL; /* nothing of a template to keep */
	if (zouna_file(&up, rq, src, &opt, out, err) < 0) {
		free(blank);
		return -1;
	}
	free(blank);
	notes = json_object_get(out->report, "notes");
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		json_array_append_new(notes, json_string(defaults[i]));
	json_object_set_new(out->report, "as", json_string(rq->as_class));
	*file_name = file_name_of(src, rq, out->extension);
	return finish_report(rq, 0, out, *file_name, err);
}

/* The report's "entry", "template" (null when made new), "file_name" and "length". */
static int finish_report(const struct native_request *rq, int64_t template_id,
                         struct native_file *out, char *file_name, struct error *err)
{
	if (!file_name) {
		native_file_cleanup(out);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	json_object_set_new(out->report, "entry", json_integer(rq->id));
	json_object_set_new(out->report, "template",
	                    template_id ? json_integer(template_id) : json_null());
	json_object_set_new(out->report, "file_name", json_string(file_name));
	json_object_set_new(out->report, "length", json_integer((json_int_t)out->length));
	return 0;
}

/* The entry a parameter names; a 404 naming the parameter when there is none. */
static int get_named(struct catalog *cat, int64_t id, struct catalog_stored *out, const char *param,
                     struct error *err)
{
	if (catalog_get_stored(cat, id, out, err) == 0)
		return 0;
	if (err->code == ERROR_NOT_FOUND) {
		error_init(err);
		error_set(err, ERROR_NOT_FOUND, param, -1, "%s: no entry has id %" PRId64, param,
		          id);
	}
	return -1;
}

int native_answer_make(struct catalog *cat, const struct native_request *rq,
                       struct native_file *out, char **file_name, struct error *err)
{
	struct catalog_stored entry = {0}, tmpl = {0}, other = {0};
	const struct catalog_stored *t, *b = NULL;
	struct native_options opt;
	struct decode_result decoded;
	const struct resource *src, *use;
	struct native_error ne = {0};
	struct upload up, bundle_up;
	uint8_t *resource = NULL;
	uint32_t replaced = 0, template_resource = 0;
	char layout[8], bundle_layout[8];
	int64_t template_id = rq->template_id     ? rq->template_id
	                      : rq->bundle_id > 0 ? rq->bundle_id
	                                          : rq->id;
	int64_t bundle_id = rq->bundle_id;
	double bake_rate;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	*file_name = NULL;
	decode_result_init(&decoded);
	rig_init(&ne.skeleton);
	if (catalog_get_stored(cat, rq->id, &entry, err) < 0)
		goto done;
	/* a Burnout resource uploaded on its own is already the game's bytes: bundle=ID puts them
	 * in the bundle in place of the old resource (a template is for entries that are not) */
	if (!rq->template_id && rq->bundle_id > 0 && strcmp(entry.family, "burnout") == 0 &&
	    !entry.from_bundle)
		template_id = rq->id;
	if (template_id != rq->id &&
	    get_named(cat, template_id, &tmpl, rq->template_id ? "template" : "bundle", err) < 0)
		goto done;
	if (rq->as_class) {
		src = catalog_stored_decode(&entry, &decoded, err);
		struct upload as = {.family = "zouna", .class_name = "Animation_Z"};
		rc = src && native_error_prepare(cat, rq, src, &ne, &use, err) == 0 &&
		             made_new(use, rq, out, file_name, err) == 0 &&
		             native_error_report(rq, &ne, src, &as, out, err) == 0
		         ? 0
		         : -1;
		goto done;
	}
	t = template_id == rq->id ? &entry : &tmpl;
	if (check_template(t, template_id, template_id == rq->id && !rq->template_id, err) < 0)
		goto done;
	if (rq->zouna_layout &&
	    (strcmp(t->family, "zouna") != 0 || strcmp(t->class_name, "Animation_Z") != 0)) {
		error_set(err, ERROR_BAD_PARAMETER, "layout", -1,
		          "layout: %s is a Zouna Animation_Z's link-header form; entry %" PRId64
		          " (the template) is a %s, written in its own layout",
		          rq->zouna_layout, template_id, t->class_name);
		goto done;
	}
	/* the bundle rebuilt: bundle=ID's, else the template's when it came out of one */
	if (bundle_id < 0)
		bundle_id = t->from_bundle ? template_id : 0;
	if (bundle_id > 0) {
		b = bundle_id == template_id ? t : bundle_id == rq->id ? &entry : &other;
		if (b == &other && get_named(cat, bundle_id, &other, "bundle", err) < 0)
			goto done;
	}
	src = catalog_stored_decode(&entry, &decoded, err);
	if (!src || native_error_prepare(cat, rq, src, &ne, &use, err) < 0)
		goto done;
	/* the resource IDs of the bundle's entry and the template's, each decoded once at most */
	if (b && (bundle_target(b, bundle_id, t, err) < 0 ||
	          resource_id_of(b, &entry, src, &replaced, err) < 0))
		goto done;
	if (t->from_bundle && b == t)
		template_resource = replaced;
	else if (t->from_bundle && resource_id_of(t, &entry, src, &template_resource, err) < 0)
		goto done;
	catalog_stored_upload(t, &up, layout, sizeof(layout));
	opt = rq->opt;
	bake_rate = bake_rate_of(&entry);
	opt.exported = exported_track;
	opt.exported_ctx = &bake_rate;
	if (strcmp(up.family, "burnout") == 0) {
		up.class_name = t->class_name;
		if (t->from_bundle && bundle_template(template_resource, &up, &resource, err) < 0)
			goto done;
		if (native_burnout(&up, use, &opt, out, err) < 0)
			goto done;
		if (b) {
			catalog_stored_upload(b, &bundle_up, bundle_layout, sizeof(bundle_layout));
			if (native_burnout_bundle(&bundle_up, replaced, out, err) < 0)
				goto done;
			json_object_set_new(json_object_get(out->report, "bundle"), "id",
			                    json_integer(bundle_id));
		}
	} else if (strcmp(t->class_name, "Skel_Z") == 0) {
		if (native_zouna_skeleton(&up, use, &opt, out, err) < 0)
			goto done;
	} else if (strcmp(up.family, "radient") == 0) {
		if (native_radient(&up, use, &opt, out, err) < 0 ||
		    native_error_report(rq, &ne, src, &up, out, err) < 0)
			goto done;
	} else if (opt.layout) {
		error_set(
		    err, ERROR_BAD_PARAMETER, "layout", -1,
		    "layout: 32 and 64 are a Burnout Vehicle Animation's; a Zouna Animation_Z "
		    "takes fuel, rat or walle (its link header's form)");
		goto done;
	} else if (zouna_file(&up, rq, use, &opt, out, err) < 0 ||
	           native_error_report(rq, &ne, src, &up, out, err) < 0) {
		goto done;
	}
	*file_name = b ? bundle_file_name(b) : file_name_of(src, rq, out->extension);
	rc = finish_report(rq, template_id, out, *file_name, err);
done:
	if (rc < 0) /* a file made and then refused (a bundle rebuilt wrong) is not kept */
		native_file_cleanup(out);
	native_error_cleanup(&ne);
	decode_result_cleanup(&decoded);
	catalog_stored_cleanup(&entry);
	if (template_id != rq->id)
		catalog_stored_cleanup(&tmpl);
	catalog_stored_cleanup(&other);
	free(resource);
	return rc;
}

int native_answer_make_of(struct catalog *cat, const struct native_request *rq,
                          const struct resource *src, struct native_file *out, char **file_name,
                          struct error *err)
{
	struct catalog_stored tmpl = {0};
	struct native_options opt = rq->opt;
	struct native_error ne = {0};
	const struct resource *use = src;
	struct upload up;
	char layout[8];
	int rc = -1;

	memset(out, 0, sizeof(*out));
	*file_name = NULL;
	rig_init(&ne.skeleton);
	if (rq->as_class) {
		struct upload as = {.family = "zouna", .class_name = "Animation_Z"};
		rc = native_error_prepare(cat, rq, src, &ne, &use, err) == 0 &&
		             made_new(use, rq, out, file_name, err) == 0 &&
		             native_error_report(rq, &ne, src, &as, out, err) == 0
		         ? 0
		         : -1;
		goto done;
	}
	if (rq->bundle_id > 0 || !rq->template_id) {
		error_set(err, ERROR_BAD_PARAMETER, rq->template_id ? "bundle" : "template", -1,
		          rq->template_id
		              ? "bundle: a made clip goes into a file of its own, not a bundle"
		              : "template: missing; a made clip (a retargeted one) needs "
		                "template=ID, the game's file to take the layout from (an "
		                "Animation_Z of the target's skeleton), or as=Animation_Z");
		return -1;
	}
	if (get_named(cat, rq->template_id, &tmpl, "template", err) < 0 ||
	    check_template(&tmpl, rq->template_id, 0, err) < 0)
		goto done;
	if (strcmp(tmpl.family, "burnout") == 0 || strcmp(tmpl.class_name, "Skel_Z") == 0) {
		error_set(err, ERROR_INVALID, "template", -1,
		          "template: entry %" PRId64 " is a %s; a made clip goes into a Zouna "
		          "Animation_Z, a bare keyframer or a Radient clip document",
		          rq->template_id, tmpl.class_name);
		goto done;
	}
	if (rq->zouna_layout && strcmp(tmpl.class_name, "Animation_Z") != 0) {
		error_set(err, ERROR_BAD_PARAMETER, "layout", -1,
		          "layout: %s is a Zouna Animation_Z's link-header form; entry %" PRId64
		          " (the template) is a %s",
		          rq->zouna_layout, rq->template_id, tmpl.class_name);
		goto done;
	}
	catalog_stored_upload(&tmpl, &up, layout, sizeof(layout));
	opt.exported = NULL; /* a made clip came back from no export */
	if (native_error_prepare(cat, rq, src, &ne, &use, err) < 0)
		goto done;
	if (strcmp(up.family, "radient") == 0) {
		if (native_radient(&up, use, &opt, out, err) < 0 ||
		    native_error_report(rq, &ne, src, &up, out, err) < 0)
			goto done;
	} else if (opt.layout) {
		error_set(err, ERROR_BAD_PARAMETER, "layout", -1,
		          "layout: 32 and 64 are a Burnout Vehicle Animation's; a Zouna "
		          "Animation_Z takes fuel, rat or walle (its link header's form)");
		goto done;
	} else if (zouna_file(&up, rq, use, &opt, out, err) < 0 ||
	           native_error_report(rq, &ne, src, &up, out, err) < 0) {
		goto done;
	}
	*file_name = file_name_of(src, rq, out->extension);
	rc = finish_report(rq, rq->template_id, out, *file_name, err);
done:
	if (rc < 0)
		native_file_cleanup(out);
	native_error_cleanup(&ne);
	catalog_stored_cleanup(&tmpl);
	return rc;
}
