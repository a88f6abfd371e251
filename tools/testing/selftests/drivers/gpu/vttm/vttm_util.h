/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What vttm's test programs share: finding and opening the device,
 * its parameters and debugfs files, ioctl wrappers, and child
 * processes that run a client each.
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

#define NSEC_PER_MSEC		1000000ull
#define NSEC_PER_SEC		1000000000ull

/* How long a job keeps its buffers busy, unless a test says otherwise. */
#define JOB_NS			(200 * 1000ull)
/* How long to wait for a buffer to become idle before giving up. */
#define IDLE_TIMEOUT_NS		(10 * NSEC_PER_SEC)

#define VTTM_PLACE_BOTH		(VTTM_PLACE_VRAM | VTTM_PLACE_GTT)

/* The contention tests: enough clients and buffers to overcommit VRAM 2x. */
#define CHURN_CLIENTS		4
#define CHURN_BOS		8
#define CHURN_MIN_BOS_PER_JOB	2
#define CHURN_MAX_BOS_PER_JOB	6
#define CHURN_MIN_JOBS		8
#define CHURN_MAX_JOBS		400
#define CHURN_BUDGET_NS		(3 * NSEC_PER_SEC)
#define CHURN_TIMEOUT_S		90

#define MAX_WORKERS		CHURN_CLIENTS

/* Tests that copy twice VRAM's worth of buffers get longer under emulation. */
#define PRESSURE_TIMEOUT_S	60

/* Below this, the pressure tests can't size their buffers sensibly. */
#define MIN_VRAM_PAGES		64

/* Device and ioctl helpers */

struct vttm_dev {
	char path[32];
	__u64 vram_size;
	__u64 gtt_size;
	__u64 page_size;
};

#define TRACING			"/sys/kernel/tracing"
/* A trace instance of the tests' own: an empty buffer, default options. */
#define TRACE_INSTANCE		TRACING "/instances/vttm_test"
/* A period no test outlasts. */
#define THROTTLE_LONG_MS	600000

/*
 * The device's eviction throttle periods, in its debugfs files throttle_hard_ms and
 * throttle_soft_ms; they apply at once, so a test steps from hard to soft
 * throttle by setting them, and never waits on the clock.
 */
struct throttle_knobs {
	char hard[PATH_MAX];
	char soft[PATH_MAX];
	char saved_hard[32];
	char saved_soft[32];
};

/*
 * Checks that @call fails with @err and leaves the client's stats as they
 * were, apart from counting a failed job. @fmt and the rest describe the
 * case.
 */
#define EXPECT_REJECTED(fd, err, call, fmt, ...) do {			\
	struct drm_vttm_stats rej_before, rej_after;			\
	int rej_fd = (fd);						\
	char rej_case[128];						\
									\
	snprintf(rej_case, sizeof(rej_case), fmt, ##__VA_ARGS__);	\
	ASSERT_EQ(0, get_stats(rej_fd, &rej_before));			\
	EXPECT_EQ(err, call) TH_LOG("%s", rej_case);			\
	ASSERT_EQ(0, get_stats(rej_fd, &rej_after));			\
	EXPECT_TRUE(no_job_effects(&rej_before, &rej_after))		\
		TH_LOG("%s: stats changed, %llu bytes moved in",	\
		       rej_case, (unsigned long long)			\
		       (rej_after.bytes_moved_to_vram -			\
			rej_before.bytes_moved_to_vram));		\
} while (0)

bool fd_is_vttm(int fd);
int vttm_find_node(struct vttm_dev *dev);
ssize_t read_text(const char *path, char *buf, size_t size);
int write_text(const char *path, const char *text);
int parse_u64(const char *text, __u64 *val);
int read_param(const char *name, __u64 *val);
int vttm_probe(struct vttm_dev *dev);
int vttm_open(const struct vttm_dev *dev);
int debugfs_file(const struct vttm_dev *dev, const char *name,
		 int mode, char *path, size_t size);
int exec_eviction_knob(const struct vttm_dev *dev, char *path,
		       size_t size);
int throttle_knobs_get(const struct vttm_dev *dev,
		       struct throttle_knobs *k);
int set_throttle(const struct throttle_knobs *k, unsigned int hard_ms,
		 unsigned int soft_ms);
void throttle_knobs_restore(const struct throttle_knobs *k);
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
int get_stats(int fd, struct drm_vttm_stats *stats);
int gem_close(int fd, __u32 handle);
__u64 fdinfo_size(int fd, const char *key);
int bo_create_many(int fd, __u64 size, __u32 placements,
		   __u32 *handles, unsigned int count);
__u64 now_ns(void);
bool no_job_effects(const struct drm_vttm_stats *before,
		    const struct drm_vttm_stats *after);

/* Child processes */

/*
 * A worker is a child process with a client of its own. It reports through
 * shared memory, in a report that starts with a struct worker_error, and
 * synchronises with the test over two pipes, one byte per message. Workers
 * never use ASSERT_*(): that would run the fixture's teardown in the child.
 */
typedef int (*worker_fn)(const void *plan, void *report, int cmd, int evt);

struct worker {
	pid_t pid;
	int cmd;	/* the test writes, the worker reads */
	int evt;	/* the worker writes, the test reads */
};

struct workers {
	struct worker w[MAX_WORKERS];
	unsigned int count;
};

/* What every worker reports when it fails before doing its work. */
struct worker_error {
	int err;	/* -errno */
	int line;
};

#define MSG_READY	'R'
#define MSG_GO		'G'

int worker_fail(struct worker_error *e, int err, int line);
int msg_send(int fd, char msg);
int msg_recv(int fd);
struct worker *worker_start(struct workers *ws, worker_fn fn,
			    const void *plan, void *report);
int worker_join(struct worker *w);
void workers_kill(struct workers *ws);
void *shared_alloc(size_t size);

#endif /* VTTM_UTIL_H */
