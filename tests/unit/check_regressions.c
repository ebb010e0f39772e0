/* check_regressions.c: every input the fuzzers ever found (tests/fuzz/regressions/TARGET/),
 * replayed through the same code as the fuzz targets. Under the sanitizer build, a finding
 * that comes back is a sanitizer report; everywhere, a refusal must carry its reason. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

int fuzz_one(const char *family, const uint8_t *data, size_t size);

static const char *const targets[] = {"radient", "zouna",   "native", "skel",
                                      "gltf",    "burnout", "router"};

START_TEST(every_finding_is_handled)
{
	char dir[1024], rel[128];
	struct dirent **names;
	int n, replayed = 0;

	snprintf(rel, sizeof(rel), "tests/fuzz/regressions/%s", targets[_i]);
	testutil_src_path(rel, dir, sizeof(dir));
	n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char path[1400];
		size_t len;
		char *data;
		if (names[i]->d_name[0] == '.') {
			free(names[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		data = testutil_read_file(path, &len);
		ck_assert_ptr_nonnull(data);
		ck_assert_msg(fuzz_one(strcmp(targets[_i], "router") ? targets[_i] : "",
		                       (const uint8_t *)data, len) == 0,
		              "%s: refused without a reason (or, written back, read otherwise)",
		              path);
		free(data);
		free(names[i]);
		replayed++;
	}
	if (n >= 0)
		free(names);
	if (replayed)
		printf("note: %s: %d findings replayed\n", targets[_i], replayed);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("regressions");
	TCase *tc = tcase_create("fuzz findings");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, every_finding_is_handled, 0, sizeof(targets) / sizeof(targets[0]));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
