/* SPDX-License-Identifier: MIT */
/*
 * vttm: a virtual TTM device with device memory, for testing memory
 * management from userspace.
 */

#ifndef _UAPI_VTTM_DRM_H_
#define _UAPI_VTTM_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: vttm uAPI
 *
 * vttm has two memory placements: VRAM, which it manages as device memory
 * (backed by system pages), and GTT, system pages with a limit of their own.
 * Each open file is one client, with its own LRU bulk move, as a GPU VM has.
 *
 * A client creates buffer objects with DRM_IOCTL_VTTM_BO_CREATE, and runs
 * jobs on them with DRM_IOCTL_VTTM_SUBMIT. A job locks its buffers, moves
 * each into its preferred placement, evicting others if needed, and keeps
 * them busy for a simulated duration. DRM_IOCTL_VTTM_STATS reports what the
 * client's jobs cost in migrations and failures. DRM_IOCTL_VTTM_SET_MODE
 * switches features of the series off for one client, so that one boot can
 * measure both sides.
 */

#define DRM_VTTM_BO_CREATE		0x00
#define DRM_VTTM_BO_SET_PRIORITY	0x01
#define DRM_VTTM_SUBMIT			0x02
#define DRM_VTTM_WAIT			0x03
#define DRM_VTTM_STATS			0x04
#define DRM_VTTM_SET_MODE		0x05

#define DRM_IOCTL_VTTM_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VTTM_BO_CREATE, struct drm_vttm_bo_create)
#define DRM_IOCTL_VTTM_BO_SET_PRIORITY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VTTM_BO_SET_PRIORITY, \
		struct drm_vttm_bo_set_priority)
#define DRM_IOCTL_VTTM_SUBMIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VTTM_SUBMIT, struct drm_vttm_submit)
#define DRM_IOCTL_VTTM_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VTTM_WAIT, struct drm_vttm_wait)
#define DRM_IOCTL_VTTM_STATS \
	DRM_IOR(DRM_COMMAND_BASE + DRM_VTTM_STATS, struct drm_vttm_stats)
#define DRM_IOCTL_VTTM_SET_MODE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VTTM_SET_MODE, struct drm_vttm_set_mode)

/* The buffer may live in VRAM. */
#define VTTM_PLACE_VRAM		0x1
/* The buffer may live in GTT. */
#define VTTM_PLACE_GTT		0x2

/*
 * Residency priorities run from 0, evicted first, to this: TTM's five
 * levels, MINIMUM to MAXIMUM, with 2 (NORMAL) in the middle. They order a
 * client's own buffers for eviction; they do not order clients.
 */
#define VTTM_PRIORITY_MAX	4

/*
 * Flags of struct drm_vttm_bo_create. VTTM_BO_CONTIGUOUS: the buffer's VRAM
 * is one contiguous range, as a scanout buffer's must be; only for buffers
 * whose placements are VTTM_PLACE_VRAM alone.
 */
#define VTTM_BO_CONTIGUOUS	0x1
#define VTTM_BO_FLAGS		VTTM_BO_CONTIGUOUS

/* The most buffers one job may use. */
#define VTTM_SUBMIT_MAX_BOS	1024
/* The longest a job may run: one second. */
#define VTTM_SUBMIT_MAX_NS	1000000000ull

/**
 * struct drm_vttm_bo_create - create a buffer object
 * @size: In: size in bytes, rounded up to a page. Not zero, and no larger
 *	than any placement the buffer may live in.
 * @placements: In: VTTM_PLACE_* mask of where the buffer may live. A job
 *	prefers VRAM when it is allowed: it evicts for VRAM before it places
 *	a buffer in GTT, but a buffer already in GTT only moves into free VRAM.
 * @priority: In: residency priority, 0 to %VTTM_PRIORITY_MAX.
 * @flags: In: 0, or %VTTM_BO_CONTIGUOUS with @placements VTTM_PLACE_VRAM
 *	alone; anything else is -EINVAL.
 * @handle: Out: the GEM handle of the new buffer.
 *
 * The buffer is created in system memory; its first job moves it in.
 *
 * Return: 0, -EINVAL for bad arguments, -E2BIG for a size no placement can
 * hold, -ENOMEM.
 */
struct drm_vttm_bo_create {
	__u64 size;
	__u32 placements;
	__u32 priority;
	__u32 flags;
	__u32 handle;
};

/**
 * struct drm_vttm_bo_set_priority - change a buffer's residency priority
 * @handle: The buffer.
 * @priority: The new priority, 0 to %VTTM_PRIORITY_MAX.
 *
 * Return: 0, -ENOENT for an unknown handle, -EINVAL for a bad priority.
 */
struct drm_vttm_bo_set_priority {
	__u32 handle;
	__u32 priority;
};

/**
 * struct drm_vttm_submit - run a job
 * @handles: In: pointer to an array of @count __u32 buffer handles.
 * @count: In: number of handles, 1 to %VTTM_SUBMIT_MAX_BOS.
 * @flags: In: must be 0.
 * @duration_ns: In: how long the job keeps its buffers busy, at most
 *	%VTTM_SUBMIT_MAX_NS.
 *
 * Locks every buffer, moves each into its preferred placement (evicting
 * other buffers if needed), and fences them all with a fence that signals
 * @duration_ns later. The ioctl returns without waiting for the job.
 *
 * Return: 0, -EINVAL for bad arguments or a handle given twice, -ENOENT for
 * an unknown handle, -E2BIG for too many handles, -EFAULT, -ENOMEM when the
 * buffers could not all be placed, -EINTR or -ERESTARTSYS if interrupted.
 * A job that fails runs nothing, and counts in &drm_vttm_stats if its
 * arguments were good; buffers it already moved stay where they are.
 */
struct drm_vttm_submit {
	__u64 handles;
	__u32 count;
	__u32 flags;
	__u64 duration_ns;
};

/**
 * struct drm_vttm_wait - wait until a buffer is idle
 * @handle: The buffer.
 * @pad: Must be 0.
 * @timeout_ns: How long to wait at most, in nanoseconds from now.
 *
 * Return: 0 once idle, -ETIME on timeout, -ENOENT for an unknown handle,
 * -EINVAL for a nonzero @pad or a negative @timeout_ns, -ERESTARTSYS if
 * interrupted (the wait then starts over).
 */
struct drm_vttm_wait {
	__u32 handle;
	__u32 pad;
	__s64 timeout_ns;
};

/**
 * struct drm_vttm_stats - what a client's jobs cost, since it opened
 * @submits: Jobs submitted, failed ones included.
 * @failed_submits: Jobs that failed.
 * @failed_enomem: Of those, jobs whose buffers could not be placed.
 * @failed_other: Of those, jobs that failed otherwise, e.g. interrupted.
 * @backoffs: Times a job backed off on lock contention and retried.
 * @bytes_moved_to_vram: Bytes the client's jobs moved into VRAM.
 * @bytes_evicted_by: Bytes the client's jobs evicted from VRAM, of any
 *	client's buffers.
 * @bytes_evicted_from: Bytes of the client's buffers evicted from VRAM, by
 *	anyone.
 * @evictions: Evictions of the client's buffers from VRAM.
 * @pingpongs: Times one of the client's buffers moved back into VRAM within
 *	a second of its eviction.
 * @bytes_evicted_from_prio: @bytes_evicted_from by the residency priority
 *	the client gave each buffer, whether or not its mode ignores them.
 */
struct drm_vttm_stats {
	__u64 submits;
	__u64 failed_submits;
	__u64 failed_enomem;
	__u64 failed_other;
	__u64 backoffs;
	__u64 bytes_moved_to_vram;
	__u64 bytes_evicted_by;
	__u64 bytes_evicted_from;
	__u64 evictions;
	__u64 pingpongs;
	__u64 bytes_evicted_from_prio[VTTM_PRIORITY_MAX + 1];
};

/*
 * Validate as a 6.12 driver does: eviction does not lock its victims through
 * the job's drm_exec, so lock contention while evicting fails the job with
 * -ENOMEM.
 */
#define VTTM_MODE_NO_EXEC_EVICTION	0x1
/*
 * Ignore residency priorities, as a 6.12 driver has none: every buffer the
 * client creates or re-prioritises afterwards is at the default level.
 */
#define VTTM_MODE_NO_PRIORITIES		0x2
/*
 * Validate without the client's eviction throttle, as a 6.12 driver does:
 * a client whose memory was just evicted takes it back at once. Others
 * still throttle the client when they evict its memory, but it ignores it.
 */
#define VTTM_MODE_NO_THROTTLE		0x4

/**
 * struct drm_vttm_set_mode - switch features off for this client
 * @flags: VTTM_MODE_* mask; 0 runs with every feature of the series.
 * @pad: Must be 0.
 *
 * Return: 0, or -EINVAL for unknown flags.
 */
struct drm_vttm_set_mode {
	__u32 flags;
	__u32 pad;
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VTTM_DRM_H_ */
