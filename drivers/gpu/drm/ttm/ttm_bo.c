/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/**************************************************************************
 *
 * Copyright (c) 2006-2009 VMware, Inc., Palo Alto, CA., USA
 * All Rights Reserved.
 *
 * Permission is hereby granted, free of charge, to any person obtaining a
 * copy of this software and associated documentation files (the
 * "Software"), to deal in the Software without restriction, including
 * without limitation the rights to use, copy, modify, merge, publish,
 * distribute, sub license, and/or sell copies of the Software, and to
 * permit persons to whom the Software is furnished to do so, subject to
 * the following conditions:
 *
 * The above copyright notice and this permission notice (including the
 * next paragraph) shall be included in all copies or substantial portions
 * of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NON-INFRINGEMENT. IN NO EVENT SHALL
 * THE COPYRIGHT HOLDERS, AUTHORS AND/OR ITS SUPPLIERS BE LIABLE FOR ANY CLAIM,
 * DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
 * OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE
 * USE OR OTHER DEALINGS IN THE SOFTWARE.
 *
 **************************************************************************/
/*
 * Authors: Thomas Hellstrom <thellstrom-at-vmware-dot-com>
 */

#define pr_fmt(fmt) "[TTM] " fmt

#include <drm/drm_print.h>
#include <drm/drm_util.h>
#include <drm/ttm/ttm_allocation.h>
#include <drm/drm_exec.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_throttle.h>
#include <drm/ttm/ttm_tt.h>

#include <linux/export.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/mm.h>
#include <linux/file.h>
#include <linux/module.h>
#include <linux/atomic.h>
#include <linux/cgroup_dmem.h>
#include <linux/dma-resv.h>

#include "ttm_module.h"
#include "ttm_throttle_internal.h"
#include "ttm_trace.h"
#include "ttm_bo_internal.h"

static void ttm_bo_mem_space_debug(struct ttm_buffer_object *bo,
					struct ttm_placement *placement)
{
	struct drm_printer p = drm_dbg_printer(NULL, DRM_UT_CORE, TTM_PFX);
	struct ttm_resource_manager *man;
	int i, mem_type;

	for (i = 0; i < placement->num_placement; i++) {
		mem_type = placement->placement[i].mem_type;
		drm_printf(&p, "  placement[%d]=0x%08X (%d)\n",
			   i, placement->placement[i].flags, mem_type);
		man = ttm_manager_type(bo->bdev, mem_type);
		ttm_resource_manager_debug(man, &p);
	}
}

/**
 * ttm_bo_move_to_lru_tail
 *
 * @bo: The buffer object.
 *
 * Move this BO to the tail of all lru lists used to lookup and reserve an
 * object. This function must be called with struct ttm_global::lru_lock
 * held, and is used to make a BO less likely to be considered for eviction.
 */
void ttm_bo_move_to_lru_tail(struct ttm_buffer_object *bo)
{
	dma_resv_assert_held(bo->base.resv);

	if (bo->resource)
		ttm_resource_move_to_lru_tail(bo->resource);
}
EXPORT_SYMBOL(ttm_bo_move_to_lru_tail);

/**
 * ttm_bo_set_bulk_move - update BOs bulk move object
 *
 * @bo: The buffer object.
 * @bulk: bulk move structure
 *
 * Update the BOs bulk move object, making sure that resources are added/removed
 * as well. A bulk move allows to move many resource on the LRU at once,
 * resulting in much less overhead of maintaining the LRU.
 * The only requirement is that the resources stay together on the LRU and are
 * never separated. This is enforces by setting the bulk_move structure on a BO.
 * ttm_lru_bulk_move_tail() should be used to move all resources to the tail of
 * their LRU list.
 *
 * Context: May sleep, to allocate the level ends of the range @bo's
 * resource joins when @bo's residency level is not NORMAL.
 */
void ttm_bo_set_bulk_move(struct ttm_buffer_object *bo,
			  struct ttm_lru_bulk_move *bulk)
{
	dma_resv_assert_held(bo->base.resv);

	if (bo->bulk_move == bulk)
		return;

	if (bulk && bo->resource && bo->residency != TTM_RESIDENCY_NORMAL)
		ttm_lru_bulk_move_need_levels(bo, bulk, bo->resource->mem_type);

	spin_lock(&bo->bdev->lru_lock);
	if (bo->resource)
		ttm_resource_del_bulk_move(bo->resource, bo);
	bo->bulk_move = bulk;
	if (bo->resource)
		ttm_resource_add_bulk_move(bo->resource, bo);
	spin_unlock(&bo->bdev->lru_lock);
}
EXPORT_SYMBOL(ttm_bo_set_bulk_move);

/**
 * ttm_bo_set_residency - set a BO's residency level inside its bulk move
 * @bo: The buffer object, reserved.
 * @residency: The new level. Callers check a level that comes from
 * userspace: an invalid one WARNs and changes nothing.
 *
 * Changing the level is not a use: the BO's resource goes to the front of
 * its new level in the bulk move, so that a BO set to a lower level is the
 * first of that level to go, and its next use moves it to the level's end.
 * Setting the level the BO has changes nothing. A BO outside a bulk move,
 * or pinned, keeps the level for when it joins one. ttm_bo_init_reserved()
 * starts every BO at %TTM_RESIDENCY_NORMAL.
 *
 * The first BO of a bulk move's range to leave NORMAL allocates where the
 * range's levels end; without memory, the range keeps LRU order.
 *
 * Context: May sleep; takes the LRU lock.
 */
void ttm_bo_set_residency(struct ttm_buffer_object *bo,
			  enum ttm_residency residency)
{
	dma_resv_assert_held(bo->base.resv);

	if (WARN_ON(residency >= TTM_NUM_RESIDENCY) ||
	    bo->residency == residency)
		return;

	if (bo->bulk_move && bo->resource && residency != TTM_RESIDENCY_NORMAL)
		ttm_lru_bulk_move_need_levels(bo, bo->bulk_move,
					      bo->resource->mem_type);

	spin_lock(&bo->bdev->lru_lock);
	bo->residency = residency;
	if (bo->resource)
		ttm_resource_change_level(bo->resource, bo);
	spin_unlock(&bo->bdev->lru_lock);
}
EXPORT_SYMBOL(ttm_bo_set_residency);

static int ttm_bo_handle_move_mem(struct ttm_buffer_object *bo,
				  struct ttm_resource *mem, bool evict,
				  struct ttm_operation_ctx *ctx,
				  struct ttm_place *hop)
{
	struct ttm_device *bdev = bo->bdev;
	u32 from = bo->resource ? bo->resource->mem_type : TTM_PL_SYSTEM;
	bool old_use_tt, new_use_tt;
	int ret;

	old_use_tt = !bo->resource || ttm_manager_type(bdev, bo->resource->mem_type)->use_tt;
	new_use_tt = ttm_manager_type(bdev, mem->mem_type)->use_tt;

	ttm_bo_unmap_virtual(bo);

	/*
	 * Create and bind a ttm if required.
	 */

	if (new_use_tt) {
		/* Zero init the new TTM structure if the old location should
		 * have used one as well.
		 */
		ret = ttm_tt_create(bo, old_use_tt);
		if (ret)
			goto out_err;

		if (mem->mem_type != TTM_PL_SYSTEM) {
			ret = ttm_bo_populate(bo, ctx);
			if (ret)
				goto out_err;
		}
	}

	ret = dma_resv_reserve_fences(bo->base.resv, 1);
	if (ret)
		goto out_err;

	ret = bdev->funcs->move(bo, evict, ctx, mem, hop);
	if (ret) {
		if (ret == -EMULTIHOP)
			return ret;
		goto out_err;
	}

	ctx->bytes_moved += bo->base.size;
	if (evict)
		trace_ttm_bo_evict(bo, from, mem->mem_type);
	else
		trace_ttm_bo_move(bo, from, mem->mem_type);
	return 0;

out_err:
	if (!old_use_tt)
		ttm_bo_tt_destroy(bo);

	return ret;
}

/*
 * Call bo::reserved.
 * Will release GPU memory type usage on destruction.
 * This is the place to put in driver specific hooks to release
 * driver private resources.
 * Will release the bo::reserved lock.
 */

static void ttm_bo_cleanup_memtype_use(struct ttm_buffer_object *bo)
{
	if (bo->bdev->funcs->delete_mem_notify)
		bo->bdev->funcs->delete_mem_notify(bo);

	ttm_bo_tt_destroy(bo);
	ttm_resource_free(bo, &bo->resource);
}

static int ttm_bo_individualize_resv(struct ttm_buffer_object *bo)
{
	int r;

	if (bo->base.resv == &bo->base._resv)
		return 0;

	BUG_ON(!dma_resv_trylock(&bo->base._resv));

	r = dma_resv_copy_fences(&bo->base._resv, bo->base.resv);
	dma_resv_unlock(&bo->base._resv);
	if (r)
		return r;

	if (bo->type != ttm_bo_type_sg) {
		/* This works because the BO is about to be destroyed and nobody
		 * reference it any more. The only tricky case is the trylock on
		 * the resv object while holding the lru_lock.
		 */
		spin_lock(&bo->bdev->lru_lock);
		bo->base.resv = &bo->base._resv;
		spin_unlock(&bo->bdev->lru_lock);
	}

	return r;
}

static void ttm_bo_flush_all_fences(struct ttm_buffer_object *bo)
{
	struct dma_resv *resv = &bo->base._resv;
	struct dma_resv_iter cursor;
	struct dma_fence *fence;

	dma_resv_iter_begin(&cursor, resv, DMA_RESV_USAGE_BOOKKEEP);
	dma_resv_for_each_fence_unlocked(&cursor, fence)
		dma_fence_enable_signaling(fence);
	dma_resv_iter_end(&cursor);
}

/*
 * Block for the dma_resv object to become idle, lock the buffer and clean up
 * the resource and tt object.
 */
static void ttm_bo_delayed_delete(struct work_struct *work)
{
	struct ttm_buffer_object *bo;

	bo = container_of(work, typeof(*bo), delayed_delete);

	dma_resv_wait_timeout(&bo->base._resv, DMA_RESV_USAGE_BOOKKEEP, false,
			      MAX_SCHEDULE_TIMEOUT);
	dma_resv_lock(bo->base.resv, NULL);
	ttm_bo_cleanup_memtype_use(bo);
	dma_resv_unlock(bo->base.resv);
	ttm_bo_put(bo);
}

static void ttm_bo_release(struct kref *kref)
{
	struct ttm_buffer_object *bo =
	    container_of(kref, struct ttm_buffer_object, kref);
	struct ttm_device *bdev = bo->bdev;
	int ret;

	WARN_ON_ONCE(bo->pin_count);
	WARN_ON_ONCE(bo->bulk_move);

	if (!bo->deleted) {
		ret = ttm_bo_individualize_resv(bo);
		if (ret) {
			/* Last resort, if we fail to allocate memory for the
			 * fences block for the BO to become idle
			 */
			dma_resv_wait_timeout(bo->base.resv,
					      DMA_RESV_USAGE_BOOKKEEP, false,
					      30 * HZ);
		}

		if (bdev->funcs->release_notify)
			bdev->funcs->release_notify(bo);

		drm_vma_offset_remove(bdev->vma_manager, &bo->base.vma_node);
		ttm_mem_io_free(bdev, bo->resource);

		if (!dma_resv_test_signaled(&bo->base._resv,
					    DMA_RESV_USAGE_BOOKKEEP) ||
		    (want_init_on_free() && (bo->ttm != NULL)) ||
		    bo->type == ttm_bo_type_sg ||
		    !dma_resv_trylock(bo->base.resv)) {
			/* The BO is not idle, resurrect it for delayed destroy */
			ttm_bo_flush_all_fences(bo);
			bo->deleted = true;

			spin_lock(&bdev->lru_lock);

			/*
			 * Make pinned bos immediately available to
			 * shrinkers, now that they are queued for
			 * destruction.
			 *
			 * FIXME: QXL is triggering this. Can be removed when the
			 * driver is fixed.
			 */
			if (bo->pin_count) {
				bo->pin_count = 0;
				ttm_resource_move_to_lru_tail(bo->resource);
			}

			kref_init(&bo->kref);
			spin_unlock(&bdev->lru_lock);

			INIT_WORK(&bo->delayed_delete, ttm_bo_delayed_delete);

			/* Schedule the worker on the closest NUMA node. This
			 * improves performance since system memory might be
			 * cleared on free and that is best done on a CPU core
			 * close to it.
			 */
			queue_work_node(bdev->pool.nid, bdev->wq, &bo->delayed_delete);
			return;
		}

		ttm_bo_cleanup_memtype_use(bo);
		dma_resv_unlock(bo->base.resv);
	}

	atomic_dec(&ttm_glob.bo_count);
	bo->destroy(bo);
}

/* TODO: remove! */
void ttm_bo_put(struct ttm_buffer_object *bo)
{
	kref_put(&bo->kref, ttm_bo_release);
}

void ttm_bo_fini(struct ttm_buffer_object *bo)
{
	ttm_bo_put(bo);
}
EXPORT_SYMBOL(ttm_bo_fini);

static int ttm_bo_bounce_temp_buffer(struct ttm_buffer_object *bo,
				     struct ttm_operation_ctx *ctx,
				     struct ttm_place *hop)
{
	struct ttm_placement hop_placement;
	struct ttm_resource *hop_mem;
	int ret;

	hop_placement.num_placement = 1;
	hop_placement.placement = hop;

	/* find space in the bounce domain */
	ret = ttm_bo_mem_space(bo, &hop_placement, &hop_mem, ctx);
	if (ret)
		return ret;
	/* move to the bounce domain */
	ret = ttm_bo_handle_move_mem(bo, hop_mem, false, ctx, NULL);
	if (ret) {
		ttm_resource_free(bo, &hop_mem);
		return ret;
	}
	return 0;
}

/*
 * A signal, or contention the caller backs off from, ends an eviction or a
 * validation with nothing to report.
 */
static bool ttm_bo_error_is_expected(int ret)
{
	return ret == -ERESTARTSYS || ret == -EINTR || ret == -EDEADLK;
}

static int ttm_bo_evict(struct ttm_buffer_object *bo,
			struct ttm_operation_ctx *ctx)
{
	struct ttm_resource *evict_mem;
	struct ttm_placement placement;
	struct ttm_place hop;
	int ret = 0;

	memset(&hop, 0, sizeof(hop));

	dma_resv_assert_held(bo->base.resv);

	placement.num_placement = 0;
	bo->bdev->funcs->evict_flags(bo, &placement);

	if (!placement.num_placement) {
		ret = ttm_bo_wait_ctx(bo, ctx);
		if (ret)
			return ret;

		/*
		 * Since we've already synced, this frees backing store
		 * immediately.
		 */
		return ttm_bo_pipeline_gutting(bo);
	}

	ret = ttm_bo_mem_space(bo, &placement, &evict_mem, ctx);
	if (ret) {
		if (!ttm_bo_error_is_expected(ret)) {
			pr_err("Failed to find memory space for buffer 0x%p eviction\n",
			       bo);
			ttm_bo_mem_space_debug(bo, &placement);
		}
		goto out;
	}

	do {
		ret = ttm_bo_handle_move_mem(bo, evict_mem, true, ctx, &hop);
		if (ret != -EMULTIHOP)
			break;

		ret = ttm_bo_bounce_temp_buffer(bo, ctx, &hop);
	} while (!ret);

	if (ret) {
		ttm_resource_free(bo, &evict_mem);
		if (!ttm_bo_error_is_expected(ret))
			pr_err("Buffer eviction failed\n");
	}
out:
	return ret;
}

/**
 * ttm_bo_eviction_valuable
 *
 * @bo: The buffer object to evict
 * @place: the placement we need to make room for
 *
 * Check if it is valuable to evict the BO to make room for the given placement.
 */
bool ttm_bo_eviction_valuable(struct ttm_buffer_object *bo,
			      const struct ttm_place *place)
{
	struct ttm_resource *res = bo->resource;

	dma_resv_assert_held(bo->base.resv);

	if (res->mem_type == TTM_PL_SYSTEM)
		return true;

	/* Don't evict this BO if it's outside of the
	 * requested placement range
	 */
	return ttm_resource_intersects(bo->bdev, res, place, bo->base.size);
}
EXPORT_SYMBOL(ttm_bo_eviction_valuable);

/**
 * ttm_bo_evict_first() - Evict the first bo on the manager's LRU list.
 * @bdev: The ttm device.
 * @man: The manager whose bo to evict.
 * @ctx: The TTM operation ctx governing the eviction.
 *
 * Return: 0 if successful or the resource disappeared. Negative error code on error.
 */
int ttm_bo_evict_first(struct ttm_device *bdev, struct ttm_resource_manager *man,
		       struct ttm_operation_ctx *ctx)
{
	struct ttm_resource_cursor cursor;
	struct ttm_buffer_object *bo;
	struct ttm_resource *res;
	unsigned int mem_type;
	int ret = 0;

	spin_lock(&bdev->lru_lock);
	ttm_resource_cursor_init(&cursor, man);
	res = ttm_resource_manager_first(&cursor);
	ttm_resource_cursor_fini(&cursor);
	if (!res) {
		ret = -ENOENT;
		goto out_no_ref;
	}
	bo = res->bo;
	if (!ttm_bo_get_unless_zero(bo))
		goto out_no_ref;
	mem_type = res->mem_type;
	spin_unlock(&bdev->lru_lock);
	ret = ttm_bo_reserve(bo, ctx->interruptible, ctx->no_wait_gpu, NULL);
	if (ret)
		goto out_no_lock;
	if (!bo->resource || bo->resource->mem_type != mem_type)
		goto out_bo_moved;

	if (bo->deleted) {
		ret = ttm_bo_wait_ctx(bo, ctx);
		if (!ret)
			ttm_bo_cleanup_memtype_use(bo);
	} else {
		ret = ttm_bo_evict(bo, ctx);
	}
out_bo_moved:
	dma_resv_unlock(bo->base.resv);
out_no_lock:
	ttm_bo_put(bo);
	return ret;

out_no_ref:
	spin_unlock(&bdev->lru_lock);
	return ret;
}

struct ttm_bo_alloc_state {
	/** @charge_pool: The memory pool the resource is charged to */
	struct dmem_cgroup_pool_state *charge_pool;
	/** @limit_pool: Which pool limit we should test against */
	struct dmem_cgroup_pool_state *limit_pool;
	/** @in_evict: Whether we are currently evicting buffers */
	bool in_evict;
	/** @may_try_low: If only unprotected BOs, i.e. BOs whose cgroup
	 *  is exceeding its dmem low/min protection, should be considered for eviction
	 */
	bool may_try_low;
	/**
	 * @spare: If set, the client allocating is throttled: evict no BO of
	 * the clients that took its memory, which this names.
	 */
	const struct ttm_throttle_spare *spare;
	/** @spared: Eviction left a BO alone for @spare. */
	bool spared;
};

/**
 * ttm_bo_alloc_at_place - Attempt allocating a BO's backing store in a place
 *
 * @bo: The buffer to allocate the backing store of
 * @place: The place to attempt allocation in
 * @ctx: ttm_operation_ctx associated with this allocation
 * @force_space: If we should evict buffers to force space
 * @res: On allocation success, the resulting struct ttm_resource.
 * @alloc_state: Object holding allocation state such as charged cgroups.
 *
 * Returns:
 * -EBUSY: No space available, but allocation should be retried with ttm_bo_evict_alloc.
 * -ENOSPC: No space available, allocation should not be retried.
 * -ERESTARTSYS: An interruptible sleep was interrupted by a signal.
 *
 */
static int ttm_bo_alloc_at_place(struct ttm_buffer_object *bo,
				 const struct ttm_place *place,
				 bool force_space,
				 struct ttm_resource **res,
				 struct ttm_bo_alloc_state *alloc_state)
{
	bool may_evict;
	int ret;

	may_evict = !alloc_state->in_evict && force_space &&
		    place->mem_type != TTM_PL_SYSTEM;
	if (!alloc_state->charge_pool) {
		ret = ttm_resource_try_charge(bo, place, &alloc_state->charge_pool,
					      force_space ? &alloc_state->limit_pool
							  : NULL);
		if (ret) {
			/*
			 * -EAGAIN means the charge failed, which we treat
			 * like an allocation failure. Therefore, return an
			 * error code indicating the allocation failed -
			 * either -EBUSY if the allocation should be
			 * retried with eviction, or -ENOSPC if there should
			 * be no second attempt.
			 */
			if (!alloc_state->in_evict)
				alloc_state->may_try_low = may_evict;
			if (ret == -EAGAIN)
				ret = may_evict ? -EBUSY : -ENOSPC;
			return ret;
		}
	}

	/*
	 * cgroup protection plays a special role in eviction.
	 * Conceptually, protection of memory via the dmem cgroup controller
	 * entitles the protected cgroup to use a certain amount of memory.
	 * There are two types of protection - the 'low' limit is a
	 * "best-effort" protection, whereas the 'min' limit provides a hard
	 * guarantee that memory within the cgroup's allowance will not be
	 * evicted under any circumstance.
	 *
	 * To faithfully model this concept in TTM, we also need to take cgroup
	 * protection into account when allocating. When allocation in one
	 * place fails, TTM will default to trying other places first before
	 * evicting.
	 * If the allocation is covered by dmem cgroup protection, however,
	 * this prevents the allocation from using the memory it is "entitled"
	 * to. To make sure unprotected allocations cannot push new protected
	 * allocations out of places they are "entitled" to use, we should
	 * evict buffers not covered by any cgroup protection, if this
	 * allocation is covered by cgroup protection.
	 *
	 * Buffers covered by 'min' protection are a special case - the 'min'
	 * limit is a stronger guarantee than 'low', and thus buffers protected
	 * by 'low' but not 'min' should also be considered for eviction.
	 * Buffers protected by 'min' will never be considered for eviction
	 * anyway, so the regular eviction path should be triggered here.
	 * Buffers protected by 'low' but not 'min' will take a special
	 * eviction path that only evicts buffers covered by neither 'low' or
	 * 'min' protections.
	 */
	if (!alloc_state->in_evict) {
		may_evict |= dmem_cgroup_below_min(NULL, alloc_state->charge_pool);
		alloc_state->may_try_low = may_evict;

		may_evict |= dmem_cgroup_below_low(NULL, alloc_state->charge_pool);
	}

	ret = ttm_resource_alloc(bo, place, res, alloc_state->charge_pool);
	if (ret) {
		if (ret == -ENOSPC && may_evict)
			ret = -EBUSY;
		return ret;
	}

	/*
	 * Ownership of charge_pool has been transferred to the TTM resource,
	 * don't make the caller think we still hold a reference to it.
	 */
	alloc_state->charge_pool = NULL;
	return 0;
}

/**
 * struct ttm_bo_evict_walk - Parameters for the evict walk.
 */
struct ttm_bo_evict_walk {
	/** @walk: The walk base parameters. */
	struct ttm_lru_walk walk;
	/** @place: The place passed to the resource allocation. */
	const struct ttm_place *place;
	/** @victims: Where victims must lie: @place, or a range in it. */
	const struct ttm_place *victims;
	/** @evictor: The buffer object we're trying to make room for. */
	struct ttm_buffer_object *evictor;
	/** @res: The allocated resource if any. */
	struct ttm_resource **res;
	/** @evicted: Number of successful evictions. */
	unsigned long evicted;
	/**
	 * @refused: The resource of a BO in @victims that the driver refused
	 * to evict, found by a range's check; only compared.
	 */
	struct ttm_resource *refused;

	/** @try_low: Whether we should attempt to evict BO's with low watermark threshold */
	bool try_low;
	/** @hit_low: If we cannot evict a bo when @try_low is false (first pass) */
	bool hit_low;

	/** @alloc_state: State associated with the allocation attempt. */
	struct ttm_bo_alloc_state *alloc_state;
};

/*
 * Allocate the evictor's resource in space the walk saw freed: 1 on
 * success, 0 to walk on, or an error that ends the walk.
 */
static s64 ttm_bo_evict_walk_alloc(struct ttm_bo_evict_walk *evict_walk)
{
	int ret;

	ret = ttm_bo_alloc_at_place(evict_walk->evictor, evict_walk->place,
				    false, evict_walk->res,
				    evict_walk->alloc_state);
	if (ret == -ENOSPC || ret == -EBUSY)
		return 0;

	return ret ? ret : 1;
}

/*
 * Taking a client's memory to make room for someone else throttles the
 * client, which remembers the evictor. A BO that shares the reservation the
 * evictor holds is the evictor's own, whether or not it passed its
 * throttle.
 */
static void ttm_bo_throttle_victim(struct ttm_operation_ctx *ctx,
				   struct ttm_buffer_object *bo)
{
	struct ttm_throttle *victim = ttm_bo_owner_throttle(bo);

	if (!victim || victim == ctx->throttle ||
	    (ctx->throttle && ctx->throttle->client_id == victim->client_id) ||
	    (ctx->resv && ctx->resv == bo->base.resv))
		return;

	ttm_throttle_evicted(victim, ctx->throttle);
	trace_ttm_throttle_start(victim, ctx->throttle);
}

/*
 * Whether the eviction walk takes @bo, which it holds locked: not if a
 * throttled evictor spares its owner, if the dmem cgroups protect it from
 * this allocation, if it is pinned, or if the driver refuses it. With
 * @check, for a check ahead of the eviction, the driver is asked through
 * its eviction_check, if it has one.
 */
static bool ttm_bo_evict_walk_takes(struct ttm_bo_evict_walk *evict_walk,
				    struct ttm_buffer_object *bo, bool check)
{
	const struct ttm_device_funcs *funcs = bo->bdev->funcs;
	struct dmem_cgroup_pool_state *limit_pool, *ancestor = NULL;
	bool evict_valuable;

	/*
	 * A throttled client keeps off the memory of those that took its own,
	 * but for what is being freed anyway.
	 */
	if (evict_walk->alloc_state->spare && !bo->deleted &&
	    ttm_throttle_spares(evict_walk->alloc_state->spare,
				ttm_bo_owner_throttle(bo))) {
		evict_walk->alloc_state->spared = true;
		return false;
	}

	/*
	 * If may_try_low is not set, then we're trying to evict unprotected
	 * buffers in favor of a protected allocation for charge_pool. Explicitly skip
	 * buffers belonging to the same cgroup here - that cgroup is definitely protected,
	 * even though dmem_cgroup_state_evict_valuable would allow the eviction because a
	 * cgroup is always allowed to evict from itself even if it is protected.
	 */
	if (!evict_walk->alloc_state->may_try_low &&
			bo->resource->css == evict_walk->alloc_state->charge_pool)
		return false;

	limit_pool = evict_walk->alloc_state->limit_pool;
	/*
	 * If there is no explicit limit pool, find the root of the shared subtree between
	 * evictor and evictee. This is important so that recursive protection rules can
	 * apply properly: Recursive protection distributes cgroup protection afforded
	 * to a parent cgroup but not used explicitly by a child cgroup between all child
	 * cgroups (see docs of effective_protection in mm/page_counter.c). However, when
	 * direct siblings compete for memory, siblings that were explicitly protected
	 * should get prioritized over siblings that weren't. This only happens correctly
	 * when the root of the shared subtree is passed to
	 * dmem_cgroup_state_evict_valuable. Otherwise, the effective-protection
	 * calculation cannot distinguish direct siblings from unrelated subtrees and the
	 * calculated protection ends up wrong.
	 */
	if (!limit_pool) {
		ancestor = dmem_cgroup_get_common_ancestor(bo->resource->css,
							   evict_walk->alloc_state->charge_pool);
		limit_pool = ancestor;
	}

	evict_valuable = dmem_cgroup_state_evict_valuable(limit_pool, bo->resource->css,
							  evict_walk->try_low,
							  &evict_walk->hit_low);
	if (ancestor)
		dmem_cgroup_pool_state_put(ancestor);

	if (!evict_valuable)
		return false;

	/*
	 * evict_walk->victims is NULL in cgroup drain mode.  Drivers'
	 * eviction_valuable() callbacks must handle a NULL place, treating it
	 * as "any placement": the TTM base implementation already does so via
	 * ttm_resource_intersects().
	 */
	if (bo->pin_count)
		return false;
	if (check && funcs->eviction_check)
		return funcs->eviction_check(bo, evict_walk->victims);
	return funcs->eviction_valuable(bo, evict_walk->victims);
}

static s64 ttm_bo_evict_cb(struct ttm_lru_walk *walk, struct ttm_buffer_object *bo)
{
	struct ttm_bo_evict_walk *evict_walk =
		container_of(walk, typeof(*evict_walk), walk);
	s64 bo_size = bo->base.size;
	s64 lret;

	if (!ttm_bo_evict_walk_takes(evict_walk, bo, false))
		return 0;

	if (bo->deleted) {
		lret = ttm_bo_wait_ctx(bo, walk->arg.ctx);
		if (!lret)
			ttm_bo_cleanup_memtype_use(bo);
	} else {
		lret = ttm_bo_evict(bo, walk->arg.ctx);
		if (!lret && evict_walk->res)
			ttm_bo_throttle_victim(walk->arg.ctx, bo);
	}

	if (lret)
		goto out;

	evict_walk->evicted++;
	if (evict_walk->res)
		return ttm_bo_evict_walk_alloc(evict_walk);

	/* Cgroup drain: return bytes freed for byte-denominated progress. */
	return bo_size;
out:
	/* Errors that should terminate the walk. */
	if (lret == -ENOSPC)
		return -EBUSY;

	return lret;
}

static const struct ttm_lru_walk_ops ttm_evict_walk_ops = {
	.process_bo = ttm_bo_evict_cb,
};

/*
 * Ask about each BO in a range what the eviction will ask, before any is
 * evicted: one that the cgroups protect or the driver refuses would lose
 * the range after the others had gone. The walk visits only the range's
 * BOs. 1 ends the walk.
 */
static s64 ttm_bo_evict_window_check_cb(struct ttm_lru_walk *walk,
					struct ttm_buffer_object *bo)
{
	struct ttm_bo_evict_walk *evict_walk =
		container_of(walk, typeof(*evict_walk), walk);

	if (ttm_bo_evict_walk_takes(evict_walk, bo, true))
		return 0;

	evict_walk->refused = bo->resource;
	return 1;
}

static const struct ttm_lru_walk_ops ttm_evict_window_check_ops = {
	.process_bo = ttm_bo_evict_window_check_cb,
};

/*
 * Eviction locks through the caller's drm_exec only when the BO being placed
 * is locked by that transaction. An exec that is contended already belongs
 * to a caller that swallowed -EDEADLK: locking through it would slow-lock
 * the contended object with other locks held. One whose locking loop has
 * ended can neither lock nor back off. Neither is used.
 */
static struct drm_exec *ttm_bo_evict_exec(struct ttm_operation_ctx *ctx,
					  struct ww_acquire_ctx *ticket)
{
	if (!ctx->exec || ticket != drm_exec_ticket(ctx->exec))
		return NULL;

	if (WARN_ON_ONCE(drm_exec_is_contended(ctx->exec) ||
			 drm_exec_all_locked(ctx->exec)))
		return NULL;

	return ctx->exec;
}

/*
 * A contiguous allocation first frees the range its manager finds cheapest;
 * see "Contiguity-aware eviction". The walks visit only the range's
 * resources, and only trylock: a buffer in it that another holds is
 * refused as the driver's refusals are, before anything is evicted, and
 * no buffer outside it is locked.
 */
/* Not inlined: its pool cache would stay on the stack through the walks. */
static noinline_for_stack s64
ttm_bo_evict_window(struct ttm_bo_evict_walk *evict_walk,
		    struct ttm_resource_manager *man)
{
	struct ttm_bo_alloc_state *state = evict_walk->alloc_state;
	const struct ttm_place *place = evict_walk->place;
	struct ttm_evict_window_pools pools = { };
	struct ttm_evict_window_request req = {
		.place = place,
		.evictor = evict_walk->evictor,
		.ctx = evict_walk->walk.arg.ctx,
		.ticket = evict_walk->walk.arg.ticket,
		.charge_pool = state->charge_pool,
		.may_try_low = state->may_try_low,
		.pools = &pools,
		.spare = state->spare,
	};
	struct ttm_evict_window found = { };
	struct ttm_place window;
	s64 lret = 0;

	/* Under a dmem.max, the cgroup lacks room, not the manager a range. */
	if (!(place->flags & TTM_PL_FLAG_CONTIGUOUS) ||
	    !man->func->evict_window || !ttm_evict_window_enabled() ||
	    state->limit_pool)
		return 0;

	/* The first pass's settings: trylock only, dmem.low respected. */
	evict_walk->victims = &window;
	evict_walk->walk.arg.trylock_only = true;
	while (man->func->evict_window(man, &req, &found)) {
		trace_ttm_evict_window(req.evictor, place->mem_type,
				       found.start, found.size, found.cost);
		window = *place;
		window.fpfn = found.start >> PAGE_SHIFT;
		window.lpfn = (found.start + found.size) >> PAGE_SHIFT;

		evict_walk->refused = NULL;
		evict_walk->walk.arg.range = &window;
		evict_walk->walk.arg.range_left = found.resources;
		evict_walk->walk.arg.busy = NULL;
		evict_walk->walk.ops = &ttm_evict_window_check_ops;
		lret = ttm_lru_walk_for_evict(&evict_walk->walk, man->bdev, man,
					      1);
		evict_walk->walk.ops = &ttm_evict_walk_ops;
		if (lret < 0)
			break;

		/* A BO that another holds would keep the range from freeing. */
		if (!evict_walk->refused)
			evict_walk->refused = evict_walk->walk.arg.busy;

		if (!evict_walk->refused) {
			evict_walk->walk.arg.range_left = found.resources;
			lret = ttm_lru_walk_for_evict(&evict_walk->walk,
						      man->bdev, man, 1);
			break;
		}

		lret = 0;
		if (req.num_refused == ARRAY_SIZE(req.refused))
			break;
		req.refused[req.num_refused++] = evict_walk->refused;
	}
	evict_walk->walk.arg.range = NULL;
	evict_walk->victims = place;
	evict_walk->hit_low = false;
	return lret;
}

static int ttm_bo_evict_alloc(struct ttm_device *bdev,
			      struct ttm_resource_manager *man,
			      const struct ttm_place *place,
			      struct ttm_buffer_object *evictor,
			      struct ttm_operation_ctx *ctx,
			      struct ww_acquire_ctx *ticket,
			      struct ttm_resource **res,
			      struct ttm_bo_alloc_state *state)
{
	struct ttm_bo_evict_walk evict_walk = {
		.walk = {
			.ops = &ttm_evict_walk_ops,
			.arg = {
				.ctx = ctx,
				.ticket = ticket,
			}
		},
		.place = place,
		.victims = place,
		.evictor = evictor,
		.res = res,
		.alloc_state = state,
	};
	struct drm_exec *exec = ttm_bo_evict_exec(ctx, ticket);
	s64 lret;

	if (exec) {
		evict_walk.walk.arg.exec = exec;
		evict_walk.walk.arg.exec_checkpoint = drm_exec_checkpoint(exec);
	}
	state->in_evict = true;

	evict_walk.walk.arg.trylock_only = true;
	lret = ttm_bo_evict_window(&evict_walk, man);
	if (lret)
		goto out;

	lret = ttm_lru_walk_for_evict(&evict_walk.walk, bdev, man, 1);

	/* If we failed to find enough BOs to evict, but we skipped over
	 * some BOs because they were covered by dmem low protection, retry
	 * evicting these protected BOs too, except if we're told not to
	 * consider protected BOs at all.
	 */
	if (!lret && evict_walk.hit_low && state->may_try_low) {
		evict_walk.try_low = true;
		lret = ttm_lru_walk_for_evict(&evict_walk.walk, bdev, man, 1);
	}
	if (lret || !ticket)
		goto out;

	/* Reset low limit */
	evict_walk.try_low = evict_walk.hit_low = false;
	/* If ticket-locking, repeat while making progress. */
	evict_walk.walk.arg.trylock_only = false;

retry:
	do {
		/* The walk may clear the evict_walk.walk.ticket field */
		evict_walk.walk.arg.ticket = ticket;
		evict_walk.walk.arg.moved_meanwhile = 0;
		evict_walk.evicted = 0;
		lret = ttm_lru_walk_for_evict(&evict_walk.walk, bdev, man, 1);
		/* Owners that moved victims we slept on freed space: try it. */
		if (!lret && evict_walk.walk.arg.moved_meanwhile)
			lret = ttm_bo_evict_walk_alloc(&evict_walk);
	} while (!lret && (evict_walk.evicted ||
			   evict_walk.walk.arg.moved_meanwhile));

	/* We hit the low limit? Try once more */
	if (!lret && evict_walk.hit_low && !evict_walk.try_low &&
			state->may_try_low) {
		evict_walk.try_low = true;
		goto retry;
	}
out:
	/* The victims are no longer needed locked once the space is ours. */
	if (exec)
		drm_exec_unlock_since(exec, evict_walk.walk.arg.exec_checkpoint);
	state->in_evict = false;
	if (lret < 0)
		return lret;
	if (lret == 0)
		return -EBUSY;
	return 0;
}

/**
 * ttm_bo_evict_cgroup() - Evict buffer objects charged to a specific cgroup.
 * @bdev: The TTM device.
 * @man: The resource manager whose LRU to walk.
 * @limit_pool: The cgroup pool state whose members should be evicted.
 * @target_bytes: Number of bytes to free.
 * @ctx: The TTM operation context.
 *
 * Walk the LRU of @man and evict buffer objects that are charged to the
 * cgroup identified by @limit_pool, until at least @target_bytes have been
 * freed.  Mirrors the two-pass (trylock -> sleeping-lock, low-watermark)
 * strategy used by ttm_bo_evict_alloc().
 *
 * Return: >= @target_bytes on full success, 0..target_bytes-1 if partial,
 *         negative error code on fatal error.
 */
s64 ttm_bo_evict_cgroup(struct ttm_device *bdev,
			struct ttm_resource_manager *man,
			struct dmem_cgroup_pool_state *limit_pool,
			s64 target_bytes,
			struct ttm_operation_ctx *ctx)
{
	struct ttm_bo_evict_walk evict_walk = {
		.walk = {
			.ops = &ttm_evict_walk_ops,
			.arg = { .ctx = ctx },
		},
		.alloc_state = &(struct ttm_bo_alloc_state) {
			.limit_pool = limit_pool,
			.in_evict = true,
		},
		/* place, evictor, res left NULL: selects cgroup drain mode */
	};
	s64 lret, pass;

	evict_walk.walk.arg.trylock_only = true;
	lret = ttm_lru_walk_for_evict(&evict_walk.walk, bdev, man, target_bytes);
	if (lret < 0 || lret >= target_bytes)
		return lret;

	/* Second pass: also evict BOs at the low watermark. */
	if (evict_walk.hit_low) {
		evict_walk.try_low = true;
		pass = ttm_lru_walk_for_evict(&evict_walk.walk, bdev, man,
					      target_bytes - lret);
		if (pass < 0)
			return pass;
		lret += pass;
		if (lret >= target_bytes)
			return lret;
	}

	/* Full sleeping-lock pass for remaining target. */
	evict_walk.try_low = evict_walk.hit_low = false;
	evict_walk.walk.arg.trylock_only = false;

retry:
	evict_walk.walk.arg.sleeping_lock = true;
	do {
		evict_walk.evicted = 0;
		pass = ttm_lru_walk_for_evict(&evict_walk.walk, bdev, man,
					      target_bytes - lret);
		if (pass < 0) {
			lret = pass;
			goto out;
		}
		lret += pass;
	} while (lret < target_bytes && evict_walk.evicted);

	/* One more attempt if we hit the low limit during sleeping-lock pass. */
	if (lret < target_bytes && evict_walk.hit_low && !evict_walk.try_low) {
		evict_walk.try_low = true;
		goto retry;
	}

out:
	return lret;
}
EXPORT_SYMBOL(ttm_bo_evict_cgroup);

/**
 * ttm_bo_pin - Pin the buffer object.
 * @bo: The buffer object to pin
 *
 * Make sure the buffer is not evicted any more during memory pressure.
 * @bo must be unpinned again by calling ttm_bo_unpin().
 */
void ttm_bo_pin(struct ttm_buffer_object *bo)
{
	dma_resv_assert_held(bo->base.resv);
	WARN_ON_ONCE(!kref_read(&bo->kref));
	spin_lock(&bo->bdev->lru_lock);
	if (bo->resource)
		ttm_resource_del_bulk_move(bo->resource, bo);
	if (!bo->pin_count++ && bo->resource)
		ttm_resource_move_to_lru_tail(bo->resource);
	spin_unlock(&bo->bdev->lru_lock);
}
EXPORT_SYMBOL(ttm_bo_pin);

/**
 * ttm_bo_unpin - Unpin the buffer object.
 * @bo: The buffer object to unpin
 *
 * Allows the buffer object to be evicted again during memory pressure.
 */
void ttm_bo_unpin(struct ttm_buffer_object *bo)
{
	dma_resv_assert_held(bo->base.resv);
	WARN_ON_ONCE(!kref_read(&bo->kref));
	if (WARN_ON_ONCE(!bo->pin_count))
		return;

	spin_lock(&bo->bdev->lru_lock);
	if (!--bo->pin_count && bo->resource) {
		ttm_resource_add_bulk_move(bo->resource, bo);
		ttm_resource_move_to_lru_tail(bo->resource);
	}
	spin_unlock(&bo->bdev->lru_lock);
}
EXPORT_SYMBOL(ttm_bo_unpin);

/*
 * Add the pipelined eviction fencesto the BO as kernel dependency and reserve new
 * fence slots.
 */
static int ttm_bo_add_pipelined_eviction_fences(struct ttm_buffer_object *bo,
						struct ttm_resource_manager *man,
						bool no_wait_gpu)
{
	struct dma_fence *fence;
	int i;

	spin_lock(&man->eviction_lock);
	for (i = 0; i < TTM_NUM_MOVE_FENCES; i++) {
		fence = man->eviction_fences[i];
		if (!fence)
			continue;

		if (no_wait_gpu) {
			if (!dma_fence_is_signaled(fence)) {
				spin_unlock(&man->eviction_lock);
				return -EBUSY;
			}
		} else {
			dma_resv_add_fence(bo->base.resv, fence, DMA_RESV_USAGE_KERNEL);
		}
	}
	spin_unlock(&man->eviction_lock);

	/* TODO: this call should be removed. */
	return dma_resv_reserve_fences(bo->base.resv, 1);
}

/*
 * Tries each placement in turn; see ttm_bo_alloc_resource(). With @spare set,
 * eviction takes no BO of the clients it names, and a placement reached after
 * one where it spared some is reported as kept.
 */
static int ttm_bo_alloc_in_placement(struct ttm_buffer_object *bo,
				     struct ttm_placement *placement,
				     struct ttm_operation_ctx *ctx,
				     struct ww_acquire_ctx *ticket,
				     bool force_space,
				     const struct ttm_throttle_spare *spare,
				     struct ttm_resource **res)
{
	struct ttm_device *bdev = bo->bdev;
	bool spared = false;
	int i, ret;

	for (i = 0; i < placement->num_placement; ++i) {
		const struct ttm_place *place = &placement->placement[i];
		struct ttm_bo_alloc_state alloc_state = { .spare = spare };
		struct ttm_resource_manager *man;

		man = ttm_manager_type(bdev, place->mem_type);
		if (!man || !ttm_resource_manager_used(man))
			continue;

		if (place->flags & (force_space ? TTM_PL_FLAG_DESIRED :
				    TTM_PL_FLAG_FALLBACK))
			continue;

		ret = ttm_bo_alloc_at_place(bo, place, force_space, res,
					    &alloc_state);

		if (ret == -ENOSPC) {
			dmem_cgroup_uncharge(alloc_state.charge_pool, bo->base.size);
			dmem_cgroup_pool_state_put(alloc_state.limit_pool);
			continue;
		} else if (ret == -EBUSY) {
			ret = ttm_bo_evict_alloc(bdev, man, place, bo, ctx,
						 ticket, res, &alloc_state);

			dmem_cgroup_pool_state_put(alloc_state.limit_pool);

			if (ret) {
				dmem_cgroup_uncharge(alloc_state.charge_pool,
						bo->base.size);
				spared |= alloc_state.spared;
				if (ret == -EBUSY)
					continue;
				return ret;
			}
		} else if (ret) {
			dmem_cgroup_uncharge(alloc_state.charge_pool, bo->base.size);
			dmem_cgroup_pool_state_put(alloc_state.limit_pool);
			return ret;
		}

		ret = ttm_bo_add_pipelined_eviction_fences(bo, man, ctx->no_wait_gpu);
		if (unlikely(ret)) {
			ttm_resource_free(bo, res);
			if (ret == -EBUSY)
				continue;

			return ret;
		}
		if (spared)
			ctx->throttle_kept = true;
		return 0;
	}

	return -ENOSPC;
}

/**
 * ttm_bo_alloc_resource - Allocate backing store for a BO
 *
 * @bo: Pointer to a struct ttm_buffer_object of which we want a resource for
 * @placement: Proposed new placement for the buffer object
 * @ctx: if and how to sleep, lock buffers and alloc memory
 * @force_space: If we should evict buffers to force space
 * @spare: The clients that took the memory of the client allocating, if it
 * is throttled, else NULL.
 * @res: The resulting struct ttm_resource.
 *
 * Allocates a resource for the buffer object pointed to by @bo, using the
 * placement flags in @placement, potentially evicting other buffer objects when
 * @force_space is true.
 * With @spare and @force_space, eviction first spares the clients @spare
 * names, over every placement; only if no placement can be had that way
 * does eviction take their memory too. BOs evicted before that was clear
 * stay evicted.
 * This function may sleep while waiting for resources to become available.
 * Returns:
 * -EBUSY: No space available (only if no_wait == true).
 * -ENOSPC: Could not allocate space for the buffer object, either due to
 * fragmentation or concurrent allocators.
 * -ERESTARTSYS: An interruptible sleep was interrupted by a signal.
 * -EDEADLK: Only with @ctx->exec: locking a victim hit a wound/wait
 * deadlock, and the exec is contended.
 */
static int ttm_bo_alloc_resource(struct ttm_buffer_object *bo,
				 struct ttm_placement *placement,
				 struct ttm_operation_ctx *ctx,
				 bool force_space,
				 const struct ttm_throttle_spare *spare,
				 struct ttm_resource **res)
{
	struct ww_acquire_ctx *ticket;
	int ret;

	ticket = dma_resv_locking_ctx(bo->base.resv);
	ret = dma_resv_reserve_fences(bo->base.resv, TTM_NUM_MOVE_FENCES);
	if (unlikely(ret))
		return ret;

	if (spare && force_space) {
		ret = ttm_bo_alloc_in_placement(bo, placement, ctx, ticket,
						true, spare, res);
		if (ret != -ENOSPC)
			return ret;
	}

	return ttm_bo_alloc_in_placement(bo, placement, ctx, ticket,
					 force_space, NULL, res);
}

/*
 * ttm_bo_mem_space - Wrapper around ttm_bo_alloc_resource
 *
 * @bo: Pointer to a struct ttm_buffer_object of which we want a resource for
 * @placement: Proposed new placement for the buffer object
 * @res: The resulting struct ttm_resource.
 * @ctx: if and how to sleep, lock buffers and alloc memory
 *
 * Tries both idle allocation and forcefully eviction of buffers. See
 * ttm_bo_alloc_resource for details, and ttm_bo_validate() for the -EDEADLK
 * it may return with @ctx->exec set. It is never throttled, whatever
 * @ctx->throttle says: it places the victims of eviction, whose relocation
 * must not follow the evictor's throttle.
 */
int ttm_bo_mem_space(struct ttm_buffer_object *bo,
		     struct ttm_placement *placement,
		     struct ttm_resource **res,
		     struct ttm_operation_ctx *ctx)
{
	bool force_space = false;
	int ret;

	do {
		ret = ttm_bo_alloc_resource(bo, placement, ctx,
					    force_space, NULL, res);
		force_space = !force_space;
	} while (ret == -ENOSPC && force_space);

	return ret;
}
EXPORT_SYMBOL(ttm_bo_mem_space);

/**
 * DOC: Exec-aware eviction
 *
 * Making room for a buffer object means locking other buffer objects and
 * moving them out. A command submission takes that path while it holds the
 * reservations of its own buffers in a drm_exec transaction, so two
 * submissions under memory pressure can each want what the other holds.
 * Wound/wait locking resolves that by telling the younger one, with
 * -EDEADLK, to drop its locks and start again; only the owner of the
 * transaction can do that.
 *
 * A driver therefore passes its transaction in &ttm_operation_ctx.exec.
 * When the buffer object being placed is locked by that transaction,
 * eviction locks the victims it cannot trylock through the same
 * transaction, and an -EDEADLK comes back from ttm_bo_validate() with the
 * exec contended. The caller backs off and retries with a ticket that keeps
 * its age, instead of starting over behind every younger transaction::
 *
 *	struct ttm_operation_ctx ctx = { .interruptible = true };
 *	struct drm_exec exec;
 *	int ret;
 *
 *	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 0);
 *	ctx.exec = &exec;
 *	drm_exec_until_all_locked(&exec) {
 *		ret = drm_exec_prepare_obj(&exec, &bo->base, 1);
 *		drm_exec_retry_on_contention(&exec);
 *		if (ret)
 *			goto out;
 *
 *		ret = ttm_bo_validate(bo, &placement, &ctx);
 *		drm_exec_retry_on_contention(&exec);
 *		if (ret)
 *			goto out;
 *	}
 *	...submit, add fences...
 *	out:
 *	drm_exec_fini(&exec);
 *
 * The validation must sit inside the locking loop: an -EDEADLK after the
 * loop has been left cannot be retried, so &ttm_operation_ctx.exec must be
 * NULL there. An exec whose loop has been left (at its end, or by a break,
 * goto or return), or that is contended on entry because
 * its caller swallowed an -EDEADLK, draws a warning and is not used. Victims
 * are locked the way the exec's flags say, interruptibly with
 * %DRM_EXEC_INTERRUPTIBLE_WAIT. Victims locked through the exec stay locked
 * until the space they freed is allocated, so their owners cannot move them
 * back in between, and are unlocked before ttm_bo_validate() returns; those
 * a trylock got are unlocked after their eviction, as without an exec.
 * Other BOs that share a held victim's reservation, such as the BOs private
 * to one VM, are evicted under that lock.
 *
 * Buffers the transaction holds are its own and are never evicted by it,
 * with two exceptions: those sharing &ttm_operation_ctx.resv when
 * &ttm_operation_ctx.allow_res_evict is set, as without an exec, and the
 * object drm_exec prelocked after a back-off, normally the victim that
 * caused it, as long as the caller has locked neither it nor a buffer
 * sharing its reservation since. A caller that interleaves locking and
 * validation may find one of its own BOs prelocked, and evict it; that costs
 * a move, never a lock it relies on. Released buffers waiting for
 * destruction and ghost objects of pipelined moves belong to no client;
 * they are only ever trylocked.
 *
 * Each walk over an LRU sleeps on a lock, through the exec, until one such
 * lock has freed nothing; it only trylocks from then on, as the walk
 * without an exec does after its first ticketed lock. So every sleeping
 * lock of a walk but its last is followed by the BO locked leaving the
 * space: evicted by the walk, or moved by its owner meanwhile. The space
 * an owner freed that way is tried once the walk is over, as after an
 * eviction. The walks of one placement repeat only while they free space,
 * and once more to reach what dmem.low protects: its sleeping locks are at
 * most its evictions, the moves it slept through, and its walks. Without
 * &ttm_operation_ctx.exec nothing changes: contention during eviction
 * counts as no space, and ttm_bo_validate() reports -ENOMEM when no
 * placement is left.
 *
 * Creating a buffer object inside the loop works the same way when it
 * shares a reservation the transaction holds, as the page tables of a VM
 * share the VM's: ttm_bo_init_reserved() with &ttm_operation_ctx.exec set
 * returns -EDEADLK with the exec contended, having put the new object, and
 * the caller creates it again after the back-off.
 */

/* The memory type a placement prefers: the first that is no fallback. */
static u32 ttm_placement_preferred_type(const struct ttm_placement *placement)
{
	unsigned int i;

	for (i = 0; i < placement->num_placement; i++)
		if (!(placement->placement[i].flags & TTM_PL_FLAG_FALLBACK))
			return placement->placement[i].mem_type;
	return placement->placement[0].mem_type;
}

/*
 * A client in hard throttle keeps a resource the placement accepts only as
 * a fallback, rather than move to one it prefers. A pinned BO is left to the
 * checks of ttm_bo_validate().
 */
static bool ttm_bo_throttle_keeps(struct ttm_buffer_object *bo,
				  struct ttm_placement *placement,
				  enum ttm_throttle_state state)
{
	if (state != TTM_THROTTLE_HARD || !bo->resource || bo->pin_count ||
	    ttm_resource_compatible(bo->resource, placement, false) ||
	    !ttm_resource_compatible(bo->resource, placement, true))
		return false;

	trace_ttm_bo_throttle_keep(bo, bo->resource->mem_type,
				   ttm_placement_preferred_type(placement));
	return true;
}

/* ttm_bo_validate() but for the tracing of its failures. */
static int __ttm_bo_validate(struct ttm_buffer_object *bo,
			     struct ttm_placement *placement,
			     struct ttm_operation_ctx *ctx)
{
	struct ttm_throttle_spare spare_ids, *spare = NULL;
	enum ttm_throttle_state state;
	struct ttm_resource *res;
	struct ttm_place hop;
	bool force_space;
	int ret;

	dma_resv_assert_held(bo->base.resv);

	/*
	 * Remove the backing store if no placement is given.
	 */
	if (!placement->num_placement)
		return ttm_bo_pipeline_gutting(bo);

	state = ttm_throttle_get_state(ctx->throttle);
	if (ttm_bo_throttle_keeps(bo, placement, state)) {
		ctx->throttle_kept = true;
		return 0;
	}
	if (state != TTM_THROTTLE_NORMAL) {
		ttm_throttle_get_spare(ctx->throttle, &spare_ids);
		spare = &spare_ids;
	}

	force_space = false;
	do {
		/* Check whether we need to move buffer. */
		if (bo->resource &&
		    ttm_resource_compatible(bo->resource, placement,
					    force_space))
			return 0;

		/* Moving of pinned BOs is forbidden */
		if (bo->pin_count)
			return -EINVAL;

		/*
		 * Determine where to move the buffer.
		 *
		 * If driver determines move is going to need
		 * an extra step then it will return -EMULTIHOP
		 * and the buffer will be moved to the temporary
		 * stop and the driver will be called to make
		 * the second hop.
		 */
		ret = ttm_bo_alloc_resource(bo, placement, ctx, force_space,
					    spare, &res);
		force_space = !force_space;
		if (ret == -ENOSPC)
			continue;
		if (ret)
			return ret;

bounce:
		ret = ttm_bo_handle_move_mem(bo, res, false, ctx, &hop);
		if (ret == -EMULTIHOP) {
			ret = ttm_bo_bounce_temp_buffer(bo, ctx, &hop);
			/* try and move to final place now. */
			if (!ret)
				goto bounce;
		}
		if (ret) {
			ttm_resource_free(bo, &res);
			return ret;
		}

	} while (ret && force_space);

	/* For backward compatibility with userspace */
	if (ret == -ENOSPC)
		return bo->bdev->alloc_flags & TTM_ALLOCATION_PROPAGATE_ENOSPC ?
		       ret : -ENOMEM;

	/*
	 * We might need to add a TTM.
	 */
	if (!bo->resource || bo->resource->mem_type == TTM_PL_SYSTEM) {
		ret = ttm_tt_create(bo, true);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * ttm_bo_validate - Move a buffer object into one of the proposed placements
 *
 * @bo: The buffer object.
 * @placement: Proposed placement for the buffer object.
 * @ctx: validation parameters.
 *
 * Changes placement and caching policy of the buffer object
 * according proposed placement.
 *
 * If @ctx->exec is set and @bo is locked by that drm_exec transaction,
 * eviction locks the BOs it must move through the same transaction, and
 * waits for those a trylock cannot get. The BOs the transaction held before
 * are the caller's own and are neither evicted nor unlocked, except those
 * sharing @ctx->resv with @ctx->allow_res_evict set, as without an exec.
 * Victims that were moved stay locked until @bo's new space is allocated, so
 * their owners cannot move them back in between, and are unlocked before
 * this returns; a victim that was not moved is unlocked at once.
 * Dropping the transaction's reference on a victim can free its GEM object
 * inside the transaction, if its last other reference went away meanwhile.
 *
 * Return: 0 on success, or
 * -EINVAL on invalid proposed placement.
 * -ENOMEM on out-of-memory condition.
 * -EBUSY if no_wait is true and buffer busy.
 * -ERESTARTSYS if interrupted by a signal.
 * -EDEADLK only with @ctx->exec: locking a victim would deadlock against an
 * older transaction. The exec is contended: the caller must back off with
 * drm_exec_retry_on_contention() and validate again in the same transaction.
 * Without @ctx->exec, that contention is reported as -ENOMEM.
 * -EINTR only with @ctx->exec initialised with DRM_EXEC_INTERRUPTIBLE_WAIT:
 * a signal interrupted the wait for a victim, whatever @ctx->interruptible
 * says.
 *
 * If @ctx->throttle is set and its client is throttled after losing memory
 * to eviction, the placement follows the throttle's rules; see the
 * "Eviction throttling" section of the TTM documentation.
 */
int ttm_bo_validate(struct ttm_buffer_object *bo,
		    struct ttm_placement *placement,
		    struct ttm_operation_ctx *ctx)
{
	int ret = __ttm_bo_validate(bo, placement, ctx);

	if (ret && !ttm_bo_error_is_expected(ret))
		trace_ttm_bo_validate_fail(bo, ctx, ret);
	return ret;
}
EXPORT_SYMBOL(ttm_bo_validate);

/**
 * ttm_bo_init_reserved
 *
 * @bdev: Pointer to a ttm_device struct.
 * @bo: Pointer to a ttm_buffer_object to be initialized.
 * @type: Requested type of buffer object.
 * @placement: Initial placement for buffer object.
 * @alignment: Data alignment in pages.
 * @ctx: TTM operation context for memory allocation.
 * @sg: Scatter-gather table.
 * @resv: Pointer to a dma_resv, or NULL to let ttm allocate one.
 * @destroy: Destroy function. Use NULL for kfree().
 *
 * This function initializes a pre-allocated struct ttm_buffer_object.
 * As this object may be part of a larger structure, this function,
 * together with the @destroy function, enables driver-specific objects
 * derived from a ttm_buffer_object.
 *
 * On successful return, the caller owns an object kref to @bo. The kref and
 * list_kref are usually set to 1, but note that in some situations, other
 * tasks may already be holding references to @bo as well.
 * Furthermore, if resv == NULL, the buffer's reservation lock will be held,
 * and it is the caller's responsibility to call ttm_bo_unreserve.
 *
 * If a failure occurs, the function will call the @destroy function. Thus,
 * after a failure, dereferencing @bo is illegal and will likely cause memory
 * corruption.
 *
 * Returns
 * -ENOMEM: Out of memory.
 * -EINVAL: Invalid placement flags.
 * -ERESTARTSYS: Interrupted by signal while sleeping waiting for resources.
 * -EDEADLK: Only with @ctx->exec and @resv locked by it: see
 * ttm_bo_validate(). The BO has been put, as on any other error, and must
 * be created again after the caller has backed off.
 */
int ttm_bo_init_reserved(struct ttm_device *bdev, struct ttm_buffer_object *bo,
			 enum ttm_bo_type type, struct ttm_placement *placement,
			 uint32_t alignment, struct ttm_operation_ctx *ctx,
			 struct sg_table *sg, struct dma_resv *resv,
			 void (*destroy) (struct ttm_buffer_object *))
{
	int ret;

	kref_init(&bo->kref);
	bo->bdev = bdev;
	bo->type = type;
	bo->page_alignment = alignment;
	bo->destroy = destroy;
	bo->pin_count = 0;
	bo->sg = sg;
	bo->bulk_move = NULL;
	bo->residency = TTM_RESIDENCY_NORMAL;
	if (resv)
		bo->base.resv = resv;
	else
		bo->base.resv = &bo->base._resv;
	atomic_inc(&ttm_glob.bo_count);

	/*
	 * For ttm_bo_type_device buffers, allocate
	 * address space from the device.
	 */
	if (bo->type == ttm_bo_type_device || bo->type == ttm_bo_type_sg) {
		ret = drm_vma_offset_add(bdev->vma_manager, &bo->base.vma_node,
					 PFN_UP(bo->base.size));
		if (ret)
			goto err_put;
	}

	/* passed reservation objects should already be locked,
	 * since otherwise lockdep will be angered in radeon.
	 */
	if (!resv)
		WARN_ON(!dma_resv_trylock(bo->base.resv));
	else
		dma_resv_assert_held(resv);

	ret = ttm_bo_validate(bo, placement, ctx);
	if (unlikely(ret))
		goto err_unlock;

	return 0;

err_unlock:
	if (!resv)
		dma_resv_unlock(bo->base.resv);

err_put:
	ttm_bo_put(bo);
	return ret;
}
EXPORT_SYMBOL(ttm_bo_init_reserved);

/**
 * ttm_bo_init_validate
 *
 * @bdev: Pointer to a ttm_device struct.
 * @bo: Pointer to a ttm_buffer_object to be initialized.
 * @type: Requested type of buffer object.
 * @placement: Initial placement for buffer object.
 * @alignment: Data alignment in pages.
 * @interruptible: If needing to sleep to wait for GPU resources,
 * sleep interruptible.
 * pinned in physical memory. If this behaviour is not desired, this member
 * holds a pointer to a persistent shmem object. Typically, this would
 * point to the shmem object backing a GEM object if TTM is used to back a
 * GEM user interface.
 * @sg: Scatter-gather table.
 * @resv: Pointer to a dma_resv, or NULL to let ttm allocate one.
 * @destroy: Destroy function. Use NULL for kfree().
 *
 * This function initializes a pre-allocated struct ttm_buffer_object.
 * As this object may be part of a larger structure, this function,
 * together with the @destroy function,
 * enables driver-specific objects derived from a ttm_buffer_object.
 *
 * On successful return, the caller owns an object kref to @bo. The kref and
 * list_kref are usually set to 1, but note that in some situations, other
 * tasks may already be holding references to @bo as well.
 *
 * If a failure occurs, the function will call the @destroy function, Thus,
 * after a failure, dereferencing @bo is illegal and will likely cause memory
 * corruption.
 *
 * Returns
 * -ENOMEM: Out of memory.
 * -EINVAL: Invalid placement flags.
 * -ERESTARTSYS: Interrupted by signal while sleeping waiting for resources.
 * -EDEADLK: Only with @ctx->exec and @resv locked by it: see
 * ttm_bo_validate(). The BO has been put, as on any other error, and must
 * be created again after the caller has backed off.
 */
int ttm_bo_init_validate(struct ttm_device *bdev, struct ttm_buffer_object *bo,
			 enum ttm_bo_type type, struct ttm_placement *placement,
			 uint32_t alignment, bool interruptible,
			 struct sg_table *sg, struct dma_resv *resv,
			 void (*destroy) (struct ttm_buffer_object *))
{
	struct ttm_operation_ctx ctx = { .interruptible = interruptible };
	int ret;

	ret = ttm_bo_init_reserved(bdev, bo, type, placement, alignment, &ctx,
				   sg, resv, destroy);
	if (ret)
		return ret;

	if (!resv)
		ttm_bo_unreserve(bo);

	return 0;
}
EXPORT_SYMBOL(ttm_bo_init_validate);

/*
 * buffer object vm functions.
 */

/**
 * ttm_bo_unmap_virtual
 *
 * @bo: tear down the virtual mappings for this BO
 */
void ttm_bo_unmap_virtual(struct ttm_buffer_object *bo)
{
	struct ttm_device *bdev = bo->bdev;

	drm_vma_node_unmap(&bo->base.vma_node, bdev->dev_mapping);
	ttm_mem_io_free(bdev, bo->resource);
}
EXPORT_SYMBOL(ttm_bo_unmap_virtual);

/**
 * ttm_bo_wait_ctx - wait for buffer idle.
 *
 * @bo:  The buffer object.
 * @ctx: defines how to wait
 *
 * Waits for the buffer to be idle. Used timeout depends on the context.
 * Returns -EBUSY if wait timed outt, -ERESTARTSYS if interrupted by a signal or
 * zero on success.
 */
int ttm_bo_wait_ctx(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx)
{
	long ret;

	if (ctx->no_wait_gpu) {
		if (dma_resv_test_signaled(bo->base.resv,
					   DMA_RESV_USAGE_BOOKKEEP))
			return 0;
		else
			return -EBUSY;
	}

	ret = dma_resv_wait_timeout(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP,
				    ctx->interruptible, 15 * HZ);
	if (unlikely(ret < 0))
		return ret;
	if (unlikely(ret == 0))
		return -EBUSY;
	return 0;
}
EXPORT_SYMBOL(ttm_bo_wait_ctx);

/**
 * struct ttm_bo_swapout_walk - Parameters for the swapout walk
 */
struct ttm_bo_swapout_walk {
	/** @walk: The walk base parameters. */
	struct ttm_lru_walk walk;
	/** @gfp_flags: The gfp flags to use for ttm_tt_swapout() */
	gfp_t gfp_flags;
	/** @hit_low: Whether we should attempt to swap BO's with low watermark threshold */
	/** @evict_low: If we cannot swap a bo when @try_low is false (first pass) */
	bool hit_low, evict_low;
};

static s64
ttm_bo_swapout_cb(struct ttm_lru_walk *walk, struct ttm_buffer_object *bo)
{
	struct ttm_place place = { .mem_type = bo->resource->mem_type };
	struct ttm_bo_swapout_walk *swapout_walk =
		container_of(walk, typeof(*swapout_walk), walk);
	struct ttm_operation_ctx *ctx = walk->arg.ctx;
	struct ttm_device *bdev = bo->bdev;
	struct ttm_tt *tt = bo->ttm;
	s64 ret;

	/*
	 * While the bo may already reside in SYSTEM placement, set
	 * SYSTEM as new placement to cover also the move further below.
	 * The driver may use the fact that we're moving from SYSTEM
	 * as an indication that we're about to swap out.
	 */
	if (bo->pin_count || !bdev->funcs->eviction_valuable(bo, &place)) {
		ret = -EBUSY;
		goto out;
	}

	if (!tt || !ttm_tt_is_populated(tt) ||
	    tt->page_flags & (TTM_TT_FLAG_EXTERNAL | TTM_TT_FLAG_SWAPPED)) {
		ret = -EBUSY;
		goto out;
	}

	if (bo->deleted) {
		pgoff_t num_pages = tt->num_pages;

		ret = ttm_bo_wait_ctx(bo, ctx);
		if (ret)
			goto out;

		ttm_bo_cleanup_memtype_use(bo);
		ret = num_pages;
		goto out;
	}

	/*
	 * Move to system cached
	 */
	if (bo->resource->mem_type != TTM_PL_SYSTEM) {
		struct ttm_resource *evict_mem;
		struct ttm_place hop;

		memset(&hop, 0, sizeof(hop));
		place.mem_type = TTM_PL_SYSTEM;
		ret = ttm_resource_alloc(bo, &place, &evict_mem, NULL);
		if (ret)
			goto out;

		ret = ttm_bo_handle_move_mem(bo, evict_mem, true, ctx, &hop);
		if (ret) {
			WARN(ret == -EMULTIHOP,
			     "Unexpected multihop in swapout - likely driver bug.\n");
			ttm_resource_free(bo, &evict_mem);
			goto out;
		}
	}

	/*
	 * Make sure BO is idle.
	 */
	ret = ttm_bo_wait_ctx(bo, ctx);
	if (ret)
		goto out;

	ttm_bo_unmap_virtual(bo);
	if (bdev->funcs->swap_notify)
		bdev->funcs->swap_notify(bo);

	if (ttm_tt_is_populated(tt)) {
		ret = ttm_tt_swapout(bdev, tt, swapout_walk->gfp_flags);
		if (ret > 0) {
			spin_lock(&bdev->lru_lock);
			ttm_resource_del_bulk_move_unevictable(bo->resource, bo);
			ttm_resource_move_to_lru_tail(bo->resource);
			spin_unlock(&bdev->lru_lock);
		}
	}

out:
	/* Consider -ENOMEM and -ENOSPC non-fatal. */
	if (ret == -ENOMEM || ret == -ENOSPC)
		ret = -EBUSY;

	return ret;
}

const struct ttm_lru_walk_ops ttm_swap_ops = {
	.process_bo = ttm_bo_swapout_cb,
};

/**
 * ttm_bo_swapout() - Swap out buffer objects on the LRU list to shmem.
 * @bdev: The ttm device.
 * @ctx: The ttm_operation_ctx governing the swapout operation.
 * @man: The resource manager whose resources / buffer objects are
 * goint to be swapped out.
 * @gfp_flags: The gfp flags used for shmem page allocations.
 * @target: The desired number of pages to swap out.
 *
 * Return: The number of pages actually swapped out, or negative error code
 * on error.
 */
s64 ttm_bo_swapout(struct ttm_device *bdev, struct ttm_operation_ctx *ctx,
		   struct ttm_resource_manager *man, gfp_t gfp_flags,
		   s64 target)
{
	struct ttm_bo_swapout_walk swapout_walk = {
		.walk = {
			.ops = &ttm_swap_ops,
			.arg = {
				.ctx = ctx,
				.trylock_only = true,
			},
		},
		.gfp_flags = gfp_flags,
	};

	return ttm_lru_walk_for_evict(&swapout_walk.walk, bdev, man, target);
}
EXPORT_SYMBOL_FOR_TESTS_ONLY(ttm_bo_swapout);

/**
 * ttm_bo_tt_destroy() - Free a buffer object's TT and its pages
 * @bo: The buffer object, reserved.
 *
 * A driver whose move leaves the BO in a memory type that uses no TT may
 * call this to drop a TT it kept, as TTM's copying moves do.
 */
void ttm_bo_tt_destroy(struct ttm_buffer_object *bo)
{
	if (bo->ttm == NULL)
		return;

	ttm_tt_unpopulate(bo->bdev, bo->ttm);
	ttm_tt_destroy(bo->bdev, bo->ttm);
	bo->ttm = NULL;
}
EXPORT_SYMBOL(ttm_bo_tt_destroy);

/**
 * ttm_bo_populate() - Ensure that a buffer object has backing pages
 * @bo: The buffer object
 * @ctx: The ttm_operation_ctx governing the operation.
 *
 * For buffer objects in a memory type whose manager uses
 * struct ttm_tt for backing pages, ensure those backing pages
 * are present and with valid content. The bo's resource is also
 * placed on the correct LRU list if it was previously swapped
 * out.
 *
 * Return: 0 if successful, negative error code on failure.
 * Note: May return -EINTR or -ERESTARTSYS if @ctx::interruptible
 * is set to true.
 */
int ttm_bo_populate(struct ttm_buffer_object *bo,
		    struct ttm_operation_ctx *ctx)
{
	struct ttm_device *bdev = bo->bdev;
	struct ttm_tt *tt = bo->ttm;
	bool swapped;
	int ret;

	dma_resv_assert_held(bo->base.resv);

	if (!tt)
		return 0;

	swapped = ttm_tt_is_swapped(tt);
	ret = ttm_tt_populate(bdev, tt, ctx);
	if (ret)
		return ret;

	if (swapped && !ttm_tt_is_swapped(tt) && !bo->pin_count &&
	    bo->resource) {
		spin_lock(&bdev->lru_lock);
		ttm_resource_add_bulk_move(bo->resource, bo);
		ttm_resource_move_to_lru_tail(bo->resource);
		spin_unlock(&bdev->lru_lock);
	}

	return 0;
}
EXPORT_SYMBOL(ttm_bo_populate);

/**
 * ttm_bo_setup_export() - Give a BO its backing pages before it is exported
 * @bo: The buffer object
 * @ctx: The ttm_operation_ctx governing the operation.
 *
 * Populate the BO's TT if its resource sits in a memory type whose manager
 * uses a TT, so that the exporter, not an importer, pays for the pages. A
 * BO in VRAM is left alone, even if the driver kept an unpopulated TT
 * behind it: filling that TT would take host pages that nothing reads. So
 * is a BO without a resource. An importer that needs system pages makes
 * the exporter migrate the BO into a TT placement, which populates it then.
 *
 * Return: 0 if successful, negative error code on failure.
 */
int ttm_bo_setup_export(struct ttm_buffer_object *bo,
			struct ttm_operation_ctx *ctx)
{
	int ret;

	ret = ttm_bo_reserve(bo, false, false, NULL);
	if (ret != 0)
		return ret;

	if (bo->resource &&
	    ttm_manager_type(bo->bdev, bo->resource->mem_type)->use_tt)
		ret = ttm_bo_populate(bo, ctx);
	ttm_bo_unreserve(bo);
	return ret;
}
EXPORT_SYMBOL(ttm_bo_setup_export);
