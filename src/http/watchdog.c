/* watchdog.c: the server's watch over its open connections, on a thread of its own.
 *
 * A connection that has not sent a complete request header --header-timeout seconds after it
 * opened (or after its last answer), or whose body falls below --min-body-rate after that
 * grace, or whose client closed its side before the declared body came, is shut down. When
 * every slot is taken, a new connection takes the slot of the one that has waited longest for
 * its headers, so slow clients cannot keep new ones out.
 *
 * Shutting a socket down from here is safe: the list is guarded by one mutex, and the server
 * reports a connection closed (watchdog_closed drops it from the list) before libmicrohttpd
 * closes the socket. A request's thread changes its connection's phase with atomic stores,
 * without that mutex.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "server_internal.h"

#define WATCHDOG_PERIOD_MS 250
#define LOG_PERIOD_MS      10000 /* at most one line about closed connections this often */

static uint64_t monotonic_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static uint64_t watch_stamp(enum watch_phase phase)
{
	return monotonic_ms() << 2 | (uint64_t)phase;
}

static enum watch_phase stamp_phase(uint64_t stamp)
{
	return (enum watch_phase)(stamp & 3);
}

/* Seconds since the stamp's phase began. */
static double stamp_age(uint64_t stamp, uint64_t now_ms)
{
	uint64_t since = stamp >> 2;
	return now_ms > since ? (double)(now_ms - since) / 1000.0 : 0.0;
}

void watchdog_phase(struct conn_watch *w, enum watch_phase phase, uint64_t declared)
{
	if (!w)
		return;
	if (phase == PHASE_HEADERS)
		__atomic_store_n(&w->requested, 0, __ATOMIC_RELAXED); /* the next request's turn */
	__atomic_store_n(&w->body_bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&w->body_declared, declared, __ATOMIC_RELAXED);
	__atomic_store_n(&w->stamp, watch_stamp(phase), __ATOMIC_RELEASE);
}

void watchdog_body(struct conn_watch *w, size_t bytes)
{
	if (w)
		__atomic_add_fetch(&w->body_bytes, bytes, __ATOMIC_RELAXED);
}

/* With the lock held. */
static void watch_shut(struct watchdog *wd, struct conn_watch *w)
{
	w->closing = 1;
	wd->live--;
	shutdown(w->fd, SHUT_RDWR); /* libmicrohttpd sees it and closes the connection */
}

int watchdog_peer_closed(int fd)
{
	char c;
	ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0;
}

/* With the lock held: the connection waiting longest for its headers, other than w, or
 * NULL. */
static struct conn_watch *longest_waiting(struct watchdog *wd, const struct conn_watch *w)
{
	struct conn_watch *oldest = NULL;

	for (struct conn_watch *o = wd->watching; o; o = o->next) {
		uint64_t os = __atomic_load_n(&o->stamp, __ATOMIC_ACQUIRE);
		if (o != w && !o->closing && stamp_phase(os) == PHASE_HEADERS &&
		    (!oldest || os >> 2 < oldest->stamp >> 2))
			oldest = o;
	}
	return oldest;
}

struct conn_watch *watchdog_opened(struct watchdog *wd, int fd)
{
	struct conn_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fd = fd;
	w->stamp = watch_stamp(PHASE_HEADERS);
	pthread_mutex_lock(&wd->lock);
	w->next = wd->watching;
	if (wd->watching)
		wd->watching->prev = w;
	wd->watching = w;
	wd->live++;
	if (wd->live > wd->config->max_connections) {
		/* full: the connection waiting longest for its headers makes room */
		struct conn_watch *oldest = longest_waiting(wd, w);
		if (!oldest)
			oldest = w;
		watch_shut(wd, oldest);
		if (__atomic_load_n(&oldest->requested, __ATOMIC_RELAXED))
			wd->closed_room++; /* an idle one making room is ordinary */
	}
	pthread_mutex_unlock(&wd->lock);
	return w;
}

void watchdog_closed(struct watchdog *wd, struct conn_watch *w)
{
	pthread_mutex_lock(&wd->lock);
	if (w->prev)
		w->prev->next = w->next;
	else
		wd->watching = w->next;
	if (w->next)
		w->next->prev = w->prev;
	if (!w->closing)
		wd->live--;
	pthread_mutex_unlock(&wd->lock);
	free(w->spare);
	free(w);
}

/* With the lock held: shuts down every connection too slow now. */
static void shut_slow(struct watchdog *wd, uint64_t now_ms)
{
	const double grace = wd->config->header_timeout;

	for (struct conn_watch *w = wd->watching; w; w = w->next) {
		uint64_t stamp = __atomic_load_n(&w->stamp, __ATOMIC_ACQUIRE);
		uint64_t bytes = __atomic_load_n(&w->body_bytes, __ATOMIC_RELAXED);
		uint64_t declared = __atomic_load_n(&w->body_declared, __ATOMIC_RELAXED);
		double age = stamp_age(stamp, now_ms);
		int slow = 0;
		if (w->closing)
			continue;
		if (stamp_phase(stamp) == PHASE_HEADERS) {
			/* an idle kept-alive connection timing out is not worth a line */
			slow = age > grace;
			if (slow && __atomic_load_n(&w->requested, __ATOMIC_RELAXED))
				wd->closed_slow++;
		} else if (stamp_phase(stamp) == PHASE_BODY) {
			if (bytes < declared && watchdog_peer_closed(w->fd)) {
				slow = 1;
				wd->closed_cut++;
			} else if (age > grace &&
			           (double)bytes < (double)wd->config->min_body_rate * age) {
				slow = 1;
				wd->closed_slow++;
			}
		}
		if (slow)
			watch_shut(wd, w);
	}
}

static void *watchdog_main(void *arg)
{
	struct watchdog *wd = arg;
	uint64_t last_log = monotonic_ms();

	pthread_mutex_lock(&wd->lock);
	while (!wd->stopping) {
		struct timespec until;
		uint64_t now_ms;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += WATCHDOG_PERIOD_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L)
			until.tv_sec++, until.tv_nsec -= 1000000000L;
		pthread_cond_timedwait(&wd->wake, &wd->lock, &until);
		if (wd->stopping)
			break;
		now_ms = monotonic_ms();
		shut_slow(wd, now_ms);
		if ((wd->closed_slow || wd->closed_cut || wd->closed_room) && !wd->config->quiet &&
		    now_ms - last_log >= LOG_PERIOD_MS) {
			if (wd->closed_slow)
				fprintf(
				    stderr,
				    "animdexd: closed %lu connection%s sending %s request%s too "
				    "slowly (headers not whole within %u s, or a body under %zu "
				    "bytes/s)\n",
				    wd->closed_slow, wd->closed_slow == 1 ? "" : "s",
				    wd->closed_slow == 1 ? "its" : "their",
				    wd->closed_slow == 1 ? "" : "s", wd->config->header_timeout,
				    wd->config->min_body_rate);
			if (wd->closed_cut)
				fprintf(stderr,
				        "animdexd: %lu upload%s abandoned by %s client%s before %s "
				        "body was whole; nothing of %s was stored\n",
				        wd->closed_cut, wd->closed_cut == 1 ? " was" : "s were",
				        wd->closed_cut == 1 ? "its" : "their",
				        wd->closed_cut == 1 ? "" : "s",
				        wd->closed_cut == 1 ? "its" : "their",
				        wd->closed_cut == 1 ? "it" : "them");
			if (wd->closed_room)
				fprintf(
				    stderr,
				    "animdexd: closed %lu connection%s waiting on %s request's "
				    "headers to make room for new clients (--max-connections %u)\n",
				    wd->closed_room, wd->closed_room == 1 ? "" : "s",
				    wd->closed_room == 1 ? "its" : "their",
				    wd->config->max_connections);
			wd->closed_slow = wd->closed_cut = wd->closed_room = 0;
			last_log = now_ms;
		}
	}
	pthread_mutex_unlock(&wd->lock);
	return NULL;
}

void watchdog_init(struct watchdog *wd, const struct server_config *config)
{
	memset(wd, 0, sizeof(*wd));
	wd->config = config;
	pthread_mutex_init(&wd->lock, NULL);
	pthread_cond_init(&wd->wake, NULL);
}

int watchdog_start(struct watchdog *wd)
{
	wd->started = pthread_create(&wd->thread, NULL, watchdog_main, wd) == 0;
	return wd->started ? 0 : -1;
}

void watchdog_stop(struct watchdog *wd)
{
	if (wd->started) {
		pthread_mutex_lock(&wd->lock);
		wd->stopping = 1;
		pthread_cond_signal(&wd->wake);
		pthread_mutex_unlock(&wd->lock);
		pthread_join(wd->thread, NULL);
		wd->started = 0;
	}
	pthread_mutex_destroy(&wd->lock);
	pthread_cond_destroy(&wd->wake);
}
