/* budget.c: server-wide byte budgets, taken and given back by any thread without a lock: the
 * memory of uploads being received (--upload-memory) and of answers being sent
 * (--answer-memory). */
#include "server_internal.h"

int budget_take(size_t *used, size_t limit, size_t bytes)
{
	size_t now = __atomic_load_n(used, __ATOMIC_ACQUIRE);

	do {
		if (bytes > limit || now > limit - bytes)
			return -1;
	} while (!__atomic_compare_exchange_n(used, &now, now + bytes, 1, __ATOMIC_ACQ_REL,
	                                      __ATOMIC_ACQUIRE));
	return 0;
}

void budget_give(size_t *used, size_t bytes)
{
	__atomic_sub_fetch(used, bytes, __ATOMIC_ACQ_REL);
}
