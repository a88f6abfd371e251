/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TTM contiguity-aware eviction: what the eviction path uses.
 */
#ifndef _TTM_WINDOW_INTERNAL_H_
#define _TTM_WINDOW_INTERNAL_H_

#include <linux/types.h>

struct dmem_cgroup_pool_state;
struct ttm_buffer_object;
struct ttm_operation_ctx;
struct ttm_place;
struct ttm_resource_manager;
struct ww_acquire_ctx;

/**
 * struct ttm_window_request - an allocation that found no contiguous room
 * @evictor: The BO to place.
 * @place: Where it is to go.
 * @ctx: The operation context of the allocation.
 * @ticket: The caller's ticket, or NULL: BOs locked with it are its own.
 * @limit_pool: The pool whose dmem.max held the charge back, or NULL.
 */
struct ttm_window_request {
	struct ttm_buffer_object *evictor;
	const struct ttm_place *place;
	struct ttm_operation_ctx *ctx;
	struct ww_acquire_ctx *ticket;
	struct dmem_cgroup_pool_state *limit_pool;
};

/**
 * struct ttm_window - a window chosen for eviction
 * @start: Its first byte in the manager.
 * @cost: Weighted cost of evicting what intersects it.
 * @size: Bytes of the resources that intersect it.
 * @lru_size: Bytes that eviction in LRU order would have taken before
 *	freeing any window, or 0 if it would free none.
 */
struct ttm_window {
	u64 start;
	u64 cost;
	u64 size;
	u64 lru_size;
};

bool ttm_window_find(struct ttm_resource_manager *man,
		     const struct ttm_window_request *req,
		     struct ttm_place *window);

#endif
