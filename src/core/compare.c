/* compare.c: how two tracks differ (compare.h): identical keys said without sampling, else the
 * largest, where and RMS differences over a dense sampling of both key ranges. */
#include "core/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/curve.h"

const char *compare_unfit(const struct sampler *a, const struct sampler *b)
{
	if (a->type != b->type || a->array_size != b->array_size)
		return "the two tracks hold different kinds of value (type or array size)";
	if (a->semantic != b->semantic)
		return "one track is a rotation and the other is not";
	if (value_type_scalar(a->type) != SCALAR_FLOAT)
		return "only float tracks are compared by value";
	if (sampler_components(a) > COMPARE_MAX_COMPONENTS)
		return "the values have too many components to compare";
	return NULL;
}

static int same_keys(const struct sampler *a, const struct sampler *b, struct compare_result *out)
{
	out->times_equal = a->key_count == b->key_count &&
	                   memcmp(a->times, b->times, a->key_count * sizeof(float)) == 0;
	out->values_equal = out->times_equal && a->interp == b->interp &&
	                    a->value_bytes == b->value_bytes &&
	                    memcmp(a->values, b->values, a->value_bytes) == 0;
	return out->values_equal && a->rules == b->rules;
}

/* The angle between two unit quaternions, radians. */
static double angle_between(const float *p, const float *q)
{
	double dot = fabs((double)p[0] * q[0] + (double)p[1] * q[1] + (double)p[2] * q[2] +
	                  (double)p[3] * q[3]);
	return 2.0 * acos(dot > 1.0 ? 1.0 : dot);
}

int compare_samplers(const struct sampler *a, const struct sampler *b, size_t count,
                     struct compare_result *out)
{
	size_t m = sampler_components(a);
	struct curve ca, cb;
	struct curve_cursor ua, ub;
	float *va, *vb;
	double sum[COMPARE_MAX_COMPONENTS] = {0};

	memset(out, 0, sizeof(*out));
	out->as_angle = a->semantic == SEMANTIC_NORMALIZED_QUATERNION && m == 4;
	out->components = out->as_angle ? 1 : m;
	out->from = fmin(a->times[0], b->times[0]);
	out->to = fmax(a->times[a->key_count - 1], b->times[b->key_count - 1]);
	for (size_t c = 0; c < out->components; c++)
		out->at[c] = out->from;
	if (same_keys(a, b, out)) {
		out->identical = 1;
		return 0;
	}
	va = malloc(m * sizeof(float));
	vb = malloc(m * sizeof(float));
	if (!va || !vb) {
		free(va);
		free(vb);
		return -1;
	}
	curve_from_sampler(&ca, a);
	curve_from_sampler(&cb, b);
	curve_cursor_init(&ua);
	curve_cursor_init(&ub);
	if (count < 2)
		count = 2;
	out->count = count;
	for (size_t i = 0; i < count; i++) {
		float t =
		    (float)(out->from + (out->to - out->from) * ((double)i / (double)(count - 1)));
		curve_sample_f32(&ca, &ua, t, va);
		curve_sample_f32(&cb, &ub, t, vb);
		for (size_t c = 0; c < out->components; c++) {
			double d =
			    out->as_angle ? angle_between(va, vb) : fabs((double)va[c] - vb[c]);
			if (d > out->largest[c]) {
				out->largest[c] = d;
				out->at[c] = t;
			}
			sum[c] += d * d;
		}
	}
	for (size_t c = 0; c < out->components; c++)
		out->rms[c] = sqrt(sum[c] / (double)count);
	free(va);
	free(vb);
	return 0;
}
