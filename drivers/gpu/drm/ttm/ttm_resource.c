/*
 * Copyright 2020 Advanced Micro Devices, Inc.
 *
 * Permission is hereby granted, free of charge, to any person obtaining a
 * copy of this software and associated documentation files (the "Software"),
 * to deal in the Software without restriction, including without limitation
 * the rights to use, copy, modify, merge, publish, distribute, sublicense,
 * and/or sell copies of the Software, and to permit persons to whom the
 * Software is furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in
 * all copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.  IN NO EVENT SHALL
 * THE COPYRIGHT HOLDER(S) OR AUTHOR(S) BE LIABLE FOR ANY CLAIM, DAMAGES OR
 * OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE,
 * ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR
 * OTHER DEALINGS IN THE SOFTWARE.
 *
 * Authors: Christian König
 */

#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/io-mapping.h>
#include <linux/iosys-map.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/cgroup_dmem.h>

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_tt.h>

#include <drm/drm_print.h>
#include <drm/drm_util.h>

/**
 * DOC: Eviction order
 *
 * Eviction walks a resource manager's LRU lists from the head, so what is
 * nearest the head goes first. Three things decide that order, strongest
 * first:
 *
 * 1. TTM's priority, &ttm_buffer_object.priority. Each manager has one LRU
 *    list per priority, and eviction empties list 0 before it looks at
 *    list 1. Drivers use it for classes of memory (amdgpu puts kernel BOs
 *    above user BOs), not for what a client asks.
 *
 * 2. Recency between clients. A client whose BOs share a reservation object
 *    keeps them in one &ttm_lru_bulk_move, and ttm_lru_bulk_move_tail()
 *    moves all of them to the tail at once, typically on each submission.
 *    So the client that submitted longest ago is evicted first, as a whole.
 *
 * 3. Residency level inside a client, &ttm_buffer_object.residency, set
 *    with ttm_bo_set_residency(). Inside each range of a bulk move, the
 *    resources of each &enum ttm_residency level follow each other, and the
 *    levels follow each other from the lowest to the highest. Within a
 *    level, the least recently used resource goes first.
 *
 * A level never lets a BO of the client that submitted last go before the
 * BOs of an idle client: it orders a client's own memory only. It has no
 * effect on BOs outside a bulk move, or pinned, until they join one.
 *
 * A level change is not a use: the BO goes to the front of its new level,
 * and its next use moves it to the level's end.
 *
 * A range of a bulk move (one memory type and priority) whose BOs are all
 * NORMAL is a plain LRU range, as before. When a BO of another level first
 * joins it, the range gets where each of its levels ends, allocated then
 * (ttm_lru_bulk_move_need_levels()) and freed with the bulk move. Using a
 * resource and removing it cost O(1), as before; adding one to an empty
 * level looks at the levels below it. None of it depends on the number of
 * BOs, and ttm_lru_bulk_move_tail() moves each range as one, as before.
 */

/* Detach the cursor from the bulk move list */
static void
ttm_resource_cursor_clear_bulk(struct ttm_resource_cursor *cursor)
{
	lockdep_assert_held(&cursor->man->bdev->lru_lock);

	cursor->bulk = NULL;
	list_del_init(&cursor->bulk_link);
}

/* Move the cursor to the end of the bulk move list it's in */
static void ttm_resource_cursor_move_bulk_tail(struct ttm_lru_bulk_move *bulk,
					       struct ttm_resource_cursor *cursor)
{
	struct ttm_lru_bulk_move_pos *pos;

	lockdep_assert_held(&cursor->man->bdev->lru_lock);

	if (WARN_ON_ONCE(bulk != cursor->bulk)) {
		list_del_init(&cursor->bulk_link);
		return;
	}

	pos = &bulk->pos[cursor->mem_type][cursor->priority];
	if (pos->last)
		list_move(&cursor->hitch.link, &pos->last->lru.link);
	ttm_resource_cursor_clear_bulk(cursor);
}

/* Move all cursors attached to a bulk move to its end */
static void ttm_bulk_move_adjust_cursors(struct ttm_lru_bulk_move *bulk)
{
	struct ttm_resource_cursor *cursor, *next;

	list_for_each_entry_safe(cursor, next, &bulk->cursor_list, bulk_link)
		ttm_resource_cursor_move_bulk_tail(bulk, cursor);
}

/* Remove a cursor from an empty bulk move list */
static void ttm_bulk_move_drop_cursors(struct ttm_lru_bulk_move *bulk)
{
	struct ttm_resource_cursor *cursor, *next;

	list_for_each_entry_safe(cursor, next, &bulk->cursor_list, bulk_link)
		ttm_resource_cursor_clear_bulk(cursor);
}

/**
 * ttm_resource_cursor_init() - Initialize a struct ttm_resource_cursor
 * @cursor: The cursor to initialize.
 * @man: The resource manager.
 *
 * Initialize the cursor before using it for iteration.
 */
void ttm_resource_cursor_init(struct ttm_resource_cursor *cursor,
			      struct ttm_resource_manager *man)
{
	cursor->priority = 0;
	cursor->man = man;
	ttm_lru_item_init(&cursor->hitch, TTM_LRU_HITCH);
	INIT_LIST_HEAD(&cursor->bulk_link);
	INIT_LIST_HEAD(&cursor->hitch.link);
}

/**
 * ttm_resource_cursor_fini() - Finalize the LRU list cursor usage
 * @cursor: The struct ttm_resource_cursor to finalize.
 *
 * The function pulls the LRU list cursor off any lists it was previously
 * attached to. Needs to be called with the LRU lock held. The function
 * can be called multiple times after each other.
 */
void ttm_resource_cursor_fini(struct ttm_resource_cursor *cursor)
{
	lockdep_assert_held(&cursor->man->bdev->lru_lock);
	list_del_init(&cursor->hitch.link);
	ttm_resource_cursor_clear_bulk(cursor);
}

/**
 * ttm_lru_bulk_move_init - initialize a bulk move structure
 * @bulk: the structure to init
 *
 * For now just memset the structure to zero.
 */
void ttm_lru_bulk_move_init(struct ttm_lru_bulk_move *bulk)
{
	memset(bulk, 0, sizeof(*bulk));
	INIT_LIST_HEAD(&bulk->cursor_list);
}
EXPORT_SYMBOL(ttm_lru_bulk_move_init);

/**
 * ttm_lru_bulk_move_fini - finalize a bulk move structure
 * @bdev: The struct ttm_device
 * @bulk: the structure to finalize
 *
 * Sanity checks that bulk moves don't have any
 * resources left and hence no cursors attached, and frees the level ends
 * the bulk move allocated.
 */
void ttm_lru_bulk_move_fini(struct ttm_device *bdev,
			    struct ttm_lru_bulk_move *bulk)
{
	struct ttm_lru_bulk_levels *levels;
	unsigned int i, j;

	spin_lock(&bdev->lru_lock);
	ttm_bulk_move_drop_cursors(bulk);
	levels = bulk->levels;
	bulk->levels = NULL;
	spin_unlock(&bdev->lru_lock);

	if (!levels)
		return;
	for (i = 0; i < TTM_NUM_MEM_TYPES; ++i)
		for (j = 0; j < TTM_MAX_BO_PRIORITY; ++j)
			kfree(levels->last[i][j]);
	kfree(levels);
}
EXPORT_SYMBOL(ttm_lru_bulk_move_fini);

/**
 * ttm_lru_bulk_move_need_levels - let a range of a bulk move hold levels
 * @bo: The buffer object, reserved, whose level is about to matter.
 * @bulk: The bulk move @bo is in or is about to join.
 * @mem_type: The memory type of the resource that joins @bulk.
 *
 * Allocates where the residency levels of @bulk's range of @mem_type and
 * @bo's priority end, unless the range has them. A range without them has
 * only resources that joined at %TTM_RESIDENCY_NORMAL: each resource that
 * joins it is ordered as NORMAL, whatever its BO's level, until a later
 * call finds memory. So without memory only the order degrades, to plain
 * LRU order.
 *
 * Context: May sleep; takes the LRU lock.
 */
void ttm_lru_bulk_move_need_levels(struct ttm_buffer_object *bo,
				   struct ttm_lru_bulk_move *bulk,
				   u32 mem_type)
{
	struct ttm_device *bdev = bo->bdev;
	unsigned int prio = bo->priority;
	struct ttm_lru_bulk_levels *levels = NULL;
	struct ttm_resource **last = NULL;

	/*
	 * Only this function sets @bulk->levels and the range pointers in
	 * it, with the reservation all of the bulk move's BOs share held, as
	 * it is here; ttm_lru_bulk_move_fini() clears them once the bulk
	 * move is empty. So both can be read without the LRU lock.
	 */
	dma_resv_assert_held(bo->base.resv);
	might_sleep();
	if (bulk->levels && bulk->levels->last[mem_type][prio])
		return;

	/* Optional memory: without it, the range keeps LRU order. */
	if (!bulk->levels)
		levels = kzalloc_obj(*levels, GFP_KERNEL | __GFP_NOWARN |
				     __GFP_NORETRY);
	last = kzalloc_objs(*last, TTM_NUM_RESIDENCY, GFP_KERNEL |
			    __GFP_NOWARN | __GFP_NORETRY);

	spin_lock(&bdev->lru_lock);
	if (!bulk->levels && levels) {
		bulk->levels = levels;
		levels = NULL;
	}
	if (bulk->levels && last && !bulk->levels->last[mem_type][prio]) {
		/* Every resource in the range joined at NORMAL. */
		last[TTM_RESIDENCY_NORMAL] = bulk->pos[mem_type][prio].last;
		bulk->levels->last[mem_type][prio] = last;
		last = NULL;
	}
	spin_unlock(&bdev->lru_lock);

	kfree(levels);
	kfree(last);
}

/**
 * ttm_lru_bulk_move_tail - bulk move range of resources to the LRU tail.
 *
 * @bulk: bulk move structure
 *
 * Bulk move BOs to the LRU tail, only valid to use when driver makes sure that
 * resource order never changes. Should be called with &ttm_device.lru_lock held.
 */
void ttm_lru_bulk_move_tail(struct ttm_lru_bulk_move *bulk)
{
	unsigned i, j;

	ttm_bulk_move_adjust_cursors(bulk);
	for (i = 0; i < TTM_NUM_MEM_TYPES; ++i) {
		for (j = 0; j < TTM_MAX_BO_PRIORITY; ++j) {
			struct ttm_lru_bulk_move_pos *pos = &bulk->pos[i][j];
			struct ttm_resource_manager *man;

			if (!pos->first)
				continue;

			lockdep_assert_held(&pos->first->bo->bdev->lru_lock);
			dma_resv_assert_held(pos->first->bo->base.resv);
			dma_resv_assert_held(pos->last->bo->base.resv);

			man = ttm_manager_type(pos->first->bo->bdev, i);
			list_bulk_move_tail(&man->lru[j], &pos->first->lru.link,
					    &pos->last->lru.link);
		}
	}
}
EXPORT_SYMBOL(ttm_lru_bulk_move_tail);

/* Return the bulk move pos object for this resource */
static struct ttm_lru_bulk_move_pos *
ttm_lru_bulk_move_pos(struct ttm_lru_bulk_move *bulk, struct ttm_resource *res)
{
	return &bulk->pos[res->mem_type][res->bo->priority];
}

/* Return the previous resource on the list (skip over non-resource list items) */
static struct ttm_resource *ttm_lru_prev_res(struct ttm_resource *cur)
{
	struct ttm_lru_item *lru = &cur->lru;

	do {
		lru = list_prev_entry(lru, link);
	} while (!ttm_lru_item_is_res(lru));

	return ttm_lru_item_to_res(lru);
}

/* Return the next resource on the list (skip over non-resource list items) */
static struct ttm_resource *ttm_lru_next_res(struct ttm_resource *cur)
{
	struct ttm_lru_item *lru = &cur->lru;

	do {
		lru = list_next_entry(lru, link);
	} while (!ttm_lru_item_is_res(lru));

	return ttm_lru_item_to_res(lru);
}

/* Move the resource to the tail of the bulk move range */
static void ttm_lru_bulk_move_pos_tail(struct ttm_lru_bulk_move_pos *pos,
				       struct ttm_resource *res)
{
	if (pos->last != res) {
		if (pos->first == res)
			pos->first = ttm_lru_next_res(res);
		list_move(&res->lru.link, &pos->last->lru.link);
		pos->last = res;
	}
}

/*
 * Return where each residency level of this resource's range ends, or NULL
 * if the range holds NORMAL resources only.
 */
static struct ttm_resource **
ttm_lru_bulk_move_levels(struct ttm_lru_bulk_move *bulk,
			 struct ttm_resource *res)
{
	if (!bulk->levels)
		return NULL;
	return bulk->levels->last[res->mem_type][res->bo->priority];
}

/*
 * Put a resource that joins the range into its level: at the level's end,
 * behind its last resource, or, with @front, at its front. Behind the
 * highest level below it when the level has nothing in the way, or else
 * in front of the range.
 */
static void ttm_lru_bulk_move_join_level(struct ttm_lru_bulk_move_pos *pos,
					 struct ttm_resource **levels,
					 struct ttm_resource *res, bool front)
{
	int level = res->residency;
	int i;

	for (i = front ? level - 1 : level; i >= 0; i--) {
		if (levels[i]) {
			list_move(&res->lru.link, &levels[i]->lru.link);
			if (pos->last == levels[i])
				pos->last = res;
			goto joined;
		}
	}
	list_move_tail(&res->lru.link, &pos->first->lru.link);
	pos->first = res;
joined:
	if (!front || !levels[level])
		levels[level] = res;
}

/* The resource before this one if it is in the same level, else NULL */
static struct ttm_resource *
ttm_lru_bulk_move_prev_in_level(struct ttm_lru_bulk_move_pos *pos,
				struct ttm_resource *res)
{
	struct ttm_resource *prev;

	if (pos->first == res)
		return NULL;

	prev = ttm_lru_prev_res(res);
	return prev->residency == res->residency ? prev : NULL;
}

/*
 * Add the resource to a bulk_move cursor, in its BO's level if the range
 * holds levels, else as NORMAL; at the level's end, or with @front at its
 * front.
 */
static void ttm_lru_bulk_move_add(struct ttm_lru_bulk_move *bulk,
				  struct ttm_resource *res, bool front)
{
	struct ttm_lru_bulk_move_pos *pos = ttm_lru_bulk_move_pos(bulk, res);
	struct ttm_resource **levels = ttm_lru_bulk_move_levels(bulk, res);

	res->residency = levels ? res->bo->residency : TTM_RESIDENCY_NORMAL;
	if (!pos->first) {
		pos->first = res;
		pos->last = res;
		if (levels)
			levels[res->residency] = res;
	} else {
		WARN_ON(pos->first->bo->base.resv != res->bo->base.resv);
		if (levels)
			ttm_lru_bulk_move_join_level(pos, levels, res, front);
		else
			ttm_lru_bulk_move_pos_tail(pos, res);
	}
}

/* Remove the resource from a bulk_move range */
static void ttm_lru_bulk_move_del(struct ttm_lru_bulk_move *bulk,
				  struct ttm_resource *res)
{
	struct ttm_lru_bulk_move_pos *pos = ttm_lru_bulk_move_pos(bulk, res);
	struct ttm_resource **levels = ttm_lru_bulk_move_levels(bulk, res);

	if (unlikely(WARN_ON(!pos->first || !pos->last) ||
		     (pos->first == res && pos->last == res))) {
		pos->first = NULL;
		pos->last = NULL;
		if (levels)
			memset(levels, 0, sizeof(*levels) * TTM_NUM_RESIDENCY);
		return;
	}

	if (levels && levels[res->residency] == res)
		levels[res->residency] = ttm_lru_bulk_move_prev_in_level(pos, res);

	if (pos->first == res) {
		pos->first = ttm_lru_next_res(res);
	} else if (pos->last == res) {
		pos->last = ttm_lru_prev_res(res);
	} else {
		list_move(&res->lru.link, &pos->last->lru.link);
	}
}

/*
 * Move the resource to the end of its level in the bulk move range: one
 * list move, as without levels. A resource whose BO changed level while it
 * was its second resource moves to its BO's level.
 */
static void ttm_lru_bulk_move_use(struct ttm_lru_bulk_move *bulk,
				  struct ttm_resource *res)
{
	struct ttm_lru_bulk_move_pos *pos = ttm_lru_bulk_move_pos(bulk, res);
	struct ttm_resource **levels = ttm_lru_bulk_move_levels(bulk, res);
	struct ttm_resource *last;

	if (!levels) {
		ttm_lru_bulk_move_pos_tail(pos, res);
		return;
	}
	if (unlikely(res->residency != res->bo->residency)) {
		ttm_lru_bulk_move_del(bulk, res);
		ttm_lru_bulk_move_add(bulk, res, false);
		return;
	}
	last = levels[res->residency];
	if (last == res)
		return;

	if (pos->first == res)
		pos->first = ttm_lru_next_res(res);
	list_move(&res->lru.link, &last->lru.link);
	if (pos->last == last)
		pos->last = res;
	levels[res->residency] = res;
}

static bool ttm_resource_is_swapped(struct ttm_resource *res, struct ttm_buffer_object *bo)
{
	/*
	 * Take care when creating a new resource for a bo, that it is not considered
	 * swapped if it's not the current resource for the bo and is thus logically
	 * associated with the ttm_tt. Think a VRAM resource created to move a
	 * swapped-out bo to VRAM.
	 */
	if (bo->resource != res || !bo->ttm)
		return false;

	dma_resv_assert_held(bo->base.resv);
	return ttm_tt_is_swapped(bo->ttm);
}

static bool ttm_resource_unevictable(struct ttm_resource *res, struct ttm_buffer_object *bo)
{
	return bo->pin_count || ttm_resource_is_swapped(res, bo);
}

/* Add the resource to a bulk move if the BO is configured for it */
void ttm_resource_add_bulk_move(struct ttm_resource *res,
				struct ttm_buffer_object *bo)
{
	if (bo->bulk_move && !ttm_resource_unevictable(res, bo))
		ttm_lru_bulk_move_add(bo->bulk_move, res, false);
}

/*
 * Move a resource of a BO whose level changed to the front of its new
 * level: a level change is not a use, and a BO set to a lower level is
 * the first of that level to go. A range without levels keeps its order.
 */
void ttm_resource_change_level(struct ttm_resource *res,
			       struct ttm_buffer_object *bo)
{
	if (!bo->bulk_move || ttm_resource_unevictable(res, bo) ||
	    !ttm_lru_bulk_move_levels(bo->bulk_move, res))
		return;

	ttm_lru_bulk_move_del(bo->bulk_move, res);
	ttm_lru_bulk_move_add(bo->bulk_move, res, true);
}

/* Remove the resource from a bulk move if the BO is configured for it */
void ttm_resource_del_bulk_move(struct ttm_resource *res,
				struct ttm_buffer_object *bo)
{
	if (bo->bulk_move && !ttm_resource_unevictable(res, bo))
		ttm_lru_bulk_move_del(bo->bulk_move, res);
}

/*
 * Remove a resource from its bulk_move, bypassing the unevictable check.
 * Use only when the resource is known to still be tracked in the range despite
 * the BO having just become unevictable; asserts that this is the case.
 */
void ttm_resource_del_bulk_move_unevictable(struct ttm_resource *res,
					    struct ttm_buffer_object *bo)
{
	WARN_ON_ONCE(!ttm_resource_unevictable(res, bo));
	if (bo->bulk_move)
		ttm_lru_bulk_move_del(bo->bulk_move, res);
}

/* Move a resource to the LRU or bulk tail */
void ttm_resource_move_to_lru_tail(struct ttm_resource *res)
{
	struct ttm_buffer_object *bo = res->bo;
	struct ttm_device *bdev = bo->bdev;

	lockdep_assert_held(&bo->bdev->lru_lock);

	if (ttm_resource_unevictable(res, bo)) {
		list_move_tail(&res->lru.link, &bdev->unevictable);

	} else if (bo->bulk_move) {
		ttm_lru_bulk_move_use(bo->bulk_move, res);
	} else {
		struct ttm_resource_manager *man;

		man = ttm_manager_type(bdev, res->mem_type);
		list_move_tail(&res->lru.link, &man->lru[bo->priority]);
	}
}

/**
 * ttm_resource_init - resource object constructor
 * @bo: buffer object this resource is allocated for
 * @place: placement of the resource
 * @res: the resource object to initialize
 *
 * Initialize a new resource object. Counterpart of ttm_resource_fini().
 */
void ttm_resource_init(struct ttm_buffer_object *bo,
                       const struct ttm_place *place,
                       struct ttm_resource *res)
{
	struct ttm_resource_manager *man;

	res->start = 0;
	res->size = bo->base.size;
	res->mem_type = place->mem_type;
	res->placement = place->flags;
	res->bus.addr = NULL;
	res->bus.offset = 0;
	res->bus.is_iomem = false;
	res->bus.caching = ttm_cached;
	res->bo = bo;
	res->evict_window_mark = 0;

	man = ttm_manager_type(bo->bdev, place->mem_type);
	spin_lock(&bo->bdev->lru_lock);
	if (ttm_resource_unevictable(res, bo))
		list_add_tail(&res->lru.link, &bo->bdev->unevictable);
	else
		list_add_tail(&res->lru.link, &man->lru[bo->priority]);
	man->usage += res->size;
	spin_unlock(&bo->bdev->lru_lock);
}
EXPORT_SYMBOL(ttm_resource_init);

/**
 * ttm_resource_fini - resource destructor
 * @man: the resource manager this resource belongs to
 * @res: the resource to clean up
 *
 * Should be used by resource manager backends to clean up the TTM resource
 * objects before freeing the underlying structure. Makes sure the resource is
 * removed from the LRU before destruction.
 * Counterpart of ttm_resource_init().
 */
void ttm_resource_fini(struct ttm_resource_manager *man,
		       struct ttm_resource *res)
{
	struct ttm_device *bdev = man->bdev;

	spin_lock(&bdev->lru_lock);
	list_del_init(&res->lru.link);
	man->usage -= res->size;
	spin_unlock(&bdev->lru_lock);
}
EXPORT_SYMBOL(ttm_resource_fini);

/**
 * ttm_resource_try_charge - charge a resource manager's cgroup pool
 * @bo: buffer for which an allocation should be charged
 * @place: where the allocation is attempted to be placed
 * @ret_pool: on charge success, the pool that was charged
 * @ret_limit_pool: on charge failure, the pool responsible for the failure
 *
 * Should be used to charge cgroups before attempting resource allocation.
 * When charging succeeds, the value of ret_pool should be passed to
 * ttm_resource_alloc.
 *
 * Returns: 0 on charge success, negative errno on failure.
 */
int ttm_resource_try_charge(struct ttm_buffer_object *bo,
			    const struct ttm_place *place,
			    struct dmem_cgroup_pool_state **ret_pool,
			    struct dmem_cgroup_pool_state **ret_limit_pool)
{
	struct ttm_resource_manager *man =
		ttm_manager_type(bo->bdev, place->mem_type);

	if (!man->cg) {
		*ret_pool = NULL;
		if (ret_limit_pool)
			*ret_limit_pool = NULL;
		return 0;
	}

	return dmem_cgroup_try_charge(man->cg, bo->base.size, ret_pool,
				      ret_limit_pool);
}

int ttm_resource_alloc(struct ttm_buffer_object *bo,
		       const struct ttm_place *place,
		       struct ttm_resource **res_ptr,
		       struct dmem_cgroup_pool_state *charge_pool)
{
	struct ttm_resource_manager *man =
		ttm_manager_type(bo->bdev, place->mem_type);
	int ret;

	if (bo->bulk_move && bo->residency != TTM_RESIDENCY_NORMAL)
		ttm_lru_bulk_move_need_levels(bo, bo->bulk_move,
					      place->mem_type);

	ret = man->func->alloc(man, bo, place, res_ptr);
	if (ret)
		return ret;

	(*res_ptr)->css = charge_pool;

	spin_lock(&bo->bdev->lru_lock);
	ttm_resource_add_bulk_move(*res_ptr, bo);
	spin_unlock(&bo->bdev->lru_lock);
	return 0;
}
EXPORT_SYMBOL_FOR_TESTS_ONLY(ttm_resource_alloc);

void ttm_resource_free(struct ttm_buffer_object *bo, struct ttm_resource **res)
{
	struct ttm_resource_manager *man;
	struct dmem_cgroup_pool_state *pool;

	if (!*res)
		return;

	spin_lock(&bo->bdev->lru_lock);
	ttm_resource_del_bulk_move(*res, bo);
	spin_unlock(&bo->bdev->lru_lock);

	pool = (*res)->css;
	man = ttm_manager_type(bo->bdev, (*res)->mem_type);
	man->func->free(man, *res);
	*res = NULL;
	if (pool)
		dmem_cgroup_uncharge(pool, bo->base.size);
}
EXPORT_SYMBOL(ttm_resource_free);

/**
 * ttm_resource_intersects - test for intersection
 *
 * @bdev: TTM device structure
 * @res: The resource to test
 * @place: The placement to test
 * @size: How many bytes the new allocation needs.
 *
 * Test if @res intersects with @place and @size. Used for testing if evictions
 * are valuable or not.
 *
 * Returns true if the res placement intersects with @place and @size.
 */
bool ttm_resource_intersects(struct ttm_device *bdev,
			     struct ttm_resource *res,
			     const struct ttm_place *place,
			     size_t size)
{
	struct ttm_resource_manager *man;

	man = ttm_manager_type(bdev, res->mem_type);
	if (!place || !man->func->intersects)
		return true;

	return man->func->intersects(man, res, place, size);
}

/**
 * ttm_resource_compatible - check if resource is compatible with placement
 *
 * @res: the resource to check
 * @placement: the placement to check against
 * @evicting: true if the caller is doing evictions
 *
 * Returns true if the placement is compatible.
 */
bool ttm_resource_compatible(struct ttm_resource *res,
			     struct ttm_placement *placement,
			     bool evicting)
{
	struct ttm_buffer_object *bo = res->bo;
	struct ttm_device *bdev = bo->bdev;
	unsigned i;

	if (res->placement & TTM_PL_FLAG_TEMPORARY)
		return false;

	for (i = 0; i < placement->num_placement; i++) {
		const struct ttm_place *place = &placement->placement[i];
		struct ttm_resource_manager *man;

		if (res->mem_type != place->mem_type)
			continue;

		if (place->flags & (evicting ? TTM_PL_FLAG_DESIRED :
				    TTM_PL_FLAG_FALLBACK))
			continue;

		if (place->flags & TTM_PL_FLAG_CONTIGUOUS &&
		    !(res->placement & TTM_PL_FLAG_CONTIGUOUS))
			continue;

		man = ttm_manager_type(bdev, res->mem_type);
		if (man->func->compatible &&
		    !man->func->compatible(man, res, place, bo->base.size))
			continue;

		return true;
	}
	return false;
}

void ttm_resource_set_bo(struct ttm_resource *res,
			 struct ttm_buffer_object *bo)
{
	spin_lock(&bo->bdev->lru_lock);
	res->bo = bo;
	spin_unlock(&bo->bdev->lru_lock);
}

/**
 * ttm_resource_manager_init
 *
 * @man: memory manager object to init
 * @bdev: ttm device this manager belongs to
 * @size: size of managed resources in arbitrary units
 *
 * Initialize core parts of a manager object.
 */
void ttm_resource_manager_init(struct ttm_resource_manager *man,
			       struct ttm_device *bdev,
			       uint64_t size)
{
	unsigned i;

	man->bdev = bdev;
	man->size = size;
	man->usage = 0;

	for (i = 0; i < TTM_MAX_BO_PRIORITY; ++i)
		INIT_LIST_HEAD(&man->lru[i]);
	spin_lock_init(&man->eviction_lock);
	for (i = 0; i < TTM_NUM_MOVE_FENCES; i++)
		man->eviction_fences[i] = NULL;
}
EXPORT_SYMBOL(ttm_resource_manager_init);

/*
 * ttm_resource_manager_evict_all
 *
 * @bdev: device to use
 * @man: manager to use
 *
 * Evict all the objects out of a memory manager until it is empty.
 * Part of memory manager cleanup sequence.
 */
int ttm_resource_manager_evict_all(struct ttm_device *bdev,
				   struct ttm_resource_manager *man)
{
	struct ttm_operation_ctx ctx = { };
	struct dma_fence *fence;
	int ret, i;

	do {
		ret = ttm_bo_evict_first(bdev, man, &ctx);
		cond_resched();
	} while (!ret);

	if (ret && ret != -ENOENT)
		return ret;

	ret = 0;

	spin_lock(&man->eviction_lock);
	for (i = 0; i < TTM_NUM_MOVE_FENCES; i++) {
		fence = man->eviction_fences[i];
		if (fence && !dma_fence_is_signaled(fence)) {
			dma_fence_get(fence);
			spin_unlock(&man->eviction_lock);
			ret = dma_fence_wait(fence, false);
			dma_fence_put(fence);
			if (ret)
				return ret;
			spin_lock(&man->eviction_lock);
		}
	}
	spin_unlock(&man->eviction_lock);

	return ret;
}
EXPORT_SYMBOL(ttm_resource_manager_evict_all);

/**
 * ttm_resource_manager_usage
 *
 * @man: A memory manager object.
 *
 * Return how many resources are currently used.
 */
uint64_t ttm_resource_manager_usage(struct ttm_resource_manager *man)
{
	uint64_t usage;

	if (WARN_ON_ONCE(!man->bdev))
		return 0;

	spin_lock(&man->bdev->lru_lock);
	usage = man->usage;
	spin_unlock(&man->bdev->lru_lock);
	return usage;
}
EXPORT_SYMBOL(ttm_resource_manager_usage);

/**
 * ttm_resource_manager_debug
 *
 * @man: manager type to dump.
 * @p: printer to use for debug.
 */
void ttm_resource_manager_debug(struct ttm_resource_manager *man,
				struct drm_printer *p)
{
	drm_printf(p, "  use_type: %d\n", man->use_type);
	drm_printf(p, "  use_tt: %d\n", man->use_tt);
	drm_printf(p, "  size: %llu\n", man->size);
	drm_printf(p, "  usage: %llu\n", ttm_resource_manager_usage(man));
	if (man->func->debug)
		man->func->debug(man, p);
}
EXPORT_SYMBOL(ttm_resource_manager_debug);

static void
ttm_resource_cursor_check_bulk(struct ttm_resource_cursor *cursor,
			       struct ttm_lru_item *next_lru)
{
	struct ttm_resource *next = ttm_lru_item_to_res(next_lru);
	struct ttm_lru_bulk_move *bulk;

	lockdep_assert_held(&cursor->man->bdev->lru_lock);

	bulk = next->bo->bulk_move;

	if (cursor->bulk != bulk) {
		if (bulk) {
			list_move_tail(&cursor->bulk_link, &bulk->cursor_list);
			cursor->mem_type = next->mem_type;
		} else {
			list_del_init(&cursor->bulk_link);
		}
		cursor->bulk = bulk;
	}
}

/**
 * ttm_resource_manager_first() - Start iterating over the resources
 * of a resource manager
 * @cursor: cursor to record the position
 *
 * Initializes the cursor and starts iterating. When done iterating,
 * the caller must explicitly call ttm_resource_cursor_fini().
 *
 * Return: The first resource from the resource manager.
 */
struct ttm_resource *
ttm_resource_manager_first(struct ttm_resource_cursor *cursor)
{
	struct ttm_resource_manager *man = cursor->man;

	if (WARN_ON_ONCE(!man))
		return NULL;

	lockdep_assert_held(&man->bdev->lru_lock);

	list_move(&cursor->hitch.link, &man->lru[cursor->priority]);
	return ttm_resource_manager_next(cursor);
}
EXPORT_SYMBOL_FOR_TESTS_ONLY(ttm_resource_manager_first);

/**
 * ttm_resource_manager_next() - Continue iterating over the resource manager
 * resources
 * @cursor: cursor to record the position
 *
 * Return: the next resource from the resource manager.
 */
struct ttm_resource *
ttm_resource_manager_next(struct ttm_resource_cursor *cursor)
{
	struct ttm_resource_manager *man = cursor->man;
	struct ttm_lru_item *lru;

	lockdep_assert_held(&man->bdev->lru_lock);

	for (;;) {
		lru = &cursor->hitch;
		list_for_each_entry_continue(lru, &man->lru[cursor->priority], link) {
			if (ttm_lru_item_is_res(lru)) {
				ttm_resource_cursor_check_bulk(cursor, lru);
				list_move(&cursor->hitch.link, &lru->link);
				return ttm_lru_item_to_res(lru);
			}
		}

		if (++cursor->priority >= TTM_MAX_BO_PRIORITY)
			break;

		list_move(&cursor->hitch.link, &man->lru[cursor->priority]);
		ttm_resource_cursor_clear_bulk(cursor);
	}

	return NULL;
}
EXPORT_SYMBOL_FOR_TESTS_ONLY(ttm_resource_manager_next);

/**
 * ttm_lru_first_res_or_null() - Return the first resource on an lru list
 * @head: The list head of the lru list.
 *
 * Return: Pointer to the first resource on the lru list or NULL if
 * there is none.
 */
struct ttm_resource *ttm_lru_first_res_or_null(struct list_head *head)
{
	struct ttm_lru_item *lru;

	list_for_each_entry(lru, head, link) {
		if (ttm_lru_item_is_res(lru))
			return ttm_lru_item_to_res(lru);
	}

	return NULL;
}

static void ttm_kmap_iter_iomap_map_local(struct ttm_kmap_iter *iter,
					  struct iosys_map *dmap,
					  pgoff_t i)
{
	struct ttm_kmap_iter_iomap *iter_io =
		container_of(iter, typeof(*iter_io), base);
	void __iomem *addr;

retry:
	while (i >= iter_io->cache.end) {
		iter_io->cache.sg = iter_io->cache.sg ?
			sg_next(iter_io->cache.sg) : iter_io->st->sgl;
		iter_io->cache.i = iter_io->cache.end;
		iter_io->cache.end += sg_dma_len(iter_io->cache.sg) >>
			PAGE_SHIFT;
		iter_io->cache.offs = sg_dma_address(iter_io->cache.sg) -
			iter_io->start;
	}

	if (i < iter_io->cache.i) {
		iter_io->cache.end = 0;
		iter_io->cache.sg = NULL;
		goto retry;
	}

	addr = io_mapping_map_local_wc(iter_io->iomap, iter_io->cache.offs +
				       (((resource_size_t)i - iter_io->cache.i)
					<< PAGE_SHIFT));
	iosys_map_set_vaddr_iomem(dmap, addr);
}

static void ttm_kmap_iter_iomap_unmap_local(struct ttm_kmap_iter *iter,
					    struct iosys_map *map)
{
	io_mapping_unmap_local(map->vaddr_iomem);
}

static const struct ttm_kmap_iter_ops ttm_kmap_iter_io_ops = {
	.map_local =  ttm_kmap_iter_iomap_map_local,
	.unmap_local = ttm_kmap_iter_iomap_unmap_local,
	.maps_tt = false,
};

/**
 * ttm_kmap_iter_iomap_init - Initialize a struct ttm_kmap_iter_iomap
 * @iter_io: The struct ttm_kmap_iter_iomap to initialize.
 * @iomap: The struct io_mapping representing the underlying linear io_memory.
 * @st: sg_table into @iomap, representing the memory of the struct
 * ttm_resource.
 * @start: Offset that needs to be subtracted from @st to make
 * sg_dma_address(st->sgl) - @start == 0 for @iomap start.
 *
 * Return: Pointer to the embedded struct ttm_kmap_iter.
 */
struct ttm_kmap_iter *
ttm_kmap_iter_iomap_init(struct ttm_kmap_iter_iomap *iter_io,
			 struct io_mapping *iomap,
			 struct sg_table *st,
			 resource_size_t start)
{
	iter_io->base.ops = &ttm_kmap_iter_io_ops;
	iter_io->iomap = iomap;
	iter_io->st = st;
	iter_io->start = start;
	memset(&iter_io->cache, 0, sizeof(iter_io->cache));

	return &iter_io->base;
}
EXPORT_SYMBOL(ttm_kmap_iter_iomap_init);

/**
 * DOC: Linear io iterator
 *
 * This code should die in the not too near future. Best would be if we could
 * make io-mapping use memremap for all io memory, and have memremap
 * implement a kmap_local functionality. We could then strip a huge amount of
 * code. These linear io iterators are implemented to mimic old functionality,
 * and they don't use kmap_local semantics at all internally. Rather ioremap or
 * friends, and at least on 32-bit they add global TLB flushes and points
 * of failure.
 */

static void ttm_kmap_iter_linear_io_map_local(struct ttm_kmap_iter *iter,
					      struct iosys_map *dmap,
					      pgoff_t i)
{
	struct ttm_kmap_iter_linear_io *iter_io =
		container_of(iter, typeof(*iter_io), base);

	*dmap = iter_io->dmap;
	iosys_map_incr(dmap, i * PAGE_SIZE);
}

static const struct ttm_kmap_iter_ops ttm_kmap_iter_linear_io_ops = {
	.map_local =  ttm_kmap_iter_linear_io_map_local,
	.maps_tt = false,
};

/**
 * ttm_kmap_iter_linear_io_init - Initialize an iterator for linear io memory
 * @iter_io: The iterator to initialize
 * @bdev: The TTM device
 * @mem: The ttm resource representing the iomap.
 *
 * This function is for internal TTM use only. It sets up a memcpy kmap iterator
 * pointing at a linear chunk of io memory.
 *
 * Return: A pointer to the embedded struct ttm_kmap_iter or error pointer on
 * failure.
 */
struct ttm_kmap_iter *
ttm_kmap_iter_linear_io_init(struct ttm_kmap_iter_linear_io *iter_io,
			     struct ttm_device *bdev,
			     struct ttm_resource *mem)
{
	int ret;

	ret = ttm_mem_io_reserve(bdev, mem);
	if (ret)
		goto out_err;
	if (!mem->bus.is_iomem) {
		ret = -EINVAL;
		goto out_io_free;
	}

	if (mem->bus.addr) {
		iosys_map_set_vaddr(&iter_io->dmap, mem->bus.addr);
		iter_io->needs_unmap = false;
	} else {
		iter_io->needs_unmap = true;
		memset(&iter_io->dmap, 0, sizeof(iter_io->dmap));
		if (mem->bus.caching == ttm_write_combined)
			iosys_map_set_vaddr_iomem(&iter_io->dmap,
						  ioremap_wc(mem->bus.offset,
							     mem->size));
		else if (mem->bus.caching == ttm_cached)
			iosys_map_set_vaddr(&iter_io->dmap,
					    memremap(mem->bus.offset, mem->size,
						     MEMREMAP_WB |
						     MEMREMAP_WT |
						     MEMREMAP_WC));

		/* If uncached requested or if mapping cached or wc failed */
		if (iosys_map_is_null(&iter_io->dmap))
			iosys_map_set_vaddr_iomem(&iter_io->dmap,
						  ioremap(mem->bus.offset,
							  mem->size));

		if (iosys_map_is_null(&iter_io->dmap)) {
			ret = -ENOMEM;
			goto out_io_free;
		}
	}

	iter_io->base.ops = &ttm_kmap_iter_linear_io_ops;
	return &iter_io->base;

out_io_free:
	ttm_mem_io_free(bdev, mem);
out_err:
	return ERR_PTR(ret);
}

/**
 * ttm_kmap_iter_linear_io_fini - Clean up an iterator for linear io memory
 * @iter_io: The iterator to finalize
 * @bdev: The TTM device
 * @mem: The ttm resource representing the iomap.
 *
 * This function is for internal TTM use only. It cleans up a memcpy kmap
 * iterator initialized by ttm_kmap_iter_linear_io_init.
 */
void
ttm_kmap_iter_linear_io_fini(struct ttm_kmap_iter_linear_io *iter_io,
			     struct ttm_device *bdev,
			     struct ttm_resource *mem)
{
	if (iter_io->needs_unmap && iosys_map_is_set(&iter_io->dmap)) {
		if (iter_io->dmap.is_iomem)
			iounmap(iter_io->dmap.vaddr_iomem);
		else
			memunmap(iter_io->dmap.vaddr);
	}

	ttm_mem_io_free(bdev, mem);
}

#if defined(CONFIG_DEBUG_FS)

static int ttm_resource_manager_show(struct seq_file *m, void *unused)
{
	struct ttm_resource_manager *man =
		(struct ttm_resource_manager *)m->private;
	struct drm_printer p = drm_seq_file_printer(m);
	ttm_resource_manager_debug(man, &p);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ttm_resource_manager);

#endif

/**
 * ttm_resource_manager_create_debugfs - Create debugfs entry for specified
 * resource manager.
 * @man: The TTM resource manager for which the debugfs stats file to be created
 * @parent: debugfs directory in which the file will reside
 * @name: The filename to create.
 *
 * This function sets up a debugfs file that can be used to look
 * at debug statistics of the specified ttm_resource_manager.
 */
void ttm_resource_manager_create_debugfs(struct ttm_resource_manager *man,
					 struct dentry *parent,
					 const char *name)
{
#if defined(CONFIG_DEBUG_FS)
	debugfs_create_file(name, 0444, parent, man, &ttm_resource_manager_fops);
#endif
}
EXPORT_SYMBOL(ttm_resource_manager_create_debugfs);

/**
 * ttm_resource_manager_dmem_reclaim() - dmem cgroup reclaim callback for TTM
 *                                       resource managers.
 * @pool: The dmem cgroup pool state for the cgroup being reclaimed.
 * @target_bytes: Number of bytes to try to free.
 * @priv: The &ttm_resource_manager pointer, passed as @init.reclaim_priv to
 *        dmem_cgroup_register_region().
 *
 * Drivers should use this as the @reclaim member of their own
 * &struct dmem_cgroup_ops, with the &ttm_resource_manager pointer as
 * @init.reclaim_priv.
 *
 * Return: 0 if some memory was freed, -ENOSPC if nothing was freed, or
 *         another negative error code on fatal failure.
 */
int ttm_resource_manager_dmem_reclaim(struct dmem_cgroup_pool_state *pool,
				      u64 target_bytes, void *priv)
{
	struct ttm_resource_manager *man = priv;
	struct ttm_operation_ctx ctx = { .interruptible = true };
	s64 freed;

	freed = ttm_bo_evict_cgroup(man->bdev, man, pool, target_bytes, &ctx);
	if (freed < 0)
		return freed;

	return freed > 0 ? 0 : -ENOSPC;
}
EXPORT_SYMBOL(ttm_resource_manager_dmem_reclaim);

/**
 * ttm_resource_manager_set_dmem_region() - Associate a dmem cgroup region with a
 *                                        resource manager.
 * @man: The resource manager.
 * @region: The dmem cgroup region to associate, may be NULL or IS_ERR().
 *
 * When @region is valid, stores it in @man->cg so that TTM can look up the
 * associated pool during charging and eviction-target selection.  When
 * @region is %NULL, clears @man->cg to detach the region before teardown.
 * An IS_ERR() @region is ignored, leaving @man->cg unchanged.
 * The reclaim callback must be wired up using ttm_resource_manager_dmem_reclaim()
 * in the driver's own &struct dmem_cgroup_ops, with the manager pointer as
 * @init.reclaim_priv.
 */
void ttm_resource_manager_set_dmem_region(struct ttm_resource_manager *man,
					  struct dmem_cgroup_region *region)
{
	if (!IS_ERR(region))
		man->cg = region;
}
EXPORT_SYMBOL(ttm_resource_manager_set_dmem_region);
