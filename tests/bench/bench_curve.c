/* bench_curve.c: the sampling core and the float formatter, measured in one run.
 *
 * Each figure is the median of REPS repetitions: samples per second for a sweep of 10^6
 * increasing times over a 1,000-key FLOAT3 CUBIC_SPLINE track and a 1,000-key quaternion
 * LINEAR (slerp) track; the same sweep with a fresh cursor per sample (an independent binary
 * search each time) and the ratio; nanoseconds per sample from 10 to 10^6 keys; and the float
 * formatter against the snprintf search it replaced. Prints "name<TAB>value<TAB>unit". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/curve.h"
#include "render/render.h"

#define REPS    7
#define SAMPLES 1000000

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), compare);
	return v[n / 2];
}

static volatile float sink;

/* Seconds for one sweep of SAMPLES times over the curve; fresh: a new cursor per sample. */
static double sweep(const struct curve *c, int fresh, float t_end)
{
	struct curve_cursor cur;
	float out[4], acc = 0;
	double start = now();

	curve_cursor_init(&cur);
	for (int i = 0; i < SAMPLES; i++) {
		float t = t_end * (float)i / SAMPLES;
		if (fresh)
			curve_cursor_init(&cur);
		curve_sample_f32(c, &cur, t, out);
		acc += out[0];
	}
	sink = acc;
	return now() - start;
}

/* The same sweep as the server samples a range: 256 times at once (curve_sample_times). */
static double sweep_batch(const struct curve *c, float t_end)
{
	struct curve_cursor cur;
	float ts[256], *out = malloc(256 * 16 * sizeof(float)), acc = 0;
	double start = now();

	curve_cursor_init(&cur);
	for (int i = 0; i < SAMPLES; i += 256) {
		int n = SAMPLES - i < 256 ? SAMPLES - i : 256;
		for (int j = 0; j < n; j++)
			ts[j] = t_end * (float)(i + j) / SAMPLES;
		curve_sample_times(c, &cur, ts, (size_t)n, out);
		for (int j = 0; j < n; j++)
			acc += out[j * c->components];
	}
	sink = acc;
	free(out);
	return now() - start;
}

static struct curve make_curve(uint32_t keys, int quaternion, float **times, float **values)
{
	struct curve c;
	unsigned comps = quaternion ? 4 : 3, per = quaternion ? 1 : 3;

	*times = malloc(keys * sizeof(float));
	*values = malloc((size_t)keys * comps * per * sizeof(float));
	for (uint32_t k = 0; k < keys; k++) {
		(*times)[k] = (float)k * 0.01f;
		for (unsigned i = 0; i < comps * per; i++)
			(*values)[(size_t)k * comps * per + i] = sinf((float)(k * 7 + i));
	}
	c.type = quaternion ? VALUE_FLOAT4 : VALUE_FLOAT3;
	c.interp = quaternion ? INTERP_LINEAR : INTERP_CUBIC_SPLINE;
	c.semantic = quaternion ? SEMANTIC_NORMALIZED_QUATERNION : SEMANTIC_COMPONENT_WISE;
	c.components = comps;
	c.key_count = keys;
	c.times = *times;
	c.values = *values;
	return c;
}

static size_t slow_format(float f, char *out)
{
	int n;
	for (int p = 1; p < 9; p++) {
		n = snprintf(out, 32, "%.*g", p, (double)f);
		if (strtof(out, NULL) == f)
			return (size_t)n;
	}
	return (size_t)snprintf(out, 32, "%.9g", (double)f);
}

/* The curves tests/bench/three.mjs sweeps with three.js, key for key: FLOAT3 LINEAR values
 * sin(7k + i), and unit quaternions 0.3 rad apart about (1, 2, 3). */
static void three_js_curves(double r[REPS])
{
	float *times, *values;
	struct curve c;

	c = make_curve(1000, 0, &times, &values);
	c.interp = INTERP_LINEAR;
	for (uint32_t k = 0; k < 1000; k++)
		for (int i = 0; i < 3; i++)
			values[k * 3 + i] = sinf((float)(k * 7 + (uint32_t)i));
	for (int i = 0; i < REPS; i++)
		r[i] = SAMPLES / sweep(&c, 0, 9.99f);
	printf("sweep FLOAT3 linear 1000 keys (one at a time)\t%.1f\tmillion samples/s\n",
	       median(r, REPS) / 1e6);
	for (int i = 0; i < REPS; i++)
		r[i] = SAMPLES / sweep_batch(&c, 9.99f);
	printf("sweep FLOAT3 linear 1000 keys (animdex)\t%.1f\tmillion samples/s\n",
	       median(r, REPS) / 1e6);
	free(times), free(values);
	c = make_curve(1000, 1, &times, &values);
	for (uint32_t k = 0; k < 1000; k++) {
		double half = 0.15 * k, l = sqrt(14.0);
		values[k * 4 + 0] = (float)(sin(half) / l);
		values[k * 4 + 1] = (float)(2 * sin(half) / l);
		values[k * 4 + 2] = (float)(3 * sin(half) / l);
		values[k * 4 + 3] = (float)cos(half);
	}
	for (int i = 0; i < REPS; i++)
		r[i] = SAMPLES / sweep_batch(&c, 9.99f);
	printf("sweep quaternion slerp 0.3 rad apart 1000 keys (animdex)\t%.1f\tmillion "
	       "samples/s (target >= 80)\n",
	       median(r, REPS) / 1e6);
	free(times), free(values);
}

int main(int argc, char **argv)
{
	double r[REPS], cursor_rate, fresh_rate;
	float *times, *values;
	struct curve c;

	if (argc > 1 && strcmp(argv[1], "--three-js-curves") == 0) {
		/* only these, again: run.sh alternates them with three.js */
		three_js_curves(r);
		return 0;
	}

	/* FLOAT3 cubic, 1,000 keys */
	c = make_curve(1000, 0, &times, &values);
	for (int i = 0; i < REPS; i++)
		r[i] = SAMPLES / sweep(&c, 0, 10.0f);
	cursor_rate = median(r, REPS);
	for (int i = 0; i < REPS; i++)
		r[i] = SAMPLES / sweep(&c, 1, 10.0f);
	fresh_rate = median(r, REPS);
	printf("sweep FLOAT3 cubic 1000 keys (cursor)\t%.1f\tmillion samples/s\n",
	       cursor_rate / 1e6);
	printf("sweep FLOAT3 cubic 1000 keys (a search per sample)\t%.1f\tmillion samples/s\n",
	       fresh_rate / 1e6);
	printf("cursor / search per sample\t%.2f\tx\n", cursor_rate / fresh_rate);
	for (int i = 0; i < REPS; i++)
		r[i] = SAMPLES / sweep_batch(&c, 10.0f);
	printf("sweep FLOAT3 cubic 1000 keys (animdex, 256 at once)\t%.1f\tmillion samples/s "
	       "(target >= 250)\n",
	       median(r, REPS) / 1e6);
	free(times), free(values);
	/* quaternion slerp, 1,000 keys */
	c = make_curve(1000, 1, &times, &values);
	for (int i = 0; i < REPS; i++)
		r[i] = SAMPLES / sweep(&c, 0, 10.0f);
	printf("sweep quaternion slerp 1000 keys (cursor)\t%.1f\tmillion samples/s\n",
	       median(r, REPS) / 1e6);
	free(times), free(values);
	three_js_curves(r);
	/* scaling: ns per sample from 10 to 10^6 keys, the sweep covering every key */
	for (uint32_t keys = 10; keys <= 1000000; keys *= 10) {
		c = make_curve(keys, 0, &times, &values);
		for (int i = 0; i < REPS; i++)
			r[i] = sweep(&c, 0, (float)keys * 0.01f) / SAMPLES * 1e9;
		printf("sweep FLOAT3 cubic %u keys\t%.2f\tns/sample\n", keys, median(r, REPS));
		free(times), free(values);
	}
	/* formatting */
	{
		char text[32];
		float *v = malloc(SAMPLES * sizeof(float));
		size_t total = 0;
		double fast, slow;
		for (int i = 0; i < SAMPLES; i++)
			v[i] = sinf((float)i * 0.001f) * 3.0f;
		for (int rep = 0; rep < 3; rep++) {
			double s = now();
			for (int i = 0; i < SAMPLES; i++)
				total += render_float(v[i], 0, text);
			r[rep] = (now() - s) / SAMPLES * 1e9;
		}
		fast = median(r, 3);
		for (int rep = 0; rep < 3; rep++) {
			double s = now();
			for (int i = 0; i < SAMPLES / 10; i++)
				total += slow_format(v[i], text);
			r[rep] = (now() - s) / (SAMPLES / 10) * 1e9;
		}
		slow = median(r, 3);
		printf("float32 to shortest exact text (animdex)\t%.1f\tns/number (target <= 30)\n",
		       fast);
		printf(
		    "float32 to shortest exact text (snprintf search, before)\t%.1f\tns/number\n",
		    slow);
		printf("formatting speed-up\t%.1f\tx\n", slow / fast);
		sink = (float)total;
		free(v);
	}
	return 0;
}
