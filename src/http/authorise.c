/* authorise.c: who may do what. Writes (POST, DELETE) need a valid token once any token
 * exists in the catalogue; with --private, reads of the API do too. Tokens are checked
 * against the catalogue's (catalog_token_check); the answer's wording lives here, the sending
 * in server.c. */
#include <string.h>
#include <strings.h>

#include "server_internal.h"

int authorise(const struct server_config *config, struct catalog_pool *pool, const char *method,
              const char *path, const char *authorization, char *user, size_t user_size,
              struct error *err)
{
	int write = strcmp(method, "POST") == 0 || strcmp(method, "DELETE") == 0;
	const char *token = NULL;
	struct catalog *cat;

	if (!write && !(config->private_reads && strncmp(path, "/api/", 5) == 0))
		return 0;
	cat = catalog_pool_get(pool, err);
	if (!cat)
		return -1;
	if (authorization && strncasecmp(authorization, "Bearer ", 7) == 0)
		token = authorization + 7;
	switch (catalog_token_check(cat, token, user, user_size)) {
	case TOKEN_NONE_EXIST: return 0;
	case TOKEN_VALID: return 0;
	case TOKEN_MISSING:
		error_set(err, ERROR_UNAUTHORIZED, NULL, -1,
		          "%s needs a token: send Authorization: Bearer TOKEN (animdexd "
		          "token add NAME makes one)",
		          write ? "writing" : "reading this catalogue");
		return -1;
	case TOKEN_REVOKED:
		error_set(err, ERROR_FORBIDDEN, NULL, -1, "this token was revoked");
		return -1;
	case TOKEN_UNKNOWN:
		error_set(err, ERROR_UNAVAILABLE, NULL, -1,
		          "tokens cannot be checked now: the catalogue's database does not answer; "
		          "try again");
		return -1;
	default:
		error_set(err, ERROR_FORBIDDEN, NULL, -1, "this token is not valid here");
		return -1;
	}
}
