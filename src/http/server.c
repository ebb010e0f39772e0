/* server.c: the libmicrohttpd daemon: its start and stop, the callbacks through which a
 * request comes in (routed, authorised, its framing checked, its body admitted and kept) and
 * completes, and the request log. Its neighbours speak to libmicrohttpd too (server_state.h):
 * server_send.c hands answers over, request_input.c keeps and checks arguments and forms; the
 * watchdog, the budgets, authorisation and the response functions know nothing of it
 * (server_internal.h).
 *
 * Per-request state is created on the first callback of a request and freed in the
 * request-completed callback, which also writes the request's log line. Bodies are collected
 * into bounded buffers: a declared Content-Length over the limit is answered 413 before any
 * of the body is read; an undeclared one that grows past it is discarded as it arrives and
 * answered 413 at its end.
 *
 * Memory is bounded per request and for the server as a whole: an upload is admitted by its
 * declared length against --upload-memory (503 and Retry-After past it), and every answer
 * holds its bytes (a buffered body, or a streamed body's state and block) against
 * --answer-memory while it is sent. Large answers are streamed (struct response_stream).
 *
 * Time is bounded too: the watchdog (watchdog.c) sees every open connection and shuts down
 * the slow ones.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "event_hub.h"
#include "render/render.h"
#include "server_state.h"

static void timespec_now(struct timespec *t)
{
	clock_gettime(CLOCK_MONOTONIC, t);
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Bytes of text written with control bytes, backslashes and every byte above 0x7E escaped,
 * so that nothing a client sends can forge a log line or reach a terminal as a sequence. */
static void log_escaped(FILE *f, const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; p && *p; p++) {
		if (*p < 0x20 || *p >= 0x7F || *p == '\\')
			fprintf(f, "\\x%02X", *p);
		else
			fputc(*p, f);
	}
}

/* A body in a transfer coding other than chunked (identity, gzip...) has no framing this
 * server can read: answered 501 and the connection closed (RFC 9112, 6.1), rather than the
 * body waited for until the connection times out. */
static int unknown_transfer_coding(struct request_state *st, struct MHD_Connection *conn,
                                   enum MHD_Result *ret)
{
	const char *coding =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
	struct response resp = {0};
	struct error err;

	if (!coding || strcasecmp(coding, "chunked") == 0)
		return 0;
	error_init(&err);
	error_set(&err, ERROR_NOT_IMPLEMENTED, "Transfer-Encoding", -1,
	          "Transfer-Encoding: '%.60s' is not a coding this server reads; send the body "
	          "with Content-Length, or chunked (RFC 9112, 6.1)",
	          coding);
	response_error(&resp, &err);
	response_header(&resp, MHD_HTTP_HEADER_CONNECTION, "close");
	*ret = server_send(st, conn, &resp);
	return 1;
}

static void state_free(struct request_state *st)
{
	struct request *req = &st->req;

	if (st->deferred) { /* an answer not sent (the connection went away) goes with it */
		response_discard(&st->deferred->answer);
		free(st->deferred->answer.disposition);
		st->deferred->release(st->deferred);
	}
	if (st->post)
		MHD_destroy_post_processor(st->post);
	for (size_t i = 0; i < req->file_count; i++) {
		free(req->files[i].field);
		free(req->files[i].filename);
		buf_cleanup(&req->files[i].data);
	}
	for (size_t i = 0; i < req->field_count; i++) {
		free(req->fields[i].key);
		buf_cleanup(&req->fields[i].value);
	}
	if (st->watch && !st->watch->spare)
		st->watch->spare = st;
	else
		free(st);
}

static void request_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                              enum MHD_RequestTerminationCode toe)
{
	struct server *srv = cls;
	struct request_state *st = *con_cls;
	struct timespec now;
	double ms;

	(void)conn;
	if (!st)
		return;
	__atomic_sub_fetch(&srv->in_flight, 1, __ATOMIC_ACQ_REL);
	budget_give(&srv->buffered, st->reserved);
	watchdog_phase(st->watch, PHASE_HEADERS, 0); /* kept alive: the next request's turn */
	if (!srv->config.quiet) {
		char when[32];
		struct timespec wall;
		timespec_now(&now);
		clock_gettime(CLOCK_REALTIME, &wall);
		ms = seconds_between(&st->started, &now) * 1e3;
		render_time_ms((int64_t)wall.tv_sec * 1000 + wall.tv_nsec / 1000000, when);
		flockfile(stderr);
		fprintf(stderr, "%s ", when);
		log_escaped(stderr, st->req.method);
		fputc(' ', stderr);
		log_escaped(stderr, st->req.path);
		fprintf(stderr, " %u %zuB %.2fms%s\n", st->status, st->bytes_sent, ms,
		        toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (aborted)");
		funlockfile(stderr);
	}
	state_free(st);
	*con_cls = NULL;
}

/* The first callback of a request: route, authorise, check the framing, admit the body. */
static enum MHD_Result request_begin(struct server *srv, struct MHD_Connection *conn,
                                     const char *url, const char *method, void **con_cls)
{
	const union MHD_ConnectionInfo *info =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn_watch *watch = info ? info->socket_context : NULL;
	struct request_state *st;
	struct request_lengths lengths = {0};
	unsigned long long declared = 0;
	int path_known = 0;
	struct error refused;
	enum MHD_Result ret;

	if (watch && watch->spare) {
		st = watch->spare;
		watch->spare = NULL;
		memset(st, 0, sizeof(*st));
	} else if (!(st = calloc(1, sizeof(*st)))) {
		return MHD_NO;
	}
	st->watch = watch;
	__atomic_add_fetch(&srv->in_flight, 1, __ATOMIC_ACQ_REL);
	if (!srv->config.quiet) /* only the log line uses it */
		timespec_now(&st->started);
	st->srv = srv;
	st->req.method = method;
	st->req.path = url;
	st->req.connection = conn;
	st->req.config = &srv->config;
	st->req.answering = &srv->answering;
	st->req.uploading = &srv->buffered;
	st->req.pool = srv->pool;
	st->req.events = srv->events;
	*con_cls = st;
	if (__atomic_load_n(&srv->draining, __ATOMIC_ACQUIRE)) {
		st->retry_after = 1;
		return server_send_error(st, conn, ERROR_UNAVAILABLE,
		                         "the server is stopping; try again shortly");
	}
	MHD_get_connection_values(conn, MHD_HEADER_KIND, request_input_lengths, &lengths);
	if (lengths.differ)
		return server_send_error(st, conn, ERROR_BAD_PARAMETER,
		                         "Content-Length: the request gives %u different lengths "
		                         "(RFC 9112, 6.3: the framing is invalid)",
		                         lengths.count);
	if (unknown_transfer_coding(st, conn, &ret))
		return ret;
	st->route = routes_find(method, url, &st->req, &path_known);
	if (st->route && srv->config.read_only && strcmp(st->route->method, "GET") != 0) {
		st->allow = "GET, HEAD";
		return server_send_error(
		    st, conn, ERROR_READ_ONLY,
		    "%s %s: this animdex serves its catalogue for reading only "
		    "(--read-only): uploads, deletes and names are refused",
		    method, url);
	}
	if (!st->route) {
		st->allow = routes_allowed(url, st->allow_text, sizeof(st->allow_text));
		if (path_known)
			return server_send_error(st, conn, ERROR_METHOD_NOT_ALLOWED,
			                         "%s is not allowed on this path; it allows %s",
			                         method, st->allow ? st->allow : "nothing");
		return server_send_error(st, conn, ERROR_NOT_FOUND, "no route for %s %s", method,
		                         url);
	}
	error_init(&refused);
	if (authorise(
	        &srv->config, srv->pool, method, url,
	        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION),
	        st->req.user, sizeof(st->req.user), &refused) < 0) {
		st->unauthorised = refused.code == ERROR_UNAUTHORIZED; /* say how to authenticate */
		return server_send_error(st, conn, refused.code, "%s", refused.message);
	}
	error_init(&st->field_error);
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, request_input_argument, st);
	if (error_is_set(&st->field_error)) {
		struct response resp = {0};
		response_error(&resp, &st->field_error);
		return server_send(st, conn, &resp);
	}
	if (lengths.first) {
		char *end;
		declared = strtoull(lengths.first, &end, 10);
		if (declared > srv->config.max_upload)
			return server_send_error(
			    st, conn, ERROR_TOO_LARGE,
			    "the request body of %llu bytes is larger than the "
			    "upload limit of %zu bytes (--max-upload)",
			    declared, srv->config.max_upload);
	}
	if (st->route->takes_body && lengths.first && declared > 0) {
		/* admitted by its declared length: as many uploads go through as fit */
		if (budget_take(&srv->buffered, srv->config.upload_memory, (size_t)declared) < 0) {
			st->too_busy = 1;
			st->retry_after = 1;
			return server_send_error(
			    st, conn, ERROR_UNAVAILABLE,
			    "the server holds as much upload data as it may at "
			    "once (--upload-memory %zu bytes; this body is %llu); "
			    "try again shortly",
			    srv->config.upload_memory, declared);
		}
		st->reserved = (size_t)declared;
		st->declared = 1;
	}
	if (st->route->takes_body && request_input_multipart(MHD_lookup_connection_value(
	                                 conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE))) {
		st->post = MHD_create_post_processor(conn, 65536, request_input_post, st);
		if (!st->post)
			return server_send_error(
			    st, conn, ERROR_BAD_PARAMETER,
			    "Content-Type: the multipart/form-data body has no "
			    "usable boundary");
	}
	watchdog_phase(st->watch, st->route->takes_body ? PHASE_BODY : PHASE_ANSWER, declared);
	return MHD_YES;
}

/* A piece of the body: kept (within the limits) or discarded. */
static void request_body(struct request_state *st, const char *data, size_t size)
{
	struct server *srv = st->srv;

	st->body_seen += size;
	watchdog_body(st->watch, size);
	if (st->route->takes_body && !st->too_large && !st->too_busy && !st->declared) {
		/* no declared length: every byte kept counts against the budget as it comes */
		if (budget_take(&srv->buffered, srv->config.upload_memory, size) < 0)
			st->too_busy = 1;
		else
			st->reserved += size;
	}
	if (!st->route->takes_body || st->too_large || st->too_busy) {
		/* discard */
	} else if (st->post) {
		if (MHD_post_process(st->post, data, size) != MHD_YES)
			st->too_large = st->too_large ? 1 : 2;
	} else {
		struct request *req = &st->req;
		if (req->file_count == 0) {
			req->file_count = 1;
			buf_init(&req->files[0].data, srv->config.max_upload);
		}
		if (buf_append(&req->files[0].data, data, size) < 0)
			st->too_large = 1;
	}
	if (st->body_seen > srv->config.max_upload)
		st->too_large = 1;
}

/* What a route answered, or 500 when it gave nothing. */
static enum MHD_Result send_route_answer(struct request_state *st, struct MHD_Connection *conn,
                                         struct response *resp)
{
	if (resp->status == 0) {
		struct error err;
		error_init(&err);
		error_set(&err, ERROR_INTERNAL, NULL, -1, "the route gave no answer");
		response_error(resp, &err);
	}
	/* a write that succeeded: this daemon's streams need not wait for the next read */
	if (resp->status < 300 && strcmp(st->req.method, "GET") != 0 &&
	    strcmp(st->req.method, "HEAD") != 0)
		event_hub_poke(st->srv->events);
	return server_send(st, conn, resp);
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *conn, const char *url,
                                      const char *method, const char *version,
                                      const char *upload_data, size_t *upload_data_size,
                                      void **con_cls)
{
	struct server *srv = cls;
	struct request_state *st = *con_cls;
	struct response resp = {0};

	(void)version;
	if (!st)
		return request_begin(srv, conn, url, method, con_cls);
	if (st->deferred) { /* resumed by deferred_answer: the answer is made */
		resp = st->deferred->answer;
		memset(&st->deferred->answer, 0, sizeof(st->deferred->answer));
		return send_route_answer(st, conn, &resp);
	}
	if (*upload_data_size > 0) {
		request_body(st, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (st->post) {
		/* the parser knows whether the body ended with its closing boundary */
		if (MHD_destroy_post_processor(st->post) != MHD_YES && !st->too_large)
			st->incomplete = 1;
		st->post = NULL;
	}
	if (st->too_busy) {
		st->retry_after = 1;
		return server_send_error(st, conn, ERROR_UNAVAILABLE,
		                         "the server holds as much upload data as it may at once "
		                         "(--upload-memory %zu bytes); try again shortly",
		                         srv->config.upload_memory);
	}
	if (st->too_large == 2)
		return server_send_error(st, conn, ERROR_MALFORMED,
		                         "the multipart/form-data body could not be parsed");
	if (st->too_large)
		return server_send_error(st, conn, ERROR_TOO_LARGE,
		                         "the request body is larger than the upload limit of %zu "
		                         "bytes (--max-upload), or has more than %d files",
		                         srv->config.max_upload, REQUEST_MAX_FILES);
	request_input_check(st);
	if (error_is_set(&st->field_error)) {
		response_error(&resp, &st->field_error);
		return server_send(st, conn, &resp);
	}
	if (st->incomplete)
		return server_send_error(st, conn, ERROR_MALFORMED,
		                         "the multipart/form-data body ends before its closing "
		                         "boundary (--BOUNDARY--): the upload is incomplete, and "
		                         "nothing was stored");
	watchdog_phase(st->watch, PHASE_ANSWER, 0);
	st->route->handler(&st->req, &resp);
	/* what the route held while it made its answer: the answer is counted on its own */
	budget_give(&srv->answering, st->req.reserved);
	st->req.reserved = 0;
	if (resp.deferred) {
		/* suspended before the work is handed over, so that its answer cannot come first */
		st->deferred = resp.deferred;
		st->deferred->connection = conn;
		MHD_suspend_connection(conn);
		st->deferred->start(st->deferred);
		return MHD_YES;
	}
	return send_route_answer(st, conn, &resp);
}

/* libmicrohttpd's word that a request line has come: the connection is no longer idle (an
 * idle one timing out is ordinary; one that stops half way through its headers is not). */
static void *request_line_came(void *cls, const char *uri, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn_watch *w = info ? info->socket_context : NULL;

	(void)cls, (void)uri;
	if (w)
		__atomic_store_n(&w->requested, 1, __ATOMIC_RELAXED);
	return NULL; /* the request's state is made when its headers are whole */
}

/* libmicrohttpd's word that a connection opened or closed, for the watchdog. */
static void notify_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                              enum MHD_ConnectionNotificationCode toe)
{
	struct server *srv = cls;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *info =
		    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		*socket_context = info ? watchdog_opened(&srv->watchdog, info->connect_fd) : NULL;
	} else if (*socket_context) {
		watchdog_closed(&srv->watchdog, *socket_context);
		*socket_context = NULL;
	}
}

/* Decodes %XX in a URL in place, except %00: a NUL would cut the path short ("/a.html%00.txt"
 * must not serve "/a.html"), so it stays as the three characters it was. */
static size_t unescape_url(void *cls, struct MHD_Connection *conn, char *url)
{
	char *out = url;

	(void)cls, (void)conn;
	for (const char *in = url; *in; in++) {
		if (in[0] == '%' && isxdigit((unsigned char)in[1]) &&
		    isxdigit((unsigned char)in[2])) {
			char hex[3] = {in[1], in[2], 0};
			unsigned long v = strtoul(hex, NULL, 16);
			if (v != 0) {
				*out++ = (char)v;
				in += 2;
				continue;
			}
		}
		*out++ = *in;
	}
	*out = '\0';
	return (size_t)(out - url);
}

/* libmicrohttpd's own messages, marked as such (it names the port of the address we pass
 * as 0, so the caller's message is the one that names the real address). */
static void server_log(void *cls, const char *fmt, va_list ap)
{
	static const char *const ordinary[] = {
	    "application error generating response",
	    "Connection socket is closed",
	    "Connection reset by peer",
	    "Failed to send data in request",
	};
	char text[1024];
	size_t n;

	(void)cls;
	vsnprintf(text, sizeof(text), fmt, ap);
	/* one connection ending early (a client gone from its event stream or download, a tab
	 * closed half way through a request, or the watchdog's doing, which says so itself) is
	 * said by the daemon when it is worth a line: libmicrohttpd's word for it is not */
	for (size_t i = 0; i < sizeof(ordinary) / sizeof(ordinary[0]); i++)
		if (strstr(text, ordinary[i]))
			return;
	n = strlen(text);
	if (n && text[n - 1] == '\n')
		text[n - 1] = '\0';
	flockfile(stderr);
	fputs("animdexd: libmicrohttpd: ", stderr);
	log_escaped(stderr, text);
	fputc('\n', stderr);
	funlockfile(stderr);
}

/* Parses "host:port", "[v6]:port" or ":port" into a socket address. */
static int parse_listen(const char *text, struct sockaddr_storage *ss, int *ipv6, struct error *err)
{
	char host[128];
	const char *colon;
	char *end;
	long port;

	memset(ss, 0, sizeof(*ss));
	if (text[0] == '[') {
		const char *close = strchr(text, ']');
		if (!close || close[1] != ':' || (size_t)(close - text - 1) >= sizeof(host))
			goto bad;
		memcpy(host, text + 1, (size_t)(close - text - 1));
		host[close - text - 1] = '\0';
		colon = close + 1;
	} else {
		colon = strrchr(text, ':');
		if (!colon || (size_t)(colon - text) >= sizeof(host))
			goto bad;
		memcpy(host, text, (size_t)(colon - text));
		host[colon - text] = '\0';
	}
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || port < 0 || port > 65535)
		goto bad;
	if (!host[0])
		snprintf(host, sizeof(host), "0.0.0.0");
	if (strcmp(host, "localhost") == 0)
		snprintf(host, sizeof(host), "127.0.0.1");
	{
		struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
		if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
			v4->sin_family = AF_INET;
			v4->sin_port = htons((uint16_t)port);
			*ipv6 = 0;
			return 0;
		}
		if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
			v6->sin6_family = AF_INET6;
			v6->sin6_port = htons((uint16_t)port);
			*ipv6 = 1;
			return 0;
		}
	}
bad:
	error_set(err, ERROR_BAD_PARAMETER, "--listen", -1,
	          "--listen: '%s' is not ADDRESS:PORT (e.g. 127.0.0.1:8080 or [::1]:8080; "
	          "the address must be numeric or localhost, the port 0-65535)",
	          text);
	return -1;
}

struct server *server_start(const struct server_config *cfg, struct catalog_pool *pool,
                            struct error *err)
{
	struct server *srv = calloc(1, sizeof(*srv));
	struct sockaddr_storage addr;
	const union MHD_DaemonInfo *info;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
	                 MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
	int ipv6 = 0;

	if (!srv) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	srv->config = *cfg;
	srv->pool = pool;
	if (parse_listen(cfg->listen, &addr, &ipv6, err) < 0) {
		free(srv);
		return NULL;
	}
	if (ipv6)
		flags |= MHD_USE_IPv6;
	watchdog_init(&srv->watchdog, &srv->config);
	srv->events = event_hub_start(pool, cfg->max_event_streams, err);
	if (!srv->events) {
		free(srv);
		return NULL;
	}
	/* libmicrohttpd's own limit leaves room for newcomers to take a waiting one's slot */
	srv->daemon = MHD_start_daemon(
	    flags, 0, NULL, NULL, access_handler, srv, MHD_OPTION_EXTERNAL_LOGGER, server_log, NULL,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_THREAD_POOL_SIZE,
	    (unsigned int)(cfg->threads ? cfg->threads : 1), MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned int)cfg->max_connections + CONNECTION_RESERVE,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)cfg->max_connections_per_ip,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)cfg->timeout_seconds,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, cfg->max_header_size, MHD_OPTION_NOTIFY_COMPLETED,
	    request_completed, srv, MHD_OPTION_NOTIFY_CONNECTION, notify_connection, srv,
	    MHD_OPTION_UNESCAPE_CALLBACK, unescape_url, NULL, MHD_OPTION_URI_LOG_CALLBACK,
	    request_line_came, NULL, MHD_OPTION_END);
	if (!srv->daemon) {
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "cannot listen on %s: %s (is the port in use?)", cfg->listen,
		          strerror(errno));
		watchdog_stop(&srv->watchdog);
		event_hub_free(srv->events);
		free(srv);
		return NULL;
	}
	watchdog_start(&srv->watchdog);
	info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = info ? info->port : 0;
	return srv;
}

uint16_t server_port(const struct server *srv)
{
	return srv->port;
}

void server_stop(struct server *srv)
{
	struct timespec pause = {0, 20 * 1000 * 1000};

	if (!srv)
		return;
	/* New requests are answered 503 while those in flight finish (idle keep-alive
	 * connections do not count): up to 10 seconds. (MHD_quiesce_daemon would stop accepting
	 * instead, but in libmicrohttpd 0.9.75 it races with the worker threads over the
	 * listening socket's epoll registration, and the loser aborts the process.) */
	__atomic_store_n(&srv->draining, 1, __ATOMIC_RELEASE);
	event_hub_end_streams(srv->events); /* each ends its body, and its request */
	for (int i = 0; i < 500 && __atomic_load_n(&srv->in_flight, __ATOMIC_ACQUIRE) > 0; i++)
		nanosleep(&pause, NULL);
	/* every upload handed over is stored and its connection resumed: libmicrohttpd aborts
	 * when it is stopped with a connection still suspended */
	catalog_pool_stop_writes(srv->pool);
	MHD_stop_daemon(srv->daemon);
	watchdog_stop(&srv->watchdog);
	event_hub_free(srv->events);
	free(srv);
}
