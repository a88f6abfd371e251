// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * TTM contiguity-aware eviction: which window of a manager to free.
 */

#include <linux/bits.h>
#include <linux/cgroup_dmem.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include <drm/drm_exec.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>

#include "ttm_trace.h"
#include "ttm_window_internal.h"

/**
 * DOC: Contiguity-aware eviction
 *
 * A contiguous allocation, a scanout buffer say, fails in a manager that
 * has room but no hole large enough. Eviction in LRU order then frees
 * memory all over the manager until a hole happens to open: up to the
 * whole of VRAM for one buffer. Instead, when an allocation with
 * %TTM_PL_FLAG_CONTIGUOUS finds no room, TTM first chooses the cheapest
 * window: a free range of the size and alignment the manager needs for the
 * allocation, within the place's fpfn and lpfn. Eviction then takes only
 * victims that intersect that window, still in LRU order, retrying the
 * allocation after each as before.
 *
 * A window's cost is the size of each resource that intersects it, counted
 * once and weighted by the resource's LRU priority and residency. A window
 * holding a pinned resource, memory dmem.min or dmem.low protects, memory
 * the charge held back by a dmem.max may not take, memory the manager
 * reserved outside any resource, or memory the caller holds, is not a
 * candidate: memory under dmem.low goes only in LRU order's last resort.
 * The walk in the window only trylocks, so that it neither waits for nor
 * backs off on a BO outside the window.
 *
 * The scan copies the address ranges of every resource of the manager into
 * an array sized before any lock is taken, then sorts them and sweeps the
 * candidate windows once: O(E log E) for E ranges, with no allocation under
 * a lock. A manager supports it by implementing
 * &ttm_resource_manager_func.window_scan, which reports the ranges under
 * the manager's own lock, and &ttm_resource_manager_func.window_geometry.
 *
 * If the window does not come free after all (a BO in it was locked,
 * pinned or refused by the driver in the meantime), eviction falls back to
 * LRU order over the whole place, as without a window, having evicted at
 * most the window's other BOs in vain. Writing 0 to the
 * ``ttm.evict_window`` module parameter switches windows off, which lets a
 * benchmark compare both in one boot; the ttm_evict_window tracepoint
 * still reports the window that would have been chosen.
 */

static bool ttm_evict_window_enabled = true;
module_param_named(evict_window, ttm_evict_window_enabled, bool, 0644);
MODULE_PARM_DESC(evict_window,
		 "Evict one window for a contiguous allocation, not in LRU order (default: true)");

/* The sentinel for memory that no window eviction may take. */
#define TTM_WINDOW_UNMOVABLE	U64_MAX

/* A scan that finds more ranges than this falls back to LRU order. */
#define TTM_WINDOW_MAX_EXTENTS	BIT(18)

/* One address range of a resource, in bytes. */
struct ttm_window_extent {
	u64 start;
	u64 end;
	u32 res;
};

/*
 * One resource: @cost is TTM_WINDOW_UNMOVABLE or its weighted size; @rank
 * its position in LRU order, U32_MAX if eviction would not take it;
 * @in_window the number of its ranges in the current window.
 */
struct ttm_window_res {
	u64 cost;
	u64 size;
	u32 rank;
	u32 in_window;
};

/**
 * struct ttm_window_scan - a scan for the cheapest window to evict
 *
 * Opaque to managers, which only pass it to ttm_window_scan_resources()
 * and ttm_window_scan_add().
 */
struct ttm_window_scan {
	/** @req: The allocation the scan is for. */
	const struct ttm_window_request *req;
	/** @geo: Where a window may lie, and its size and alignment. */
	struct ttm_window_geometry geo;
	/** @extents: The ranges found, @num_extents of @max_extents. */
	struct ttm_window_extent *extents;
	/** @num_extents: Ranges found. */
	u32 num_extents;
	/** @max_extents: Room in @extents; 0 while counting. */
	u32 max_extents;
	/** @res: The resources found, @num_res of @max_res. */
	struct ttm_window_res *res;
	/** @num_res: Resources found. */
	u32 num_res;
	/** @max_res: Room in @res. */
	u32 max_res;
	/** @in_range: The current resource has a range in the window area. */
	bool in_range;
};

/**
 * ttm_window_scan_add - report an address range of a resource
 * @scan: The scan passed to the manager's extents function.
 * @start: The range's first byte, as an offset into the manager.
 * @size: The range's size in bytes.
 *
 * Called from the function a manager passes to ttm_window_scan_resources(),
 * once for each range of the resource.
 */
void ttm_window_scan_add(struct ttm_window_scan *scan, u64 start, u64 size)
{
	u64 end = start + size;

	if (end <= scan->geo.start || start >= scan->geo.end)
		return;

	scan->in_range = true;
	if (scan->num_extents < scan->max_extents)
		scan->extents[scan->num_extents] = (struct ttm_window_extent) {
			.start = start,
			.end = end,
			.res = scan->num_res,
		};
	scan->num_extents++;
}
EXPORT_SYMBOL(ttm_window_scan_add);

/**
 * ttm_window_geometry_buddy - the window a buddy allocator needs
 * @place: Where the allocation may go.
 * @size: The allocation's size in bytes, with whatever the manager adds.
 * @man_size: The manager's size in bytes.
 * @geo: Set to the geometry.
 *
 * A buddy allocator places a contiguous allocation in any free, naturally
 * aligned block of the power of two covering its size, or, when the place
 * is exactly as large as the allocation, in the place itself. For the
 * &ttm_resource_manager_func.window_geometry of buddy-based managers.
 */
void ttm_window_geometry_buddy(const struct ttm_place *place, u64 size,
			       u64 man_size, struct ttm_window_geometry *geo)
{
	u64 lpfn = (u64)place->lpfn << PAGE_SHIFT;

	geo->start = (u64)place->fpfn << PAGE_SHIFT;
	geo->end = lpfn && lpfn < man_size ? lpfn : man_size;
	size = PAGE_ALIGN(size);
	if (geo->start < geo->end && geo->end - geo->start == size) {
		geo->size = size;
		geo->align = PAGE_SIZE;
	} else {
		geo->size = roundup_pow_of_two(size);
		geo->align = geo->size;
	}
}
EXPORT_SYMBOL(ttm_window_geometry_buddy);

/*
 * BOs the walk would skip as the caller's: the evictor, BOs sharing its
 * reservation unless the context lets eviction take them, and BOs locked
 * with the caller's ticket, except the object drm_exec prelocked, which
 * the walk evicts. Reading who holds a lock races with its release, which
 * at worst costs a fallback.
 */
static bool ttm_window_callers_own(const struct ttm_window_request *req,
				   struct ttm_buffer_object *bo)
{
	struct ttm_operation_ctx *ctx = req->ctx;
	struct dma_resv *resv = bo->base.resv;

	if (bo == req->evictor)
		return true;
	if (resv == ctx->resv && ctx->allow_res_evict)
		return false;
	if (resv == req->evictor->base.resv)
		return true;
	if (ctx->exec && ctx->exec->prelocked &&
	    ctx->exec->prelocked->resv == resv)
		return false;
	return req->ticket && dma_resv_locking_ctx(resv) == req->ticket;
}

/*
 * What evicting @res costs: its size weighted by LRU priority and residency,
 * so that the walk's order roughly agrees. Weights stay below 2^5: sums of
 * weighted sizes cannot overflow.
 */
static u64 ttm_window_res_cost(const struct ttm_window_request *req,
			       struct ttm_resource *res)
{
	struct ttm_buffer_object *bo = res->bo;

	if (!bo || bo->pin_count || ttm_window_callers_own(req, bo) ||
	    !dmem_cgroup_state_evict_valuable(req->limit_pool, res->css, false,
					      NULL))
		return TTM_WINDOW_UNMOVABLE;

	return res->size * (1 + bo->priority * TTM_NUM_RESIDENCY +
			    bo->residency);
}

static void ttm_window_scan_res(struct ttm_window_scan *scan,
				struct ttm_resource_manager *man,
				struct ttm_resource *res,
				ttm_window_extents_fn extents)
{
	struct ttm_window_res *wres = NULL;

	if (scan->num_res < scan->max_res)
		wres = &scan->res[scan->num_res];

	scan->in_range = false;
	extents(man, res, scan);
	if (wres) {
		wres->cost = scan->in_range ?
			ttm_window_res_cost(scan->req, res) : 0;
		wres->size = scan->in_range ? res->size : 0;
		wres->in_window = 0;
	}
	scan->num_res++;
}

/**
 * ttm_window_scan_add_reserved - report memory no resource holds
 * @scan: The scan passed to &ttm_resource_manager_func.window_scan.
 * @start: The range's first byte, as an offset into the manager.
 * @size: The range's size in bytes.
 *
 * For memory the manager set aside outside TTM, bad pages say: no window
 * holding it is a candidate. Called from
 * &ttm_resource_manager_func.window_scan, after ttm_window_scan_resources().
 */
void ttm_window_scan_add_reserved(struct ttm_window_scan *scan, u64 start,
				  u64 size)
{
	if (scan->num_res < scan->max_res)
		scan->res[scan->num_res] = (struct ttm_window_res) {
			.cost = TTM_WINDOW_UNMOVABLE,
		};
	ttm_window_scan_add(scan, start, size);
	scan->num_res++;
}
EXPORT_SYMBOL(ttm_window_scan_add_reserved);

/**
 * ttm_window_scan_resources - report every resource of a manager to a scan
 * @man: The manager.
 * @scan: The scan passed to &ttm_resource_manager_func.window_scan.
 * @extents: Reports the address ranges of one resource of @man to @scan
 *	with ttm_window_scan_add(). Called with &ttm_device.lru_lock held:
 *	it may neither sleep nor allocate.
 *
 * For &ttm_resource_manager_func.window_scan, which must hold whatever
 * lock keeps the address ranges of its resources from changing. Resources
 * on the LRU come in the order eviction walks them, then pinned ones.
 */
void ttm_window_scan_resources(struct ttm_resource_manager *man,
			       struct ttm_window_scan *scan,
			       ttm_window_extents_fn extents)
{
	struct ttm_device *bdev = man->bdev;
	struct ttm_lru_item *lru;
	unsigned int prio;

	spin_lock(&bdev->lru_lock);
	for (prio = 0; prio < TTM_MAX_BO_PRIORITY; ++prio)
		list_for_each_entry(lru, &man->lru[prio], link)
			if (ttm_lru_item_is_res(lru))
				ttm_window_scan_res(scan, man,
						    ttm_lru_item_to_res(lru),
						    extents);

	list_for_each_entry(lru, &bdev->pinned, link) {
		struct ttm_resource *res;

		if (!ttm_lru_item_is_res(lru))
			continue;
		res = ttm_lru_item_to_res(lru);
		if (ttm_manager_type(bdev, res->mem_type) == man)
			ttm_window_scan_res(scan, man, res, extents);
	}
	spin_unlock(&bdev->lru_lock);
}
EXPORT_SYMBOL(ttm_window_scan_resources);

/* Sizes the arrays from a first count, with room for some growth. */
static void ttm_window_scan_fill(struct ttm_window_scan *scan,
				 struct ttm_resource_manager *man)
{
	scan->num_extents = 0;
	scan->num_res = 0;
	man->func->window_scan(man, scan);
}

static int ttm_window_scan_collect(struct ttm_window_scan *scan,
				   struct ttm_resource_manager *man)
{
	ttm_window_scan_fill(scan, man);
	if (!scan->num_extents || scan->num_extents > TTM_WINDOW_MAX_EXTENTS)
		return -ENOSPC;

	scan->max_extents = scan->num_extents + scan->num_extents / 8 + 16;
	scan->max_res = scan->num_res + scan->num_res / 8 + 16;
	scan->extents = kvmalloc_array(scan->max_extents,
				       sizeof(*scan->extents), GFP_KERNEL);
	scan->res = kvmalloc_array(scan->max_res, sizeof(*scan->res),
				   GFP_KERNEL);
	if (!scan->extents || !scan->res)
		return -ENOMEM;

	ttm_window_scan_fill(scan, man);
	if (scan->num_extents > scan->max_extents ||
	    scan->num_res > scan->max_res)
		return -EAGAIN;
	return 0;
}

static int ttm_window_extent_cmp(const void *a, const void *b)
{
	const struct ttm_window_extent *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Ranks the resources in LRU order, counting only those that eviction
 * would take and that lie in the window area, and records in @lru_bytes
 * the bytes evicted in LRU order up to and including each rank.
 */
static void ttm_window_rank(struct ttm_window_scan *scan, u64 *lru_bytes)
{
	u64 total = 0;
	u32 i, rank = 0;

	for (i = 0; i < scan->num_res; i++) {
		struct ttm_window_res *wres = &scan->res[i];

		if (wres->cost == TTM_WINDOW_UNMOVABLE || !wres->size) {
			wres->rank = U32_MAX;
			continue;
		}
		total += wres->size;
		lru_bytes[rank] = total;
		wres->rank = rank++;
	}
}

/**
 * struct ttm_window_sweep - the window under consideration
 * @lo: First range in the window.
 * @hi: First range after the window.
 * @occupants: Resources with a range in the window.
 * @unmovable: Of those, resources no eviction may take.
 * @cost: Summed cost of the others.
 * @size: Summed size of the others.
 * @maxq: Indices of ranges in the window whose resource ranks highest
 *	among the ranges after it, a monotonic queue from @qhead to @qtail.
 * @qhead: Head of @maxq.
 * @qtail: Tail of @maxq.
 */
struct ttm_window_sweep {
	u32 lo, hi;
	u32 occupants, unmovable;
	u64 cost, size;
	u32 *maxq;
	u32 qhead, qtail;
};

static u32 ttm_window_extent_rank(const struct ttm_window_scan *scan, u32 i)
{
	return scan->res[scan->extents[i].res].rank;
}

static void ttm_window_enter(struct ttm_window_scan *scan,
			     struct ttm_window_sweep *sw)
{
	struct ttm_window_res *wres = &scan->res[scan->extents[sw->hi].res];
	u32 rank = ttm_window_extent_rank(scan, sw->hi);

	if (!wres->in_window++) {
		sw->occupants++;
		if (wres->cost == TTM_WINDOW_UNMOVABLE) {
			sw->unmovable++;
		} else {
			sw->cost += wres->cost;
			sw->size += wres->size;
		}
	}

	while (sw->qtail > sw->qhead &&
	       ttm_window_extent_rank(scan, sw->maxq[sw->qtail - 1]) <= rank)
		sw->qtail--;
	sw->maxq[sw->qtail++] = sw->hi++;
}

static void ttm_window_leave(struct ttm_window_scan *scan,
			     struct ttm_window_sweep *sw)
{
	struct ttm_window_res *wres = &scan->res[scan->extents[sw->lo].res];

	if (!--wres->in_window) {
		sw->occupants--;
		if (wres->cost == TTM_WINDOW_UNMOVABLE) {
			sw->unmovable--;
		} else {
			sw->cost -= wres->cost;
			sw->size -= wres->size;
		}
	}

	if (sw->maxq[sw->qhead] == sw->lo)
		sw->qhead++;
	sw->lo++;
}

/*
 * Slides the window over the sorted ranges. A cheapest window can always
 * be slid down, never gaining a range, until it starts at the area's start
 * or at the first aligned offset after some range: those are the only
 * candidates. The window LRU order would free first is the one whose
 * highest-ranked occupant ranks lowest.
 */
static bool ttm_window_sweep(struct ttm_window_scan *scan, u32 *maxq,
			     const u64 *lru_bytes, struct ttm_window *best)
{
	const struct ttm_window_geometry *geo = &scan->geo;
	struct ttm_window_sweep sw = { .maxq = maxq };
	u32 lru_rank = U32_MAX;
	u64 start = ALIGN(geo->start, geo->align);
	u32 next = 0;
	bool found = false;

	best->cost = TTM_WINDOW_UNMOVABLE;
	while (start <= geo->end && geo->end - start >= geo->size) {
		u64 end = start + geo->size;

		while (sw.hi < scan->num_extents &&
		       scan->extents[sw.hi].start < end)
			ttm_window_enter(scan, &sw);
		while (sw.lo < sw.hi && scan->extents[sw.lo].end <= start)
			ttm_window_leave(scan, &sw);

		if (sw.occupants && !sw.unmovable) {
			u32 rank = ttm_window_extent_rank(scan,
							  sw.maxq[sw.qhead]);

			lru_rank = min(lru_rank, rank);
			if (sw.cost < best->cost) {
				best->start = start;
				best->cost = sw.cost;
				best->size = sw.size;
				found = true;
			}
		}

		/* The next candidate starts after the next range to end. */
		while (next < scan->num_extents &&
		       ALIGN(scan->extents[next].end, geo->align) <= start)
			next++;
		if (next == scan->num_extents)
			break;
		start = ALIGN(scan->extents[next].end, geo->align);
	}

	best->lru_size = lru_rank == U32_MAX ? 0 : lru_bytes[lru_rank];
	return found;
}

static bool ttm_window_scan_choose(struct ttm_window_scan *scan,
				   struct ttm_window *best)
{
	u64 *lru_bytes;
	u32 *maxq;
	bool found = false;

	sort(scan->extents, scan->num_extents, sizeof(*scan->extents),
	     ttm_window_extent_cmp, NULL);

	lru_bytes = kvmalloc_array(scan->num_res, sizeof(*lru_bytes),
				   GFP_KERNEL);
	maxq = kvmalloc_array(scan->num_extents, sizeof(*maxq), GFP_KERNEL);
	if (lru_bytes && maxq) {
		ttm_window_rank(scan, lru_bytes);
		found = ttm_window_sweep(scan, maxq, lru_bytes, best);
	}

	kvfree(maxq);
	kvfree(lru_bytes);
	return found;
}

static bool ttm_window_supported(struct ttm_resource_manager *man,
				 const struct ttm_place *place)
{
	return (place->flags & TTM_PL_FLAG_CONTIGUOUS) &&
		man->func->window_scan && man->func->window_geometry;
}

/**
 * ttm_window_find - choose the cheapest window to evict for an allocation
 * @man: The manager that had no room.
 * @req: The allocation and what eviction may take for it.
 * @window: Set to @req's place, restricted to the window chosen.
 *
 * Return: true if eviction should be restricted to @window.
 */
bool ttm_window_find(struct ttm_resource_manager *man,
		     const struct ttm_window_request *req,
		     struct ttm_place *window)
{
	struct ttm_window_scan scan = { .req = req };
	struct ttm_window best;
	bool found = false;

	if (!ttm_window_supported(man, req->place) ||
	    (!READ_ONCE(ttm_evict_window_enabled) &&
	     !trace_ttm_evict_window_enabled()))
		return false;

	man->func->window_geometry(man, req->evictor, req->place, &scan.geo);
	if (!scan.geo.size || !scan.geo.align || scan.geo.end < scan.geo.size)
		return false;

	if (!ttm_window_scan_collect(&scan, man))
		found = ttm_window_scan_choose(&scan, &best);
	kvfree(scan.res);
	kvfree(scan.extents);
	if (!found)
		return false;

	trace_ttm_evict_window(req->evictor, req->place->mem_type, best.start,
			       scan.geo.size, best.size, best.lru_size);
	if (!READ_ONCE(ttm_evict_window_enabled))
		return false;

	*window = *req->place;
	window->fpfn = best.start >> PAGE_SHIFT;
	window->lpfn = (best.start + scan.geo.size) >> PAGE_SHIFT;
	return true;
}
