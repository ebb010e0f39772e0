/* http.h: what a route handler sees of a request and gives back as a response.
 *
 * server.c collects each request (its query arguments, and its body: raw, or multipart parts
 * and fields), finds the route, calls the handler once the whole body is in, and sends the
 * response; request.c and response.c are what a handler calls. Only server.c and request.c
 * include microhttpd.h, and no route calls the server. Handlers are plain functions of
 * (request, response), so the route table reads like the API's documentation.
 */
#ifndef ANIMDEX_HTTP_H
#define ANIMDEX_HTTP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "catalog/catalog.h"
#include "base/error.h"

struct server_config {
	const char *listen;  /* "127.0.0.1:8080", "[::1]:8080", port 0 = any free port */
	const char *db_path; /* the catalogue: a SQLite file or a PostgreSQL connection string */
	const char *www_dir; /* static files */
	const char *chartjs_dir; /* Chart.js, served under /vendor/chart.js/ */
	const char *three_dir;   /* three.js, served under /vendor/three/ */
	size_t max_upload;       /* bytes in one request body */
	size_t upload_memory;    /* bytes of request bodies held at once, all requests together */
	size_t max_header_size;  /* per-connection memory for the request line and headers */
	unsigned threads;        /* libmicrohttpd polling threads */
	unsigned max_samples;    /* samples in one sample request */
	unsigned max_connections;
	unsigned max_connections_per_ip;
	unsigned timeout_seconds;   /* idle connections are closed after this */
	unsigned header_timeout;    /* seconds a request may take to send its headers (and, from
	                             * then on, the grace before its body must keep min_body_rate) */
	size_t min_body_rate;       /* bytes per second an upload body must average */
	size_t answer_memory;       /* bytes of answers held at once, all requests together */
	unsigned max_entries;       /* entries one upload may create */
	int quiet;                  /* no request log */
	int private_reads;          /* reads need a token too (--private) */
	int read_only;              /* the catalogue is served for reading only (--read-only) */
	unsigned max_event_streams; /* GET /api/events streams open at once */
};

/* One uploaded file: a multipart part with a file name, or a raw body. */
struct upload_file {
	char *field;     /* the form field ("file"), or NULL for a raw body */
	char *filename;  /* as the client named it, or NULL */
	struct buf data; /* the bytes, bounded by the upload limit */
};

struct request_field {
	char *key;
	struct buf value;
};

#define REQUEST_MAX_CAPTURES 2
#define REQUEST_MAX_FIELDS   16
#define REQUEST_MAX_FILES    64

struct request {
	const char *method;
	const char *path;
	void *connection;                            /* the server's; opaque to routes */
	const char *captures[REQUEST_MAX_CAPTURES];  /* the {id} and {n} of the route's path */
	char capture_text[REQUEST_MAX_CAPTURES][64]; /* where captures point */
	struct upload_file files[REQUEST_MAX_FILES];
	size_t file_count;
	struct request_field fields[REQUEST_MAX_FIELDS]; /* multipart form fields */
	size_t field_count;
	const struct server_config *config;
	struct catalog_pool *pool;
	struct event_hub *events; /* the server's event streams (event_hub.h) */
	char user[72];            /* the name of the token that authorised the request, or "" */
	size_t *answering;        /* the server's answer memory in use (request_reserve) */
	const size_t *uploading;  /* the server's upload memory in use (for the health) */
	size_t reserved;          /* of it, what this request holds while it makes its answer */
};

/* A body produced while it is sent, so that a large answer needs bounded memory: `fill`
 * writes up to `room` bytes of what comes next into `out` and returns how many, 0 at the end,
 * or -1 to give up (the connection is closed). `release` frees `state` when the answer is
 * done or abandoned.
 *
 * A body that waits for what it sends (an event stream) returns RESPONSE_STREAM_WAITING
 * instead, after suspending its connection with request_suspend; whoever has something for
 * it then calls request_resume, and fill is called again. */
#define RESPONSE_LENGTH_UNKNOWN UINT64_MAX
#define RESPONSE_STREAM_WAITING (-2)
struct response_stream {
	long (*fill)(void *state, char *out, size_t room);
	void (*release)(void *state);
	void *state;
	size_t memory;   /* bytes the state holds, counted against --answer-memory */
	uint64_t length; /* the body's exact length, or RESPONSE_LENGTH_UNKNOWN (chunked) */
	size_t block;    /* the most one fill is asked for (0: the server's 128 KiB) */
};

struct deferred;

struct response {
	struct deferred *deferred; /* answered later, from another thread (below), or NULL */
	unsigned status;
	char content_type[64];
	char *body; /* malloc'd; sent and freed by the server */
	size_t length;
	struct response_stream stream; /* used instead of body when stream.fill is set */
	char *disposition;             /* Content-Disposition, or NULL */
	char extra_name[2][32];        /* up to two more headers */
	char extra_value[2][256];
};

/* An answer made on another thread. A route that hands its work over sets resp->deferred
 * and returns without answering; the server suspends the connection (its thread serves other
 * connections meanwhile), then calls `start`. Whoever does the work fills `answer` and calls
 * deferred_answer, from any thread; the server sends the answer, and calls `release` once the
 * request is over (answered or not). */
struct deferred {
	void (*start)(struct deferred *d);
	void (*release)(struct deferred *d);
	struct response answer;
	void *connection; /* the server's */
};
void deferred_answer(struct deferred *d);

/* A request's connection (request->connection) leaves the server's polling until resumed:
 * called only from the fill of its own answer's stream; resumed from any thread. */
void request_suspend(void *connection);
void request_resume(void *connection);
/* Has the client closed its side of the connection (a suspended one cannot tell)? */
int request_peer_closed(void *connection);

/* Holds `bytes` of --answer-memory while the route makes its answer (a JSON tree is larger
 * than its text): counted before the answer is built, so that a request the memory cannot take
 * is refused before it takes any. Given back when the route returns (the answer's own size is
 * then counted as it is sent). 0, or -1 with err set: ERROR_UNAVAILABLE (503, Retry-After),
 * naming what the answer needs. */
int request_reserve(struct request *req, size_t bytes, const char *what, struct error *err);

/* A multipart form field if given, else the query argument, else NULL. */
const char *request_arg(const struct request *req, const char *name);
/* A request header, or NULL. */
const char *request_header(const struct request *req, const char *name);

void response_json(struct response *resp, unsigned status, json_t *json);
void response_error(struct response *resp, const struct error *err);
/* 200 with json, or the error when json is NULL. */
void response_result(struct response *resp, json_t *json, const struct error *err);
void response_take(struct response *resp, unsigned status, const char *type, char *body,
                   size_t length);
void response_header(struct response *resp, const char *name, const char *value);
/* Answers with a streamed body; the response owns stream->state from here on. */
void response_stream(struct response *resp, unsigned status, const char *type,
                     const struct response_stream *stream);

/* The routes. */
typedef void (*route_handler)(struct request *req, struct response *resp);

struct route {
	const char *method;  /* "GET", "POST", "DELETE" */
	const char *pattern; /* "/api/resources/{}/tracks/{}/sample"; {} captures */
	route_handler handler;
	int takes_body; /* collects an upload body */
};

const struct route *routes_find(const char *method, const char *path, struct request *req,
                                int *path_known);
/* "GET, HEAD, DELETE"...: the methods a path allows (into out), or NULL for an unknown path. */
const char *routes_allowed(const char *path, char *out, size_t size);

void route_upload(struct request *req, struct response *resp);
void route_list(struct request *req, struct response *resp);
void route_get(struct request *req, struct response *resp);
void route_raw(struct request *req, struct response *resp);
void route_export_one(struct request *req, struct response *resp);
void route_export_many(struct request *req, struct response *resp);
void route_native(struct request *req, struct response *resp);
void route_edits(struct request *req, struct response *resp);
void route_delete(struct request *req, struct response *resp);
void route_keys(struct request *req, struct response *resp);
void route_sample(struct request *req, struct response *resp);
void route_pose(struct request *req, struct response *resp);
void route_skeletons(struct request *req, struct response *resp);
void route_bonemap(struct request *req, struct response *resp);
void route_retarget(struct request *req, struct response *resp);
void route_compare(struct request *req, struct response *resp);
void route_events(struct request *req, struct response *resp);
void route_handle(struct request *req, struct response *resp);
void route_names(struct request *req, struct response *resp);
void route_classes(struct request *req, struct response *resp);
void route_health(struct request *req, struct response *resp);
void route_static(struct request *req, struct response *resp);

/* The calling thread's catalogue, or NULL after answering 500/503. */
struct catalog *route_catalog(struct request *req, struct response *resp);
/* Parses the {id} capture; answers 400 and returns -1 when it is not a positive integer. */
int route_id(struct request *req, struct response *resp, int64_t *id);
/* A whole number written in digits only (no sign, space or leading zero), at most max. */
int route_decimal(const char *text, uint64_t max, uint64_t *out);
/* The same for an index or count named `field` ("n", "count"); err names what it must be. */
int route_index(const char *text, const char *field, const char *what, uint64_t max, unsigned *out,
                struct error *err);

/* The times a sampling request asks for (routes_tracks.c): t=..., or from/to (by default the
 * range given) with count (101 by default) or step; --max-samples bounds times x per_time.
 * 0, or -1 with err naming the parameter. */
struct sample_times;
int route_sample_times(struct request *req, double from, double to, size_t per_time,
                       struct sample_times *st, struct error *err);

/* An entry id parameter (routes_rig.c): 0 when not given, else the id; -1 with err naming it.
 * route_skeleton_arg is skeleton=ID. */
int route_entry_arg(struct request *req, const char *name, int64_t *id, struct error *err);
int route_skeleton_arg(struct request *req, int64_t *skeleton, struct error *err);

/* An export's options from format=, bake= and summary= (routes_export.c), and an exporter's
 * asset as the answer (or, summary, what it would hold), named after `name`; `reduction`, when
 * not NULL, is the reduce= reports, given in the summary as "reduction" and, for one entry, in
 * an X-Animdex-Reduce header. */
struct export_options;
struct exporter;
int route_export_options(struct request *req, struct export_options *opt, int *summary,
                         struct error *err);
void route_answer_export(struct request *req, struct response *resp, struct exporter *ex,
                         const char *name, int glb, int summary, json_t *reduction);

/* A native file as the answer (routes_native.c): the file (its bytes taken) or, summary, its
 * report; the report's figures in X-Animdex-Native either way. route_request_lookup is
 * request_arg for native_request_parse. */
struct native_file;
void route_answer_native(struct response *resp, struct native_file *file, const char *name,
                         int summary);
const char *route_request_lookup(void *ctx, const char *name);

/* A retarget's parameters (routes_retarget.c): the target named by `onto` ("onto", or
 * "skeleton" for pose's and GET /api/export's retarget=1), the source rig by `from` (NULL where
 * from= means a time), map=, mode=, root=, ground=. 0, or -1 with err naming the parameter. */
struct retarget_request;
/* retarget=0|1 (what: what 1 means, for the refusal): 0, 1, or -1 with err naming it. */
int route_retarget_wanted(struct request *req, const char *what, struct error *err);
int route_retarget_request(struct request *req, int64_t id, const char *onto, const char *from,
                           struct retarget_request *rq, struct error *err);

/* Gives a catalogue entry (or each of a list of them) its API address, "url", after its
 * "part": the catalogue knows no URLs. */
void route_link_entry(json_t *entry);
void route_link_entries(json_t *entries);

/* Sample output shared by the routes and `animdexd decode`. */
struct server;
struct server *server_start(const struct server_config *cfg, struct catalog_pool *pool,
                            struct error *err);
uint16_t server_port(const struct server *srv);
/* Answers new requests 503 while those in flight finish (up to a grace period), then
 * stops. */
void server_stop(struct server *srv);

#endif
