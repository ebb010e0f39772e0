/* routes_tracks.c: a track's keys, and its samples as JSON, CSV or raw float32.
 *
 * Sample times come from `t=0.5` or `t=0,0.1,0.2`, or from `from`, `to` and `count` (evenly
 * spaced, both ends included) or `step` (from, from+step, ... up to to). Without any of
 * them: 101 samples over the track's key range. The engine sweeps the times with one cursor.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "curve.h"
#include "http.h"
#include "render.h"

#define DEFAULT_SAMPLE_COUNT 101
#define MAX_OUTPUT_VALUES    (64u * 1024 * 1024) /* samples x components in one answer */

enum sample_format { FORMAT_JSON, FORMAT_CSV, FORMAT_F32 };

static int load_track(struct request *req, struct response *resp, struct catalog_track *track)
{
	struct catalog *cat = route_catalog(req, resp);
	const char *n_text = req->captures[1];
	struct error err;
	int64_t id;
	char *end;
	long n;

	error_init(&err);
	if (!cat || route_id(req, resp, &id) < 0)
		return -1;
	n = n_text ? strtol(n_text, &end, 10) : -1;
	if (!n_text || *end || n < 0 || n > INT32_MAX) {
		error_set(&err, ERROR_BAD_PARAMETER, "n", -1,
		          "n: '%s' is not a track index (0, 1, 2...)", n_text ? n_text : "");
		response_error(resp, &err);
		return -1;
	}
	if (catalog_load_track(cat, id, (unsigned)n, track, &err) < 0) {
		response_error(resp, &err);
		return -1;
	}
	return 0;
}

/* Writes one value (components numbers) as a JSON array or as CSV cells. */
static void write_value(struct buf *b, const struct sampler *s, const void *value,
                        size_t components, int digits, int csv)
{
	enum scalar_kind kind = value_type_scalar(s->type);
	char text[32];

	if (!csv)
		buf_putc(b, '[');
	for (size_t i = 0; i < components; i++) {
		size_t n;
		if (i || csv)
			buf_putc(b, ',');
		switch (kind) {
		case SCALAR_FLOAT: {
			float f;
			memcpy(&f, (const char *)value + 4 * i, 4);
			n = render_float(f, digits, text);
			buf_append(b, text, n);
			break;
		}
		case SCALAR_INT: {
			int32_t x;
			memcpy(&x, (const char *)value + 4 * i, 4);
			buf_printf(b, "%" PRId32, x);
			break;
		}
		case SCALAR_UINT: {
			uint32_t x;
			memcpy(&x, (const char *)value + 4 * i, 4);
			buf_printf(b, "%" PRIu32, x);
			break;
		}
		case SCALAR_BOOL: {
			uint8_t x = ((const uint8_t *)value)[i];
			buf_puts(b, csv ? (x ? "1" : "0") : (x ? "true" : "false"));
			break;
		}
		default: buf_puts(b, "null");
		}
	}
	if (!csv)
		buf_putc(b, ']');
}

static void write_header(struct buf *b, const struct catalog_track *track)
{
	const struct sampler *s = &track->sampler;

	buf_printf(b,
	           "{\"resource\":%" PRId64 ",\"track\":%u,\"type\":\"%s\",\"array_size\":%" PRIu32
	           ",\"components\":%zu,\"interpolation\":\"%s\",\"semantic\":\"%s\",\"name\":",
	           track->resource_id, track->n, value_type_name(s->type), s->array_size,
	           sampler_components(s), interpolation_name(s->interp),
	           semantic_name(s->semantic));
	{
		json_t *name = json_string(track->name);
		char *text = name ? json_dumps(name, JSON_ENCODE_ANY) : NULL;
		buf_puts(b, text ? text : "null");
		free(text);
		json_decref(name);
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
	if (!*text || *end || v < 1 || v > 9) {
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
                      struct error *err);

/* An event track: the events whose time lies in [from, to) (default: all), as JSON or CSV. */
static void answer_events(struct request *req, struct response *resp,
                          const struct catalog_track *track, int csv, int digits)
{
	const struct sampler *s = &track->sampler;
	const uint32_t *words = s->values;
	const char *from_text = request_arg(req, "from"), *to_text = request_arg(req, "to");
	double from = -INFINITY, to = INFINITY;
	struct catalog *cat = route_catalog(req, resp);
	struct error err;
	struct buf b;
	size_t count = 0;
	char text[32];

	error_init(&err);
	if (!cat)
		return;
	if (request_arg(req, "t") || request_arg(req, "count") || request_arg(req, "step")) {
		error_set(&err, ERROR_BAD_PARAMETER, "t", -1,
		          "t: track %u holds events, which fire over a range: give from and to "
		          "(the events with from <= time < to)",
		          track->n);
		goto fail;
	}
	if ((from_text && parse_time(from_text, strlen(from_text), "from", &from, &err) < 0) ||
	    (to_text && parse_time(to_text, strlen(to_text), "to", &to, &err) < 0))
		goto fail;
	if (to < from) {
		error_set(&err, ERROR_BAD_PARAMETER, "to", -1,
		          "to: %.9g is before from %.9g; the range must not be reversed", to, from);
		goto fail;
	}
	buf_init(&b, (size_t)1 << 30);
	if (csv)
		buf_puts(&b, "t,message_class,receiver,c,parameter,message_id\n");
	else {
		write_header(&b, track);
		buf_puts(&b, ",\"kind\":\"events\",\"events\":[");
	}
	for (uint32_t k = 0; k < s->key_count; k++) {
		const uint32_t *w = words + (size_t)k * EVENT_WORDS;
		double t = s->times[k];
		char handle[11], name[256];
		float parameter;

		if (!(t >= from && t < to))
			continue;
		memcpy(&parameter, &w[EVENT_PARAMETER], sizeof(parameter));
		if (csv) {
			buf_append(&b, text, render_float(s->times[k], digits, text));
			buf_printf(&b, ",%" PRIu32 ",0x%08" PRIX32 ",%" PRIu32 ",",
			           w[EVENT_MESSAGE_CLASS], w[EVENT_RECEIVER], w[EVENT_C]);
			buf_append(&b, text, render_float(parameter, digits, text));
			buf_printf(&b, ",0x%08" PRIX32 "\n", w[EVENT_MESSAGE_ID]);
		} else {
			json_t *e = json_object(), *name_json;
			char *dump;
			if (count)
				buf_putc(&b, ',');
			json_object_set_new(e, "time", json_real(s->times[k]));
			json_object_set_new(e, "message_class",
			                    json_integer(w[EVENT_MESSAGE_CLASS]));
			render_handle(w[EVENT_RECEIVER], handle);
			json_object_set_new(e, "receiver", json_string(handle));
			name_json =
			    catalog_handle_name(cat, w[EVENT_RECEIVER], 1, name, sizeof(name)) == 0
			        ? json_string(name)
			        : json_null();
			json_object_set_new(e, "receiver_name", name_json);
			json_object_set_new(e, "c", json_integer(w[EVENT_C]));
			json_object_set_new(e, "parameter",
			                    isfinite(parameter) ? json_real(parameter)
			                                        : json_null());
			render_handle(w[EVENT_MESSAGE_ID], handle);
			json_object_set_new(e, "message_id", json_string(handle));
			name_json = catalog_handle_name(cat, w[EVENT_MESSAGE_ID], 1, name,
			                                sizeof(name)) == 0
			                ? json_string(name)
			                : json_null();
			json_object_set_new(e, "message_id_name", name_json);
			dump = json_dumps(e, JSON_COMPACT | JSON_REAL_PRECISION(9));
			buf_puts(&b, dump ? dump : "null");
			free(dump);
			json_decref(e);
		}
		count++;
	}
	if (!csv)
		buf_printf(&b, "],\"count\":%zu}", count);
	{
		size_t len;
		char *body = buf_steal(&b, &len);
		response_take(resp, 200, csv ? "text/csv" : "application/json", body, len);
	}
	return;
fail:
	response_error(resp, &err);
}

void route_keys(struct request *req, struct response *resp)
{
	struct catalog_track track;
	const struct sampler *s = &track.sampler;
	size_t m, csize;
	struct buf b;
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
		catalog_track_cleanup(&track);
		return;
	}
	m = sampler_components(s);
	csize = value_type_component_size(s->type);
	buf_init(&b, (size_t)1 << 31);
	write_header(&b, &track);
	buf_printf(&b, ",\"key_count\":%" PRIu32 ",\"times\":[", s->key_count);
	for (uint32_t k = 0; k < s->key_count; k++) {
		char text[32];
		size_t n = render_float(s->times[k], digits, text);
		if (k)
			buf_putc(&b, ',');
		buf_append(&b, text, n);
	}
	if (s->interp == INTERP_CUBIC_SPLINE) {
		static const char *const parts[3] = {"in_tangents", "values", "out_tangents"};
		for (int part = 0; part < 3; part++) {
			buf_printf(&b, "],\"%s\":[", parts[part]);
			for (uint32_t k = 0; k < s->key_count; k++) {
				if (k)
					buf_putc(&b, ',');
				write_value(&b, s,
				            (const char *)s->values +
				                ((size_t)k * 3 + (size_t)part) * m * csize,
				            m, digits, 0);
			}
		}
	} else {
		buf_puts(&b, "],\"values\":[");
		for (uint32_t k = 0; k < s->key_count; k++) {
			if (k)
				buf_putc(&b, ',');
			write_value(&b, s, (const char *)s->values + (size_t)k * m * csize, m,
			            digits, 0);
		}
	}
	buf_puts(&b, "]}");
	catalog_track_cleanup(&track);
	if (b.overflow) {
		buf_cleanup(&b);
		error_set(&err, ERROR_TOO_LARGE, NULL, -1,
		          "the keys are too many to answer at once");
		response_error(resp, &err);
		return;
	}
	{
		size_t len;
		char *body = buf_steal(&b, &len);
		response_take(resp, 200, "application/json", body, len);
	}
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
	if (*end || end == tmp || !isfinite(v) || !isfinite((float)v)) {
		error_set(err, ERROR_BAD_PARAMETER, field, -1,
		          "%s: '%s' is not a finite time in seconds", field, tmp);
		return -1;
	}
	*out = v;
	return 0;
}

/* Fills times[] from the request; *count is how many. */
static int sample_times(struct request *req, const struct sampler *s, float **times, size_t *count,
                        struct error *err)
{
	const char *t = request_arg(req, "t"), *from_text = request_arg(req, "from");
	const char *to_text = request_arg(req, "to"), *count_text = request_arg(req, "count");
	const char *step_text = request_arg(req, "step");
	unsigned max = req->config->max_samples;
	double from = s->times[0], to = s->times[s->key_count - 1], step = 0;
	size_t n = DEFAULT_SAMPLE_COUNT;

	*times = NULL;
	if (t) {
		const char *p = t;
		if (from_text || to_text || count_text || step_text) {
			error_set(err, ERROR_BAD_PARAMETER, "t", -1,
			          "t: give either t=... or from/to with count or step, not both");
			return -1;
		}
		n = 1;
		for (const char *c = t; *c; c++)
			n += *c == ',';
		if (n > max)
			goto too_many;
		*times = malloc(n * sizeof(float));
		if (!*times)
			goto oom;
		for (size_t i = 0; i < n; i++) {
			size_t len = strcspn(p, ",");
			double v;
			char field[32];
			snprintf(field, sizeof(field), "t[%zu]", i);
			if (parse_time(p, len, field, &v, err) < 0)
				goto fail;
			(*times)[i] = (float)v;
			p += len + (p[len] == ',');
		}
		*count = n;
		return 0;
	}
	if (from_text && parse_time(from_text, strlen(from_text), "from", &from, err) < 0)
		return -1;
	if (to_text && parse_time(to_text, strlen(to_text), "to", &to, err) < 0)
		return -1;
	if (to < from) {
		error_set(err, ERROR_BAD_PARAMETER, "to", -1,
		          "to: %.9g is before from %.9g; the range must not be reversed", to, from);
		return -1;
	}
	if (count_text && step_text) {
		error_set(err, ERROR_BAD_PARAMETER, "step", -1,
		          "step: give either count or step, not both");
		return -1;
	}
	if (count_text) {
		char *end;
		unsigned long long c;
		errno = 0;
		c = strtoull(count_text, &end, 10);
		if (!*count_text || *end || errno || c < 1 || count_text[0] == '-') {
			error_set(err, ERROR_BAD_PARAMETER, "count", -1,
			          "count: '%s' is not a whole number of samples (1 or more)",
			          count_text);
			return -1;
		}
		if (c > max)
			goto too_many;
		n = (size_t)c;
	} else if (step_text) {
		double steps;
		if (parse_time(step_text, strlen(step_text), "step", &step, err) < 0)
			return -1;
		if (!(step > 0)) {
			error_set(err, ERROR_BAD_PARAMETER, "step", -1,
			          "step: %.9g is not a positive number of seconds", step);
			return -1;
		}
		steps = floor((to - from) / step * (1 + 1e-12));
		if (steps + 1 > max)
			goto too_many;
		n = (size_t)steps + 1;
	}
	*times = malloc(n * sizeof(float));
	if (!*times)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		double v;
		if (step > 0)
			v = from + step * (double)i;
		else
			v = n == 1 ? from : from + (to - from) * ((double)i / (double)(n - 1));
		(*times)[i] = (float)v;
	}
	*count = n;
	return 0;
too_many:
	error_set(err, ERROR_BAD_PARAMETER, "count", -1,
	          "count: more than the %u samples one request may ask for (--max-samples)", max);
	return -1;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
fail:
	free(*times);
	*times = NULL;
	return -1;
}

/* CSV column names: t, then x,y,z,w / m00.. / v, with [i]. for arrays. */
static void write_csv_header(struct buf *b, const struct sampler *s)
{
	static const char *const xyzw[] = {"x", "y", "z", "w"};
	unsigned comps = value_type_components(s->type);
	unsigned rows = s->type == VALUE_FLOAT2X2   ? 2
	                : s->type == VALUE_FLOAT3X3 ? 3
	                : s->type == VALUE_FLOAT4X4 ? 4
	                                            : 0;

	buf_puts(b, "t");
	for (uint32_t e = 0; e < s->array_size; e++) {
		for (unsigned c = 0; c < comps; c++) {
			buf_putc(b, ',');
			if (s->array_size > 1)
				buf_printf(b, "[%" PRIu32 "]%s", e, comps > 1 ? "." : "");
			if (rows)
				buf_printf(b, "m%u%u", c / rows, c % rows);
			else if (comps > 1)
				buf_puts(b, xyzw[c]);
			else if (s->array_size == 1)
				buf_puts(b, "v");
		}
	}
	buf_putc(b, '\n');
}

void route_sample(struct request *req, struct response *resp)
{
	const char *format_text = request_arg(req, "format");
	enum sample_format format = FORMAT_JSON;
	struct catalog_track track;
	const struct sampler *s = &track.sampler;
	struct curve curve;
	struct curve_cursor cursor;
	float *times = NULL;
	uint8_t *values = NULL;
	size_t count = 0, m, csize;
	struct buf b;
	struct error err;
	int digits;

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
		catalog_track_cleanup(&track);
		return;
	}
	m = sampler_components(s);
	csize = value_type_component_size(s->type);
	if (format == FORMAT_F32 && value_type_scalar(s->type) != SCALAR_FLOAT) {
		error_set(&err, ERROR_BAD_PARAMETER, "format", -1,
		          "format: f32 carries float32 values, but track %u holds %s values; "
		          "use json or csv",
		          track.n, value_type_name(s->type));
		goto fail;
	}
	if (sample_times(req, s, &times, &count, &err) < 0)
		goto fail;
	if ((uint64_t)count * m > MAX_OUTPUT_VALUES) {
		error_set(&err, ERROR_BAD_PARAMETER, "count", -1,
		          "count: %zu samples of %zu components is more than one answer may "
		          "hold (%u values)",
		          count, m, MAX_OUTPUT_VALUES);
		goto fail;
	}
	values = malloc(count * m * csize + 1);
	if (!values) {
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	curve_from_sampler(&curve, s);
	curve_cursor_init(&cursor);
	if (value_type_scalar(s->type) == SCALAR_FLOAT) {
		float *out = (float *)values;
		for (size_t i = 0; i < count; i++)
			curve_sample_f32(&curve, &cursor, times[i], out + i * m);
	} else {
		for (size_t i = 0; i < count; i++) {
			uint32_t k = curve_step_key(&curve, &cursor, times[i]);
			memcpy(values + i * m * csize, (const uint8_t *)s->values + k * m * csize,
			       m * csize);
		}
	}
	if (format == FORMAT_F32) {
		size_t len = count * sizeof(float) * (1 + m);
		char *body = malloc(len ? len : 1), header[24];
		if (!body) {
			error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
			goto fail;
		}
		memcpy(body, times, count * sizeof(float));
		memcpy(body + count * sizeof(float), values, count * m * sizeof(float));
		response_take(resp, 200, "application/octet-stream", body, len);
		snprintf(header, sizeof(header), "%zu", count);
		response_header(resp, "X-Animdex-Count", header);
		snprintf(header, sizeof(header), "%zu", m);
		response_header(resp, "X-Animdex-Components", header);
		goto done;
	}
	buf_init(&b, (size_t)1 << 31);
	if (format == FORMAT_CSV) {
		write_csv_header(&b, s);
		for (size_t i = 0; i < count; i++) {
			char text[32];
			buf_append(&b, text, render_float(times[i], digits, text));
			write_value(&b, s, values + i * m * csize, m, digits, 1);
			buf_putc(&b, '\n');
		}
	} else {
		write_header(&b, &track);
		buf_printf(&b, ",\"count\":%zu,\"times\":[", count);
		for (size_t i = 0; i < count; i++) {
			char text[32];
			if (i)
				buf_putc(&b, ',');
			buf_append(&b, text, render_float(times[i], digits, text));
		}
		buf_puts(&b, "],\"values\":[");
		for (size_t i = 0; i < count; i++) {
			if (i)
				buf_putc(&b, ',');
			write_value(&b, s, values + i * m * csize, m, digits, 0);
		}
		buf_puts(&b, "]}");
	}
	if (b.overflow) {
		buf_cleanup(&b);
		error_set(&err, ERROR_TOO_LARGE, NULL, -1,
		          "the answer is too large; ask for fewer samples");
		goto fail;
	}
	{
		size_t len;
		char *body = buf_steal(&b, &len);
		response_take(resp, 200, format == FORMAT_CSV ? "text/csv" : "application/json",
		              body, len);
	}
	goto done;
fail:
	response_error(resp, &err);
done:
	free(times);
	free(values);
	catalog_track_cleanup(&track);
}
