/* export.h: catalogued entries as one glTF 2.0 asset (GET /api/resources/{id}/export,
 * GET /api/export, animdexd export).
 *
 * Each entry becomes one glTF animation. An entry with a rig (or every entry, put on a
 * skeleton's rig) drives that rig's node tree, written once with its rest pose and skin;
 * targets of entries without one become nodes at the scene's root, shared by every entry
 * that animates the same object. Channels are translation, rotation, scale and (on a
 * minimal mesh with that many morph targets) weights; Zouna Euler rotations are baked into
 * rotation channels. What glTF cannot animate goes, with its keys and the reason,
 * into the animation's extras (or, for an entry with nothing glTF can animate, a node's).
 */
#ifndef ANIMDEX_EXPORT_H
#define ANIMDEX_EXPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "base/error.h"

#define EXPORT_DEFAULT_BAKE_RATE   30.0         /* samples a second for Euler rotations */
#define EXPORT_DEFAULT_MAX_ENTRIES 1000         /* entries in one bulk export */
#define EXPORT_DEFAULT_MAX_BYTES   (256u << 20) /* bytes of one asset */
/* Samples of one baked Euler rotation: a longer track is baked at fewer samples a second,
 * and the asset's notes say so */
#define EXPORT_MAX_BAKED_KEYS 100000

/* Bytes of an asset's buffer kept in memory while it is made: a larger buffer is not kept but
 * made again from the catalogue, entry by entry, as the asset is sent */
#define EXPORT_DEFAULT_HOLD_BYTES (16u << 20)

struct export_options {
	int glb;            /* 1: .glb; 0: .gltf, one file with a data URI */
	double bake_rate;   /* Euler rotations: samples a second between keys (> 0) */
	size_t max_bytes;   /* the most the asset's buffer may hold; past it, 413 */
	size_t max_entries; /* the most entries one asset may hold; past it, 413 */
	size_t hold_bytes;  /* the most of the buffer kept while it is made (0: the default) */
	int plan_only;      /* keep none of it: the asset is described and measured, not sent
	                     * (summary=1, HEAD) */
};

struct exporter;

struct exporter *exporter_create(const struct export_options *opt);
void exporter_free(struct exporter *ex);
/* Puts every entry added afterwards on entry id's rig (skeleton=): the rig is the asset's one
 * node tree, and tracks that drive none of its nodes go to extras with the reason. -1 with
 * err naming "skeleton" when the entry does not exist or has no rig. */
int exporter_set_skeleton(struct exporter *ex, struct catalog *cat, int64_t id, struct error *err);
/* Where entries' tracks come from when they are not the catalogue's own keys (a retarget's):
 * read() makes entry id's summary, tracks and rig into *out (struct export_entry,
 * export_internal.h), the first time and again, accessor by accessor, as a large asset is
 * sent: it must give the same bytes each time, from whichever thread's catalogue it is given.
 * free(ctx) when the asset is done with it. */
struct export_entry;
struct export_source {
	int (*read)(void *ctx, struct catalog *cat, int64_t id, struct export_entry *out,
	            struct error *err);
	void (*free)(void *ctx);
	void *ctx;
};
/* Reads every entry added afterwards through source (which the exporter, then its asset,
 * takes over). */
void exporter_set_source(struct exporter *ex, const struct export_source *source);

/* Adds entry `id` of the catalogue as one animation. */
int exporter_add(struct exporter *ex, struct catalog *cat, int64_t id, struct error *err);
/* Adds entries ids[0..count) in that order, read ahead on a second thread from a catalogue
 * of its own (opened on `db`) while this one builds the asset; `progress`, when given, is
 * told after each. Without a second thread, reads them from cat. */
int exporter_add_all(struct exporter *ex, const char *db, struct catalog *cat, const int64_t *ids,
                     size_t count, void (*progress)(size_t done, size_t count), struct error *err);
/* How many entries were added. */
size_t exporter_count(const struct exporter *ex);

/* The asset as it is sent: its JSON text made, its buffer held (up to hold_bytes) or made
 * again from the catalogue, one entry at a time, as it is read; so an export's memory is its
 * JSON text and the largest entry's keys, not the asset. */
struct export_asset;
/* The asset, and a summary of what went where: {"entries": n, "animations": n, "nodes": n,
 * "channels": n, "in_extras": [{"entry", "track", "name", "reason"}], "notes": [...]}. The
 * exporter may be freed afterwards. */
struct export_asset *exporter_finish(struct exporter *ex, json_t **summary, struct error *err);
/* The asset's exact length in bytes. */
uint64_t export_asset_length(const struct export_asset *a);
/* What the asset holds while it is sent, for the answer budget. */
size_t export_asset_memory(const struct export_asset *a);
/* The asset's next bytes, up to `room`: the count, 0 at its end, -1 with err set (an entry
 * that could not be read again, or that changed meanwhile). A buffer made again is read
 * from cat (the calling thread's). Not for a plan_only asset. */
long export_asset_read(struct export_asset *a, struct catalog *cat, char *out, size_t room,
                       struct error *err);
void export_asset_free(struct export_asset *a);

/* A bake rate as the command line and the API take it: decimal digits, with a fraction
 * after a point if wanted, above 0 and at most 1000 samples a second; -1 otherwise. */
int export_parse_bake_rate(const char *text, double *rate);

/* What the export writes for one track, as a sampler (what a glTF upload of the asset reads
 * back): an Euler rotation (euler) baked at bake_rate into LINEAR unit quaternions; another
 * as glTF takes it (a rotation's values made unit length, a Zouna track that starts after 0
 * led by its last value). out's arrays are malloc'd. 0, or -1 when out of memory. */
int export_track_sampler(const struct sampler *s, int rotation, int euler, double bake_rate,
                         struct sampler *out);

/* A file name for the asset: the entry's name, or "animdex-export", with .glb or .gltf. */
void export_file_name(const char *name, int glb, char *out, size_t size);

#endif
