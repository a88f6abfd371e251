/* SPDX-License-Identifier: MIT */
/*
 * The private uAPI of vttm, the virtual TTM test device, shared by the
 * driver and its selftests in tools/testing/selftests/drivers/gpu/vttm/.
 * A test device's interface: it is not installed with the kernel's headers,
 * and may change with its tests.
 */

#ifndef _VTTM_UAPI_H_
#define _VTTM_UAPI_H_

#include <drm/drm.h>

/**
 * DOC: vttm uAPI
 *
 * vttm has two memory placements: VRAM, which it manages as device memory
 * with the buddy allocator (backed by system pages), and GTT, system pages
 * with a limit of their own. Each open file is one client, with its own LRU
 * bulk move, as a GPU VM has.
 *
 * A client creates buffer objects with DRM_IOCTL_VTTM_BO_CREATE and runs
 * jobs on them with DRM_IOCTL_VTTM_SUBMIT. A job locks its buffers, moves
 * each into its preferred placement, evicting others if needed, and keeps
 * them busy for a simulated duration. DRM_IOCTL_VTTM_WAIT waits for a
 * buffer's jobs. What the client's jobs cost in migrations and failures is
 * in its fdinfo, in keys that start with vttm-.
 *
 * A client may export a buffer as a dma-buf (DRM_IOCTL_PRIME_HANDLE_TO_FD),
 * to see what exporting costs the exporter; no importer can attach to it.
 * DRM_IOCTL_VTTM_BO_SET_RESIDENCY sets a buffer's residency level, which
 * orders eviction among the client's own buffers, lowest level first.
 *
 * Arguments are checked before anything changes: an ioctl that fails on
 * its arguments has no effect.
 */

#define DRM_VTTM_BO_CREATE		0x00
#define DRM_VTTM_SUBMIT			0x01
#define DRM_VTTM_WAIT			0x02
#define DRM_VTTM_BO_SET_RESIDENCY	0x03
/* The lab's: see struct drm_vttm_stats. */
#define DRM_VTTM_STATS			0x04

#define DRM_IOCTL_VTTM_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VTTM_BO_CREATE, struct drm_vttm_bo_create)
#define DRM_IOCTL_VTTM_SUBMIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VTTM_SUBMIT, struct drm_vttm_submit)
#define DRM_IOCTL_VTTM_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VTTM_WAIT, struct drm_vttm_wait)
#define DRM_IOCTL_VTTM_BO_SET_RESIDENCY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VTTM_BO_SET_RESIDENCY, \
		struct drm_vttm_bo_residency)
#define DRM_IOCTL_VTTM_STATS \
	DRM_IOR(DRM_COMMAND_BASE + DRM_VTTM_STATS, struct drm_vttm_stats)

/* The buffer may live in VRAM. */
#define VTTM_PLACE_VRAM		0x1
/* The buffer may live in GTT. */
#define VTTM_PLACE_GTT		0x2

/*
 * Create the buffer as xe does with DRM_XE_GEM_CREATE_FLAG_DEFER_BACKING: in
 * system memory with no pages. Its first move into VRAM only clears the
 * VRAM, and keeps the buffer's empty TT behind it, as xe's clear does.
 */
#define VTTM_BO_DEFER_BACKING	0x1

/*
 * The buffer's VRAM must be one contiguous range, as a scanout buffer's
 * must be. Only for a buffer that may live in VRAM alone.
 */
#define VTTM_BO_CONTIGUOUS	0x2

/* Residency levels, as TTM's: a client's lowest level is evicted first. */
#define VTTM_RESIDENCY_MINIMUM	0
#define VTTM_RESIDENCY_LOW	1
#define VTTM_RESIDENCY_NORMAL	2
#define VTTM_RESIDENCY_HIGH	3
#define VTTM_RESIDENCY_MAXIMUM	4
#define VTTM_NUM_RESIDENCY	5

/* The most buffers one job may use. */
#define VTTM_SUBMIT_MAX_BOS	1024
/* The longest a job may run: one second. */
#define VTTM_SUBMIT_MAX_NS	1000000000ull

/**
 * struct drm_vttm_bo_create - create a buffer object
 * @size: In: size in bytes, rounded up to a page. Not zero, and no larger
 *	than any placement the buffer may live in.
 * @placements: In: VTTM_PLACE_* mask of where the buffer may live. A job
 *	prefers VRAM when it is allowed.
 * @flags: In: 0, or %VTTM_BO_DEFER_BACKING and %VTTM_BO_CONTIGUOUS,
 *	the latter only with @placements %VTTM_PLACE_VRAM alone.
 * @handle: Out: the GEM handle of the new buffer.
 * @pad: In: must be 0.
 *
 * The buffer is created in system memory; its first job moves it in.
 *
 * Return: 0, -EINVAL for bad arguments, -E2BIG for a size that a placement
 * it may live in cannot hold, -ENOMEM.
 */
struct drm_vttm_bo_create {
	__u64 size;
	__u32 placements;
	__u32 flags;
	__u32 handle;
	__u32 pad;
};

/**
 * struct drm_vttm_submit - run a job
 * @handles: In: pointer to an array of @count __u32 buffer handles.
 * @count: In: number of handles, 1 to %VTTM_SUBMIT_MAX_BOS.
 * @flags: In: must be 0.
 * @duration_ns: In: how long the job keeps its buffers busy, at most
 *	%VTTM_SUBMIT_MAX_NS.
 *
 * Locks every buffer of the client, validates buffers as the device's
 * validation says (the client's evicted and new ones, as xe does, or
 * each of the job's, as amdgpu does: see the Overview) into their
 * preferred placement, evicting other clients' buffers if needed, and
 * fences the job's with a fence that signals @duration_ns later. The
 * ioctl returns without waiting for the job.
 *
 * Return: 0, -EINVAL for bad arguments or a handle given twice, -ENOENT for
 * an unknown handle, -E2BIG for too many handles, -EFAULT, -ENOMEM when the
 * buffers could not all be placed, -EINTR or -ERESTARTSYS if interrupted.
 * A job that fails runs nothing, and counts in the client's fdinfo if its
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
 * @handle: In: the buffer.
 * @pad: In: must be 0.
 * @timeout_ns: In: how long to wait at most, in nanoseconds from now.
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
 * struct drm_vttm_bo_residency - set a buffer's residency level
 * @handle: In: the buffer.
 * @level: In: %VTTM_RESIDENCY_MINIMUM to %VTTM_RESIDENCY_MAXIMUM. Every
 *	buffer starts at %VTTM_RESIDENCY_NORMAL.
 * Changing the level is not a use: the buffer goes to the front of its
 * new level, the first of that level to be evicted.
 * Return: 0, -EINVAL for a level out of range, -ENOENT for an unknown
 * handle, -EINTR if interrupted. A call that fails changes nothing.
 */
struct drm_vttm_bo_residency {
	__u32 handle;
	__u32 level;
};

/**
 * struct drm_vttm_stats - the lab's copy of a client's fdinfo figures
 * @submits: Out: vttm-submits.
 * @failed_submits: Out: vttm-failed-submits.
 * @failed_enomem: Out: vttm-failed-enomem.
 * @failed_other: Out: vttm-failed-other.
 * @backoffs: Out: vttm-backoffs.
 * @bytes_moved_to_vram: Out: vttm-bytes-moved-to-vram.
 * @bytes_evicted_by: Out: vttm-bytes-evicted-by-jobs.
 * @bytes_evicted_from: Out: vttm-bytes-evicted.
 * @evictions: Out: vttm-evictions.
 * @pingpongs: Out: vttm-pingpongs.
 * @bytes_evicted_from_level: Out: vttm-bytes-evicted-<level>, by
 *	the level the client last set for each buffer, including while the
 *	debugfs file residency_levels is N.
 * @bytes_used_in_gtt: Out: bytes of buffers that the client's jobs used
 *	where they lay in GTT, each buffer once per job: what a GPU would
 *	read across its link.
 *
 * The benchmark reads every client's figures at every frame; one ioctl
 * does that faster than parsing fdinfo.
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
	__u64 bytes_evicted_from_level[VTTM_NUM_RESIDENCY];
	__u64 bytes_used_in_gtt;
};

#endif /* _VTTM_UAPI_H_ */
