/* check_handoff.c: the queue between import's and export's two threads hands items over in
 * order, holds no more than its bounds (but always one), gives items back, and lets either
 * side end the exchange. Real threads. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/handoff.h"

#define ITEMS 5000

struct producer {
	struct handoff *h;
	size_t bytes;      /* each item's */
	size_t put, back;  /* items handed over, items given back */
	size_t most_held;  /* the most items waiting at a put */
	size_t most_bytes; /* the most bytes waiting at a put */
};

static void *produce(void *arg)
{
	struct producer *p = arg;

	for (uintptr_t i = 1; i <= ITEMS; i++) {
		void *done[HANDOFF_SLOTS];
		p->back += handoff_take_back(p->h, done);
		if (handoff_put(p->h, (void *)i, p->bytes) < 0)
			break;
		p->put++;
		pthread_mutex_lock(&p->h->lock);
		if (p->h->count > p->most_held)
			p->most_held = p->h->count;
		if (p->h->bytes > p->most_bytes)
			p->most_bytes = p->h->bytes;
		pthread_mutex_unlock(&p->h->lock);
	}
	handoff_close(p->h);
	return NULL;
}

START_TEST(items_arrive_in_order_within_the_bounds_and_come_back)
{
	struct handoff h;
	struct producer p = {&h, 100, 0, 0, 0, 0};
	pthread_t t;
	uintptr_t expect = 1;
	void *item;
	void *done[HANDOFF_SLOTS];

	handoff_init(&h, 8, 350); /* 8 items, or 3 of 100 bytes */
	ck_assert_int_eq(pthread_create(&t, NULL, produce, &p), 0);
	while ((item = handoff_take(&h))) {
		ck_assert_uint_eq((uintptr_t)item, expect);
		expect++;
		if (expect % 2) /* every other one back to the producer */
			ck_assert_int_eq(handoff_give_back(&h, item), 0);
	}
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_eq(expect, ITEMS + 1);
	ck_assert_uint_eq(p.put, ITEMS);
	ck_assert_uint_le(p.most_bytes, 350);
	ck_assert_uint_le(p.most_held, 3);
	ck_assert_uint_eq(p.back + handoff_take_back(&h, done), ITEMS / 2);
	handoff_destroy(&h);

	/* an item larger than the byte bound still goes, alone */
	handoff_init(&h, 8, 50);
	p = (struct producer){&h, 100, 0, 0, 0, 0};
	ck_assert_int_eq(pthread_create(&t, NULL, produce, &p), 0);
	for (expect = 1; (item = handoff_take(&h)); expect++)
		ck_assert_uint_eq((uintptr_t)item, expect);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_eq(expect, ITEMS + 1);
	ck_assert_uint_eq(p.most_held, 1);
	handoff_destroy(&h);
}
END_TEST

START_TEST(a_cancel_stops_the_producer_and_what_waits_can_be_taken)
{
	struct handoff h;
	struct producer p = {&h, 1, 0, 0, 0, 0};
	pthread_t t;
	size_t taken = 0;

	handoff_init(&h, 4, 1000);
	ck_assert_int_eq(pthread_create(&t, NULL, produce, &p), 0);
	for (int i = 0; i < 10; i++)
		ck_assert_ptr_nonnull(handoff_take(&h));
	handoff_cancel(&h);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_lt(p.put, ITEMS); /* it stopped */
	while (handoff_take(&h))         /* closed: what is left, then NULL */
		taken++;
	ck_assert_uint_eq(10 + taken, p.put);
	ck_assert_int_eq(handoff_put(&h, (void *)1, 1), -1);
	handoff_destroy(&h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("handoff");
	TCase *tc = tcase_create("threads");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, items_arrive_in_order_within_the_bounds_and_come_back);
	tcase_add_test(tc, a_cancel_stops_the_producer_and_what_waits_can_be_taken);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
