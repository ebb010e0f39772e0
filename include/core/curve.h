/* curve.h: the one sampling engine (doc/formats.md 3.2). Pure: no I/O, no globals, no allocation.
 *
 * A curve is a read-only view of one sampler's keys. curve_sample_f32() evaluates float
 * curves; curve_step_key() gives the key whose value a STEP curve (and every BOOL/INT/UINT
 * curve) holds at a time. A cursor remembers the segment of the previous call, so a sweep of
 * increasing times walks the keys instead of searching from scratch: the search gallops from
 * the cursor, so a sweep costs O(keys + samples) and one random lookup costs O(log keys).
 *
 * Rules: before the first key, the first value; at or after the last key, the last value;
 * at an exact key time, that key's value; one key, its value. LINEAR is (1-u)v_k + u v_k+1;
 * quaternion LINEAR is shortest-path slerp (nlerp above a dot of 0.9995); CUBIC_SPLINE is
 * Hermite with per-second tangents scaled by the key interval. Quaternion results are always
 * normalised. A curve's rules (model.h, enum sampling_rule) change two of these where an
 * engine evaluates otherwise: before the first key, and w between FLOAT4 keys.
 */
#ifndef ANIMDEX_CURVE_H
#define ANIMDEX_CURVE_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

struct curve {
	enum value_type type;      /* component kind and count */
	enum interpolation interp; /* STEP, LINEAR or CUBIC_SPLINE */
	enum semantic semantic;    /* quaternion: elements are FLOAT4 quaternions */
	uint32_t components;       /* floats per key value: type components x array size */
	uint32_t key_count;        /* >= 1 */
	const float *times;        /* key_count, strictly increasing */
	const void *values;        /* native packed; for cubic: in, value, out per key */
	unsigned rules;            /* enum sampling_rule bits */
};

/* A cursor belongs to one curve: it remembers where the last sample fell and, for a single
 * quaternion, the unit keys and angle of that segment, so a sweep slerps without normalising
 * and taking the arc cosine at every sample. */
struct curve_cursor {
	uint32_t key;           /* the segment found last: times[key] <= t < times[key + 1] */
	uint32_t slerp_key;     /* the segment the slerp fields describe, plus 1; 0: none */
	float qa[4], qb[4];     /* its keys, normalised, qb on the short path */
	float theta, sin_theta; /* their angle; theta < 0: nlerp (dot above 0.9995) */
};

void curve_from_sampler(struct curve *c, const struct sampler *s);
void curve_cursor_init(struct curve_cursor *cursor);

/* The index of the key whose value holds at t: the key at or before t, clamped to the last
 * key; before the first key, the first (or, under RULE_LAST_BEFORE_FIRST, the last). */
uint32_t curve_step_key(const struct curve *c, struct curve_cursor *cursor, float t);

/* Evaluates a float curve at t into out[components]. */
void curve_sample_f32(const struct curve *c, struct curve_cursor *cursor, float t, float *out);

/* Evaluates a float curve at each of count times into out[count * components]: exactly what
 * curve_sample_f32 gives at each, faster. Samples falling strictly inside one segment are
 * evaluated together with the compiler's vector extensions, eight at a time with AVX2 where
 * the machine has it, four otherwise (SSE2 on x86-64, scalar code where there is no vector
 * unit), in the same operations and order as curve_sample_f32, so the results are the same
 * floats. Times in increasing order make the longest runs. */
void curve_sample_times(const struct curve *c, struct curve_cursor *cursor, const float *t,
                        size_t count, float *out);

/* Chooses the build of curve_sample_times that runs from now on: the machine's best unless
 * baseline (so that tests can compare both); returns its name, "avx2" or "baseline". The best
 * is chosen when the program starts. Not to be called while another thread samples. */
const char *curve_vector_build(int baseline);

/* The key value, in-tangent and out-tangent of key k as floats (tangents zero unless cubic). */
const float *curve_key_value(const struct curve *c, uint32_t k);

#endif
