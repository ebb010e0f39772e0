/* response.c: the answers routes give (http.h): a JSON body, an error as JSON with its HTTP
 * status, a body the server takes over, a streamed body, extra headers. The server sends them
 * (server.c). */
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "server_internal.h"

void response_take(struct response *resp, unsigned status, const char *type, char *body,
                   size_t length)
{
	free(resp->body);
	resp->status = status;
	text_copy(resp->content_type, sizeof(resp->content_type), type);
	resp->body = body;
	resp->length = length;
}

void response_json(struct response *resp, unsigned status, json_t *json)
{
	size_t length;
	char *text = json ? render_json(json, 0, &length) : NULL;

	json_decref(json);
	if (!text) {
		struct error err;
		error_init(&err);
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory rendering the answer");
		response_error(resp, &err);
		return;
	}
	response_take(resp, status, "application/json", text, length);
}

void response_error(struct response *resp, const struct error *err)
{
	enum error_code code = err && err->code != ERROR_NONE ? err->code : ERROR_INTERNAL;
	/* what an error quotes came from the client: bytes that are not UTF-8 are shown
	 * escaped (\xFF), so the answer stays JSON with its own status and code */
	char message[sizeof(err->message) * 4], path[sizeof(err->path) * 4];
	json_t *body, *wrapper;
	size_t length = 0;
	char *text;

	utf8_escape(err && err->message[0] ? err->message : "internal error", message,
	            sizeof(message));
	utf8_escape(err ? err->path : "", path, sizeof(path));
	body = json_pack("{s:s, s:s}", "code", error_code_name(code), "message", message);
	if (body && path[0])
		json_object_set_new(body, "path", json_string(path));
	if (body && err && err->offset >= 0)
		json_object_set_new(body, "offset", json_integer(err->offset));
	wrapper = body ? json_pack("{s:o}", "error", body) : NULL;
	text = wrapper ? render_json(wrapper, 0, &length) : NULL;
	json_decref(wrapper);
	if (!text) {
		static const char fallback[] =
		    "{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}\n";
		text = strdup(fallback);
		length = text ? strlen(text) : 0;
	}
	response_take(resp, error_http_status(code), "application/json", text, length);
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
			text_copy(resp->extra_name[i], sizeof(resp->extra_name[i]), name);
			text_copy(resp->extra_value[i], sizeof(resp->extra_value[i]), value);
			return;
		}
}

void response_stream(struct response *resp, unsigned status, const char *type,
                     const struct response_stream *stream)
{
	free(resp->body);
	resp->body = NULL;
	resp->length = 0;
	resp->status = status;
	text_copy(resp->content_type, sizeof(resp->content_type), type);
	resp->stream = *stream;
}

void response_discard(struct response *resp)
{
	free(resp->body);
	resp->body = NULL;
	if (resp->stream.fill && resp->stream.release)
		resp->stream.release(resp->stream.state);
	memset(&resp->stream, 0, sizeof(resp->stream));
}
