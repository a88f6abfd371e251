/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * vttm: a virtual TTM device with device memory, for testing.
 */
#ifndef _VTTM_DRV_H_
#define _VTTM_DRV_H_

#include <linux/atomic.h>
#include <linux/dma-resv.h>
#include <linux/kref.h>
#include <linux/wait.h>

#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_throttle.h>

struct drm_exec;

/* vttm's "GTT": system pages the device can use, with a limit of its own. */
#define VTTM_PL_GTT	TTM_PL_TT

/**
 * struct vttm_device - the device
 * @drm: The DRM device.
 * @ttm: The TTM device.
 * @vram: The system memory standing in for VRAM, mapped linearly.
 * @vram_size: Size of VRAM in bytes.
 * @gtt_size: Size of GTT in bytes.
 * @jobs_pending: Jobs whose fences have not signalled yet.
 * @jobs_done: Woken when @jobs_pending drops to zero.
 */
struct vttm_device {
	struct drm_device drm;
	struct ttm_device ttm;
	void *vram;
	u64 vram_size;
	u64 gtt_size;
	atomic_t jobs_pending;
	wait_queue_head_t jobs_done;
};

/**
 * struct vttm_stats - what a client's jobs cost; see &drm_vttm_stats
 * @submits: Jobs submitted.
 * @failed_submits: Jobs that failed.
 * @failed_enomem: Jobs whose buffers could not be placed.
 * @failed_other: Jobs that failed otherwise.
 * @backoffs: Back-offs on lock contention.
 * @bytes_moved_to_vram: Bytes moved into VRAM.
 * @bytes_evicted_by: Bytes the client's jobs evicted from VRAM.
 * @bytes_evicted_from: Bytes of the client's buffers evicted from VRAM.
 * @evictions: Evictions of the client's buffers from VRAM.
 * @pingpongs: Buffers moved back into VRAM within a second of eviction.
 * @bytes_evicted_from_prio: @bytes_evicted_from by the buffers' priority.
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
	atomic64_t bytes_evicted_from_prio[VTTM_PRIORITY_MAX + 1];
};

/**
 * struct vttm_client - one open file of the device
 * @ref: One reference for the file, one for each of its buffers, which may
 *	outlive the file while their last jobs run.
 * @vdev: The device.
 * @resv: The reservation object all the client's buffers share, as the
 *	buffers of a GPU VM do. A job locks it once for all its buffers.
 * @bulk: The LRU bulk move of the client's buffers, as a GPU VM has.
 * @throttle: The client's eviction throttle, next to @bulk.
 * @mode: VTTM_MODE_* flags: features of the series switched off.
 * @job_seq: The number of the client's last job, under @resv.
 * @running_job: The job being placed, or 0; its buffers are not evicted.
 * @stats: What the client's jobs cost.
 */
struct vttm_client {
	struct kref ref;
	struct vttm_device *vdev;
	struct dma_resv resv;
	struct ttm_lru_bulk_move bulk;
	struct ttm_throttle throttle;
	u32 mode;
	u64 job_seq;
	u64 running_job;
	struct vttm_stats stats;
};

/**
 * struct vttm_bo - a buffer object
 * @tbo: The TTM buffer object.
 * @client: The client that created it.
 * @placements: VTTM_PLACE_* mask of where it may live.
 * @priority: The residency priority the client gave it.
 * @contiguous: Its VRAM must be one contiguous range (VTTM_BO_CONTIGUOUS).
 * @evicted_at: When it was last evicted from VRAM, in jiffies, or 0.
 * @job: The client's job that last placed it.
 */
struct vttm_bo {
	struct ttm_buffer_object tbo;
	struct vttm_client *client;
	u32 placements;
	u32 priority;
	bool contiguous;
	unsigned long evicted_at;
	u64 job;
};

static inline struct vttm_device *to_vttm_device(struct drm_device *drm)
{
	return container_of(drm, struct vttm_device, drm);
}

static inline struct vttm_bo *to_vttm_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct vttm_bo, tbo.base);
}

void vttm_client_put(struct vttm_client *client);

int vttm_ttm_init(struct vttm_device *vdev);
void vttm_ttm_fini(struct vttm_device *vdev);

struct vttm_bo *vttm_bo_create(struct vttm_client *client, u64 size,
			       u32 placements, u32 priority, bool contiguous);
int vttm_bo_set_priority(struct vttm_bo *bo, u32 priority);
int vttm_bo_validate(struct vttm_client *client, struct vttm_bo *bo,
		     struct drm_exec *exec);
void vttm_bo_detach(struct vttm_bo *bo);

struct dma_fence *vttm_job_fence_create(struct vttm_device *vdev);
void vttm_job_fence_start(struct dma_fence *fence, u64 duration_ns);

#endif /* _VTTM_DRV_H_ */
