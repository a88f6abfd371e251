// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for vttm, the virtual TTM device with emulated VRAM: its uAPI,
 * eviction under VRAM pressure, validation of concurrent jobs, and the dmem
 * cgroup controller's dmem.max, dmem.min and dmem.low applied to its VRAM.
 *
 * Every test skips when no vttm device is present, and the dmem tests skip
 * when the dmem controller is not available.
 */

#include "../../../kselftest_harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The uAPI headers of a tree without "make headers" still say __user. */
#ifndef __user
#define __user
#endif
#include "vttm_drm.h"

#define VTTM_DRIVER_NAME	"vttm"
#define VTTM_PARAMS		"/sys/module/vttm/parameters"
#define CGROUP_ROOT		"/sys/fs/cgroup"
#define DMEM_REGION_PREFIX	"drm/vttm"

#define NSEC_PER_MSEC		1000000ull
#define NSEC_PER_SEC		1000000000ull

/* How long a job keeps its buffers busy, unless a test says otherwise. */
#define JOB_NS			(200 * 1000ull)
/* How long to wait for a buffer to become idle before giving up. */
#define IDLE_TIMEOUT_NS		(10 * NSEC_PER_SEC)
/* How long freed VRAM may take to be uncharged from its cgroup. */
#define UNCHARGE_TIMEOUT_MS	2000

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

#define MAX_WORKERS		8
#define MAX_CGROUPS		4

/* Tests that copy twice VRAM's worth of buffers get longer under emulation. */
#define PRESSURE_TIMEOUT_S	60

/* Below this, the pressure tests can't size their buffers sensibly. */
#define MIN_VRAM_PAGES		64

/* ------------------------------------------------------------------ */
/* Device and ioctl helpers                                           */
/* ------------------------------------------------------------------ */

struct vttm_dev {
	char path[32];
	__u64 vram_size;
	__u64 gtt_size;
	__u64 page_size;
};

static bool fd_is_vttm(int fd)
{
	char name[16] = { 0 };
	struct drm_version version = {
		.name_len = sizeof(name) - 1,
		.name = name,
	};

	if (ioctl(fd, DRM_IOCTL_VERSION, &version))
		return false;

	/* name_len comes back as the length of the driver's whole name. */
	return version.name_len == strlen(VTTM_DRIVER_NAME) &&
	       !strcmp(name, VTTM_DRIVER_NAME);
}

/* Finds the vttm node, preferring a render node; -ENODEV if there is none. */
static int vttm_find_node(struct vttm_dev *dev)
{
	static const char * const prefixes[] = { "render", "card" };
	struct dirent *de;
	unsigned int i;
	bool found;
	DIR *dir;
	int fd;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		dir = opendir("/dev/dri");
		if (!dir)
			break;
		while ((de = readdir(dir))) {
			if (strncmp(de->d_name, prefixes[i], strlen(prefixes[i])))
				continue;
			snprintf(dev->path, sizeof(dev->path), "/dev/dri/%.20s",
				 de->d_name);
			fd = open(dev->path, O_RDWR | O_CLOEXEC);
			if (fd < 0)
				continue;
			found = fd_is_vttm(fd);
			close(fd);
			if (found) {
				closedir(dir);
				return 0;
			}
		}
		closedir(dir);
	}
	dev->path[0] = '\0';
	return -ENODEV;
}

static ssize_t read_text(const char *path, char *buf, size_t size)
{
	ssize_t len = 0, n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(fd);
	return len;
}

static int write_text(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	return (size_t)n == len ? 0 : -EIO;
}

static int parse_u64(const char *text, __u64 *val)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || (*end && *end != '\n'))
		return -EINVAL;
	*val = v;
	return 0;
}

static int read_param(const char *name, __u64 *val)
{
	char path[128], buf[32];
	ssize_t len;

	snprintf(path, sizeof(path), "%s/%s", VTTM_PARAMS, name);
	len = read_text(path, buf, sizeof(buf));
	if (len < 0)
		return len;
	return parse_u64(buf, val);
}

/*
 * Finds the device and reads its sizes: -ENODEV if there is no vttm device,
 * another error if its parameters can't be read.
 */
static int vttm_probe(struct vttm_dev *dev)
{
	int ret;

	memset(dev, 0, sizeof(*dev));
	ret = vttm_find_node(dev);
	if (ret)
		return ret;

	dev->page_size = sysconf(_SC_PAGESIZE);
	ret = read_param("vram_size", &dev->vram_size);
	if (ret)
		return ret == -ENODEV ? -ENOENT : ret;
	ret = read_param("gtt_size", &dev->gtt_size);
	return ret == -ENODEV ? -ENOENT : ret;
}

static int vttm_open(const struct vttm_dev *dev)
{
	int fd = open(dev->path, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* @size rounded down to a whole number of pages. */
static __u64 pages_down(const struct vttm_dev *dev, __u64 size)
{
	return size - size % dev->page_size;
}

static int vttm_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg) ? -errno : 0;
}

static int bo_create_args(int fd, struct drm_vttm_bo_create *args)
{
	return vttm_ioctl(fd, DRM_IOCTL_VTTM_BO_CREATE, args);
}

static int bo_create(int fd, __u64 size, __u32 placements, __u32 priority,
		     __u32 *handle)
{
	struct drm_vttm_bo_create args = {
		.size = size,
		.placements = placements,
		.priority = priority,
	};
	int ret;

	ret = bo_create_args(fd, &args);
	if (!ret)
		*handle = args.handle;
	return ret;
}

static int bo_set_priority(int fd, __u32 handle, __u32 priority)
{
	struct drm_vttm_bo_set_priority args = {
		.handle = handle,
		.priority = priority,
	};

	return vttm_ioctl(fd, DRM_IOCTL_VTTM_BO_SET_PRIORITY, &args);
}

static int submit_args(int fd, struct drm_vttm_submit *args)
{
	return vttm_ioctl(fd, DRM_IOCTL_VTTM_SUBMIT, args);
}

static int submit_for(int fd, const __u32 *handles, __u32 count,
		      __u64 duration_ns)
{
	struct drm_vttm_submit args = {
		.handles = (uintptr_t)handles,
		.count = count,
		.duration_ns = duration_ns,
	};

	return submit_args(fd, &args);
}

static int submit(int fd, const __u32 *handles, __u32 count)
{
	return submit_for(fd, handles, count, JOB_NS);
}

static int bo_wait_args(int fd, struct drm_vttm_wait *args)
{
	return vttm_ioctl(fd, DRM_IOCTL_VTTM_WAIT, args);
}

static int bo_wait_for(int fd, __u32 handle, __s64 timeout_ns)
{
	struct drm_vttm_wait args = {
		.handle = handle,
		.timeout_ns = timeout_ns,
	};

	return bo_wait_args(fd, &args);
}

static int bo_wait(int fd, __u32 handle)
{
	return bo_wait_for(fd, handle, IDLE_TIMEOUT_NS);
}

static int bo_wait_all(int fd, const __u32 *handles, unsigned int count)
{
	unsigned int i;
	int ret;

	for (i = 0; i < count; i++) {
		ret = bo_wait(fd, handles[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int set_mode_args(int fd, struct drm_vttm_set_mode *args)
{
	return vttm_ioctl(fd, DRM_IOCTL_VTTM_SET_MODE, args);
}

#define VTTM_MODES_KNOWN	(VTTM_MODE_NO_EXEC_EVICTION | \
				 VTTM_MODE_NO_PRIORITIES | \
				 VTTM_MODE_NO_THROTTLE)

static int set_mode(int fd, __u32 flags)
{
	struct drm_vttm_set_mode args = { .flags = flags };

	return set_mode_args(fd, &args);
}

static int get_stats(int fd, struct drm_vttm_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	return vttm_ioctl(fd, DRM_IOCTL_VTTM_STATS, stats);
}

static int gem_close(int fd, __u32 handle)
{
	struct drm_gem_close args = { .handle = handle };

	return vttm_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &args);
}

/* Creates @count buffers of @size bytes each. */
static int bo_create_many(int fd, __u64 size, __u32 placements,
			  __u32 priority, __u32 *handles, unsigned int count)
{
	unsigned int i;
	int ret;

	for (i = 0; i < count; i++) {
		ret = bo_create(fd, size, placements, priority, &handles[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Whether a failed call left no trace: nothing moved, evicted or ran. */
static bool no_job_effects(const struct drm_vttm_stats *before,
			   const struct drm_vttm_stats *after)
{
	/* Whether a rejected job counts as failed is left open: none ran. */
	return before->bytes_moved_to_vram == after->bytes_moved_to_vram &&
	       before->bytes_evicted_by == after->bytes_evicted_by &&
	       before->bytes_evicted_from == after->bytes_evicted_from &&
	       before->evictions == after->evictions &&
	       before->pingpongs == after->pingpongs &&
	       before->backoffs == after->backoffs &&
	       before->failed_enomem == after->failed_enomem &&
	       before->submits - before->failed_submits ==
	       after->submits - after->failed_submits;
}

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

/* ------------------------------------------------------------------ */
/* Child processes                                                    */
/* ------------------------------------------------------------------ */

/*
 * A worker is a child process with a client of its own, optionally in a
 * cgroup. It reports through shared memory, in a report that starts with a
 * struct worker_error, and synchronises with the test over two pipes, one
 * byte per message. Workers never use ASSERT_*(): that would run the
 * fixture's teardown in the child.
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

static int worker_fail(struct worker_error *e, int err, int line)
{
	e->err = err;
	e->line = line;
	return 1;
}

#define MSG_READY	'R'
#define MSG_GO		'G'

static int msg_send(int fd, char msg)
{
	return write(fd, &msg, 1) == 1 ? 0 : -EPIPE;
}

/* Returns the message, or -EPIPE if the other side has gone. */
static int msg_recv(int fd)
{
	ssize_t n;
	char msg;

	do {
		n = read(fd, &msg, 1);
	} while (n < 0 && errno == EINTR);
	return n == 1 ? msg : -EPIPE;
}

static int cg_enter(const char *cgroup)
{
	char path[PATH_MAX], pid[16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_text(path, pid);
}

/*
 * Starts @fn in a child process, first moved into @cgroup unless that is
 * NULL. Returns the worker, or NULL with errno set.
 */
static struct worker *worker_start(struct workers *ws, const char *cgroup,
				   worker_fn fn, const void *plan,
				   void *report)
{
	int down[2], up[2], ret;
	struct worker *w;
	pid_t pid;

	if (ws->count == MAX_WORKERS) {
		errno = ENOSPC;
		return NULL;
	}
	if (pipe(down))
		return NULL;
	if (pipe(up)) {
		close(down[0]);
		close(down[1]);
		return NULL;
	}

	/* A worker that dies must not take the test down with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(down[0]);
		close(down[1]);
		close(up[0]);
		close(up[1]);
		return NULL;
	}
	if (!pid) {
		close(down[1]);
		close(up[0]);
		if (cgroup) {
			ret = cg_enter(cgroup);
			if (ret)
				_exit(worker_fail(report, ret, __LINE__));
		}
		_exit(fn(plan, report, down[0], up[1]));
	}

	close(down[0]);
	close(up[1]);
	w = &ws->w[ws->count++];
	w->pid = pid;
	w->cmd = down[1];
	w->evt = up[0];
	return w;
}

/* Waits for the worker to exit: its exit code, or -1 if it was killed. */
static int worker_join(struct worker *w)
{
	int status;

	if (w->pid <= 0)
		return -1;
	close(w->cmd);
	close(w->evt);
	while (waitpid(w->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			w->pid = 0;
			return -1;
		}
	}
	w->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Teardown: no worker may outlive its test, or keep a cgroup busy. */
static void workers_kill(struct workers *ws)
{
	unsigned int i;

	for (i = 0; i < ws->count; i++) {
		if (ws->w[i].pid <= 0)
			continue;
		kill(ws->w[i].pid, SIGKILL);
		worker_join(&ws->w[i]);
	}
	ws->count = 0;
}

static void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* ------------------------------------------------------------------ */
/* Cgroup and dmem helpers                                            */
/* ------------------------------------------------------------------ */

struct cgroups {
	char path[MAX_CGROUPS][PATH_MAX];
	unsigned int count;
};

/* Creates CGROUP_ROOT/vttm_test.<pid>.<tag>; returns its path or NULL. */
static const char *cg_create(struct cgroups *cgs, const char *tag)
{
	char *path;

	if (cgs->count == MAX_CGROUPS) {
		errno = ENOSPC;
		return NULL;
	}
	path = cgs->path[cgs->count];
	snprintf(path, PATH_MAX, "%s/vttm_test.%d.%s", CGROUP_ROOT, getpid(),
		 tag);
	if (mkdir(path, 0755))
		return NULL;
	cgs->count++;
	return path;
}

/* A cgroup stays busy for a moment after its last task is reaped. */
static void cg_destroy_all(struct cgroups *cgs)
{
	unsigned int i;
	int tries;

	for (i = 0; i < cgs->count; i++) {
		for (tries = 0; tries < 100; tries++) {
			if (!rmdir(cgs->path[i]) || errno == ENOENT)
				break;
			usleep(20 * 1000);
		}
	}
	cgs->count = 0;
}

/* Reads @region's value from a dmem file: "<region> <bytes|max>" lines. */
static int dmem_read(const char *cgroup, const char *file, const char *region,
		     __u64 *val)
{
	char path[PATH_MAX], buf[4096];
	size_t rlen = strlen(region);
	char *line, *next;
	ssize_t len;

	snprintf(path, sizeof(path), "%s/%s", cgroup, file);
	len = read_text(path, buf, sizeof(buf));
	if (len < 0)
		return len;

	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, region, rlen) || line[rlen] != ' ')
			continue;
		if (!strcmp(line + rlen + 1, "max")) {
			*val = UINT64_MAX;
			return 0;
		}
		return parse_u64(line + rlen + 1, val);
	}
	return -ENOENT;
}

static int dmem_write(const char *cgroup, const char *file,
		      const char *region, __u64 val)
{
	char path[PATH_MAX], line[256];

	snprintf(path, sizeof(path), "%s/%s", cgroup, file);
	snprintf(line, sizeof(line), "%s %llu\n", region,
		 (unsigned long long)val);
	return write_text(path, line);
}

/*
 * Waits until @cgroup's dmem.current for @region reads @want: freeing VRAM
 * may be deferred until the buffer is idle. Returns the last value read, or
 * UINT64_MAX if the file could not be read.
 */
static __u64 dmem_wait_current(const char *cgroup, const char *region,
			       __u64 want)
{
	__u64 cur = UINT64_MAX;
	int ms;

	for (ms = 0; ms <= UNCHARGE_TIMEOUT_MS; ms += 10) {
		if (dmem_read(cgroup, "dmem.current", region, &cur))
			return UINT64_MAX;
		if (cur == want)
			break;
		usleep(10 * 1000);
	}
	return cur;
}

/*
 * Finds vttm's region in dmem.capacity. Returns 0, or a reason to skip in
 * @why.
 */
static int dmem_find_region(char *region, size_t size, __u64 *capacity,
			    const char **why)
{
	size_t plen = strlen(DMEM_REGION_PREFIX);
	char *line, *next, *sp;
	char buf[4096];
	ssize_t len;

	len = read_text(CGROUP_ROOT "/cgroup.controllers", buf, sizeof(buf));
	if (len < 0) {
		*why = "cgroup2 is not mounted at " CGROUP_ROOT;
		return len;
	}
	if (!strstr(buf, "dmem")) {
		*why = "dmem controller not available (CONFIG_CGROUP_DMEM)";
		return -ENODEV;
	}
	len = read_text(CGROUP_ROOT "/dmem.capacity", buf, sizeof(buf));
	if (len < 0) {
		*why = "cannot read " CGROUP_ROOT "/dmem.capacity";
		return len;
	}

	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, DMEM_REGION_PREFIX, plen))
			continue;
		sp = strchr(line, ' ');
		if (!sp || (size_t)(sp - line) >= size)
			continue;
		memcpy(region, line, sp - line);
		region[sp - line] = '\0';
		if (parse_u64(sp + 1, capacity))
			continue;
		return 0;
	}
	*why = "vttm registered no dmem region (" DMEM_REGION_PREFIX "/...)";
	return -ENOENT;
}

/* Enables dmem for the root's children; *enabled says if this did it. */
static int dmem_enable(bool *enabled)
{
	const char *path = CGROUP_ROOT "/cgroup.subtree_control";
	char buf[1024];
	ssize_t len;
	int ret;

	*enabled = false;
	len = read_text(path, buf, sizeof(buf));
	if (len < 0)
		return len;
	if (strstr(buf, "dmem"))
		return 0;
	ret = write_text(path, "+dmem");
	if (!ret)
		*enabled = true;
	return ret;
}

/* ------------------------------------------------------------------ */
/* uAPI                                                               */
/* ------------------------------------------------------------------ */

FIXTURE(uapi)
{
	struct vttm_dev dev;
	int fd;
};

FIXTURE_SETUP(uapi)
{
	int ret;

	self->fd = -1;
	ret = vttm_probe(&self->dev);
	if (ret == -ENODEV)
		SKIP(return, "vttm device not found (CONFIG_DRM_VTTM)");
	ASSERT_EQ(0, ret) TH_LOG("cannot read %s/{vram,gtt}_size: %s",
				 VTTM_PARAMS, strerror(-ret));
	if (self->dev.vram_size < 16 * self->dev.page_size)
		SKIP(return, "vram_size %llu is below 16 pages",
		     (unsigned long long)self->dev.vram_size);

	self->fd = vttm_open(&self->dev);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", self->dev.path,
				      strerror(-self->fd));
}

FIXTURE_TEARDOWN(uapi)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(uapi, new_client_has_zero_stats)
{
	struct drm_vttm_stats stats, zero = { 0 };

	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(0, memcmp(&stats, &zero, sizeof(stats)));
}

TEST_F(uapi, create_returns_distinct_nonzero_handles)
{
	__u32 a, b;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       0, &a));
	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_GTT,
			       VTTM_PRIORITY_MAX, &b));
	EXPECT_NE(0U, a);
	EXPECT_NE(0U, b);
	EXPECT_NE(a, b);
}

TEST_F(uapi, create_with_zero_size_is_einval)
{
	__u32 h;

	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_create(self->fd, 0, VTTM_PLACE_BOTH, 0, &h),
			"VRAM|GTT");
	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_create(self->fd, 0, VTTM_PLACE_VRAM, 0, &h),
			"VRAM only");
}

TEST_F(uapi, create_larger_than_vram_plus_gtt_is_e2big)
{
	__u64 size = self->dev.vram_size + self->dev.gtt_size;
	__u32 h;

	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd, size + self->dev.page_size,
				  VTTM_PLACE_BOTH, 0, &h),
			"a page over");
	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd, 2 * size, VTTM_PLACE_BOTH, 0, &h),
			"twice over");
}

/* Rounding the size up to a page must not wrap it around to a small one. */
TEST_F(uapi, create_of_u64_max_bytes_is_e2big)
{
	__u32 h;

	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd, UINT64_MAX, VTTM_PLACE_BOTH, 0,
				  &h),
			"UINT64_MAX");
	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd,
				  UINT64_MAX - self->dev.page_size + 2,
				  VTTM_PLACE_VRAM, 0, &h),
			"rounds up to 0");
}

TEST_F(uapi, create_vram_only_larger_than_vram_is_e2big)
{
	__u64 vram = self->dev.vram_size;
	__u32 h;

	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd, vram + 1, VTTM_PLACE_VRAM, 0, &h),
			"one byte over, so a page over");
	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd, vram + self->dev.page_size,
				  VTTM_PLACE_VRAM, 0, &h),
			"a page over");
}

TEST_F(uapi, create_gtt_only_larger_than_gtt_is_e2big)
{
	__u32 h;

	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd,
				  self->dev.gtt_size + self->dev.page_size,
				  VTTM_PLACE_GTT, 0, &h),
			"a page over");
}

TEST_F(uapi, create_as_large_as_its_placement_succeeds)
{
	__u64 vram = pages_down(&self->dev, self->dev.vram_size);
	__u64 gtt = pages_down(&self->dev, self->dev.gtt_size);
	__u32 h;

	EXPECT_EQ(0, bo_create(self->fd, vram, VTTM_PLACE_VRAM, 0, &h));
	if (gtt)
		EXPECT_EQ(0, bo_create(self->fd, gtt, VTTM_PLACE_GTT, 0, &h));
}

TEST_F(uapi, create_with_unknown_flags_is_einval)
{
	struct drm_vttm_bo_create args = {
		.size = self->dev.page_size,
		.placements = VTTM_PLACE_BOTH,
	};
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		args.flags = 1U << bit;
		if (args.flags & VTTM_BO_FLAGS)
			continue;
		EXPECT_REJECTED(self->fd, -EINVAL,
				bo_create_args(self->fd, &args),
				"flags 0x%x", args.flags);
	}
}

TEST_F(uapi, create_contiguous_needs_vram_alone)
{
	struct drm_vttm_bo_create args = {
		.size = self->dev.page_size,
		.flags = VTTM_BO_CONTIGUOUS,
	};

	args.placements = VTTM_PLACE_GTT;
	EXPECT_REJECTED(self->fd, -EINVAL, bo_create_args(self->fd, &args),
			"contiguous in GTT");
	args.placements = VTTM_PLACE_BOTH;
	EXPECT_REJECTED(self->fd, -EINVAL, bo_create_args(self->fd, &args),
			"contiguous in VRAM or GTT");
	args.placements = VTTM_PLACE_VRAM;
	EXPECT_EQ(0, bo_create_args(self->fd, &args));
	EXPECT_EQ(0, submit(self->fd, &args.handle, 1));
	EXPECT_EQ(0, bo_wait_all(self->fd, &args.handle, 1));
}

TEST_F(uapi, create_without_placements_is_einval)
{
	__u32 h;

	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_create(self->fd, self->dev.page_size, 0, 0, &h),
			"placements 0");
}

TEST_F(uapi, create_with_unknown_placement_bits_is_einval)
{
	__u32 placements;
	unsigned int bit;
	__u32 h;

	for (bit = 2; bit < 32; bit++) {
		placements = VTTM_PLACE_VRAM | 1U << bit;
		EXPECT_REJECTED(self->fd, -EINVAL,
				bo_create(self->fd, self->dev.page_size,
					  placements, 0, &h),
				"placements 0x%x", placements);
	}
	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_create(self->fd, self->dev.page_size, 1U << 31, 0,
				  &h),
			"placements 0x80000000");
}

TEST_F(uapi, create_with_priority_above_max_is_einval)
{
	__u32 h;

	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_create(self->fd, self->dev.page_size,
				  VTTM_PLACE_BOTH, VTTM_PRIORITY_MAX + 1, &h),
			"VTTM_PRIORITY_MAX + 1");
	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_create(self->fd, self->dev.page_size,
				  VTTM_PLACE_BOTH, UINT32_MAX, &h),
			"UINT32_MAX");
	EXPECT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_BOTH,
			       VTTM_PRIORITY_MAX, &h));
}

TEST_F(uapi, set_priority_accepts_every_priority_up_to_max)
{
	__u32 prio, h;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_BOTH,
			       0, &h));
	for (prio = 0; prio <= VTTM_PRIORITY_MAX; prio++) {
		EXPECT_EQ(0, bo_set_priority(self->fd, h, prio))
			TH_LOG("priority %u", prio);
	}
}

TEST_F(uapi, set_priority_of_unknown_handle_is_enoent)
{
	__u32 h;

	EXPECT_REJECTED(self->fd, -ENOENT, bo_set_priority(self->fd, 0, 0),
			"handle 0");
	EXPECT_REJECTED(self->fd, -ENOENT,
			bo_set_priority(self->fd, 0xdead, 0),
			"never created");

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_BOTH,
			       0, &h));
	ASSERT_EQ(0, gem_close(self->fd, h));
	EXPECT_REJECTED(self->fd, -ENOENT, bo_set_priority(self->fd, h, 0),
			"closed");
}

TEST_F(uapi, set_priority_above_max_is_einval)
{
	__u32 h;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_BOTH,
			       0, &h));
	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_set_priority(self->fd, h, VTTM_PRIORITY_MAX + 1),
			"VTTM_PRIORITY_MAX + 1");
	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_set_priority(self->fd, h, UINT32_MAX),
			"UINT32_MAX");
}

TEST_F(uapi, submit_of_zero_handles_is_einval)
{
	__u32 h;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_BOTH,
			       0, &h));
	EXPECT_REJECTED(self->fd, -EINVAL, submit(self->fd, &h, 0),
			"valid pointer");
	EXPECT_REJECTED(self->fd, -EINVAL, submit(self->fd, NULL, 0),
			"NULL pointer");
}

TEST_F(uapi, submit_of_more_than_max_bos_is_e2big_and_of_max_bos_succeeds)
{
	const unsigned int n = VTTM_SUBMIT_MAX_BOS + 1;
	__u64 bytes = (__u64)VTTM_SUBMIT_MAX_BOS * self->dev.page_size;
	struct drm_vttm_stats before, after;
	__u32 *handles;

	handles = calloc(n, sizeof(*handles));
	ASSERT_NE(NULL, handles);
	ASSERT_EQ(0, bo_create_many(self->fd, self->dev.page_size,
				    VTTM_PLACE_BOTH, 0, handles, n));

	EXPECT_REJECTED(self->fd, -E2BIG, submit(self->fd, handles, n),
			"VTTM_SUBMIT_MAX_BOS + 1");
	/* Counts this large must be refused before they size any copy. */
	EXPECT_REJECTED(self->fd, -E2BIG,
			submit(self->fd, handles, UINT32_MAX), "UINT32_MAX");
	EXPECT_REJECTED(self->fd, -E2BIG,
			submit(self->fd, handles, UINT32_MAX / 4 + 1),
			"UINT32_MAX / 4 + 1");

	if (bytes > self->dev.vram_size + self->dev.gtt_size) {
		TH_LOG("%u pages don't fit in VRAM and GTT: not submitted",
		       VTTM_SUBMIT_MAX_BOS);
		free(handles);
		return;
	}
	ASSERT_EQ(0, get_stats(self->fd, &before));
	EXPECT_EQ(0, submit(self->fd, handles, VTTM_SUBMIT_MAX_BOS));
	ASSERT_EQ(0, get_stats(self->fd, &after));
	EXPECT_EQ(before.submits + 1, after.submits);
	EXPECT_EQ(before.failed_submits, after.failed_submits);
	if (bytes <= self->dev.vram_size) {
		EXPECT_EQ(before.bytes_moved_to_vram + bytes,
			  after.bytes_moved_to_vram);
	}
	EXPECT_EQ(0, bo_wait_all(self->fd, handles, VTTM_SUBMIT_MAX_BOS));
	free(handles);
}

TEST_F(uapi, submit_of_unknown_handle_is_enoent)
{
	__u32 handles[2], closed;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       0, &handles[0]));
	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       0, &closed));
	ASSERT_EQ(0, gem_close(self->fd, closed));

	/* The valid buffer in front must not have moved either. */
	handles[1] = 0;
	EXPECT_REJECTED(self->fd, -ENOENT, submit(self->fd, handles, 2),
			"handle 0");
	handles[1] = closed;
	EXPECT_REJECTED(self->fd, -ENOENT, submit(self->fd, handles, 2),
			"closed handle");
	EXPECT_REJECTED(self->fd, -ENOENT, submit(self->fd, &handles[1], 1),
			"closed handle alone");
	handles[1] = 0xdeadbeef;
	EXPECT_REJECTED(self->fd, -ENOENT, submit(self->fd, handles, 2),
			"never created");
}

TEST_F(uapi, submit_of_another_clients_handle_is_enoent)
{
	int other;
	__u32 h;

	other = vttm_open(&self->dev);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, bo_create(other, self->dev.page_size, VTTM_PLACE_VRAM, 0,
			       &h));
	EXPECT_REJECTED(self->fd, -ENOENT, submit(self->fd, &h, 1),
			"handle %u of another client", h);
	close(other);
}

TEST_F(uapi, submit_of_duplicated_handle_is_einval)
{
	__u32 a, b, handles[3];

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       0, &a));
	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_BOTH,
			       0, &b));

	handles[0] = a;
	handles[1] = a;
	EXPECT_REJECTED(self->fd, -EINVAL, submit(self->fd, handles, 2),
			"{ a, a }");
	handles[1] = b;
	handles[2] = a;
	EXPECT_REJECTED(self->fd, -EINVAL, submit(self->fd, handles, 3),
			"{ a, b, a }");
}

TEST_F(uapi, submit_with_nonzero_flags_is_einval)
{
	struct drm_vttm_submit args = {
		.count = 1,
		.duration_ns = JOB_NS,
	};
	unsigned int bit;
	__u32 h;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       0, &h));
	args.handles = (uintptr_t)&h;
	for (bit = 0; bit < 32; bit++) {
		args.flags = 1U << bit;
		EXPECT_REJECTED(self->fd, -EINVAL,
				submit_args(self->fd, &args),
				"flags 0x%x", args.flags);
	}
}

TEST_F(uapi, submit_longer_than_max_duration_is_einval)
{
	__u32 h;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       0, &h));
	EXPECT_REJECTED(self->fd, -EINVAL,
			submit_for(self->fd, &h, 1, VTTM_SUBMIT_MAX_NS + 1),
			"VTTM_SUBMIT_MAX_NS + 1");
	EXPECT_REJECTED(self->fd, -EINVAL,
			submit_for(self->fd, &h, 1, UINT64_MAX),
			"UINT64_MAX");
}

TEST_F(uapi, submit_with_bad_handles_pointer_is_efault)
{
	size_t page = self->dev.page_size;
	__u32 handles[2], *last;
	char *map;

	ASSERT_EQ(0, bo_create_many(self->fd, page, VTTM_PLACE_VRAM, 0,
				    handles, 2));

	EXPECT_REJECTED(self->fd, -EFAULT, submit(self->fd, NULL, 1),
			"NULL");

	/* The last handle of a page whose next page is not mapped. */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, munmap(map + page, page));
	last = (__u32 *)(map + page) - 1;
	*last = handles[0];
	EXPECT_REJECTED(self->fd, -EFAULT, submit(self->fd, last, 2),
			"second handle unmapped");
	EXPECT_REJECTED(self->fd, -EFAULT, submit(self->fd, last + 1, 1),
			"unmapped");
	munmap(map, page);
}

TEST_F(uapi, set_mode_with_unknown_flags_is_einval)
{
	struct drm_vttm_set_mode args = { 0 };
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		args.flags = 1U << bit;
		if (args.flags & VTTM_MODES_KNOWN)
			continue;
		EXPECT_REJECTED(self->fd, -EINVAL,
				set_mode_args(self->fd, &args),
				"flags 0x%x", args.flags);
	}
	args.flags = VTTM_MODE_NO_EXEC_EVICTION | 1U << 31;
	EXPECT_REJECTED(self->fd, -EINVAL, set_mode_args(self->fd, &args),
			"flags 0x%x", args.flags);
}

TEST_F(uapi, set_mode_with_nonzero_pad_is_einval)
{
	struct drm_vttm_set_mode args = { .pad = 1 };

	EXPECT_REJECTED(self->fd, -EINVAL, set_mode_args(self->fd, &args),
			"pad 1");
}

TEST_F(uapi, set_mode_accepts_every_known_mode)
{
	EXPECT_EQ(0, set_mode(self->fd, VTTM_MODE_NO_EXEC_EVICTION));
	EXPECT_EQ(0, set_mode(self->fd, VTTM_MODE_NO_PRIORITIES));
	EXPECT_EQ(0, set_mode(self->fd, VTTM_MODE_NO_THROTTLE));
	EXPECT_EQ(0, set_mode(self->fd, VTTM_MODES_KNOWN));
	EXPECT_EQ(0, set_mode(self->fd, 0));
}

TEST_F(uapi, wait_with_nonzero_pad_is_einval)
{
	struct drm_vttm_wait args = {
		.pad = 1,
		.timeout_ns = IDLE_TIMEOUT_NS,
	};

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       0, &args.handle));
	EXPECT_REJECTED(self->fd, -EINVAL, bo_wait_args(self->fd, &args),
			"pad 1");
}

TEST_F(uapi, wait_on_unknown_handle_is_enoent)
{
	EXPECT_REJECTED(self->fd, -ENOENT, bo_wait(self->fd, 0), "handle 0");
	EXPECT_REJECTED(self->fd, -ENOENT, bo_wait(self->fd, 0xdeadbeef),
			"never created");
}

TEST_F(uapi, wait_on_never_submitted_buffer_returns_at_once)
{
	__u32 h;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       0, &h));
	EXPECT_EQ(0, bo_wait_for(self->fd, h, 0));
}

TEST_F(uapi, good_submit_moves_its_buffers_into_vram)
{
	__u64 page = self->dev.page_size;
	struct drm_vttm_stats stats;
	__u32 handles[2];

	/* Sizes round up to a page: 3 and 6 pages. */
	ASSERT_EQ(0, bo_create(self->fd, 3 * page - 100, VTTM_PLACE_VRAM, 0,
			       &handles[0]));
	ASSERT_EQ(0, bo_create(self->fd, 5 * page + 1, VTTM_PLACE_BOTH,
			       VTTM_PRIORITY_MAX, &handles[1]));

	ASSERT_EQ(0, submit(self->fd, handles, 2));
	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(1ULL, stats.submits);
	EXPECT_EQ(0ULL, stats.failed_submits);
	EXPECT_EQ(9 * page, stats.bytes_moved_to_vram);
	EXPECT_EQ(0ULL, stats.bytes_evicted_from);
	EXPECT_EQ(0ULL, stats.evictions);
	EXPECT_EQ(0, bo_wait(self->fd, handles[0]));
	EXPECT_EQ(0, bo_wait(self->fd, handles[1]));

	/* They are still resident: a second job moves nothing. */
	ASSERT_EQ(0, submit(self->fd, handles, 2));
	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(2ULL, stats.submits);
	EXPECT_EQ(0ULL, stats.failed_submits);
	EXPECT_EQ(9 * page, stats.bytes_moved_to_vram);
	EXPECT_EQ(0, bo_wait_all(self->fd, handles, 2));
}

TEST_F(uapi, job_keeps_its_buffers_busy_for_its_duration)
{
	__u64 start, elapsed;
	__u32 h;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       0, &h));
	start = now_ns();
	ASSERT_EQ(0, submit_for(self->fd, &h, 1, VTTM_SUBMIT_MAX_NS));
	EXPECT_EQ(-ETIME, bo_wait_for(self->fd, h, 0));
	EXPECT_EQ(-ETIME, bo_wait_for(self->fd, h, 10 * NSEC_PER_MSEC));
	EXPECT_EQ(0, bo_wait_for(self->fd, h, 10 * VTTM_SUBMIT_MAX_NS));
	elapsed = now_ns() - start;
	EXPECT_LE(VTTM_SUBMIT_MAX_NS, elapsed);
	EXPECT_EQ(0, bo_wait_for(self->fd, h, 0));
}

TEST_F(uapi, job_of_zero_duration_is_accepted)
{
	__u32 h;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_BOTH,
			       0, &h));
	EXPECT_EQ(0, submit_for(self->fd, &h, 1, 0));
	EXPECT_EQ(0, bo_wait(self->fd, h));
}

TEST_F(uapi, stats_are_per_client)
{
	struct drm_vttm_stats stats, zero = { 0 };
	int other;
	__u32 h;

	other = vttm_open(&self->dev);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, bo_create(other, self->dev.page_size, VTTM_PLACE_VRAM, 0,
			       &h));
	ASSERT_EQ(0, submit(other, &h, 1));
	ASSERT_EQ(0, bo_wait(other, h));

	ASSERT_EQ(0, get_stats(other, &stats));
	EXPECT_EQ(1ULL, stats.submits);
	EXPECT_EQ(self->dev.page_size, stats.bytes_moved_to_vram);
	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(0, memcmp(&stats, &zero, sizeof(stats)));
	close(other);
}

/* ------------------------------------------------------------------ */
/* Eviction                                                           */
/* ------------------------------------------------------------------ */

FIXTURE(eviction)
{
	struct vttm_dev dev;
	int fd;
};

FIXTURE_SETUP(eviction)
{
	int ret;

	self->fd = -1;
	ret = vttm_probe(&self->dev);
	if (ret == -ENODEV)
		SKIP(return, "vttm device not found (CONFIG_DRM_VTTM)");
	ASSERT_EQ(0, ret) TH_LOG("cannot read %s/{vram,gtt}_size: %s",
				 VTTM_PARAMS, strerror(-ret));
	if (self->dev.vram_size < MIN_VRAM_PAGES * self->dev.page_size)
		SKIP(return, "vram_size %llu is below %d pages",
		     (unsigned long long)self->dev.vram_size, MIN_VRAM_PAGES);

	self->fd = vttm_open(&self->dev);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", self->dev.path,
				      strerror(-self->fd));
}

FIXTURE_TEARDOWN(eviction)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F_TIMEOUT(eviction,
	       vram_only_buffers_of_twice_vram_all_fit_one_job_at_a_time,
	       PRESSURE_TIMEOUT_S)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 4);
	__u64 total = 8 * size;
	struct drm_vttm_stats stats;
	__u32 handles[8];
	unsigned int i;

	ASSERT_EQ(0, bo_create_many(self->fd, size, VTTM_PLACE_VRAM, 0,
				    handles, 8));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(0, submit(self->fd, &handles[i], 1))
			TH_LOG("job %u of 8", i);
	}
	EXPECT_EQ(0, bo_wait_all(self->fd, handles, 8));

	ASSERT_EQ(0, get_stats(self->fd, &stats));
	TH_LOG("moved %llu, evicted %llu in %llu evictions",
	       (unsigned long long)stats.bytes_moved_to_vram,
	       (unsigned long long)stats.bytes_evicted_from,
	       (unsigned long long)stats.evictions);
	EXPECT_EQ(8ULL, stats.submits);
	EXPECT_EQ(0ULL, stats.failed_submits);
	EXPECT_EQ(total, stats.bytes_moved_to_vram);
	/* VRAM holds at most vram_size of them: the rest had to go. */
	EXPECT_LE(total - self->dev.vram_size, stats.bytes_evicted_from);
	EXPECT_LT(0ULL, stats.bytes_evicted_from);
	EXPECT_LE(stats.bytes_evicted_from, stats.bytes_evicted_by);
	EXPECT_LE(1ULL, stats.evictions);
}

TEST_F(eviction, job_needing_more_than_vram_fails_with_enomem)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 8 * 5);
	struct drm_vttm_stats stats;
	__u32 handles[2];

	ASSERT_EQ(0, bo_create_many(self->fd, size, VTTM_PLACE_VRAM, 0,
				    handles, 2));
	EXPECT_EQ(-ENOMEM, submit(self->fd, handles, 2));
	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(1ULL, stats.submits);
	EXPECT_EQ(1ULL, stats.failed_submits);
	EXPECT_EQ(1ULL, stats.failed_enomem);
	EXPECT_EQ(0ULL, stats.failed_other);

	/* Each of them alone still fits. */
	EXPECT_EQ(0, submit(self->fd, &handles[0], 1));
	EXPECT_EQ(0, submit(self->fd, &handles[1], 1));
	EXPECT_EQ(0, bo_wait_all(self->fd, handles, 2));
}

TEST_F(eviction, buffers_that_allow_gtt_fall_back_to_it_when_vram_is_full)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 8 * 5);
	struct drm_vttm_stats stats;
	__u32 handles[2];

	if (self->dev.gtt_size < size)
		SKIP(return, "gtt_size %llu is too small",
		     (unsigned long long)self->dev.gtt_size);

	ASSERT_EQ(0, bo_create_many(self->fd, size, VTTM_PLACE_BOTH, 0,
				    handles, 2));
	EXPECT_EQ(0, submit(self->fd, handles, 2));
	EXPECT_EQ(0, bo_wait_all(self->fd, handles, 2));
	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(0ULL, stats.failed_submits);
	EXPECT_GE(self->dev.vram_size, stats.bytes_moved_to_vram);
}

/*
 * A client places a high priority buffer, then a low priority one, each of
 * 3/8 of VRAM, and a third client needs 3/8: one of the two must go. The
 * client's stats after, in @mode.
 */
static void evict_one_of_two(struct __test_metadata *_metadata,
			     const struct vttm_dev *dev, int third_fd,
			     __u32 mode, struct drm_vttm_stats *stats)
{
	__u64 size = pages_down(dev, dev->vram_size / 8 * 3);
	__u32 h_high, h_low, h;
	int fd;

	fd = vttm_open(dev);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_mode(fd, mode));

	/* Swapped at creation, so that only set_priority can get it right. */
	ASSERT_EQ(0, bo_create(fd, size, VTTM_PLACE_VRAM, 0, &h_high));
	ASSERT_EQ(0, bo_set_priority(fd, h_high, VTTM_PRIORITY_MAX));
	ASSERT_EQ(0, bo_create(fd, size, VTTM_PLACE_VRAM, VTTM_PRIORITY_MAX,
			       &h_low));
	ASSERT_EQ(0, bo_set_priority(fd, h_low, 0));

	/* The high priority buffer is the less recently placed one. */
	ASSERT_EQ(0, submit(fd, &h_high, 1));
	ASSERT_EQ(0, bo_wait(fd, h_high));
	ASSERT_EQ(0, submit(fd, &h_low, 1));
	ASSERT_EQ(0, bo_wait(fd, h_low));

	ASSERT_EQ(0, bo_create(third_fd, size, VTTM_PLACE_VRAM, 0, &h));
	EXPECT_EQ(0, submit(third_fd, &h, 1));
	EXPECT_EQ(0, bo_wait(third_fd, h));

	ASSERT_EQ(0, get_stats(fd, stats));
	EXPECT_EQ(size, stats->bytes_evicted_from);
	close(fd);
}

#define WINDOW_PARAM	"/sys/module/ttm/parameters/evict_window"
#define WINDOW_SLOTS	64

/*
 * VRAM full of WINDOW_SLOTS equal buffers of two clients, placed one of
 * each in turn, so that their addresses interleave while LRU order keeps
 * each client's buffers together; then a contiguous buffer of 8 slots
 * from a third client. Returns the bytes that client's job evicted, or 0
 * on a failure already reported.
 */
static __u64 contiguous_in_interleaved_vram(struct __test_metadata *_metadata,
					    const struct vttm_dev *dev, int fd)
{
	__u64 slot = pages_down(dev, dev->vram_size / WINDOW_SLOTS);
	struct drm_vttm_bo_create args = {
		.size = 8 * slot,
		.placements = VTTM_PLACE_VRAM,
		.flags = VTTM_BO_CONTIGUOUS,
	};
	__u32 handles[2][WINDOW_SLOTS / 2];
	int fds[2] = { fd, vttm_open(dev) };
	struct drm_vttm_stats stats;
	__u64 evicted = 0;
	unsigned int i;
	int fd3, ret;

	ret = fds[1] < 0 ? fds[1] : 0;
	for (i = 0; !ret && i < 2; i++)
		ret = bo_create_many(fds[i], slot, VTTM_PLACE_VRAM, 0,
				     handles[i], WINDOW_SLOTS / 2);
	for (i = 0; !ret && i < WINDOW_SLOTS; i++)
		ret = submit(fds[i % 2], &handles[i % 2][i / 2], 1);
	for (i = 0; !ret && i < 2; i++)
		ret = bo_wait_all(fds[i], handles[i], WINDOW_SLOTS / 2);
	EXPECT_EQ(0, ret) TH_LOG("filling VRAM: %s", strerror(-ret));
	if (ret)
		goto out;

	fd3 = vttm_open(dev);
	EXPECT_LE(0, fd3) TH_LOG("third client: %s", strerror(-fd3));
	if (fd3 < 0)
		goto out;
	EXPECT_EQ(0, bo_create_args(fd3, &args));
	EXPECT_EQ(0, submit(fd3, &args.handle, 1));
	EXPECT_EQ(0, bo_wait_all(fd3, &args.handle, 1));
	EXPECT_EQ(0, get_stats(fd3, &stats));
	close(fd3);
	evicted = stats.bytes_evicted_by;
	TH_LOG("evicted %llu bytes for %llu contiguous",
	       (unsigned long long)evicted, (unsigned long long)args.size);
out:
	if (fds[1] >= 0)
		close(fds[1]);
	return evicted;
}

TEST_F(eviction, contiguous_buffer_evicts_one_window)
{
	__u64 slot = pages_down(&self->dev, self->dev.vram_size / WINDOW_SLOTS);
	__u64 evicted;

	/* On by default; a failed run of the next test may have left it off. */
	write_text(WINDOW_PARAM, "1");
	evicted = contiguous_in_interleaved_vram(_metadata, &self->dev,
						 self->fd);
	EXPECT_LT(0ULL, evicted);
	EXPECT_LE(evicted, 8 * slot);
}

/* What makes the test above able to fail: 6.12's LRU order. */
TEST_F(eviction, contiguous_buffer_in_lru_order_evicts_more)
{
	__u64 slot = pages_down(&self->dev, self->dev.vram_size / WINDOW_SLOTS);
	__u64 evicted;

	if (write_text(WINDOW_PARAM, "0"))
		SKIP(return, "cannot write %s", WINDOW_PARAM);
	evicted = contiguous_in_interleaved_vram(_metadata, &self->dev,
						 self->fd);
	EXPECT_EQ(0, write_text(WINDOW_PARAM, "1"));
	EXPECT_LT(8 * slot, evicted);
}

TEST_F(eviction, lower_priority_buffer_of_a_client_goes_first)
{
	struct drm_vttm_stats stats;

	evict_one_of_two(_metadata, &self->dev, self->fd, 0, &stats);
	EXPECT_EQ(stats.bytes_evicted_from, stats.bytes_evicted_from_prio[0]);
	EXPECT_EQ(0ULL, stats.bytes_evicted_from_prio[VTTM_PRIORITY_MAX]);
}

/* The baseline mode is what makes the test above able to fail. */
TEST_F(eviction, without_priorities_the_older_buffer_goes_first)
{
	struct drm_vttm_stats stats;

	evict_one_of_two(_metadata, &self->dev, self->fd,
			 VTTM_MODE_NO_PRIORITIES, &stats);
	EXPECT_EQ(0ULL, stats.bytes_evicted_from_prio[0]);
	EXPECT_EQ(stats.bytes_evicted_from,
		  stats.bytes_evicted_from_prio[VTTM_PRIORITY_MAX]);
}

TEST_F(eviction, priorities_do_not_order_clients)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 8 * 3);
	struct drm_vttm_stats idle, busy;
	__u32 h_idle, h_busy, h;
	int fd_idle, fd_busy;

	fd_idle = vttm_open(&self->dev);
	ASSERT_LE(0, fd_idle);
	fd_busy = vttm_open(&self->dev);
	ASSERT_LE(0, fd_busy);

	/* The idle client's buffer matters most to it, but it is idle. */
	ASSERT_EQ(0, bo_create(fd_idle, size, VTTM_PLACE_VRAM,
			       VTTM_PRIORITY_MAX, &h_idle));
	ASSERT_EQ(0, submit(fd_idle, &h_idle, 1));
	ASSERT_EQ(0, bo_wait(fd_idle, h_idle));
	ASSERT_EQ(0, bo_create(fd_busy, size, VTTM_PLACE_VRAM, 0, &h_busy));
	ASSERT_EQ(0, submit(fd_busy, &h_busy, 1));
	ASSERT_EQ(0, bo_wait(fd_busy, h_busy));

	ASSERT_EQ(0, bo_create(self->fd, size, VTTM_PLACE_VRAM, 0, &h));
	EXPECT_EQ(0, submit(self->fd, &h, 1));
	EXPECT_EQ(0, bo_wait(self->fd, h));

	ASSERT_EQ(0, get_stats(fd_idle, &idle));
	ASSERT_EQ(0, get_stats(fd_busy, &busy));
	EXPECT_EQ(size, idle.bytes_evicted_from);
	EXPECT_EQ(0ULL, busy.bytes_evicted_from);
	close(fd_idle);
	close(fd_busy);
}

#define OVERCOMMIT_BOS		10	/* of VRAM/8 each: 10/8 of VRAM */
#define OVERCOMMIT_HIGH		4	/* at the highest priority */
#define OVERCOMMIT_ROUNDS	3

/*
 * A game under 10/8 overcommit: buffers of VRAM/8, the first few at the
 * highest priority (render targets), the rest at the lowest (textures). It
 * uses each in turn, one job each, for a few rounds. Its stats after, in
 * @mode.
 */
static void overcommit_rounds(struct __test_metadata *_metadata,
			      const struct vttm_dev *dev, int fd, __u32 mode,
			      struct drm_vttm_stats *stats)
{
	__u64 size = pages_down(dev, dev->vram_size / 8);
	__u32 handles[OVERCOMMIT_BOS];
	unsigned int i, round;

	ASSERT_EQ(0, set_mode(fd, mode));
	for (i = 0; i < OVERCOMMIT_BOS; i++)
		ASSERT_EQ(0, bo_create(fd, size, VTTM_PLACE_VRAM,
				       i < OVERCOMMIT_HIGH ? VTTM_PRIORITY_MAX : 0,
				       &handles[i]));

	for (round = 0; round < OVERCOMMIT_ROUNDS; round++) {
		for (i = 0; i < OVERCOMMIT_BOS; i++) {
			ASSERT_EQ(0, submit(fd, &handles[i], 1))
				TH_LOG("round %u, buffer %u", round, i);
			ASSERT_EQ(0, bo_wait(fd, handles[i]));
		}
	}
	ASSERT_EQ(0, get_stats(fd, stats));
	EXPECT_EQ(0ULL, stats->failed_submits);
}

TEST_F(eviction, high_priority_buffers_stay_under_overcommit)
{
	struct drm_vttm_stats stats;

	overcommit_rounds(_metadata, &self->dev, self->fd, 0, &stats);
	EXPECT_LT(0ULL, stats.bytes_evicted_from_prio[0]);
	EXPECT_EQ(0ULL, stats.bytes_evicted_from_prio[VTTM_PRIORITY_MAX]);
}

TEST_F(eviction, without_priorities_overcommit_evicts_high_priority_buffers)
{
	struct drm_vttm_stats stats;

	overcommit_rounds(_metadata, &self->dev, self->fd,
			  VTTM_MODE_NO_PRIORITIES, &stats);
	EXPECT_LT(0ULL, stats.bytes_evicted_from_prio[VTTM_PRIORITY_MAX]);
}

/*
 * A filler takes all of VRAM but a page, and every job uses it, so that x and
 * y, a page each, take turns in that page: each job evicts the other one.
 * Only single pages move while the clock runs, which keeps it quick even
 * under emulation.
 */
TEST_F_TIMEOUT(eviction,
	       buffer_back_in_vram_within_a_second_of_eviction_is_a_pingpong,
	       PRESSURE_TIMEOUT_S)
{
	__u64 page = self->dev.page_size;
	__u64 filler = pages_down(&self->dev, self->dev.vram_size) - page;
	__u64 start, elapsed, pingpongs;
	struct drm_vttm_stats stats;
	__u32 fx[2], fy[2];

	ASSERT_EQ(0, bo_create(self->fd, filler, VTTM_PLACE_VRAM, 0, &fx[0]));
	ASSERT_EQ(0, bo_create(self->fd, page, VTTM_PLACE_VRAM, 0, &fx[1]));
	ASSERT_EQ(0, bo_create(self->fd, page, VTTM_PLACE_VRAM, 0, &fy[1]));
	fy[0] = fx[0];

	ASSERT_EQ(0, submit(self->fd, fx, 2));
	ASSERT_EQ(0, bo_wait_all(self->fd, fx, 2));

	start = now_ns();
	ASSERT_EQ(0, submit(self->fd, fy, 2));
	ASSERT_EQ(0, submit(self->fd, fx, 2));
	ASSERT_EQ(0, bo_wait_all(self->fd, fx, 2));
	elapsed = now_ns() - start;

	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(2ULL, stats.evictions);
	EXPECT_EQ(2 * page, stats.bytes_evicted_from);
	if (elapsed < NSEC_PER_SEC / 10 * 9) {
		EXPECT_EQ(1ULL, stats.pingpongs);
	} else {
		TH_LOG("x took %llu ms to come back: not checking pingpongs",
		       (unsigned long long)(elapsed / NSEC_PER_MSEC));
	}

	/* y was evicted just now: bring it back well over a second later. */
	pingpongs = stats.pingpongs;
	usleep(1200 * 1000);
	ASSERT_EQ(0, submit(self->fd, fy, 2));
	ASSERT_EQ(0, bo_wait_all(self->fd, fy, 2));
	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(3ULL, stats.evictions);
	EXPECT_EQ(pingpongs, stats.pingpongs);
}

/* ------------------------------------------------------------------ */
/* Contention                                                         */
/* ------------------------------------------------------------------ */

struct churn_plan {
	const struct vttm_dev *dev;
	__u32 mode;
	__u64 bo_size;
};

struct churn_report {
	struct worker_error error;
	unsigned int seed;
	__u64 jobs;
	__u64 ok;
	__u64 enomem;
	__u64 other;
	int other_err;
	struct drm_vttm_stats stats;
};

static unsigned int xorshift32(unsigned int *state)
{
	unsigned int x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/*
 * One client: CHURN_BOS VRAM-only buffers, and jobs on random subsets of
 * them until the time budget or the job limit runs out.
 */
static int churn_worker(const void *arg, void *out, int cmd, int evt)
{
	const struct churn_plan *plan = arg;
	struct churn_report *rep = out;
	__u32 handles[CHURN_BOS], job[CHURN_BOS];
	unsigned int i, j, n, tmp, idx[CHURN_BOS];
	__u64 deadline;
	int fd, ret;

	rep->seed = (unsigned int)now_ns() ^ (unsigned int)getpid() << 16;
	if (!rep->seed)
		rep->seed = 1;

	fd = vttm_open(plan->dev);
	if (fd < 0)
		return worker_fail(&rep->error, fd, __LINE__);
	ret = set_mode(fd, plan->mode);
	if (ret)
		return worker_fail(&rep->error, ret, __LINE__);
	ret = bo_create_many(fd, plan->bo_size, VTTM_PLACE_VRAM, 0, handles,
			     CHURN_BOS);
	if (ret)
		return worker_fail(&rep->error, ret, __LINE__);

	/* Start all clients at once, for as much overlap as possible. */
	if (msg_send(evt, MSG_READY) || msg_recv(cmd) != MSG_GO)
		return worker_fail(&rep->error, -EPIPE, __LINE__);

	deadline = now_ns() + CHURN_BUDGET_NS;
	while (rep->jobs < CHURN_MAX_JOBS &&
	       (rep->jobs < CHURN_MIN_JOBS || now_ns() < deadline)) {
		n = CHURN_MIN_BOS_PER_JOB +
		    xorshift32(&rep->seed) % (CHURN_MAX_BOS_PER_JOB -
					      CHURN_MIN_BOS_PER_JOB + 1);
		for (i = 0; i < CHURN_BOS; i++)
			idx[i] = i;
		for (i = 0; i < n; i++) {
			j = i + xorshift32(&rep->seed) % (CHURN_BOS - i);
			tmp = idx[i];
			idx[i] = idx[j];
			idx[j] = tmp;
			job[i] = handles[idx[i]];
		}

		ret = submit(fd, job, n);
		rep->jobs++;
		if (!ret) {
			rep->ok++;
		} else if (ret == -ENOMEM) {
			rep->enomem++;
		} else {
			rep->other++;
			rep->other_err = ret;
		}
	}

	ret = bo_wait_all(fd, handles, CHURN_BOS);
	if (ret)
		return worker_fail(&rep->error, ret, __LINE__);
	ret = get_stats(fd, &rep->stats);
	if (ret)
		return worker_fail(&rep->error, ret, __LINE__);
	close(fd);
	return 0;
}

FIXTURE(contention)
{
	struct vttm_dev dev;
	struct workers workers;
	struct churn_report *reports;
};

FIXTURE_SETUP(contention)
{
	int ret;

	ret = vttm_probe(&self->dev);
	if (ret == -ENODEV)
		SKIP(return, "vttm device not found (CONFIG_DRM_VTTM)");
	ASSERT_EQ(0, ret) TH_LOG("cannot read %s/{vram,gtt}_size: %s",
				 VTTM_PARAMS, strerror(-ret));
	if (self->dev.vram_size < MIN_VRAM_PAGES * self->dev.page_size)
		SKIP(return, "vram_size %llu is below %d pages",
		     (unsigned long long)self->dev.vram_size, MIN_VRAM_PAGES);

	self->reports = shared_alloc(CHURN_CLIENTS * sizeof(*self->reports));
	ASSERT_NE(NULL, self->reports);
}

FIXTURE_TEARDOWN(contention)
{
	workers_kill(&self->workers);
	if (self->reports)
		munmap(self->reports, CHURN_CLIENTS * sizeof(*self->reports));
}

/*
 * Runs CHURN_CLIENTS clients in @mode, each with VRAM-only buffers of
 * vram_size / 16, 2x VRAM in all, and sums up their reports in @sum.
 */
static void run_churn(struct __test_metadata *_metadata,
		      const struct vttm_dev *dev, struct workers *ws,
		      struct churn_report *reports, __u32 mode,
		      struct churn_report *sum)
{
	struct churn_plan plan = {
		.dev = dev,
		.mode = mode,
		.bo_size = pages_down(dev, dev->vram_size / 16),
	};
	struct churn_report *rep;
	struct worker *w[CHURN_CLIENTS];
	unsigned int i;
	int status;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < CHURN_CLIENTS; i++) {
		w[i] = worker_start(ws, NULL, churn_worker, &plan,
				    &reports[i]);
		ASSERT_NE(NULL, w[i]) TH_LOG("fork: %s", strerror(errno));
	}
	for (i = 0; i < CHURN_CLIENTS; i++)
		if (msg_recv(w[i]->evt) != MSG_READY)
			break;
	for (i = 0; i < CHURN_CLIENTS; i++)
		msg_send(w[i]->cmd, MSG_GO);

	for (i = 0; i < CHURN_CLIENTS; i++) {
		rep = &reports[i];
		status = worker_join(w[i]);
		EXPECT_EQ(0, status)
			TH_LOG("client %u failed at line %d: %s", i,
			       rep->error.line, strerror(-rep->error.err));
		TH_LOG("client %u, seed %u: %llu jobs, %llu ENOMEM, %llu other",
		       i, rep->seed, (unsigned long long)rep->jobs,
		       (unsigned long long)rep->enomem,
		       (unsigned long long)rep->other);
		TH_LOG("client %u: backoffs/evictions/pingpongs %llu/%llu/%llu",
		       i, (unsigned long long)rep->stats.backoffs,
		       (unsigned long long)rep->stats.evictions,
		       (unsigned long long)rep->stats.pingpongs);
		if (rep->other)
			TH_LOG("client %u: last unexpected error %s", i,
			       strerror(-rep->other_err));
		EXPECT_EQ(rep->jobs, rep->stats.submits);

		sum->jobs += rep->jobs;
		sum->ok += rep->ok;
		sum->enomem += rep->enomem;
		sum->other += rep->other;
		sum->stats.submits += rep->stats.submits;
		sum->stats.failed_submits += rep->stats.failed_submits;
		sum->stats.failed_enomem += rep->stats.failed_enomem;
		sum->stats.backoffs += rep->stats.backoffs;
		sum->stats.bytes_moved_to_vram +=
			rep->stats.bytes_moved_to_vram;
		sum->stats.bytes_evicted_by += rep->stats.bytes_evicted_by;
		sum->stats.evictions += rep->stats.evictions;
	}
	ws->count = 0;
}

TEST_F_TIMEOUT(contention, concurrent_clients_overcommitting_vram_never_fail,
	       CHURN_TIMEOUT_S)
{
	struct churn_report sum;

	run_churn(_metadata, &self->dev, &self->workers, self->reports, 0,
		  &sum);
	TH_LOG("%d clients: %llu jobs, %llu failed, %llu backoffs",
	       CHURN_CLIENTS, (unsigned long long)sum.jobs,
	       (unsigned long long)(sum.enomem + sum.other),
	       (unsigned long long)sum.stats.backoffs);
	TH_LOG("%llu bytes evicted",
	       (unsigned long long)sum.stats.bytes_evicted_by);

	EXPECT_LE((__u64)CHURN_CLIENTS * CHURN_MIN_JOBS, sum.jobs);
	EXPECT_EQ(0ULL, sum.enomem);
	EXPECT_EQ(0ULL, sum.other);
	EXPECT_EQ(0ULL, sum.stats.failed_submits);
	/* Otherwise there was no pressure, and nothing was tested. */
	EXPECT_LT(0ULL, sum.stats.bytes_evicted_by);
}

/*
 * Without drm_exec eviction, contention fails jobs with -ENOMEM as 6.12
 * did. How often depends on timing, so this only reports it.
 */
TEST_F_TIMEOUT(contention, no_exec_eviction_mode_reports_its_failed_jobs,
	       CHURN_TIMEOUT_S)
{
	struct churn_report sum;

	run_churn(_metadata, &self->dev, &self->workers, self->reports,
		  VTTM_MODE_NO_EXEC_EVICTION, &sum);
	TH_LOG("NO_EXEC_EVICTION: %llu jobs, %llu failed with ENOMEM",
	       (unsigned long long)sum.jobs, (unsigned long long)sum.enomem);
	TH_LOG("NO_EXEC_EVICTION: %llu failed otherwise, %llu backoffs",
	       (unsigned long long)sum.other,
	       (unsigned long long)sum.stats.backoffs);

	EXPECT_LE((__u64)CHURN_CLIENTS * CHURN_MIN_JOBS, sum.jobs);
	EXPECT_EQ(0ULL, sum.other);
	EXPECT_EQ(sum.enomem, sum.stats.failed_enomem);
}

/* ------------------------------------------------------------------ */
/* dmem cgroup                                                        */
/* ------------------------------------------------------------------ */

/*
 * What a dmem worker does: create @nbufs VRAM-only buffers and submit them
 * @per_job at a time, @rounds times over. With @sample, read the cgroup's
 * dmem.current after each job, waiting for the job's buffers first. With
 * @hold, report, then keep the client open and idle until told to go.
 */
struct jobs_plan {
	const struct vttm_dev *dev;
	const char *region;
	const char *cgroup;
	__u64 bo_size;
	unsigned int nbufs;
	unsigned int per_job;
	unsigned int rounds;
	bool sample;
	bool hold;
};

#define JOBS_MAX_BOS	16

struct jobs_report {
	struct worker_error error;
	__u64 ok;
	__u64 enomem;
	__u64 other;
	int other_err;
	__u64 max_current;
	__u64 final_current;
	struct drm_vttm_stats stats;
};

static int jobs_worker(const void *arg, void *out, int cmd, int evt)
{
	const struct jobs_plan *plan = arg;
	struct jobs_report *rep = out;
	__u32 handles[JOBS_MAX_BOS];
	unsigned int round, i, n;
	__u64 cur;
	int fd, ret;

	if (plan->nbufs > JOBS_MAX_BOS || !plan->per_job)
		return worker_fail(&rep->error, -EINVAL, __LINE__);
	fd = vttm_open(plan->dev);
	if (fd < 0)
		return worker_fail(&rep->error, fd, __LINE__);
	ret = bo_create_many(fd, plan->bo_size, VTTM_PLACE_VRAM, 0, handles,
			     plan->nbufs);
	if (ret)
		return worker_fail(&rep->error, ret, __LINE__);

	for (round = 0; round < plan->rounds; round++) {
		for (i = 0; i < plan->nbufs; i += n) {
			n = plan->nbufs - i;
			if (n > plan->per_job)
				n = plan->per_job;

			ret = submit(fd, &handles[i], n);
			if (!ret) {
				rep->ok++;
			} else if (ret == -ENOMEM) {
				rep->enomem++;
			} else {
				rep->other++;
				rep->other_err = ret;
			}
			if (!plan->sample)
				continue;

			ret = bo_wait_all(fd, &handles[i], n);
			if (ret)
				return worker_fail(&rep->error, ret, __LINE__);
			ret = dmem_read(plan->cgroup, "dmem.current",
					plan->region, &cur);
			if (ret)
				return worker_fail(&rep->error, ret, __LINE__);
			if (cur > rep->max_current)
				rep->max_current = cur;
		}
	}

	ret = bo_wait_all(fd, handles, plan->nbufs);
	if (ret)
		return worker_fail(&rep->error, ret, __LINE__);
	if (plan->cgroup) {
		ret = dmem_read(plan->cgroup, "dmem.current", plan->region,
				&rep->final_current);
		if (ret)
			return worker_fail(&rep->error, ret, __LINE__);
	}
	ret = get_stats(fd, &rep->stats);
	if (ret)
		return worker_fail(&rep->error, ret, __LINE__);

	if (plan->hold) {
		if (msg_send(evt, MSG_READY) || msg_recv(cmd) != MSG_GO)
			return worker_fail(&rep->error, -EPIPE, __LINE__);
		ret = get_stats(fd, &rep->stats);
		if (ret)
			return worker_fail(&rep->error, ret, __LINE__);
	}
	close(fd);
	return 0;
}

/* The state of a dmem test, which its helpers share. */
struct dmem_env {
	struct vttm_dev dev;
	char region[128];
	__u64 capacity;
	bool enabled_dmem;
	/* Buffers of an eighth of VRAM. */
	__u64 bo_size;
	struct cgroups cgroups;
	struct workers workers;
	struct jobs_report *reports;
};

FIXTURE(dmem)
{
	struct dmem_env env;
};

FIXTURE_SETUP(dmem)
{
	struct dmem_env *env = &self->env;
	const char *why = NULL;
	int ret;

	ret = vttm_probe(&env->dev);
	if (ret == -ENODEV)
		SKIP(return, "vttm device not found (CONFIG_DRM_VTTM)");
	ASSERT_EQ(0, ret) TH_LOG("cannot read %s/{vram,gtt}_size: %s",
				 VTTM_PARAMS, strerror(-ret));
	if (env->dev.vram_size < MIN_VRAM_PAGES * env->dev.page_size)
		SKIP(return, "vram_size %llu is below %d pages",
		     (unsigned long long)env->dev.vram_size, MIN_VRAM_PAGES);
	env->bo_size = pages_down(&env->dev, env->dev.vram_size / 8);

	ret = dmem_find_region(env->region, sizeof(env->region),
			       &env->capacity, &why);
	if (ret)
		SKIP(return, "%s", why);
	env->reports = shared_alloc(MAX_WORKERS * sizeof(*env->reports));
	ASSERT_NE(NULL, env->reports);

	ret = dmem_enable(&env->enabled_dmem);
	if (ret)
		SKIP(return, "cannot enable dmem in %s: %s",
		     CGROUP_ROOT "/cgroup.subtree_control", strerror(-ret));
}

FIXTURE_TEARDOWN(dmem)
{
	struct dmem_env *env = &self->env;

	workers_kill(&env->workers);
	cg_destroy_all(&env->cgroups);
	if (env->enabled_dmem)
		write_text(CGROUP_ROOT "/cgroup.subtree_control", "-dmem");
	if (env->reports)
		munmap(env->reports, MAX_WORKERS * sizeof(*env->reports));
}

/* Runs a worker that doesn't hold, and checks that it ran to the end. */
static void run_jobs(struct __test_metadata *_metadata,
		     struct dmem_env *env, const char *cgroup,
		     const struct jobs_plan *plan, struct jobs_report *rep)
{
	struct worker *w;

	w = worker_start(&env->workers, cgroup, jobs_worker, plan, rep);
	ASSERT_NE(NULL, w) TH_LOG("fork: %s", strerror(errno));
	ASSERT_EQ(0, worker_join(w))
		TH_LOG("worker failed at line %d: %s", rep->error.line,
		       strerror(-rep->error.err));
}

/* After its clients have gone, nothing stays charged to a cgroup. */
static void expect_cgroups_uncharged(struct __test_metadata *_metadata,
				     struct dmem_env *env)
{
	unsigned int i;

	for (i = 0; i < env->cgroups.count; i++) {
		EXPECT_EQ(0ULL, dmem_wait_current(env->cgroups.path[i],
						  env->region, 0))
			TH_LOG("%s", env->cgroups.path[i]);
	}
}

static const char *make_cgroup(struct __test_metadata *_metadata,
			       struct dmem_env *env, const char *tag)
{
	const char *cg = cg_create(&env->cgroups, tag);

	if (!cg)
		TH_LOG("cannot create cgroup %s: %s", tag, strerror(errno));
	return cg;
}

TEST_F(dmem, vram_is_a_region_as_large_as_vram)
{
	struct dmem_env *env = &self->env;

	EXPECT_EQ(env->dev.vram_size, env->capacity)
		TH_LOG("%s", env->region);
}

struct charge_report {
	struct worker_error error;
	bool gtt;
	__u64 vram_charged;
	__u64 gtt_charged;
	__u64 after_close;
};

/*
 * Two VRAM buffers, then one GTT buffer, then one VRAM buffer closed:
 * reports the cgroup's dmem.current after each step.
 */
static int charge_worker(const void *arg, void *out, int cmd, int evt)
{
	const struct jobs_plan *plan = arg;
	struct charge_report *rep = out;
	__u64 size = plan->bo_size;
	__u32 h[3];
	int fd, ret;

	(void)cmd;
	(void)evt;
	fd = vttm_open(plan->dev);
	if (fd < 0)
		return worker_fail(&rep->error, fd, __LINE__);
	ret = bo_create_many(fd, size, VTTM_PLACE_VRAM, 0, h, 2);
	if (!ret)
		ret = submit(fd, h, 2);
	if (!ret)
		ret = bo_wait_all(fd, h, 2);
	if (!ret)
		ret = dmem_read(plan->cgroup, "dmem.current", plan->region,
				&rep->vram_charged);
	if (ret)
		return worker_fail(&rep->error, ret, __LINE__);

	rep->gtt = plan->dev->gtt_size >= size;
	if (rep->gtt) {
		ret = bo_create(fd, size, VTTM_PLACE_GTT, 0, &h[2]);
		if (!ret)
			ret = submit(fd, &h[2], 1);
		if (!ret)
			ret = bo_wait(fd, h[2]);
		if (!ret)
			ret = dmem_read(plan->cgroup, "dmem.current",
					plan->region, &rep->gtt_charged);
		if (ret)
			return worker_fail(&rep->error, ret, __LINE__);
	}

	ret = gem_close(fd, h[0]);
	if (ret)
		return worker_fail(&rep->error, ret, __LINE__);
	rep->after_close = dmem_wait_current(plan->cgroup, plan->region, size);
	close(fd);
	return 0;
}

TEST_F(dmem, vram_use_is_charged_to_the_submitting_cgroup_until_freed)
{
	struct dmem_env *env = &self->env;
	struct jobs_plan plan = {
		.dev = &env->dev,
		.region = env->region,
		.bo_size = env->bo_size,
	};
	struct charge_report *rep;
	struct worker *w;

	rep = shared_alloc(sizeof(*rep));
	ASSERT_NE(NULL, rep);
	plan.cgroup = make_cgroup(_metadata, env, "charged");
	ASSERT_NE(NULL, plan.cgroup);

	w = worker_start(&env->workers, plan.cgroup, charge_worker, &plan,
			 rep);
	ASSERT_NE(NULL, w) TH_LOG("fork: %s", strerror(errno));
	ASSERT_EQ(0, worker_join(w))
		TH_LOG("worker failed at line %d: %s", rep->error.line,
		       strerror(-rep->error.err));

	EXPECT_EQ(2 * env->bo_size, rep->vram_charged);
	/* GTT is not part of the region. */
	if (rep->gtt)
		EXPECT_EQ(2 * env->bo_size, rep->gtt_charged);
	EXPECT_EQ(env->bo_size, rep->after_close);
	expect_cgroups_uncharged(_metadata, env);
	munmap(rep, sizeof(*rep));
}

/*
 * A holder in @prot_cg fills half of VRAM and stays idle; its cgroup has
 * @file set to half of VRAM. Then a worker in another cgroup runs @plan.
 * Returns what each reported.
 */
static void protection_scenario(struct __test_metadata *_metadata,
				struct dmem_env *env, const char *file,
				struct jobs_plan *plan,
				struct jobs_report **holder_rep,
				struct jobs_report **other_rep)
{
	struct jobs_plan hold = {
		.dev = &env->dev,
		.region = env->region,
		.bo_size = env->bo_size,
		.nbufs = 4,
		.per_job = 4,
		.rounds = 1,
		.hold = true,
	};
	const char *prot_cg, *other_cg;
	struct jobs_report *hrep = &env->reports[0];
	struct jobs_report *orep = &env->reports[1];
	struct worker *holder;
	int ret, ready;
	__u64 cur;

	*holder_rep = hrep;
	*other_rep = orep;
	prot_cg = make_cgroup(_metadata, env, "protected");
	ASSERT_NE(NULL, prot_cg);
	other_cg = make_cgroup(_metadata, env, "other");
	ASSERT_NE(NULL, other_cg);
	ret = dmem_write(prot_cg, file, env->region,
			 env->dev.vram_size / 2);
	ASSERT_EQ(0, ret) TH_LOG("writing %s: %s", file, strerror(-ret));

	hold.cgroup = prot_cg;
	holder = worker_start(&env->workers, prot_cg, jobs_worker, &hold,
			      hrep);
	ASSERT_NE(NULL, holder) TH_LOG("fork: %s", strerror(errno));
	ready = msg_recv(holder->evt);
	if (ready != MSG_READY) {
		worker_join(holder);
		ASSERT_EQ(MSG_READY, ready)
			TH_LOG("holder failed at line %d: %s",
			       hrep->error.line, strerror(-hrep->error.err));
	}
	ASSERT_EQ(1ULL, hrep->ok);
	ASSERT_EQ(4 * env->bo_size, hrep->final_current);

	plan->dev = &env->dev;
	plan->region = env->region;
	plan->cgroup = other_cg;
	run_jobs(_metadata, env, other_cg, plan, orep);

	/* Still all there, as far as the cgroup can tell. */
	ASSERT_EQ(0, dmem_read(prot_cg, "dmem.current", env->region, &cur));
	TH_LOG("protected by %s: %llu of %llu bytes still charged", file,
	       (unsigned long long)cur,
	       (unsigned long long)(4 * env->bo_size));
	TH_LOG("other: %llu jobs ok, %llu ENOMEM, %llu other",
	       (unsigned long long)orep->ok, (unsigned long long)orep->enomem,
	       (unsigned long long)orep->other);

	msg_send(holder->cmd, MSG_GO);
	ASSERT_EQ(0, worker_join(holder))
		TH_LOG("holder failed at line %d: %s", hrep->error.line,
		       strerror(-hrep->error.err));
	TH_LOG("holder: %llu bytes evicted from it",
	       (unsigned long long)hrep->stats.bytes_evicted_from);
	expect_cgroups_uncharged(_metadata, env);
}

TEST_F_TIMEOUT(dmem, min_protects_idle_buffers_from_other_cgroups,
	       PRESSURE_TIMEOUT_S)
{
	struct dmem_env *env = &self->env;
	struct jobs_plan pressure = {
		.bo_size = env->bo_size,
		.nbufs = 16,
		.per_job = 1,
		.rounds = 1,
	};
	struct jobs_report *holder, *other;

	protection_scenario(_metadata, env, "dmem.min", &pressure, &holder,
			    &other);
	EXPECT_EQ(0ULL, holder->stats.bytes_evicted_from);
	EXPECT_EQ(0ULL, holder->stats.evictions);
	/* Only ENOMEM may stop the other cgroup's jobs; it is reported. */
	EXPECT_EQ(0ULL, other->other)
		TH_LOG("unexpected error %s", strerror(-other->other_err));
	EXPECT_LT(0ULL, other->ok);
}

TEST_F(dmem, min_fails_jobs_that_need_protected_vram_with_enomem)
{
	struct dmem_env *env = &self->env;
	struct jobs_plan big_job = {
		.bo_size = env->bo_size,
		.nbufs = 6,
		.per_job = 6,
		.rounds = 1,
	};
	struct jobs_report *holder, *other;

	protection_scenario(_metadata, env, "dmem.min", &big_job, &holder,
			    &other);
	EXPECT_EQ(1ULL, other->enomem);
	EXPECT_EQ(0ULL, other->other)
		TH_LOG("unexpected error %s", strerror(-other->other_err));
	EXPECT_EQ(1ULL, other->stats.failed_enomem);
	EXPECT_EQ(0ULL, holder->stats.bytes_evicted_from);
}

TEST_F_TIMEOUT(dmem, low_protects_idle_buffers_while_others_can_be_evicted,
	       PRESSURE_TIMEOUT_S)
{
	struct dmem_env *env = &self->env;
	struct jobs_plan pressure = {
		.bo_size = env->bo_size,
		.nbufs = 16,
		.per_job = 1,
		.rounds = 1,
	};
	struct jobs_report *holder, *other;

	protection_scenario(_metadata, env, "dmem.low", &pressure, &holder,
			    &other);
	EXPECT_EQ(0ULL, holder->stats.bytes_evicted_from);
	EXPECT_EQ(16ULL, other->ok);
	EXPECT_EQ(0ULL, other->stats.failed_submits);
}

TEST_F(dmem, low_gives_way_when_nothing_else_can_be_evicted)
{
	struct dmem_env *env = &self->env;
	struct jobs_plan big_job = {
		.bo_size = env->bo_size,
		.nbufs = 6,
		.per_job = 6,
		.rounds = 1,
	};
	struct jobs_report *holder, *other;

	protection_scenario(_metadata, env, "dmem.low", &big_job, &holder,
			    &other);
	EXPECT_EQ(1ULL, other->ok);
	EXPECT_EQ(0ULL, other->stats.failed_submits);
	EXPECT_LT(0ULL, holder->stats.bytes_evicted_from);
}

TEST_F_TIMEOUT(dmem, max_caps_vram_use_by_evicting_the_cgroups_own_buffers,
	       PRESSURE_TIMEOUT_S)
{
	struct dmem_env *env = &self->env;
	__u64 limit = 2 * env->bo_size;
	struct jobs_report *rep = &env->reports[0];
	struct jobs_plan plan = {
		.dev = &env->dev,
		.region = env->region,
		.bo_size = env->bo_size,
		.nbufs = 4,
		.per_job = 1,
		.rounds = 2,
		.sample = true,
	};
	const char *cg;
	__u64 resident;
	int ret;

	cg = make_cgroup(_metadata, env, "max");
	ASSERT_NE(NULL, cg);
	ret = dmem_write(cg, "dmem.max", env->region, limit);
	ASSERT_EQ(0, ret) TH_LOG("writing dmem.max: %s", strerror(-ret));
	plan.cgroup = cg;
	run_jobs(_metadata, env, cg, &plan, rep);

	TH_LOG("max %llu: highest current %llu, moved %llu, evicted %llu",
	       (unsigned long long)limit,
	       (unsigned long long)rep->max_current,
	       (unsigned long long)rep->stats.bytes_moved_to_vram,
	       (unsigned long long)rep->stats.bytes_evicted_from);
	EXPECT_EQ(8ULL, rep->ok);
	EXPECT_EQ(0ULL, rep->enomem);
	EXPECT_EQ(0ULL, rep->other)
		TH_LOG("unexpected error %s", strerror(-rep->other_err));
	EXPECT_GE(limit, rep->max_current);
	EXPECT_LT(0ULL, rep->max_current);
	/* 4 buffers through a 2-buffer limit: they had to push each other. */
	EXPECT_LE(4 * env->bo_size, rep->stats.bytes_moved_to_vram);
	EXPECT_LE(rep->stats.bytes_moved_to_vram,
		  rep->stats.bytes_evicted_from + limit);
	/* The cgroup is charged exactly what its one client has in VRAM. */
	resident = rep->stats.bytes_moved_to_vram -
		   rep->stats.bytes_evicted_from;
	EXPECT_EQ(resident, rep->final_current);
	expect_cgroups_uncharged(_metadata, env);
}

TEST_F(dmem, max_fails_jobs_larger_than_the_limit_with_enomem)
{
	struct dmem_env *env = &self->env;
	__u64 limit = 2 * env->bo_size;
	struct jobs_report *rep = &env->reports[0];
	struct jobs_plan plan = {
		.dev = &env->dev,
		.region = env->region,
		.bo_size = env->bo_size,
		.nbufs = 3,
		.per_job = 3,
		.rounds = 1,
		.sample = true,
	};
	const char *cg;
	int ret;

	cg = make_cgroup(_metadata, env, "max");
	ASSERT_NE(NULL, cg);
	ret = dmem_write(cg, "dmem.max", env->region, limit);
	ASSERT_EQ(0, ret) TH_LOG("writing dmem.max: %s", strerror(-ret));
	plan.cgroup = cg;
	run_jobs(_metadata, env, cg, &plan, rep);

	EXPECT_EQ(1ULL, rep->enomem);
	EXPECT_EQ(0ULL, rep->other)
		TH_LOG("unexpected error %s", strerror(-rep->other_err));
	EXPECT_EQ(1ULL, rep->stats.failed_enomem);
	EXPECT_GE(limit, rep->max_current);
	expect_cgroups_uncharged(_metadata, env);
}

/*
 * Eviction throttling. The fixture sets TTM's periods for each test and
 * restores them after; they apply at once, so a test steps from hard to
 * soft throttle by setting them. Clients are told apart by their DRM
 * client ids.
 */
#define TTM_PARAMS		"/sys/module/ttm/parameters"
#define TRACING			"/sys/kernel/tracing"
/* A period no test outlasts. */
#define THROTTLE_LONG_MS	600000

FIXTURE(throttle)
{
	struct vttm_dev dev;
	int fd;
	char hard_ms[32];
	char soft_ms[32];
};

static int set_throttle(unsigned int hard_ms, unsigned int soft_ms)
{
	char text[32];
	int ret;

	snprintf(text, sizeof(text), "%u", hard_ms);
	ret = write_text(TTM_PARAMS "/throttle_hard_ms", text);
	if (ret)
		return ret;
	snprintf(text, sizeof(text), "%u", soft_ms);
	return write_text(TTM_PARAMS "/throttle_soft_ms", text);
}

FIXTURE_SETUP(throttle)
{
	int ret;

	self->fd = -1;
	self->hard_ms[0] = '\0';
	ret = vttm_probe(&self->dev);
	if (ret == -ENODEV)
		SKIP(return, "vttm device not found (CONFIG_DRM_VTTM)");
	ASSERT_EQ(0, ret);
	if (read_text(TTM_PARAMS "/throttle_hard_ms", self->hard_ms,
		      sizeof(self->hard_ms)) < 0 ||
	    read_text(TTM_PARAMS "/throttle_soft_ms", self->soft_ms,
		      sizeof(self->soft_ms)) < 0) {
		self->hard_ms[0] = '\0';
		SKIP(return, "no eviction throttle in this kernel");
	}
	self->fd = vttm_open(&self->dev);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(throttle)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->hard_ms[0]) {
		write_text(TTM_PARAMS "/throttle_hard_ms", self->hard_ms);
		write_text(TTM_PARAMS "/throttle_soft_ms", self->soft_ms);
	}
}

/*
 * A key of the client's fdinfo, such as "drm-client-id"; sizes may carry
 * a KiB or MiB unit, which this scales to bytes.
 */
static int fdinfo_u64(int fd, const char *key, __u64 *val)
{
	char path[64], buf[4096], *line, *end;
	size_t klen = strlen(key);
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	len = read_text(path, buf, sizeof(buf));
	if (len < 0)
		return len;
	for (line = buf; line; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			*val = strtoull(line + klen + 1, &end, 10);
			if (!strncmp(end, " KiB", 4))
				*val <<= 10;
			else if (!strncmp(end, " MiB", 4))
				*val <<= 20;
			return 0;
		}
	}
	return -ENOENT;
}

/* Bytes of the client's buffers in VRAM. */
static __u64 resident_vram(struct __test_metadata *_metadata, int fd)
{
	__u64 bytes = 0;

	EXPECT_EQ(0, fdinfo_u64(fd, "drm-resident-vram", &bytes));
	return bytes;
}

/*
 * Opens another client whose job takes three quarters of VRAM, evicting
 * what it must; returns its fd, with the job done.
 */
static int take_vram_from_another_client(struct __test_metadata *_metadata,
					 const struct vttm_dev *dev)
{
	__u32 h;
	int fd;

	fd = vttm_open(dev);
	EXPECT_LE(0, fd);
	if (fd < 0)
		return fd;
	EXPECT_EQ(0, bo_create(fd, pages_down(dev, dev->vram_size / 4 * 3),
			       VTTM_PLACE_VRAM, 0, &h));
	EXPECT_EQ(0, submit(fd, &h, 1));
	EXPECT_EQ(0, bo_wait(fd, h));
	return fd;
}

/*
 * The client's buffer of half of VRAM, which may fall back to GTT, is
 * evicted by another client's job; the other client then leaves, and VRAM
 * is free. Reports how much of the buffer is in VRAM after the client's
 * next job, in hard throttle, and after a job in soft throttle.
 */
static void refill_after_eviction(struct __test_metadata *_metadata,
				  const struct vttm_dev *dev, int fd,
				  __u32 mode, __u64 *first, __u64 *later)
{
	__u64 size = pages_down(dev, dev->vram_size / 2);
	__u32 h;
	int other;

	ASSERT_EQ(0, set_throttle(THROTTLE_LONG_MS, THROTTLE_LONG_MS));
	ASSERT_EQ(0, set_mode(fd, mode));
	ASSERT_EQ(0, bo_create(fd, size, VTTM_PLACE_BOTH, 0, &h));
	ASSERT_EQ(0, submit(fd, &h, 1));
	ASSERT_EQ(0, bo_wait(fd, h));
	ASSERT_EQ(size, resident_vram(_metadata, fd));

	other = take_vram_from_another_client(_metadata, dev);
	ASSERT_LE(0, other);
	close(other);
	ASSERT_EQ(0ULL, resident_vram(_metadata, fd));

	ASSERT_EQ(0, submit(fd, &h, 1));
	ASSERT_EQ(0, bo_wait(fd, h));
	*first = resident_vram(_metadata, fd);

	ASSERT_EQ(0, set_throttle(0, THROTTLE_LONG_MS));
	ASSERT_EQ(0, submit(fd, &h, 1));
	ASSERT_EQ(0, bo_wait(fd, h));
	*later = resident_vram(_metadata, fd);
}

TEST_F_TIMEOUT(throttle, hard_throttle_keeps_gtt_buffers_out_of_free_vram,
	       PRESSURE_TIMEOUT_S)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 2);
	__u64 first, later;

	refill_after_eviction(_metadata, &self->dev, self->fd, 0, &first,
			      &later);
	EXPECT_EQ(0ULL, first);
	/* Soft throttle fills free VRAM. */
	EXPECT_EQ(size, later);
}

TEST_F_TIMEOUT(throttle, without_throttle_evicted_buffers_return_at_once,
	       PRESSURE_TIMEOUT_S)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 2);
	__u64 first, later;

	refill_after_eviction(_metadata, &self->dev, self->fd,
			      VTTM_MODE_NO_THROTTLE, &first, &later);
	EXPECT_EQ(size, first);
	EXPECT_EQ(size, later);
}

/*
 * The client's VRAM-only buffer x, half of VRAM, is evicted by another
 * client's job on three quarters of VRAM; with no hard period the client is
 * in soft throttle at once. Its next job places y, half of VRAM too, which
 * may fall back to GTT; then x, which must be in VRAM. Reports what the
 * other client lost after each.
 */
static void place_after_eviction(struct __test_metadata *_metadata,
				 const struct vttm_dev *dev, int fd,
				 __u32 mode, __u64 *lost_to_y, __u64 *lost_to_x)
{
	__u64 half = pages_down(dev, dev->vram_size / 2);
	struct drm_vttm_stats stats;
	__u32 x, y;
	int other;

	ASSERT_EQ(0, set_throttle(0, THROTTLE_LONG_MS));
	ASSERT_EQ(0, set_mode(fd, mode));
	ASSERT_EQ(0, bo_create(fd, half, VTTM_PLACE_VRAM, 0, &x));
	ASSERT_EQ(0, bo_create(fd, half, VTTM_PLACE_BOTH, 0, &y));
	ASSERT_EQ(0, submit(fd, &x, 1));
	ASSERT_EQ(0, bo_wait(fd, x));

	other = take_vram_from_another_client(_metadata, dev);
	ASSERT_LE(0, other);

	ASSERT_EQ(0, submit(fd, &y, 1));
	ASSERT_EQ(0, bo_wait(fd, y));
	ASSERT_EQ(0, get_stats(other, &stats));
	*lost_to_y = stats.bytes_evicted_from;

	ASSERT_EQ(0, submit(fd, &x, 1));
	ASSERT_EQ(0, bo_wait(fd, x));
	ASSERT_EQ(0, get_stats(other, &stats));
	*lost_to_x = stats.bytes_evicted_from - *lost_to_y;
	close(other);
}

TEST_F(throttle, soft_throttle_falls_back_to_gtt_rather_than_evict)
{
	__u64 other = pages_down(&self->dev, self->dev.vram_size / 4 * 3);
	__u64 lost_to_y, lost_to_x;

	place_after_eviction(_metadata, &self->dev, self->fd, 0, &lost_to_y,
			     &lost_to_x);
	EXPECT_EQ(0ULL, lost_to_y);
	/* A buffer that must be in VRAM is still placed. */
	EXPECT_EQ(other, lost_to_x);
}

TEST_F(throttle, without_throttle_a_fallback_buffer_evicts)
{
	__u64 other = pages_down(&self->dev, self->dev.vram_size / 4 * 3);
	__u64 lost_to_y, lost_to_x;

	place_after_eviction(_metadata, &self->dev, self->fd,
			     VTTM_MODE_NO_THROTTLE, &lost_to_y, &lost_to_x);
	EXPECT_EQ(other, lost_to_y);
	EXPECT_EQ(0ULL, lost_to_x);
}

/* Whether the trace buffer has a line with both @event and @fields. */
static bool trace_has(const char *trace, const char *event,
		      const char *fields)
{
	const char *line = trace;

	while ((line = strstr(line, event))) {
		const char *end = strchrnul(line, '\n');
		const char *hit = strstr(line, fields);

		if (hit && hit < end)
			return true;
		line = end;
	}
	return false;
}

TEST_F(throttle, tracepoints_report_eviction_and_throttle)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 4 * 3);
	static char trace[1 << 20];
	__u64 victim_id, evictor_id;
	char fields[128];
	__u32 h, other_h;
	int other;

	if (access(TRACING "/events/ttm/ttm_bo_evict/enable", W_OK))
		SKIP(return, "no ttm tracepoints in " TRACING);
	ASSERT_EQ(0, set_throttle(THROTTLE_LONG_MS, THROTTLE_LONG_MS));
	ASSERT_EQ(0, fdinfo_u64(self->fd, "drm-client-id", &victim_id));
	other = vttm_open(&self->dev);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, fdinfo_u64(other, "drm-client-id", &evictor_id));

	ASSERT_EQ(0, bo_create(self->fd, size, VTTM_PLACE_VRAM, 0, &h));
	ASSERT_EQ(0, submit(self->fd, &h, 1));
	ASSERT_EQ(0, bo_wait(self->fd, h));

	ASSERT_EQ(0, write_text(TRACING "/trace", ""));
	ASSERT_EQ(0, write_text(TRACING "/events/ttm/enable", "1"));
	ASSERT_EQ(0, bo_create(other, size, VTTM_PLACE_VRAM, 0, &other_h));
	EXPECT_EQ(0, submit(other, &other_h, 1));
	EXPECT_EQ(0, bo_wait(other, other_h));
	ASSERT_EQ(0, write_text(TRACING "/events/ttm/enable", "0"));
	ASSERT_LT(0, read_text(TRACING "/trace", trace, sizeof(trace)));
	close(other);

	snprintf(fields, sizeof(fields),
		 "size=%llu from=2 to=0 evictor=%llu victim=%llu below_low=0",
		 (unsigned long long)size, (unsigned long long)evictor_id,
		 (unsigned long long)victim_id);
	EXPECT_TRUE(trace_has(trace, "ttm_bo_evict:", fields))
		TH_LOG("no \"%s\" in the trace", fields);
	snprintf(fields, sizeof(fields), "client=%llu normal -> hard",
		 (unsigned long long)victim_id);
	EXPECT_TRUE(trace_has(trace, "ttm_throttle:", fields))
		TH_LOG("no \"%s\" in the trace", fields);
	snprintf(fields, sizeof(fields), "from=0 to=2 evict=0 client=%llu",
		 (unsigned long long)evictor_id);
	EXPECT_TRUE(trace_has(trace, "ttm_bo_move:", fields))
		TH_LOG("no \"%s\" in the trace", fields);
}

/*
 * The harness exits 0 when every test was skipped; kselftest's runner wants
 * KSFT_SKIP then, so that a missing device doesn't read as a pass.
 */
static void exit_skip_if_all_skipped(void)
{
	if (ksft_plan && ksft_cnt.ksft_xskip == ksft_plan) {
		fflush(stdout);
		fflush(stderr);
		_exit(KSFT_SKIP);
	}
}

int main(int argc, char **argv)
{
	atexit(exit_skip_if_all_skipped);
	return test_harness_run(argc, argv);
}
