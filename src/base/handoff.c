/* handoff.c: a one-producer, one-consumer queue between threads (handoff.h). */
#include "base/handoff.h"

#include <string.h>

void handoff_init(struct handoff *h, size_t max_count, size_t max_bytes)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->changed, NULL);
	h->max_count = max_count < HANDOFF_SLOTS ? max_count : HANDOFF_SLOTS;
	h->max_bytes = max_bytes;
}

void handoff_destroy(struct handoff *h)
{
	pthread_cond_destroy(&h->changed);
	pthread_mutex_destroy(&h->lock);
}

int handoff_put(struct handoff *h, void *item, size_t bytes)
{
	int rc = -1;

	pthread_mutex_lock(&h->lock);
	while (!h->cancelled &&
	       (h->count == h->max_count || (h->count > 0 && h->bytes + bytes > h->max_bytes))) {
		h->producer_waiting = 1;
		pthread_cond_wait(&h->changed, &h->lock);
		h->producer_waiting = 0;
	}
	if (!h->cancelled) {
		size_t at = (h->head + h->count) % HANDOFF_SLOTS;
		h->slots[at] = item;
		h->sizes[at] = bytes;
		h->count++;
		h->bytes += bytes;
		if (h->consumer_waiting)
			pthread_cond_broadcast(&h->changed);
		rc = 0;
	}
	pthread_mutex_unlock(&h->lock);
	return rc;
}

void handoff_close(struct handoff *h)
{
	pthread_mutex_lock(&h->lock);
	h->closed = 1;
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
}

size_t handoff_take_back(struct handoff *h, void **out)
{
	size_t n;

	pthread_mutex_lock(&h->lock);
	n = h->back_count;
	memcpy(out, h->back, n * sizeof(*out));
	h->back_count = 0;
	pthread_mutex_unlock(&h->lock);
	return n;
}

void *handoff_take(struct handoff *h)
{
	void *item = NULL;

	pthread_mutex_lock(&h->lock);
	while (h->count == 0 && !h->closed) {
		h->consumer_waiting = 1;
		pthread_cond_wait(&h->changed, &h->lock);
		h->consumer_waiting = 0;
	}
	if (h->count > 0) {
		item = h->slots[h->head];
		h->bytes -= h->sizes[h->head];
		h->head = (h->head + 1) % HANDOFF_SLOTS;
		h->count--;
		/* a waiting producer: woken once there is room for a run of items */
		if (h->producer_waiting && h->count <= h->max_count / 2 &&
		    h->bytes <= h->max_bytes / 2)
			pthread_cond_broadcast(&h->changed);
	}
	pthread_mutex_unlock(&h->lock);
	return item;
}

int handoff_give_back(struct handoff *h, void *item)
{
	int rc = -1;

	pthread_mutex_lock(&h->lock);
	if (h->back_count < HANDOFF_SLOTS) {
		h->back[h->back_count++] = item;
		rc = 0;
	}
	pthread_mutex_unlock(&h->lock);
	return rc;
}

void handoff_cancel(struct handoff *h)
{
	pthread_mutex_lock(&h->lock);
	h->cancelled = 1;
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
}
