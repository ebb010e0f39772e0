/* check_track_answer.c: the answer writer without a daemon: a track made here, its samples,
 * keys and events as JSON, CSV and raw float32, byte for byte; and the same bytes whether the
 * answer is made at once or streamed through buffers of any size. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "answers/track_answer.h"

/* The README's walk: hips translation from (0,0,0) at 0 s to (2,1,0) at 1 s, linear. */
static void walk_track(struct catalog_track *track)
{
	static const float times[] = {0, 1};
	static const float values[] = {0, 0, 0, 2, 1, 0};

	memset(track, 0, sizeof(*track));
	track->resource_id = 1;
	track->n = 0;
	track->name = strdup("hips translation");
	track->sampler.type = VALUE_FLOAT3;
	track->sampler.array_size = 1;
	track->sampler.interp = INTERP_LINEAR;
	track->sampler.key_count = 2;
	track->sampler.times = malloc(sizeof(times));
	track->sampler.values = malloc(sizeof(values));
	track->sampler.value_bytes = sizeof(values);
	ck_assert_ptr_nonnull(track->name);
	ck_assert_ptr_nonnull(track->sampler.times);
	ck_assert_ptr_nonnull(track->sampler.values);
	memcpy(track->sampler.times, times, sizeof(times));
	memcpy(track->sampler.values, values, sizeof(values));
}

static struct track_answer *samples_at(enum sample_format format, const float *t, size_t n)
{
	struct catalog_track track;
	struct track_answer *ta;
	struct error err;

	walk_track(&track);
	error_init(&err);
	ta = track_answer_create(&track, ANSWER_SAMPLES, format, 0, n, &err);
	ck_assert_msg(ta != NULL, "%s", err.message);
	ta->times.list = malloc(n * sizeof(float));
	ck_assert_ptr_nonnull(ta->times.list);
	memcpy(ta->times.list, t, n * sizeof(float));
	ta->times.count = n;
	return ta;
}

static struct track_answer *samples_spaced(enum sample_format format, double from, double to,
                                           size_t count)
{
	struct catalog_track track;
	struct track_answer *ta;
	struct error err;

	walk_track(&track);
	error_init(&err);
	ta = track_answer_create(&track, ANSWER_SAMPLES, format, 0, count, &err);
	ck_assert_msg(ta != NULL, "%s", err.message);
	ta->times.from = from;
	ta->times.to = to;
	ta->times.count = count;
	return ta;
}

/* The whole answer made at once (as a small answer is), then freed. */
static char *made_at_once(struct track_answer *ta, size_t *length)
{
	struct buf b;
	int more = 1;

	buf_init(&b, (size_t)64 << 20);
	while (more && !b.overflow)
		more = track_answer_produce(ta, &b);
	ck_assert(!b.overflow);
	track_answer_free(ta);
	return buf_steal(&b, length);
}

/* The whole answer streamed through a buffer of `room` bytes at a time, then freed. */
static char *streamed(struct track_answer *ta, size_t room, size_t *length)
{
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap), *piece = malloc(room);
	long n;

	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(piece);
	while ((n = track_answer_fill(ta, piece, room)) > 0) {
		if (len + (size_t)n + 1 > cap) {
			cap = (len + (size_t)n + 1) * 2;
			out = realloc(out, cap);
			ck_assert_ptr_nonnull(out);
		}
		memcpy(out + len, piece, (size_t)n);
		len += (size_t)n;
	}
	ck_assert_int_eq(n, 0);
	out[len] = '\0';
	free(piece);
	track_answer_free(ta);
	*length = len;
	return out;
}

START_TEST(json_samples_at_listed_times)
{
	static const float t[] = {0, 0.25f, 0.5f};
	size_t len;
	char *text = made_at_once(samples_at(FORMAT_JSON, t, 3), &len);

	ck_assert_pstr_eq(strstr(text, "\"name\":\"hips translation\""), strstr(text, "\"name\":"));
	ck_assert_ptr_nonnull(strstr(text, "\"count\":3"));
	ck_assert_ptr_nonnull(strstr(text, "\"times\":[0,0.25,0.5]"));
	ck_assert_ptr_nonnull(strstr(text, "\"values\":[[0,0,0],[0.5,0.25,0],[1,0.5,0]]"));
	ck_assert_int_eq(text[0], '{');
	ck_assert_int_eq(text[len - 2], '}');
	ck_assert_int_eq(text[len - 1], '\n');
	free(text);
}
END_TEST

START_TEST(csv_samples_evenly_spaced)
{
	size_t len;
	char *text = made_at_once(samples_spaced(FORMAT_CSV, 0, 1, 3), &len);

	ck_assert_str_eq(text, "t,x,y,z\n0,0,0,0\n0.5,1,0.5,0\n1,2,1,0\n");
	ck_assert_uint_eq(len, strlen(text));
	free(text);
}
END_TEST

START_TEST(f32_samples_are_times_then_values)
{
	static const float t[] = {0.75f, 2.0f, -1.0f};
	/* every time, then every value; after the last key the last value holds, before the
	 * first the first */
	static const float want[] = {0.75f, 2.0f, -1.0f, 1.5f, 0.75f, 0, 2, 1, 0, 0, 0, 0};
	size_t len;
	char *bytes = streamed(samples_at(FORMAT_F32, t, 3), 4096, &len);

	ck_assert_uint_eq(len, sizeof(want));
	for (size_t i = 0; i < sizeof(want) / sizeof(float); i++) {
		float got;
		memcpy(&got, bytes + i * sizeof(float), sizeof(got));
		ck_assert_msg(got == want[i], "float %zu: %g, not %g", i, got, want[i]);
	}
	free(bytes);
}
END_TEST

START_TEST(json_keys)
{
	struct catalog_track track;
	struct track_answer *ta;
	struct error err;
	size_t len;
	char *text;

	walk_track(&track);
	error_init(&err);
	ta = track_answer_create(&track, ANSWER_KEYS, FORMAT_JSON, 0, 0, &err);
	ck_assert_msg(ta != NULL, "%s", err.message);
	text = made_at_once(ta, &len);
	ck_assert_ptr_nonnull(strstr(text, "\"times\":[0,1]"));
	ck_assert_ptr_nonnull(strstr(text, "\"values\":[[0,0,0],[2,1,0]]"));
	free(text);
}
END_TEST

/* A large answer streamed through rooms from 64 bytes to 1 MiB: every one gives the bytes the
 * answer made at once gives (JSON, CSV and f32). */
START_TEST(streamed_equals_made_at_once)
{
	static const enum sample_format formats[] = {FORMAT_JSON, FORMAT_CSV, FORMAT_F32};
	static const size_t rooms[] = {64, 100, 4096, 65536 + 7, 1 << 20};
	const size_t count = 20000;

	for (size_t f = 0; f < 3; f++) {
		size_t whole_len;
		char *whole =
		    made_at_once(samples_spaced(formats[f], -0.5, 1.5, count), &whole_len);
		ck_assert_uint_gt(whole_len, count * 4);
		for (size_t r = 0; r < sizeof(rooms) / sizeof(rooms[0]); r++) {
			size_t len;
			char *part =
			    streamed(samples_spaced(formats[f], -0.5, 1.5, count), rooms[r], &len);
			ck_assert_msg(len == whole_len && memcmp(part, whole, len) == 0,
			              "format %zu, room %zu: %zu bytes streamed, %zu at once", f,
			              rooms[r], len, whole_len);
			free(part);
		}
		free(whole);
	}
}
END_TEST

START_TEST(estimate_bounds_what_is_made)
{
	struct track_answer *ta = samples_spaced(FORMAT_JSON, 0, 1, 5000);
	uint64_t estimate = track_answer_estimate(ta);
	size_t len;
	char *text = made_at_once(ta, &len);

	ck_assert_uint_ge(estimate, len);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("track_answer");
	TCase *tc = tcase_create("answers");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, json_samples_at_listed_times);
	tcase_add_test(tc, csv_samples_evenly_spaced);
	tcase_add_test(tc, f32_samples_are_times_then_values);
	tcase_add_test(tc, json_keys);
	tcase_add_test(tc, streamed_equals_made_at_once);
	tcase_add_test(tc, estimate_bounds_what_is_made);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
