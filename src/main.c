/* main.c: the command line, start-up, signals and shutdown of animdexd. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog.h"
#include "export.h"
#include "format.h"
#include "hash.h"
#include "http.h"
#include "import.h"
#include "redecode.h"
#include "render.h"

#define DEFAULT_MAX_UPLOAD  (64u * 1024 * 1024)
#define DEFAULT_MAX_SAMPLES 1000000u
#define DEFAULT_MAX_ENTRIES 1000u

static const char usage_text[] =
    "Usage: animdexd [serve] [OPTION]...\n"
    "       animdexd decode [OPTION]... FILE\n"
    "       animdexd hash NAME...\n"
    "       animdexd token add|list|revoke [NAME] [--db PATH]\n"
    "       animdexd copy [--append] [--quiet] FROM TO\n"
    "       animdexd import [--db PATH] [--class NAME] [--family NAME] [--quiet] PATH...\n"
    "                       [--max-upload SIZE] [--max-entries N]\n"
    "       animdexd redecode [--db PATH] [--family NAME] [--class NAME] [--id N] [--quiet]\n"
    "       animdexd export [--db PATH] [--id N]... [--class NAME] [--family NAME]\n"
    "                       [--name NAME] [--crc32 HANDLE] [--q TEXT] [--format glb|gltf]\n"
    "                       [--bake N] [--max-entries N] [--quiet] -o FILE\n"
    "\n"
    "An HTTP/JSON catalogue of game animation resources.\n"
    "\n"
    "Serve options:\n"
    "  --listen ADDR:PORT     where to listen (default 127.0.0.1:8080; port 0: any free)\n"
    "  --db PATH              the catalogue: a SQLite file (default ./animdex.db), or a\n"
    "                         PostgreSQL database shared by several daemons\n"
    "                         (postgresql://HOST/DB, or 'host=... dbname=...'; put the\n"
    "                         password in ~/.pgpass, not here)\n"
    "  --www DIR              the web page's files (default: the installed ones)\n"
    "  --chartjs DIR          Chart.js for the web page (default " CHARTJS_DIR ")\n"
    "  --max-upload SIZE      largest request body, e.g. 64M (default 64M)\n"
    "  --max-samples N        most samples one request may ask for (default 1000000)\n"
    "  --upload-memory SIZE   request bodies held at once, all uploads together (default 512M;\n"
    "                         past it uploads get 503 and Retry-After)\n"
    "  --max-header-size SIZE memory for one request's line and headers (default 32K)\n"
    "  --threads N            polling threads (default: the number of cores)\n"
    "  --max-connections N    open connections in all (default 256)\n"
    "  --max-connections-per-ip N  (default 32)\n"
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
    "  --quiet                no request log\n"
    "\n"
    "Decode options (what an upload would store, printed as JSON; no database):\n"
    "  --class NAME  --family NAME  --name NAME  --crc32 HANDLE  --layout 32|64\n"
    "  --endian little|big\n"
    "\n"
    "hash prints the Asobo32 (Zouna) and CRC-32 (Burnout resource ID) of each name.\n"
    "\n"
    "redecode decodes the stored bytes of catalogued entries again with today's decoders and\n"
    "replaces their structure, tracks and references in place (id, name, handle, note and\n"
    "upload details stay); an entry today's decoder refuses is left as it was and listed.\n"
    "\n"
    "  -h, --help             this text\n"
    "  -V, --version          the version\n";

static void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "animdexd: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'animdexd --help'.\n");
	exit(2);
}

/* A path or a name given on the command line: a word that starts with '-' is an option
 * forgotten or misplaced, never a file to create (write ./-x for a file of that name). */
static const char *operand(const char *text, const char *what)
{
	if (text[0] == '-' && text[1] != '\0') {
		fprintf(
		    stderr,
		    "animdexd: %s: '%s' looks like an option, not a %s (for a file of that name "
		    "write ./%s)\nTry 'animdexd --help'.\n",
		    what, text, strstr(what, "NAME") ? "name" : "path", text);
		exit(2);
	}
	return text;
}

static unsigned parse_unsigned(const char *text, const char *option, unsigned min, unsigned max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || *end || end == text || text[0] == '-' || v < min || v > max) {
		fprintf(stderr, "animdexd: %s: '%s' is not a whole number from %u to %u\n", option,
		        text, min, max);
		exit(2);
	}
	return (unsigned)v;
}

static size_t parse_size(const char *text, const char *option)
{
	char *end;
	unsigned long long v;
	unsigned long long unit = 1;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (*end == 'k' || *end == 'K')
		unit = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		unit = 1024 * 1024, end++;
	else if (*end == 'g' || *end == 'G')
		unit = 1024ull * 1024 * 1024, end++;
	if (errno || *end || end == text || text[0] == '-' || v == 0 ||
	    v > (unsigned long long)SIZE_MAX / unit || v * unit > (1ull << 32)) {
		fprintf(stderr,
		        "animdexd: %s: '%s' is not a size from 1 byte to 4G (e.g. 512K, 64M)\n",
		        option, text);
		exit(2);
	}
	return (size_t)(v * unit);
}

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

static int cmd_serve(int argc, char **argv)
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
		OPT_TIMEOUT,
		OPT_OPEN_WRITES,
		OPT_QUIET,
		OPT_CHARTJS,
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
	    {"max-upload", required_argument, NULL, OPT_MAX_UPLOAD},
	    {"max-samples", required_argument, NULL, OPT_MAX_SAMPLES},
	    {"threads", required_argument, NULL, OPT_THREADS},
	    {"max-connections", required_argument, NULL, OPT_MAX_CONN},
	    {"max-connections-per-ip", required_argument, NULL, OPT_MAX_CONN_IP},
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
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	char shown[512]; /* --db as messages show it: without a password */
	struct server_config cfg = {
	    .listen = "127.0.0.1:8080",
	    .db_path = "./animdex.db",
	    .www_dir = NULL,
	    .chartjs_dir = CHARTJS_DIR,
	    .max_upload = DEFAULT_MAX_UPLOAD,
	    .upload_memory = 512u * 1024 * 1024,
	    .max_header_size = 32u * 1024, /* libmicrohttpd's own default */
	    .threads = cores > 0 ? (unsigned)cores : 1,
	    .max_samples = DEFAULT_MAX_SAMPLES,
	    .max_connections = 256,
	    .max_connections_per_ip = 32,
	    .timeout_seconds = 30,
	    .header_timeout = 15,
	    .min_body_rate = 1024,
	    .answer_memory = 256u * 1024 * 1024,
	    .max_entries = DEFAULT_MAX_ENTRIES,
	};
	int open_writes = 0, opt, sig, tokens;
	struct catalog_pool *pool;
	struct catalog *cat;
	struct server *srv;
	struct error err;
	sigset_t stop;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case OPT_LISTEN: cfg.listen = optarg; break;
		case OPT_DB: cfg.db_path = operand(optarg, "--db"); break;
		case OPT_WWW: cfg.www_dir = optarg; break;
		case OPT_CHARTJS: cfg.chartjs_dir = optarg; break;
		case OPT_MAX_UPLOAD: cfg.max_upload = parse_size(optarg, "--max-upload"); break;
		case OPT_MAX_SAMPLES:
			cfg.max_samples = parse_unsigned(optarg, "--max-samples", 1, 100000000);
			break;
		case OPT_THREADS: cfg.threads = parse_unsigned(optarg, "--threads", 1, 256); break;
		case OPT_MAX_CONN:
			cfg.max_connections = parse_unsigned(optarg, "--max-connections", 1, 65536);
			break;
		case OPT_MAX_CONN_IP:
			cfg.max_connections_per_ip =
			    parse_unsigned(optarg, "--max-connections-per-ip", 1, 65536);
			break;
		case OPT_TIMEOUT:
			cfg.timeout_seconds = parse_unsigned(optarg, "--timeout", 1, 86400);
			break;
		case OPT_OPEN_WRITES: open_writes = 1; break;
		case OPT_PRIVATE: cfg.private_reads = 1; break;
		case OPT_UPLOAD_MEMORY:
			cfg.upload_memory = parse_size(optarg, "--upload-memory");
			break;
		case OPT_HEADER:
			cfg.max_header_size = parse_size(optarg, "--max-header-size");
			if (cfg.max_header_size < 8192)
				usage_error("%s", "--max-header-size must be at least 8K");
			break;
		case OPT_HEADER_TIMEOUT:
			cfg.header_timeout = parse_unsigned(optarg, "--header-timeout", 1, 3600);
			break;
		case OPT_MIN_BODY_RATE:
			cfg.min_body_rate = parse_size(optarg, "--min-body-rate");
			break;
		case OPT_ANSWER_MEMORY:
			cfg.answer_memory = parse_size(optarg, "--answer-memory");
			break;
		case OPT_MAX_ENTRIES:
			cfg.max_entries = parse_unsigned(optarg, "--max-entries", 1, 1000000);
			break;
		case OPT_QUIET: cfg.quiet = 1; break;
		case OPT_READ_ONLY: cfg.read_only = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: usage_error("%s", "unknown option");
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!cfg.www_dir)
		cfg.www_dir = default_www();

	/* Threads started from here on inherit this mask: only main() takes the signals. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);

	error_init(&err);
	catalog_display_name(cfg.db_path, shown, sizeof(shown));
	catalog_set_timeout(cfg.timeout_seconds);
	/* creates and migrates before serving; or, read-only, checks it can be read as it is */
	cat = cfg.read_only ? catalog_open_read_only(cfg.db_path, &err)
	                    : catalog_open(cfg.db_path, &err);
	if (!cat) {
		fprintf(stderr, "animdexd: %s\n", err.message);
		return 1;
	}
	tokens = catalog_token_count(cat);
	{
		int64_t outdated = catalog_outdated(cat, &err);
		if (outdated > 0)
			fprintf(stderr,
			        "animdexd: %lld entries of %s were made by an older decoder; "
			        "'animdexd redecode --db %s' decodes them again with today's "
			        "decoders\n",
			        (long long)outdated, shown, shown);
	}
	catalog_close(cat);
	if (!is_loopback(cfg.listen) && tokens <= 0 && !open_writes && !cfg.read_only) {
		fprintf(stderr,
		        "animdexd: refusing to listen on %s without a write token: anyone who can "
		        "reach it could upload and delete. Make one with 'animdexd token add NAME "
		        "--db %s', or give --open-writes to allow it.\n",
		        cfg.listen, shown);
		return 2;
	}
	if (cfg.private_reads && tokens <= 0) {
		fprintf(stderr,
		        "animdexd: --private needs a token to read with: make one with "
		        "'animdexd token add NAME --db %s'\n",
		        shown);
		return 2;
	}
	pool = catalog_pool_create(cfg.db_path, cfg.read_only);
	if (!pool) {
		fprintf(stderr, "animdexd: out of memory\n");
		return 1;
	}
	srv = server_start(&cfg, pool, &err);
	if (!srv) {
		fprintf(stderr, "animdexd: %s\n", err.message);
		catalog_pool_free(pool);
		return 1;
	}
	printf("animdexd %s listening on http://%.*s:%u (database %s%s, web page %s)\n",
	       PACKAGE_VERSION, (int)(strrchr(cfg.listen, ':') - cfg.listen), cfg.listen,
	       server_port(srv), shown, cfg.read_only ? ", read-only" : "", cfg.www_dir);
	fflush(stdout);
	sigwait(&stop, &sig);
	fprintf(stderr, "animdexd: %s: finishing requests in flight, then stopping\n",
	        sig == SIGINT ? "SIGINT" : "SIGTERM");
	server_stop(srv);
	catalog_pool_free(pool);
	fprintf(stderr, "animdexd: stopped\n");
	return 0;
}

/* JSON on standard output, indented, floats as the API writes them. */
static void print_json(const json_t *json)
{
	size_t length;
	char *text = render_json(json, 2, &length);

	if (text)
		fwrite(text, 1, length, stdout);
	free(text);
}

static int cmd_decode(int argc, char **argv)
{
	static const struct option options[] = {
	    {"class", required_argument, NULL, 'c'},  {"family", required_argument, NULL, 'f'},
	    {"name", required_argument, NULL, 'n'},   {"crc32", required_argument, NULL, 'x'},
	    {"layout", required_argument, NULL, 'l'}, {"endian", required_argument, NULL, 'e'},
	    {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	struct upload up = {0};
	struct decode_result result;
	struct error err;
	uint8_t *data;
	json_t *out, *list;
	int opt, rc = 0;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'c': up.class_name = optarg; break;
		case 'f': up.family = optarg; break;
		case 'n': up.name = optarg; break;
		case 'x': up.crc32 = optarg; break;
		case 'l': up.layout = optarg; break;
		case 'e': up.endian = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: usage_error("%s", "unknown option");
		}
	}
	if (optind != argc - 1)
		usage_error("%s", "decode takes exactly one FILE");
	up.filename = argv[optind];
	data = (uint8_t *)import_read_file(up.filename, &up.length);
	if (!data) {
		fprintf(stderr, "animdexd: %s: %s\n", up.filename, strerror(errno));
		return 1;
	}
	up.data = data;
	error_init(&err);
	decode_result_init(&result);
	if (format_decode(&up, &result, &err) < 0) {
		json_t *e = json_pack("{s:{s:s, s:s}}", "error", "code", error_code_name(err.code),
		                      "message", err.message);
		if (err.path[0])
			json_object_set_new(json_object_get(e, "error"), "path",
			                    json_string(err.path));
		if (err.offset >= 0)
			json_object_set_new(json_object_get(e, "error"), "offset",
			                    json_integer(err.offset));
		print_json(e);
		json_decref(e);
		rc = 1;
	} else {
		list = json_array();
		for (size_t i = 0; i < result.count; i++)
			json_array_append_new(list, render_decoded(result.resources[i]));
		out = json_pack("{s:o, s:O}", "resources", list, "skipped", result.skipped);
		print_json(out);
		json_decref(out);
	}
	decode_result_cleanup(&result);
	free(data);
	return rc;
}

static int cmd_hash(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs("Usage: animdexd hash NAME...\n"
		      "Prints, for each name: Asobo32 (Zouna names and classes) and the CRC-32 of\n"
		      "the lower-cased name (Burnout resource IDs), in hex and unsigned decimal.\n",
		      argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (int i = 1; i < argc; i++) {
		size_t len = strlen(argv[i]);
		uint32_t a = hash_asobo32(argv[i], len), c = hash_crc32_lower(argv[i], len);
		printf("%s\tasobo32 0x%08X %u\tcrc32 0x%08X %u\n", argv[i], a, a, c, c);
	}
	return 0;
}

static int cmd_import(int argc, char **argv)
{
	static const struct option options[] = {{"db", required_argument, NULL, 'd'},
	                                        {"class", required_argument, NULL, 'c'},
	                                        {"family", required_argument, NULL, 'f'},
	                                        {"max-upload", required_argument, NULL, 'm'},
	                                        {"max-entries", required_argument, NULL, 'e'},
	                                        {"quiet", no_argument, NULL, 'q'},
	                                        {"help", no_argument, NULL, 'h'},
	                                        {NULL, 0, NULL, 0}};
	struct import_options opt = {"./animdex.db",      NULL, NULL, DEFAULT_MAX_UPLOAD,
	                             DEFAULT_MAX_ENTRIES, 0};
	int c;

	while ((c = getopt_long(argc, argv, "hq", options, NULL)) != -1) {
		switch (c) {
		case 'd': opt.db_path = operand(optarg, "--db"); break;
		case 'c': opt.class_name = optarg; break;
		case 'f': opt.family = optarg; break;
		case 'm': opt.max_inflate = parse_size(optarg, "--max-upload"); break;
		case 'e':
			opt.max_entries = parse_unsigned(optarg, "--max-entries", 1, 1000000);
			break;
		case 'q': opt.quiet = 1; break;
		case 'h':
			fputs(
			    "Usage: animdexd import [--db PATH] [--class NAME] [--family NAME]\n"
			    "                       [--max-upload SIZE] [--max-entries N] "
			    "[--quiet] "
			    "PATH...\n"
			    "Imports files and folders (recursively, each folder once) into the "
			    "catalogue in\nbatched transactions. --max-upload bounds what a "
			    "compressed container may inflate\nto (64M), --max-entries the entries "
			    "one file may give (1000).\n",
			    stdout);
			return 0;
		default: usage_error("%s", "unknown option");
		}
	}
	if (optind >= argc)
		usage_error("%s", "import needs at least one PATH");
	return import_paths(&opt, argv + optind, argc - optind);
}

static int cmd_redecode(int argc, char **argv)
{
	static const struct option options[] = {{"db", required_argument, NULL, 'd'},
	                                        {"family", required_argument, NULL, 'f'},
	                                        {"class", required_argument, NULL, 'c'},
	                                        {"id", required_argument, NULL, 'i'},
	                                        {"quiet", no_argument, NULL, 'q'},
	                                        {"help", no_argument, NULL, 'h'},
	                                        {NULL, 0, NULL, 0}};
	struct redecode_options opt = {"./animdex.db", NULL, NULL, 0, 0};
	int c;

	while ((c = getopt_long(argc, argv, "hq", options, NULL)) != -1) {
		switch (c) {
		case 'd': opt.db_path = operand(optarg, "--db"); break;
		case 'f': opt.family = optarg; break;
		case 'c': opt.class_name = optarg; break;
		case 'i': opt.id = parse_unsigned(optarg, "--id", 1, 2147483647u); break;
		case 'q': opt.quiet = 1; break;
		case 'h':
			fputs(
			    "Usage: animdexd redecode [--db PATH] [--family NAME] [--class NAME] "
			    "[--id N] [--quiet]\n"
			    "Decodes the stored bytes of catalogued entries again with today's "
			    "decoders and\nreplaces each entry's structure, tracks and references "
			    "in place, one transaction\nper entry; prints what changed. An entry "
			    "whose bytes today's decoder refuses is\nleft as it was and listed. "
			    "Exit status: 0, 1 when an entry was left, 2 on errors.\n",
			    stdout);
			return 0;
		default: usage_error("%s", "unknown option");
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (opt.family && !format_by_family(opt.family))
		usage_error("--family: '%s' is not radient, zouna, gltf or burnout", opt.family);
	return redecode_run(&opt, stdout);
}

static void show_export_progress(size_t done, size_t count)
{
	fprintf(stderr, "\r%zu of %zu entries exported ", done, count);
}

/* Writes a file whole or not at all: into a new file beside it, synced, then renamed over
 * it, so that a failed or interrupted write leaves no half file (and no old one changed).
 * The bytes come from next(arg, ...) a block at a time (0 at their end, -1: failed, errno
 * set or 0). */
static int write_whole_file(const char *path, long (*next)(void *arg, char *out, size_t room),
                            void *arg)
{
	size_t size = strlen(path) + 16;
	char *temporary = malloc(size);
	mode_t mask = umask(0);
	int fd, saved;

	umask(mask);
	if (!temporary)
		return -1;
	snprintf(temporary, size, "%s.XXXXXX", path);
	fd = mkstemp(temporary);
	if (fd < 0) {
		free(temporary);
		return -1;
	}
	for (;;) {
		static char block[1 << 20];
		long got;
		errno = 0;
		got = next(arg, block, sizeof(block));
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		for (size_t done = 0; done < (size_t)got;) {
			ssize_t n = write(fd, block + done, (size_t)got - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				goto fail;
			done += (size_t)n;
		}
	}
	if (fchmod(fd, 0666 & ~mask) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(temporary, path) < 0)
		goto fail;
	free(temporary);
	return 0;
fail:
	saved = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	unlink(temporary);
	free(temporary);
	errno = saved;
	return -1;
}

/* The asset's blocks, for write_whole_file. */
struct asset_reader {
	struct export_asset *asset;
	struct catalog *cat;
	struct error err;
};

static long next_asset_block(void *arg, char *out, size_t room)
{
	struct asset_reader *r = arg;

	return export_asset_read(r->asset, r->cat, out, room, &r->err);
}

static int cmd_export(int argc, char **argv)
{
	static const struct option options[] = {{"db", required_argument, NULL, 'd'},
	                                        {"id", required_argument, NULL, 'i'},
	                                        {"class", required_argument, NULL, 'c'},
	                                        {"family", required_argument, NULL, 'f'},
	                                        {"name", required_argument, NULL, 'n'},
	                                        {"crc32", required_argument, NULL, 'x'},
	                                        {"q", required_argument, NULL, 'q'},
	                                        {"format", required_argument, NULL, 'F'},
	                                        {"bake", required_argument, NULL, 'b'},
	                                        {"output", required_argument, NULL, 'o'},
	                                        {"quiet", no_argument, NULL, 'Q'},
	                                        {"help", no_argument, NULL, 'h'},
	                                        {"max-entries", required_argument, NULL, 'm'},
	                                        {NULL, 0, NULL, 0}};
	const char *db = "./animdex.db", *output = NULL, *format = "glb";
	struct export_options opt = {.glb = 1,
	                             .bake_rate = EXPORT_DEFAULT_BAKE_RATE,
	                             .max_entries = EXPORT_DEFAULT_MAX_ENTRIES};
	struct catalog_query q = {0};
	int64_t *ids = NULL, *chosen = NULL;
	size_t count = 0, nchosen = 0;
	struct exporter *ex = NULL;
	struct catalog *cat = NULL;
	struct error err;
	json_t *summary = NULL;
	struct asset_reader reader = {0};
	int c, rc = 1, quiet = 0, tty = isatty(2);
	const char *own;

	while ((c = getopt_long(argc, argv, "ho:", options, NULL)) != -1) {
		switch (c) {
		case 'd': db = operand(optarg, "--db"); break;
		case 'i': {
			int64_t *grown = realloc(chosen, (nchosen + 1) * sizeof(*chosen));
			if (!grown)
				return 1;
			chosen = grown;
			chosen[nchosen++] = parse_unsigned(optarg, "--id", 1, 2147483647u);
			break;
		}
		case 'c': q.class_name = optarg; break;
		case 'f': q.family = optarg; break;
		case 'n': q.name = optarg; break;
		case 'x':
			if (hash_parse_handle(optarg, &q.crc32) < 0)
				usage_error(
				    "--crc32: '%s' is not a handle (hex 0x1A2B3C4D or decimal)",
				    optarg);
			q.has_crc32 = 1;
			break;
		case 'q': q.q = optarg; break;
		case 'F': format = optarg; break;
		case 'b':
			if (export_parse_bake_rate(optarg, &opt.bake_rate) < 0)
				usage_error(
				    "--bake: '%s' is not a number of samples a second above 0 "
				    "and at most 1000, in decimal digits (30, 29.97)",
				    optarg);
			break;
		case 'o': output = operand(optarg, "-o"); break;
		case 'm':
			opt.max_entries = parse_unsigned(optarg, "--max-entries", 1, 10000000);
			break;
		case 'Q': quiet = 1; break;
		case 'h':
			fputs("Usage: animdexd export [--db PATH] [--id N]... [--class NAME] "
			      "[--family "
			      "NAME]\n"
			      "                       [--name NAME] [--crc32 HANDLE] [--q TEXT] "
			      "[--format glb|gltf]\n"
			      "                       [--bake N] [--max-entries N] [--quiet] "
			      "-o|--output FILE\n"
			      "Writes catalogued entries as one glTF 2.0 asset, one animation an "
			      "entry: the\nentries given with --id, or those the filters select "
			      "(every entry without\neither). --bake: samples a second for Euler "
			      "rotations (30); --max-entries: the\nmost entries the asset may hold "
			      "(1000).\n",
			      stdout);
			return 0;
		default: usage_error("%s", "unknown option");
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!output)
		usage_error("%s", "export needs -o FILE");
	if (strcmp(format, "glb") != 0 && strcmp(format, "gltf") != 0)
		usage_error("--format: '%s' is not glb or gltf", format);
	opt.glb = strcmp(format, "glb") == 0;
	if ((own = catalog_files_match(db, output)) != NULL) {
		fprintf(stderr, "animdexd: -o %s is %s (--db %s): refusing to write over it\n",
		        output, own, db);
		return 2;
	}
	error_init(&err);
	cat = catalog_open_read_only(db, &err); /* an export changes nothing */
	if (!cat)
		goto fail;
	if (nchosen) {
		ids = chosen, count = nchosen, chosen = NULL;
	} else if (catalog_select_matching(cat, &q, opt.max_entries, &ids, &count, &err) < 0) {
		goto fail;
	}
	ex = exporter_create(&opt);
	if (!ex) {
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < count / 2; i++) { /* oldest first */
		int64_t id = ids[i];
		ids[i] = ids[count - 1 - i];
		ids[count - 1 - i] = id;
	}
	if (exporter_add_all(ex, db, cat, ids, count, tty && !quiet ? show_export_progress : NULL,
	                     &err) < 0)
		goto fail;
	reader.asset = exporter_finish(ex, &summary, &err);
	if (!reader.asset)
		goto fail;
	exporter_free(ex); /* the asset holds what it needs */
	ex = NULL;
	reader.cat = cat;
	error_init(&reader.err);
	if (write_whole_file(output, next_asset_block, &reader) < 0) {
		fprintf(stderr, "animdexd: %s: %s (nothing written)\n", output,
		        error_is_set(&reader.err) ? reader.err.message : strerror(errno));
		goto done;
	}
	if (!quiet)
		fprintf(
		    stderr,
		    "%s%s: %zu entries, %lld animations, %lld channels, %zu tracks kept in extras, "
		    "%zu bytes\n",
		    tty ? "\r" : "", output, count,
		    (long long)json_integer_value(json_object_get(summary, "animations")),
		    (long long)json_integer_value(json_object_get(summary, "channels")),
		    json_array_size(json_object_get(summary, "in_extras")),
		    (size_t)export_asset_length(reader.asset));
	rc = 0;
	goto done;
fail:
	fprintf(stderr, "%sanimdexd: %s\n", tty ? "\r" : "", err.message);
done:
	export_asset_free(reader.asset);
	json_decref(summary);
	exporter_free(ex);
	catalog_close(cat);
	free(ids);
	free(chosen);
	return rc;
}

/* animdexd token add NAME | list | revoke NAME [--db PATH] */
static int cmd_token(int argc, char **argv)
{
	static const struct option options[] = {{"db", required_argument, NULL, 'd'},
	                                        {"help", no_argument, NULL, 'h'},
	                                        {NULL, 0, NULL, 0}};
	const char *db = "./animdex.db", *verb, *name = NULL;
	struct catalog *cat;
	struct error err;
	int opt, rc = 0;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (opt == 'd')
			db = operand(optarg, "--db");
		else if (opt == 'h') {
			fputs("Usage: animdexd token add NAME | list | revoke NAME [--db PATH]\n"
			      "add prints a new write token once; only its SHA-256 is stored.\n",
			      stdout);
			return 0;
		} else
			usage_error("%s", "unknown option");
	}
	if (optind >= argc)
		usage_error("%s", "token needs add, list or revoke");
	verb = argv[optind++];
	if (strcmp(verb, "list") != 0) {
		if (optind != argc - 1)
			usage_error("token %s needs a NAME", verb);
		name = operand(argv[optind], "token NAME");
		if (strlen(name) > 64 || !*name ||
		    strspn(name,
		           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@-") !=
		        strlen(name))
			usage_error("a token NAME is 1 to 64 letters, digits, '.', '_', '@' or "
			            "'-', not '%s'",
			            name);
	}
	error_init(&err);
	cat = catalog_open(db, &err);
	if (!cat) {
		fprintf(stderr, "animdexd: %s\n", err.message);
		return 1;
	}
	if (strcmp(verb, "add") == 0) {
		unsigned char random[32];
		char token[4 + 64 + 1], hash[SHA256_HEX_SIZE];
		FILE *f = fopen("/dev/urandom", "rb");
		if (!f || fread(random, 1, sizeof(random), f) != sizeof(random)) {
			fprintf(stderr, "animdexd: cannot read /dev/urandom\n");
			if (f)
				fclose(f);
			catalog_close(cat);
			return 1;
		}
		fclose(f);
		memcpy(token, "adx_", 4);
		for (size_t i = 0; i < sizeof(random); i++)
			snprintf(token + 4 + 2 * i, 3, "%02x", random[i]);
		sha256_hex(token, strlen(token), hash);
		if (catalog_token_add(cat, name, hash, &err) < 0) {
			fprintf(stderr, "animdexd: %s\n", err.message);
			rc = 1;
		} else {
			printf("%s\n", token);
			fprintf(stderr,
			        "animdexd: token '%s' made; it is shown only this once. Send it as "
			        "'Authorization: Bearer TOKEN'.\n",
			        name);
		}
	} else if (strcmp(verb, "revoke") == 0) {
		if (catalog_token_revoke(cat, name, &err) < 0) {
			fprintf(stderr, "animdexd: %s\n", err.message);
			rc = 1;
		} else {
			fprintf(stderr, "animdexd: token '%s' revoked\n", name);
		}
	} else if (strcmp(verb, "list") == 0) {
		json_t *list = catalog_token_list(cat, &err);
		size_t i;
		json_t *t;
		json_array_foreach(list, i, t)
		    printf("%s\tcreated %s\t%s%s\n", json_string_value(json_object_get(t, "name")),
		           json_string_value(json_object_get(t, "created_at")),
		           json_is_null(json_object_get(t, "revoked_at")) ? "valid" : "revoked ",
		           json_is_null(json_object_get(t, "revoked_at"))
		               ? ""
		               : json_string_value(json_object_get(t, "revoked_at")));
		json_decref(list);
	} else {
		usage_error("token has no verb '%s' (add, list, revoke)", verb);
	}
	catalog_close(cat);
	return rc;
}

static void copy_progress(int64_t done, int64_t total, void *arg)
{
	(void)arg;
	fprintf(stderr, "\ranimdexd: copied %lld of %lld entries", (long long)done,
	        (long long)total);
	if (done == total)
		fputc('\n', stderr);
}

/* animdexd copy [--append] [--quiet] FROM TO */
static int cmd_copy(int argc, char **argv)
{
	static const struct option options[] = {{"append", no_argument, NULL, 'a'},
	                                        {"quiet", no_argument, NULL, 'q'},
	                                        {"help", no_argument, NULL, 'h'},
	                                        {NULL, 0, NULL, 0}};
	enum copy_mode mode = COPY_INTO_EMPTY;
	struct catalog *from = NULL, *to = NULL;
	struct copy_report report;
	struct error err;
	char shown[2][512];
	int quiet = 0, c, rc = 1;

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'a': mode = COPY_APPEND; break;
		case 'q': quiet = 1; break;
		case 'h':
			fputs("Usage: animdexd copy [--append] [--quiet] FROM TO\n"
			      "Copies every entry with its bytes, tracks and references, every "
			      "name and\n"
			      "token hash, from the catalogue FROM to the catalogue TO (each a "
			      "SQLite file\n"
			      "or a PostgreSQL connection string), keeping ids, uploaded_at and\n"
			      "uploaded_by, in one transaction; then checks every SHA-256 and the "
			      "counts.\n"
			      "TO must be empty, unless --append: entries it has already (same "
			      "bytes and\n"
			      "part) are skipped, an id taken there gets a new one, names and "
			      "tokens it\n"
			      "has stay as they are.\n",
			      stdout);
			return 0;
		default: return 2;
		}
	}
	if (argc - optind != 2)
		usage_error("copy takes two catalogues, FROM and TO%s",
		            argc - optind < 2 ? ": one is missing" : ", and no more");
	operand(argv[optind], "copy FROM");
	operand(argv[optind + 1], "copy TO");
	catalog_display_name(argv[optind], shown[0], sizeof(shown[0]));
	catalog_display_name(argv[optind + 1], shown[1], sizeof(shown[1]));
	if (strcmp(argv[optind], argv[optind + 1]) == 0)
		usage_error("copy: FROM and TO are the same catalogue (%s)", shown[0]);
	{
		const char *own = catalog_files_match(argv[optind], argv[optind + 1]);
		const char *theirs = catalog_files_match(argv[optind + 1], argv[optind]);
		if (own || theirs) {
			/* e.g. "TO src.db-wal is the catalogue's write-ahead log of src.db" */
			fprintf(stderr,
			        "animdexd: copy: %s %s is %s of %s: refusing to copy a catalogue "
			        "onto itself\n",
			        own ? "TO" : "FROM", own ? shown[1] : shown[0], own ? own : theirs,
			        own ? shown[0] : shown[1]);
			return 2;
		}
	}
	error_init(&err);
	from = catalog_open_read_only(argv[optind], &err); /* the source is only read */
	if (from)
		to = catalog_open(argv[optind + 1], &err);
	if (!from || !to) {
		fprintf(stderr, "animdexd: %s\n", err.message);
		goto done;
	}
	if (catalog_copy(from, to, mode, !quiet && isatty(2) ? copy_progress : NULL, NULL, &report,
	                 &err) < 0) {
		fprintf(stderr, "\nanimdexd: %s; %s is unchanged\n", err.message, shown[1]);
		goto done;
	}
	if (!quiet)
		fprintf(stderr,
		        "animdexd: copied %lld entries (%lld skipped, %lld renumbered), %lld "
		        "blobs (%lld there already), %lld tracks, %lld references, %lld names "
		        "(%lld there already), %lld tokens (%lld skipped) from %s to %s; %lld "
		        "blobs verified by SHA-256\n",
		        (long long)report.entries, (long long)report.entries_skipped,
		        (long long)report.entries_renumbered, (long long)report.blobs,
		        (long long)report.blobs_skipped, (long long)report.tracks,
		        (long long)report.refs, (long long)report.names,
		        (long long)report.names_skipped, (long long)report.tokens,
		        (long long)report.tokens_skipped, shown[0], shown[1],
		        (long long)report.bytes_verified);
	rc = 0;
done:
	catalog_close(from);
	catalog_close(to);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
		printf("animdexd %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "decode") == 0)
		return cmd_decode(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "hash") == 0)
		return cmd_hash(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "import") == 0)
		return cmd_import(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "export") == 0)
		return cmd_export(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "redecode") == 0)
		return cmd_redecode(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "token") == 0)
		return cmd_token(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "copy") == 0)
		return cmd_copy(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "serve") == 0)
		return cmd_serve(argc - 1, argv + 1);
	return cmd_serve(argc, argv);
}
