/* event_hub.h: the server's side of GET /api/events (event_hub.c): the catalogue's newest
 * events, read by one thread of the server's, and the open streams they are sent to.
 *
 * The events come from the catalogue (catalog_events_after), whoever wrote them: this daemon,
 * another one on the same PostgreSQL database, or an `animdexd import` or `redecode` beside
 * it. The hub reads new ones every EVENT_HUB_POLL_MS while a stream is open (and at once after
 * a write through this daemon: event_hub_poke), keeps the newest
 * CATALOG_EVENTS_KEPT rendered as server-sent events, and wakes the streams waiting for them.
 * A stream with nothing to send is suspended (its connection leaves the polling threads) and
 * resumed when an event arrives, every EVENT_HUB_KEEPALIVE_MS to send a comment that keeps
 * proxies from closing it, and when the server stops (it then ends cleanly).
 */
#ifndef ANIMDEX_EVENT_HUB_H
#define ANIMDEX_EVENT_HUB_H

#include <stdint.h>

#include "catalog/catalog.h"
#include "base/error.h"
#include "http/http.h"

#define EVENT_HUB_POLL_MS      200
#define EVENT_HUB_KEEPALIVE_MS 15000

struct event_hub;

/* Starts the hub's thread on the server's catalogue; at most max_streams streams at once. */
struct event_hub *event_hub_start(struct catalog_pool *pool, unsigned max_streams,
                                  struct error *err);
/* Every open stream ends (each sends what it has and closes its body); new ones are refused.
 * The server's stop calls it before it waits for requests in flight. */
void event_hub_end_streams(struct event_hub *hub);
/* Stops the thread and frees the hub (after the server has let go of every stream). */
void event_hub_free(struct event_hub *hub);

/* Something was written through this daemon: read the catalogue's events now rather than at
 * the next EVENT_HUB_POLL_MS. */
void event_hub_poke(struct event_hub *hub);
/* {"streams": open now, "max_streams": the most at once, "newest": the newest event read} */
json_t *event_hub_describe(struct event_hub *hub);

/* What a stream sends: events of this class, family and handle (NULL / has_crc32 0: any). */
struct event_filter {
	const char *class_name;
	const char *family;
	int has_crc32;
	uint32_t crc32;
};

/* Opens a stream on `connection` (the request's): the events after `last_event_id` (when
 * has_last; one `reset` event first when those are no longer all kept, or the id is not one of
 * this catalogue's), then every new one the filter lets through. `cat` is the calling thread's
 * catalogue, read to be current before the stream starts. 0 with *stream set, or -1 with err
 * set (ERROR_UNAVAILABLE: max_streams are open, or the server is stopping). */
int event_hub_open(struct event_hub *hub, struct catalog *cat, void *connection,
                   const struct event_filter *filter, int has_last, int64_t last_event_id,
                   struct response_stream *stream, struct error *err);

#endif
