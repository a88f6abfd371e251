// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Contiguity-aware eviction: the range a contiguous allocation frees.
 */

#include <linux/cgroup_dmem.h>
#include <linux/hash.h>
#include <linux/moduleparam.h>

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>

#include "ttm_bo_internal.h"
#include "ttm_throttle_internal.h"

/**
 * DOC: Contiguity-aware eviction
 *
 * A contiguous allocation, a scanout buffer say, can fail in a manager
 * that has room but no free range large enough. Eviction in LRU order then
 * frees memory all over the manager until a range happens to come free: up
 * to all of it, for one buffer. Instead, TTM first asks the manager for
 * the range cheapest to free (&ttm_resource_manager_func.evict_window).
 * The manager's allocator knows where such an allocation can go, and
 * prices each resource there with ttm_evict_window_cost(). Eviction then
 * takes, in LRU order, only the buffers that intersect that range,
 * retrying the allocation after each; buffers outside it are not even
 * locked, and the walk ends once it has seen as many resources as the
 * manager counted in the range (a hint: a resource met twice, or one
 * placed in the range since, can end it before the last one, which costs
 * at most the fallback below). It only trylocks them, rather than wait or
 * back off on one: a buffer in the range that another holds loses the
 * range before anything is evicted, as a buffer the driver refuses does.
 *
 * The search cannot ask the driver, whose
 * &ttm_device_funcs.eviction_valuable needs the buffer's reservation. So,
 * before evicting any buffer in the range, eviction asks about each what
 * the eviction itself asks: the dmem cgroups' protection, as the walk
 * measures it, and the driver, through &ttm_device_funcs.eviction_check
 * where the driver's eviction_valuable has side effects. A range holding a
 * buffer refused, or one another holds, is searched again with that
 * buffer's resource unmovable, up to %TTM_EVICT_WINDOW_TRIES ranges. If no
 * range is accepted, or the range does not come free after all (a buffer
 * in it was locked, or refused, after the check), eviction goes on in LRU
 * order over the whole place, as without a range.
 *
 * A resource costs its size, weighted by its LRU priority and, among the
 * evictor's own buffers, residency level, so that the range chosen roughly
 * agrees with LRU order. A range holding a resource the walk could not
 * take is never chosen: a pinned one; the evictor's, or one sharing its
 * reservation; one locked with the caller's ww ticket, the object drm_exec
 * prelocked after a back-off among them, since the trylock cannot get it
 * (except the reservation the context lets eviction share,
 * &ttm_operation_ctx.allow_res_evict); and one protected by dmem.min or
 * dmem.low, measured against the root cgroup rather than against the
 * cgroups' common ancestor as the walk does (a buffer that the walk finds
 * protected and the search does not is refused by the check, which costs
 * one more search); for a throttled client, the memory of the clients
 * that took its own. No range is chosen when a dmem.max held the charge
 * back, since what is missing then is room in the cgroup.
 *
 * Managers on the buddy allocator use ttm_buddy_evict_window(), which
 * weighs every candidate range of the allocation's size and alignment with
 * gpu_buddy_cheapest_block(), the highest on a tie for a top-down place.
 *
 * Locking, outermost first: the evictor's reservation; the manager's own
 * lock, the one its allocations take, for the whole search; for each
 * resource priced, &ttm_device.lru_lock. The manager's lock keeps the
 * resources alive, but not their buffer objects: a ghost transfer
 * re-points &ttm_resource.bo under lru_lock, and the buffer object it
 * pointed to may then be freed. So ttm_evict_window_cost() reads the
 * buffer object under lru_lock, one resource at a time; other values may
 * go stale meanwhile, which costs at most the fallback to LRU order. The
 * search is linear in the manager's blocks: a resource of several blocks
 * in one range counts once, by a mark it keeps, and the dmem protection of
 * a pool, which walks every cgroup, is weighed once per search for up to
 * %TTM_EVICT_WINDOW_POOLS pools. Other allocations of the device wait for
 * the search only if they need the same manager. The managers assert the
 * locks they need held, and lockdep checks the order in the KUnit
 * suites.
 *
 * The search runs only when a contiguous allocation found no room. Writing
 * 0 to the ``ttm.evict_window`` module parameter switches it off, for a
 * comparison in one boot.
 */

static bool ttm_evict_window_on = true;
module_param_named(evict_window, ttm_evict_window_on, bool, 0644);
MODULE_PARM_DESC(evict_window,
		 "Free the cheapest range for a contiguous allocation before evicting in LRU order (default: true)");

/**
 * ttm_evict_window_enabled - whether contiguous allocations search a range
 *
 * Return: The ``ttm.evict_window`` module parameter.
 */
bool ttm_evict_window_enabled(void)
{
	return READ_ONCE(ttm_evict_window_on);
}

/* What the walk's trylock cannot get: a reservation the caller holds. */
static bool ttm_evict_window_callers(const struct ttm_evict_window_request *req,
				     struct ttm_buffer_object *bo)
{
	struct dma_resv *resv = bo->base.resv;
	struct ttm_operation_ctx *ctx = req->ctx;

	if (bo == req->evictor)
		return true;
	if (ctx->allow_res_evict && resv == ctx->resv)
		return false;
	return resv == req->evictor->base.resv ||
		(req->ticket && dma_resv_locking_ctx(resv) == req->ticket);
}

/*
 * Protected by dmem.min or dmem.low, measured against the root; a cgroup
 * may take its own memory, unless its allocation is within its protection
 * and evicts only other cgroups'. Weighing a pool walks every cgroup, so a
 * search weighs each pool once, in @req's cache.
 */
static bool ttm_evict_window_protected(const struct ttm_evict_window_request *req,
				       struct dmem_cgroup_pool_state *pool)
{
	struct ttm_evict_window_pools *pools = req->pools;
	unsigned int slot = hash_ptr(pool, ilog2(TTM_EVICT_WINDOW_POOLS));
	bool hit_low = false, protected;

	if (!pool)
		return false;
	if (pool == req->charge_pool)
		return !req->may_try_low;
	if (pools && pools->pool[slot] == pool)
		return pools->protected[slot];

	protected = !dmem_cgroup_state_evict_valuable(NULL, pool, false,
						      &hit_low);
	if (pools) {
		pools->pool[slot] = pool;
		pools->protected[slot] = protected;
	}
	return protected;
}

/*
 * Residency levels order eviction only inside one bulk move: they weigh
 * only the evictor's own BOs, so that no client's levels shift eviction
 * onto another client.
 */
static unsigned int ttm_evict_window_weight(const struct ttm_evict_window_request *req,
					    struct ttm_buffer_object *bo)
{
	unsigned int level = TTM_RESIDENCY_NORMAL;

	if (bo->bulk_move && bo->bulk_move == req->evictor->bulk_move)
		level = bo->residency;
	return 1 + bo->priority * TTM_NUM_RESIDENCY + level;
}

/**
 * ttm_evict_window_cost - what evicting a resource costs a contiguous
 * allocation
 * @req: The allocation.
 * @res: A resource of the manager the allocation found no room in.
 *
 * For &ttm_resource_manager_func.evict_window, with the manager's lock
 * held, which keeps @res alive. &ttm_resource.css is set only after the
 * manager's allocation has returned, so a resource being set up may be
 * priced as charged to no pool, which costs at most the fallback. It takes
 * &ttm_device.lru_lock, nested inside the manager's lock, to read @res's
 * buffer object: a ghost transfer re-points &ttm_resource.bo under that
 * lock, after which the buffer object it pointed to may be freed. The
 * buffer object's fields may change under it; a stale value costs at most
 * the fallback to LRU order.
 *
 * Return: The size of @res weighted by its LRU priority and residency
 * level, or %TTM_EVICT_WINDOW_UNMOVABLE if eviction for @req cannot take
 * it or the driver refused it in an earlier range; see "Contiguity-aware
 * eviction".
 */
u64 ttm_evict_window_cost(const struct ttm_evict_window_request *req,
			  struct ttm_resource *res)
{
	spinlock_t *lru_lock = &req->evictor->bdev->lru_lock;
	struct ttm_buffer_object *bo;
	u64 cost = TTM_EVICT_WINDOW_UNMOVABLE;
	unsigned int i;

	for (i = 0; i < req->num_refused; i++)
		if (res == req->refused[i])
			return TTM_EVICT_WINDOW_UNMOVABLE;

	if (ttm_evict_window_protected(req, READ_ONCE(res->css)))
		return TTM_EVICT_WINDOW_UNMOVABLE;

	spin_lock(lru_lock);
	bo = res->bo;
	/* Weights stay below 2^5, sizes below 2^58: no overflow. */
	if (bo && !bo->pin_count && !ttm_evict_window_callers(req, bo) &&
	    !(req->spare &&
	      ttm_throttle_spares(req->spare, ttm_bo_owner_throttle(bo))))
		cost = (u64)res->size * ttm_evict_window_weight(req, bo);
	spin_unlock(lru_lock);
	return cost;
}
EXPORT_SYMBOL(ttm_evict_window_cost);
