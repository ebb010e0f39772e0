/* key_edits.h: a clip's keys edited by hand, as a graph editor edits them: a key moved in time,
 * given a new value, inserted where the curve is (with its value there), deleted.
 *
 * The edits are a JSON array; each names a track by its index and a key by its index among the
 * track's keys as they were before any edit (so that a document written against one entry
 * means the same whatever its order):
 *
 *   {"track": 2, "key": 5, "time": 0.5}                 moved in time
 *   {"track": 2, "key": 5, "value": [0, 1.5, 0]}        given a value (every component)
 *   {"track": 3, "key": 0, "degrees": [0, 90, 0]}       a rotation, as Euler degrees (XYZ)
 *   {"track": 2, "insert": 0.75}                        a key where the curve is at 0.75 s
 *   {"track": 2, "insert": 0.75, "value": [0, 2, 0]}    ... with a value of its own
 *   {"track": 2, "delete": 7}                           deleted
 *
 * A key is edited once in a document; keys end strictly increasing in time, and every track
 * keeps one key at least. A cubic spline key keeps its tangents when moved or given a value;
 * one inserted takes the curve's slope there, so the curve is unchanged by the insertion.
 * Pure: no I/O, no globals. */
#ifndef ANIMDEX_KEY_EDITS_H
#define ANIMDEX_KEY_EDITS_H

#include <jansson.h>

#include "base/error.h"
#include "core/model.h"

/* The most edits one document may hold. */
#define KEY_EDITS_MAX 100000

/* Applies `edits` to the clip's tracks: track n is clip->channels[n] (a sampler two channels
 * share is first given to each a copy of its own). `events` (may be NULL) marks the tracks
 * whose keys are events, which are not edited here. On success, 0 and *summary (the caller's)
 * says per track edited which keys changed, which were deleted, which times gained one, and
 * the key counts before and after. On a bad edit, -1 with err naming the edit ("edits[3]"),
 * the track and the key, and the clip unchanged (422); -1 and ERROR_INTERNAL when out of
 * memory. */
int key_edits_apply(struct clip *clip, const unsigned char *events, const json_t *edits,
                    json_t **summary, struct error *err);

/* Euler angles in degrees, X then Y then Z as three.js's 'XYZ' (the page shows rotations so),
 * as a unit quaternion x, y, z, w. */
void key_edits_euler_quaternion(const double degrees[3], float q[4]);

#endif
