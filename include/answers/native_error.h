/* native_error.h: native's answers judged where the player sees them (core/object_error.h):
 * reduce=object on the way into the game's bytes (the fewest keys across the rig within a
 * largest object-space error, then written in the template's classes), and the report's
 * "object_error": the file as the game reads it (decoded again by animdex's own decoder)
 * against the entry, measured with virtual vertices on the entry's rig or skeleton=ID's.
 * Knows the catalogue and the model, not the transport.
 */
#ifndef ANIMDEX_NATIVE_ERROR_H
#define ANIMDEX_NATIVE_ERROR_H

#include "answers/native_answer.h"
#include "core/model.h"

struct native_error {
	struct rig skeleton;      /* skeleton=ID's rig, read from the catalogue */
	const struct rig *rig;    /* the rig measured on: &skeleton, the entry's own, or NULL */
	int own_rig;              /* rig is the entry's own (its tracks match it by source index) */
	struct resource reduced;  /* reduce=object: the entry, its matched tracks reduced; it
	                           * shares everything else with the entry */
	struct sampler *samplers; /* reduced's samplers */
	unsigned char *owned;     /* 1: samplers[i] is reduced (its arrays owned), 0: the entry's */
	json_t *reduction;        /* reduce=object's figures, for the report; owned */
};

/* Reads skeleton= (rq->skeleton) and, under reduce=object, reduces src's tracks: *use is then
 * the resource to write (ne->reduced, else src). 0, or -1 with err set (400 naming skeleton,
 * 422 naming reduce for an entry on no rig). */
int native_error_prepare(struct catalog *cat, const struct native_request *rq,
                         const struct resource *src, struct native_error *ne,
                         const struct resource **use, struct error *err);

/* out->report gains "object_error" (null, with a note, where there is no rig to measure on
 * or the file is not an animation) and, under reduce=object, "reduction": the file written as
 * `as` (its family, class and byte order), decoded again, against src. 0, or -1 with err set
 * when out of memory. */
int native_error_report(const struct native_request *rq, struct native_error *ne,
                        const struct resource *src, const struct upload *as,
                        struct native_file *out, struct error *err);

void native_error_cleanup(struct native_error *ne);

#endif
