/* hostile.c: hostile clients for the load test (tests/scripts/load.sh), each bounded in count
 * and time, loopback only.
 *
 *   hostile slowloris PORT CONNECTIONS SECONDS
 *       CONNECTIONS connections from 127.0.0.2 to 127.0.0.10 each send a request line, then
 *       one header line every 5 s, never ending their headers; prints how many the server
 *       closed within SECONDS.
 *   hostile unread PORT PATH CONNECTIONS SECONDS
 *       CONNECTIONS connections ask for PATH and read nothing for SECONDS.
 *   hostile uploads PORT BYTES CONNECTIONS
 *       CONNECTIONS uploads of BYTES declared at once; the ones not refused at once send
 *       their bodies; prints how many were admitted (2xx) and refused (503).
 *   hostile matrix-clip
 *       prints a small Radient clip whose one track is FLOAT4X4[16]: 256 floats a value.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static struct daemon_proc target; /* only its port is used */

static int connect_from(const char *source)
{
	return raw_connect(&target, source);
}

static int send_all(int fd, const char *p, size_t n)
{
	return raw_send(fd, p, n);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Has the server closed this connection (EOF or reset waiting)? */
static int closed_by_peer(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};
	char c;
	return poll(&p, 1, 0) > 0 && recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
}

static int slowloris(int n, int seconds)
{
	int *fds = calloc((size_t)n, sizeof(int)), opened = 0, closed = 0;
	double start = now_s(), next = start + 5;

	for (int i = 0; i < n; i++) {
		char source[16];
		snprintf(source, sizeof(source), "127.0.0.%d", 2 + i % 9);
		fds[i] = connect_from(source);
		if (fds[i] >= 0 && send_all(fds[i], "GET /api/health HTTP/1.1\r\n", 26) == 0)
			opened++;
	}
	while (now_s() - start < seconds) {
		usleep(100000);
		if (now_s() < next)
			continue;
		next += 5;
		for (int i = 0; i < n; i++)
			if (fds[i] >= 0 && send_all(fds[i], "X-Slow: 1\r\n", 11) < 0) {
				close(fds[i]);
				fds[i] = -1;
				closed++;
			}
	}
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0) {
			closed += closed_by_peer(fds[i]);
			close(fds[i]);
		}
	printf("slowloris: %d connections opened, %d closed by the server within %d s\n", opened,
	       closed, seconds);
	free(fds);
	return 0;
}

static int unread(const char *path, int n, int seconds)
{
	int *fds = calloc((size_t)n, sizeof(int)), opened = 0;
	char req[1024];

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);
	for (int i = 0; i < n; i++) {
		fds[i] = connect_from(NULL);
		if (fds[i] >= 0 && send_all(fds[i], req, strlen(req)) == 0)
			opened++;
	}
	printf("unread: %d connections asked for %s and read nothing\n", opened, path);
	fflush(stdout);
	sleep((unsigned)seconds);
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return 0;
}

static int uploads(size_t bytes, int n)
{
	int *fds = calloc((size_t)n, sizeof(int)), admitted = 0, refused = 0, other = 0;
	pid_t *pids = calloc((size_t)n, sizeof(pid_t));
	char head[256], answer[64];
	char *body = malloc(bytes);
	static const char doc[] =
	    "{\"name\": \"big\", \"duration\": 1, \"targets\": [{\"schema\": "
	    "\"11111111-2222-3333-4444-555555555555\", \"object\": 0}], \"samplers\": "
	    "[{\"value\": {\"type\": \"FLOAT\"}, \"times\": [0], \"values\": [1]}], "
	    "\"channels\": [{\"target\": 0, \"property\": 9, \"sampler\": 0}]}";

	memset(body, ' ', bytes);
	memcpy(body, doc, sizeof(doc) - 1);
	snprintf(head, sizeof(head),
	         "POST /api/resources?filename=big.json HTTP/1.1\r\nHost: x\r\nContent-Length: "
	         "%zu\r\nConnection: close\r\n\r\n",
	         bytes);
	for (int i = 0; i < n; i++) {
		fds[i] = connect_from(NULL);
		if (fds[i] >= 0)
			send_all(fds[i], head, strlen(head));
	}
	usleep(1000000);
	for (int i = 0; i < n; i++) {
		struct pollfd p = {fds[i], POLLIN, 0};
		if (fds[i] < 0 || poll(&p, 1, 0) <= 0)
			continue;
		memset(answer, 0, sizeof(answer));
		recv(fds[i], answer, sizeof(answer) - 1, 0);
		refused += strncmp(answer, "HTTP/1.1 503", 12) == 0;
		other += strncmp(answer, "HTTP/1.1 503", 12) != 0;
		close(fds[i]);
		fds[i] = -1;
	}
	/* the admitted send their bodies side by side, each from a process of its own, as many
	 * clients would: one sent after another's answer would sit idle meanwhile, and the
	 * daemon rightly closes a body that does not come */
	for (int i = 0; i < n; i++) {
		pid_t pid;
		if (fds[i] < 0)
			continue;
		pid = fork();
		if (pid == 0) {
			struct pollfd p = {fds[i], POLLIN, 0};
			memset(answer, 0, sizeof(answer));
			send_all(fds[i], body, bytes); /* a late 503 may have closed it already */
			if (poll(&p, 1, 120000) > 0 &&
			    recv(fds[i], answer, sizeof(answer) - 1, 0) > 0 &&
			    (strncmp(answer, "HTTP/1.1 201", 12) == 0 ||
			     strncmp(answer, "HTTP/1.1 200", 12) == 0))
				_exit(0);
			if (strncmp(answer, "HTTP/1.1 503", 12) == 0)
				_exit(
				    1); /* refused at once, though the answer came after the wait */
			fprintf(stderr, "uploads: an answer other than 200/201: %.40s\n", answer);
			_exit(2);
		}
		close(fds[i]);
		pids[i] = pid;
		other += pid < 0;
	}
	for (int i = 0; i < n; i++) {
		int status;
		if (pids[i] <= 0)
			continue;
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status)) {
			other++;
			continue;
		}
		admitted += WEXITSTATUS(status) == 0;
		refused += WEXITSTATUS(status) == 1;
		other += WEXITSTATUS(status) > 1;
	}
	printf("uploads: %d of %zu bytes at once: %d admitted, %d refused with 503, %d otherwise\n",
	       n, bytes, admitted, refused, other);
	free(body);
	free(fds);
	free(pids);
	return 0;
}

static int matrix_clip(void)
{
	printf("{\"name\": \"matrices\", \"duration\": 1, \"targets\": [{\"schema\": "
	       "\"11111111-2222-3333-4444-555555555555\", \"object\": 0}], \"samplers\": "
	       "[{\"value\": {\"type\": \"FLOAT4X4\", \"array_size\": 16}, \"interpolation\": "
	       "\"LINEAR\", \"times\": [0, 1], \"values\": [");
	for (int i = 0; i < 512; i++)
		printf("%s%d.125", i ? "," : "", i);
	printf("]}], \"channels\": [{\"target\": 0, \"property\": 7, \"sampler\": 0}]}\n");
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 2 && strcmp(argv[1], "matrix-clip") == 0)
		return matrix_clip();
	if (argc >= 5 && strcmp(argv[1], "slowloris") == 0) {
		target.port = atoi(argv[2]);
		return slowloris(atoi(argv[3]), atoi(argv[4]));
	}
	if (argc >= 6 && strcmp(argv[1], "unread") == 0) {
		target.port = atoi(argv[2]);
		return unread(argv[3], atoi(argv[4]), atoi(argv[5]));
	}
	if (argc >= 5 && strcmp(argv[1], "uploads") == 0) {
		target.port = atoi(argv[2]);
		return uploads(strtoul(argv[3], NULL, 10), atoi(argv[4]));
	}
	fprintf(stderr, "usage: hostile slowloris PORT N SECONDS | unread PORT PATH N SECONDS | "
	                "uploads PORT BYTES N\n");
	return 2;
}
