/* server_send.c: an answer handed to libmicrohttpd: its headers, and its bytes held against
 * --answer-memory while they are sent (a buffered body, or a stream's state and block, given
 * back when libmicrohttpd lets go of them); an answer that does not fit waits for nobody: it
 * is a 503 with Retry-After. Error answers are small and always go out. */
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server_state.h"

/* What an answer holds while it is sent, given back when libmicrohttpd lets go of it. */
struct answer_hold {
	struct server *srv;
	size_t bytes;                  /* of srv->answering */
	char *body;                    /* a buffered body, or NULL */
	struct response_stream stream; /* a streamed one */
	int failed;                    /* the stream gave up */
};

static void answer_release(void *cls)
{
	struct answer_hold *h = cls;

	budget_give(&h->srv->answering, h->bytes);
	free(h->body);
	if (h->stream.fill && h->stream.release)
		h->stream.release(h->stream.state);
	free(h);
}

static ssize_t answer_fill(void *cls, uint64_t pos, char *out, size_t max)
{
	struct answer_hold *h = cls;
	long n;

	(void)pos;
	if (h->failed)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	n = h->stream.fill(h->stream.state, out, max);
	if (n == RESPONSE_STREAM_WAITING)
		return 0; /* suspended: called again once resumed */
	if (n < 0) {
		h->failed = 1;
		return MHD_CONTENT_READER_END_WITH_ERROR;
	}
	return n == 0 ? MHD_CONTENT_READER_END_OF_STREAM : (ssize_t)n;
}

/* 503 for an answer that does not fit the server's answer memory now. */
static enum MHD_Result server_send_busy(struct request_state *st, struct MHD_Connection *conn,
                                        size_t bytes)
{
	struct response resp = {0};
	struct error err;

	error_init(&err);
	error_set(&err, ERROR_UNAVAILABLE, NULL, -1,
	          "the server holds as many answers as it may at once (--answer-memory %zu "
	          "bytes; this one needs %zu); try again shortly",
	          st->srv->config.answer_memory, bytes);
	response_error(&resp, &err);
	st->retry_after = 1;
	return server_send(st, conn, &resp);
}

enum MHD_Result server_send(struct request_state *st, struct MHD_Connection *conn,
                            struct response *resp)
{
	struct MHD_Response *r;
	struct answer_hold *hold;
	enum MHD_Result ret;
	int streamed = resp->stream.fill != NULL;
	size_t block = resp->stream.block ? resp->stream.block : STREAM_BLOCK;
	size_t bytes = streamed ? resp->stream.memory + block : resp->length;
	uint64_t stream_length = resp->stream.length;

	if (!streamed && !resp->body) {
		resp->body = strdup("");
		resp->length = 0;
	}
	hold = calloc(1, sizeof(*hold));
	if (!hold || (!streamed && !resp->body)) {
		free(hold);
		response_discard(resp);
		free(resp->disposition);
		return MHD_NO;
	}
	/* an error answer is small and always goes out; others wait for room */
	if (budget_take(&st->srv->answering, st->srv->config.answer_memory, bytes) < 0) {
		if (resp->status >= 400) {
			bytes = 0;
		} else {
			free(hold);
			response_discard(resp);
			free(resp->disposition);
			return server_send_busy(st, conn, bytes);
		}
	}
	hold->srv = st->srv;
	hold->bytes = bytes;
	if (streamed && stream_length == RESPONSE_LENGTH_UNKNOWN &&
	    strcmp(st->req.method, "HEAD") == 0) {
		/* HEAD: the length GET would send, without sending it (libmicrohttpd 0.9.75 would
		 * otherwise end an empty chunked body after the headers) */
		char scratch[4096];
		long n;
		stream_length = 0;
		while ((n = resp->stream.fill(resp->stream.state, scratch, sizeof(scratch))) > 0)
			stream_length += (uint64_t)n;
	}
	if (streamed) {
		hold->stream = resp->stream;
		r = MHD_create_response_from_callback(
		    stream_length == RESPONSE_LENGTH_UNKNOWN ? MHD_SIZE_UNKNOWN : stream_length,
		    block, answer_fill, hold, answer_release);
	} else {
		hold->body = resp->body;
		r = MHD_create_response_from_buffer_with_free_callback_cls(resp->length, resp->body,
		                                                           answer_release, hold);
	}
	memset(&resp->stream, 0, sizeof(resp->stream));
	resp->body = NULL;
	if (!r) {
		answer_release(hold);
		free(resp->disposition);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, resp->content_type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (resp->disposition)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, resp->disposition);
	if (st->retry_after || resp->status == 503 || resp->status == 507)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "2");
	if (st->unauthorised)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
		                        "Bearer realm=\"animdex\"");
	if (resp->status == 405 && st->allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, st->allow);
	for (int i = 0; i < 2; i++)
		if (resp->extra_name[i][0])
			MHD_add_response_header(r, resp->extra_name[i], resp->extra_value[i]);
	st->status = resp->status;
	st->bytes_sent =
	    streamed ? (stream_length == RESPONSE_LENGTH_UNKNOWN ? 0 : (size_t)stream_length)
	             : resp->length;
	ret = MHD_queue_response(conn, resp->status, r);
	MHD_destroy_response(r);
	free(resp->disposition);
	return ret;
}

enum MHD_Result server_send_error(struct request_state *st, struct MHD_Connection *conn,
                                  enum error_code code, const char *fmt, ...)
{
	struct response resp = {0};
	struct error err;
	char message[sizeof(err.message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	error_init(&err);
	error_set(&err, code, NULL, -1, "%s", message);
	response_error(&resp, &err);
	return server_send(st, conn, &resp);
}
