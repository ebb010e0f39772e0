/* minimal_server.c: the benchmark's baseline. A libmicrohttpd server with the same thread
 * settings as animdexd (internal epoll threads, a pool of THREADS) that answers GET /N with the
 * bytes of the N-th file given, from memory, and nothing else.
 * Usage: minimal_server THREADS FILE...   (prints its port) */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FILES 8

static char *bodies[MAX_FILES];
static size_t lengths[MAX_FILES];
static int count;

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	int n = atoi(url + 1);

	(void)cls, (void)method, (void)version, (void)upload, (void)upload_size;
	if (!*state) {
		*state = (void *)1;
		return MHD_YES;
	}
	if (n < 0 || n >= count)
		n = 0;
	r = MHD_create_response_from_buffer(lengths[n], bodies[n], MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

int main(int argc, char **argv)
{
	struct MHD_Daemon *d;
	sigset_t stop;
	int sig;

	if (argc < 3)
		return 2;
	for (int i = 2; i < argc && count < MAX_FILES; i++, count++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f)
			return 1;
		fseek(f, 0, SEEK_END);
		lengths[count] = (size_t)ftell(f);
		fseek(f, 0, SEEK_SET);
		bodies[count] = malloc(lengths[count] + 1);
		if (fread(bodies[count], 1, lengths[count], f) != lengths[count])
			return 1;
		fclose(f);
	}
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, answer,
	                     NULL, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)atoi(argv[1]),
	                     MHD_OPTION_CONNECTION_LIMIT, 1024u, MHD_OPTION_END);
	if (!d)
		return 1;
	printf("%u\n", MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
	fflush(stdout);
	sigwait(&stop, &sig);
	MHD_stop_daemon(d);
	return 0;
}
