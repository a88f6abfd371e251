/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * vttm: a virtual TTM device with device memory, for testing.
 */
#ifndef _VTTM_DRV_H_
#define _VTTM_DRV_H_

#include <linux/atomic.h>
#include <linux/dma-resv.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/spinlock.h>

#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_kmap_iter.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_throttle.h>

struct dma_fence;
struct dmem_cgroup_region;
struct drm_exec;
struct gpu_buddy;
struct gpu_buddy_block;

/* vttm's "GTT": system pages the device can use, with a limit of its own. */
#define VTTM_PL_GTT	TTM_PL_TT

/**
 * enum vttm_validation - whose command submission a job's validation follows
 * @VTTM_VALIDATION_XE: xe's exec: a job validates the client's evicted
 *	buffers, each once, and leaves the others where they are.
 * @VTTM_VALIDATION_AMDGPU: amdgpu's CS: a job validates each of its buffers.
 *	One that may also live in GTT stands for a BO created for VRAM, to
 *	whose allowed domains amdgpu adds GTT: it is validated in VRAM alone
 *	first, its preferred domain, and in both if that fails.
 */
enum vttm_validation {
	VTTM_VALIDATION_XE,
	VTTM_VALIDATION_AMDGPU,
};

/**
 * struct vttm_device - the device
 * @drm: The DRM device.
 * @ttm: The TTM device.
 * @vram: The system memory standing in for VRAM, mapped linearly. It is not
 *	I/O memory.
 * @vram_size: Size of VRAM in bytes.
 * @gtt_size: Size of GTT in bytes.
 * @vram_region: VRAM's dmem cgroup region, or NULL without the controller.
 * @validation: Whose validation jobs follow; debugfs file validation.
 * @exec_eviction: Whether validation passes the job's drm_exec to TTM. The
 *	lab's debugfs file exec_eviction switches it off, to measure TTM's
 *	path without it.
 * @residency_levels: Whether a buffer's residency level reaches TTM. The
 *	lab's debugfs file residency_levels switches it off, to measure TTM's
 *	order without levels.
 * @jobs_lock: Protects @jobs.
 * @jobs: The fences of the jobs whose timers may still run, each holding a
 *	reference; see vttm_job_fence_start().
 */
struct vttm_device {
	struct drm_device drm;
	struct ttm_device ttm;
	void *vram;
	u64 vram_size;
	u64 gtt_size;
	struct dmem_cgroup_region *vram_region;
	enum vttm_validation validation;
	bool exec_eviction;
	bool residency_levels;
	spinlock_t jobs_lock; /* Protects @jobs. */
	struct list_head jobs;
};

/**
 * struct vttm_stats - what a client's jobs cost, in its fdinfo
 * @submits: Jobs submitted.
 * @failed_submits: Jobs that failed.
 * @failed_enomem: Jobs whose buffers could not be placed.
 * @failed_other: Jobs that failed otherwise.
 * @backoffs: Back-offs on lock contention.
 * @bytes_moved_to_vram: Bytes moved into VRAM.
 * @bytes_evicted_by: Bytes of any client's buffers that eviction moved out
 *	of VRAM or GTT to make room for the client's jobs.
 * @bytes_evicted_from: Bytes of the client's buffers evicted from VRAM.
 * @evictions: Evictions of the client's buffers from VRAM.
 * @pingpongs: Buffers moved back into VRAM within a second of eviction.
 * @bytes_evicted_from_level: @bytes_evicted_from by the buffers' levels.
 * @bytes_used_in_gtt: Bytes of buffers the client's jobs used in GTT.
 */
struct vttm_stats {
	atomic64_t submits;
	atomic64_t failed_submits;
	atomic64_t failed_enomem;
	atomic64_t failed_other;
	atomic64_t backoffs;
	atomic64_t bytes_moved_to_vram;
	atomic64_t bytes_evicted_by;
	atomic64_t bytes_evicted_from;
	atomic64_t evictions;
	atomic64_t pingpongs;
	atomic64_t bytes_evicted_from_level[TTM_NUM_RESIDENCY];
	atomic64_t bytes_used_in_gtt;
};

/**
 * struct vttm_client - one open file of the device
 * @ref: One reference for the file, one for each of its buffers, which may
 *	outlive the file while their last jobs run.
 * @vdev: The device.
 * @resv: The reservation object all the client's buffers share, as the
 *	buffers of a GPU VM do. A job locks it once for all its buffers.
 * @bulk: The LRU bulk move of the client's buffers, as a GPU VM has.
 * @throttle: The client's eviction throttle, next to @bulk, with the
 *	device's periods.
 * @evicted: The client's buffers that eviction moved, or that were never
 *	placed, linked by &vttm_bo.evict_link, as the evict list of a GPU VM
 *	holds them. Protected by @resv.
 * @kept: The client's buffers that its eviction throttle kept out of VRAM,
 *	linked by &vttm_bo.evict_link, until the hard period is over.
 *	Protected by @resv.
 * @stats: What the client's jobs cost.
 */
struct vttm_client {
	struct kref ref;
	struct vttm_device *vdev;
	struct dma_resv resv;
	struct ttm_lru_bulk_move bulk;
	struct ttm_throttle throttle;
	struct list_head evicted;
	struct list_head kept;
	struct vttm_stats stats;
};

/**
 * struct vttm_bo - a buffer object
 * @tbo: The TTM buffer object.
 * @client: The client that created it.
 * @placements: VTTM_PLACE_* mask of where it may live.
 * @flags: VTTM_BO_* creation flags.
 * @evicted_at: When it was last evicted from VRAM, in jiffies, or 0.
 * @opened: Set once the buffer's one handle is open; no other may be.
 * @evict_link: In &vttm_client.evicted while the buffer waits to be
 *	validated again, or in &vttm_client.kept, until its handle is gone.
 * @level: The residency level the client set, VTTM_RESIDENCY_*.
 */
struct vttm_bo {
	struct ttm_buffer_object tbo;
	struct vttm_client *client;
	u32 placements;
	u32 flags;
	unsigned long evicted_at;
	atomic_t opened;
	struct list_head evict_link;
	u32 level;
};

/**
 * struct vttm_vram_iter - a &ttm_kmap_iter over a VRAM resource
 * @base: The iterator.
 * @vram: The memory standing in for VRAM.
 * @mm: The buddy allocator of VRAM.
 * @blocks: The resource's buddy blocks.
 * @block: The block that holds page @first and those after it.
 * @first: The page of the resource at which @block starts.
 *
 * Maps the pages of a resource, which may lie in several buddy blocks, for
 * ttm_move_memcpy(). Pages are looked up in order, as copies go.
 */
struct vttm_vram_iter {
	struct ttm_kmap_iter base;
	void *vram;
	struct gpu_buddy *mm;
	struct list_head *blocks;
	struct gpu_buddy_block *block;
	pgoff_t first;
};

/**
 * to_vttm_device - the vttm device of a DRM device
 * @drm: The DRM device.
 *
 * Return: The device embedding @drm.
 */
static inline struct vttm_device *to_vttm_device(struct drm_device *drm)
{
	return container_of(drm, struct vttm_device, drm);
}

/**
 * to_vttm_bo - the vttm buffer of a GEM object
 * @obj: The GEM object.
 *
 * Return: The buffer embedding @obj.
 */
static inline struct vttm_bo *to_vttm_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct vttm_bo, tbo.base);
}

void vttm_client_put(struct vttm_client *client);

int vttm_ttm_init(struct vttm_device *vdev);
void vttm_ttm_fini(struct vttm_device *vdev);

struct vttm_bo *vttm_bo_create(struct vttm_client *client, u64 size,
			       u32 placements, u32 flags);
int vttm_bo_validate(struct vttm_client *client, struct vttm_bo *bo,
		     struct drm_exec *exec, enum vttm_validation mode);
int vttm_validate_evicted(struct vttm_client *client, struct drm_exec *exec);
void vttm_bo_detach(struct vttm_bo *bo);
int vttm_bo_set_residency(struct vttm_bo *bo, u32 level);

int vttm_vram_mgr_init(struct vttm_device *vdev);
void vttm_vram_mgr_fini(struct vttm_device *vdev);
struct ttm_kmap_iter *vttm_vram_iter_init(struct vttm_vram_iter *iter,
					  struct vttm_device *vdev,
					  struct ttm_resource *res);

void vttm_jobs_init(struct vttm_device *vdev);
void vttm_jobs_fini(struct vttm_device *vdev);
struct dma_fence *vttm_job_fence_create(void);
void vttm_job_fence_start(struct vttm_device *vdev, struct dma_fence *fence,
			  u64 duration_ns);

#endif /* _VTTM_DRV_H_ */
