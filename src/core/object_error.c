/* object_error.c: the object-space error of a changed animation (include/core/object_error.h):
 * the rig's height, the sampled times, and both animations posed side by side with three
 * virtual vertices a node. */
#include "core/object_error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The largest side of the box around the origins of `count` world matrices. */
static double box_side(const double *world, size_t count)
{
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	double side = 0;

	for (size_t i = 0; i < count; i++)
		for (int a = 0; a < 3; a++) {
			double v = world[i * 16 + 12 + a];
			if (!isfinite(v))
				continue;
			lo[a] = v < lo[a] ? v : lo[a];
			hi[a] = v > hi[a] ? v : hi[a];
		}
	for (int a = 0; a < 3; a++)
		if (hi[a] - lo[a] > side)
			side = hi[a] - lo[a];
	return side;
}

int object_track_match(const struct rig *rig, struct pose_target t, int own_rig,
                       const struct sampler *s, struct object_track *out, const char **why)
{
	int euler = pose_target_euler(&t);
	int32_t node = pose_match(rig, &t, own_rig, why);

	if (node < 0)
		return -1;
	*why = pose_sampler_fits((enum node_property)t.property, euler, s);
	if (*why)
		return -1;
	out->node = (uint32_t)node;
	out->property = (enum node_property)t.property;
	out->euler = euler;
	out->keys = s;
	return 0;
}

static int add_tracks(struct pose *p, const struct object_track *tracks,
                      const struct sampler *const *changed, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		const struct sampler *s = changed && changed[i] ? changed[i] : tracks[i].keys;
		if (pose_add_track(p, tracks[i].node, tracks[i].property, tracks[i].euler, s) < 0)
			return -1;
	}
	return 0;
}

int object_error_scale(const struct rig *rig, const struct object_track *tracks, size_t count,
                       struct object_scale *out)
{
	struct pose p;
	double side;

	if (pose_init(&p, rig) < 0)
		return -1;
	pose_at(&p, 0); /* no tracks: the rest pose */
	side = box_side(p.world, rig->count);
	out->source = HEIGHT_REST_POSE;
	if (!(side > 0)) {
		if (add_tracks(&p, tracks, NULL, count) < 0) {
			pose_cleanup(&p);
			return -1;
		}
		pose_at(&p, 0);
		side = box_side(p.world, rig->count);
		out->source = HEIGHT_FIRST_POSE;
	}
	if (!(side > 0) || !isfinite(side)) {
		side = 1;
		out->source = HEIGHT_UNIT;
	}
	out->height = side;
	out->units_per_cm = side / OBJECT_ERROR_HUMAN_CM;
	pose_cleanup(&p);
	return 0;
}

static int compare_floats(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

int object_error_times(const struct object_track *tracks, size_t count, double duration,
                       float **times, size_t *times_count)
{
	size_t n = 1, kept = 0;
	float *t;

	for (size_t i = 0; i < count; i++)
		n += tracks[i].keys->key_count;
	t = malloc(2 * n * sizeof(*t));
	if (!t)
		return -1;
	t[kept++] = 0;
	for (size_t i = 0; i < count; i++)
		for (uint32_t k = 0; k < tracks[i].keys->key_count; k++) {
			float v = tracks[i].keys->times[k];
			if (v >= 0 && v <= duration)
				t[kept++] = v;
		}
	qsort(t, kept, sizeof(*t), compare_floats);
	n = 1;
	for (size_t i = 1; i < kept; i++)
		if (t[i] != t[n - 1])
			t[n++] = t[i];
	/* the middles, after the keys: sorted again */
	kept = n;
	for (size_t i = 0; i + 1 < n; i++) {
		float middle = t[i] + (t[i + 1] - t[i]) / 2;
		if (middle > t[i] && middle < t[i + 1])
			t[kept++] = middle;
	}
	qsort(t, kept, sizeof(*t), compare_floats);
	*times = t;
	*times_count = kept;
	return 0;
}

/* The largest distance between node i's three virtual vertices under world matrices a and b. */
static double node_error(const double *a, const double *b, double vv)
{
	double worst = 0;

	for (int axis = 0; axis < 3; axis++) {
		double d = 0;
		for (int r = 0; r < 3; r++) {
			double pa = a[12 + r] + vv * a[axis * 4 + r],
			       pb = b[12 + r] + vv * b[axis * 4 + r];
			d += (pa - pb) * (pa - pb);
		}
		if (!(d <= worst)) /* NaN counts as the worst */
			worst = d;
	}
	return isnan(worst) ? INFINITY : sqrt(worst);
}

/* The k-th smallest of v[0..n) (n > k; v reordered): selection with a three-way partition,
 * so that runs of equal errors (every node that no track moves: 0) cost one pass. */
static double select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n; /* the k-th is in [lo, hi) */

	while (hi - lo > 1) {
		double pivot = v[lo + (hi - lo) / 2], swap;
		size_t lt = lo, gt = hi, i = lo;
		/* [lo, lt) below the pivot, [lt, i) equal, [gt, hi) above */
		while (i < gt) {
			if (v[i] < pivot) {
				swap = v[lt], v[lt++] = v[i], v[i++] = swap;
			} else if (v[i] > pivot) {
				swap = v[--gt], v[gt] = v[i], v[i] = swap;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return v[lo];
}

int object_error_measure(const struct rig *rig, const struct object_track *tracks,
                         const struct sampler *const *changed, size_t count, const float *times,
                         size_t times_count, double vv, double threshold,
                         struct object_error_report *out)
{
	struct object_track *b = malloc((count + 1) * sizeof(*b));
	int rc;

	if (!b)
		return -1;
	for (size_t i = 0; i < count; i++) {
		b[i] = tracks[i];
		if (changed && changed[i])
			b[i].keys = changed[i];
	}
	rc = object_error_compare(rig, tracks, count, b, count, times, times_count, vv, threshold,
	                          out);
	free(b);
	return rc;
}

int object_error_compare(const struct rig *rig, const struct object_track *tracks, size_t count,
                         const struct object_track *other, size_t other_count, const float *times,
                         size_t times_count, double vv, double threshold,
                         struct object_error_report *out)
{
	struct pose a, b;
	size_t n = rig->count, samples = n * times_count, under = 0, s = 0;
	double *errors = malloc((samples ? samples : 1) * sizeof(*errors));
	int failed = pose_init(&a, rig);

	if (!failed && pose_init(&b, rig) < 0) {
		pose_cleanup(&a);
		failed = -1;
	}
	if (failed || !errors) {
		free(errors);
		if (!failed) {
			pose_cleanup(&a);
			pose_cleanup(&b);
		}
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->vv = vv;
	out->threshold = threshold;
	out->times = times_count;
	out->samples = samples;
	if (add_tracks(&a, tracks, NULL, count) < 0 ||
	    add_tracks(&b, other, NULL, other_count) < 0) {
		failed = -1;
		goto done;
	}
	for (size_t t = 0; t < times_count; t++) {
		pose_at(&a, times[t]);
		pose_at(&b, times[t]);
		for (size_t i = 0; i < n; i++) {
			double e = node_error(a.world + i * 16, b.world + i * 16, vv);
			errors[s++] = e;
			under += e < threshold;
			if (e > out->largest) {
				out->largest = e;
				out->largest_node = (uint32_t)i;
				out->largest_time = times[t];
			}
		}
	}
	if (samples) {
		out->share_under = (double)under / (double)samples;
		/* the 99th percentile, nearest rank */
		out->p99 = select_kth(errors, samples, (size_t)ceil(0.99 * (double)samples) - 1);
	}
done:
	free(errors);
	pose_cleanup(&a);
	pose_cleanup(&b);
	return failed;
}

struct object_error_reference {
	const struct rig *rig;
	const struct object_track *tracks;
	size_t count, times_count;
	const float *times;
	double vv;
	double *vertices; /* times x nodes x 3 vertices x xyz, or NULL: posed again */
	struct pose original;
};

/* Node i's three virtual vertices under world matrix m, into v[9]. */
static void vertices_of(const double *m, double vv, double *v)
{
	for (int axis = 0; axis < 3; axis++)
		for (int r = 0; r < 3; r++)
			v[axis * 3 + r] = m[12 + r] + vv * m[axis * 4 + r];
}

struct object_error_reference *object_error_reference_make(const struct rig *rig,
                                                           const struct object_track *tracks,
                                                           size_t count, const float *times,
                                                           size_t times_count, double vv)
{
	struct object_error_reference *ref = calloc(1, sizeof(*ref));
	size_t n = rig->count, per_time = n * 9;

	if (!ref)
		return NULL;
	ref->rig = rig;
	ref->tracks = tracks;
	ref->count = count;
	ref->times = times;
	ref->times_count = times_count;
	ref->vv = vv;
	if (pose_init(&ref->original, rig) < 0) {
		free(ref);
		return NULL;
	}
	if (add_tracks(&ref->original, tracks, NULL, count) < 0) {
		object_error_reference_free(ref);
		return NULL;
	}
	if (times_count && per_time &&
	    times_count <= OBJECT_ERROR_CACHE_BYTES / sizeof(double) / per_time)
		ref->vertices = malloc(times_count * per_time * sizeof(double));
	for (size_t t = 0; ref->vertices && t < times_count; t++) {
		pose_at(&ref->original, times[t]);
		for (size_t i = 0; i < n; i++)
			vertices_of(ref->original.world + i * 16, vv,
			            ref->vertices + (t * n + i) * 9);
	}
	return ref;
}

void object_error_reference_free(struct object_error_reference *ref)
{
	if (!ref)
		return;
	free(ref->vertices);
	pose_cleanup(&ref->original);
	free(ref);
}

int object_error_within(struct object_error_reference *ref, const struct sampler *const *changed,
                        double threshold)
{
	size_t n = ref->rig->count;
	double limit = threshold * threshold;
	struct pose b;
	int within = 1;

	if (pose_init(&b, ref->rig) < 0)
		return -1;
	if (add_tracks(&b, ref->tracks, changed, ref->count) < 0) {
		pose_cleanup(&b);
		return -1;
	}
	for (size_t t = 0; t < ref->times_count && within; t++) {
		pose_at(&b, ref->times[t]);
		if (!ref->vertices)
			pose_at(&ref->original, ref->times[t]);
		for (size_t i = 0; i < n && within; i++) {
			double got[9], posed[9];
			const double *want =
			    ref->vertices ? ref->vertices + (t * n + i) * 9 : posed;
			vertices_of(b.world + i * 16, ref->vv, got);
			if (!ref->vertices)
				vertices_of(ref->original.world + i * 16, ref->vv, posed);
			for (int axis = 0; axis < 3 && within; axis++) {
				double d = 0;
				for (int r = 0; r < 3; r++) {
					double e = got[axis * 3 + r] - want[axis * 3 + r];
					d += e * e;
				}
				within = d <= limit;
			}
		}
	}
	pose_cleanup(&b);
	return within;
}
