// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vttm's memory: placements, moves and buffer objects.
 */

#include <linux/cgroup_dmem.h>
#include <linux/dma-buf.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_prime.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_range_manager.h>
#include <drm/ttm/ttm_tt.h>

#include "vttm_drv.h"
#include "vttm_uapi.h"

/*
 * Indexed by VTTM_PLACE_* mask: VRAM first, as a job prefers it. GTT is
 * only a fallback for a buffer that allows both: otherwise TTM's first,
 * non-evicting pass would settle it in GTT whenever VRAM is full, and it
 * would stay there.
 */
static const struct ttm_place vttm_places[][2] = {
	[VTTM_PLACE_VRAM] = { { .mem_type = TTM_PL_VRAM } },
	[VTTM_PLACE_GTT] = { { .mem_type = VTTM_PL_GTT } },
	[VTTM_PLACE_VRAM | VTTM_PLACE_GTT] = {
		{ .mem_type = TTM_PL_VRAM },
		{ .mem_type = VTTM_PL_GTT, .flags = TTM_PL_FLAG_FALLBACK },
	},
};

/* A VTTM_BO_CONTIGUOUS buffer's, which may live in VRAM alone. */
static const struct ttm_place vttm_contiguous_place = {
	.mem_type = TTM_PL_VRAM,
	.flags = TTM_PL_FLAG_CONTIGUOUS,
};

static const struct ttm_place vttm_sys_place = { .mem_type = TTM_PL_SYSTEM };

/* TTM throttles no device by default: vttm opts in, with these periods. */
static unsigned int throttle_hard_ms = 5;
module_param(throttle_hard_ms, uint, 0444);
MODULE_PARM_DESC(throttle_hard_ms,
		 "Hard eviction throttle of the clients, in ms, until debugfs sets it (default 5)");

static unsigned int throttle_soft_ms = 2000;
module_param(throttle_soft_ms, uint, 0444);
MODULE_PARM_DESC(throttle_soft_ms,
		 "Soft eviction throttle of the clients, in ms, until debugfs sets it (default 2000)");

/**
 * vttm_placement - the TTM placement of a VTTM_PLACE_* mask
 * @placements: A nonzero VTTM_PLACE_* mask.
 * @placement: Out: the placement, VRAM first.
 */
static void vttm_placement(u32 placements, struct ttm_placement *placement)
{
	placement->placement = vttm_places[placements];
	placement->num_placement = hweight32(placements);
}

/**
 * ttm_to_vttm_bo - the vttm buffer of a TTM buffer object
 * @tbo: A TTM buffer object of vttm.
 *
 * Return: The &vttm_bo embedding @tbo.
 */
static struct vttm_bo *ttm_to_vttm_bo(struct ttm_buffer_object *tbo)
{
	return container_of(tbo, struct vttm_bo, tbo);
}

/**
 * ttm_to_vttm_device - the vttm device of a TTM device
 * @bdev: The TTM device of vttm.
 *
 * Return: The &vttm_device embedding @bdev.
 */
static struct vttm_device *ttm_to_vttm_device(struct ttm_device *bdev)
{
	return container_of(bdev, struct vttm_device, ttm);
}

/**
 * vttm_tt_create - &ttm_device_funcs.ttm_tt_create: cached system pages
 * @tbo: The buffer.
 * @page_flags: TTM_TT_FLAG_* flags.
 *
 * Return: The new &ttm_tt, or NULL if out of memory.
 */
static struct ttm_tt *vttm_tt_create(struct ttm_buffer_object *tbo,
				     u32 page_flags)
{
	struct ttm_tt *tt;

	tt = kzalloc_obj(*tt);
	if (!tt)
		return NULL;

	if (ttm_tt_init(tt, tbo, page_flags, ttm_cached, 0)) {
		kfree(tt);
		return NULL;
	}
	return tt;
}

/**
 * vttm_tt_destroy - &ttm_device_funcs.ttm_tt_destroy
 * @bdev: The TTM device.
 * @tt: A &ttm_tt from vttm_tt_create().
 */
static void vttm_tt_destroy(struct ttm_device *bdev, struct ttm_tt *tt)
{
	ttm_tt_fini(tt);
	kfree(tt);
}

/**
 * vttm_evict_flags - &ttm_device_funcs.evict_flags: where evictions go
 * @tbo: The buffer being evicted.
 * @placement: Out: GTT for a buffer evicted from VRAM that may live there,
 *	system memory otherwise.
 */
static void vttm_evict_flags(struct ttm_buffer_object *tbo,
			     struct ttm_placement *placement)
{
	struct vttm_bo *bo = ttm_to_vttm_bo(tbo);

	if (tbo->resource->mem_type == TTM_PL_VRAM &&
	    bo->placements & VTTM_PLACE_GTT) {
		vttm_placement(VTTM_PLACE_GTT, placement);
		return;
	}
	placement->placement = &vttm_sys_place;
	placement->num_placement = 1;
}

/**
 * vttm_account_move - count a move in its client's statistics
 * @bo: The buffer that moved.
 * @old_type: The memory type it left.
 * @new_type: The memory type it is in now.
 *
 * A move out of VRAM is an eviction; one back into VRAM within a second of
 * the last eviction is a ping-pong.
 */
static void vttm_account_move(struct vttm_bo *bo, u32 old_type, u32 new_type)
{
	struct vttm_stats *stats = &bo->client->stats;
	u64 size = bo->tbo.base.size;

	if (old_type == TTM_PL_VRAM && new_type != TTM_PL_VRAM) {
		atomic64_inc(&stats->evictions);
		atomic64_add(size, &stats->bytes_evicted_from);
		atomic64_add(size, &stats->bytes_evicted_from_level[bo->level]);
		bo->evicted_at = jiffies ?: 1;
	} else if (new_type == TTM_PL_VRAM && old_type != TTM_PL_VRAM) {
		atomic64_add(size, &stats->bytes_moved_to_vram);
		if (bo->evicted_at && time_before(jiffies, bo->evicted_at + HZ))
			atomic64_inc(&stats->pingpongs);
	}
}

/**
 * vttm_bo_copy - copy an idle buffer into or out of VRAM
 * @tbo: The buffer.
 * @ctx: The operation context.
 * @new_mem: Where it goes: into VRAM from system memory or GTT, or out of
 *	VRAM into one of them.
 *
 * Copies with the CPU, page by page: VRAM through its buddy blocks, system
 * memory and GTT through the buffer's pages. A buffer whose pages were never
 * populated has nothing to copy: its VRAM is cleared instead, unless it did
 * not ask for zeroed pages, as ttm_bo_move_memcpy() does. A buffer created
 * with %VTTM_BO_DEFER_BACKING keeps its empty TT then, as xe's clear does.
 *
 * Return: 0, or a negative errno if the buffer's pages cannot be populated.
 */
static int vttm_bo_copy(struct ttm_buffer_object *tbo,
			struct ttm_operation_ctx *ctx,
			struct ttm_resource *new_mem)
{
	struct vttm_device *vdev = ttm_to_vttm_device(tbo->bdev);
	struct ttm_resource *old_mem = tbo->resource;
	struct ttm_kmap_iter *dst, *src;
	struct vttm_vram_iter vram_iter;
	struct ttm_kmap_iter_tt tt_iter;
	struct ttm_tt *tt = tbo->ttm;
	bool clear;
	int ret;

	if (new_mem->mem_type == TTM_PL_VRAM) {
		/* Swapped-out pages come back before they are copied. */
		if (tt && tt->page_flags & TTM_TT_FLAG_SWAPPED) {
			ret = ttm_bo_populate(tbo, ctx);
			if (ret)
				return ret;
		}
		dst = vttm_vram_iter_init(&vram_iter, vdev, new_mem);
		src = ttm_kmap_iter_tt_init(&tt_iter, tt);
		clear = !tt || !ttm_tt_is_populated(tt);
		if (!clear || !tt || tt->page_flags & TTM_TT_FLAG_ZERO_ALLOC)
			ttm_move_memcpy(clear, PFN_UP(new_mem->size), dst, src);
		if (clear && tt &&
		    ttm_to_vttm_bo(tbo)->flags & VTTM_BO_DEFER_BACKING) {
			ttm_bo_move_null(tbo, new_mem);
			return 0;
		}
	} else {
		ret = ttm_bo_populate(tbo, ctx);
		if (ret)
			return ret;
		dst = ttm_kmap_iter_tt_init(&tt_iter, tt);
		src = vttm_vram_iter_init(&vram_iter, vdev, old_mem);
		ttm_move_memcpy(false, PFN_UP(new_mem->size), dst, src);
	}

	ttm_bo_move_sync_cleanup(tbo, new_mem);
	return 0;
}

/**
 * vttm_bo_move - &ttm_device_funcs.move: move a buffer
 * @tbo: The buffer.
 * @evict: Whether this is an eviction.
 * @ctx: The operation context.
 * @new_mem: Where the buffer goes.
 * @hop: Unused: no move needs an intermediate placement.
 *
 * Moves happen once the buffer's jobs are done, as a GPU's copy engine
 * would order them. GTT is system pages, so moves between it and system
 * memory copy nothing; moves into and out of VRAM are real copies. An
 * evicted buffer that still has its handle joins its client's evict list,
 * under the reservation that eviction holds.
 *
 * Return: 0, or a negative errno; -ERESTARTSYS if interrupted.
 */
static int vttm_bo_move(struct ttm_buffer_object *tbo, bool evict,
			struct ttm_operation_ctx *ctx,
			struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct ttm_resource *old_mem = tbo->resource;
	u32 old_type = old_mem ? old_mem->mem_type : TTM_PL_SYSTEM;
	struct vttm_bo *bo;
	int ret;

	ret = ttm_bo_wait_ctx(tbo, ctx);
	if (ret)
		return ret;

	if (old_type != TTM_PL_VRAM && new_mem->mem_type != TTM_PL_VRAM) {
		ttm_bo_move_null(tbo, new_mem);
	} else {
		ret = vttm_bo_copy(tbo, ctx, new_mem);
		if (ret)
			return ret;
	}

	bo = ttm_to_vttm_bo(tbo);
	vttm_account_move(bo, old_type, new_mem->mem_type);
	/*
	 * Detached, it is no longer the client's to validate; attached, it
	 * still shares the client's reservation, which protects the list.
	 */
	if (evict && tbo->bulk_move) {
		dma_resv_assert_held(&bo->client->resv);
		list_move_tail(&bo->evict_link, &bo->client->evicted);
	}
	return 0;
}

/**
 * vttm_bo_destroy - free a buffer once TTM is done with it
 * @tbo: The buffer.
 *
 * Drops the buffer's reference to its client.
 */
static void vttm_bo_destroy(struct ttm_buffer_object *tbo)
{
	struct vttm_bo *bo = ttm_to_vttm_bo(tbo);

	drm_gem_object_release(&tbo->base);
	vttm_client_put(bo->client);
	kfree(bo);
}

static const struct ttm_device_funcs vttm_ttm_funcs = {
	.ttm_tt_create = vttm_tt_create,
	.ttm_tt_destroy = vttm_tt_destroy,
	.eviction_valuable = ttm_bo_eviction_valuable,
	.evict_flags = vttm_evict_flags,
	.move = vttm_bo_move,
};

static const struct dmem_cgroup_ops vttm_dmem_ops = {
	.reclaim = ttm_resource_manager_dmem_reclaim,
};

/**
 * vttm_ttm_init - set up the TTM device, VRAM and GTT
 * @vdev: The device, with its sizes set.
 *
 * Registers VRAM as the dmem cgroup region "drm/<device>/vram0", when the
 * dmem controller is built. Lowering a cgroup's dmem.max below its use
 * evicts that cgroup's buffers, as on xe and amdgpu.
 *
 * Return: 0 or a negative errno.
 */
int vttm_ttm_init(struct vttm_device *vdev)
{
	struct drm_device *drm = &vdev->drm;
	struct ttm_resource_manager *vram_man;
	struct dmem_cgroup_region *region;
	int ret;

	vdev->vram = vzalloc(vdev->vram_size);
	if (!vdev->vram)
		return -ENOMEM;

	ret = ttm_device_init(&vdev->ttm, &vttm_ttm_funcs, drm->dev,
			      drm->anon_inode->i_mapping,
			      drm->vma_offset_manager, 0);
	if (ret)
		goto err_vram;
	vdev->ttm.throttle_periods.hard_ms = throttle_hard_ms;
	vdev->ttm.throttle_periods.soft_ms = throttle_soft_ms;

	ret = vttm_vram_mgr_init(vdev);
	if (ret)
		goto err_device;

	ret = ttm_range_man_init(&vdev->ttm, VTTM_PL_GTT, true,
				 vdev->gtt_size >> PAGE_SHIFT);
	if (ret)
		goto err_vram_man;

	/*
	 * Not drmm_cgroup_register_region(): the region must go before the
	 * VRAM manager its reclaim callback uses, and vttm_ttm_fini() tears
	 * that down before the DRM device is released.
	 */
	vram_man = ttm_manager_type(&vdev->ttm, TTM_PL_VRAM);
	region = dmem_cgroup_register_region(&(struct dmem_cgroup_init){
						.size = vdev->vram_size,
						.ops = &vttm_dmem_ops,
						.reclaim_priv = vram_man,
					     }, "drm/%s/vram0", drm->unique);
	if (IS_ERR(region)) {
		ret = PTR_ERR(region);
		goto err_gtt_man;
	}
	vdev->vram_region = region;
	ttm_resource_manager_set_dmem_region(vram_man, region);
	return 0;

err_gtt_man:
	ttm_range_man_fini(&vdev->ttm, VTTM_PL_GTT);
err_vram_man:
	vttm_vram_mgr_fini(vdev);
err_device:
	ttm_device_fini(&vdev->ttm);
err_vram:
	vfree(vdev->vram);
	return ret;
}

/**
 * vttm_ttm_fini - tear down what vttm_ttm_init() set up
 * @vdev: The device, with no jobs left running.
 */
void vttm_ttm_fini(struct vttm_device *vdev)
{
	/* Waits for a reclaim that is running: it uses the VRAM manager. */
	dmem_cgroup_unregister_region(vdev->vram_region);
	ttm_resource_manager_set_dmem_region(ttm_manager_type(&vdev->ttm,
							      TTM_PL_VRAM),
					     NULL);
	vdev->vram_region = NULL;
	ttm_range_man_fini(&vdev->ttm, VTTM_PL_GTT);
	vttm_vram_mgr_fini(vdev);
	ttm_device_fini(&vdev->ttm);
	vfree(vdev->vram);
}

static_assert(VTTM_RESIDENCY_MINIMUM == TTM_RESIDENCY_MINIMUM);
static_assert(VTTM_RESIDENCY_LOW == TTM_RESIDENCY_LOW);
static_assert(VTTM_RESIDENCY_NORMAL == TTM_RESIDENCY_NORMAL);
static_assert(VTTM_RESIDENCY_HIGH == TTM_RESIDENCY_HIGH);
static_assert(VTTM_RESIDENCY_MAXIMUM == TTM_RESIDENCY_MAXIMUM);
static_assert(VTTM_NUM_RESIDENCY == TTM_NUM_RESIDENCY);

/**
 * vttm_bo_set_residency - set a buffer's residency level
 * @bo: The buffer.
 * @level: VTTM_RESIDENCY_*, checked by the caller.
 *
 * The buffer's eviction figures in fdinfo are counted at its level.
 *
 * Return: 0, or -EINTR if interrupted while taking the client's lock.
 */
int vttm_bo_set_residency(struct vttm_bo *bo, u32 level)
{
	int ret;

	ret = dma_resv_lock_interruptible(bo->tbo.base.resv, NULL);
	if (ret)
		return ret;

	bo->level = level;
	ttm_bo_set_residency(&bo->tbo, level);
	dma_resv_unlock(bo->tbo.base.resv);
	return 0;
}

/**
 * vttm_bo_detach - take a buffer out of its client's LRU bulk move
 * @bo: The buffer, whose handle is gone.
 *
 * TTM releases no buffer that is still in a bulk move. Called where no
 * other reservation is held, unlike the last GEM reference, which an
 * eviction may drop inside its own transaction. The evict list holds no
 * reference: the buffer leaves it here, before it can be freed.
 */
void vttm_bo_detach(struct vttm_bo *bo)
{
	dma_resv_lock(bo->tbo.base.resv, NULL);
	ttm_bo_set_bulk_move(&bo->tbo, NULL);
	list_del_init(&bo->evict_link);
	dma_resv_unlock(bo->tbo.base.resv);
}

/**
 * vttm_gem_open - &drm_gem_object_funcs.open: a new handle to a buffer
 * @obj: The buffer.
 * @file: The file the handle is for.
 *
 * A buffer lives under its client's reservation and LRU bulk move, so only
 * its client may hold a handle to it: one opened by name (GEM_OPEN) from
 * another file would let that file submit it under a lock it does not
 * take. It has one handle in all, whose close detaches it: a second one,
 * by name or by a dma-buf, would outlive the detach.
 *
 * Return: 0, -EACCES for another client's file, or -EBUSY for a second
 * handle.
 */
static int vttm_gem_open(struct drm_gem_object *obj, struct drm_file *file)
{
	struct vttm_bo *bo = to_vttm_bo(obj);

	if (file->driver_priv != bo->client)
		return -EACCES;
	return atomic_cmpxchg(&bo->opened, 0, 1) ? -EBUSY : 0;
}

/**
 * vttm_gem_close - &drm_gem_object_funcs.close: a handle is gone
 * @obj: The buffer.
 * @file: The client's file.
 */
static void vttm_gem_close(struct drm_gem_object *obj, struct drm_file *file)
{
	vttm_bo_detach(to_vttm_bo(obj));
}

/**
 * vttm_gem_free - &drm_gem_object_funcs.free: the last GEM reference is gone
 * @obj: The buffer, which TTM destroys once its jobs are done.
 */
static void vttm_gem_free(struct drm_gem_object *obj)
{
	ttm_bo_fini(&to_vttm_bo(obj)->tbo);
}

/**
 * vttm_dmabuf_attach - &dma_buf_ops.attach: refuse every importer
 * @dma_buf: A dma-buf of vttm.
 * @attach: The attachment.
 *
 * vttm exports buffers to show what an export costs the exporter. No other
 * device may map its memory: its jobs do not fence for outside users.
 *
 * Return: -EOPNOTSUPP.
 */
static int vttm_dmabuf_attach(struct dma_buf *dma_buf,
			      struct dma_buf_attachment *attach)
{
	return -EOPNOTSUPP;
}

static const struct dma_buf_ops vttm_dmabuf_ops = {
	.attach = vttm_dmabuf_attach,
	.map_dma_buf = drm_gem_map_dma_buf,
	.unmap_dma_buf = drm_gem_unmap_dma_buf,
	.release = drm_gem_dmabuf_release,
};

/**
 * vttm_gem_export - &drm_gem_object_funcs.export: export a buffer
 * @obj: The buffer.
 * @flags: Flags of the dma-buf.
 *
 * Sets the buffer up as xe, amdgpu and nouveau do, with
 * ttm_bo_setup_export(), which gives a buffer in a TT placement its pages,
 * and exports it with vttm's own &dma_buf_ops, which refuse importers.
 * The dma-buf holds the module while it is open.
 *
 * Return: The dma-buf, or an ERR_PTR().
 */
static struct dma_buf *vttm_gem_export(struct drm_gem_object *obj, int flags)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	int ret;

	ret = ttm_bo_setup_export(&to_vttm_bo(obj)->tbo, &ctx);
	if (ret)
		return ERR_PTR(ret);

	exp_info.ops = &vttm_dmabuf_ops;
	exp_info.size = obj->size;
	exp_info.flags = flags;
	exp_info.priv = obj;
	exp_info.resv = obj->resv;
	return drm_gem_dmabuf_export(obj->dev, &exp_info);
}

static const struct drm_gem_object_funcs vttm_gem_funcs = {
	.open = vttm_gem_open,
	.close = vttm_gem_close,
	.free = vttm_gem_free,
	.export = vttm_gem_export,
};

/**
 * vttm_bo_create - create a buffer object in system memory
 * @client: The client creating it.
 * @size: Size in bytes, page aligned.
 * @placements: VTTM_PLACE_* mask of where it may live.
 * @flags: VTTM_BO_* creation flags.
 *
 * Return: The buffer, with one GEM reference, or an ERR_PTR().
 */
struct vttm_bo *vttm_bo_create(struct vttm_client *client, u64 size,
			       u32 placements, u32 flags)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct ttm_placement placement = {
		.placement = &vttm_sys_place,
		.num_placement = 1,
	};
	struct vttm_device *vdev = client->vdev;
	struct vttm_bo *bo;
	int ret;

	bo = kzalloc_obj(*bo);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	bo->tbo.base.funcs = &vttm_gem_funcs;
	drm_gem_private_object_init(&vdev->drm, &bo->tbo.base, size);
	bo->placements = placements;
	bo->flags = flags;
	bo->level = VTTM_RESIDENCY_NORMAL;
	INIT_LIST_HEAD(&bo->evict_link);
	kref_get(&client->ref);
	bo->client = client;

	ret = dma_resv_lock_interruptible(&client->resv, NULL);
	if (ret) {
		drm_gem_object_release(&bo->tbo.base);
		vttm_client_put(client);
		kfree(bo);
		return ERR_PTR(ret);
	}

	/* On failure this calls vttm_bo_destroy(). */
	ret = ttm_bo_init_reserved(&vdev->ttm, &bo->tbo, ttm_bo_type_device,
				   &placement, 0, &ctx, NULL, &client->resv,
				   vttm_bo_destroy);
	if (!ret) {
		ttm_bo_set_bulk_move(&bo->tbo, &client->bulk);
		/* Not placed yet: its client's next job validates it. */
		list_add_tail(&bo->evict_link, &client->evicted);
	}
	dma_resv_unlock(&client->resv);
	return ret ? ERR_PTR(ret) : bo;
}

/**
 * vttm_bo_validate - move a locked buffer into its preferred placement
 * @client: The client running the job.
 * @bo: The buffer, locked by @exec.
 * @exec: The job's transaction.
 * @mode: Whose validation the job follows.
 *
 * As xe's and amdgpu's command submission do, validation does not set
 * &ttm_operation_ctx.allow_res_evict: the client's buffers share the lock
 * the job holds, and none of them is evicted for another. Eviction locks
 * its victims through @exec. It follows the client's eviction throttle,
 * whose periods are the device's. In amdgpu's mode, a buffer that may also
 * live in GTT is validated against VRAM alone first, as amdgpu does with
 * the preferred domain of a BO created for VRAM while its move budget
 * lasts; vttm has no budget.
 * A buffer validated leaves its client's evict list, wherever it landed,
 * unless the throttle kept it out of VRAM: it waits on the client's kept
 * list then.
 *
 * Return: 0, -EDEADLK with @exec contended, -ENOMEM if the buffer could not
 * be placed, or another negative errno.
 */
int vttm_bo_validate(struct vttm_client *client, struct vttm_bo *bo,
		     struct drm_exec *exec, enum vttm_validation mode)
{
	struct ttm_operation_ctx ctx = {
		.interruptible = true,
		.resv = &client->resv,
		.exec = exec,
		.throttle = &client->throttle,
	};
	u32 old_type = bo->tbo.resource->mem_type;
	struct ttm_placement placement;
	bool vram_first = mode == VTTM_VALIDATION_AMDGPU &&
			  bo->placements == (VTTM_PLACE_VRAM | VTTM_PLACE_GTT);
	u64 own = 0;
	int ret = 0;

	if (vram_first) {
		vttm_placement(VTTM_PLACE_VRAM, &placement);
		ret = ttm_bo_validate(&bo->tbo, &placement, &ctx);
	}
	if (!vram_first || ret == -ENOMEM) {
		if (bo->flags & VTTM_BO_CONTIGUOUS) {
			placement.placement = &vttm_contiguous_place;
			placement.num_placement = 1;
		} else {
			vttm_placement(bo->placements, &placement);
		}
		ret = ttm_bo_validate(&bo->tbo, &placement, &ctx);
	}
	if (ret)
		return ret;

	/* Kept out of VRAM by the throttle: validated again once it relents. */
	if (ctx.throttle_kept && mode == VTTM_VALIDATION_XE)
		list_move_tail(&bo->evict_link, &client->kept);
	else
		list_del_init(&bo->evict_link);
	/* Whatever else moved was evicted to make room. */
	if (bo->tbo.resource->mem_type != old_type)
		own = bo->tbo.base.size;
	if (ctx.bytes_moved > own)
		atomic64_add(ctx.bytes_moved - own,
			     &client->stats.bytes_evicted_by);
	return 0;
}

/**
 * vttm_validate_evicted - validate a client's evicted buffers, as xe does
 * @client: The client running a job, whose buffers @exec has locked.
 * @exec: The job's transaction.
 *
 * As xe's exec validates the evict list of its VM, whatever the job uses,
 * this validates each buffer on @client's evict list once and takes it
 * off, wherever it landed: a buffer that fell back to GTT stays there
 * until it is evicted again. A buffer that stays on the list, after an
 * error, is validated by the next attempt. Those the eviction throttle
 * kept out of VRAM return to the list once the hard period is over, as
 * xe's do, so that soft throttle fills free VRAM with them.
 *
 * Return: 0, or what vttm_bo_validate() returned for the first buffer that
 * failed.
 */
int vttm_validate_evicted(struct vttm_client *client, struct drm_exec *exec)
{
	struct vttm_bo *bo;
	int ret;

	dma_resv_assert_held(&client->resv);
	if (ttm_throttle_get_state(&client->throttle) != TTM_THROTTLE_HARD)
		list_splice_tail_init(&client->kept, &client->evicted);
	/* Validation evicts none of the client's buffers, so the list drains. */
	while ((bo = list_first_entry_or_null(&client->evicted, struct vttm_bo,
					      evict_link))) {
		ret = vttm_bo_validate(client, bo, exec, VTTM_VALIDATION_XE);
		if (ret)
			return ret;
	}
	return 0;
}
