/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What vttm's test programs share: finding and opening the device,
 * its parameters and debugfs files, ioctl wrappers, and the client's
 * figures in its fdinfo.
 */

#ifndef VTTM_UTIL_H
#define VTTM_UTIL_H

#include "../../../kselftest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The driver's private uAPI, found through the Makefile's include path. */
#include "vttm_uapi.h"

#define VTTM_DRIVER_NAME	"vttm"
#define VTTM_PARAMS		"/sys/module/vttm/parameters"
#define DRI_DEBUGFS		"/sys/kernel/debug/dri"
/* More than a client's fdinfo takes. */
#define FDINFO_SIZE		8192

#define NSEC_PER_MSEC		1000000ull
#define NSEC_PER_SEC		1000000000ull

/* How long a job keeps its buffers busy, unless a test says otherwise. */
#define JOB_NS			(200 * 1000ull)
/* How long to wait for a buffer to become idle before giving up. */
#define IDLE_TIMEOUT_NS		(10 * NSEC_PER_SEC)

#define VTTM_PLACE_BOTH		(VTTM_PLACE_VRAM | VTTM_PLACE_GTT)

/* Tests that copy twice VRAM's worth of buffers get longer under emulation. */
#define PRESSURE_TIMEOUT_S	60

/* Below this, the pressure tests can't size their buffers sensibly. */
#define MIN_VRAM_PAGES		64

/* Device and ioctl helpers */

/*
 * What a client's jobs cost, since it opened: the vttm-* keys of its
 * fdinfo, which vttm_show_stats() in the driver documents.
 */
struct vttm_stats {
	__u64 submits;
	__u64 failed_submits;
	__u64 failed_enomem;
	__u64 failed_other;
	__u64 backoffs;
	__u64 evictions;
	__u64 pingpongs;
	__u64 bytes_moved_to_vram;
	__u64 bytes_evicted_by;
	__u64 bytes_evicted_from;
	__u64 bytes_evicted_from_level[VTTM_NUM_RESIDENCY];
};

struct vttm_dev {
	char path[32];
	__u64 vram_size;
	__u64 gtt_size;
	__u64 page_size;
};

bool fd_is_vttm(int fd);
ssize_t read_text(const char *path, char *buf, size_t size);
int write_text(const char *path, const char *text);
int parse_u64(const char *text, __u64 *val);
int vttm_probe(struct vttm_dev *dev);
int vttm_probe_min(struct vttm_dev *dev, unsigned int min_pages,
		   char *why, size_t size);
int vttm_open(const struct vttm_dev *dev);
int debugfs_file(const struct vttm_dev *dev, const char *name,
		 int mode, char *path, size_t size);
__u64 pages_down(const struct vttm_dev *dev, __u64 size);
int vttm_ioctl(int fd, unsigned long request, void *arg);
int bo_create_args(int fd, struct drm_vttm_bo_create *args);
int bo_create_flags(int fd, __u64 size, __u32 placements,
		    __u32 flags, __u32 *handle);
int bo_create(int fd, __u64 size, __u32 placements, __u32 *handle);
int submit_args(int fd, struct drm_vttm_submit *args);
int submit_for(int fd, const __u32 *handles, __u32 count,
	       __u64 duration_ns);
int submit(int fd, const __u32 *handles, __u32 count);
int bo_wait_args(int fd, struct drm_vttm_wait *args);
int bo_wait_for(int fd, __u32 handle, __s64 timeout_ns);
int bo_wait(int fd, __u32 handle);
int bo_wait_all(int fd, const __u32 *handles, unsigned int count);
int get_stats(int fd, struct vttm_stats *stats);
int gem_close(int fd, __u32 handle);
__u64 fdinfo_size(int fd, const char *key);
int bo_create_many(int fd, __u64 size, __u32 placements,
		   __u32 *handles, unsigned int count);
__u64 now_ns(void);
bool no_job_effects(const struct vttm_stats *before,
		    const struct vttm_stats *after);

#endif /* VTTM_UTIL_H */
