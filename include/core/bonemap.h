/* bonemap.h: a proposed map from one rig's bones onto another's (DESIGN's retargeting; issue
 * 45): each target bone given at most one source bone and each source bone at most one
 * target, by the surest rule that pairs them, with how it was found and a confidence.
 *
 * The rules, surest first:
 *   "handle"     both bones hash their names the same (a Zouna rig onto a Zouna rig);
 *   "hashed"     a named bone's name hashes (Asobo32, as Zouna's) to a bone's handle, between
 *                a rig of handles and one of names (a BVH take onto a Skel_Z);
 *   "name"       the same name, byte for byte (a handle's name, POST /api/names, counts);
 *   "folded"     the same once folded (bonemap_fold): case, separators, namespace prefixes
 *                ("mixamorig:", "Bip01 "), and the side words (L, R, Left, Right, _l, _r);
 *   "number"     the same folded without a trailing number ("Arm1_L" and "arm_l"), where
 *                that is one bone a side (Spine, Spine1 and Spine2 are three: none pairs);
 *   "synonym"    the same once another convention's word is put for a bone (Thigh, UpperLeg
 *                and a sided Hip are UpLeg; Calf, Shin, Knee Leg; Ankle Foot; Elbow ForeArm;
 *                Wrist Hand; Clavicle and Collar Shoulder; Pelvis Hips), one bone a side;
 *   "structure"  the only bone left under parents already paired (roots: the only root left);
 *   "shape"      by the rigs' shapes at rest (bonemap_shape.h): the hips, then the spine, the
 *                neck, each arm and each leg, bone by bone by where each lies along its chain;
 *                then "structure" again under the bones it paired.
 * Pure: no I/O; linear in the bones but for the folded names' lookups (sorted once).
 */
#ifndef ANIMDEX_BONEMAP_H
#define ANIMDEX_BONEMAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/rig.h"

#define BONEMAP_FOLDED_SIZE 300 /* a folded name and its side suffix */

struct bonemap_pair {
	uint32_t from, to; /* rig indices */
	const char *how;   /* one of the rules above (a static string) */
	double confidence; /* 1 for handle and name, down to 0.5 for structure */
};

struct bonemap {
	struct bonemap_pair *pairs; /* pair_count, in the target rig's order */
	size_t pair_count;
	int32_t *of_target; /* to.count: the source bone of each target bone, or -1 */
	int32_t *of_source; /* from.count: the target bone of each source bone, or -1 */
};

/* A bone's name folded for matching: ASCII lower case, a namespace ("a:b" gives "b") and the
 * "bip01"/"bip001" prefixes gone (a namespace is the word before a ':' or '|', wherever it is:
 * "EndSite_mixamorig:Neck" folds to "endsiteneck"), words split at separators (space _ - . |) and
 * at case changes
 * ("LeftUpLeg" is left, up, leg), the side words taken out and written last (".l", ".r"), the
 * rest joined: "mixamorig:LeftUpLeg", "upleg_l" and "Bip01 L UpLeg" all give "upleg.l". */
void bonemap_fold(const char *name, char *out, size_t size);

/* A stored map's pairs (names[2 k] of `from`, names[2 k + 1] of `to`) on two rigs, how "map":
 * a name is a node's name, its handle's name or its label ("node 3"). found[k] says whether
 * pair k found both bones (each bone paired once: a later pair of a bone already paired is not
 * found). 0, or -1 when out of memory. */
int bonemap_from_pairs(const struct rig *from, const struct rig *to, const char *const *names,
                       size_t count, struct bonemap *out, unsigned char *found);

/* The proposed map from `from` onto `to`. 0, or -1 when out of memory. */
int bonemap_propose(const struct rig *from, const struct rig *to, struct bonemap *out);
void bonemap_cleanup(struct bonemap *map);

#endif
