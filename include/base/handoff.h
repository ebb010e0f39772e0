/* handoff.h: items handed from one thread to another, in order, through a short queue bounded
 * by count and by bytes (always room for one). A side waits only when it must and is woken
 * only when the other waits; a producer that found the queue full sleeps until it is half
 * empty, so that it then hands over a run of items rather than one per wake-up. Items can go
 * back the other way, to be freed by the thread that allocated them (a thread freeing
 * another's memory makes malloc lock and tidy that thread's heap).
 *
 * One producer, one consumer: `animdexd import` (files read and decoded ahead of the writer)
 * and `animdexd export` (entries read ahead of the asset being built). */
#ifndef ANIMDEX_HANDOFF_H
#define ANIMDEX_HANDOFF_H

#include <pthread.h>
#include <stddef.h>

#define HANDOFF_SLOTS 1024

struct handoff {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	void *slots[HANDOFF_SLOTS];
	size_t sizes[HANDOFF_SLOTS];
	size_t head, count, bytes; /* waiting, and the bytes they hold */
	size_t max_count, max_bytes;
	void *back[HANDOFF_SLOTS]; /* given back, to be freed by the producer */
	size_t back_count;
	int producer_waiting, consumer_waiting;
	int closed;    /* the producer has no more */
	int cancelled; /* the consumer wants no more */
};

/* max_count: at most HANDOFF_SLOTS. */
void handoff_init(struct handoff *h, size_t max_count, size_t max_bytes);
void handoff_destroy(struct handoff *h);

/* Producer: hands item over, waiting for room. 0, or -1 when the consumer cancelled (the
 * item stays the producer's). */
int handoff_put(struct handoff *h, void *item, size_t bytes);
/* Producer: there will be no more. */
void handoff_close(struct handoff *h);
/* Producer: the items given back since the last call, into out (HANDOFF_SLOTS of room). */
size_t handoff_take_back(struct handoff *h, void **out);

/* Consumer: the next item, waiting for it; NULL once the producer closed and all are taken. */
void *handoff_take(struct handoff *h);
/* Consumer: gives item back to be freed by the producer; -1 when there is no room (the
 * consumer frees it). */
int handoff_give_back(struct handoff *h, void *item);
/* Consumer: the producer should stop (its next handoff_put fails). */
void handoff_cancel(struct handoff *h);

#endif
