/* export.h: catalogued entries as one glTF 2.0 asset (GET /api/resources/{id}/export,
 * GET /api/export, animdexd export).
 *
 * Each entry becomes one glTF animation. Targets of the node schema become nodes, shared by
 * every entry that animates the same object, with translation, rotation, scale and (on a
 * minimal mesh with that many morph targets) weights channels; Zouna Euler rotations are
 * baked into rotation channels. What glTF cannot animate goes, with its keys and the reason,
 * into the animation's extras (or, for an entry with nothing glTF can animate, a node's).
 */
#ifndef ANIMDEX_EXPORT_H
#define ANIMDEX_EXPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog.h"
#include "error.h"

#define EXPORT_DEFAULT_BAKE_RATE   30.0         /* samples a second for Euler rotations */
#define EXPORT_DEFAULT_MAX_ENTRIES 1000         /* entries in one bulk export */
#define EXPORT_DEFAULT_MAX_BYTES   (256u << 20) /* bytes of one asset */
/* Samples of one baked Euler rotation: a longer track is baked at fewer samples a second,
 * and the asset's notes say so */
#define EXPORT_MAX_BAKED_KEYS 100000

struct export_options {
	int glb;            /* 1: .glb; 0: .gltf, one file with a data URI */
	double bake_rate;   /* Euler rotations: samples a second between keys (> 0) */
	size_t max_bytes;   /* the most the asset's buffer may hold; past it, 413 */
	size_t max_entries; /* the most entries one asset may hold; past it, 413 */
};

struct exporter;

struct exporter *exporter_create(const struct export_options *opt);
void exporter_free(struct exporter *ex);
/* Adds entry `id` of the catalogue as one animation. */
int exporter_add(struct exporter *ex, struct catalog *cat, int64_t id, struct error *err);
/* Adds entries ids[0..count) in that order, read ahead on a second thread from a catalogue
 * of its own (opened on `db`) while this one builds the asset; `progress`, when given, is
 * told after each. Without a second thread, reads them from cat. */
int exporter_add_all(struct exporter *ex, const char *db, struct catalog *cat, const int64_t *ids,
                     size_t count, void (*progress)(size_t done, size_t count), struct error *err);
/* How many entries were added. */
size_t exporter_count(const struct exporter *ex);
/* The asset's bytes (malloc'd), and a summary of what went where: {"entries": n,
 * "animations": n, "nodes": n, "channels": n, "in_extras": [{"entry", "track", "name",
 * "reason"}], "notes": [...]}. */
uint8_t *exporter_finish(struct exporter *ex, size_t *length, json_t **summary, struct error *err);

/* A bake rate as the command line and the API take it: decimal digits, with a fraction
 * after a point if wanted, above 0 and at most 1000 samples a second; -1 otherwise. */
int export_parse_bake_rate(const char *text, double *rate);

/* A file name for the asset: the entry's name, or "animdex-export", with .glb or .gltf. */
void export_file_name(const char *name, int glb, char *out, size_t size);

#endif
