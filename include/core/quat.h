/* quat.h: unit quaternions in double precision (x y z w, glTF's order; q v q* turns v), for
 * poses and retargeting. Header-only: small enough to inline wherever they are used.
 */
#ifndef ANIMDEX_QUAT_H
#define ANIMDEX_QUAT_H

#include <math.h>
#include <string.h>

/* q = a * b (q may be a or b): b turns first, then a. */
static inline void quat_multiply(const double a[4], const double b[4], double q[4])
{
	double r[4];

	r[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
	r[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
	r[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
	r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
	memcpy(q, r, sizeof(r));
}

/* The inverse of a unit quaternion. */
static inline void quat_conjugate(const double a[4], double q[4])
{
	q[0] = -a[0];
	q[1] = -a[1];
	q[2] = -a[2];
	q[3] = a[3];
}

/* q made unit length; the identity when it has none. */
static inline void quat_normalise(double q[4])
{
	double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);

	if (!(len > 0) || !isfinite(len)) {
		q[0] = q[1] = q[2] = 0;
		q[3] = 1;
		return;
	}
	for (int i = 0; i < 4; i++)
		q[i] /= len;
}

/* out = q v q*: v turned by q (out may be v). */
static inline void quat_rotate(const double q[4], const double v[3], double out[3])
{
	/* t = 2 (q.xyz x v); out = v + w t + q.xyz x t */
	double t[3] = {2 * (q[1] * v[2] - q[2] * v[1]), 2 * (q[2] * v[0] - q[0] * v[2]),
	               2 * (q[0] * v[1] - q[1] * v[0])};
	double r[3] = {v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]),
	               v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]),
	               v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0])};
	memcpy(out, r, sizeof(r));
}

/* The shortest turn that takes direction a onto direction b (neither need be unit length);
 * the identity when either has no length. Opposite directions turn half a turn about an axis
 * perpendicular to a. */
static inline void quat_between(const double a[3], const double b[3], double q[4])
{
	double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	double lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
	double d;

	q[0] = q[1] = q[2] = 0;
	q[3] = 1;
	if (!(la > 0) || !(lb > 0))
		return;
	d = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (la * lb);
	if (d < -1 + 1e-12) { /* half a turn about any axis perpendicular to a */
		if (fabs(a[0]) > fabs(a[2]))
			q[0] = -a[1], q[1] = a[0], q[2] = 0;
		else
			q[0] = 0, q[1] = -a[2], q[2] = a[1];
		q[3] = 0;
	} else {
		q[0] = (a[1] * b[2] - a[2] * b[1]) / (la * lb);
		q[1] = (a[2] * b[0] - a[0] * b[2]) / (la * lb);
		q[2] = (a[0] * b[1] - a[1] * b[0]) / (la * lb);
		q[3] = 1 + d;
	}
	quat_normalise(q);
}

/* The turn a fraction w of the way from a to b, the short way round (out may be a or b). */
static inline void quat_slerp(const double a[4], const double b[4], double w, double out[4])
{
	double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], s = 1, ka, kb;

	if (d < 0)
		d = -d, s = -1;
	if (d > 1 - 1e-12) { /* as good as the same turn: a line, made unit length */
		ka = 1 - w, kb = w;
	} else {
		double theta = acos(d), sin_theta = sin(theta);
		ka = sin((1 - w) * theta) / sin_theta;
		kb = sin(w * theta) / sin_theta;
	}
	for (int i = 0; i < 4; i++)
		out[i] = ka * a[i] + s * kb * b[i];
	quat_normalise(out);
}

#endif
