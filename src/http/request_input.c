/* request_input.c: what a request brings besides its path, kept and checked as it comes: its
 * Content-Length headers (one length, or all agreeing), its query arguments (each given once,
 * as UTF-8 text), and its multipart form: files kept within the upload limit, fields of at
 * most FIELD_MAX bytes, each given once, as text. A problem is kept in the request's
 * field_error and answered once the body has come (server.c). */
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/utf8.h"
#include "server_state.h"

#define FIELD_MAX             4096 /* bytes of one form field's value */
#define REQUEST_MAX_ARGUMENTS 64   /* query arguments of one request */

static struct request_field *input_field(struct request *req, const char *key)
{
	for (size_t i = 0; i < req->field_count; i++)
		if (strcmp(req->fields[i].key, key) == 0)
			return &req->fields[i];
	return NULL;
}

/* A problem with the request's fields, answered once the body has come. */
static void input_problem(struct request_state *st, enum error_code code, const char *key,
                          const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void input_problem(struct request_state *st, enum error_code code, const char *key,
                          const char *fmt, ...)
{
	va_list ap;
	char text[sizeof(st->field_error.message)];

	if (error_is_set(&st->field_error))
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	error_set(&st->field_error, code, key, -1, "%s", text);
}

enum MHD_Result request_input_post(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *filename, const char *content_type,
                                   const char *transfer_encoding, const char *data, uint64_t off,
                                   size_t size)
{
	struct request_state *st = cls;
	struct request *req = &st->req;

	(void)kind, (void)content_type, (void)transfer_encoding;
	if (st->too_large)
		return MHD_YES;
	if (filename || (key && strcmp(key, "file") == 0)) {
		struct upload_file *f = req->file_count ? &req->files[req->file_count - 1] : NULL;
		int fresh =
		    off == 0 &&
		    (!f || f->data.len > 0 || !f->field || strcmp(f->field, key ? key : "") != 0 ||
		     (filename && (!f->filename || strcmp(f->filename, filename))));
		if (fresh) {
			if (req->file_count == REQUEST_MAX_FILES) {
				st->too_large = 1;
				return MHD_YES;
			}
			f = &req->files[req->file_count++];
			f->field = strdup(key ? key : "file");
			f->filename = filename ? strdup(filename) : NULL;
			buf_init(&f->data, st->srv->config.max_upload);
		}
		if (size && buf_append(&f->data, data, size) < 0)
			st->too_large = 1;
		return MHD_YES;
	}
	if (key) {
		struct request_field *field = input_field(req, key);
		if (field && off == 0) {
			input_problem(st, ERROR_BAD_PARAMETER, key,
			              "%s: the field is given twice; give it once", key);
			return MHD_YES;
		}
		if (!field) {
			if (req->field_count == REQUEST_MAX_FIELDS) {
				input_problem(st, ERROR_BAD_PARAMETER, key,
				              "%s: the form has more than %d fields", key,
				              REQUEST_MAX_FIELDS);
				return MHD_YES;
			}
			field = &req->fields[req->field_count];
			field->key = strdup(key);
			if (!field->key)
				return MHD_NO;
			buf_init(&field->value, FIELD_MAX);
			req->field_count++;
		}
		if (size && buf_append(&field->value, data, size) < 0)
			input_problem(
			    st, ERROR_TOO_LARGE, key,
			    "%s: the field is longer than %d bytes, the most a form field "
			    "may hold",
			    key, FIELD_MAX);
	}
	return MHD_YES;
}

int request_input_multipart(const char *type)
{
	return type && strncasecmp(type, "multipart/form-data", 19) == 0;
}

/* How many times a query argument is given. */
struct named_count {
	const char *key;
	unsigned *n;
};

static enum MHD_Result input_count_named(void *cls, enum MHD_ValueKind kind, const char *key,
                                         const char *value)
{
	struct named_count *c = cls;

	(void)kind, (void)value;
	if (key && strcmp(key, c->key) == 0)
		(*c->n)++;
	return MHD_YES;
}

enum MHD_Result request_input_lengths(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
	struct request_lengths *l = cls;

	(void)kind;
	if (key && strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
		if (l->count++ == 0)
			l->first = value;
		else if (!value || !l->first || strcmp(value, l->first) != 0)
			l->differ = 1;
	}
	return MHD_YES;
}

/* Query arguments: each given once, as UTF-8 text. */
enum MHD_Result request_input_argument(void *cls, enum MHD_ValueKind kind, const char *key,
                                       const char *value)
{
	struct request_state *st = cls;
	unsigned n = 0;

	(void)kind;
	if (!key)
		return MHD_YES;
	if (++st->argument_count > REQUEST_MAX_ARGUMENTS) {
		input_problem(st, ERROR_BAD_PARAMETER, key, "the query has more than %d arguments",
		              REQUEST_MAX_ARGUMENTS);
		return MHD_NO;
	}
	if (!utf8_valid(key, strlen(key)) || (value && !utf8_valid(value, strlen(value)))) {
		input_problem(st, ERROR_BAD_PARAMETER, key,
		              "%s: '%s' is not valid UTF-8 text; arguments are text", key,
		              value ? value : "");
		return MHD_NO;
	}
	MHD_get_connection_values((struct MHD_Connection *)st->req.connection,
	                          MHD_GET_ARGUMENT_KIND, input_count_named,
	                          &(struct named_count){key, &n});
	if (n > 1) {
		input_problem(st, ERROR_BAD_PARAMETER, key,
		              "%s: the argument is given %u times; give "
		              "it once",
		              key, n);
		return MHD_NO;
	}
	return MHD_YES;
}

/* Form fields and file names: UTF-8 text without NUL bytes, and not given again as query
 * arguments. */
void request_input_check(struct request_state *st)
{
	struct request *req = &st->req;

	for (size_t i = 0; i < req->field_count; i++) {
		const struct request_field *f = &req->fields[i];
		const char *v = f->value.data ? f->value.data : "";
		if (memchr(v, '\0', f->value.len) || !utf8_valid(v, f->value.len))
			input_problem(st, ERROR_BAD_PARAMETER, f->key,
			              "%s: '%.200s' is not UTF-8 text (or holds a NUL byte); form "
			              "fields are text",
			              f->key, v);
		else if (MHD_lookup_connection_value((struct MHD_Connection *)req->connection,
		                                     MHD_GET_ARGUMENT_KIND, f->key))
			input_problem(
			    st, ERROR_BAD_PARAMETER, f->key,
			    "%s: given both as a form field and as a query argument; give "
			    "it once",
			    f->key);
	}
	for (size_t i = 0; i < req->file_count; i++) {
		const char *name = req->files[i].filename;
		if (name && !utf8_valid(name, strlen(name)))
			input_problem(st, ERROR_BAD_PARAMETER, "filename",
			              "filename: '%s' is not valid UTF-8; file names are text",
			              name);
	}
}
