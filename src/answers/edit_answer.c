/* edit_answer.c: an entry's keys edited and made into its new version's file
 * (include/answers/edit_answer.h).
 *
 * A Zouna or Radient entry is decoded again from its stored upload, edited, and written as
 * the game's own file on itself as template (answers/native_answer.h): unchanged slices keep
 * their bytes, edited keys go into the template's classes to the nearest step. A glTF entry
 * is exported as a .glb (answers/export.h) with the edits applied to its keys as they are
 * read, so that the new version has the entry's rig, names and every other track as an
 * export gives them. */
#include "answers/edit_answer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/export.h"
#include "answers/native_answer.h"
#include "core/key_edits.h"
#include "export_internal.h"

void edit_file_cleanup(struct edit_file *f)
{
	free(f->bytes);
	free(f->file_name);
	json_decref(f->edits);
	json_decref(f->report);
	memset(f, 0, sizeof(*f));
}

static const char *no_arguments(void *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return NULL;
}

/* Which tracks' keys are events (not edited as keys); NULL when none. */
static unsigned char *event_tracks(const struct resource *res)
{
	unsigned char *events;

	if (!res->extras)
		return NULL;
	events = calloc(res->clip.channel_count + 1, 1);
	for (size_t n = 0; events && n < res->clip.channel_count; n++)
		events[n] = res->extras[n].events != 0;
	return events;
}

/* The game's file: decoded again, edited, written on itself. */
static int native_version(struct catalog *cat, const struct catalog_stored *st, const json_t *edits,
                          struct edit_file *out, struct error *err)
{
	struct decode_result decoded;
	struct native_request rq;
	struct native_file file = {0};
	struct resource *res;
	unsigned char *events = NULL;
	int rc = -1;

	decode_result_init(&decoded);
	if (!(res = catalog_stored_decode(st, &decoded, err)))
		goto done;
	events = event_tracks(res);
	if (key_edits_apply(&res->clip, events, edits, &out->edits, err) < 0 ||
	    native_request_parse(&rq, no_arguments, NULL, err) < 0)
		goto done;
	rq.id = st->id;
	rq.template_id = st->id;
	if (native_answer_make_of(cat, &rq, res, &file, &out->file_name, err) < 0)
		goto done;
	out->bytes = file.bytes;
	out->length = file.length;
	out->report = file.report;
	rc = 0;
done:
	free(events);
	decode_result_cleanup(&decoded);
	return rc;
}

/* An export source that edits the entry's keys as it reads them: the same keys every time. */
struct edited_source {
	json_t *edits;
	json_t *summary; /* what the first reading's edits did */
	char *name;      /* the entry's name and handle, as the first reading read them */
	uint32_t crc32;
};

/* Applies the edits to an entry read for export: its tracks seen as one clip, a sampler each. */
static int edit_entry(struct edited_source *src, struct export_entry *e, struct error *err)
{
	struct clip clip;
	unsigned char *events = calloc(e->track_count + 1, 1);
	json_t *summary = NULL;
	int rc = -1;

	clip_init(&clip);
	clip.samplers = calloc(e->track_count + 1, sizeof(*clip.samplers));
	clip.channels = calloc(e->track_count + 1, sizeof(*clip.channels));
	if (!events || !clip.samplers || !clip.channels) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	for (size_t n = 0; n < e->track_count; n++) {
		clip.samplers[n] = e->tracks[n].sampler;
		clip.channels[n] = (struct channel){0, 1, 0, (uint32_t)n};
		events[n] = e->tracks[n].events != 0;
		if (clip.samplers[n].key_count &&
		    clip.samplers[n].times[clip.samplers[n].key_count - 1] > clip.duration)
			clip.duration = clip.samplers[n].times[clip.samplers[n].key_count - 1];
	}
	clip.sampler_count = clip.channel_count = e->track_count;
	if (key_edits_apply(&clip, events, src->edits, &summary, err) < 0)
		goto done;
	/* one sampler a track, none shared: each edited track's arrays were replaced in place */
	for (size_t n = 0; n < e->track_count; n++)
		e->tracks[n].sampler = clip.samplers[n];
	if (!src->summary) {
		src->summary = json_incref(summary);
		src->name = e->entry.name ? strdup(e->entry.name) : NULL;
		src->crc32 = e->entry.crc32;
	}
	rc = 0;
done:
	json_decref(summary);
	free(clip.samplers);
	free(clip.channels);
	free(events);
	return rc;
}

static int read_edited(void *ctx, struct catalog *cat, int64_t id, struct export_entry *out,
                       struct error *err)
{
	if (export_entry_read(cat, id, 0, out, err) < 0)
		return -1;
	return edit_entry(ctx, out, err);
}

static void free_edited(void *ctx)
{
	struct edited_source *src = ctx;

	json_decref(src->edits);
	json_decref(src->summary);
	free(src->name);
	free(src);
}

/* A glTF entry's new version: the entry exported as a .glb with its keys edited. */
static int gltf_version(struct catalog *cat, const struct catalog_stored *st, const json_t *edits,
                        struct edit_file *out, struct error *err)
{
	struct export_options opt = {.glb = 1,
	                             .bake_rate = EXPORT_DEFAULT_BAKE_RATE,
	                             .max_bytes = EXPORT_DEFAULT_MAX_BYTES,
	                             .max_entries = 1};
	struct edited_source *src = calloc(1, sizeof(*src));
	struct export_source source = {read_edited, free_edited, src};
	struct export_asset *asset = NULL;
	struct exporter *ex = NULL;
	json_t *summary = NULL;
	size_t at = 0;
	int rc = -1;

	if (!src || !(ex = exporter_create(&opt))) {
		free(src);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	src->edits = json_incref((json_t *)edits);
	exporter_set_source(ex, &source); /* the exporter's from here */
	if (exporter_add(ex, cat, st->id, err) < 0 || !(asset = exporter_finish(ex, &summary, err)))
		goto done;
	out->length = (size_t)export_asset_length(asset);
	if (!(out->bytes = malloc(out->length + 1))) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	while (at < out->length) {
		long got =
		    export_asset_read(asset, cat, (char *)out->bytes + at, out->length - at, err);
		if (got <= 0) {
			if (got == 0)
				error_set(err, ERROR_INTERNAL, NULL, -1, "the export ended early");
			goto done;
		}
		at += (size_t)got;
	}
	char name[300];
	export_file_name(src->name, 1, name, sizeof(name));
	out->file_name = strdup(name);
	snprintf(out->crc32, sizeof(out->crc32), "0x%08" PRIX32, src->crc32);
	out->edits = json_incref(src->summary);
	out->report = summary;
	summary = NULL;
	rc = out->file_name && out->edits ? 0 : -1;
	if (rc < 0)
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
done:
	json_decref(summary);
	export_asset_free(asset);
	exporter_free(ex);
	return rc;
}

int edit_answer_make(struct catalog *cat, int64_t id, const json_t *edits, struct edit_file *out,
                     struct error *err)
{
	struct catalog_stored st = {0};
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (catalog_get_stored(cat, id, &st, err) < 0)
		goto done;
	if (strcmp(st.family, "gltf") == 0) {
		rc = gltf_version(cat, &st, edits, out, err);
	} else if ((strcmp(st.family, "zouna") == 0 || strcmp(st.family, "radient") == 0) &&
	           strcmp(st.class_name, "Skel_Z") != 0) {
		rc = native_version(cat, &st, edits, out, err);
	} else {
		error_set(
		    err, ERROR_INVALID, "id", -1,
		    "id: entry %" PRId64 " is a %s %s; edited keys are saved as the game's own "
		    "file for Zouna animations and keyframers and Radient clips, and as a .glb "
		    "for glTF entries (a %s is not edited here yet)",
		    id, st.family, st.class_name, st.class_name);
	}
done:
	if (rc < 0)
		edit_file_cleanup(out);
	catalog_stored_cleanup(&st);
	return rc;
}
