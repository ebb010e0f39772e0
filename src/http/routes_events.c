/* routes_events.c: GET /api/events: the catalogue's events as a stream of server-sent events
 * (event_hub.h), filtered as the list is (class, family, crc32), resumed after the
 * Last-Event-ID header a reconnecting client sends (or ?last_event_id=, for a first
 * connection that knows where it stopped). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "event_hub.h"
#include "base/hash.h"
#include "http/http.h"

/* A filter argument, NULL when not given or empty (as the list takes them). */
static const char *filter_arg(struct request *req, const char *name)
{
	const char *v = request_arg(req, name);
	return v && *v ? v : NULL;
}

void route_events(struct request *req, struct response *resp)
{
	const char *crc = filter_arg(req, "crc32");
	const char *last = request_header(req, "Last-Event-ID");
	const char *named = last ? "Last-Event-ID" : "last_event_id";
	struct event_filter filter = {filter_arg(req, "class"), filter_arg(req, "family"), 0, 0};
	struct response_stream stream;
	struct catalog *cat;
	struct error err;
	uint64_t after = 0;

	error_init(&err);
	if (!last)
		last = filter_arg(req, "last_event_id");
	if (crc && hash_parse_handle(crc, &filter.crc32) < 0) {
		error_set(&err, ERROR_BAD_PARAMETER, "crc32", -1,
		          "crc32: '%.40s' is not a handle; write it in hex (0x1A2B3C4D) or decimal "
		          "(signed or unsigned 32-bit)",
		          crc);
		goto fail;
	}
	filter.has_crc32 = crc != NULL;
	if (last && route_decimal(last, INT64_MAX, &after) < 0) {
		error_set(&err, ERROR_BAD_PARAMETER, named, -1,
		          "%s: '%.40s' is not an event id (the number after \"id:\" in the "
		          "stream: 0, 1, 2...)",
		          named, last);
		goto fail;
	}
	if (strcmp(req->method, "HEAD") == 0) { /* the headers a stream would have, no stream */
		response_take(resp, 200, "text/event-stream; charset=utf-8", NULL, 0);
		response_header(resp, "Cache-Control", "no-cache");
		return;
	}
	if (!(cat = route_catalog(req, resp)))
		return;
	if (event_hub_open(req->events, cat, req->connection, &filter, last != NULL, (int64_t)after,
	                   &stream, &err) < 0)
		goto fail;
	response_stream(resp, 200, "text/event-stream; charset=utf-8", &stream);
	response_header(resp, "Cache-Control", "no-cache");
	/* nginx: do not buffer this answer (the README's example also says so) */
	response_header(resp, "X-Accel-Buffering", "no");
	return;
fail:
	response_error(resp, &err);
}
