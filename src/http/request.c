/* request.c: what a route reads of its request besides what the server collected (query
 * arguments, headers), and the suspension and resumption of a request answered from another
 * thread or waiting for what it streams. One of the files that speak to libmicrohttpd
 * (doc/architecture.md). */
#include <microhttpd.h>
#include <string.h>

#include "http/http.h"
#include "server_internal.h"

static const char *connection_value(const struct request *req, enum MHD_ValueKind kind,
                                    const char *name)
{
	return MHD_lookup_connection_value((struct MHD_Connection *)req->connection, kind, name);
}

int request_reserve(struct request *req, size_t bytes, const char *what, struct error *err)
{
	if (!req->answering)
		return 0;
	if (budget_take(req->answering, req->config->answer_memory, bytes) < 0) {
		error_set(err, ERROR_UNAVAILABLE, NULL, -1,
		          "%s needs about %zu bytes to make, and the server holds as many answers "
		          "as it may at once (--answer-memory %zu bytes); try again shortly%s",
		          what, bytes, req->config->answer_memory,
		          bytes > req->config->answer_memory ? " with a larger --answer-memory"
		                                             : "");
		return -1;
	}
	req->reserved += bytes;
	return 0;
}

const char *request_arg(const struct request *req, const char *name)
{
	for (size_t i = 0; i < req->field_count; i++)
		if (strcmp(req->fields[i].key, name) == 0)
			return req->fields[i].value.data ? req->fields[i].value.data : "";
	return connection_value(req, MHD_GET_ARGUMENT_KIND, name);
}

const char *request_header(const struct request *req, const char *name)
{
	return connection_value(req, MHD_HEADER_KIND, name);
}

void deferred_answer(struct deferred *d)
{
	MHD_resume_connection(d->connection);
}

void request_suspend(void *connection)
{
	MHD_suspend_connection(connection);
}

void request_resume(void *connection)
{
	MHD_resume_connection(connection);
}

int request_peer_closed(void *connection)
{
	const union MHD_ConnectionInfo *info =
	    MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);

	return info && watchdog_peer_closed(info->connect_fd);
}
