/* floats_all.c: `make check-floats` (not in CI: it takes a while). render_float against a
 * slow exact method for all 2^32 float bit patterns, on every core: its text must read back
 * as the same float32, have no more significant digits than the shortest that does, and,
 * where several texts are that short, be the one closest to the float. Prints the count of
 * differences, which must be 0. All 2^32 take about 70 minutes on 2 cores; FLOATS_STRIDE=N
 * checks every Nth. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/render.h"

/* The slow exact way: %.Ne rounds the float's exact binary value correctly to N digits, and
 * if N digits read back so do N + 1; the fewest that read back (found by bisection) are the
 * shortest, and that text is the closest of its length. */
static int slow(float f, char *out)
{
	int lo = 1, hi = 9;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		snprintf(out, 40, "%.*e", mid - 1, (double)f);
		if (strtof(out, NULL) == f)
			hi = mid;
		else
			lo = mid + 1;
	}
	snprintf(out, 40, "%.*e", lo - 1, (double)f);
	return lo;
}

static int significant(const char *s)
{
	int first = -1, last = -1, i = 0;

	for (; *s && *s != 'e' && *s != 'E'; s++)
		if (*s >= '0' && *s <= '9') {
			if (*s != '0') {
				if (first < 0)
					first = i;
				last = i;
			}
			i++;
		}
	return first < 0 ? 1 : last - first + 1;
}

struct part {
	uint64_t from, to, step, differences, checked;
};

static void *run(void *arg)
{
	struct part *p = arg;
	char fast[40], ref[40];

	for (uint64_t b = p->from; b < p->to; b += p->step) {
		uint32_t bits = (uint32_t)b;
		float f;
		int n;
		memcpy(&f, &bits, 4);
		if (!isfinite(f))
			continue;
		p->checked++;
		render_float(f, 0, fast);
		if (f == 0) {
			p->differences += strcmp(fast, "0") != 0;
			continue;
		}
		n = slow(f, ref);
		if (strtof(fast, NULL) != f || significant(fast) > n ||
		    (significant(fast) == n &&
		     fabsl(strtold(fast, NULL) - f) > fabsl(strtold(ref, NULL) - f))) {
			if (p->differences < 10)
				fprintf(stderr,
				        "difference: %a (0x%08X): '%s', the slow way '%s'\n",
				        (double)f, bits, fast, ref);
			p->differences++;
		}
	}
	return NULL;
}

int main(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	/* FLOATS_STRIDE=N checks every Nth pattern only (a quicker look); the default is all */
	uint64_t step = getenv("FLOATS_STRIDE") ? strtoull(getenv("FLOATS_STRIDE"), NULL, 10) : 1;
	uint64_t total = (uint64_t)1 << 32, differences = 0, checked = 0;
	size_t n = cores > 0 ? (size_t)cores : 1, chunks = 256;
	struct part *parts = calloc(chunks, sizeof(*parts));
	pthread_t *threads = calloc(n, sizeof(*threads));

	for (size_t c = 0; c < chunks; c += n) {
		size_t k = 0;
		for (; k < n && c + k < chunks; k++) {
			parts[c + k].from = total / chunks * (c + k);
			parts[c + k].to = total / chunks * (c + k + 1);
			parts[c + k].step = step ? step : 1;
			pthread_create(&threads[k], NULL, run, &parts[c + k]);
		}
		for (size_t j = 0; j < k; j++)
			pthread_join(threads[j], NULL);
		for (size_t j = 0; j < k; j++)
			checked += parts[c + j].checked, differences += parts[c + j].differences;
		fprintf(stderr, "\r%zu of %zu parts, %llu floats, %llu differences ", c + k, chunks,
		        (unsigned long long)checked, (unsigned long long)differences);
	}
	printf("\n%llu finite float32 bit patterns checked: %llu differences\n",
	       (unsigned long long)checked, (unsigned long long)differences);
	free(parts);
	free(threads);
	return differences ? 1 : 0;
}
