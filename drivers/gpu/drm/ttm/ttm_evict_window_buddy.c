// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Contiguity-aware eviction for resource managers on the GPU buddy
 * allocator: one implementation of their evict_window and intersects.
 */

#include <linux/build_bug.h>
#include <linux/gpu_buddy.h>
#include <linux/mutex.h>

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>

/* ttm_evict_window_cost() serves as a block's cost as it is. */
static_assert(TTM_EVICT_WINDOW_UNMOVABLE == GPU_BUDDY_COST_UNMOVABLE);

/* The allocation, and where a resource keeps its list of blocks. */
struct ttm_buddy_window_search {
	const struct ttm_evict_window_request *req;
	size_t blocks;
};

static struct list_head *ttm_buddy_res_blocks(struct ttm_resource *res,
					      size_t blocks)
{
	return (void *)res + blocks;
}

/*
 * A resource counts once per range, at its first block there; a block of
 * no resource, memory the driver set aside, never moves.
 */
static u64 ttm_buddy_block_cost(struct gpu_buddy *mm,
				struct gpu_buddy_block *block, u64 start,
				u64 end, void *arg)
{
	const struct ttm_buddy_window_search *search = arg;
	struct ttm_resource *res = block->private;

	if (!res)
		return GPU_BUDDY_COST_UNMOVABLE;
	if (!gpu_buddy_block_first_in_range(mm,
					    ttm_buddy_res_blocks(res, search->blocks),
					    block, start, end))
		return 0;
	return ttm_evict_window_cost(search->req, res);
}

/**
 * ttm_buddy_evict_window - &ttm_resource_manager_func.evict_window of a
 * manager on the buddy allocator
 * @mm: The manager's allocator, in bytes from the manager's start.
 * @lock: The lock the manager's allocations take.
 * @blocks: Where a resource of the manager keeps its list of blocks, as an
 *	offset from its &ttm_resource.
 * @req: The allocation.
 * @window: Set to the range chosen.
 *
 * The buddy allocator places a contiguous allocation in a naturally aligned
 * block of the power of two that covers its size, within the place's fpfn
 * and lpfn: gpu_buddy_cheapest_block() weighs every such block. Each
 * allocated block's &gpu_buddy_block.private must be the &ttm_resource it
 * belongs to, or NULL for memory no resource holds.
 *
 * Return: true if @window was set.
 */
bool ttm_buddy_evict_window(struct gpu_buddy *mm, struct mutex *lock,
			    size_t blocks,
			    const struct ttm_evict_window_request *req,
			    struct ttm_evict_window *window)
{
	const struct ttm_buddy_window_search search = {
		.req = req,
		.blocks = blocks,
	};
	const struct ttm_place *place = req->place;
	u64 lpfn = (u64)place->lpfn << PAGE_SHIFT;
	u64 start = (u64)place->fpfn << PAGE_SHIFT;
	u64 end = lpfn && lpfn < mm->size ? lpfn : mm->size;
	u64 size = PAGE_ALIGN((u64)req->evictor->base.size);
	int err;

	size = size > PAGE_SIZE ? 1ULL << fls64(size - 1) : PAGE_SIZE;
	if (start >= end || round_up(start, size) + size > end)
		return false;

	window->size = size;
	mutex_lock(lock);
	err = gpu_buddy_cheapest_block(mm, start, end, size,
				       ttm_buddy_block_cost, (void *)&search,
				       &window->start, &window->cost);
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
