/* event_hub.c: the catalogue's events as server-sent events (event_hub.h): one thread reads
 * them from the catalogue, a ring keeps the newest rendered, and each open stream sends what
 * its filter lets through, suspended while it has nothing to send.
 *
 * Locks: `reading` lets one reader of the catalogue at a time append to the ring (the thread,
 * or a stream being opened, which reads first so that it starts from the present); `lock`
 * guards the ring and the streams, and is never held while the catalogue is read. A stream's
 * connection is suspended and resumed with `lock` held, so that a wake-up cannot fall between
 * a stream finding nothing to send and its suspension.
 *
 * The format (https://html.spec.whatwg.org/multipage/server-sent-events.html): an event is
 * "id: N", "event: KIND" and one "data:" line of JSON, then a blank line; a line starting with
 * a colon is a comment.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "event_hub.h"
#include "base/hash.h"
#include "render/render.h"

#define READ_BATCH   256         /* events read from the catalogue at a time */
#define STREAM_CHUNK (64 * 1024) /* text a stream makes ready at a time */
#define ERROR_LOG_MS 60000       /* at most one line about a failing read this often */
#define RECONNECT_MS 2000        /* the client's wait before reconnecting (retry:) */
#define POKE_MS      20          /* a write through this daemon is read this soon */
#define RING_MIN     CATALOG_EVENTS_KEPT
/* the ring grows past RING_MIN while an open stream has not yet sent its oldest event (an
 * import's batch of thousands committed at once), up to this many events */
#define RING_MAX 65536

struct hub_event {
	int64_t id;
	char *text; /* the whole event as sent */
	size_t length;
	char *class_name, *family;
	uint32_t crc32;
};

struct event_stream {
	struct event_hub *hub;
	void *connection;
	char *class_name, *family; /* the filter: NULL for any */
	int has_crc32;
	uint32_t crc32;
	int64_t cursor;   /* the newest event looked at */
	int reset_due;    /* the events after its Last-Event-ID are not all kept */
	struct buf out;   /* text made ready */
	size_t given;     /* of out, sent */
	uint64_t sent_ms; /* when it last sent anything */
	int waiting;      /* its connection is suspended */
	int ending;       /* the server stops: end the body */
	int gone;         /* the client closed the connection: drop it */
	struct event_stream *prev, *next;
};

struct event_hub {
	struct catalog_pool *pool;
	unsigned max_streams;
	pthread_mutex_t reading;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	int started;
	int stopping; /* the thread ends */
	int closed;   /* no new streams; the open ones end */
	int poked;    /* a write went through this daemon: read now */
	/* the newest events, oldest first, in ring[(start + i) % capacity] */
	struct hub_event *ring;
	size_t start, count, capacity;
	int loaded;     /* floor and newest are read */
	int64_t floor;  /* every event after this id is in the ring */
	int64_t newest; /* the newest event read */
	struct event_stream *streams;
	unsigned stream_count;
	uint64_t error_logged_ms;
};

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static void event_free(struct hub_event *e)
{
	free(e->text);
	free(e->class_name);
	free(e->family);
	memset(e, 0, sizeof(*e));
}

/* One event of the catalogue's (catalog_events_after) as text to send; -1 when out of
 * memory. */
static int event_render(const struct catalog_event *ev, struct hub_event *out)
{
	json_t *row = ev->document;
	char *data;
	size_t length;
	struct buf b;

	memset(out, 0, sizeof(*out));
	route_link_entry(json_object_get(row, "entry"));
	data = render_json(row, 0, &length);
	if (!data)
		return -1;
	buf_init(&b, SIZE_MAX);
	buf_printf(&b, "id: %" PRId64 "\nevent: %s\ndata: ", ev->id, ev->kind);
	buf_append(&b, data, length);
	buf_puts(&b, "\n\n");
	free(data);
	out->id = ev->id;
	out->class_name = strdup(ev->class_name);
	out->family = strdup(ev->family);
	out->crc32 = ev->crc32;
	out->text = buf_steal(&b, &out->length);
	if (b.overflow || !out->text || !out->class_name || !out->family) {
		event_free(out);
		return -1;
	}
	return 0;
}

/* With the lock held: whether an open stream has yet to look at event `id`. */
static int a_stream_needs(const struct event_hub *hub, int64_t id)
{
	for (const struct event_stream *s = hub->streams; s; s = s->next)
		if (!s->gone && !s->ending && s->cursor < id)
			return 1;
	return 0;
}

/* With the lock held: the ring twice as large (up to RING_MAX), its events in order from
 * index 0; 0, or -1 when it cannot grow. */
static int ring_grow(struct event_hub *hub)
{
	size_t capacity = hub->capacity ? 2 * hub->capacity : RING_MIN;
	struct hub_event *ring;

	if (capacity > RING_MAX || !(ring = calloc(capacity, sizeof(*ring))))
		return -1;
	for (size_t i = 0; i < hub->count; i++)
		ring[i] = hub->ring[(hub->start + i) % hub->capacity];
	free(hub->ring);
	hub->ring = ring;
	hub->start = 0;
	hub->capacity = capacity;
	return 0;
}

/* With the lock held: the oldest event gives way. */
static void ring_drop_oldest(struct event_hub *hub)
{
	if (hub->ring[hub->start].id > hub->floor)
		hub->floor = hub->ring[hub->start].id;
	event_free(&hub->ring[hub->start]);
	hub->start = (hub->start + 1) % hub->capacity;
	hub->count--;
}

/* With the lock held: the event that follows the newest. When the ring is full it grows while
 * a stream still has to send the oldest (so that a burst larger than the ring reaches every
 * stream open at its commit), else the oldest gives way; past RING_MIN events, the oldest no
 * stream needs give way too (the ring keeps RING_MIN for reconnecting clients). */
static void ring_push(struct event_hub *hub, struct hub_event *e)
{
	if (hub->count == hub->capacity &&
	    (!a_stream_needs(hub, hub->ring[hub->start].id) || ring_grow(hub) < 0))
		ring_drop_oldest(hub);
	hub->ring[(hub->start + hub->count) % hub->capacity] = *e;
	hub->count++;
	hub->newest = e->id;
	while (hub->count > RING_MIN && !a_stream_needs(hub, hub->ring[hub->start].id))
		ring_drop_oldest(hub);
}

/* With the lock held: the ring's index of the first event after id `after`. */
static size_t ring_after(const struct event_hub *hub, int64_t after)
{
	size_t lo = 0, hi = hub->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (hub->ring[(hub->start + mid) % hub->capacity].id <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* With the lock held: every suspended stream goes on (to send, to keep alive, to end). */
static void wake_stream(struct event_stream *s)
{
	if (s->waiting) {
		s->waiting = 0;
		request_resume(s->connection);
	}
}

/* Reads what the catalogue has after the newest event read, into the ring: 0, or -1 with err
 * set. The first read starts CATALOG_EVENTS_KEPT ids before the catalogue's newest. */
static int catch_up(struct event_hub *hub, struct catalog *cat, struct error *err)
{
	int64_t after, newest, oldest;
	size_t got, added = 0;
	int rc = 0;

	pthread_mutex_lock(&hub->reading);
	/* one snapshot, so that no event is trimmed between the newest id and the reads */
	if (catalog_begin_read(cat, err) < 0) {
		pthread_mutex_unlock(&hub->reading);
		return -1;
	}
	/* the first read starts CATALOG_EVENTS_KEPT events back (for a stream that reconnects
	 * with its Last-Event-ID); events trimmed from the catalogue before they were read cannot
	 * be sent (the catalogue keeps events younger than CATALOG_EVENTS_GRACE_MS, so only a
	 * reader stalled that long finds some gone): the streams behind them are reset */
	newest = catalog_events_newest(cat, &oldest, err);
	if (newest < 0) {
		catalog_rollback(cat);
		pthread_mutex_unlock(&hub->reading);
		return -1;
	}
	pthread_mutex_lock(&hub->lock);
	if (!hub->loaded) {
		int64_t start = newest > CATALOG_EVENTS_KEPT ? newest - CATALOG_EVENTS_KEPT : 0;
		if (oldest > 0 && oldest - 1 > start)
			start = oldest - 1;
		hub->floor = hub->newest = start;
		hub->loaded = 1;
	} else if (oldest > hub->newest + 1) {
		hub->floor = hub->newest = oldest - 1;
	}
	pthread_mutex_unlock(&hub->lock);
	do {
		struct catalog_event *rows;
		pthread_mutex_lock(&hub->lock);
		after = hub->newest;
		pthread_mutex_unlock(&hub->lock);
		if (catalog_events_after(cat, after, READ_BATCH, &rows, &got, err) < 0) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < got; i++) {
			struct hub_event e;
			if (event_render(&rows[i], &e) < 0) {
				error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
				rc = -1;
				break;
			}
			pthread_mutex_lock(&hub->lock);
			ring_push(hub, &e);
			pthread_mutex_unlock(&hub->lock);
			added++;
		}
		catalog_events_free(rows, got);
	} while (rc == 0 && got == READ_BATCH);
	catalog_rollback(cat); /* it only read */
	if (added) {
		pthread_mutex_lock(&hub->lock);
		for (struct event_stream *s = hub->streams; s; s = s->next)
			wake_stream(s);
		pthread_mutex_unlock(&hub->lock);
	}
	pthread_mutex_unlock(&hub->reading);
	return rc;
}

static void *hub_main(void *arg)
{
	struct event_hub *hub = arg;
	uint64_t last_read = 0;

	pthread_mutex_lock(&hub->lock);
	while (!hub->stopping) {
		int reading;
		/* the next read: POLL_MS after the last, or POKE_MS after it once poked (a burst
		 * of writes is read in a few goes, not once for each) */
		for (;;) {
			uint64_t next = last_read + (hub->poked ? POKE_MS : EVENT_HUB_POLL_MS);
			uint64_t now = now_ms();
			struct timespec until;
			if (hub->stopping || now >= next)
				break;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += (time_t)((next - now) / 1000);
			until.tv_nsec += (long)((next - now) % 1000) * 1000000L;
			if (until.tv_nsec >= 1000000000L)
				until.tv_sec++, until.tv_nsec -= 1000000000L;
			pthread_cond_timedwait(&hub->wake, &hub->lock, &until);
		}
		if (hub->stopping)
			break;
		hub->poked = 0;
		last_read = now_ms();
		reading = hub->stream_count > 0 && !hub->closed;
		pthread_mutex_unlock(&hub->lock);
		if (reading) {
			struct error err;
			struct catalog *cat;
			error_init(&err);
			cat = catalog_pool_get(hub->pool, &err);
			if ((!cat || catch_up(hub, cat, &err) < 0) &&
			    now_ms() - hub->error_logged_ms >= ERROR_LOG_MS) {
				hub->error_logged_ms = now_ms();
				fprintf(stderr, "animdexd: events: %s (tried again every %d ms)\n",
				        err.message, EVENT_HUB_POLL_MS);
			}
		}
		pthread_mutex_lock(&hub->lock);
		/* keep-alive: a stream quiet for long enough sends a comment; one whose client
		 * has gone is dropped (a suspended connection would not notice until then) */
		for (struct event_stream *s = hub->streams; s; s = s->next) {
			if (!s->waiting)
				continue;
			if (request_peer_closed(s->connection))
				s->gone = 1;
			if (s->gone || now_ms() - s->sent_ms >= EVENT_HUB_KEEPALIVE_MS)
				wake_stream(s);
		}
	}
	pthread_mutex_unlock(&hub->lock);
	return NULL;
}

struct event_hub *event_hub_start(struct catalog_pool *pool, unsigned max_streams,
                                  struct error *err)
{
	struct event_hub *hub = calloc(1, sizeof(*hub));

	if (!hub) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	hub->pool = pool;
	hub->max_streams = max_streams;
	if (ring_grow(hub) < 0) {
		free(hub);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&hub->reading, NULL);
	pthread_mutex_init(&hub->lock, NULL);
	pthread_cond_init(&hub->wake, NULL);
	if (pthread_create(&hub->thread, NULL, hub_main, hub) != 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "cannot start the events' thread");
		event_hub_free(hub);
		return NULL;
	}
	hub->started = 1;
	return hub;
}

void event_hub_end_streams(struct event_hub *hub)
{
	if (!hub)
		return;
	pthread_mutex_lock(&hub->lock);
	hub->closed = 1;
	for (struct event_stream *s = hub->streams; s; s = s->next) {
		s->ending = 1;
		wake_stream(s);
	}
	pthread_mutex_unlock(&hub->lock);
}

void event_hub_free(struct event_hub *hub)
{
	if (!hub)
		return;
	if (hub->started) {
		pthread_mutex_lock(&hub->lock);
		hub->stopping = 1;
		pthread_cond_signal(&hub->wake);
		pthread_mutex_unlock(&hub->lock);
		pthread_join(hub->thread, NULL);
	}
	for (size_t i = 0; i < hub->count; i++)
		event_free(&hub->ring[(hub->start + i) % hub->capacity]);
	free(hub->ring);
	pthread_cond_destroy(&hub->wake);
	pthread_mutex_destroy(&hub->lock);
	pthread_mutex_destroy(&hub->reading);
	free(hub);
}

void event_hub_poke(struct event_hub *hub)
{
	pthread_mutex_lock(&hub->lock);
	hub->poked = 1;
	pthread_cond_signal(&hub->wake);
	pthread_mutex_unlock(&hub->lock);
}

json_t *event_hub_describe(struct event_hub *hub)
{
	json_t *out;

	pthread_mutex_lock(&hub->lock);
	out = json_pack("{s:i, s:i, s:I}", "streams", (int)hub->stream_count, "max_streams",
	                (int)hub->max_streams, "newest", (json_int_t)hub->newest);
	pthread_mutex_unlock(&hub->lock);
	return out;
}

static int stream_wants(const struct event_stream *s, const struct hub_event *e)
{
	return (!s->class_name || strcmp(s->class_name, e->class_name) == 0) &&
	       (!s->family || strcmp(s->family, e->family) == 0) &&
	       (!s->has_crc32 || s->crc32 == e->crc32);
}

/* With the lock held: the stream's next text into s->out (emptied first): a reset, the events
 * it wants after its cursor, or a keep-alive comment when it has been quiet long enough. */
static void stream_compose(struct event_stream *s)
{
	struct event_hub *hub = s->hub;

	s->out.len = 0;
	s->given = 0;
	if (s->reset_due || s->cursor < hub->floor) {
		const char *why = s->cursor > hub->newest ? "is not one of this catalogue's"
		                                          : "is older than the events kept";
		buf_printf(&s->out,
		           "id: %" PRId64 "\nevent: reset\ndata: {\"event\":%" PRId64
		           ",\"kind\":\"reset\",\"reason\":\"event %" PRId64
		           " %s (those after event %" PRId64 ", up to %" PRId64
		           "); reload what you show\"}\n\n",
		           hub->newest, hub->newest, s->cursor, why, hub->floor, hub->newest);
		s->cursor = hub->newest;
		s->reset_due = 0;
		return;
	}
	for (size_t i = ring_after(hub, s->cursor); i < hub->count && s->out.len < STREAM_CHUNK;
	     i++) {
		const struct hub_event *e = &hub->ring[(hub->start + i) % hub->capacity];
		if (stream_wants(s, e))
			buf_append(&s->out, e->text, e->length);
		s->cursor = e->id;
	}
	if (s->out.len == 0 && now_ms() - s->sent_ms >= EVENT_HUB_KEEPALIVE_MS)
		buf_puts(&s->out, ": keep-alive\n\n");
}

static long stream_fill(void *state, char *out, size_t room)
{
	struct event_stream *s = state;
	struct event_hub *hub = s->hub;
	size_t n;

	pthread_mutex_lock(&hub->lock);
	if (s->given == s->out.len && !s->ending)
		stream_compose(s);
	if (s->out.overflow || s->gone) {
		pthread_mutex_unlock(&hub->lock);
		return -1;
	}
	n = buf_give(&s->out, &s->given, out, room);
	if (n) {
		s->sent_ms = now_ms();
		pthread_mutex_unlock(&hub->lock);
		return (long)n;
	}
	if (s->ending) {
		pthread_mutex_unlock(&hub->lock);
		return 0; /* the body ends */
	}
	s->waiting = 1;
	request_suspend(s->connection);
	pthread_mutex_unlock(&hub->lock);
	return RESPONSE_STREAM_WAITING;
}

static void stream_release(void *state)
{
	struct event_stream *s = state;
	struct event_hub *hub = s->hub;

	pthread_mutex_lock(&hub->lock);
	if (s->prev)
		s->prev->next = s->next;
	else
		hub->streams = s->next;
	if (s->next)
		s->next->prev = s->prev;
	hub->stream_count--;
	pthread_mutex_unlock(&hub->lock);
	buf_cleanup(&s->out);
	free(s->class_name);
	free(s->family);
	free(s);
}

int event_hub_open(struct event_hub *hub, struct catalog *cat, void *connection,
                   const struct event_filter *filter, int has_last, int64_t last_event_id,
                   struct response_stream *stream, struct error *err)
{
	struct event_stream *s;

	pthread_mutex_lock(&hub->lock);
	if (hub->closed) {
		pthread_mutex_unlock(&hub->lock);
		error_set(err, ERROR_UNAVAILABLE, NULL, -1,
		          "the server is stopping; try again shortly");
		return -1;
	}
	pthread_mutex_unlock(&hub->lock);
	if (catch_up(hub, cat, err) < 0)
		return -1;
	s = calloc(1, sizeof(*s));
	if (!s || (filter->class_name && !(s->class_name = strdup(filter->class_name))) ||
	    (filter->family && !(s->family = strdup(filter->family)))) {
		if (s) {
			free(s->class_name);
			free(s);
		}
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	s->hub = hub;
	s->connection = connection;
	s->has_crc32 = filter->has_crc32;
	s->crc32 = filter->crc32;
	s->sent_ms = now_ms();
	buf_init(&s->out, 4 * STREAM_CHUNK);
	pthread_mutex_lock(&hub->lock);
	if (hub->closed || hub->stream_count >= hub->max_streams) {
		unsigned open = hub->stream_count;
		int closed = hub->closed;
		pthread_mutex_unlock(&hub->lock);
		free(s->class_name);
		free(s->family);
		free(s);
		if (closed)
			error_set(err, ERROR_UNAVAILABLE, NULL, -1,
			          "the server is stopping; try again shortly");
		else
			error_set(err, ERROR_UNAVAILABLE, NULL, -1,
			          "%u event streams are open, the most this server keeps "
			          "(--max-event-streams %u); try again shortly",
			          open, hub->max_streams);
		return -1;
	}
	s->cursor = has_last ? last_event_id : hub->newest;
	/* an id past the newest is not one of this catalogue's */
	s->reset_due = has_last && (last_event_id < hub->floor || last_event_id > hub->newest);
	buf_printf(&s->out, ": animdex events after event %" PRId64 "\nretry: %d\n\n",
	           s->reset_due ? hub->newest : s->cursor, RECONNECT_MS);
	s->next = hub->streams;
	if (hub->streams)
		hub->streams->prev = s;
	hub->streams = s;
	hub->stream_count++;
	pthread_mutex_unlock(&hub->lock);
	*stream = (struct response_stream){.fill = stream_fill,
	                                   .release = stream_release,
	                                   .state = s,
	                                   .memory = sizeof(*s) + STREAM_CHUNK,
	                                   .length = RESPONSE_LENGTH_UNKNOWN,
	                                   .block = 16 * 1024};
	return 0;
}
