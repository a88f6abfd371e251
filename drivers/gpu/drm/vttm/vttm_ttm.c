// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vttm's memory: placements, moves, buffer objects and job fences.
 */

#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_range_manager.h>
#include <drm/ttm/ttm_tt.h>
#include <drm/vttm_drm.h>

#include "vttm_drv.h"

/*
 * Indexed by VTTM_PLACE_* mask: VRAM first, as a job prefers it. GTT is a
 * fallback to VRAM, as xe and amdgpu place such buffers: a job moves a
 * buffer from GTT into free VRAM, and evicts for VRAM before it falls back,
 * but a buffer in GTT stays there rather than evict.
 */
static const struct ttm_place vttm_places[][2] = {
	[VTTM_PLACE_VRAM] = { { .mem_type = TTM_PL_VRAM } },
	[VTTM_PLACE_GTT] = { { .mem_type = VTTM_PL_GTT } },
	[VTTM_PLACE_VRAM | VTTM_PLACE_GTT] = {
		{ .mem_type = TTM_PL_VRAM },
		{ .mem_type = VTTM_PL_GTT, .flags = TTM_PL_FLAG_FALLBACK },
	},
};

static const struct ttm_place vttm_contiguous_place = {
	.mem_type = TTM_PL_VRAM,
	.flags = TTM_PL_FLAG_CONTIGUOUS,
};

static const struct ttm_place vttm_sys_place = { .mem_type = TTM_PL_SYSTEM };

static void vttm_placement(u32 placements, struct ttm_placement *placement)
{
	placement->placement = vttm_places[placements];
	placement->num_placement = hweight32(placements);
}

static struct vttm_bo *ttm_to_vttm_bo(struct ttm_buffer_object *tbo)
{
	return container_of(tbo, struct vttm_bo, tbo);
}

static struct ttm_tt *vttm_tt_create(struct ttm_buffer_object *tbo,
				     u32 page_flags)
{
	struct ttm_tt *tt;

	tt = kzalloc(sizeof(*tt), GFP_KERNEL);
	if (!tt)
		return NULL;

	if (ttm_tt_init(tt, tbo, page_flags, ttm_cached, 0)) {
		kfree(tt);
		return NULL;
	}
	return tt;
}

static void vttm_tt_destroy(struct ttm_device *bdev, struct ttm_tt *tt)
{
	ttm_tt_fini(tt);
	kfree(tt);
}

/* Evicted from VRAM to GTT if the buffer may live there, else to system. */
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

static void vttm_account_move(struct vttm_bo *bo, u32 old_type, u32 new_type)
{
	struct vttm_stats *stats = &bo->client->stats;
	u64 size = bo->tbo.base.size;

	if (old_type == TTM_PL_VRAM && new_type != TTM_PL_VRAM) {
		atomic64_inc(&stats->evictions);
		atomic64_add(size, &stats->bytes_evicted_from);
		atomic64_add(size, &stats->bytes_evicted_from_prio[bo->priority]);
		bo->evicted_at = jiffies ?: 1;
	} else if (new_type == TTM_PL_VRAM && old_type != TTM_PL_VRAM) {
		atomic64_add(size, &stats->bytes_moved_to_vram);
		if (bo->evicted_at && time_before(jiffies, bo->evicted_at + HZ))
			atomic64_inc(&stats->pingpongs);
	}
}

/*
 * Moves happen once the buffer's jobs are done, as a GPU's copy engine
 * would order them. GTT is system pages, so moves between it and system
 * memory copy nothing; moves to or from VRAM are real copies.
 */
static int vttm_bo_move(struct ttm_buffer_object *tbo, bool evict,
			struct ttm_operation_ctx *ctx,
			struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct ttm_resource *old_mem = tbo->resource;
	u32 old_type = old_mem ? old_mem->mem_type : TTM_PL_SYSTEM;
	int ret;

	ret = ttm_bo_wait_ctx(tbo, ctx);
	if (ret)
		return ret;

	if (old_type != TTM_PL_VRAM && new_mem->mem_type != TTM_PL_VRAM) {
		ttm_bo_move_null(tbo, new_mem);
	} else {
		ret = ttm_bo_move_memcpy(tbo, ctx, new_mem);
		if (ret)
			return ret;
	}

	vttm_account_move(ttm_to_vttm_bo(tbo), old_type, new_mem->mem_type);
	return 0;
}

static int vttm_io_mem_reserve(struct ttm_device *bdev,
			       struct ttm_resource *mem)
{
	struct vttm_device *vdev = container_of(bdev, struct vttm_device, ttm);

	switch (mem->mem_type) {
	case TTM_PL_SYSTEM:
	case VTTM_PL_GTT:
		return 0;
	case TTM_PL_VRAM:
		/*
		 * TTM copies device memory through its linear I/O iterator,
		 * which wants is_iomem and takes a premapped address as is.
		 */
		mem->bus.addr = vdev->vram + (mem->start << PAGE_SHIFT);
		mem->bus.is_iomem = true;
		mem->bus.caching = ttm_cached;
		return 0;
	default:
		return -EINVAL;
	}
}

static void vttm_bo_destroy(struct ttm_buffer_object *tbo)
{
	struct vttm_bo *bo = ttm_to_vttm_bo(tbo);

	drm_gem_object_release(&tbo->base);
	vttm_client_put(bo->client);
	kfree(bo);
}

/* A job's buffers share a lock: don't let the job evict those it placed. */
static bool vttm_eviction_valuable(struct ttm_buffer_object *tbo,
				   const struct ttm_place *place)
{
	struct vttm_bo *bo = ttm_to_vttm_bo(tbo);

	if (bo->job && bo->job == READ_ONCE(bo->client->running_job))
		return false;

	return ttm_bo_eviction_valuable(tbo, place);
}

static const struct ttm_device_funcs vttm_ttm_funcs = {
	.ttm_tt_create = vttm_tt_create,
	.ttm_tt_destroy = vttm_tt_destroy,
	.eviction_valuable = vttm_eviction_valuable,
	.evict_flags = vttm_evict_flags,
	.move = vttm_bo_move,
	.io_mem_reserve = vttm_io_mem_reserve,
};

/**
 * vttm_ttm_init - set up the TTM device, VRAM and GTT
 * @vdev: The device, with its sizes set.
 *
 * Registers VRAM as the dmem cgroup region "vram0" of the device.
 *
 * Return: 0 or a negative errno.
 */
int vttm_ttm_init(struct vttm_device *vdev)
{
	struct drm_device *drm = &vdev->drm;
	struct dmem_cgroup_region *region;
	int ret;

	vdev->vram = vzalloc(vdev->vram_size);
	if (!vdev->vram)
		return -ENOMEM;

	ret = ttm_device_init(&vdev->ttm, &vttm_ttm_funcs, drm->dev,
			      drm->anon_inode->i_mapping,
			      drm->vma_offset_manager, false, false);
	if (ret)
		goto err_vram;

	ret = ttm_range_man_init(&vdev->ttm, TTM_PL_VRAM, false,
				 vdev->vram_size >> PAGE_SHIFT);
	if (ret)
		goto err_device;

	ret = ttm_range_man_init(&vdev->ttm, VTTM_PL_GTT, true,
				 vdev->gtt_size >> PAGE_SHIFT);
	if (ret)
		goto err_vram_man;

	region = drmm_cgroup_register_region(drm, "vram0", vdev->vram_size);
	if (IS_ERR(region)) {
		ret = PTR_ERR(region);
		goto err_gtt_man;
	}
	ttm_manager_type(&vdev->ttm, TTM_PL_VRAM)->cg = region;
	return 0;

err_gtt_man:
	ttm_range_man_fini(&vdev->ttm, VTTM_PL_GTT);
err_vram_man:
	ttm_range_man_fini(&vdev->ttm, TTM_PL_VRAM);
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
	ttm_range_man_fini(&vdev->ttm, VTTM_PL_GTT);
	ttm_range_man_fini(&vdev->ttm, TTM_PL_VRAM);
	ttm_device_fini(&vdev->ttm);
	vfree(vdev->vram);
}

/**
 * vttm_bo_detach - take a buffer out of its client's LRU bulk move
 * @bo: The buffer, whose handle is gone.
 *
 * TTM releases no buffer that is still in a bulk move. Called where no
 * other reservation is held, unlike the last GEM reference, which an
 * eviction may drop inside its own transaction.
 */
void vttm_bo_detach(struct vttm_bo *bo)
{
	dma_resv_lock(bo->tbo.base.resv, NULL);
	ttm_bo_set_bulk_move(&bo->tbo, NULL);
	dma_resv_unlock(bo->tbo.base.resv);
}

static void vttm_gem_close(struct drm_gem_object *obj, struct drm_file *file)
{
	vttm_bo_detach(to_vttm_bo(obj));
}

static void vttm_gem_free(struct drm_gem_object *obj)
{
	ttm_bo_put(&to_vttm_bo(obj)->tbo);
}

/* A buffer shared with another driver could outlive the module's code. */
static struct dma_buf *vttm_gem_export(struct drm_gem_object *obj, int flags)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static const struct drm_gem_object_funcs vttm_gem_funcs = {
	.close = vttm_gem_close,
	.free = vttm_gem_free,
	.export = vttm_gem_export,
};

/* The TTM level of a priority; the 6.12 baseline has one level only. */
static enum ttm_residency vttm_residency(struct vttm_client *client,
					 u32 priority)
{
	BUILD_BUG_ON(ARRAY_SIZE(client->stats.bytes_evicted_from_prio) !=
		     TTM_NUM_RESIDENCY);

	if (READ_ONCE(client->mode) & VTTM_MODE_NO_PRIORITIES)
		return TTM_RESIDENCY_NORMAL;
	return priority;
}

/**
 * vttm_bo_create - create a buffer object in system memory
 * @client: The client creating it.
 * @size: Size in bytes, page aligned.
 * @placements: VTTM_PLACE_* mask of where it may live.
 * @priority: Residency priority.
 * @contiguous: Its VRAM must be contiguous; @placements is VRAM alone.
 *
 * Return: The buffer, with one GEM reference, or an ERR_PTR().
 */
struct vttm_bo *vttm_bo_create(struct vttm_client *client, u64 size,
			       u32 placements, u32 priority, bool contiguous)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct ttm_placement placement = {
		.placement = &vttm_sys_place,
		.num_placement = 1,
	};
	struct vttm_device *vdev = client->vdev;
	struct vttm_bo *bo;
	int ret;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	bo->tbo.base.funcs = &vttm_gem_funcs;
	drm_gem_private_object_init(&vdev->drm, &bo->tbo.base, size);
	bo->placements = placements;
	bo->contiguous = contiguous;
	bo->priority = priority;
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
		ttm_bo_set_residency(&bo->tbo, vttm_residency(client, priority));
	}
	dma_resv_unlock(&client->resv);
	return ret ? ERR_PTR(ret) : bo;
}

/**
 * vttm_bo_set_priority - change a buffer's residency priority
 * @bo: The buffer.
 * @priority: The new priority.
 *
 * Return: 0, or -ERESTARTSYS if interrupted while waiting for the lock.
 */
int vttm_bo_set_priority(struct vttm_bo *bo, u32 priority)
{
	int ret;

	ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
	if (ret)
		return ret;

	bo->priority = priority;
	ttm_bo_set_residency(&bo->tbo, vttm_residency(bo->client, priority));
	ttm_bo_unreserve(&bo->tbo);
	return 0;
}

/**
 * vttm_bo_validate - move a locked buffer into its preferred placement
 * @client: The client running the job.
 * @bo: The buffer, locked by @exec.
 * @exec: The job's transaction.
 *
 * Eviction locks its victims through @exec unless the client runs in
 * VTTM_MODE_NO_EXEC_EVICTION, and follows the client's throttle unless it
 * runs in VTTM_MODE_NO_THROTTLE, as a 6.12 driver would.
 *
 * Return: 0, -EDEADLK with @exec contended, -ENOMEM if the buffer could not
 * be placed, or another negative errno.
 */
int vttm_bo_validate(struct vttm_client *client, struct vttm_bo *bo,
		     struct drm_exec *exec)
{
	struct ttm_operation_ctx ctx = {
		.interruptible = true,
		/* The client's other buffers share the lock the job holds. */
		.allow_res_evict = true,
		.resv = &client->resv,
	};
	u32 old_type = bo->tbo.resource->mem_type;
	u32 mode = READ_ONCE(client->mode);
	struct ttm_placement placement;
	u64 own = 0;
	int ret;

	if (!(mode & VTTM_MODE_NO_EXEC_EVICTION))
		ctx.exec = exec;
	if (!(mode & VTTM_MODE_NO_THROTTLE))
		ctx.throttle = &client->throttle;

	if (bo->contiguous) {
		placement.placement = &vttm_contiguous_place;
		placement.num_placement = 1;
	} else {
		vttm_placement(bo->placements, &placement);
	}
	ret = ttm_bo_validate(&bo->tbo, &placement, &ctx);
	if (ret)
		return ret;
	bo->job = client->running_job;

	/* Whatever else moved was evicted to make room. */
	if (bo->tbo.resource->mem_type != old_type)
		own = bo->tbo.base.size;
	if (ctx.bytes_moved > own)
		atomic64_add(ctx.bytes_moved - own,
			     &client->stats.bytes_evicted_by);
	return 0;
}

/**
 * struct vttm_job_fence - the fence of a job, signalled by a timer
 * @base: The fence.
 * @lock: The fence's lock.
 * @timer: Signals the fence when the job's simulated time is up.
 * @vdev: The device.
 */
struct vttm_job_fence {
	struct dma_fence base;
	spinlock_t lock; /* Serialises signalling the fence. */
	struct hrtimer timer;
	struct vttm_device *vdev;
};

static const char *vttm_fence_driver_name(struct dma_fence *fence)
{
	return "vttm";
}

static const char *vttm_fence_timeline_name(struct dma_fence *fence)
{
	return "job";
}

static const struct dma_fence_ops vttm_fence_ops = {
	.get_driver_name = vttm_fence_driver_name,
	.get_timeline_name = vttm_fence_timeline_name,
};

static enum hrtimer_restart vttm_job_done(struct hrtimer *timer)
{
	struct vttm_job_fence *f = container_of(timer, typeof(*f), timer);
	struct vttm_device *vdev = f->vdev;

	dma_fence_signal(&f->base);
	dma_fence_put(&f->base);
	if (atomic_dec_and_test(&vdev->jobs_pending))
		wake_up_all(&vdev->jobs_done);
	return HRTIMER_NORESTART;
}

/**
 * vttm_job_fence_create - create the fence of a job about to be submitted
 * @vdev: The device.
 *
 * Return: The fence, or NULL if out of memory.
 */
struct dma_fence *vttm_job_fence_create(struct vttm_device *vdev)
{
	struct vttm_job_fence *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return NULL;

	/* Jobs end in no particular order: each is its own timeline. */
	spin_lock_init(&f->lock);
	dma_fence_init(&f->base, &vttm_fence_ops, &f->lock,
		       dma_fence_context_alloc(1), 1);
	hrtimer_init(&f->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	f->timer.function = vttm_job_done;
	f->vdev = vdev;
	return &f->base;
}

/**
 * vttm_job_fence_start - start a job's simulated run
 * @fence: The fence from vttm_job_fence_create().
 * @duration_ns: When the fence signals.
 *
 * The timer takes its own reference to @fence.
 */
void vttm_job_fence_start(struct dma_fence *fence, u64 duration_ns)
{
	struct vttm_job_fence *f = container_of(fence, typeof(*f), base);

	atomic_inc(&f->vdev->jobs_pending);
	dma_fence_get(fence);
	hrtimer_start(&f->timer, ns_to_ktime(duration_ns), HRTIMER_MODE_REL);
}
