/* testutil.c: helpers shared by the test programs. */
#define _GNU_SOURCE
#include "testutil.h"

#include <arpa/inet.h>
#include <check.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef HAVE_POSTGRESQL
#include <libpq-fe.h>
#endif
#include <unistd.h>

#include "base/base64.h"
#include "core/curve.h"

const char testutil_walk_doc[] =
    "{\"name\": \"walk\", \"duration\": 1.0,"
    " \"targets\": [{\"schema\": \"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", \"object\": 0,"
    " \"name\": \"hips\"}],"
    " \"samplers\": [{\"value\": {\"type\": \"FLOAT3\", \"array_size\": 1},"
    " \"interpolation\": \"LINEAR\", \"times\": [0, 1], \"values\": [0,0,0, 2,1,0]}],"
    " \"channels\": [{\"target\": 0, \"property\": 1, \"sampler\": 0}]}";

int testutil_run(struct Suite *suite)
{
	SRunner *sr = srunner_create(suite);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

char *testutil_read_file(const char *path, size_t *length)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	long size;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		data = malloc((size_t)size + 1);
		if (data && fread(data, 1, (size_t)size, f) == (size_t)size) {
			data[size] = '\0';
			*length = (size_t)size;
		} else {
			free(data);
			data = NULL;
		}
	}
	fclose(f);
	return data;
}

const char *testutil_src_path(const char *rel, char *out, size_t size)
{
	const char *src = getenv("ANIMDEX_SRCDIR");
	snprintf(out, size, "%s/%s", src ? src : ".", rel);
	return out;
}

const char *testutil_fixtures(const char *what)
{
	const char *dir = getenv("ANIMDEX_FIXTURES");
	struct stat st;

	if (dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return dir;
	printf("SKIP: %s: the fixtures folder %s is absent (set ANIMDEX_FIXTURES)\n", what,
	       dir ? dir : "../shared/fixtures");
	fflush(stdout);
	return NULL;
}

char *testutil_shell(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	char *text = calloc(1, 65536);
	size_t n = 0;

	while (p && text && n < 65535) {
		size_t got = fread(text + n, 1, 65535 - n, p);
		if (got == 0)
			break;
		n += got;
	}
	*status = p ? pclose(p) : -1;
	return text;
}

/* Every temporary folder of a test program is named after the program's first process (the
 * suite's main, before Check forks a process a test): when that process ends, it removes what
 * is left of them, so that a test that failed (its process ended at the failed assertion) or
 * timed out (killed) leaves nothing in /tmp. */
static pid_t temp_owner;

static void temp_dirs_remove(void)
{
	char prefix[64];
	DIR *d;
	struct dirent *e;

	if (getpid() != temp_owner || !(d = opendir("/tmp")))
		return;
	snprintf(prefix, sizeof(prefix), "animdex-test-%ld-", (long)temp_owner);
	while ((e = readdir(d))) {
		char path[300];
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(path, sizeof(path), "/tmp/%s", e->d_name);
		testutil_remove_tree(path);
	}
	closedir(d);
}

__attribute__((constructor)) static void temp_dirs_owner(void)
{
	temp_owner = getpid();
	atexit(temp_dirs_remove);
}

char *testutil_temp_dir(void)
{
	char tmpl[64];
	char *dir;

	snprintf(tmpl, sizeof(tmpl), "/tmp/animdex-test-%ld-XXXXXX", (long)temp_owner);
	dir = mkdtemp(tmpl);
	return dir ? strdup(dir) : NULL;
}

void testutil_remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			testutil_remove_tree(path);
		else
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* glTF: buffers (data URIs or files beside the .gltf) and float accessors. */

static uint8_t *gltf_buffer(const json_t *gltf, size_t index, const char *dir, size_t *length)
{
	const char *uri = json_string_value(
	    json_object_get(json_array_get(json_object_get(gltf, "buffers"), index), "uri"));
	const char *comma;
	char path[2200];
	size_t bad;

	if (!uri)
		return NULL;
	if (strncmp(uri, "data:", 5) == 0) {
		comma = strchr(uri, ',');
		return comma ? base64_decode(comma + 1, strlen(comma + 1), length, &bad) : NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, uri);
	return (uint8_t *)testutil_read_file(path, length);
}

/* Appends accessor `index` (float components) to `out` as JSON numbers; returns its count. */
static size_t gltf_accessor(const json_t *gltf, size_t index, uint8_t **buffers,
                            const size_t *buffer_lengths, json_t *out)
{
	static const struct {
		const char *type;
		size_t n;
	} types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}};
	const json_t *acc = json_array_get(json_object_get(gltf, "accessors"), index);
	const json_t *view =
	    json_array_get(json_object_get(gltf, "bufferViews"),
	                   (size_t)json_integer_value(json_object_get(acc, "bufferView")));
	size_t count = (size_t)json_integer_value(json_object_get(acc, "count"));
	size_t buffer = (size_t)json_integer_value(json_object_get(view, "buffer"));
	size_t offset = (size_t)json_integer_value(json_object_get(view, "byteOffset")) +
	                (size_t)json_integer_value(json_object_get(acc, "byteOffset"));
	const char *type = json_string_value(json_object_get(acc, "type"));
	size_t n = 0;

	for (size_t i = 0; i < 4; i++)
		if (type && strcmp(type, types[i].type) == 0)
			n = types[i].n;
	if (json_integer_value(json_object_get(acc, "componentType")) != 5126 || n == 0 ||
	    offset + count * n * 4 > buffer_lengths[buffer])
		return 0;
	for (size_t i = 0; i < count * n; i++) {
		float f;
		memcpy(&f, buffers[buffer] + offset + 4 * i, 4);
		json_array_append_new(out, json_real(f));
	}
	return count;
}

json_t *testutil_gltf_to_radient(const char *gltf_path, size_t index)
{
	json_t *gltf = json_load_file(gltf_path, 0, NULL), *anim, *doc = NULL;
	json_t *targets, *samplers, *channels, *ch;
	uint8_t *buffers[8] = {0};
	size_t lengths[8] = {0}, nbuf, i;
	char dir[1024];
	double duration = 0;
	long node_target[256];

	if (!gltf)
		return NULL;
	snprintf(dir, sizeof(dir), "%s", gltf_path);
	*strrchr(dir, '/') = '\0';
	nbuf = json_array_size(json_object_get(gltf, "buffers"));
	for (i = 0; i < nbuf && i < 8; i++)
		buffers[i] = gltf_buffer(gltf, i, dir, &lengths[i]);
	anim = json_array_get(json_object_get(gltf, "animations"), index);
	targets = json_array();
	samplers = json_array();
	channels = json_array();
	for (i = 0; i < 256; i++)
		node_target[i] = -1;
	json_array_foreach(json_object_get(anim, "channels"), i, ch)
	{
		const json_t *target = json_object_get(ch, "target");
		const json_t *sampler =
		    json_array_get(json_object_get(anim, "samplers"),
		                   (size_t)json_integer_value(json_object_get(ch, "sampler")));
		long node = (long)json_integer_value(json_object_get(target, "node"));
		const char *path = json_string_value(json_object_get(target, "path"));
		const char *interp = json_string_value(json_object_get(sampler, "interpolation"));
		json_t *times = json_array(), *values = json_array();
		size_t keys;
		int property = strcmp(path, "translation") == 0 ? 1
		               : strcmp(path, "rotation") == 0  ? 2
		                                                : 3;

		if (node < 0 || node >= 256)
			continue;
		if (node_target[node] < 0) {
			const char *name = json_string_value(json_object_get(
			    json_array_get(json_object_get(gltf, "nodes"), (size_t)node), "name"));
			node_target[node] = (long)json_array_size(targets);
			json_array_append_new(targets,
			                      json_pack("{s:s, s:i, s:s?}", "schema",
			                                "E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3",
			                                "object", (int)node, "name", name));
		}
		keys = gltf_accessor(gltf,
		                     (size_t)json_integer_value(json_object_get(sampler, "input")),
		                     buffers, lengths, times);
		gltf_accessor(gltf, (size_t)json_integer_value(json_object_get(sampler, "output")),
		              buffers, lengths, values);
		if (keys && json_real_value(json_array_get(times, keys - 1)) > duration)
			duration = json_real_value(json_array_get(times, keys - 1));
		json_array_append_new(
		    samplers,
		    json_pack("{s:{s:s, s:i}, s:s, s:o, s:o}", "value", "type",
		              property == 2 ? "FLOAT4" : "FLOAT3", "array_size", 1, "interpolation",
		              !interp                              ? "LINEAR"
		              : strcmp(interp, "CUBICSPLINE") == 0 ? "CUBIC_SPLINE"
		                                                   : interp,
		              "times", times, "values", values));
		json_array_append_new(channels,
		                      json_pack("{s:i, s:i, s:i}", "target", (int)node_target[node],
		                                "property", property, "sampler",
		                                (int)json_array_size(samplers) - 1));
	}
	/* float32 times: the duration must be the float32 value of the last time */
	doc = json_pack("{s:s, s:f, s:o, s:o, s:o}", "name", "conformance", "duration",
	                (double)(float)duration, "targets", targets, "samplers", samplers,
	                "channels", channels);
	for (i = 0; i < 8; i++)
		free(buffers[i]);
	json_decref(gltf);
	return doc;
}

/* The daemon. */

int daemon_start(struct daemon_proc *d, const char *db, const char *extra_args)
{
	return daemon_start_logged(d, db, extra_args, NULL);
}

int daemon_start_logged(struct daemon_proc *d, const char *db, const char *extra_args,
                        const char *log_path)
{
	const char *bin = getenv("ANIMDEXD");
	char line[512], www[512];
	int out[2];
	FILE *f;

	memset(d, 0, sizeof(*d));
	snprintf(d->db, sizeof(d->db), "%s", db);
	if (!bin || pipe(out) < 0)
		return -1;
	testutil_src_path("www", www, sizeof(www));
	d->pid = fork();
	if (d->pid < 0)
		return -1;
	if (d->pid == 0) {
		char *argv[32];
		int argc = 0;
		char extra[512];
		dup2(out[1], 1);
		close(out[0]);
		close(out[1]);
		if (log_path) {
			int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd >= 0)
				dup2(fd, 2), close(fd);
		}
		argv[argc++] = (char *)bin;
		argv[argc++] = "--listen";
		argv[argc++] = "127.0.0.1:0";
		argv[argc++] = "--db";
		argv[argc++] = (char *)db;
		argv[argc++] = "--www";
		argv[argc++] = www;
		if (!log_path)
			argv[argc++] = "--quiet";
		if (extra_args) {
			snprintf(extra, sizeof(extra), "%s", extra_args);
			for (char *tok = strtok(extra, " "); tok && argc < 30;
			     tok = strtok(NULL, " "))
				argv[argc++] = tok;
		}
		argv[argc] = NULL;
		execv(bin, argv);
		_exit(127);
	}
	close(out[1]);
	f = fdopen(out[0], "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		daemon_stop(d);
		return -1;
	}
	fclose(f);
	{
		const char *p = strstr(line, "http://127.0.0.1:");
		if (!p)
			return -1;
		d->port = atoi(p + strlen("http://127.0.0.1:"));
	}
	snprintf(d->base, sizeof(d->base), "http://127.0.0.1:%d", d->port);
	return d->port > 0 ? 0 : -1;
}

int daemon_stop(struct daemon_proc *d)
{
	int status;

	if (d->pid <= 0)
		return -1;
	kill(d->pid, SIGTERM);
	if (waitpid(d->pid, &status, 0) != d->pid)
		return -1;
	d->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Raw sockets, for what libcurl would not send. */

int raw_connect(const struct daemon_proc *d, const char *source)
{
	struct sockaddr_in to = {0}, from = {0};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (source) {
		from.sin_family = AF_INET;
		inet_pton(AF_INET, source, &from.sin_addr);
		if (bind(fd, (struct sockaddr *)&from, sizeof(from)) < 0) {
			close(fd);
			return -1;
		}
	}
	to.sin_family = AF_INET;
	to.sin_port = htons((uint16_t)d->port);
	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	if (connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int raw_send(int fd, const void *data, size_t length)
{
	const char *p = data;

	while (length > 0) {
		ssize_t n = send(fd, p, length, MSG_NOSIGNAL);
		if (n <= 0)
			return -1;
		p += n;
		length -= (size_t)n;
	}
	return 0;
}

char *raw_read(int fd, int timeout_ms, size_t *length, int *closed)
{
	size_t cap = 4096, len = 0;
	char *out = malloc(cap);
	struct timespec start, now;

	*closed = 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (out) {
		struct pollfd pfd = {fd, POLLIN, 0};
		long left;
		ssize_t n;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = timeout_ms - ((now.tv_sec - start.tv_sec) * 1000 +
		                     (now.tv_nsec - start.tv_nsec) / 1000000);
		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			break;
		if (len + 4096 > cap) {
			char *grown = realloc(out, cap *= 2);
			if (!grown)
				break;
			out = grown;
		}
		n = recv(fd, out + len, cap - len - 1, 0);
		if (n <= 0) {
			*closed = 1;
			break;
		}
		len += (size_t)n;
	}
	if (out)
		out[len] = '\0';
	*length = len;
	return out;
}

char *raw_exchange(const struct daemon_proc *d, const void *request, size_t length, int half_close,
                   int timeout_ms, long *status)
{
	int fd = raw_connect(d, NULL), closed;
	size_t got;
	char *answer;

	*status = 0;
	if (fd < 0)
		return NULL;
	if (raw_send(fd, request, length) < 0) {
		close(fd);
		return NULL;
	}
	if (half_close)
		shutdown(fd, SHUT_WR);
	answer = raw_read(fd, timeout_ms, &got, &closed);
	close(fd);
	if (answer && strncmp(answer, "HTTP/1.", 7) == 0)
		*status = strtol(answer + 9, NULL, 10);
	return answer;
}

long process_rss_kib(pid_t pid, const char *field)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, strlen(field)) == 0 && line[strlen(field)] == ':')
			kib = strtol(line + strlen(field) + 1, NULL, 10);
	fclose(f);
	return kib;
}

/* HTTP through libcurl. */

static size_t collect(char *data, size_t size, size_t n, void *userdata)
{
	struct http_reply *r = userdata;

	if (r->length + size * n + 1 > r->capacity) {
		size_t capacity = r->capacity ? 2 * r->capacity : 64 * 1024;
		char *p;
		while (capacity < r->length + size * n + 1)
			capacity *= 2;
		if (!(p = realloc(r->body, capacity)))
			return 0;
		r->body = p;
		r->capacity = capacity;
	}
	memcpy(r->body + r->length, data, size * n);
	r->length += size * n;
	r->body[r->length] = '\0';
	return size * n;
}

static size_t header_line(char *data, size_t size, size_t n, void *userdata)
{
	struct http_reply *r = userdata;
	size_t len = size * n;
	char line[512];

	if (len >= sizeof(line))
		return len;
	memcpy(line, data, len);
	line[len] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	if (strncasecmp(line, "Content-Disposition: ", 21) == 0)
		snprintf(r->disposition, sizeof(r->disposition), "%.255s", line + 21);
	else if (strncasecmp(line, "X-Animdex-Count: ", 17) == 0)
		snprintf(r->header_count, sizeof(r->header_count), "%.31s", line + 17);
	else if (strncasecmp(line, "X-Animdex-Components: ", 22) == 0)
		snprintf(r->header_components, sizeof(r->header_components), "%.31s", line + 22);
	else if (strncasecmp(line, "X-Animdex-Native: ", 18) == 0)
		snprintf(r->header_native, sizeof(r->header_native), "%.127s", line + 18);
	return len;
}

static int http_perform(CURL *c, const struct daemon_proc *d, const char *path,
                        struct http_reply *reply)
{
	char url[2048];
	char *type = NULL;
	CURLcode rc;

	memset(reply, 0, sizeof(*reply));
	snprintf(url, sizeof(url), "%s%s", d->base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, reply);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header_line);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, reply);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply->status);
	curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type);
	if (type)
		snprintf(reply->content_type, sizeof(reply->content_type), "%s", type);
	if (!reply->body)
		reply->body = calloc(1, 1);
	return rc == CURLE_OK ? 0 : -1;
}

int http_request(const struct daemon_proc *d, const char *method, const char *path,
                 const void *body, size_t length, const char *content_type,
                 struct http_reply *reply)
{
	return http_request_auth(d, method, path, body, length, content_type, NULL, reply);
}

int http_request_auth(const struct daemon_proc *d, const char *method, const char *path,
                      const void *body, size_t length, const char *content_type, const char *token,
                      struct http_reply *reply)
{
	CURL *c = curl_easy_init();
	struct curl_slist *headers = NULL;
	char type[160];
	int rc;

	if (!c)
		return -1;
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (token) {
		char auth[256];
		snprintf(auth, sizeof(auth), "Authorization: Bearer %.200s", token);
		headers = curl_slist_append(headers, auth);
	}
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
		snprintf(type, sizeof(type), "Content-Type: %s",
		         content_type ? content_type : "application/octet-stream");
		headers = curl_slist_append(headers, type);
		headers = curl_slist_append(headers, "Expect:");
	}
	if (headers)
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	rc = http_perform(c, d, path, reply);
	curl_slist_free_all(headers);
	curl_easy_cleanup(c);
	return rc;
}

int http_upload(const struct daemon_proc *d, size_t count, const char *const *names,
                const void *const *data, const size_t *lengths, const char *const *fields,
                struct http_reply *reply)
{
	CURL *c = curl_easy_init();
	curl_mime *mime;
	int rc;

	if (!c)
		return -1;
	mime = curl_mime_init(c);
	for (size_t i = 0; i < count; i++) {
		curl_mimepart *part = curl_mime_addpart(mime);
		curl_mime_name(part, "file");
		curl_mime_filename(part, names[i]);
		curl_mime_data(part, data[i], lengths[i]);
	}
	for (size_t i = 0; fields && fields[i]; i += 2) {
		curl_mimepart *part = curl_mime_addpart(mime);
		curl_mime_name(part, fields[i]);
		curl_mime_data(part, fields[i + 1], CURL_ZERO_TERMINATED);
	}
	curl_easy_setopt(c, CURLOPT_MIMEPOST, mime);
	rc = http_perform(c, d, "/api/resources", reply);
	curl_mime_free(mime);
	curl_easy_cleanup(c);
	return rc;
}

json_t *http_json(const struct http_reply *reply)
{
	return json_loadb(reply->body, reply->length, 0, NULL);
}

json_t *http_get_json(const struct daemon_proc *d, const char *path, long want)
{
	struct http_reply r;
	json_t *j;

	ck_assert_int_eq(http_request(d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_msg(r.status == want, "GET %.200s: %ld %.300s", path, r.status, r.body);
	j = http_json(&r);
	ck_assert_msg(j != NULL, "GET %.200s: not JSON: %.300s", path, r.body);
	http_reply_cleanup(&r);
	return j;
}

json_int_t http_upload_one(const struct daemon_proc *d, const char *name, const void *data,
                           size_t length)
{
	struct http_reply r;
	const char *names[1] = {name};
	const void *datas[1] = {data};
	json_t *j;
	json_int_t id;

	ck_assert_int_eq(http_upload(d, 1, names, datas, &length, NULL, &r), 0);
	ck_assert_msg(r.status == 201, "upload %s: %ld %.300s", name, r.status, r.body);
	j = http_json(&r);
	http_reply_cleanup(&r);
	id = json_integer_value(
	    json_object_get(json_array_get(json_object_get(j, "resources"), 0), "id"));
	json_decref(j);
	return id;
}

void http_reply_cleanup(struct http_reply *reply)
{
	free(reply->body);
	memset(reply, 0, sizeof(*reply));
}

static struct upload zouna_upload(const uint8_t *data, size_t length, const char *class_name)
{
	struct upload up = {0};

	up.data = data;
	up.length = length;
	up.class_name = class_name;
	up.family = "zouna";
	return up;
}

struct resource *testutil_zouna_decode(const uint8_t *data, size_t length, const char *class_name,
                                       struct decode_result *r)
{
	struct upload up = zouna_upload(data, length, class_name);
	struct error err;

	error_init(&err);
	decode_result_init(r);
	ck_assert_msg(format_decode(&up, r, &err) == 0, "%s", err.message);
	return r->resources[0];
}

int testutil_zouna_native(const uint8_t *tmpl, size_t length, const char *class_name,
                          const struct resource *source, const struct native_options *opt,
                          struct native_file *out, struct error *err)
{
	struct upload up = zouna_upload(tmpl, length, class_name);

	error_init(err);
	return native_zouna(&up, source, opt, out, err);
}

static char export_folder[900];

const char *testutil_export_folder(const char *part)
{
	const char *top = getenv("ANIMDEX_EXPORT_DIR");
	DIR *d;
	struct dirent *e;
	char path[1200];

	if (!top)
		top = "tests/output/export";
	snprintf(path, sizeof(path), "%s", top); /* its parents too, on a fresh tree */
	for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	mkdir(top, 0755);
	snprintf(export_folder, sizeof(export_folder), "%s/%s", top, part);
	mkdir(export_folder, 0755);
	d = opendir(export_folder);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", export_folder, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	return export_folder;
}

void testutil_write_export(const char *name, const void *data, size_t length)
{
	char path[1200];
	FILE *f;

	ck_assert_msg(export_folder[0], "testutil_export_folder first");
	snprintf(path, sizeof(path), "%s/%s", export_folder, name);
	f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, length, f), length);
	ck_assert_int_eq(fclose(f), 0);
}

void testutil_sample(const struct resource *res, size_t n, float t, float *out)
{
	struct curve c;
	struct curve_cursor cur;

	curve_from_sampler(&c, &res->clip.samplers[res->clip.channels[n].sampler]);
	curve_cursor_init(&cur);
	curve_sample_f32(&c, &cur, t, out);
}

/* Crash tests: uploading clients and what they were told. */

void testutil_upload_client(int n, const char *dir, const int *ports, size_t port_count)
{
	char stop[600], log[600];

	snprintf(stop, sizeof(stop), "%s/stop", dir);
	snprintf(log, sizeof(log), "%s/client%d.log", dir, n);
	for (int i = 0; access(stop, F_OK) != 0; i++) {
		struct daemon_proc d = {0};
		struct http_reply r;
		char doc[128];
		snprintf(d.base, sizeof(d.base), "http://127.0.0.1:%d",
		         ports[(size_t)(n + i) % port_count]);
		snprintf(doc, sizeof(doc), "{\"name\": \"client %d upload %d\", \"duration\": %d}",
		         n, i, i % 7 + 1);
		if (http_request(&d, "POST", "/api/resources?filename=c.json", doc, strlen(doc),
		                 "application/json", &r) == 0 &&
		    (r.status == 200 || r.status == 201)) {
			json_t *j = http_json(&r);
			FILE *f = fopen(log, "a");
			fprintf(f, "%lld\t%s\n",
			        (long long)json_integer_value(json_object_get(
			            json_array_get(json_object_get(j, "resources"), 0), "id")),
			        doc);
			fclose(f);
			json_decref(j);
		} else {
			struct timespec pause = {0, 20 * 1000000};
			i--; /* the same document again, once a daemon answers */
			nanosleep(&pause, NULL);
		}
		http_reply_cleanup(&r);
	}
	_exit(0);
}

int testutil_check_acknowledged(const char *dir, int clients, const struct daemon_proc *daemons,
                                size_t count)
{
	char line[512];
	int checked = 0;

	for (int c = 0; c < clients; c++) {
		char log[600];
		FILE *f;
		snprintf(log, sizeof(log), "%s/client%d.log", dir, c);
		f = fopen(log, "r");
		while (f && fgets(line, sizeof(line), f)) {
			char *doc = strchr(line, '\t') + 1, path[64];
			struct http_reply r;
			doc[strcspn(doc, "\n")] = '\0';
			snprintf(path, sizeof(path), "/api/resources/%lld/raw", atoll(line));
			ck_assert_int_eq(http_request(&daemons[(size_t)checked % count], "GET",
			                              path, NULL, 0, NULL, &r),
			                 0);
			ck_assert_msg(r.status == 200, "%s: %ld", path, r.status);
			ck_assert_uint_eq(r.length, strlen(doc));
			ck_assert_mem_eq(r.body, doc, r.length);
			http_reply_cleanup(&r);
			checked++;
		}
		if (f)
			fclose(f);
	}
	return checked;
}

/* The tests' own PostgreSQL: a throwaway cluster in a temporary folder, reached through a
 * socket in that folder (no port to collide on), run by an unprivileged user when the tests
 * run as root (PostgreSQL refuses root), stopped and removed when the process that started it
 * exits. */

int testutil_backend = TESTUTIL_SQLITE;

static char pg_dir[64];
static char pg_bindir[128];
static char pg_runas[64];
static pid_t pg_owner;

int testutil_postgres_wanted(void)
{
#ifdef HAVE_POSTGRESQL
	const char *no = getenv("ANIMDEX_NO_POSTGRES");
	return !(no && strcmp(no, "1") == 0);
#else
	return 0; /* this build has no PostgreSQL backend */
#endif
}

static int pg_ctl(const char *action)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
	         "%s'%s/pg_ctl' -D '%s/data' -l '%s/server.log' -w -t 60 -m fast -o \"-k '%s' -c "
	         "listen_addresses='' -c fsync=off -c max_connections=200\" %s >>'%s/pg_ctl.log' "
	         "2>&1",
	         pg_runas, pg_bindir, pg_dir, pg_dir, pg_dir, action, pg_dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void postgres_stop_at_exit(void)
{
	char cmd[1024];

	if (getpid() != pg_owner || !pg_dir[0])
		return;
	snprintf(cmd, sizeof(cmd),
	         "%s'%s/pg_ctl' -D '%s/data' -m immediate -w stop >/dev/null 2>&1", pg_runas,
	         pg_bindir, pg_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "testutil: the PostgreSQL cluster in %s would not stop\n", pg_dir);
	testutil_remove_tree(pg_dir);
	pg_dir[0] = '\0';
}

/* The highest /usr/lib/postgresql/N/bin with an initdb, or $ANIMDEX_PG_BINDIR. */
static int find_pg_bindir(void)
{
	const char *given = getenv("ANIMDEX_PG_BINDIR");
	int best = -1;
	DIR *d;
	struct dirent *e;

	if (given) {
		snprintf(pg_bindir, sizeof(pg_bindir), "%s", given);
		return 0;
	}
	d = opendir("/usr/lib/postgresql");
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[512];
		int version = atoi(e->d_name);
		snprintf(path, sizeof(path), "/usr/lib/postgresql/%s/bin/initdb", e->d_name);
		if (version > best && access(path, X_OK) == 0) {
			best = version;
			snprintf(pg_bindir, sizeof(pg_bindir), "/usr/lib/postgresql/%.64s/bin",
			         e->d_name);
		}
	}
	closedir(d);
	return best < 0 ? -1 : 0;
}

const char *testutil_postgres(void)
{
	static char base[400];
	char tmpl[] = "/tmp/animdex-pg-XXXXXX", cmd[2048];

	if (pg_dir[0])
		return base;
	if (find_pg_bindir() < 0) {
		fprintf(stderr, "testutil: no PostgreSQL server (initdb) in /usr/lib/postgresql: "
		                "install Debian's postgresql, or set ANIMDEX_NO_POSTGRES=1\n");
		return NULL;
	}
	if (!mkdtemp(tmpl))
		return NULL;
	snprintf(pg_dir, sizeof(pg_dir), "%s", tmpl);
	pg_owner = getpid();
	atexit(postgres_stop_at_exit);
	if (geteuid() == 0) {
		snprintf(pg_runas, sizeof(pg_runas), "runuser -u postgres -- ");
		snprintf(cmd, sizeof(cmd), "chown postgres '%s'", pg_dir);
		if (system(cmd) != 0) {
			fprintf(stderr, "testutil: cannot give %s to the postgres user\n", pg_dir);
			return NULL;
		}
	}
	snprintf(cmd, sizeof(cmd),
	         "%s'%s/initdb' -D '%s/data' -U animdex -A trust -E UTF8 --locale=C -N "
	         ">'%s/initdb.log' 2>&1",
	         pg_runas, pg_bindir, pg_dir, pg_dir);
	if (system(cmd) != 0 || pg_ctl("start") < 0) {
		fprintf(stderr, "testutil: the PostgreSQL cluster did not start (logs in %s):\n",
		        pg_dir);
		snprintf(cmd, sizeof(cmd), "tail -n 20 '%s'/*.log >&2", pg_dir);
		if (system(cmd) != 0)
			fprintf(stderr, "(no logs)\n");
		return NULL;
	}
	snprintf(base, sizeof(base), "host=%s user=animdex", pg_dir);
	return base;
}

int testutil_postgres_control(const char *action)
{
	return pg_dir[0] ? pg_ctl(action) : -1;
}

int testutil_postgres_signal(const char *signal_name)
{
	char path[128], cmd[256];
	FILE *f;
	long pid = 0;

	snprintf(path, sizeof(path), "%s/data/postmaster.pid", pg_dir);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &pid) != 1 || pid <= 0) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	/* the server and every process it started */
	snprintf(cmd, sizeof(cmd), "kill -%s %ld && pkill -%s -P %ld; true", signal_name, pid,
	         signal_name, pid);
	return system(cmd) == 0 ? 0 : -1;
}

int testutil_postgres_exec(const char *conninfo, const char *sql)
{
#ifndef HAVE_POSTGRESQL
	(void)conninfo;
	fprintf(stderr, "testutil: %s: this build has no PostgreSQL\n", sql);
	return -1;
#else
	PGconn *conn = PQconnectdb(conninfo);
	PGresult *res;
	int ok;

	if (PQstatus(conn) != CONNECTION_OK) {
		fprintf(stderr, "testutil: %s", PQerrorMessage(conn));
		PQfinish(conn);
		return -1;
	}
	res = PQexec(conn, sql);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
	if (!ok)
		fprintf(stderr, "testutil: %s: %s", sql, PQerrorMessage(conn));
	PQclear(res);
	PQfinish(conn);
	return ok ? 0 : -1;
#endif
}

const char *testutil_catalog(const char *dir, const char *name, char *out, size_t size)
{
	static unsigned counter;
	const char *base;
	char sql[200], admin[500], db[96];
	size_t n = 0;

	if (testutil_backend == TESTUTIL_SQLITE) {
		snprintf(out, size, "%s/%s", dir, name);
		return out;
	}
	base = testutil_postgres();
	if (!base)
		return NULL;
	/* a new database, named after the file it stands for */
	for (const char *p = name; *p && *p != '.' && n < 40; p++)
		db[n++] = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ? *p : '_';
	snprintf(db + n, sizeof(db) - n, "_%d_%u", (int)getpid(), counter++);
	snprintf(admin, sizeof(admin), "%s dbname=postgres", base);
	snprintf(sql, sizeof(sql), "CREATE DATABASE %s", db);
	if (testutil_postgres_exec(admin, sql) < 0)
		return NULL;
	snprintf(out, size, "%s dbname=%s", base, db);
	return out;
}

START_TEST(postgres_variants_skipped)
{
#ifdef HAVE_POSTGRESQL
	printf("SKIP: the PostgreSQL variants of this suite (ANIMDEX_NO_POSTGRES=1)\n");
#else
	printf("SKIP: the PostgreSQL variants of this suite (this build has no PostgreSQL: "
	       "./configure --without-postgresql, or libpq was not found)\n");
#endif
	fflush(stdout);
}
END_TEST

TCase *testutil_postgres_skipped(void)
{
	TCase *tc = tcase_create("postgresql-skipped");
	tcase_add_test(tc, postgres_variants_skipped);
	return tc;
}

void testutil_add_both_backends(Suite *s, const char *suite, void (*add_tests)(Suite *s, int pg))
{
	/* one cluster for the whole suite, started here so that every test's process shares it */
	if (testutil_postgres_wanted() && !testutil_postgres())
		fprintf(stderr, "%s: the PostgreSQL tests will fail: no cluster\n", suite);
	add_tests(s, 0);
	if (testutil_postgres_wanted())
		add_tests(s, 1);
	else
		suite_add_tcase(s, testutil_postgres_skipped());
}
