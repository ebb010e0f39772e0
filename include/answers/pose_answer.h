/* pose_answer.h: the answer of GET /api/resources/{id}/pose: a rig posed by an entry's tracks
 * at each of the times asked, as JSON or raw float32, made a pose at a time so that a large
 * answer is streamed in bounded memory (pose_answer.c). Knows the catalogue and the model, not
 * the transport.
 *
 * JSON: {"id", "skeleton" (the id of the rig's entry, or null for the entry's own), "nodes":
 * [{"source", "name" (or its handle's known name, or "node N"), "handle", "parent" (by
 * source)}], "tracks": [{"n", "node" (source, or null), "property", "reason" (when it moves
 * no node)}], "matched", "unmatched", "untracked_nodes", "count", "poses": [{"t",
 * "translation": [[x, y, z] per node], "rotation": [[x, y, z, w]...], "scale": [...],
 * "world": [[16 floats, column-major]...]}]}.
 * f32: per time, t then per node (in "nodes" order, the rig's) translation 3, rotation 4,
 * scale 3, world 16: 1 + 26 x nodes little-endian float32 a time.
 */
#ifndef ANIMDEX_POSE_ANSWER_H
#define ANIMDEX_POSE_ANSWER_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "catalog/catalog.h"
#include "core/pose.h"
#include "answers/track_answer.h"

#define POSE_F32_NODE_FLOATS (POSE_TRS + 16)

struct pose_answer {
	int64_t id, skeleton; /* skeleton 0: the entry's own rig */
	enum sample_format format;
	struct rig rig;
	struct catalog_track *tracks; /* the matched tracks, owned: the pose samples them */
	size_t track_count;
	json_t *head; /* everything of a JSON answer but its poses */
	struct pose pose;
	struct sample_times times;
	size_t i; /* the next pose */
	int phase, done;
	int euler; /* some rotations are Zouna Euler angles (an assumed reading) */
	struct buf pending;
	size_t sent;
	struct error failure; /* set when a pose is beyond float32 (the answer stops there) */
	struct retarget_answer *retargeted; /* the retarget whose tracks are posed, or NULL */
};

/* Reads the entry's tracks and the rig (the entry's own, or skeleton's when not 0), matches
 * them and readies the answer; the times are set by the caller (pa->times) before the first
 * piece. NULL with err set: ERROR_NOT_FOUND (no such entry), ERROR_CONFLICT (no rig to pose
 * on), ERROR_BAD_PARAMETER naming "skeleton". */
struct pose_answer *pose_answer_create(struct catalog *cat, int64_t id, int64_t skeleton,
                                       enum sample_format format, struct error *err);
/* The same for a retargeted clip (skeleton=ID&retarget=1): a's written tracks on its target's
 * rig, the retarget's report in the head ("retarget"); the answer takes a over. */
struct retarget_answer;
struct pose_answer *pose_answer_create_retargeted(struct retarget_answer *a, int64_t id,
                                                  int64_t skeleton, enum sample_format format,
                                                  struct error *err);
void pose_answer_free(void *state);
/* The key range of the tracks that move nodes ([0, 0] when none does). */
void pose_answer_range(const struct pose_answer *pa, double *from, double *to);
/* Floats (f32) or bytes (JSON, roughly) of the whole answer: what decides between making it at
 * once and streaming it. */
uint64_t pose_answer_estimate(const struct pose_answer *pa);
size_t pose_answer_memory(const struct pose_answer *pa);
/* The next piece appended to b; 0 when the answer is complete. */
int pose_answer_produce(struct pose_answer *pa, struct buf *b);
/* struct response_stream's fill. */
long pose_answer_fill(void *state, char *out, size_t room);

#endif
