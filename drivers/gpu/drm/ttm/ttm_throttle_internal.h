/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TTM eviction throttling: what TTM itself and its KUnit tests use.
 */
#ifndef _TTM_THROTTLE_INTERNAL_H_
#define _TTM_THROTTLE_INTERNAL_H_

#include <linux/ktime.h>

#include <drm/ttm/ttm_throttle.h>

/**
 * struct ttm_throttle_spare - the clients a throttled client keeps off
 * @client_id: The throttled client's own id.
 * @count: How many of @ids are set.
 * @ids: The ids of the clients that took its memory within the hard and
 *	soft periods before ttm_throttle_get_spare() filled this.
 */
struct ttm_throttle_spare {
	u64 client_id;
	unsigned int count;
	u64 ids[TTM_THROTTLE_EVICTORS];
};

void ttm_throttle_evicted(struct ttm_throttle *throttle,
			  const struct ttm_throttle *evictor);
void ttm_throttle_get_spare(struct ttm_throttle *throttle,
			    struct ttm_throttle_spare *spare);
bool ttm_throttle_spares(const struct ttm_throttle_spare *spare,
			 const struct ttm_throttle *owner);

#if IS_ENABLED(CONFIG_KUNIT)
ktime_t ttm_throttle_now(void);
#endif

#endif
