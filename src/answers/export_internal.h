/* export_internal.h: what the export's files share and nobody else sees.
 *
 *   export.c         the exporter: entries into animations, channels, nodes, accessors
 *   export_tracks.c  a track as glTF: keys, baked Euler rotations, tracks kept in extras
 *   export_asset.c   the asset as it is sent, its buffer made again from the catalogue
 *   export_read.c    entries read ahead by a second thread
 *   export_rig.c     rigs as node trees and skins, and which node a track drives
 */
#ifndef ANIMDEX_EXPORT_INTERNAL_H
#define ANIMDEX_EXPORT_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "catalog/catalog.h"
#include "answers/export.h"
#include "core/model.h"
#include "render/render.h"

#define GLTF_UNSIGNED_BYTE 5121
#define GLTF_UNSIGNED_INT  5125
#define GLTF_FLOAT         5126
#define GLB_CHUNK_JSON     0x4E4F534Au
#define GLB_CHUNK_BIN      0x004E4942u
#define NODE_UNSET_WEIGHTS 0

enum channel_path { PATH_TRANSLATION, PATH_ROTATION, PATH_SCALE, PATH_WEIGHTS, PATH_NONE };

static const char *const path_names[] = {"translation", "rotation", "scale", "weights"};

struct export_node {
	uint64_t object;  /* the target's object: node index, bone handle... */
	char *name;       /* unique in the asset */
	unsigned weights; /* morph targets of its mesh; 0 while no weights channel needs one */
	int index;        /* in the asset's nodes */
};

/* Where an accessor's bytes come from, to make them again as the asset is sent. */
enum recipe_part {
	PART_TIMES,
	PART_VALUES,
	PART_TRIANGLE,
	PART_STILL,
	PART_BIND,
	PART_KEPT_TIMES, /* a track kept in extras: its stored times */
	PART_KEPT_VALUES /* and its stored values, as they are */
};

struct export_recipe {
	int64_t entry;
	unsigned track;
	uint8_t part; /* enum recipe_part */
	uint8_t path; /* enum channel_path */
	uint8_t euler;
	uint64_t offset; /* in buffer 0 */
	size_t bytes;
};

/* A rig written into the asset: its nodes' places among the exporter's nodes. */
struct export_rig {
	int64_t entry;  /* the entry it was read from */
	struct rig rig; /* owned */
	size_t *slot;   /* per rig node: its index in the exporter's nodes */
};

struct exporter {
	struct export_options opt;
	json_t *doc;             /* the asset being built */
	json_t *summary_extras;  /* [{"entry", "track", "name", "reason"}] */
	json_t *notes;           /* what the asset says was assumed or changed */
	json_t *entry_list;      /* [{"entry", "class", "handle", "filename", "name"}] */
	json_t *node_names;      /* the node names taken: each with the next "#k" to try after it */
	json_t *node_of;         /* object (decimal text) -> index into nodes */
	json_t *animation_names; /* a set: the animation names taken */
	struct buf bin;          /* buffer 0, while it is held (holding) */
	uint64_t bin_length;     /* buffer 0's length so far, held or not */
	int holding;             /* bin holds every byte of buffer 0 so far */
	struct export_recipe *recipes; /* how to make each accessor's bytes again, in order */
	size_t recipe_count, recipe_cap;
	struct export_recipe source; /* the next accessor's, set before add_accessor */
	struct render_splices kept;  /* the nodes of entries glTF animates nothing of, as text */
	struct export_node *nodes;   /* node_count of them (room for node_cap) */
	size_t node_count, node_cap;
	size_t entries, animations, channels;
	int normalised;          /* some rotation keys were normalised */
	int baked;               /* some Euler rotations were baked */
	int shifted;             /* some Zouna tracks got keys before their first */
	struct export_rig *rigs; /* the rigs written, each once */
	size_t rig_count;
	int64_t skeleton_id; /* skeleton=: every entry is put on this entry's rig (0: none) */
	size_t skeleton_rig; /* its place in rigs */
	json_t *unrigged;    /* ids of entries exported without a rig (nodes at the root) */
	struct export_source entry_source; /* where entries come from: not the catalogue's keys */
	/* the asset's accessors and buffer views as JSON text, "[" and the items so far: a bulk
	 * export has hundreds of thousands, which as jansson values cost ten times their text */
	struct buf accessors, views;
	size_t accessor_count, view_count;
};

/* One entry as an export needs it: its summary with its tracks, and every track's keys (its
 * own). */
struct export_entry {
	int64_t id;
	struct catalog_entry entry; /* its summary and its tracks' targets */
	struct catalog_track *tracks;
	size_t track_count;
	size_t bytes;         /* of the tracks' keys */
	struct catalog *lazy; /* or tracks read one at a time from here, as they are added */
	struct rig rig;       /* its own rig (empty when it has none) */
	void *owner;          /* what its borrowed tracks belong to (an export_source's), or NULL */
	void (*owner_free)(void *owner);
};

/* Entry id through ex's source when it has one, else from the catalogue (lazy as
 * export_entry_read takes it). */
int export_entry_read_for(const struct export_source *source, struct catalog *cat, int64_t id,
                          int lazy, struct export_entry *out, struct error *err);

void export_entry_cleanup(struct export_entry *e);
int export_entry_read(struct catalog *cat, int64_t id, int lazy, struct export_entry *out,
                      struct error *err);
int exporter_add_entry(struct exporter *ex, struct export_entry *read, struct error *err);

int export_too_large(struct exporter *ex, struct error *err);
/* A buffer view and a float accessor over `count` elements of `type` (ex->source says how to
 * make its bytes again); its index, or -1 past max_bytes. */
int export_add_accessor(struct exporter *ex, const float *data, size_t count, const char *type,
                        size_t components, int bounds, int target);
/* A buffer view and a SCALAR accessor of `count` components of component_type over `bytes` of
 * data (NULL when only planned); its index, or -1 past max_bytes. */
int export_add_raw_accessor(struct exporter *ex, const void *data, size_t bytes, size_t count,
                            int component_type);
/* Registers an asset node (already in the doc at `index`, or about to be) under `key`, with a
 * name made unique from `name`; NULL when out of memory. */
struct export_node *export_node_add(struct exporter *ex, const char *key, const char *name,
                                    int index);
/* The rig written into the asset (or the equal one written already); it takes `rig` over
 * (leaving it empty). NULL with err set. */
const struct export_rig *export_rig_add(struct exporter *ex, int64_t entry, struct rig *rig,
                                        struct error *err);
/* The rig node a track of entry drives, or -1 with *why set. */
int32_t export_rig_match(const struct export_rig *er, int64_t entry,
                         const struct catalog_target *track, const char **why);
/* The inverse bind matrices of a rig's nodes that have one, in order (malloc'd). */
int export_bind_matrices(const struct rig *rig, float **out, size_t *bytes);
void export_rigs_free(struct exporter *ex);
int export_put_bin(struct exporter *ex, const void *data, size_t bytes, int pad);
int export_bake_euler(struct exporter *ex, const struct sampler *s, int euler, int64_t id,
                      unsigned track, float **times_out, float **values_out, size_t *count_out);
int export_gltf_keys(struct exporter *ex, const struct sampler *s, enum channel_path path,
                     float **times_out, float **values_out, size_t *count_out);
void export_drop_if_empty(json_t *doc, const char *key);
void export_describe_asset(struct exporter *ex);
int export_grow_splices(struct render_splices *sp);
/* A track glTF cannot animate, kept in the animation's extras (kept) with the reason: its
 * number, name, value type, interpolation and key count, and its stored times and values as
 * two accessors of the buffer ("input", "output"; a glTF sampler's words), like a channel's.
 * s: its keys, or NULL to plan it from the track's row alone. 0, or -1 past max_bytes. */
int export_keep_in_extras(struct exporter *ex, json_t *kept, int64_t id,
                          const struct catalog_target *track, const struct sampler *s,
                          const char *reason);
const char *export_times_unfit(const struct sampler *s);

#endif
