// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vttm: a virtual TTM device with device memory, for testing.
 */

#include <linux/debugfs.h>
#include <linux/device/faux.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>

#include "vttm_drv.h"
#include "vttm_uapi.h"

/**
 * DOC: Overview
 *
 * How TTM handles device memory under pressure, with several clients
 * evicting each other's buffers, can only be seen on a discrete GPU: QEMU
 * emulates no device with VRAM, and KUnit stops at the single process. vttm
 * is a test device, as test_hmm is for HMM and vgem for buffer sharing, that
 * emulates what memory management sees of a discrete GPU and nothing else.
 *
 * Its VRAM is vmalloc()ed system memory that TTM manages as device memory,
 * with the buddy allocator as the VRAM managers of real GPUs use; GTT is
 * system pages with a limit of their own. Each open file is a client with
 * an LRU bulk move, as a GPU VM has. A job locks its buffers with drm_exec,
 * moves them in, evicting others through the same transaction, and keeps
 * them busy for a simulated time; moves into and out of VRAM are real
 * copies. VRAM is the dmem cgroup region "drm/vttm/vram0".
 *
 * Jobs validate buffers the way a real driver's command submission does,
 * without evicting the client's own buffers for each other. By default
 * they follow xe's exec: a buffer that eviction moved is validated once,
 * at the client's next job, and one that fell back to GTT stays there
 * until it is evicted again. The debugfs file validation switches the
 * device to amdgpu's CS, which validates every buffer of each job, VRAM
 * first.
 *
 * A typical use, from a test in userspace, after loading the module with
 * the sizes of VRAM and GTT (vram_size=, gtt_size=, in bytes)::
 *
 *	struct drm_vttm_bo_create bo = {
 *		.size = 1 << 20,
 *		.placements = VTTM_PLACE_VRAM,
 *	};
 *	struct drm_vttm_submit job = {
 *		.handles = (uintptr_t)&bo.handle,
 *		.count = 1,
 *		.duration_ns = 1000000,
 *	};
 *	struct drm_vttm_wait wait = { .timeout_ns = INT64_MAX };
 *
 *	ioctl(fd, DRM_IOCTL_VTTM_BO_CREATE, &bo);
 *	ioctl(fd, DRM_IOCTL_VTTM_SUBMIT, &job);
 *	wait.handle = bo.handle;
 *	ioctl(fd, DRM_IOCTL_VTTM_WAIT, &wait);
 *
 * The client's fdinfo says what its jobs cost in migrations, evictions and
 * failed jobs, in the vttm-* keys that "Client usage stats" lists. 0 in
 * both of the debugfs files throttle_hard_ms and throttle_soft_ms turns
 * the eviction throttle of the device's clients off.
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

/**
 * vttm_client_release - free a client once its file and buffers are gone
 * @ref: The client's &vttm_client.ref.
 */
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

/**
 * vttm_open - &drm_driver.open: a new client
 * @drm: The DRM device.
 * @file: The new file.
 *
 * Return: 0 or -ENOMEM.
 */
static int vttm_open(struct drm_device *drm, struct drm_file *file)
{
	struct vttm_client *client;

	client = kzalloc_obj(*client);
	if (!client)
		return -ENOMEM;

	kref_init(&client->ref);
	client->vdev = to_vttm_device(drm);
	dma_resv_init(&client->resv);
	ttm_lru_bulk_move_init(&client->bulk);
	INIT_LIST_HEAD(&client->evicted);
	INIT_LIST_HEAD(&client->kept);
	ttm_throttle_init(&client->throttle, &client->bulk,
			  &client->vdev->ttm.throttle_periods, file->client_id);
	file->driver_priv = client;
	return 0;
}

/**
 * vttm_postclose - &drm_driver.postclose: a client's file is closed
 * @drm: The DRM device.
 * @file: The file, whose handles are gone.
 */
static void vttm_postclose(struct drm_device *drm, struct drm_file *file)
{
	vttm_client_put(file->driver_priv);
}

/**
 * vttm_bo_create_ioctl - DRM_IOCTL_VTTM_BO_CREATE: create a buffer
 * @drm: The DRM device.
 * @data: The &drm_vttm_bo_create.
 * @file: The client's file.
 *
 * Return: 0 or a negative errno, as &drm_vttm_bo_create says.
 */
static int vttm_bo_create_ioctl(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct vttm_device *vdev = to_vttm_device(drm);
	struct drm_vttm_bo_create *args = data;
	struct vttm_bo *bo;
	int ret;

	if ((args->flags & ~(VTTM_BO_DEFER_BACKING | VTTM_BO_CONTIGUOUS)) ||
	    args->pad || !args->size || !args->placements ||
	    args->placements & ~(VTTM_PLACE_VRAM | VTTM_PLACE_GTT) ||
	    (args->flags & VTTM_BO_CONTIGUOUS &&
	     args->placements != VTTM_PLACE_VRAM))
		return -EINVAL;

	/* Too big for one allowed placement would only ever evict in vain. */
	if ((args->placements & VTTM_PLACE_VRAM && args->size > vdev->vram_size) ||
	    (args->placements & VTTM_PLACE_GTT && args->size > vdev->gtt_size))
		return -E2BIG;

	bo = vttm_bo_create(file->driver_priv, PAGE_ALIGN(args->size),
			    args->placements, args->flags);
	if (IS_ERR(bo))
		return PTR_ERR(bo);

	ret = drm_gem_handle_create(file, &bo->tbo.base, &args->handle);
	if (ret)
		vttm_bo_detach(bo);
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

/**
 * vttm_submit_count - count a job whose arguments were good
 * @client: The client.
 * @ret: What the job returned.
 */
static void vttm_submit_count(struct vttm_client *client, int ret)
{
	struct vttm_stats *stats = &client->stats;

	/*
	 * A job that -ERESTARTSYS interrupts is restarted, and counted then;
	 * one that fails with -EINTR, which userspace sees, counts as failed.
	 */
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

/**
 * vttm_submit_lock - lock a job's buffers
 * @exec: The job's transaction.
 * @objs: The job's buffers.
 * @count: How many.
 *
 * The buffers share the client's lock: this takes it once, and reserves a
 * fence slot.
 *
 * Return: 0, -EDEADLK with @exec contended, or another negative errno.
 */
static int vttm_submit_lock(struct drm_exec *exec,
			    struct drm_gem_object **objs, unsigned int count)
{
	unsigned int i;
	int ret;

	for (i = 0; i < count; i++) {
		ret = drm_exec_prepare_obj(exec, objs[i], 1);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vttm_submit_place - place a locked job's buffers
 * @client: The client.
 * @exec: The job's transaction, which holds the buffers' lock.
 * @objs: The job's buffers.
 * @count: How many.
 *
 * As the device's &vttm_device.validation says: in xe's mode, the client's
 * evicted buffers, whether the job uses them or not; in amdgpu's, the job's
 * buffers. Moving them may have used the fence slot vttm_submit_lock()
 * reserved: this reserves another.
 *
 * Return: 0, -EDEADLK with @exec contended, -ENOMEM if a buffer could not
 * be placed, or another negative errno.
 */
static int vttm_submit_place(struct vttm_client *client, struct drm_exec *exec,
			     struct drm_gem_object **objs, unsigned int count)
{
	/* One mode for the whole job, whatever debugfs does meanwhile. */
	enum vttm_validation mode = READ_ONCE(client->vdev->validation);
	unsigned int i;
	int ret = 0;

	if (mode == VTTM_VALIDATION_XE) {
		ret = vttm_validate_evicted(client, exec);
	} else {
		for (i = 0; i < count && !ret; i++)
			ret = vttm_bo_validate(client, to_vttm_bo(objs[i]),
					       exec, mode);
	}
	if (!ret)
		ret = dma_resv_reserve_fences(&client->resv, 1);
	return ret;
}

/**
 * vttm_submit_lock_and_place - lock and place every buffer of a job
 * @client: The client.
 * @exec: The job's transaction.
 * @objs: The job's buffers.
 * @count: How many.
 *
 * Backs off and retries on contention, and counts each back-off. The caller
 * fences the buffers and ends the transaction.
 *
 * Return: 0, -ENOMEM if a buffer could not be placed, or another negative
 * errno.
 */
static int vttm_submit_lock_and_place(struct vttm_client *client,
				      struct drm_exec *exec,
				      struct drm_gem_object **objs,
				      unsigned int count)
{
	int ret;

	drm_exec_until_all_locked(exec) {
		ret = vttm_submit_lock(exec, objs, count);
		if (drm_exec_is_contended(exec))
			atomic64_inc(&client->stats.backoffs);
		drm_exec_retry_on_contention(exec);
		if (ret)
			return ret;

		ret = vttm_submit_place(client, exec, objs, count);
		if (drm_exec_is_contended(exec))
			atomic64_inc(&client->stats.backoffs);
		drm_exec_retry_on_contention(exec);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vttm_cmp_ptr - order two pointers, for sort()
 * @a: A pointer to the first.
 * @b: A pointer to the second.
 *
 * Return: Less than, equal to or greater than 0 as the first is below,
 * equal to or above the second.
 */
static int vttm_cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/**
 * vttm_check_duplicates - refuse a job that names a buffer twice
 * @objs: The job's buffers.
 * @count: How many.
 *
 * Sorts a copy of @objs to find a duplicate.
 *
 * Return: 0, -EINVAL for a buffer given twice, or -ENOMEM.
 */
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

/**
 * vttm_submit_ioctl - DRM_IOCTL_VTTM_SUBMIT: run a job
 * @drm: The DRM device.
 * @data: The &drm_vttm_submit.
 * @file: The client's file.
 *
 * Return: 0 or a negative errno, as &drm_vttm_submit says.
 */
static int vttm_submit_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct vttm_client *client = file->driver_priv;
	struct drm_vttm_submit *args = data;
	struct drm_gem_object **objs;
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
	if (ret)
		return ret;
	ret = vttm_check_duplicates(objs, args->count);
	if (ret)
		goto out_put;

	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT |
		      DRM_EXEC_IGNORE_DUPLICATES, args->count);
	ret = vttm_submit_lock_and_place(client, &exec, objs, args->count);
	fence = ret ? NULL : vttm_job_fence_create();
	if (!ret && !fence)
		ret = -ENOMEM;
	if (!ret) {
		/* One lock and one fence for all the job's buffers. */
		dma_resv_add_fence(&client->resv, fence, DMA_RESV_USAGE_WRITE);
		/* A GPU VM's buffers go to the LRU tail together after a job. */
		spin_lock(&client->vdev->ttm.lru_lock);
		ttm_lru_bulk_move_tail(&client->bulk);
		spin_unlock(&client->vdev->ttm.lru_lock);
		vttm_job_fence_start(client->vdev, fence, args->duration_ns);
		dma_fence_put(fence);
	}
	drm_exec_fini(&exec);
	vttm_submit_count(client, ret);
out_put:
	for (i = 0; i < args->count; i++)
		drm_gem_object_put(objs[i]);
	kvfree(objs);
	return ret;
}

/**
 * vttm_wait_ioctl - DRM_IOCTL_VTTM_WAIT: wait until a buffer is idle
 * @drm: The DRM device.
 * @data: The &drm_vttm_wait.
 * @file: The client's file.
 *
 * Return: 0 or a negative errno, as &drm_vttm_wait says.
 */
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

/**
 * vttm_bo_set_residency_ioctl - DRM_IOCTL_VTTM_BO_SET_RESIDENCY
 * @drm: The DRM device.
 * @data: The &drm_vttm_bo_residency.
 * @file: The client's file.
 *
 * Return: 0 or a negative errno, as &drm_vttm_bo_residency says.
 */
static int vttm_bo_set_residency_ioctl(struct drm_device *drm, void *data,
				       struct drm_file *file)
{
	struct drm_vttm_bo_residency *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->level >= VTTM_NUM_RESIDENCY)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	ret = vttm_bo_set_residency(to_vttm_bo(obj), args->level);
	drm_gem_object_put(obj);
	return ret;
}

static const struct drm_ioctl_desc vttm_ioctls[] = {
	DRM_IOCTL_DEF_DRV(VTTM_BO_CREATE, vttm_bo_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VTTM_SUBMIT, vttm_submit_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VTTM_WAIT, vttm_wait_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VTTM_BO_SET_RESIDENCY, vttm_bo_set_residency_ioctl,
			  DRM_RENDER_ALLOW),
};

static const char * const vttm_region_names[] = {
	[TTM_PL_SYSTEM] = "system",
	[VTTM_PL_GTT] = "gtt",
	[TTM_PL_VRAM] = "vram",
};

/* One vttm-* key of fdinfo: a count, or a number of bytes. */
static void vttm_show_key(struct drm_printer *p, const char *key,
			  const atomic64_t *value)
{
	drm_printf(p, "vttm-%s:\t%llu\n", key, (u64)atomic64_read(value));
}

/**
 * vttm_show_stats - print what a client's jobs cost, since it opened
 * @p: Where to print.
 * @stats: The client's counters.
 *
 * The keys are listed in Documentation/gpu/vttm.rst, "vttm-usage-stats".
 */
static void vttm_show_stats(struct drm_printer *p,
			    const struct vttm_stats *stats)
{
	static const char * const levels[] = {
		[VTTM_RESIDENCY_MINIMUM] = "minimum",
		[VTTM_RESIDENCY_LOW] = "low",
		[VTTM_RESIDENCY_NORMAL] = "normal",
		[VTTM_RESIDENCY_HIGH] = "high",
		[VTTM_RESIDENCY_MAXIMUM] = "maximum",
	};
	char key[32];
	unsigned int i;

	static_assert(ARRAY_SIZE(levels) == VTTM_NUM_RESIDENCY);
	vttm_show_key(p, "submits", &stats->submits);
	vttm_show_key(p, "failed-submits", &stats->failed_submits);
	vttm_show_key(p, "failed-enomem", &stats->failed_enomem);
	vttm_show_key(p, "failed-other", &stats->failed_other);
	vttm_show_key(p, "backoffs", &stats->backoffs);
	vttm_show_key(p, "evictions", &stats->evictions);
	vttm_show_key(p, "pingpongs", &stats->pingpongs);
	vttm_show_key(p, "bytes-moved-to-vram", &stats->bytes_moved_to_vram);
	vttm_show_key(p, "bytes-evicted-by-jobs", &stats->bytes_evicted_by);
	vttm_show_key(p, "bytes-evicted", &stats->bytes_evicted_from);
	for (i = 0; i < VTTM_NUM_RESIDENCY; i++) {
		snprintf(key, sizeof(key), "bytes-evicted-%s", levels[i]);
		vttm_show_key(p, key, &stats->bytes_evicted_from_level[i]);
	}
}

/**
 * vttm_show_fdinfo - &drm_driver.show_fdinfo: the client's memory and costs
 * @p: Where to print.
 * @file: The client's file.
 *
 * Prints the standard drm-total-* and drm-resident-* keys, per placement,
 * and then what the client's jobs cost, as vttm_show_stats() says. The
 * client's buffers all live under its reservation, which keeps their
 * resources in place while they are counted; a signal while waiting for
 * it leaves the memory keys out.
 */
static void vttm_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct drm_memory_stats stats[ARRAY_SIZE(vttm_region_names)] = {};
	struct vttm_client *client = file->driver_priv;
	struct drm_gem_object *obj;
	unsigned int i;
	int id;

	if (dma_resv_lock_interruptible(&client->resv, NULL))
		goto costs;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		struct ttm_resource *res = to_vttm_bo(obj)->tbo.resource;
		u32 type = res ? res->mem_type : TTM_PL_SYSTEM;

		stats[type].private += obj->size;
		stats[type].resident += obj->size;
	}
	spin_unlock(&file->table_lock);
	dma_resv_unlock(&client->resv);

	for (i = 0; i < ARRAY_SIZE(stats); i++)
		drm_print_memory_stats(p, &stats[i], DRM_GEM_OBJECT_RESIDENT,
				       vttm_region_names[i]);
costs:
	vttm_show_stats(p, &client->stats);
}

static const char * const vttm_validation_names[] = {
	[VTTM_VALIDATION_XE] = "xe",
	[VTTM_VALIDATION_AMDGPU] = "amdgpu",
};

/**
 * vttm_validation_show - show debugfs file validation
 * @m: The seq_file, whose private data is the device.
 * @data: Unused.
 *
 * Return: 0.
 */
static int vttm_validation_show(struct seq_file *m, void *data)
{
	struct vttm_device *vdev = m->private;

	seq_printf(m, "%s\n",
		   vttm_validation_names[READ_ONCE(vdev->validation)]);
	return 0;
}

/**
 * vttm_validation_open - open debugfs file validation
 * @inode: The file's inode, whose private data is the device.
 * @file: The file.
 *
 * Return: 0 or -ENOMEM.
 */
static int vttm_validation_open(struct inode *inode, struct file *file)
{
	return single_open(file, vttm_validation_show, inode->i_private);
}

/**
 * vttm_validation_write - write debugfs file validation
 * @file: The file.
 * @buf: "xe" or "amdgpu", with or without a newline.
 * @len: Bytes in @buf.
 * @ppos: Unused.
 *
 * The next job validates as the driver named does; buffers stay where they
 * are.
 *
 * Return: @len, -EINVAL for another name, or -EFAULT.
 */
static ssize_t vttm_validation_write(struct file *file, const char __user *buf,
				     size_t len, loff_t *ppos)
{
	struct vttm_device *vdev = file_inode(file)->i_private;
	char name[8];
	int mode;

	if (len >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, buf, len))
		return -EFAULT;
	name[len] = '\0';

	mode = sysfs_match_string(vttm_validation_names, name);
	if (mode < 0)
		return mode;

	WRITE_ONCE(vdev->validation, mode);
	return len;
}

static const struct file_operations vttm_validation_fops = {
	.owner = THIS_MODULE,
	.open = vttm_validation_open,
	.read = seq_read,
	.write = vttm_validation_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/**
 * vttm_debugfs_init - &drm_driver.debugfs_init: the device's debugfs files
 * @minor: The primary minor of the device.
 *
 * validation, "xe" (the default) or "amdgpu", says whose command
 * submission jobs validate as: see &enum vttm_validation;
 * throttle_hard_ms and throttle_soft_ms, the device's eviction throttle
 * periods, which start from the module's parameters (0 in both: no
 * throttling); vram_mm shows the buddy allocator of VRAM; host_memory the
 * host pages behind the device's buffers.
 */
static void vttm_debugfs_init(struct drm_minor *minor)
{
	struct vttm_device *vdev = to_vttm_device(minor->dev);

	debugfs_create_file("validation", 0600, minor->debugfs_root, vdev,
			    &vttm_validation_fops);
	ttm_throttle_debugfs_init(&vdev->ttm, minor->debugfs_root);
	ttm_resource_manager_create_debugfs(ttm_manager_type(&vdev->ttm,
							     TTM_PL_VRAM),
					    minor->debugfs_root, "vram_mm");
	ttm_pool_create_host_memory_debugfs(&vdev->ttm.pool,
					    minor->debugfs_root);
}

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
	.debugfs_init = vttm_debugfs_init,
	.fops = &vttm_fops,
	.name = "vttm",
	.desc = "Virtual TTM device with device memory",
	.major = 1,
	.minor = 0,
};

/**
 * vttm_device_init - set up the device from the module's parameters
 * @vdev: The device, just allocated.
 *
 * Return: 0, -EINVAL for a size of zero, or another negative errno.
 */
static int vttm_device_init(struct vttm_device *vdev)
{
	vdev->vram_size = PAGE_ALIGN(vram_size);
	vdev->gtt_size = PAGE_ALIGN(gtt_size);
	if (!vdev->vram_size || !vdev->gtt_size)
		return -EINVAL;

	vdev->validation = VTTM_VALIDATION_XE;
	vttm_jobs_init(vdev);
	return vttm_ttm_init(vdev);
}

/**
 * vttm_device_fini - tear down what vttm_device_init() set up
 * @vdev: The device, with no clients left.
 *
 * Job timers are cancelled before the memory their buffers hold goes.
 */
static void vttm_device_fini(struct vttm_device *vdev)
{
	vttm_jobs_fini(vdev);
	vttm_ttm_fini(vdev);
}

/**
 * vttm_init - create the device
 *
 * Return: 0 or a negative errno.
 */
static int __init vttm_init(void)
{
	struct faux_device *fdev;
	struct vttm_device *vdev;
	int ret;

	fdev = faux_device_create("vttm", NULL, NULL);
	if (!fdev)
		return -ENODEV;

	if (!devres_open_group(&fdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_unregister;
	}

	vdev = devm_drm_dev_alloc(&fdev->dev, &vttm_driver, struct vttm_device,
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
	devres_release_group(&fdev->dev, NULL);
err_unregister:
	faux_device_destroy(fdev);
	return ret;
}

/**
 * vttm_exit - remove the device
 */
static void __exit vttm_exit(void)
{
	struct faux_device *fdev = to_faux_device(vttm_device->drm.dev);

	drm_dev_unregister(&vttm_device->drm);
	vttm_device_fini(vttm_device);
	devres_release_group(&fdev->dev, NULL);
	faux_device_destroy(fdev);
}

module_init(vttm_init);
module_exit(vttm_exit);

MODULE_DESCRIPTION("Virtual TTM device with device memory, for testing");
MODULE_LICENSE("Dual MIT/GPL");
