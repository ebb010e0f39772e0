/* server.c: the libmicrohttpd daemon. The only file that includes microhttpd.h.
 *
 * Per-request state is created on the first callback of a request and freed in the
 * request-completed callback, which also writes the request's log line. Bodies are collected
 * into bounded buffers: a declared Content-Length over the limit is answered 413 before any
 * of the body is read; an undeclared one that grows past it is discarded as it arrives and
 * answered 413 at its end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http.h"
#include "render.h"

struct server {
	struct MHD_Daemon *daemon;
	struct server_config config; /* a copy */
	struct catalog_pool *pool;   /* not owned */
	uint16_t port;               /* the bound port */
	int in_flight;               /* requests begun and not completed (atomic) */
	size_t buffered;             /* body bytes held by all requests (atomic) */
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
	int unauthorised; /* answered 401: say how to authenticate */
	int too_busy;     /* the server-wide upload memory was full */
	int retry_after;  /* say when to try again */
	size_t reserved;  /* bytes of srv->buffered this request holds */
	const struct server *srv;
};

static const char *server_connection_value(const struct request *req, enum MHD_ValueKind kind,
                                           const char *name)
{
	return MHD_lookup_connection_value((struct MHD_Connection *)req->connection, kind, name);
}

const char *request_arg(const struct request *req, const char *name)
{
	for (size_t i = 0; i < req->field_count; i++)
		if (strcmp(req->fields[i].key, name) == 0)
			return req->fields[i].value.data ? req->fields[i].value.data : "";
	return server_connection_value(req, MHD_GET_ARGUMENT_KIND, name);
}

const char *request_header(const struct request *req, const char *name)
{
	return server_connection_value(req, MHD_HEADER_KIND, name);
}

void response_take(struct response *resp, unsigned status, const char *type, char *body,
                   size_t length)
{
	free(resp->body);
	resp->status = status;
	snprintf(resp->content_type, sizeof(resp->content_type), "%s", type);
	resp->body = body;
	resp->length = length;
}

void response_json(struct response *resp, unsigned status, json_t *json)
{
	char *text = json ? json_dumps(json, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;

	json_decref(json);
	if (!text) {
		struct error err;
		error_init(&err);
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory rendering the answer");
		response_error(resp, &err);
		return;
	}
	response_take(resp, status, "application/json", text, strlen(text));
}

void response_error(struct response *resp, const struct error *err)
{
	enum error_code code = err && err->code != ERROR_NONE ? err->code : ERROR_INTERNAL;
	json_t *body = json_pack("{s:s, s:s}", "code", error_code_name(code), "message",
	                         err && err->message[0] ? err->message : "internal error");
	json_t *wrapper;
	char *text;

	if (body && err && err->path[0])
		json_object_set_new(body, "path", json_string(err->path));
	if (body && err && err->offset >= 0)
		json_object_set_new(body, "offset", json_integer(err->offset));
	wrapper = body ? json_pack("{s:o}", "error", body) : NULL;
	text = wrapper ? json_dumps(wrapper, JSON_COMPACT) : NULL;
	json_decref(wrapper);
	if (!text) {
		static const char fallback[] =
		    "{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}";
		text = strdup(fallback);
	}
	response_take(resp, error_http_status(code), "application/json", text,
	              text ? strlen(text) : 0);
}

void response_result(struct response *resp, json_t *json, const struct error *err)
{
	if (json)
		response_json(resp, 200, json);
	else
		response_error(resp, err);
}

void response_header(struct response *resp, const char *name, const char *value)
{
	for (int i = 0; i < 2; i++)
		if (!resp->extra_name[i][0]) {
			snprintf(resp->extra_name[i], sizeof(resp->extra_name[i]), "%s", name);
			snprintf(resp->extra_value[i], sizeof(resp->extra_value[i]), "%s", value);
			return;
		}
}

static enum MHD_Result server_send(struct request_state *st, struct MHD_Connection *conn,
                                   struct response *resp)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (!resp->body) {
		resp->body = strdup("");
		resp->length = 0;
	}
	r = MHD_create_response_from_buffer(resp->length, resp->body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(resp->body);
		free(resp->disposition);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, resp->content_type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (resp->disposition)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, resp->disposition);
	if (st->retry_after)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "2");
	if (st->unauthorised)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
		                        "Bearer realm=\"animdex\"");
	for (int i = 0; i < 2; i++)
		if (resp->extra_name[i][0])
			MHD_add_response_header(r, resp->extra_name[i], resp->extra_value[i]);
	st->status = resp->status;
	st->bytes_sent = resp->length;
	ret = MHD_queue_response(conn, resp->status, r);
	MHD_destroy_response(r);
	free(resp->disposition);
	return ret;
}

static enum MHD_Result server_send_error(struct request_state *st, struct MHD_Connection *conn,
                                         enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static enum MHD_Result server_send_error(struct request_state *st, struct MHD_Connection *conn,
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

static struct request_field *state_field(struct request_state *st, const char *key)
{
	struct request *req = &st->req;

	for (size_t i = 0; i < req->field_count; i++)
		if (strcmp(req->fields[i].key, key) == 0)
			return &req->fields[i];
	if (req->field_count == REQUEST_MAX_FIELDS)
		return NULL;
	req->fields[req->field_count].key = strdup(key);
	if (!req->fields[req->field_count].key)
		return NULL;
	buf_init(&req->fields[req->field_count].value, 4096);
	return &req->fields[req->field_count++];
}

static enum MHD_Result post_iterator(void *cls, enum MHD_ValueKind kind, const char *key,
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
		struct request_field *field = state_field(st, key);
		if (field && size && buf_append(&field->value, data, size) < 0)
			st->too_large = 1;
	}
	return MHD_YES;
}

static void state_free(struct request_state *st)
{
	struct request *req = &st->req;

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
	__atomic_sub_fetch(&srv->buffered, st->reserved, __ATOMIC_ACQ_REL);
	if (!srv->config.quiet) {
		char when[32];
		struct timespec wall;
		clock_gettime(CLOCK_MONOTONIC, &now);
		clock_gettime(CLOCK_REALTIME, &wall);
		ms = (double)(now.tv_sec - st->started.tv_sec) * 1e3 +
		     (double)(now.tv_nsec - st->started.tv_nsec) / 1e6;
		render_time_ms((int64_t)wall.tv_sec * 1000 + wall.tv_nsec / 1000000, when);
		fprintf(stderr, "%s %s %s %u %zuB %.2fms%s\n", when, st->req.method, st->req.path,
		        st->status, st->bytes_sent, ms,
		        toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (aborted)");
	}
	state_free(st);
	*con_cls = NULL;
}

/* Writes need a valid token once any token exists; with --private, API reads do too. Returns
 * 0 to go on, or -1 after answering 401 or 403. */
static int authorise(struct request_state *st, struct MHD_Connection *conn, enum MHD_Result *ret)
{
	const struct server *srv = st->srv;
	int write = strcmp(st->req.method, "POST") == 0 || strcmp(st->req.method, "DELETE") == 0;
	const char *auth, *token = NULL;
	struct catalog *cat;
	struct error err;

	if (!write && !(srv->config.private_reads && strncmp(st->req.path, "/api/", 5) == 0))
		return 0;
	error_init(&err);
	cat = catalog_pool_get(srv->pool, &err);
	if (!cat) {
		*ret = server_send_error(st, conn, err.code, "%s", err.message);
		return -1;
	}
	auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (auth && strncasecmp(auth, "Bearer ", 7) == 0)
		token = auth + 7;
	switch (catalog_token_check(cat, token, st->req.user, sizeof(st->req.user))) {
	case TOKEN_NONE_EXIST: return 0;
	case TOKEN_VALID: return 0;
	case TOKEN_MISSING:
		st->unauthorised = 1;
		*ret = server_send_error(
		    st, conn, ERROR_UNAUTHORIZED,
		    "%s needs a token: send Authorization: Bearer TOKEN (animdexd "
		    "token add NAME makes one)",
		    write ? "writing" : "reading this catalogue");
		return -1;
	case TOKEN_REVOKED:
		*ret = server_send_error(st, conn, ERROR_FORBIDDEN, "this token was revoked");
		return -1;
	default:
		*ret = server_send_error(st, conn, ERROR_FORBIDDEN, "this token is not valid here");
		return -1;
	}
}

static int is_multipart(const char *type)
{
	return type && strncasecmp(type, "multipart/form-data", 19) == 0;
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
	if (!st) {
		const char *length;
		int path_known = 0;

		st = calloc(1, sizeof(*st));
		if (!st)
			return MHD_NO;
		__atomic_add_fetch(&srv->in_flight, 1, __ATOMIC_ACQ_REL);
		clock_gettime(CLOCK_MONOTONIC, &st->started);
		st->srv = srv;
		st->req.method = method;
		st->req.path = url;
		st->req.connection = conn;
		st->req.config = &srv->config;
		st->req.pool = srv->pool;
		*con_cls = st;
		st->route = routes_find(method, url, &st->req, &path_known);
		if (!st->route) {
			if (path_known)
				return server_send_error(st, conn, ERROR_METHOD_NOT_ALLOWED,
				                         "%s is not allowed on %s", method, url);
			return server_send_error(st, conn, ERROR_NOT_FOUND, "no route for %s %s",
			                         method, url);
		}
		{
			enum MHD_Result ret;
			if (authorise(st, conn, &ret) < 0)
				return ret;
		}
		length = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
		                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (length) {
			unsigned long long n = strtoull(length, NULL, 10);
			if (n > srv->config.max_upload)
				return server_send_error(
				    st, conn, ERROR_TOO_LARGE,
				    "the request body of %llu bytes is larger than the upload "
				    "limit of %zu bytes (--max-upload)",
				    n, srv->config.max_upload);
		}
		if (st->route->takes_body &&
		    is_multipart(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
		                                             MHD_HTTP_HEADER_CONTENT_TYPE))) {
			st->post = MHD_create_post_processor(conn, 65536, post_iterator, st);
			if (!st->post)
				return server_send_error(st, conn, ERROR_BAD_PARAMETER,
				                         "the multipart/form-data body has no "
				                         "usable boundary");
		}
		return MHD_YES;
	}
	if (*upload_data_size > 0) {
		st->body_seen += *upload_data_size;
		if (st->route->takes_body && !st->too_large && !st->too_busy) {
			/* every byte kept counts against the server-wide budget */
			size_t held =
			    __atomic_add_fetch(&srv->buffered, *upload_data_size, __ATOMIC_ACQ_REL);
			if (held > srv->config.upload_memory) {
				__atomic_sub_fetch(&srv->buffered, *upload_data_size,
				                   __ATOMIC_ACQ_REL);
				st->too_busy = 1;
			} else {
				st->reserved += *upload_data_size;
			}
		}
		if (!st->route->takes_body || st->too_large || st->too_busy) {
			/* discard */
		} else if (st->post) {
			if (MHD_post_process(st->post, upload_data, *upload_data_size) != MHD_YES)
				st->too_large = st->too_large ? 1 : 2;
		} else {
			struct request *req = &st->req;
			if (req->file_count == 0) {
				req->file_count = 1;
				buf_init(&req->files[0].data, srv->config.max_upload);
			}
			if (buf_append(&req->files[0].data, upload_data, *upload_data_size) < 0)
				st->too_large = 1;
		}
		if (st->body_seen > srv->config.max_upload)
			st->too_large = 1;
		*upload_data_size = 0;
		return MHD_YES;
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
	st->route->handler(&st->req, &resp);
	if (resp.status == 0) {
		struct error err;
		error_init(&err);
		error_set(&err, ERROR_INTERNAL, NULL, -1, "the route gave no answer");
		response_error(&resp, &err);
	}
	return server_send(st, conn, &resp);
}

/* libmicrohttpd's own messages, marked as such (it names the port of the address we pass
 * as 0, so the caller's message is the one that names the real address). */
static void server_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("animdexd: libmicrohttpd: ", stderr);
	vfprintf(stderr, fmt, ap);
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
	unsigned flags =
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_ERROR_LOG;
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
	srv->daemon = MHD_start_daemon(
	    flags, 0, NULL, NULL, access_handler, srv, MHD_OPTION_EXTERNAL_LOGGER, server_log, NULL,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_THREAD_POOL_SIZE,
	    (unsigned int)(cfg->threads ? cfg->threads : 1), MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned int)cfg->max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	    (unsigned int)cfg->max_connections_per_ip, MHD_OPTION_CONNECTION_TIMEOUT,
	    (unsigned int)cfg->timeout_seconds, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	    cfg->max_header_size, MHD_OPTION_NOTIFY_COMPLETED, request_completed, srv,
	    MHD_OPTION_END);
	if (!srv->daemon) {
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "cannot listen on %s: %s (is the port in use?)", cfg->listen,
		          strerror(errno));
		free(srv);
		return NULL;
	}
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
	MHD_socket listener;
	struct timespec pause = {0, 20 * 1000 * 1000};

	if (!srv)
		return;
	listener = MHD_quiesce_daemon(srv->daemon);
	/* Let requests in flight finish (idle keep-alive connections do not count): up to 10
	 * seconds. */
	for (int i = 0; i < 500 && __atomic_load_n(&srv->in_flight, __ATOMIC_ACQUIRE) > 0; i++)
		nanosleep(&pause, NULL);
	MHD_stop_daemon(srv->daemon);
	if (listener != MHD_INVALID_SOCKET)
		close(listener);
	free(srv);
}
