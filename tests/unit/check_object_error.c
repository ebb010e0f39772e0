/* check_object_error.c: the object-space error and the reductions judged by it
 * (core/object_error.h, core/reduce.h).
 *
 * - The measure against a straightforward one written here (every node, every sampled time,
 *   three vertices a node, the world matrices chained by hand) on random rigs.
 * - The track-local reduction within 1.05x of the fewest keys, as an exact dynamic programme
 *   written here finds them for the same fit and tolerance, on random tracks of every
 *   interpolation (ORACLE_SEED=N draws other tracks than the default seed's).
 * - The object-space reduction: its largest error, measured here, at or under the threshold,
 *   and no more keys than the local reduction at a largest error no smaller; on random rigs,
 *   and on Debian's CMU clip 01_01 (assimp-testmodels) where it is installed.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/curve.h"
#include "core/reduce.h"
#include "formats/format.h"
#include "testutil.h"

#define CMU_01_01 "/usr/share/assimp/models/BVH/01_01.bvh"

static double uniform(unsigned *seed, double lo, double hi)
{
	return lo + (hi - lo) * (double)rand_r(seed) / RAND_MAX;
}

static void random_unit_quaternion(unsigned *seed, double spread, float q[4])
{
	double v[4], len = 0;

	for (int i = 0; i < 3; i++)
		v[i] = uniform(seed, -spread, spread);
	v[3] = 1;
	for (int i = 0; i < 4; i++)
		len += v[i] * v[i];
	for (int i = 0; i < 4; i++)
		q[i] = (float)(v[i] / sqrt(len));
}

/* A random tree of n nodes: each node's parent an earlier one (or none for node 0), rest
 * translations of about a unit, small rest rotations, scale 1. */
static void random_rig(unsigned *seed, size_t n, struct rig *rig)
{
	rig_init(rig);
	rig->nodes = calloc(n, sizeof(*rig->nodes));
	ck_assert_ptr_nonnull(rig->nodes);
	rig->count = n;
	for (size_t i = 0; i < n; i++) {
		struct rig_node *node = &rig->nodes[i];
		node->source = (uint32_t)i;
		node->parent = i == 0 ? -1 : (int32_t)(rand_r(seed) % i);
		for (int c = 0; c < 3; c++) {
			node->translation[c] = i == 0 ? 0 : (float)uniform(seed, -1, 1);
			node->scale[c] = 1;
		}
		random_unit_quaternion(seed, 0.3, node->rotation);
	}
}

/* A smooth random motion: each node's rotation and the root's translation, keys at 30 Hz with
 * a little noise. */
static size_t random_motion(unsigned *seed, const struct rig *rig, uint32_t keys,
                            struct sampler *samplers, struct object_track *tracks)
{
	size_t count = 0;

	for (size_t i = 0; i < rig->count; i++)
		for (int translation = 0; translation < (i == 0 ? 2 : 1); translation++) {
			struct sampler *s = &samplers[count];
			uint32_t n = translation ? 3 : 4;
			double phase = uniform(seed, 0, 6.28), speed = uniform(seed, 0.5, 3),
			       amount = uniform(seed, 0.05, 0.6);
			float *v = malloc((size_t)keys * n * sizeof(float));
			memset(s, 0, sizeof(*s));
			s->type = translation ? VALUE_FLOAT3 : VALUE_FLOAT4;
			s->array_size = 1;
			s->interp = INTERP_LINEAR;
			s->semantic =
			    translation ? SEMANTIC_COMPONENT_WISE : SEMANTIC_NORMALIZED_QUATERNION;
			s->key_count = keys;
			s->times = malloc(keys * sizeof(float));
			s->values = v;
			s->value_bytes = (size_t)keys * n * sizeof(float);
			for (uint32_t k = 0; k < keys; k++) {
				double t = k / 30.0, a = amount * sin(speed * t + phase) +
				                         uniform(seed, -1e-4, 1e-4);
				s->times[k] = (float)t;
				if (translation) {
					for (int c = 0; c < 3; c++)
						v[k * 3 + c] = (float)(a * (c + 1));
				} else {
					double axis[3] = {sin(phase), cos(phase), 0.5}, len;
					len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] +
					           axis[2] * axis[2]);
					for (int c = 0; c < 3; c++)
						v[k * 4 + c] = (float)(axis[c] / len * sin(a / 2));
					v[k * 4 + 3] = (float)cos(a / 2);
				}
			}
			tracks[count].node = (uint32_t)i;
			tracks[count].property = translation ? NODE_TRANSLATION : NODE_ROTATION;
			tracks[count].euler = 0;
			tracks[count].keys = s;
			count++;
		}
	return count;
}

/* The straightforward world matrices: T R S of each node, times its parent's, recursively. */
static void local_matrix(const float t[3], const float q[4], const float s[3], double m[16])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
	               2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
	               2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
	memset(m, 0, 16 * sizeof(double));
	for (int c = 0; c < 3; c++)
		for (int row = 0; row < 3; row++)
			m[c * 4 + row] = r[c * 3 + row] * s[c];
	for (int row = 0; row < 3; row++)
		m[12 + row] = t[row];
	m[15] = 1;
}

static void world_of(const struct rig *rig, const float *trs, size_t i, double out[16])
{
	double local[16], parent[16];

	local_matrix(trs + i * 10, trs + i * 10 + 3, trs + i * 10 + 7, local);
	if (rig->nodes[i].parent < 0) {
		memcpy(out, local, sizeof(local));
		return;
	}
	world_of(rig, trs, (size_t)rig->nodes[i].parent, parent);
	for (int c = 0; c < 4; c++)
		for (int row = 0; row < 4; row++) {
			double sum = 0;
			for (int k = 0; k < 4; k++)
				sum += parent[k * 4 + row] * local[c * 4 + k];
			out[c * 4 + row] = sum;
		}
}

/* Every node's local pose at t under the tracks (quaternion or translation, no Euler here). */
static void pose_by_hand(const struct rig *rig, const struct object_track *tracks, size_t count,
                         float t, float *trs)
{
	for (size_t i = 0; i < rig->count; i++) {
		memcpy(trs + i * 10, rig->nodes[i].translation, 3 * sizeof(float));
		memcpy(trs + i * 10 + 3, rig->nodes[i].rotation, 4 * sizeof(float));
		memcpy(trs + i * 10 + 7, rig->nodes[i].scale, 3 * sizeof(float));
	}
	for (size_t k = 0; k < count; k++) {
		struct curve c;
		struct curve_cursor cur;
		curve_from_sampler(&c, tracks[k].keys);
		curve_cursor_init(&cur);
		curve_sample_f32(&c, &cur, t,
		                 trs + tracks[k].node * 10 +
		                     (tracks[k].property == NODE_TRANSLATION ? 0 : 3));
	}
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The measure written out: the largest error, its 99th percentile (nearest rank) and the
 * share under threshold. */
static void measure_by_hand(const struct rig *rig, const struct object_track *a,
                            const struct object_track *b, size_t count, const float *times,
                            size_t times_count, double vv, double threshold, double *largest,
                            double *p99, double *under)
{
	float *ta = malloc(rig->count * 10 * sizeof(float)),
	      *tb = malloc(rig->count * 10 * sizeof(float));
	double *errors = malloc(rig->count * times_count * sizeof(double));
	size_t s = 0, below = 0;

	*largest = 0;
	for (size_t t = 0; t < times_count; t++) {
		pose_by_hand(rig, a, count, times[t], ta);
		pose_by_hand(rig, b, count, times[t], tb);
		for (size_t i = 0; i < rig->count; i++) {
			double wa[16], wb[16], worst = 0;
			world_of(rig, ta, i, wa);
			world_of(rig, tb, i, wb);
			for (int axis = 0; axis < 3; axis++) {
				double d = 0;
				for (int r = 0; r < 3; r++) {
					double va = wa[12 + r] + vv * wa[axis * 4 + r];
					double vb = wb[12 + r] + vv * wb[axis * 4 + r];
					d += (va - vb) * (va - vb);
				}
				worst = fmax(worst, sqrt(d));
			}
			errors[s++] = worst;
			below += worst < threshold;
			*largest = fmax(*largest, worst);
		}
	}
	qsort(errors, s, sizeof(double), compare_doubles);
	*p99 = errors[(size_t)ceil(0.99 * (double)s) - 1];
	*under = (double)below / (double)s;
	free(ta);
	free(tb);
	free(errors);
}

static void free_samplers(struct sampler *s, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(s[i].times);
		free(s[i].values);
	}
}

START_TEST(the_measure_is_the_straightforward_one)
{
	unsigned seed = 1000 + (unsigned)_i;
	struct rig rig;
	struct sampler samplers[40], changed[40];
	struct object_track a[40], b[40];
	size_t n = 2 + (size_t)_i * 3, count;
	float *times;
	size_t times_count;
	struct object_error_report report;
	double largest, p99, under;

	random_rig(&seed, n, &rig);
	count = random_motion(&seed, &rig, 40, samplers, a);
	/* the other animation: every key moved a little */
	for (size_t k = 0; k < count; k++) {
		const struct sampler *s = a[k].keys;
		uint32_t m = (uint32_t)sampler_components(s);
		changed[k] = *s;
		changed[k].times = malloc(s->key_count * sizeof(float));
		changed[k].values = malloc(s->value_bytes);
		memcpy(changed[k].times, s->times, s->key_count * sizeof(float));
		for (uint32_t j = 0; j < s->key_count * m; j++)
			((float *)changed[k].values)[j] =
			    ((const float *)s->values)[j] + (float)uniform(&seed, -0.01, 0.01);
		b[k] = a[k];
		b[k].keys = &changed[k];
	}
	ck_assert_int_eq(object_error_times(a, count, 40 / 30.0, &times, &times_count), 0);
	ck_assert_uint_eq(times_count, 40 + 39); /* the keys and the middles */
	ck_assert_int_eq(
	    object_error_compare(&rig, a, count, b, count, times, times_count, 0.05, 0.01, &report),
	    0);
	measure_by_hand(&rig, a, b, count, times, times_count, 0.05, 0.01, &largest, &p99, &under);
	ck_assert_msg(fabs(report.largest - largest) <= 1e-5 * fmax(1, largest),
	              "largest %.9g, by hand %.9g", report.largest, largest);
	ck_assert_msg(fabs(report.p99 - p99) <= 1e-5 * fmax(1, p99), "p99 %.9g, by hand %.9g",
	              report.p99, p99);
	ck_assert_msg(fabs(report.share_under - under) <= 2.0 / (double)report.samples,
	              "share %.6f, by hand %.6f", report.share_under, under);
	ck_assert_uint_eq(report.samples, n * times_count);
	ck_assert(report.largest > 0);
	/* the same animation: no error anywhere */
	ck_assert_int_eq(
	    object_error_compare(&rig, a, count, a, count, times, times_count, 0.05, 0.01, &report),
	    0);
	ck_assert(report.largest == 0 && report.share_under == 1);
	free(times);
	free_samplers(samplers, count);
	free_samplers(changed, count);
	rig_cleanup(&rig);
}
END_TEST

/* --- the local reduction against the fewest keys ------------------------------------------ */

/* The dense track's slope at key k, as reduce.h says the Hermite fit takes it: from its
 * neighbours. */
static const float *key_value(const struct sampler *s, uint32_t k, uint32_t n)
{
	const float *v = s->values;
	return s->interp == INTERP_CUBIC_SPLINE ? v + ((size_t)k * 3 + 1) * n : v + (size_t)k * n;
}

static void slope_at(const struct sampler *s, uint32_t k, uint32_t n, float *out)
{
	uint32_t lo = k > 0 ? k - 1 : k, hi = k + 1 < s->key_count ? k + 1 : k;
	double dt = (double)s->times[hi] - s->times[lo];

	for (uint32_t j = 0; j < n; j++)
		out[j] =
		    dt > 0 ? (float)(((double)key_value(s, hi, n)[j] - key_value(s, lo, n)[j]) / dt)
		           : 0;
}

/* How far two values are, as reduce.h measures: the angle of two rotations, else the largest
 * component's difference. */
static double apart(const float *a, const float *b, uint32_t n, int quaternion)
{
	double worst = 0;

	if (quaternion) {
		double dot = 0, la = 0, lb = 0;
		for (int i = 0; i < 4; i++) {
			dot += (double)a[i] * b[i];
			la += (double)a[i] * a[i];
			lb += (double)b[i] * b[i];
		}
		dot = fabs(dot) / sqrt(la * lb);
		return 2 * acos(dot > 1 ? 1 : dot);
	}
	for (uint32_t j = 0; j < n; j++)
		worst = fmax(worst, fabs((double)a[j] - b[j]));
	return worst;
}

/* Whether the segment from key a to key b fits, as reduce.h defines it: its curve within the
 * tolerance of the dense one at every dense key it spans and at the quarters between. */
static int fits(const struct sampler *s, uint32_t a, uint32_t b, double tolerance, int hermite)
{
	uint32_t n = (uint32_t)sampler_components(s);
	int quaternion = s->semantic == SEMANTIC_NORMALIZED_QUATERNION;
	float times[2] = {s->times[a], s->times[b]}, values[24] = {0}, got[4], want[4];
	struct sampler seg = *s;
	struct curve c, dense;
	struct curve_cursor cc, cd;

	seg.key_count = 2;
	seg.times = times;
	seg.values = values;
	if (hermite) {
		seg.interp = INTERP_CUBIC_SPLINE;
		memcpy(values + n, key_value(s, a, n), n * sizeof(float));
		slope_at(s, a, n, values + 2 * n);
		slope_at(s, b, n, values + 3 * n);
		memcpy(values + 4 * n, key_value(s, b, n), n * sizeof(float));
		seg.value_bytes = 6 * n * sizeof(float);
	} else {
		seg.interp = INTERP_LINEAR;
		memcpy(values, (const float *)s->values + a * n, n * sizeof(float));
		memcpy(values + n, (const float *)s->values + b * n, n * sizeof(float));
		seg.value_bytes = 2 * n * sizeof(float);
	}
	curve_from_sampler(&c, &seg);
	curve_from_sampler(&dense, s);
	curve_cursor_init(&cc);
	curve_cursor_init(&cd);
	for (uint32_t i = a; i < b; i++)
		for (int q = 0; q < 4; q++) {
			float t = s->times[i] + (s->times[i + 1] - s->times[i]) * (float)q / 4;
			if (q == 0 && i == a)
				continue;
			curve_sample_f32(&c, &cc, t, got);
			curve_sample_f32(&dense, &cd, t, want);
			if (!(apart(got, want, n, quaternion) <= tolerance))
				return 0;
		}
	return 1;
}

/* The fewest keys of any reduction whose segments all fit: best[b] = 1 + the fewest over the
 * a < b whose segment a..b fits. */
static uint32_t fewest_keys(const struct sampler *s, double tolerance, int hermite)
{
	uint32_t n = s->key_count, *best = malloc(n * sizeof(*best)), result;

	best[0] = 1;
	for (uint32_t b = 1; b < n; b++) {
		best[b] = UINT32_MAX;
		for (uint32_t a = 0; a < b; a++)
			if (best[a] + 1 < best[b] &&
			    (a + 1 == b || fits(s, a, b, tolerance, hermite)))
				best[b] = best[a] + 1;
	}
	result = best[n - 1];
	free(best);
	return result;
}

/* A step track's fewest keys: each dense key takes the value of the last key kept at or
 * before it, within the tolerance; the first and last keys kept. */
static uint32_t fewest_steps(const struct sampler *s, double tolerance)
{
	uint32_t n = s->key_count, m = (uint32_t)sampler_components(s), *best, result;
	const float *v = s->values;

	best = malloc(n * sizeof(*best));
	best[0] = 1;
	for (uint32_t j = 1; j < n; j++) {
		best[j] = UINT32_MAX;
		for (uint32_t i = j; i-- > 0;) {
			int covered = 1;
			for (uint32_t k = i + 1; k < j && covered; k++)
				covered = apart(v + k * m, v + i * m, m, 0) <= tolerance;
			if (covered && best[i] + 1 < best[j])
				best[j] = best[i] + 1;
		}
	}
	/* the last key may also be covered by an earlier one, but is kept all the same */
	result = best[n - 1];
	free(best);
	return result;
}

/* A random dense track of kind k: 0 STEP, 1 LINEAR FLOAT, 2 LINEAR FLOAT3, 3 quaternions,
 * 4 CUBIC_SPLINE FLOAT2 (Hermite fit). */
static struct sampler random_track(unsigned *seed, int kind, uint32_t keys)
{
	struct sampler s = {0};
	uint32_t n = kind == 0 || kind == 1 ? 1 : kind == 2 ? 3 : kind == 3 ? 4 : 2;
	uint32_t per = kind == 4 ? 3 : 1;
	float *v = calloc((size_t)keys * n * per, sizeof(float));
	double phase = uniform(seed, 0, 6), speed = uniform(seed, 1, 4);

	s.type = n == 1   ? VALUE_FLOAT
	         : n == 2 ? VALUE_FLOAT2
	         : n == 3 ? VALUE_FLOAT3
	                  : VALUE_FLOAT4;
	s.array_size = 1;
	s.interp = kind == 0 ? INTERP_STEP : kind == 4 ? INTERP_CUBIC_SPLINE : INTERP_LINEAR;
	s.semantic = kind == 3 ? SEMANTIC_NORMALIZED_QUATERNION : SEMANTIC_COMPONENT_WISE;
	s.key_count = keys;
	s.times = malloc(keys * sizeof(float));
	s.values = v;
	s.value_bytes = (size_t)keys * n * per * sizeof(float);
	for (uint32_t k = 0; k < keys; k++) {
		double t = k / 24.0, x = sin(speed * t + phase) + uniform(seed, -0.02, 0.02);
		s.times[k] = (float)t;
		if (kind == 0) {
			v[k] = (float)floor(4 * x) / 4;
		} else if (kind == 3) {
			double h = x / 2;
			v[k * 4 + 0] = (float)(sin(h) * 0.6);
			v[k * 4 + 1] = (float)(sin(h) * 0.8);
			v[k * 4 + 3] = (float)cos(h);
		} else {
			for (uint32_t j = 0; j < n; j++)
				v[(k * per + (per == 3 ? 1 : 0)) * n + j] = (float)(x * (j + 1));
		}
	}
	if (kind == 4) /* the tangents of the dense track: its slope */
		for (uint32_t k = 0; k < keys; k++)
			for (uint32_t j = 0; j < n; j++) {
				uint32_t lo = k ? k - 1 : k, hi = k + 1 < keys ? k + 1 : k;
				float d = (v[(hi * 3 + 1) * n + j] - v[(lo * 3 + 1) * n + j]) /
				          (s.times[hi] - s.times[lo]);
				v[(k * 3) * n + j] = v[(k * 3 + 2) * n + j] = d;
			}
	return s;
}

START_TEST(the_local_reduction_is_near_the_fewest_keys)
{
	unsigned seed = getenv("ORACLE_SEED") ? (unsigned)atoi(getenv("ORACLE_SEED")) : 77;
	uint32_t ours_total = 0, fewest_total = 0;

	for (int kind = 0; kind < 5; kind++)
		for (int round = 0; round < 12; round++) {
			struct sampler dense = random_track(&seed, kind, 60 + (uint32_t)round * 5),
			               out;
			struct reduce_result r;
			double tolerance = uniform(&seed, 0.005, 0.1);
			int hermite = kind == 4;
			uint32_t fewest;
			ck_assert_int_eq(reduce_sampler(&dense, tolerance,
			                                hermite ? REDUCE_HERMITE : REDUCE_LINEAR,
			                                &out, &r),
			                 0);
			fewest = kind == 0 ? fewest_steps(&dense, tolerance)
			                   : fewest_keys(&dense, tolerance, hermite);
			ck_assert_msg(
			    out.key_count >= fewest,
			    "kind %d: %u keys, fewer than the fewest %u (the oracle is wrong)",
			    kind, out.key_count, fewest);
			ck_assert_msg(out.key_count <= ceil(1.05 * fewest),
			              "kind %d round %d: %u keys of %u at tolerance %g; the fewest "
			              "that fit: %u",
			              kind, round, out.key_count, dense.key_count, tolerance,
			              fewest);
			ours_total += out.key_count;
			fewest_total += fewest;
			free(out.times);
			free(out.values);
			free(dense.times);
			free(dense.values);
		}
	printf("local reduction: %u keys in all, the fewest %u (%.3fx)\n", ours_total, fewest_total,
	       (double)ours_total / fewest_total);
}
END_TEST

/* --- the object-space reduction -------------------------------------------------------------- */

/* Every track reduced locally at one tolerance; its keys, and its largest error by hand. */
static uint64_t local_keys(const struct rig *rig, const struct object_track *tracks, size_t count,
                           double tolerance, const float *times, size_t times_count, double vv,
                           double *largest)
{
	struct sampler out[64];
	struct object_track b[64];
	uint64_t keys = 0;
	double p99, under;

	for (size_t i = 0; i < count; i++) {
		struct reduce_result r;
		ck_assert_int_eq(
		    reduce_sampler(tracks[i].keys, tolerance, REDUCE_LINEAR, &out[i], &r), 0);
		b[i] = tracks[i];
		b[i].keys = &out[i];
		keys += out[i].key_count;
	}
	measure_by_hand(rig, tracks, b, count, times, times_count, vv, 1, largest, &p99, &under);
	free_samplers(out, count);
	return keys;
}

/* The object-space reduction of tracks within threshold: checked by hand, and against the
 * local reduction of the same largest error. */
static void check_object_reduction(const struct rig *rig, const struct object_track *tracks,
                                   size_t count, double duration, double threshold, double vv,
                                   int against_local)
{
	struct reduce_object_options opt = {threshold, vv, duration, REDUCE_LINEAR};
	struct reduce_object_result r;
	struct sampler out[64];
	struct object_track b[64];
	float *times;
	size_t times_count;
	double largest, p99, under, lo = 0, hi = 0, t = 1e-3;
	uint64_t best_local = UINT64_MAX;

	ck_assert_uint_le(count, 64);
	ck_assert_int_eq(object_error_times(tracks, count, duration, &times, &times_count), 0);
	ck_assert_int_eq(reduce_object(rig, tracks, count, &opt, out, &r), 0);
	for (size_t i = 0; i < count; i++) {
		b[i] = tracks[i];
		b[i].keys = &out[i];
	}
	measure_by_hand(rig, tracks, b, count, times, times_count, vv, threshold, &largest, &p99,
	                &under);
	ck_assert_msg(largest <= threshold * (1 + 1e-9), "largest %.9g over the threshold %.9g",
	              largest, threshold);
	ck_assert_msg(fabs(largest - r.error.largest) <= 1e-6 * fmax(1, largest),
	              "reported %.9g, by hand %.9g", r.error.largest, largest);
	ck_assert(r.keys_after < r.keys_before);
	/* the local reduction: the most keys dropped at a largest error no larger */
	for (int i = 0; against_local && i < 40 && !(lo > 0 && hi > 0); i++) {
		double e;
		uint64_t keys = local_keys(rig, tracks, count, t, times, times_count, vv, &e);
		if (e <= largest)
			lo = t, t *= 4, best_local = keys < best_local ? keys : best_local;
		else
			hi = t, t /= 4;
	}
	for (int i = 0; against_local && i < 10 && lo > 0 && hi > 0; i++) {
		double e;
		uint64_t keys;
		t = sqrt(lo * hi);
		keys = local_keys(rig, tracks, count, t, times, times_count, vv, &e);
		if (e <= largest)
			lo = t, best_local = keys < best_local ? keys : best_local;
		else
			hi = t;
	}
	if (against_local)
		ck_assert_msg(r.keys_after <= best_local,
		              "object-space: %llu keys at largest %.6g; local: %llu at no more",
		              (unsigned long long)r.keys_after, largest,
		              (unsigned long long)best_local);
	free_samplers(out, count);
	free(times);
}

START_TEST(the_object_reduction_stays_within_its_threshold)
{
	unsigned seed = 500 + (unsigned)_i;
	struct rig rig;
	struct sampler samplers[40];
	struct object_track tracks[40];
	size_t count;

	random_rig(&seed, 8 + (size_t)_i * 2, &rig);
	count = random_motion(&seed, &rig, 90, samplers, tracks);
	check_object_reduction(&rig, tracks, count, 89 / 30.0, 0.002 * (1 + _i), 0.05, 1);
	free_samplers(samplers, count);
	rig_cleanup(&rig);
}
END_TEST

START_TEST(the_cmu_clip_reduces_within_the_threshold)
{
	struct upload up = {0};
	struct decode_result dr;
	struct error err;
	struct resource *res;
	struct object_track tracks[64];
	struct object_scale scale;
	size_t length, count = 0;
	char *text;

	if (access(CMU_01_01, R_OK) != 0) {
		printf("SKIP: the_cmu_clip_reduces_within_the_threshold: needs Debian's "
		       "assimp-testmodels (%s)\n",
		       CMU_01_01);
		return;
	}
	ck_assert_ptr_nonnull(text = testutil_read_file(CMU_01_01, &length));
	up.data = (const uint8_t *)text;
	up.length = length;
	up.filename = "01_01.bvh";
	error_init(&err);
	decode_result_init(&dr);
	ck_assert_int_eq(format_decode(&up, &dr, &err), 0);
	res = dr.resources[0];
	for (size_t i = 0; i < res->clip.channel_count; i++) {
		const struct channel *ch = &res->clip.channels[i];
		const struct target *tg = &res->clip.targets[ch->target];
		struct pose_target t = {tg->schema, tg->object, tg->name, 0, 0, ch->property};
		const char *why;
		ck_assert_int_eq(object_track_match(&res->rig, t, 1,
		                                    &res->clip.samplers[ch->sampler],
		                                    &tracks[count], &why),
		                 0);
		count++;
	}
	ck_assert_uint_eq(count, 32);
	ck_assert_int_eq(object_error_scale(&res->rig, tracks, count, &scale), 0);
	ck_assert(scale.source == HEIGHT_REST_POSE && scale.height > 20 && scale.height < 40);
	{
		struct reduce_object_options opt = {0.05 * scale.units_per_cm,
		                                    OBJECT_ERROR_DEFAULT_VV * scale.units_per_cm,
		                                    res->clip.duration, REDUCE_LINEAR};
		struct reduce_object_result r;
		struct sampler out[64];
		const struct sampler *changed[64];
		float *times;
		size_t times_count;
		struct object_error_report again;
		ck_assert_int_eq(reduce_object(&res->rig, tracks, count, &opt, out, &r), 0);
		ck_assert_int_eq(
		    object_error_times(tracks, count, res->clip.duration, &times, &times_count), 0);
		for (size_t i = 0; i < count; i++)
			changed[i] = &out[i];
		ck_assert_int_eq(object_error_measure(&res->rig, tracks, changed, count, times,
		                                      times_count, opt.vv, opt.threshold, &again),
		                 0);
		ck_assert_msg(again.largest <= opt.threshold, "largest %.6g cm over 0.05 cm",
		              again.largest / scale.units_per_cm);
		ck_assert(r.keys_after <
		          r.keys_before * 0.8); /* 88,064 keys: at least 1.25x fewer */
		printf("CMU 01_01 at 0.05 cm: %llu keys of %llu, largest %.4f cm, p99 %.4f cm\n",
		       (unsigned long long)r.keys_after, (unsigned long long)r.keys_before,
		       again.largest / scale.units_per_cm, again.p99 / scale.units_per_cm);
		free_samplers(out, count);
		free(times);
	}
	decode_result_cleanup(&dr);
	free(text);
}
END_TEST

static Suite *object_error_suite(void)
{
	Suite *s = suite_create("object_error");
	TCase *tc = tcase_create("object_error");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, the_measure_is_the_straightforward_one, 0, 6);
	tcase_add_test(tc, the_local_reduction_is_near_the_fewest_keys);
	tcase_add_loop_test(tc, the_object_reduction_stays_within_its_threshold, 0, 4);
	tcase_add_test(tc, the_cmu_clip_reduces_within_the_threshold);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(object_error_suite());
}
