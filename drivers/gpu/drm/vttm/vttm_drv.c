// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vttm: a virtual TTM device with device memory, for testing.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>
#include <drm/vttm_drm.h>

#include "vttm_drv.h"

/**
 * DOC: Overview
 *
 * vttm exists to make TTM's handling of device memory testable without a
 * GPU, as test_hmm does for HMM and vgem for buffer sharing. It emulates
 * what memory management sees of a discrete GPU and nothing else: a VRAM
 * placement backed by system pages but managed as device memory, a GTT
 * placement with a limit of its own, clients that each have an LRU bulk
 * move as a GPU VM does, and jobs that lock their buffers with drm_exec,
 * move them in (evicting others), and keep them busy for a simulated time.
 * Moves into and out of VRAM are real copies.
 *
 * Its VRAM is the dmem cgroup region "drm/vttm/vram0", so cgroup limits and
 * protection can be tested end to end. Per-client statistics report what
 * the jobs cost, and a per-client mode switches features of the series off,
 * so that one boot can measure both sides.
 *
 * The selftests in tools/testing/selftests/drivers/gpu/vttm/ use it.
 */

static unsigned long vram_size = 256ul << 20;
module_param(vram_size, ulong, 0444);
MODULE_PARM_DESC(vram_size, "Size of VRAM in bytes (default 256 MiB)");

static unsigned long gtt_size = 512ul << 20;
module_param(gtt_size, ulong, 0444);
MODULE_PARM_DESC(gtt_size, "Size of GTT in bytes (default 512 MiB)");

static struct vttm_device *vttm_device;

static void vttm_client_release(struct kref *ref)
{
	struct vttm_client *client = container_of(ref, struct vttm_client, ref);

	ttm_lru_bulk_move_fini(&client->vdev->ttm, &client->bulk);
	dma_resv_fini(&client->resv);
	kfree(client);
}

/**
 * vttm_client_put - drop a reference to a client
 * @client: The client.
 */
void vttm_client_put(struct vttm_client *client)
{
	kref_put(&client->ref, vttm_client_release);
}

static int vttm_open(struct drm_device *drm, struct drm_file *file)
{
	struct vttm_client *client;

	client = kzalloc(sizeof(*client), GFP_KERNEL);
	if (!client)
		return -ENOMEM;

	kref_init(&client->ref);
	client->vdev = to_vttm_device(drm);
	dma_resv_init(&client->resv);
	ttm_lru_bulk_move_init(&client->bulk);
	ttm_throttle_init(&client->throttle, &client->bulk, file->client_id);
	file->driver_priv = client;
	return 0;
}

static void vttm_postclose(struct drm_device *drm, struct drm_file *file)
{
	vttm_client_put(file->driver_priv);
}

static int vttm_bo_create_ioctl(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct vttm_device *vdev = to_vttm_device(drm);
	struct drm_vttm_bo_create *args = data;
	struct vttm_bo *bo;
	u64 size;
	int ret;

	if ((args->flags & ~VTTM_BO_FLAGS) || !args->size ||
	    !args->placements ||
	    args->placements & ~(VTTM_PLACE_VRAM | VTTM_PLACE_GTT) ||
	    args->priority > VTTM_PRIORITY_MAX)
		return -EINVAL;
	if (args->flags & VTTM_BO_CONTIGUOUS &&
	    args->placements != VTTM_PLACE_VRAM)
		return -EINVAL;

	/* Too big for one allowed placement would only ever evict in vain. */
	if ((args->placements & VTTM_PLACE_VRAM && args->size > vdev->vram_size) ||
	    (args->placements & VTTM_PLACE_GTT && args->size > vdev->gtt_size))
		return -E2BIG;
	size = PAGE_ALIGN(args->size);

	bo = vttm_bo_create(file->driver_priv, size, args->placements,
			    args->priority, args->flags & VTTM_BO_CONTIGUOUS);
	if (IS_ERR(bo))
		return PTR_ERR(bo);

	ret = drm_gem_handle_create(file, &bo->tbo.base, &args->handle);
	if (ret)
		vttm_bo_detach(bo);
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

static int vttm_bo_set_priority_ioctl(struct drm_device *drm, void *data,
				      struct drm_file *file)
{
	struct drm_vttm_bo_set_priority *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->priority > VTTM_PRIORITY_MAX)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	ret = vttm_bo_set_priority(to_vttm_bo(obj), args->priority);
	drm_gem_object_put(obj);
	return ret;
}

static void vttm_submit_count(struct vttm_client *client, int ret)
{
	struct vttm_stats *stats = &client->stats;

	/* An interrupted job is restarted, and counted then. */
	if (ret == -ERESTARTSYS)
		return;

	atomic64_inc(&stats->submits);
	if (!ret)
		return;

	atomic64_inc(&stats->failed_submits);
	if (ret == -ENOMEM)
		atomic64_inc(&stats->failed_enomem);
	else
		atomic64_inc(&stats->failed_other);
}

/* Lock and place every buffer of a job; the caller fences them. */
static int vttm_submit_lock_and_place(struct vttm_client *client,
				      struct drm_exec *exec,
				      struct drm_gem_object **objs,
				      unsigned int count)
{
	unsigned int i;
	int ret = 0;

	drm_exec_until_all_locked(exec) {
		/* The buffers share the client's lock: this takes it once. */
		for (i = 0; i < count; i++) {
			ret = drm_exec_prepare_obj(exec, objs[i], 1);
			if (drm_exec_is_contended(exec))
				atomic64_inc(&client->stats.backoffs);
			drm_exec_retry_on_contention(exec);
			if (ret)
				return ret;
		}

		client->running_job = ++client->job_seq;

		for (i = 0; i < count; i++) {
			ret = vttm_bo_validate(client, to_vttm_bo(objs[i]),
					       exec);
			if (drm_exec_is_contended(exec))
				atomic64_inc(&client->stats.backoffs);
			drm_exec_retry_on_contention(exec);
			/* Moving may have used the slot for the job's fence. */
			if (!ret)
				ret = dma_resv_reserve_fences(objs[i]->resv, 1);
			if (ret) {
				client->running_job = 0;
				return ret;
			}
		}
		client->running_job = 0;
	}
	return 0;
}

static int vttm_cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* A handle given twice is bad input; sort a copy to find one. */
static int vttm_check_duplicates(struct drm_gem_object **objs,
				 unsigned int count)
{
	struct drm_gem_object **sorted;
	unsigned int i;
	int ret = 0;

	sorted = kvmemdup(objs, count * sizeof(*objs), GFP_KERNEL);
	if (!sorted)
		return -ENOMEM;

	sort(sorted, count, sizeof(*sorted), vttm_cmp_ptr, NULL);
	for (i = 1; i < count; i++)
		if (sorted[i] == sorted[i - 1])
			ret = -EINVAL;
	kvfree(sorted);
	return ret;
}

static int vttm_submit_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct vttm_client *client = file->driver_priv;
	struct drm_vttm_submit *args = data;
	struct drm_gem_object **objs = NULL;
	struct dma_fence *fence;
	struct drm_exec exec;
	unsigned int i;
	int ret;

	if (args->flags || !args->count ||
	    args->duration_ns > VTTM_SUBMIT_MAX_NS)
		return -EINVAL;
	if (args->count > VTTM_SUBMIT_MAX_BOS)
		return -E2BIG;

	ret = drm_gem_objects_lookup(file, u64_to_user_ptr(args->handles),
				     args->count, &objs);
	if (!ret)
		ret = vttm_check_duplicates(objs, args->count);
	if (ret)
		goto out_put;

	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT |
		      DRM_EXEC_IGNORE_DUPLICATES, args->count);
	ret = vttm_submit_lock_and_place(client, &exec, objs, args->count);
	fence = ret ? NULL : vttm_job_fence_create(client->vdev);
	if (!ret && !fence)
		ret = -ENOMEM;
	if (!ret) {
		/* One lock and one fence for all the job's buffers. */
		dma_resv_add_fence(&client->resv, fence, DMA_RESV_USAGE_WRITE);
		/* A GPU VM's buffers go to the LRU tail together after a job. */
		spin_lock(&client->vdev->ttm.lru_lock);
		ttm_lru_bulk_move_tail(&client->bulk);
		spin_unlock(&client->vdev->ttm.lru_lock);
		vttm_job_fence_start(fence, args->duration_ns);
		dma_fence_put(fence);
	}
	drm_exec_fini(&exec);
	vttm_submit_count(client, ret);
out_put:
	for (i = 0; objs && i < args->count; i++)
		drm_gem_object_put(objs[i]);
	kvfree(objs);
	return ret;
}

static int vttm_wait_ioctl(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct drm_vttm_wait *args = data;
	struct drm_gem_object *obj;
	long ret;

	if (args->pad || args->timeout_ns < 0)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	ret = dma_resv_wait_timeout(obj->resv, DMA_RESV_USAGE_BOOKKEEP, true,
				    min_t(u64, nsecs_to_jiffies64(args->timeout_ns),
					  MAX_SCHEDULE_TIMEOUT));
	drm_gem_object_put(obj);
	if (ret < 0)
		return ret;
	return ret ? 0 : -ETIME;
}

static int vttm_stats_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct vttm_stats *stats = &((struct vttm_client *)file->driver_priv)->stats;
	struct drm_vttm_stats *args = data;
	unsigned int i;

	args->submits = atomic64_read(&stats->submits);
	args->failed_submits = atomic64_read(&stats->failed_submits);
	args->failed_enomem = atomic64_read(&stats->failed_enomem);
	args->failed_other = atomic64_read(&stats->failed_other);
	args->backoffs = atomic64_read(&stats->backoffs);
	args->bytes_moved_to_vram = atomic64_read(&stats->bytes_moved_to_vram);
	args->bytes_evicted_by = atomic64_read(&stats->bytes_evicted_by);
	args->bytes_evicted_from = atomic64_read(&stats->bytes_evicted_from);
	args->evictions = atomic64_read(&stats->evictions);
	args->pingpongs = atomic64_read(&stats->pingpongs);
	for (i = 0; i <= VTTM_PRIORITY_MAX; i++)
		args->bytes_evicted_from_prio[i] =
			atomic64_read(&stats->bytes_evicted_from_prio[i]);
	return 0;
}

static int vttm_set_mode_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct vttm_client *client = file->driver_priv;
	struct drm_vttm_set_mode *args = data;

	if (args->pad ||
	    args->flags & ~(VTTM_MODE_NO_EXEC_EVICTION |
			    VTTM_MODE_NO_PRIORITIES |
			    VTTM_MODE_NO_THROTTLE))
		return -EINVAL;

	WRITE_ONCE(client->mode, args->flags);
	return 0;
}

static const struct drm_ioctl_desc vttm_ioctls[] = {
	DRM_IOCTL_DEF_DRV(VTTM_BO_CREATE, vttm_bo_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VTTM_BO_SET_PRIORITY, vttm_bo_set_priority_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VTTM_SUBMIT, vttm_submit_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VTTM_WAIT, vttm_wait_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VTTM_STATS, vttm_stats_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VTTM_SET_MODE, vttm_set_mode_ioctl, DRM_RENDER_ALLOW),
};

static const char * const vttm_region_names[] = {
	[TTM_PL_SYSTEM] = "system",
	[VTTM_PL_GTT] = "gtt",
	[TTM_PL_VRAM] = "vram",
};

/* The standard drm-total-* and drm-resident-* keys, per placement. */
static void vttm_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct drm_memory_stats stats[ARRAY_SIZE(vttm_region_names)] = {};
	struct drm_gem_object *obj;
	unsigned int i;
	int id;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		u32 type = TTM_PL_SYSTEM;

		/* A buffer being moved is counted where it was created. */
		if (dma_resv_trylock(obj->resv)) {
			struct ttm_resource *res = to_vttm_bo(obj)->tbo.resource;

			if (res)
				type = res->mem_type;
			dma_resv_unlock(obj->resv);
		}
		stats[type].private += obj->size;
		stats[type].resident += obj->size;
	}
	spin_unlock(&file->table_lock);

	for (i = 0; i < ARRAY_SIZE(stats); i++)
		drm_print_memory_stats(p, &stats[i], DRM_GEM_OBJECT_RESIDENT,
				       vttm_region_names[i]);
}

/* DEFINE_DRM_GEM_FOPS() of 6.12 leaves fdinfo out. */
static const struct file_operations vttm_fops = {
	.owner = THIS_MODULE,
	DRM_GEM_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

static const struct drm_driver vttm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER,
	.open = vttm_open,
	.postclose = vttm_postclose,
	.ioctls = vttm_ioctls,
	.num_ioctls = ARRAY_SIZE(vttm_ioctls),
	.show_fdinfo = vttm_show_fdinfo,
	.fops = &vttm_fops,
	.name = "vttm",
	.desc = "Virtual TTM device with device memory",
	.date = "20261130",
	.major = 1,
	.minor = 0,
};

static int vttm_device_init(struct vttm_device *vdev)
{
	vdev->vram_size = PAGE_ALIGN(vram_size);
	vdev->gtt_size = PAGE_ALIGN(gtt_size);
	if (!vdev->vram_size || !vdev->gtt_size)
		return -EINVAL;

	init_waitqueue_head(&vdev->jobs_done);
	return vttm_ttm_init(vdev);
}

static void vttm_device_fini(struct vttm_device *vdev)
{
	/*
	 * Job timers must not outlive the device. The last one may still be
	 * returning from its callback: those run in hard interrupt context,
	 * which an RCU grace period waits for.
	 */
	wait_event(vdev->jobs_done, !atomic_read(&vdev->jobs_pending));
	synchronize_rcu();
	vttm_ttm_fini(vdev);
}

static int __init vttm_init(void)
{
	struct platform_device *pdev;
	struct vttm_device *vdev;
	int ret;

	pdev = platform_device_register_simple("vttm", -1, NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);

	if (!devres_open_group(&pdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_unregister;
	}

	vdev = devm_drm_dev_alloc(&pdev->dev, &vttm_driver, struct vttm_device,
				  drm);
	if (IS_ERR(vdev)) {
		ret = PTR_ERR(vdev);
		goto err_devres;
	}

	ret = vttm_device_init(vdev);
	if (ret)
		goto err_devres;

	ret = drm_dev_register(&vdev->drm, 0);
	if (ret)
		goto err_device;

	vttm_device = vdev;
	return 0;

err_device:
	vttm_device_fini(vdev);
err_devres:
	devres_release_group(&pdev->dev, NULL);
err_unregister:
	platform_device_unregister(pdev);
	return ret;
}

static void __exit vttm_exit(void)
{
	struct platform_device *pdev = to_platform_device(vttm_device->drm.dev);

	drm_dev_unregister(&vttm_device->drm);
	vttm_device_fini(vttm_device);
	devres_release_group(&pdev->dev, NULL);
	platform_device_unregister(pdev);
}

module_init(vttm_init);
module_exit(vttm_exit);

MODULE_DESCRIPTION("Virtual TTM device with device memory, for testing");
MODULE_LICENSE("Dual MIT/GPL");
