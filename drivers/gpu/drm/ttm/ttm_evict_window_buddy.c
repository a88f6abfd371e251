// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Contiguity-aware eviction for resource managers on the GPU buddy
 * allocator: one implementation of their evict_window and intersects.
 */

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/gpu_buddy.h>
#include <linux/log2.h>
#include <linux/mutex.h>

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>

/* ttm_evict_window_cost() serves as a block's cost as it is. */
static_assert(TTM_EVICT_WINDOW_UNMOVABLE == GPU_BUDDY_COST_UNMOVABLE);

/*
 * The marks of all searches: a search takes one per candidate range, so
 * that no two candidates of any searches share one.
 */
static atomic64_t ttm_buddy_window_marks;

/* The allocation, and the first mark of this search. */
struct ttm_buddy_window_search {
	const struct ttm_evict_window_request *req;
	u64 first_mark;
	unsigned int size_shift;
};

/*
 * A resource counts once per range, at the first of its blocks the search
 * meets there: the resource keeps the range's mark, in O(1) whatever its
 * number of blocks. A block of no resource, memory the driver set aside,
 * never moves.
 */
static u64 ttm_buddy_block_cost(struct gpu_buddy *mm,
				struct gpu_buddy_block *block, u64 start,
				u64 end, void *arg)
{
	const struct ttm_buddy_window_search *search = arg;
	struct ttm_resource *res = block->private;
	u64 mark = search->first_mark + (start >> search->size_shift);

	if (!res)
		return GPU_BUDDY_COST_UNMOVABLE;
	if (res->evict_window_mark == mark)
		return 0;
	res->evict_window_mark = mark;
	return ttm_evict_window_cost(search->req, res);
}

/* Counts the resources of one range: 1 at the first block of each. */
static u64 ttm_buddy_block_count(struct gpu_buddy *mm,
				 struct gpu_buddy_block *block, u64 start,
				 u64 end, void *arg)
{
	struct ttm_resource *res = block->private;
	const u64 *mark = arg;

	if (!res || res->evict_window_mark == *mark)
		return 0;
	res->evict_window_mark = *mark;
	return 1;
}

/**
 * ttm_buddy_evict_window - &ttm_resource_manager_func.evict_window of a
 * manager on the buddy allocator
 * @mm: The manager's allocator, in bytes from the manager's start.
 * @lock: The lock the manager's allocations take.
 * @min_block_size: The manager's smallest block for an allocation without
 *	a &ttm_buffer_object.page_alignment, in bytes.
 * @req: The allocation.
 * @window: Set to the range chosen.
 *
 * The buddy allocator places a contiguous allocation in a naturally aligned
 * block of the power of two that covers its size, and of at least its
 * alignment, within the place's fpfn and lpfn: gpu_buddy_cheapest_block()
 * weighs every such block, preferring the highest on a tie for a
 * %TTM_PL_FLAG_TOPDOWN place. Each allocated block's
 * &gpu_buddy_block.private must be the &ttm_resource it belongs to, or
 * NULL for memory no resource holds. The search holds @lock throughout and
 * &ttm_device.lru_lock only to price one resource at a time; its time is
 * linear in the number of blocks. A second search, over the range found
 * alone, counts the resources in it.
 *
 * Return: true if @window was set.
 */
bool ttm_buddy_evict_window(struct gpu_buddy *mm, struct mutex *lock,
			    u64 min_block_size,
			    const struct ttm_evict_window_request *req,
			    struct ttm_evict_window *window)
{
	const struct ttm_place *place = req->place;
	struct ttm_buffer_object *evictor = req->evictor;
	u64 lpfn = (u64)place->lpfn << PAGE_SHIFT;
	u64 start = (u64)place->fpfn << PAGE_SHIFT;
	u64 end = lpfn && lpfn < mm->size ? lpfn : mm->size;
	u64 size = PAGE_ALIGN((u64)evictor->base.size);
	u64 align = evictor->page_alignment ?
		    (u64)evictor->page_alignment << PAGE_SHIFT : min_block_size;
	unsigned long flags = place->flags & TTM_PL_FLAG_TOPDOWN ?
			      GPU_BUDDY_TOPDOWN_ALLOCATION : 0;
	struct ttm_buddy_window_search search = { .req = req };
	u64 mark, offset, resources;
	int err;

	size = size > PAGE_SIZE ? 1ULL << fls64(size - 1) : PAGE_SIZE;
	if (align > size)
		size = roundup_pow_of_two(align);
	if (start >= end || round_up(start, size) + size > end)
		return false;

	search.size_shift = ilog2(size);
	search.first_mark = atomic64_add_return((mm->size >> search.size_shift) + 1,
						&ttm_buddy_window_marks) -
			    (mm->size >> search.size_shift);
	window->size = size;
	mutex_lock(lock);
	err = gpu_buddy_cheapest_block(mm, start, end, size, flags,
				       ttm_buddy_block_cost, &search,
				       &window->start, &window->cost);
	if (!err) {
		/* The range found is the only candidate of this search. */
		mark = atomic64_inc_return(&ttm_buddy_window_marks);
		err = gpu_buddy_cheapest_block(mm, window->start,
					       window->start + size, size, 0,
					       ttm_buddy_block_count, &mark,
					       &offset, &resources);
		if (!err)
			window->resources = min_t(u64, resources, UINT_MAX);
	}
	mutex_unlock(lock);
	return !err;
}
EXPORT_SYMBOL(ttm_buddy_evict_window);

/**
 * ttm_buddy_intersects - &ttm_resource_manager_func.intersects of a
 * manager on the buddy allocator
 * @mm: The manager's allocator, in bytes from the manager's start.
 * @blocks: A resource's list of blocks.
 * @place: The range eviction makes room in.
 *
 * Return: Whether one of @blocks lies in @place's range.
 */
bool ttm_buddy_intersects(struct gpu_buddy *mm, struct list_head *blocks,
			  const struct ttm_place *place)
{
	u64 start = (u64)place->fpfn << PAGE_SHIFT;
	u64 end = place->lpfn ? (u64)place->lpfn << PAGE_SHIFT : U64_MAX;
	struct gpu_buddy_block *block;

	list_for_each_entry(block, blocks, link) {
		u64 offset = gpu_buddy_block_offset(block);

		if (offset < end &&
		    offset + gpu_buddy_block_size(mm, block) > start)
			return true;
	}
	return false;
}
EXPORT_SYMBOL(ttm_buddy_intersects);
