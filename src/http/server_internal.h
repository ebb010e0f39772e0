/* server_internal.h: what the server's files share and the routes never see: the memory
 * budgets, the watchdog over open connections, authorisation, and the response functions the
 * server alone calls.
 *
 *   server.c     the libmicrohttpd daemon: requests in and completed, the request log
 *   server_send.c  answers handed to libmicrohttpd, held against --answer-memory
 *   request_input.c  a request's arguments, framing and form, kept and checked
 *   request.c    what a route reads of its request (arguments, headers), deferred answers
 *   response.c   the response functions routes answer with (http.h)
 *   watchdog.c   slow and idle connections, and room for newcomers
 *   budget.c     server-wide byte budgets (upload and answer memory)
 *   authorise.c  who may read and write: tokens, --private
 */
#ifndef ANIMDEX_SERVER_INTERNAL_H
#define ANIMDEX_SERVER_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "http/http.h"

/* Takes `bytes` of a server-wide budget (*used of limit), or fails without taking anything. */
int budget_take(size_t *used, size_t limit, size_t bytes);
void budget_give(size_t *used, size_t bytes);

/* Frees what a response holds (its body, or its stream's state). */
void response_discard(struct response *resp);

/* Writes need a valid token once any token exists; with --private, API reads do too. 0 to go
 * on (user set to the token's name, or ""), or -1 with err set: ERROR_UNAUTHORIZED (no
 * token given), ERROR_FORBIDDEN, or the catalogue's failure. `authorization` is the request's
 * Authorization header, or NULL. */
int authorise(const struct server_config *config, struct catalog_pool *pool, const char *method,
              const char *path, const char *authorization, char *user, size_t user_size,
              struct error *err);

/* One open connection, as the watchdog sees it. */
enum watch_phase {
	PHASE_HEADERS, /* waiting for a request's headers (new, or kept alive) */
	PHASE_BODY,    /* receiving a request body */
	PHASE_ANSWER,  /* the request is complete: answering it */
};
struct conn_watch {
	int fd;
	/* the phase (2 bits) and when it began (milliseconds of the monotonic clock, above
	 * them), in one word that the request's thread stores and the watchdog loads without a
	 * lock, so that it always sees a phase with its own start */
	uint64_t stamp;
	uint64_t body_bytes;    /* received in PHASE_BODY (atomic) */
	uint64_t body_declared; /* Content-Length, or 0 (atomic) */
	int closing;            /* shut down by the watchdog; still open until reported */
	int requested;          /* its request line has come (atomic): not an idle connection */
	struct conn_watch *prev, *next;
	/* the state of the connection's last request, kept for its next one (a state is too
	 * large for malloc's quick paths; only the connection's thread touches it); freed with
	 * the connection */
	void *spare;
};

/* The watchdog's own state: every open connection, and a thread that looks at them. */
struct watchdog {
	const struct server_config *config; /* the server's */
	pthread_mutex_t lock;               /* guards the fields below */
	struct conn_watch *watching;        /* every open connection */
	unsigned live;                      /* open connections not being shut down */
	/* since the last log line: shut down for slowness (a request's headers or body sent too
	 * slowly), because the client abandoned its upload, or to make room for new clients; idle
	 * connections (no request line since their last answer) closed are not said */
	unsigned long closed_slow, closed_cut, closed_room;
	int stopping;        /* the thread ends */
	pthread_cond_t wake; /* wakes the thread to end */
	pthread_t thread;
	int started;
};

void watchdog_init(struct watchdog *wd, const struct server_config *config);
/* Starts the thread; -1 when it cannot (connections are then not watched). */
int watchdog_start(struct watchdog *wd);
/* Ends the thread, if started, and frees what the watchdog holds of its own. */
void watchdog_stop(struct watchdog *wd);
/* A connection opened on socket fd: watched from now on (NULL when out of memory). When every
 * slot is taken, the connection waiting longest for its headers is shut down to make room. */
struct conn_watch *watchdog_opened(struct watchdog *wd, int fd);
/* The connection is closed: forgotten, and freed with its spare request state. */
void watchdog_closed(struct watchdog *wd, struct conn_watch *w);
/* The connection's request moves to a phase (a body of `declared` bytes, or 0). NULL: none. */
void watchdog_phase(struct conn_watch *w, enum watch_phase phase, uint64_t declared);
/* Bytes of a body received. */
void watchdog_body(struct conn_watch *w, size_t bytes);
/* Has the client closed its side of socket fd (an EOF waiting in it)? */
int watchdog_peer_closed(int fd);

#endif
