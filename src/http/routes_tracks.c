/* routes_tracks.c: a track's keys, and its samples as JSON, CSV or raw float32.
 *
 * Sample times come from `t=0.5` or `t=0,0.1,0.2`, or from `from`, `to` and `count` (evenly
 * spaced, both ends included) or `step` (from, from+step, ... up to to). Without any of
 * them: 101 samples over the track's key range. The engine sweeps the times with one cursor.
 *
 * A small answer is made at once; a large one is streamed (struct response_stream): the track
 * is copied once, and track_answer.c produces the text a piece at a time as the connection
 * takes it. Here: the request's parameters, and the choice between the two.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/http.h"
#include "answers/track_answer.h"

#define DEFAULT_SAMPLE_COUNT 101
#define BUFFERED_MAX         (256u * 1024) /* answers up to about this are not streamed */

static int load_track(struct request *req, struct response *resp, struct catalog_track *track)
{
	struct catalog *cat = route_catalog(req, resp);
	const char *n_text = req->captures[1];
	struct error err;
	int64_t id;
	unsigned n;

	error_init(&err);
	if (!cat || route_id(req, resp, &id) < 0)
		return -1;
	if (route_index(n_text, "n", "a track index (0, 1, 2...)", INT32_MAX, &n, &err) < 0) {
		response_error(resp, &err);
		return -1;
	}
	if (catalog_load_track(cat, id, n, track, &err) < 0) {
		response_error(resp, &err);
		return -1;
	}
	return 0;
}

/* Hands the answer to the server: a small one made now, in one buffer, from the track as the
 * connection's cache holds it; a large one streamed from a copy of the track, which the
 * stream owns. ta belongs to the response after. */
static void answer_track(struct response *resp, struct track_answer *ta, const char *type,
                         uint64_t length)
{
	if (track_answer_estimate(ta) <= BUFFERED_MAX) {
		struct buf b;
		size_t len;
		int more = 1;
		buf_init(&b, BUFFERED_MAX * 8); /* the estimate is generous: room to spare */
		/* a small answer in one allocation: the estimate (up to 16 KiB; past that the
		 * buffer grows as it must), the opening with the track's name escaped at worst,
		 * and the closing */
		buf_reserve(&b,
		            (track_answer_estimate(ta) < 16384 ? (size_t)track_answer_estimate(ta)
		                                               : 16384) +
		                512 + (ta->track.name ? 6 * strlen(ta->track.name) : 0));
		while (more && !b.overflow)
			more = track_answer_produce(ta, &b);
		track_answer_free(ta);
		if (b.overflow) {
			struct error err;
			buf_cleanup(&b);
			error_init(&err);
			error_set(&err, ERROR_INTERNAL, NULL, -1,
			          "the answer outgrew its estimate");
			response_error(resp, &err);
			return;
		}
		{
			char *body = buf_steal(&b, &len);
			response_take(resp, 200, type, body ? body : strdup(""), body ? len : 0);
		}
		return;
	}
	if (track_answer_own(ta) < 0) {
		struct error err;
		track_answer_free(ta);
		error_init(&err);
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		response_error(resp, &err);
		return;
	}
	{
		struct response_stream stream = {
		    track_answer_fill, track_answer_free, ta, track_answer_memory(ta), length, 0,
		};
		response_stream(resp, 200, type, &stream);
	}
}

static int parse_digits(struct request *req, struct error *err, int *digits)
{
	const char *text = request_arg(req, "digits");
	char *end;
	long v;

	*digits = 0;
	if (!text)
		return 0;
	v = strtol(text, &end, 10);
	if (!*text || *end || v < 1 || v > 9 || text[0] == '+' || text[0] == ' ') {
		error_set(err, ERROR_BAD_PARAMETER, "digits", -1,
		          "digits: '%s' is not a number of significant digits from 1 to 9 "
		          "(leave it out for the shortest exact float32 text)",
		          text);
		return -1;
	}
	*digits = (int)v;
	return 0;
}

static int parse_time(const char *text, size_t len, const char *field, double *out,
                      struct error *err)
{
	char tmp[64], *end;
	double v;

	if (len == 0 || len >= sizeof(tmp)) {
		error_set(err, ERROR_BAD_PARAMETER, field, -1,
		          "%s: '%.*s' is not a time in seconds", field, (int)(len < 40 ? len : 40),
		          text);
		return -1;
	}
	memcpy(tmp, text, len);
	tmp[len] = '\0';
	errno = 0;
	v = strtod(tmp, &end);
	if (*end || end == tmp || !isfinite(v) || !isfinite((float)v) || tmp[0] == ' ') {
		error_set(err, ERROR_BAD_PARAMETER, field, -1,
		          "%s: '%s' is not a finite time in seconds", field, tmp);
		return -1;
	}
	*out = v;
	return 0;
}

/* An event track's range [from, to) (default: everything). */
static int event_range(struct request *req, const struct catalog_track *track, double *from,
                       double *to, struct error *err)
{
	const char *from_text = request_arg(req, "from"), *to_text = request_arg(req, "to");

	*from = -INFINITY;
	*to = INFINITY;
	if (request_arg(req, "t") || request_arg(req, "count") || request_arg(req, "step")) {
		error_set(err, ERROR_BAD_PARAMETER, "t", -1,
		          "t: track %u holds events, which fire over a range: give from and to "
		          "(the events with from <= time < to)",
		          track->n);
		return -1;
	}
	if ((from_text && parse_time(from_text, strlen(from_text), "from", from, err) < 0) ||
	    (to_text && parse_time(to_text, strlen(to_text), "to", to, err) < 0))
		return -1;
	if (*to < *from) {
		error_set(err, ERROR_BAD_PARAMETER, "to", -1,
		          "to: %.9g is before from %.9g; the range must not be reversed", *to,
		          *from);
		return -1;
	}
	return 0;
}

static void answer_events(struct request *req, struct response *resp, struct catalog_track *track,
                          int csv, int digits)
{
	struct track_answer *ta;
	struct error err;
	double from, to;

	error_init(&err);
	if (event_range(req, track, &from, &to, &err) < 0) {
		catalog_track_cleanup(track);
		response_error(resp, &err);
		return;
	}
	ta = track_answer_create(track, ANSWER_EVENTS, csv ? FORMAT_CSV : FORMAT_JSON, digits, 0,
	                         &err);
	if (!ta) {
		response_error(resp, &err);
		return;
	}
	ta->from = from;
	ta->to = to;
	ta->pool = req->pool;
	answer_track(resp, ta, csv ? "text/csv" : "application/json", RESPONSE_LENGTH_UNKNOWN);
}

void route_keys(struct request *req, struct response *resp)
{
	struct catalog_track track;
	struct track_answer *ta;
	struct error err;
	int digits;

	error_init(&err);
	if (parse_digits(req, &err, &digits) < 0) {
		response_error(resp, &err);
		return;
	}
	if (load_track(req, resp, &track) < 0)
		return;
	if (track.events) {
		answer_events(req, resp, &track, 0, digits);
		return;
	}
	ta = track_answer_create(&track, ANSWER_KEYS, FORMAT_JSON, digits, 0, &err);
	if (!ta) {
		response_error(resp, &err);
		return;
	}
	answer_track(resp, ta, "application/json", RESPONSE_LENGTH_UNKNOWN);
}

static int too_many(struct error *err, const char *field, unsigned max, size_t per_time)
{
	if (per_time > 1)
		error_set(err, ERROR_BAD_PARAMETER, field, -1,
		          "%s: more than the %u samples one request may ask for (--max-samples): "
		          "a pose of %zu nodes counts %zu a time",
		          field, max, per_time, per_time);
	else
		error_set(err, ERROR_BAD_PARAMETER, field, -1,
		          "%s: more than the %u samples one request may ask for (--max-samples)",
		          field, max);
	return -1;
}

int route_sample_times(struct request *req, double from, double to, size_t per_time,
                       struct sample_times *st, struct error *err)
{
	const char *t = request_arg(req, "t"), *from_text = request_arg(req, "from");
	const char *to_text = request_arg(req, "to"), *count_text = request_arg(req, "count");
	const char *step_text = request_arg(req, "step");
	unsigned max_samples = req->config->max_samples;
	/* the times one request may have: --max-samples counts each of a pose's nodes */
	unsigned max = per_time > 1 ? (unsigned)(max_samples / per_time) : max_samples;

	memset(st, 0, sizeof(*st));
	st->from = from;
	st->to = to;
	st->count = DEFAULT_SAMPLE_COUNT;
	if (per_time > 1 && st->count > max && !t && !count_text && !step_text)
		return too_many(err, "count", max_samples, per_time);
	if (t) {
		const char *p = t;
		size_t n = 1;
		if (from_text || to_text || count_text || step_text) {
			error_set(err, ERROR_BAD_PARAMETER, "t", -1,
			          "t: give either t=... or from/to with count or step, not both");
			return -1;
		}
		for (const char *c = t; *c; c++)
			n += *c == ',';
		if (n > max)
			return too_many(err, "t", max_samples, per_time);
		st->list = malloc(n * sizeof(float));
		if (!st->list) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			return -1;
		}
		for (size_t i = 0; i < n; i++) {
			size_t len = strcspn(p, ",");
			double v;
			char field[32] = "t[0]"; /* the field's name, for the error */
			if (i)
				snprintf(field, sizeof(field), "t[%zu]", i);
			if (parse_time(p, len, field, &v, err) < 0) {
				free(st->list);
				st->list = NULL;
				return -1;
			}
			st->list[i] = (float)v;
			p += len + (p[len] == ',');
		}
		st->count = n;
		return 0;
	}
	if (from_text && parse_time(from_text, strlen(from_text), "from", &st->from, err) < 0)
		return -1;
	if (to_text && parse_time(to_text, strlen(to_text), "to", &st->to, err) < 0)
		return -1;
	if (st->to < st->from) {
		error_set(err, ERROR_BAD_PARAMETER, "to", -1,
		          "to: %.9g is before from %.9g; the range must not be reversed", st->to,
		          st->from);
		return -1;
	}
	if (count_text && step_text) {
		error_set(err, ERROR_BAD_PARAMETER, "step", -1,
		          "step: give either count or step, not both");
		return -1;
	}
	if (count_text) {
		unsigned c;
		if (route_index(count_text, "count", "a whole number of samples (1 or more)",
		                UINT32_MAX, &c, err) < 0)
			return -1;
		if (c < 1) {
			error_set(err, ERROR_BAD_PARAMETER, "count", -1,
			          "count: '%s' is not a whole number of samples (1 or more)",
			          count_text);
			return -1;
		}
		if (c > max)
			return too_many(err, "count", max_samples, per_time);
		st->count = c;
	} else if (step_text) {
		double steps;
		if (parse_time(step_text, strlen(step_text), "step", &st->step, err) < 0)
			return -1;
		if (!(st->step > 0)) {
			error_set(err, ERROR_BAD_PARAMETER, "step", -1,
			          "step: %.9g is not a positive number of seconds", st->step);
			return -1;
		}
		steps = floor((st->to - st->from) / st->step * (1 + 1e-12));
		if (steps + 1 > max)
			return too_many(err, "step", max_samples, per_time);
		st->count = (size_t)steps + 1;
	}
	return 0;
}

void route_sample(struct request *req, struct response *resp)
{
	const char *format_text = request_arg(req, "format");
	enum sample_format format = FORMAT_JSON;
	struct catalog_track track;
	struct sample_times times;
	struct track_answer *ta;
	struct error err;
	int digits;
	char header[24];

	error_init(&err);
	if (format_text) {
		if (strcasecmp(format_text, "json") == 0)
			format = FORMAT_JSON;
		else if (strcasecmp(format_text, "csv") == 0)
			format = FORMAT_CSV;
		else if (strcasecmp(format_text, "f32") == 0)
			format = FORMAT_F32;
		else {
			error_set(&err, ERROR_BAD_PARAMETER, "format", -1,
			          "format: '%s' is not json, csv or f32", format_text);
			response_error(resp, &err);
			return;
		}
	}
	if (parse_digits(req, &err, &digits) < 0) {
		response_error(resp, &err);
		return;
	}
	if (load_track(req, resp, &track) < 0)
		return;
	if (track.events && format != FORMAT_F32) {
		answer_events(req, resp, &track, format == FORMAT_CSV, digits);
		return;
	}
	if (format == FORMAT_F32 && value_type_scalar(track.sampler.type) != SCALAR_FLOAT) {
		error_set(&err, ERROR_BAD_PARAMETER, "format", -1,
		          "format: f32 carries float32 values, but track %u holds %s values; "
		          "use json or csv",
		          track.n, value_type_name(track.sampler.type));
		goto fail;
	}
	if (route_sample_times(req, track.sampler.times[0],
	                       track.sampler.times[track.sampler.key_count - 1], 1, &times,
	                       &err) < 0)
		goto fail;
	ta = track_answer_create(&track, ANSWER_SAMPLES, format, digits, times.count, &err);
	if (!ta) {
		free(times.list);
		response_error(resp, &err);
		return;
	}
	ta->times = times;
	if (format == FORMAT_F32) {
		size_t m = ta->m; /* answer_track may free ta */
		answer_track(resp, ta, "application/octet-stream",
		             (uint64_t)times.count * sizeof(float) * (1 + m));
		snprintf(header, sizeof(header), "%zu", times.count);
		response_header(resp, "X-Animdex-Count", header);
		snprintf(header, sizeof(header), "%zu", m);
		response_header(resp, "X-Animdex-Components", header);
		return;
	}
	answer_track(resp, ta, format == FORMAT_CSV ? "text/csv" : "application/json",
	             RESPONSE_LENGTH_UNKNOWN);
	return;
fail:
	catalog_track_cleanup(&track);
	response_error(resp, &err);
}
