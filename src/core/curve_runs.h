/* curve_runs.h: curve_sample_times for one width of vector, included by curve.c once for
 * each build: LANES samples at a time (4 or 8), the functions' names ending in RUNS_SUFFIX,
 * all of them built with the attributes RUNS_TARGET (so that vectors of 8 are passed in AVX
 * registers even where a helper is not inlined). Every lane goes through the IEEE
 * operations curve_sample_f32 does, in its order, and nothing is fused (-std=c11 keeps GCC
 * from contracting, and AVX2 does not bring FMA): the same floats on every build. */

#define RUNS_NAME2(name, suffix) name##_##suffix
#define RUNS_NAME1(name, suffix) RUNS_NAME2(name, suffix)
#define RUNS(name)               RUNS_NAME1(name, RUNS_SUFFIX)

typedef float RUNS(vf) __attribute__((vector_size(4 * LANES)));
typedef int RUNS(vi) __attribute__((vector_size(4 * LANES)));
typedef float RUNS(hf) __attribute__((vector_size(2 * LANES)));  /* half the lanes */
typedef double RUNS(vd) __attribute__((vector_size(4 * LANES))); /* as doubles */
typedef long long RUNS(vl) __attribute__((vector_size(4 * LANES)));
#define vf RUNS(vf)
#define vi RUNS(vi)
#define hf RUNS(hf)
#define vd RUNS(vd)
#define vl RUNS(vl)

INLINE RUNS_TARGET vf RUNS(broadcast)(float x)
{
	vf v;
	UNROLL
	for (int s = 0; s < LANES; s++)
		v[s] = x;
	return v;
}

INLINE RUNS_TARGET vf RUNS(load)(const float *p)
{
	vf v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* Component c of LANES samples, stored where the scalar path puts it. */
INLINE RUNS_TARGET void RUNS(store_lanes)(float *out, uint32_t m, uint32_t c, vf v)
{
	UNROLL
	for (int s = 0; s < LANES; s++)
		out[s * m + c] = v[s];
}

/* Samples of three components (x, y, z: one vector each), stored x0 y0 z0 x1 y1 z1..., four
 * samples at a time in three stores. */
INLINE RUNS_TARGET void RUNS(store_xyz)(float *out, vf x, vf y, vf z)
{
	v4f qx[LANES / 4], qy[LANES / 4], qz[LANES / 4];

	memcpy(qx, &x, sizeof(x));
	memcpy(qy, &y, sizeof(y));
	memcpy(qz, &z, sizeof(z));
	for (int q = 0; q < LANES / 4; q++)
		store_xyz4(out + 12 * q, qx[q], qy[q], qz[q]);
}

/* Samples of four components, stored x0 y0 z0 w0 x1 y1 z1 w1..., four samples at a time in
 * four stores. */
INLINE RUNS_TARGET void RUNS(store_xyzw)(float *out, vf x, vf y, vf z, vf w)
{
	v4f qx[LANES / 4], qy[LANES / 4], qz[LANES / 4], qw[LANES / 4];

	memcpy(qx, &x, sizeof(x));
	memcpy(qy, &y, sizeof(y));
	memcpy(qz, &z, sizeof(z));
	memcpy(qw, &w, sizeof(w));
	for (int q = 0; q < LANES / 4; q++)
		store_xyzw4(out + 16 * q, qx[q], qy[q], qz[q], qw[q]);
}

/* Correctly rounded square roots (sqrtf's), four to an instruction where there is one. */
INLINE RUNS_TARGET vf RUNS(root)(vf x)
{
	v4f q[LANES / 4];

	memcpy(q, &x, sizeof(x));
	for (int i = 0; i < LANES / 4; i++)
		q[i] = sqrt4(q[i]);
	memcpy(&x, q, sizeof(x));
	return x;
}

/* sine() of two sets of LANES floats: the same operations in four independent chains of
 * LANES / 2 doubles (so that they overlap), so the same floats. */
INLINE RUNS_TARGET vd RUNS(reduce)(vd y)
{
	vl above = y > HALF_PI;
	return (vd)(((vl)(PI - y) & above) | ((vl)y & ~above));
}

/* Half of x's lanes as doubles; a and b's lanes as floats, a's first (one conversion
 * instruction each with AVX; SSE2 builds them lane by lane, which it does better than
 * through memory). */
INLINE RUNS_TARGET vd RUNS(widen)(vf x, int half)
{
#if LANES == 8
	hf h[2];
	memcpy(h, &x, sizeof(x));
	return __builtin_convertvector(h[half], vd);
#else
	return (vd){x[2 * half], x[2 * half + 1]};
#endif
}

INLINE RUNS_TARGET vf RUNS(narrow)(vd a, vd b)
{
#if LANES == 8
	hf h[2] = {__builtin_convertvector(a, hf), __builtin_convertvector(b, hf)};
	vf v;
	memcpy(&v, h, sizeof(v));
	return v;
#else
	return (vf){(float)a[0], (float)a[1], (float)b[0], (float)b[1]};
#endif
}

INLINE RUNS_TARGET void RUNS(sines)(vf x, vf z, vf *sx, vf *sz)
{
	vd y0 = RUNS(reduce)(RUNS(widen)(x, 0)), y1 = RUNS(reduce)(RUNS(widen)(x, 1));
	vd y2 = RUNS(reduce)(RUNS(widen)(z, 0)), y3 = RUNS(reduce)(RUNS(widen)(z, 1));
	vd q0 = y0 * y0, q1 = y1 * y1, q2 = y2 * y2, q3 = y3 * y3;
	vd p0 = (vd){0} + sine_terms[0], p1 = p0, p2 = p0, p3 = p0;

	SINE_STEP(1);
	SINE_STEP(2);
	SINE_STEP(3);
	SINE_STEP(4);
	SINE_STEP(5);
	SINE_STEP(6);
	SINE_STEP(7);
	SINE_STEP(8);
	*sx = RUNS(narrow)(y0 * p0, y1 * p1);
	*sz = RUNS(narrow)(y2 * p2, y3 * p3);
}

/* A run is the samples [0, n) of t, strictly between times t0 and t0 + d of segment k; room
 * (>= n) samples of t and out are there. A group of LANES starts wherever all of it lies
 * within room: lanes past the run compute something of no use, written over samples of out
 * still to come (curve_sample_times writes every sample in order, so each one's own value
 * comes later). Returns how many samples it made: the rest of the run, fewer than LANES at the
 * end of a batch, is left to curve_sample_f32. */
INLINE RUNS_TARGET size_t RUNS(linear_run)(const struct curve *c, uint32_t k, float t0, float d,
                                           const float *t, size_t n, size_t room, float *out)
{
	const uint32_t m = c->components;
	const float *a = (const float *)c->values + (size_t)k * m, *b = a + m;
	size_t j = 0;

	if (m == 3) { /* the keys' components broadcast once for the run */
		vf A[3], D[3];
		for (int i = 0; i < 3; i++) {
			A[i] = RUNS(broadcast)(a[i]);
			D[i] = RUNS(broadcast)(b[i] - a[i]);
		}
		for (; j < n && j + LANES <= room; j += LANES) {
			vf u = (RUNS(load)(t + j) - t0) / d;
			RUNS(store_xyz)
			(out + j * 3, A[0] + D[0] * u, A[1] + D[1] * u, A[2] + D[2] * u);
		}
	}
	for (; j < n && j + LANES <= room; j += LANES) {
		vf u = (RUNS(load)(t + j) - t0) / d;
		for (uint32_t i = 0; i < m; i++)
			RUNS(store_lanes)(out + j * m, m, i, a[i] + (b[i] - a[i]) * u);
	}
	if (j > n)
		j = n;
	if (c->rules & RULE_W_ONE_BETWEEN_KEYS)
		for (size_t done = 0; done < j; done++)
			for (uint32_t e = 3; e < m; e += 4)
				out[done * m + e] = 1.0f;
	return j;
}

/* The Hermite basis at u (in segments of length d): curve_sample_f32's expressions. */
INLINE RUNS_TARGET void RUNS(hermite)(vf u, float d, vf h[4])
{
	vf u2 = u * u, u3 = u2 * u;

	h[0] = 2.0f * u3 - 3.0f * u2 + 1.0f;
	h[1] = (u3 - 2.0f * u2 + u) * d;
	h[2] = -2.0f * u3 + 3.0f * u2;
	h[3] = (u3 - u2) * d;
}

INLINE RUNS_TARGET size_t RUNS(cubic_run)(const struct curve *c, uint32_t k, float t0, float d,
                                          const float *t, size_t n, size_t room, float *out)
{
	const uint32_t m = c->components;
	const float *p0 = (const float *)c->values + ((size_t)k * 3 + 1) * m, *b0 = p0 + m;
	const float *a1 = b0 + m, *p1 = a1 + m;
	size_t j = 0;
	vf h[4];

	if (m == 3) { /* the keys' components broadcast once for the run */
		vf P0[3], B0[3], A1[3], P1[3], v[3];
		for (int i = 0; i < 3; i++) {
			P0[i] = RUNS(broadcast)(p0[i]);
			B0[i] = RUNS(broadcast)(b0[i]);
			A1[i] = RUNS(broadcast)(a1[i]);
			P1[i] = RUNS(broadcast)(p1[i]);
		}
		for (; j < n && j + LANES <= room; j += LANES) {
			RUNS(hermite)((RUNS(load)(t + j) - t0) / d, d, h);
			for (int i = 0; i < 3; i++)
				v[i] = h[0] * P0[i] + h[1] * B0[i] + h[2] * P1[i] + h[3] * A1[i];
			RUNS(store_xyz)(out + j * 3, v[0], v[1], v[2]);
		}
	}
	for (; j < n && j + LANES <= room; j += LANES) {
		RUNS(hermite)((RUNS(load)(t + j) - t0) / d, d, h);
		for (uint32_t i = 0; i < m; i++)
			RUNS(store_lanes)
		(out + j * m, m, i, h[0] * p0[i] + h[1] * b0[i] + h[2] * p1[i] + h[3] * a1[i]);
	}
	return j < n ? j : n;
}

/* Slerp of every quaternion of the value, each with its set-up: slerp_at LANES at a time. */
INLINE RUNS_TARGET size_t RUNS(slerp_run)(const struct slerp *setups, uint32_t m, float t0, float d,
                                          const float *t, size_t n, size_t room, float *out)
{
	const vf one = RUNS(broadcast)(1.0f);
	size_t j = 0;

	for (; j < n && j + LANES <= room; j += LANES) {
		vf u = (RUNS(load)(t + j) - t0) / d;
		for (uint32_t e = 0; e < m / 4; e++) {
			const struct slerp *s = &setups[e];
			vf wa, wb, q[4], len2, inv;
			vi keep;
			if (s->theta < 0.0f) {
				wa = 1.0f - u;
				wb = u;
			} else {
				RUNS(sines)((1.0f - u) * s->theta, u * s->theta, &wa, &wb);
				wa = wa / s->sin_theta;
				wb = wb / s->sin_theta;
			}
			UNROLL
			for (int i = 0; i < 4; i++)
				q[i] = wa * s->a[i] + wb * s->b[i];
			/* quat_normalize: unless the length is 0 or exactly 1 */
			len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
			inv = 1.0f / RUNS(root)(len2);
			keep = (len2 > 0.0f) & (len2 != 1.0f);
			inv = (vf)(((vi)inv & keep) | ((vi)one & ~keep));
			if (m == 4) {
				RUNS(store_xyzw)
				(out + j * 4, q[0] * inv, q[1] * inv, q[2] * inv, q[3] * inv);
				continue;
			}
			UNROLL
			for (int i = 0; i < 4; i++)
				RUNS(store_lanes)(out + j * m + e * 4, m, (uint32_t)i, q[i] * inv);
		}
	}
	return j < n ? j : n;
}

/* Are all LANES times of t strictly between t0 and t1? */
INLINE RUNS_TARGET int RUNS(all_inside)(const float *t, float t0, float t1)
{
	vf tv = RUNS(load)(t);
	vi inside = (tv > t0) & (tv < t1);
	int all = -1;

	UNROLL
	for (int s = 0; s < LANES; s++)
		all &= inside[s];
	return all != 0;
}

RUNS_TARGET static void RUNS(sample_times)(const struct curve *c, struct curve_cursor *cursor,
                                           const float *t, size_t count, float *out)
{
	const uint32_t n = c->key_count, m = c->components;
	size_t i = 0;

	if (n <= 1 || c->interp == INTERP_STEP ||
	    (c->semantic == SEMANTIC_NORMALIZED_QUATERNION &&
	     (c->interp != INTERP_LINEAR || m % 4 != 0 || m > 4 * SLERPS_AT_ONCE))) {
		for (; i < count; i++)
			curve_sample_f32(c, cursor, t[i], out + i * m);
		return;
	}
	while (i < count) {
		uint32_t k;
		float t0, t1;
		size_t end;
		if (!(t[i] > c->times[0]) || t[i] >= c->times[n - 1]) {
			curve_sample_f32(c, cursor, t[i], out + i * m);
			i++;
			continue;
		}
		k = cursor->key = curve_find_segment(c->times, n, cursor->key, t[i]);
		t0 = c->times[k];
		t1 = c->times[k + 1];
		/* at a key, its value as it is: the scalar path's */
		end = i;
		while (end + LANES <= count && RUNS(all_inside)(t + end, t0, t1))
			end += LANES;
		while (end < count && t[end] > t0 && t[end] < t1)
			end++;
		if (end == i) {
			curve_sample_f32(c, cursor, t[i], out + i * m);
			i++;
			continue;
		}
		if (c->semantic == SEMANTIC_NORMALIZED_QUATERNION) {
			struct slerp setups[SLERPS_AT_ONCE];
			const float *a = (const float *)c->values + (size_t)k * m;
			for (uint32_t e = 0; e < m / 4; e++)
				slerp_setup(a + e * 4, a + m + e * 4, &setups[e]);
			i += RUNS(slerp_run)(setups, m, t0, t1 - t0, t + i, end - i, count - i,
			                     out + i * m);
		} else if (c->interp == INTERP_LINEAR) {
			i += RUNS(linear_run)(c, k, t0, t1 - t0, t + i, end - i, count - i,
			                      out + i * m);
		} else {
			i += RUNS(cubic_run)(c, k, t0, t1 - t0, t + i, end - i, count - i,
			                     out + i * m);
		}
		for (; i < end; i++)
			curve_sample_f32(c, cursor, t[i], out + i * m);
	}
}

#undef vf
#undef vi
#undef hf
#undef vd
#undef vl
#undef RUNS
#undef RUNS_NAME1
#undef RUNS_NAME2
