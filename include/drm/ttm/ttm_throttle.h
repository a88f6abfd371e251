/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TTM eviction throttling: the state of one client.
 */
#ifndef _TTM_THROTTLE_H_
#define _TTM_THROTTLE_H_

#include <linux/atomic.h>
#include <linux/types.h>

struct ttm_lru_bulk_move;

/**
 * enum ttm_throttle_state - what a client may do after losing memory
 * @TTM_THROTTLE_NORMAL: No restriction.
 * @TTM_THROTTLE_SOFT: The client may fill free memory, but evicts only its
 *	own buffers unless a buffer has no other placement it can use, and
 *	never memory that dmem.low protects.
 * @TTM_THROTTLE_HARD: As soft, and a buffer whose current resource the
 *	placement accepts stays where it is, even if free memory it prefers
 *	is available.
 */
enum ttm_throttle_state {
	TTM_THROTTLE_NORMAL,
	TTM_THROTTLE_SOFT,
	TTM_THROTTLE_HARD,
};

/**
 * struct ttm_throttle - the eviction throttle of one client
 * @client_id: Names the client in tracepoints; the DRM client id.
 * @evicted_at: When the client last lost memory to eviction, as ktime, or
 *	0 if it never did.
 * @state: The state last reported to the ttm_throttle tracepoint.
 *
 * A driver embeds one per client, next to the client's LRU bulk move, and
 * passes it to validation in &ttm_operation_ctx.throttle. See the "Eviction
 * throttling" section of the TTM documentation.
 */
struct ttm_throttle {
	u64 client_id;
	atomic64_t evicted_at;
	atomic_t state;
};

void ttm_throttle_init(struct ttm_throttle *throttle,
		       struct ttm_lru_bulk_move *bulk, u64 client_id);
enum ttm_throttle_state ttm_throttle_get_state(struct ttm_throttle *throttle);

/**
 * ttm_throttle_client_id - the client a throttle belongs to
 * @throttle: The throttle, or NULL.
 *
 * Return: The client id given to ttm_throttle_init(), or 0 for none.
 */
static inline u64 ttm_throttle_client_id(const struct ttm_throttle *throttle)
{
	return throttle ? throttle->client_id : 0;
}

#endif
