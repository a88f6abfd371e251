/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TTM eviction throttling: the state of one client.
 */
#ifndef _TTM_THROTTLE_H_
#define _TTM_THROTTLE_H_

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct dentry;
struct ttm_device;
struct ttm_lru_bulk_move;

/**
 * enum ttm_throttle_state - what a client may do after losing memory
 * @TTM_THROTTLE_NORMAL: No restriction.
 * @TTM_THROTTLE_SOFT: The client may fill free memory and evict other
 *	clients' memory, but not that of the clients that took its own,
 *	unless a buffer has no other placement it can use.
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
	u32 hard_ms;
	u32 soft_ms;
};

/* How many of the clients that took a client's memory it remembers. */
#define TTM_THROTTLE_EVICTORS 4

/**
 * struct ttm_throttle_evictor - a client that took a throttled client's
 * memory
 * @client_id: The evictor's &ttm_throttle.client_id, 0 for a free slot.
 * @evicted_at: When it last did, as ktime.
 */
struct ttm_throttle_evictor {
	u64 client_id;
	ktime_t evicted_at;
};

/**
 * struct ttm_throttle - the eviction throttle of one client
 * @periods: The periods that apply: the device's, unless the driver
 *	points a client at periods of its own. Read at every look at the
 *	state, so that a change applies at once.
 * @client_id: Names the client, to the clients it evicts and in
 *	tracepoints: the DRM client id, never 0. The throttles of one DRM
 *	file (xe's VMs of one file, say) share it, and so count as one
 *	evictor.
 * @evicted_at: When the client last lost memory to eviction, as ktime, or
 *	0 if it never did.
 * @lock: Protects @evictors. A leaf lock, taken with a BO's reservation
 *	or &ttm_device.lru_lock held, never the other way round.
 * @evictors: The clients that took the client's memory most recently,
 *	each for the hard and soft periods after it last did.
 *
 * A driver embeds one per client, next to the client's LRU bulk move, and
 * passes it to validation in &ttm_operation_ctx.throttle. See the
 * "Eviction throttling" section of the TTM documentation.
 */
struct ttm_throttle {
	const struct ttm_throttle_periods *periods;
	u64 client_id;
	atomic64_t evicted_at;
	spinlock_t lock; /* protects @evictors */
	struct ttm_throttle_evictor evictors[TTM_THROTTLE_EVICTORS];
};

void ttm_throttle_init(struct ttm_throttle *throttle,
		       struct ttm_lru_bulk_move *bulk,
		       const struct ttm_throttle_periods *periods,
		       u64 client_id);
enum ttm_throttle_state ttm_throttle_get_state(struct ttm_throttle *throttle);
void ttm_throttle_debugfs_init(struct ttm_device *bdev, struct dentry *root);

#endif
