/* cmd_serve.c: `animdexd [serve]`: the daemon: its options, the checks before it listens
 * (the catalogue opens, and is not served to a network without tokens), then the server until
 * SIGINT or SIGTERM. */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "cmd.h"
#include "http/http.h"

static int is_loopback(const char *listen)
{
	return strncmp(listen, "127.", 4) == 0 || strncmp(listen, "localhost:", 10) == 0 ||
	       strncmp(listen, "[::1]:", 6) == 0;
}

static const char *default_www(void)
{
	struct stat st;

	if (stat(WWW_DIR "/index.html", &st) == 0)
		return WWW_DIR;
	return SOURCE_WWW_DIR;
}

/* The command line into cfg (its defaults set by the caller); exits on --help and on a
 * refusal. */
static void parse_options(int argc, char **argv, struct server_config *cfg, int *open_writes)
{
	enum {
		OPT_LISTEN = 256,
		OPT_DB,
		OPT_WWW,
		OPT_MAX_UPLOAD,
		OPT_MAX_SAMPLES,
		OPT_THREADS,
		OPT_MAX_CONN,
		OPT_MAX_CONN_IP,
		OPT_MAX_EVENT_STREAMS,
		OPT_TIMEOUT,
		OPT_OPEN_WRITES,
		OPT_QUIET,
		OPT_CHARTJS,
		OPT_THREE,
		OPT_PRIVATE,
		OPT_UPLOAD_MEMORY,
		OPT_HEADER,
		OPT_HEADER_TIMEOUT,
		OPT_MIN_BODY_RATE,
		OPT_ANSWER_MEMORY,
		OPT_MAX_ENTRIES,
		OPT_READ_ONLY
	};
	static const struct option options[] = {
	    {"listen", required_argument, NULL, OPT_LISTEN},
	    {"db", required_argument, NULL, OPT_DB},
	    {"www", required_argument, NULL, OPT_WWW},
	    {"chartjs", required_argument, NULL, OPT_CHARTJS},
	    {"three", required_argument, NULL, OPT_THREE},
	    {"max-upload", required_argument, NULL, OPT_MAX_UPLOAD},
	    {"max-samples", required_argument, NULL, OPT_MAX_SAMPLES},
	    {"threads", required_argument, NULL, OPT_THREADS},
	    {"max-connections", required_argument, NULL, OPT_MAX_CONN},
	    {"max-connections-per-ip", required_argument, NULL, OPT_MAX_CONN_IP},
	    {"max-event-streams", required_argument, NULL, OPT_MAX_EVENT_STREAMS},
	    {"timeout", required_argument, NULL, OPT_TIMEOUT},
	    {"open-writes", no_argument, NULL, OPT_OPEN_WRITES},
	    {"private", no_argument, NULL, OPT_PRIVATE},
	    {"upload-memory", required_argument, NULL, OPT_UPLOAD_MEMORY},
	    {"max-header-size", required_argument, NULL, OPT_HEADER},
	    {"header-timeout", required_argument, NULL, OPT_HEADER_TIMEOUT},
	    {"min-body-rate", required_argument, NULL, OPT_MIN_BODY_RATE},
	    {"answer-memory", required_argument, NULL, OPT_ANSWER_MEMORY},
	    {"max-entries", required_argument, NULL, OPT_MAX_ENTRIES},
	    {"read-only", no_argument, NULL, OPT_READ_ONLY},
	    {"quiet", no_argument, NULL, OPT_QUIET},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case OPT_LISTEN: cfg->listen = optarg; break;
		case OPT_DB: cfg->db_path = cmd_operand(optarg, "--db"); break;
		case OPT_WWW: cfg->www_dir = optarg; break;
		case OPT_CHARTJS: cfg->chartjs_dir = optarg; break;
		case OPT_THREE: cfg->three_dir = optarg; break;
		case OPT_MAX_UPLOAD:
			cfg->max_upload = cmd_parse_size(optarg, "--max-upload");
			break;
		case OPT_MAX_SAMPLES:
			cfg->max_samples =
			    cmd_parse_unsigned(optarg, "--max-samples", 1, 100000000);
			break;
		case OPT_THREADS:
			cfg->threads = cmd_parse_unsigned(optarg, "--threads", 1, 256);
			break;
		case OPT_MAX_CONN:
			cfg->max_connections =
			    cmd_parse_unsigned(optarg, "--max-connections", 1, 65536);
			break;
		case OPT_MAX_CONN_IP:
			cfg->max_connections_per_ip =
			    cmd_parse_unsigned(optarg, "--max-connections-per-ip", 1, 65536);
			break;
		case OPT_MAX_EVENT_STREAMS:
			cfg->max_event_streams =
			    cmd_parse_unsigned(optarg, "--max-event-streams", 0, 65536);
			break;
		case OPT_TIMEOUT:
			cfg->timeout_seconds = cmd_parse_unsigned(optarg, "--timeout", 1, 86400);
			break;
		case OPT_OPEN_WRITES: *open_writes = 1; break;
		case OPT_PRIVATE: cfg->private_reads = 1; break;
		case OPT_UPLOAD_MEMORY:
			cfg->upload_memory = cmd_parse_size(optarg, "--upload-memory");
			break;
		case OPT_HEADER:
			cfg->max_header_size = cmd_parse_size(optarg, "--max-header-size");
			if (cfg->max_header_size < 8192)
				cmd_usage_error("%s", "--max-header-size must be at least 8K");
			break;
		case OPT_HEADER_TIMEOUT:
			cfg->header_timeout =
			    cmd_parse_unsigned(optarg, "--header-timeout", 1, 3600);
			break;
		case OPT_MIN_BODY_RATE:
			cfg->min_body_rate = cmd_parse_size(optarg, "--min-body-rate");
			break;
		case OPT_ANSWER_MEMORY:
			cfg->answer_memory = cmd_parse_size(optarg, "--answer-memory");
			break;
		case OPT_MAX_ENTRIES:
			cfg->max_entries = cmd_parse_unsigned(optarg, "--max-entries", 1, 1000000);
			break;
		case OPT_QUIET: cfg->quiet = 1; break;
		case OPT_READ_ONLY: cfg->read_only = 1; break;
		case 'h': exit(cmd_help(&cmd_serve_entry));
		default: cmd_usage_error("%s", "unknown option");
		}
	}
	if (optind < argc)
		cmd_usage_error("unexpected argument '%s'", argv[optind]);
	if (!cfg->www_dir)
		cfg->www_dir = default_www();
}

/* Opens the catalogue once before serving: creates and migrates it, or, read-only, checks it
 * can be read as it is; says when entries were made by an older decoder. The count of tokens
 * (-1 when unknown), or -2 when it cannot be opened (said). */
static int check_catalogue(const struct server_config *cfg, const char *shown)
{
	struct catalog *cat;
	struct error err;
	int64_t outdated;
	int tokens;

	error_init(&err);
	cat = cfg->read_only ? catalog_open_read_only(cfg->db_path, &err)
	                     : catalog_open(cfg->db_path, &err);
	if (!cat) {
		fprintf(stderr, "animdexd: %s\n", err.message);
		return -2;
	}
	tokens = catalog_token_count(cat);
	outdated = catalog_outdated(cat, &err);
	if (outdated > 0)
		fprintf(stderr,
		        "animdexd: %lld entries of %s were made by an older decoder; "
		        "'animdexd redecode --db %s' decodes them again with today's "
		        "decoders\n",
		        (long long)outdated, shown, shown);
	catalog_close(cat);
	return tokens;
}

/* 0 when the catalogue may be served as asked; else says why not and returns 2. */
static int refuse_unsafe(const struct server_config *cfg, int tokens, int open_writes,
                         const char *shown)
{
	if (!is_loopback(cfg->listen) && tokens <= 0 && !open_writes && !cfg->read_only) {
		fprintf(stderr,
		        "animdexd: refusing to listen on %s without a write token: anyone who can "
		        "reach it could upload and delete. Make one with 'animdexd token add NAME "
		        "--db %s', or give --open-writes to allow it.\n",
		        cfg->listen, shown);
		return 2;
	}
	if (cfg->private_reads && tokens <= 0) {
		fprintf(stderr,
		        "animdexd: --private needs a token to read with: make one with "
		        "'animdexd token add NAME --db %s'\n",
		        shown);
		return 2;
	}
	return 0;
}

/* Serves until SIGINT or SIGTERM (blocked by the caller, in `stop`), then stops cleanly. */
static int serve_until_stopped(const struct server_config *cfg, const char *shown, sigset_t *stop)
{
	struct catalog_pool *pool = catalog_pool_create(cfg->db_path, cfg->read_only);
	struct server *srv;
	struct error err;
	int sig;

	if (!pool) {
		fprintf(stderr, "animdexd: out of memory\n");
		return 1;
	}
	error_init(&err);
	srv = server_start(cfg, pool, &err);
	if (!srv) {
		fprintf(stderr, "animdexd: %s\n", err.message);
		catalog_pool_free(pool);
		return 1;
	}
	if (geteuid() == 0)
		fprintf(stderr,
		        "animdexd: running as root, which it does not need: for a lasting "
		        "service, 'make install' and 'systemctl enable --now animdexd' run it as "
		        "its own user with its database in /var/lib/animdex (doc/reference.md, "
		        "\"As a service\")\n");
	printf("animdexd %s listening on http://%.*s:%u (database %s%s, web page %s)\n",
	       PACKAGE_VERSION, (int)(strrchr(cfg->listen, ':') - cfg->listen), cfg->listen,
	       server_port(srv), shown, cfg->read_only ? ", read-only" : "", cfg->www_dir);
	fflush(stdout);
	sigwait(stop, &sig);
	fprintf(stderr, "animdexd: %s: finishing requests in flight, then stopping\n",
	        sig == SIGINT ? "SIGINT" : "SIGTERM");
	server_stop(srv);
	catalog_pool_free(pool);
	fprintf(stderr, "animdexd: stopped\n");
	return 0;
}

static int cmd_serve(int argc, char **argv)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	char shown[512]; /* --db as messages show it: without a password */
	struct server_config cfg = {
	    .listen = "127.0.0.1:8080",
	    .db_path = CMD_DEFAULT_DB,
	    .www_dir = NULL,
	    .chartjs_dir = CHARTJS_DIR,
	    .three_dir = THREE_DIR,
	    .max_upload = CMD_DEFAULT_MAX_UPLOAD,
	    .upload_memory = 512u * 1024 * 1024,
	    .max_header_size = 32u * 1024, /* libmicrohttpd's own default */
	    .threads = cores > 0 ? (unsigned)cores : 1,
	    .max_samples = CMD_DEFAULT_MAX_SAMPLES,
	    .max_connections = 256,
	    .max_connections_per_ip = 32,
	    .max_event_streams = 64,
	    .timeout_seconds = 30,
	    .header_timeout = 15,
	    .min_body_rate = 1024,
	    .answer_memory = 256u * 1024 * 1024,
	    .max_entries = CMD_DEFAULT_MAX_ENTRIES,
	};
	int open_writes = 0, tokens, refused;
	sigset_t stop;

	parse_options(argc, argv, &cfg, &open_writes);
	/* Threads started from here on inherit this mask: only this thread takes the signals. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);

	catalog_display_name(cfg.db_path, shown, sizeof(shown));
	catalog_set_timeout(cfg.timeout_seconds);
	tokens = check_catalogue(&cfg, shown);
	if (tokens == -2)
		return 1;
	refused = refuse_unsafe(&cfg, tokens, open_writes, shown);
	if (refused)
		return refused;
	return serve_until_stopped(&cfg, shown, &stop);
}

const struct cmd_entry cmd_serve_entry = {
    NULL,
    "animdexd [serve] [OPTION]...\n",
    "Serves the catalogue over HTTP: the API and the web page.\n"
    "  --listen ADDR:PORT     where to listen (default 127.0.0.1:8080; port 0: any free)\n"
    "  --db PATH              the catalogue: a SQLite file (default ./animdex.db), or a\n"
    "                         PostgreSQL database shared by several daemons\n"
    "                         (postgresql://HOST/DB, or 'host=... dbname=...'; put the\n"
    "                         password in ~/.pgpass, not here)\n"
    "  --www DIR              the web page's files (default: the installed ones)\n"
    "  --chartjs DIR          Chart.js for the web page (default " CHARTJS_DIR ")\n"
    "  --three DIR            three.js for the page's 3D view (default " THREE_DIR ")\n"
    "  --max-upload SIZE      largest request body, e.g. 64M (default 64M)\n"
    "  --max-samples N        most samples one request may ask for (default 1000000)\n"
    "  --upload-memory SIZE   request bodies held at once, all uploads together (default 512M;\n"
    "                         past it uploads get 503 and Retry-After)\n"
    "  --max-header-size SIZE memory for one request's line and headers (default 32K)\n"
    "  --threads N            polling threads (default: the number of cores)\n"
    "  --max-connections N    open connections in all (default 256)\n"
    "  --max-connections-per-ip N  (default 32)\n"
    "  --max-event-streams N  GET /api/events streams open at once (default 64; each is\n"
    "                         one of the connections; 0: none)\n"
    "  --timeout SECONDS      idle connections are closed after this (default 30)\n"
    "  --header-timeout SECONDS  a request's headers must arrive within this of the\n"
    "                         connection opening or of its last answer (default 15)\n"
    "  --min-body-rate SIZE   after that, an upload body must average this per second\n"
    "                         (default 1K)\n"
    "  --answer-memory SIZE   answers held at once, all requests together (default 256M;\n"
    "                         past it requests get 503 and Retry-After)\n"
    "  --max-entries N        entries one upload may create (default 1000)\n"
    "  --open-writes          allow listening on a non-loopback address without tokens\n"
    "  --private              reads of the API need a token too (writes always do, once\n"
    "                         any token exists)\n"
    "  --read-only            serve the catalogue for reading only: it is never created,\n"
    "                         migrated or written; uploads, deletes and names are\n"
    "                         answered 405 (a published catalogue, a read-only disk)\n"
    "  --quiet                no request log\n",
    cmd_serve,
};
