/* bench_reduce.c: the object-space reduction (core/reduce.h, reduce_object) against the
 * track-local one on motion capture, measured in one run.
 *
 * For each file given (Debian's CMU clips in assimp-testmodels: BVH, decoded by animdex's own
 * decoder), at each largest object-space error asked (in cm, on a rig scaled to a person's
 * height, virtual vertices at 3 cm: object_error.h):
 * - the local reduction: one tolerance for every track (reduce=TOLERANCE), the largest whose
 *   object-space error stays under the threshold (found by bisection);
 * - the object-space reduction at the same threshold, and the milliseconds it took (the median
 *   of REPS runs);
 * each with its keys before and after, the ratio, the largest error, its 99th percentile and
 * the share of samples under the threshold. Prints "name<TAB>value<TAB>unit" rows.
 *
 * --against ORIGINAL OTHER (two glTF files of one clip, the other made from the original by
 * another tool, gltfpack in make bench): the other's keys and its object-space error against
 * the original, node by node of the same name. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/pose.h"
#include "core/reduce.h"
#include "formats/format.h"

#define REPS 5

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

struct clip_under_test {
	const char *label;
	struct resource *res;
	struct object_track *tracks;
	size_t count;
	struct object_scale scale;
	float *times;
	size_t times_count;
};

static void free_samplers(struct sampler *s, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(s[i].times);
		free(s[i].values);
	}
}

/* Every track reduced locally at one tolerance: its keys, and its object-space error. */
static uint64_t local_at(const struct clip_under_test *c, double tolerance, double threshold,
                         struct object_error_report *error)
{
	struct sampler *out = calloc(c->count, sizeof(*out));
	const struct sampler **changed = calloc(c->count, sizeof(*changed));
	uint64_t keys = 0;

	for (size_t i = 0; i < c->count; i++) {
		struct reduce_result r;
		if (reduce_sampler(c->tracks[i].keys, tolerance, REDUCE_LINEAR, &out[i], &r) < 0)
			abort();
		changed[i] = &out[i];
		keys += out[i].key_count;
	}
	if (object_error_measure(&c->res->rig, c->tracks, changed, c->count, c->times,
	                         c->times_count, OBJECT_ERROR_DEFAULT_VV * c->scale.units_per_cm,
	                         threshold, error) < 0)
		abort();
	free_samplers(out, c->count);
	free(out);
	free(changed);
	return keys;
}

static uint64_t keys_of(const struct clip_under_test *c)
{
	uint64_t keys = 0;
	for (size_t i = 0; i < c->count; i++)
		keys += c->tracks[i].keys->key_count;
	return keys;
}

static void report(const char *what, const struct clip_under_test *c, double cm, uint64_t keys,
                   const struct object_error_report *e)
{
	double per_cm = c->scale.units_per_cm;

	printf("%s %s at %g cm: keys\t%llu\tof %llu (%.2fx fewer)\n", c->label, what, cm,
	       (unsigned long long)keys, (unsigned long long)keys_of(c),
	       (double)keys_of(c) / (double)keys);
	printf(
	    "%s %s at %g cm: largest error\t%.4f\tcm (p99 %.4f cm, %.2f %% under the threshold)\n",
	    c->label, what, cm, e->largest / per_cm, e->p99 / per_cm, 100 * e->share_under);
}

static void bench(const struct clip_under_test *c, double cm)
{
	double threshold = cm * c->scale.units_per_cm, lo = 0, hi = 0, t = 1e-3;
	struct object_error_report e, best_e = {0};
	uint64_t best = keys_of(c), keys;
	struct reduce_object_options opt = {threshold,
	                                    OBJECT_ERROR_DEFAULT_VV * c->scale.units_per_cm,
	                                    c->res->clip.duration, REDUCE_LINEAR};
	struct reduce_object_result r;
	struct sampler *out = calloc(c->count, sizeof(*out));
	double ms[REPS];

	/* the local tolerance: bracketed by factors of 4, then bisected in log space */
	for (int i = 0; i < 30 && !(lo > 0 && hi > 0); i++) {
		keys = local_at(c, t, threshold, &e);
		if (e.largest <= threshold) {
			lo = t, t *= 4;
			if (keys < best)
				best = keys, best_e = e;
		} else {
			hi = t, t /= 4;
		}
	}
	for (int i = 0; i < 12 && lo > 0 && hi > 0; i++) {
		t = sqrt(lo * hi);
		keys = local_at(c, t, threshold, &e);
		if (e.largest <= threshold) {
			lo = t;
			if (keys < best)
				best = keys, best_e = e;
		} else {
			hi = t;
		}
	}
	report("local", c, cm, best, &best_e);
	for (int i = 0; i < REPS; i++) {
		double start = now();
		if (reduce_object(&c->res->rig, c->tracks, c->count, &opt, out, &r) < 0)
			abort();
		ms[i] = (now() - start) * 1000;
		free_samplers(out, c->count);
	}
	qsort(ms, REPS, sizeof(double), compare);
	report("object", c, cm, r.keys_after, &r.error);
	printf("%s object at %g cm: object / local\t%.2f\tx fewer keys (%u reductions tried)\n",
	       c->label, cm, (double)best / (double)r.keys_after, r.rounds);
	printf("%s object at %g cm: time\t%.1f\tms for %llu keys (median of %d)\n", c->label, cm,
	       ms[REPS / 2], (unsigned long long)keys_of(c), REPS);
	free(out);
}

static uint8_t *read_file(const char *path, size_t *length)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (data = malloc((size_t)n + 1)) && fread(data, 1, (size_t)n, f) == (size_t)n) {
		*length = (size_t)n;
		fclose(f);
		return data;
	}
	perror(path);
	free(data);
	if (f)
		fclose(f);
	return NULL;
}

static int load(const char *path, struct clip_under_test *c, struct decode_result *dr)
{
	struct upload up = {0};
	struct error err;
	struct resource *res;
	size_t length;
	uint8_t *data = read_file(path, &length);

	if (!data)
		return -1;
	up.data = data;
	up.length = length;
	up.filename = path;
	error_init(&err);
	decode_result_init(dr);
	if (format_decode(&up, dr, &err) < 0 || dr->count < 1) {
		fprintf(stderr, "%s: %s\n", path, err.message);
		return -1;
	}
	res = c->res = dr->resources[0];
	c->tracks = calloc(res->clip.channel_count + 1, sizeof(*c->tracks));
	for (size_t i = 0; i < res->clip.channel_count; i++) {
		const struct channel *ch = &res->clip.channels[i];
		const struct target *tg = &res->clip.targets[ch->target];
		struct pose_target t = {tg->schema, tg->object, tg->name, 0, 0, ch->property};
		const char *why;
		if (object_track_match(&res->rig, t, 1, &res->clip.samplers[ch->sampler],
		                       &c->tracks[c->count], &why) == 0)
			c->count++;
	}
	if (object_error_scale(&res->rig, c->tracks, c->count, &c->scale) < 0 ||
	    object_error_times(c->tracks, c->count, res->clip.duration, &c->times,
	                       &c->times_count) < 0)
		return -1;
	free(data);
	return 0;
}

/* A clip posed on its own rig. */
static int posed(const struct clip_under_test *c, struct pose *p)
{
	if (pose_init(p, &c->res->rig) < 0)
		return -1;
	for (size_t i = 0; i < c->count; i++)
		if (pose_add_track(p, c->tracks[i].node, c->tracks[i].property, c->tracks[i].euler,
		                   c->tracks[i].keys) < 0)
			return -1;
	return 0;
}

static int compare_doubles(const void *x, const void *y)
{
	return compare(x, y);
}

/* The other file's keys and its object-space error against the original's: each posed on its
 * own rig (another tool may fold nodes into their parents, or move a constant track into a
 * node's rest pose), every node of the original's with a node of the same name in the other's
 * measured with three virtual vertices, at the original's sampled times. */
static int against(const char *original, const char *other)
{
	struct clip_under_test a = {0}, b = {0};
	struct decode_result da, db;
	struct pose pa, pb;
	const char *slash = strrchr(other, '/');
	size_t na, *same, pairs = 0, samples = 0, under = 0;
	double vv, threshold, largest = 0, *errors;

	if (load(original, &a, &da) < 0 || load(other, &b, &db) < 0 || posed(&a, &pa) < 0 ||
	    posed(&b, &pb) < 0)
		return 1;
	na = a.res->rig.count;
	same = calloc(na + 1, sizeof(*same));
	for (size_t i = 0; i < na; i++) {
		const char *name = a.res->rig.nodes[i].name;
		same[i] = SIZE_MAX;
		for (size_t n = 0; name && n < b.res->rig.count && same[i] == SIZE_MAX; n++)
			if (b.res->rig.nodes[n].name && strcmp(b.res->rig.nodes[n].name, name) == 0)
				same[i] = n;
		pairs += same[i] != SIZE_MAX;
	}
	vv = OBJECT_ERROR_DEFAULT_VV * a.scale.units_per_cm;
	threshold = 0.01 * a.scale.units_per_cm;
	errors = malloc((a.times_count * pairs + 1) * sizeof(*errors));
	for (size_t t = 0; t < a.times_count; t++) {
		pose_at(&pa, a.times[t]);
		pose_at(&pb, a.times[t]);
		for (size_t i = 0; i < na; i++) {
			const double *x = pa.world + i * 16, *y;
			double worst = 0;
			if (same[i] == SIZE_MAX)
				continue;
			y = pb.world + same[i] * 16;
			for (int axis = 0; axis < 3; axis++) {
				double d2 = 0;
				for (int r = 0; r < 3; r++) {
					double d = (x[12 + r] + vv * x[axis * 4 + r]) -
					           (y[12 + r] + vv * y[axis * 4 + r]);
					d2 += d * d;
				}
				worst = sqrt(d2) > worst ? sqrt(d2) : worst;
			}
			errors[samples++] = worst;
			under += worst <= threshold;
			largest = worst > largest ? worst : largest;
		}
	}
	qsort(errors, samples, sizeof(*errors), compare_doubles);
	printf("%s: keys\t%llu\tof %llu (%.2fx fewer)\n", slash ? slash + 1 : other,
	       (unsigned long long)keys_of(&b), (unsigned long long)keys_of(&a),
	       (double)keys_of(&a) / (double)(keys_of(&b) ? keys_of(&b) : 1));
	printf("%s: largest error\t%.4f\tcm (p99 %.4f cm, %.2f %% under 0.01 cm; %zu of %zu nodes "
	       "found by name)\n",
	       slash ? slash + 1 : other, largest / a.scale.units_per_cm,
	       samples ? errors[(size_t)ceil(0.99 * (double)samples) - 1] / a.scale.units_per_cm
	               : 0,
	       samples ? 100.0 * (double)under / (double)samples : 0, pairs, na);
	free(errors);
	free(same);
	pose_cleanup(&pa);
	pose_cleanup(&pb);
	free(a.tracks);
	free(a.times);
	free(b.tracks);
	free(b.times);
	decode_result_cleanup(&db);
	decode_result_cleanup(&da);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--against") == 0)
		return against(argv[2], argv[3]);
	for (int i = 1; i < argc; i++) {
		struct clip_under_test c = {0};
		struct decode_result dr;
		const char *slash = strrchr(argv[i], '/');
		if (load(argv[i], &c, &dr) < 0)
			return 1;
		c.label = slash ? slash + 1 : argv[i];
		printf("%s: height\t%.2f\trig units (%zu tracks, %zu sampled times)\n", c.label,
		       c.scale.height, c.count, c.times_count);
		for (const char *at = getenv("REDUCE_AT") ? getenv("REDUCE_AT") : "0.01,0.05";
		     *at;) {
			char *end;
			double cm = strtod(at, &end);
			if (end == at || !(cm > 0))
				break;
			bench(&c, cm);
			at = *end == ',' ? end + 1 : end;
		}
		free(c.tracks);
		free(c.times);
		decode_result_cleanup(&dr);
	}
	return 0;
}
