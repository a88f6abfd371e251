/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TTM eviction throttling: the state of one client.
 */
#ifndef _TTM_THROTTLE_H_
#define _TTM_THROTTLE_H_

#include <linux/atomic.h>
#include <linux/types.h>

struct dentry;
struct ttm_device;
struct ttm_lru_bulk_move;

/**
 * enum ttm_throttle_state - what a client may do after losing memory
 * @TTM_THROTTLE_NORMAL: No restriction.
 * @TTM_THROTTLE_SOFT: The client may fill free memory, but evicts its own
 *	buffers first, and other clients' memory only for a buffer that has
 *	no other placement it can use.
 * @TTM_THROTTLE_HARD: As soft, and a buffer whose current resource the
 *	placement accepts as a fallback stays there, even if free memory it
 *	prefers is available.
 */
enum ttm_throttle_state {
	TTM_THROTTLE_NORMAL,
	TTM_THROTTLE_SOFT,
	TTM_THROTTLE_HARD,
};

/**
 * struct ttm_throttle_periods - how long each throttle state lasts
 * @hard_ms: Hard throttle after a client's memory was evicted, in ms.
 * @soft_ms: Soft throttle after hard throttle ends, in ms.
 *
 * Each &ttm_device has one, 0 until its driver sets it. Both 0 turn
 * throttling off.
 */
struct ttm_throttle_periods {
	unsigned int hard_ms;
	unsigned int soft_ms;
};

/**
 * struct ttm_throttle - the eviction throttle of one client
 * @periods: The periods that apply: the device's, unless the driver
 *	points a client at periods of its own. Read at every look at the
 *	state, so that a change applies at once.
 * @bulk: The client's LRU bulk move, which names the client's buffers.
 * @client_id: Names the client in tracepoints: the DRM client id.
 * @evicted_at: When the client last lost memory to eviction, as ktime, or
 *	0 if it never did.
 *
 * A driver embeds one per client, next to the client's LRU bulk move, and
 * passes it to validation in &ttm_operation_ctx.throttle. See the
 * "Eviction throttling" section of the TTM documentation.
 */
struct ttm_throttle {
	const struct ttm_throttle_periods *periods;
	struct ttm_lru_bulk_move *bulk;
	u64 client_id;
	atomic64_t evicted_at;
};

void ttm_throttle_init(struct ttm_throttle *throttle,
		       struct ttm_lru_bulk_move *bulk,
		       const struct ttm_throttle_periods *periods,
		       u64 client_id);
enum ttm_throttle_state ttm_throttle_get_state(struct ttm_throttle *throttle);
void ttm_throttle_debugfs_init(struct ttm_device *bdev, struct dentry *root);

#endif
