// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vttm's VRAM: a TTM resource manager on the buddy allocator, as the VRAM
 * managers of discrete GPUs have, and an iterator to copy its resources.
 */

#include <linux/gpu_buddy.h>
#include <linux/iosys-map.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include <drm/drm_buddy.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_placement.h>

#include "vttm_drv.h"

/**
 * struct vttm_vram_mgr - the VRAM manager
 * @man: The TTM resource manager.
 * @mm: The buddy allocator of VRAM, in bytes from its start.
 * @lock: Protects @mm.
 */
struct vttm_vram_mgr {
	struct ttm_resource_manager man;
	struct gpu_buddy mm;
	struct mutex lock; /* Protects @mm. */
};

/**
 * struct vttm_vram_res - a VRAM resource
 * @base: The TTM resource.
 * @blocks: Its buddy blocks, which need not be contiguous.
 */
struct vttm_vram_res {
	struct ttm_resource base;
	struct list_head blocks;
};

/**
 * to_vram_mgr - the VRAM manager of a TTM resource manager
 * @man: The resource manager of VRAM.
 *
 * Return: The &vttm_vram_mgr embedding @man.
 */
static struct vttm_vram_mgr *to_vram_mgr(struct ttm_resource_manager *man)
{
	return container_of(man, struct vttm_vram_mgr, man);
}

/**
 * to_vram_res - the VRAM resource of a TTM resource
 * @res: A resource of the VRAM manager.
 *
 * Return: The &vttm_vram_res embedding @res.
 */
static struct vttm_vram_res *to_vram_res(struct ttm_resource *res)
{
	return container_of(res, struct vttm_vram_res, base);
}

/**
 * vttm_vram_alloc - &ttm_resource_manager_func.alloc: allocate VRAM
 * @man: The VRAM manager.
 * @tbo: The buffer the VRAM is for.
 * @place: Where in VRAM. vttm's places ask for no range or direction;
 *	any free pages do, one contiguous range for %TTM_PL_FLAG_CONTIGUOUS.
 * @res: Out: the new resource.
 *
 * Return: 0, -ENOSPC if there are not enough free pages, which makes TTM
 * evict, or -ENOMEM.
 */
static int vttm_vram_alloc(struct ttm_resource_manager *man,
			   struct ttm_buffer_object *tbo,
			   const struct ttm_place *place,
			   struct ttm_resource **res)
{
	struct vttm_vram_mgr *mgr = to_vram_mgr(man);
	unsigned long flags = 0;
	struct gpu_buddy_block *block;
	struct vttm_vram_res *vres;
	int ret;

	if (place->flags & TTM_PL_FLAG_CONTIGUOUS)
		flags |= GPU_BUDDY_CONTIGUOUS_ALLOCATION;

	vres = kzalloc_obj(*vres);
	if (!vres)
		return -ENOMEM;

	ttm_resource_init(tbo, place, &vres->base);
	INIT_LIST_HEAD(&vres->blocks);

	mutex_lock(&mgr->lock);
	ret = gpu_buddy_alloc_blocks(&mgr->mm, 0, man->size, vres->base.size,
				     PAGE_SIZE, &vres->blocks, flags);
	/* Each block names its resource, for ttm_buddy_evict_window(). */
	list_for_each_entry(block, &vres->blocks, link)
		block->private = &vres->base;
	mutex_unlock(&mgr->lock);
	if (ret) {
		ttm_resource_fini(man, &vres->base);
		kfree(vres);
		return ret;
	}

	*res = &vres->base;
	return 0;
}

/**
 * vttm_vram_free - &ttm_resource_manager_func.free: free VRAM
 * @man: The VRAM manager.
 * @res: A resource from vttm_vram_alloc().
 */
static void vttm_vram_free(struct ttm_resource_manager *man,
			   struct ttm_resource *res)
{
	struct vttm_vram_mgr *mgr = to_vram_mgr(man);
	struct vttm_vram_res *vres = to_vram_res(res);

	mutex_lock(&mgr->lock);
	gpu_buddy_free_list(&mgr->mm, &vres->blocks, 0);
	mutex_unlock(&mgr->lock);

	ttm_resource_fini(man, res);
	kfree(vres);
}

/**
 * vttm_vram_debug - &ttm_resource_manager_func.debug: print the allocator
 * @man: The VRAM manager.
 * @printer: Where to print.
 */
static void vttm_vram_debug(struct ttm_resource_manager *man,
			    struct drm_printer *printer)
{
	struct vttm_vram_mgr *mgr = to_vram_mgr(man);

	mutex_lock(&mgr->lock);
	drm_buddy_print(&mgr->mm, printer);
	mutex_unlock(&mgr->lock);
}

/**
 * vttm_vram_intersects - &ttm_resource_manager_func.intersects
 * @man: The VRAM manager.
 * @res: A resource of it.
 * @place: The range that eviction makes room in.
 * @size: Unused: @res's own blocks say where it lies.
 *
 * Return: Whether a block of @res lies in @place's range.
 */
static bool vttm_vram_intersects(struct ttm_resource_manager *man,
				 struct ttm_resource *res,
				 const struct ttm_place *place, size_t size)
{
	return ttm_buddy_intersects(&to_vram_mgr(man)->mm,
				    &to_vram_res(res)->blocks, place);
}

/**
 * vttm_vram_evict_window - &ttm_resource_manager_func.evict_window
 * @man: The VRAM manager.
 * @req: A contiguous allocation that found no room.
 * @window: Out: the range the buddy allocator finds cheapest to free.
 *
 * Return: true if @window was set.
 */
static bool vttm_vram_evict_window(struct ttm_resource_manager *man,
				   const struct ttm_evict_window_request *req,
				   struct ttm_evict_window *window)
{
	struct vttm_vram_mgr *mgr = to_vram_mgr(man);

	return ttm_buddy_evict_window(&mgr->mm, &mgr->lock,
				      PAGE_SIZE, req, window);
}

static const struct ttm_resource_manager_func vttm_vram_funcs = {
	.alloc = vttm_vram_alloc,
	.free = vttm_vram_free,
	.intersects = vttm_vram_intersects,
	.debug = vttm_vram_debug,
	.evict_window = vttm_vram_evict_window,
};

/**
 * vttm_vram_mgr_init - set up the VRAM manager
 * @vdev: The device, with its TTM device and VRAM size set up.
 *
 * Return: 0 or a negative errno.
 */
int vttm_vram_mgr_init(struct vttm_device *vdev)
{
	struct vttm_vram_mgr *mgr;
	int ret;

	mgr = kzalloc_obj(*mgr);
	if (!mgr)
		return -ENOMEM;

	ret = gpu_buddy_init(&mgr->mm, vdev->vram_size, PAGE_SIZE);
	if (ret) {
		kfree(mgr);
		return ret;
	}
	mutex_init(&mgr->lock);
	gpu_buddy_driver_set_lock(&mgr->mm, &mgr->lock);

	mgr->man.func = &vttm_vram_funcs;
	ttm_resource_manager_init(&mgr->man, &vdev->ttm, vdev->vram_size);
	ttm_set_driver_manager(&vdev->ttm, TTM_PL_VRAM, &mgr->man);
	ttm_resource_manager_set_used(&mgr->man, true);
	return 0;
}

/**
 * vttm_vram_mgr_fini - tear down what vttm_vram_mgr_init() set up
 * @vdev: The device, whose buffers are all gone.
 */
void vttm_vram_mgr_fini(struct vttm_device *vdev)
{
	struct ttm_resource_manager *man = ttm_manager_type(&vdev->ttm,
							    TTM_PL_VRAM);
	struct vttm_vram_mgr *mgr = to_vram_mgr(man);

	ttm_resource_manager_set_used(man, false);
	/* Buffers released with their last jobs may still be on the way out. */
	if (ttm_resource_manager_evict_all(&vdev->ttm, man))
		return;

	ttm_resource_manager_cleanup(man);
	ttm_set_driver_manager(&vdev->ttm, TTM_PL_VRAM, NULL);
	mutex_lock(&mgr->lock);
	gpu_buddy_fini(&mgr->mm);
	mutex_unlock(&mgr->lock);
	mutex_destroy(&mgr->lock);
	kfree(mgr);
}

/**
 * vttm_vram_map_local - &ttm_kmap_iter_ops.map_local for VRAM
 * @base: The iterator, in a &vttm_vram_iter.
 * @dmap: Out: the address of the page, in system memory.
 * @i: The page of the resource, found block by block from the last one.
 */
static void vttm_vram_map_local(struct ttm_kmap_iter *base,
				struct iosys_map *dmap, pgoff_t i)
{
	struct vttm_vram_iter *iter = container_of(base, typeof(*iter), base);
	pgoff_t pages;

	if (i < iter->first) {
		iter->block = list_first_entry(iter->blocks, typeof(*iter->block),
					       link);
		iter->first = 0;
	}
	for (;;) {
		pages = gpu_buddy_block_size(iter->mm, iter->block) >> PAGE_SHIFT;
		if (i < iter->first + pages)
			break;
		iter->first += pages;
		iter->block = list_next_entry(iter->block, link);
	}

	/* System memory, not I/O memory: ttm_move_memcpy() memcpy()s it. */
	iosys_map_set_vaddr(dmap, iter->vram +
			    gpu_buddy_block_offset(iter->block) +
			    ((i - iter->first) << PAGE_SHIFT));
}

static const struct ttm_kmap_iter_ops vttm_vram_iter_ops = {
	.map_local = vttm_vram_map_local,
	.maps_tt = false,
};

/**
 * vttm_vram_iter_init - set up an iterator over a VRAM resource
 * @iter: The iterator to set up.
 * @vdev: The device.
 * @res: The resource, from the VRAM manager. It must outlive @iter.
 *
 * The iterator maps each page of @res at its address in the vmalloc()ed
 * memory standing in for VRAM; it needs no unmapping.
 *
 * Return: The &ttm_kmap_iter of @iter, for ttm_move_memcpy().
 */
struct ttm_kmap_iter *vttm_vram_iter_init(struct vttm_vram_iter *iter,
					  struct vttm_device *vdev,
					  struct ttm_resource *res)
{
	struct ttm_resource_manager *man = ttm_manager_type(&vdev->ttm,
							    TTM_PL_VRAM);
	struct vttm_vram_res *vres = to_vram_res(res);

	iter->base.ops = &vttm_vram_iter_ops;
	iter->vram = vdev->vram;
	iter->mm = &to_vram_mgr(man)->mm;
	iter->blocks = &vres->blocks;
	iter->block = list_first_entry(&vres->blocks, typeof(*iter->block),
				       link);
	iter->first = 0;
	return &iter->base;
}
