/* server_state.h: what the files that speak to libmicrohttpd share (server.c, server_send.c,
 * request_input.c): the server, a request's state from its first callback to its completion,
 * and the functions between them. The only header that includes microhttpd.h. */
#ifndef ANIMDEX_SERVER_STATE_H
#define ANIMDEX_SERVER_STATE_H

#include <microhttpd.h>
#include <time.h>

#include "event_hub.h"
#include "server_internal.h"

#define STREAM_BLOCK       (128u * 1024) /* bytes a streamed answer is produced in */
#define CONNECTION_RESERVE 16            /* slots beyond --max-connections for newcomers */

struct server {
	struct MHD_Daemon *daemon;
	struct server_config config; /* a copy */
	struct catalog_pool *pool;   /* not owned */
	uint16_t port;               /* the bound port */
	int in_flight;               /* requests begun and not completed (atomic) */
	int draining;                /* stopping: new requests get 503 (atomic) */
	size_t buffered;             /* body bytes held or promised to uploads (atomic) */
	size_t answering;            /* bytes held by answers being sent (atomic) */
	struct watchdog watchdog;    /* over every open connection */
	struct event_hub *events;    /* GET /api/events' streams */
};

/* One request's state, from its first callback to its completion. */
struct request_state {
	struct request req;             /* what the route sees */
	const struct route *route;      /* NULL: answer error_status */
	struct MHD_PostProcessor *post; /* multipart body parser, or NULL */
	int too_large;                  /* the body grew past the limit */
	size_t body_seen;               /* bytes of body received so far */
	struct timespec started;
	unsigned status; /* for the log */
	size_t bytes_sent;
	int unauthorised;         /* answered 401: say how to authenticate */
	int too_busy;             /* the server-wide upload memory was full */
	int retry_after;          /* say when to try again */
	int declared;             /* the whole declared body is reserved up front */
	int incomplete;           /* the multipart body ended before its closing boundary */
	size_t reserved;          /* bytes of srv->buffered this request holds */
	struct conn_watch *watch; /* its connection, or NULL */
	struct server *srv;
	struct error field_error;  /* a field given twice, too long, or not text */
	unsigned argument_count;   /* query arguments seen */
	const char *allow;         /* the methods of the path, for 405 answers, or NULL */
	char allow_text[48];       /* where allow points */
	struct deferred *deferred; /* answered from another thread: the connection is suspended
	                              until deferred_answer */
};

/* Sends an answer (taking over what resp holds), held against --answer-memory while it is
 * sent: one that does not fit is a 503 (an error answer always goes out). */
enum MHD_Result server_send(struct request_state *st, struct MHD_Connection *conn,
                            struct response *resp);
/* An error answer of code with the message fmt. */
enum MHD_Result server_send_error(struct request_state *st, struct MHD_Connection *conn,
                                  enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The Content-Length headers of a request: how many, and whether they all agree. */
struct request_lengths {
	unsigned count;
	int differ;
	const char *first;
};
/* libmicrohttpd's iterator over a request's headers that counts them into a request_lengths. */
enum MHD_Result request_input_lengths(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value);
/* Its iterator over the query arguments (cls: the request_state): each given once, as UTF-8
 * text, at most REQUEST_MAX_ARGUMENTS; a problem goes to field_error and stops the walk. */
enum MHD_Result request_input_argument(void *cls, enum MHD_ValueKind kind, const char *key,
                                       const char *value);
/* Whether a Content-Type is multipart/form-data. */
int request_input_multipart(const char *type);
/* The multipart parser's callback (cls: the request_state): files and fields kept. */
enum MHD_Result request_input_post(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *filename, const char *content_type,
                                   const char *transfer_encoding, const char *data, uint64_t off,
                                   size_t size);
/* Once the body has come: form fields and file names are text, and not given again as query
 * arguments; a problem goes to field_error. */
void request_input_check(struct request_state *st);

#endif
