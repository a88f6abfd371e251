/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TTM eviction throttling: what TTM itself and its KUnit tests use.
 */
#ifndef _TTM_THROTTLE_INTERNAL_H_
#define _TTM_THROTTLE_INTERNAL_H_

#include <linux/ktime.h>

struct ttm_throttle;

void ttm_throttle_evicted(struct ttm_throttle *throttle,
			  const struct ttm_throttle *evictor);
bool ttm_throttle_spares(struct ttm_throttle *throttle,
			 const struct ttm_throttle *owner);

#if IS_ENABLED(CONFIG_KUNIT)
ktime_t ttm_throttle_now(void);
#endif

#endif
