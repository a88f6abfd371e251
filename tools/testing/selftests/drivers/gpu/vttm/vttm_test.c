// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for vttm, the virtual TTM device with emulated VRAM: its uAPI,
 * eviction under VRAM pressure, and validation of concurrent jobs, with
 * eviction locking through the jobs' drm_exec and, for comparison, without.
 *
 * Every test skips when the vttm module is absent.
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
			if (strncmp(de->d_name, prefixes[i],
				    strlen(prefixes[i])))
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
	/* A vttm that is loaded but shows no node fails; only its absence skips. */
	if (ret == -ENODEV && !access("/sys/module/vttm", F_OK))
		return -ENOENT;
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

/*
 * The path of one of the device's debugfs files, found through the minor
 * of the device's node: 0, -ENODEV without the device's debugfs directory
 * (no debugfs mounted), or -errno if the file cannot be accessed with
 * @mode. vttm creates all its files, so only -ENODEV is a reason to skip.
 */
static int debugfs_file(const struct vttm_dev *dev, const char *name,
			int mode, char *path, size_t size)
{
	struct stat st;

	if (stat(dev->path, &st))
		return -errno;
	snprintf(path, size, "%s/%u", DRI_DEBUGFS, minor(st.st_rdev));
	if (access(path, F_OK))
		return -ENODEV;
	snprintf(path, size, "%s/%u/%s", DRI_DEBUGFS, minor(st.st_rdev), name);
	return access(path, mode) ? -errno : 0;
}

/* The debugfs file that switches exec-aware eviction on and off. */
static int exec_eviction_knob(const struct vttm_dev *dev, char *path,
			      size_t size)
{
	return debugfs_file(dev, "exec_eviction", R_OK | W_OK, path, size);
}

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

/* Finds and saves the periods: 0, or -errno if they are not there. */
static int throttle_knobs_get(const struct vttm_dev *dev,
			      struct throttle_knobs *k)
{
	int ret;

	ret = debugfs_file(dev, "throttle_hard_ms", R_OK | W_OK, k->hard,
			   sizeof(k->hard));
	if (!ret)
		ret = debugfs_file(dev, "throttle_soft_ms", R_OK | W_OK,
				   k->soft, sizeof(k->soft));
	if (!ret && read_text(k->hard, k->saved_hard, sizeof(k->saved_hard)) < 0)
		ret = -EIO;
	if (!ret && read_text(k->soft, k->saved_soft, sizeof(k->saved_soft)) < 0)
		ret = -EIO;
	if (ret)
		k->hard[0] = '\0';
	return ret;
}

static int set_throttle(const struct throttle_knobs *k, unsigned int hard_ms,
			unsigned int soft_ms)
{
	char text[32];
	int ret;

	snprintf(text, sizeof(text), "%u", hard_ms);
	ret = write_text(k->hard, text);
	if (ret)
		return ret;
	snprintf(text, sizeof(text), "%u", soft_ms);
	return write_text(k->soft, text);
}

static void throttle_knobs_restore(const struct throttle_knobs *k)
{
	if (!k->hard[0])
		return;
	write_text(k->hard, k->saved_hard);
	write_text(k->soft, k->saved_soft);
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

static int bo_create_flags(int fd, __u64 size, __u32 placements,
			   __u32 flags, __u32 *handle)
{
	struct drm_vttm_bo_create args = {
		.size = size,
		.placements = placements,
		.flags = flags,
	};
	int ret;

	ret = bo_create_args(fd, &args);
	if (!ret)
		*handle = args.handle;
	return ret;
}

static int bo_create(int fd, __u64 size, __u32 placements, __u32 *handle)
{
	return bo_create_flags(fd, size, placements, 0, handle);
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

/*
 * A size in bytes from the client's fdinfo, such as drm-resident-vram,
 * whose value may carry a KiB or MiB unit; UINT64_MAX if it is not there.
 */
static __u64 fdinfo_size(struct __test_metadata *_metadata, int fd,
			 const char *key)
{
	char path[64], buf[4096], *line, *end;
	size_t klen = strlen(key);
	unsigned long long val;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	len = read_text(path, buf, sizeof(buf));
	EXPECT_LE(0, len) TH_LOG("%s: %s", path, strerror(-len));
	for (line = len > 0 ? buf : NULL; line; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		val = strtoull(line + klen + 1, &end, 10);
		if (!strncmp(end, " KiB", 4))
			val <<= 10;
		else if (!strncmp(end, " MiB", 4))
			val <<= 20;
		return val;
	}
	TH_LOG("no %s in %s", key, path);
	return UINT64_MAX;
}

/* Creates @count buffers of @size bytes each. */
static int bo_create_many(int fd, __u64 size, __u32 placements,
			  __u32 *handles, unsigned int count)
{
	unsigned int i;
	int ret;

	for (i = 0; i < count; i++) {
		ret = bo_create(fd, size, placements, &handles[i]);
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

/* Starts @fn in a child process. Returns the worker, or NULL with errno set. */
static struct worker *worker_start(struct workers *ws, worker_fn fn,
				   const void *plan, void *report)
{
	int down[2], up[2];
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

/* Teardown: no worker may outlive its test. */
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
			       &a));
	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_GTT,
			       &b));
	EXPECT_NE(0U, a);
	EXPECT_NE(0U, b);
	EXPECT_NE(a, b);
}

TEST_F(uapi, create_with_zero_size_is_einval)
{
	__u32 h;

	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_create(self->fd, 0, VTTM_PLACE_BOTH, &h),
			"VRAM|GTT");
	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_create(self->fd, 0, VTTM_PLACE_VRAM, &h),
			"VRAM only");
}

TEST_F(uapi, create_larger_than_vram_plus_gtt_is_e2big)
{
	__u64 size = self->dev.vram_size + self->dev.gtt_size;
	__u32 h;

	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd, size + self->dev.page_size,
				  VTTM_PLACE_BOTH, &h),
			"a page over");
	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd, 2 * size, VTTM_PLACE_BOTH, &h),
			"twice over");
}

/* Rounding the size up to a page must not wrap it around to a small one. */
TEST_F(uapi, create_of_u64_max_bytes_is_e2big)
{
	__u32 h;

	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd, UINT64_MAX, VTTM_PLACE_BOTH,
				  &h),
			"UINT64_MAX");
	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd,
				  UINT64_MAX - self->dev.page_size + 2,
				  VTTM_PLACE_VRAM, &h),
			"rounds up to 0");
}

TEST_F(uapi, create_vram_only_larger_than_vram_is_e2big)
{
	__u64 vram = self->dev.vram_size;
	__u32 h;

	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd, vram + 1, VTTM_PLACE_VRAM, &h),
			"one byte over, so a page over");
	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd, vram + self->dev.page_size,
				  VTTM_PLACE_VRAM, &h),
			"a page over");
}

TEST_F(uapi, create_gtt_only_larger_than_gtt_is_e2big)
{
	__u32 h;

	EXPECT_REJECTED(self->fd, -E2BIG,
			bo_create(self->fd,
				  self->dev.gtt_size + self->dev.page_size,
				  VTTM_PLACE_GTT, &h),
			"a page over");
}

TEST_F(uapi, create_as_large_as_its_placement_succeeds)
{
	__u64 vram = pages_down(&self->dev, self->dev.vram_size);
	__u64 gtt = pages_down(&self->dev, self->dev.gtt_size);
	__u32 h;

	EXPECT_EQ(0, bo_create(self->fd, vram, VTTM_PLACE_VRAM, &h));
	if (gtt)
		EXPECT_EQ(0, bo_create(self->fd, gtt, VTTM_PLACE_GTT, &h));
}

/* BO_CREATE with any one bit of @field but @valid set fails with -EINVAL. */
static void create_rejects_each_bit(struct __test_metadata *_metadata,
				    int fd, struct drm_vttm_bo_create *args,
				    __u32 *field, __u32 valid, const char *name)
{
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		if (valid & 1U << bit)
			continue;
		*field = 1U << bit;
		EXPECT_REJECTED(fd, -EINVAL, bo_create_args(fd, args),
				"%s 0x%x", name, *field);
	}
}

TEST_F(uapi, create_with_unknown_flags_is_einval)
{
	struct drm_vttm_bo_create args = {
		.size = self->dev.page_size,
		.placements = VTTM_PLACE_BOTH,
	};

	create_rejects_each_bit(_metadata, self->fd, &args, &args.flags,
				VTTM_BO_DEFER_BACKING | VTTM_BO_CONTIGUOUS,
				"flags");
}

TEST_F(uapi, create_with_nonzero_pad_is_einval)
{
	struct drm_vttm_bo_create args = {
		.size = self->dev.page_size,
		.placements = VTTM_PLACE_BOTH,
	};

	create_rejects_each_bit(_metadata, self->fd, &args, &args.pad, 0,
				"pad");
}

TEST_F(uapi, create_without_placements_is_einval)
{
	__u32 h;

	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_create(self->fd, self->dev.page_size, 0, &h),
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
					  placements, &h),
				"placements 0x%x", placements);
	}
	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_create(self->fd, self->dev.page_size, 1U << 31,
				  &h),
			"placements 0x80000000");
}

TEST_F(uapi, submit_of_zero_handles_is_einval)
{
	__u32 h;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_BOTH,
			       &h));
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
				    VTTM_PLACE_BOTH, handles, n));

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
			       &handles[0]));
	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       &closed));
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
	ASSERT_EQ(0, bo_create(other, self->dev.page_size, VTTM_PLACE_VRAM,
			       &h));
	EXPECT_REJECTED(self->fd, -ENOENT, submit(self->fd, &h, 1),
			"handle %u of another client", h);
	close(other);
}

/* The primary node of the vttm device: an open fd, or -errno. */
static int vttm_open_primary(void)
{
	char path[32];
	int i, fd;

	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fd_is_vttm(fd))
			return fd;
		close(fd);
	}
	return -ENODEV;
}

/*
 * A buffer lives under its client's lock: another client, even one the
 * master authenticated, cannot open it by its flink name.
 */
TEST_F(uapi, open_of_another_clients_buffer_by_name_is_eacces)
{
	struct drm_gem_flink flink = { 0 };
	struct drm_gem_open gem_open = { 0 };
	struct drm_auth auth = { 0 };
	int owner, other;

	owner = vttm_open_primary();
	if (owner < 0)
		SKIP(return, "no vttm primary node");
	other = vttm_open_primary();
	ASSERT_LE(0, other);
	if (ioctl(other, DRM_IOCTL_GET_MAGIC, &auth) ||
	    ioctl(owner, DRM_IOCTL_AUTH_MAGIC, &auth)) {
		close(other);
		close(owner);
		SKIP(return, "cannot authenticate a second client (not master)");
	}
	ASSERT_EQ(0, bo_create(owner, self->dev.page_size, VTTM_PLACE_VRAM,
			       &flink.handle));
	ASSERT_EQ(0, ioctl(owner, DRM_IOCTL_GEM_FLINK, &flink));

	gem_open.name = flink.name;
	EXPECT_EQ(-1, ioctl(other, DRM_IOCTL_GEM_OPEN, &gem_open));
	EXPECT_EQ(EACCES, errno);
	close(other);
	close(owner);
}

TEST_F(uapi, submit_of_duplicated_handle_is_einval)
{
	__u32 a, b, handles[3];

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       &a));
	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_BOTH,
			       &b));

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
			       &h));
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
			       &h));
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

	ASSERT_EQ(0, bo_create_many(self->fd, page, VTTM_PLACE_VRAM,
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

TEST_F(uapi, wait_with_nonzero_pad_is_einval)
{
	struct drm_vttm_wait args = {
		.pad = 1,
		.timeout_ns = IDLE_TIMEOUT_NS,
	};

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       &args.handle));
	EXPECT_REJECTED(self->fd, -EINVAL, bo_wait_args(self->fd, &args),
			"pad 1");
}

TEST_F(uapi, wait_with_negative_timeout_is_einval)
{
	__u32 h;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       &h));
	EXPECT_REJECTED(self->fd, -EINVAL, bo_wait_for(self->fd, h, -1),
			"timeout -1");
	EXPECT_REJECTED(self->fd, -EINVAL, bo_wait_for(self->fd, h, INT64_MIN),
			"timeout INT64_MIN");
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
			       &h));
	EXPECT_EQ(0, bo_wait_for(self->fd, h, 0));
}

TEST_F(uapi, good_submit_moves_its_buffers_into_vram)
{
	__u64 page = self->dev.page_size;
	struct drm_vttm_stats stats;
	__u32 handles[2];

	/* Sizes round up to a page: 3 and 6 pages. */
	ASSERT_EQ(0, bo_create(self->fd, 3 * page - 100, VTTM_PLACE_VRAM,
			       &handles[0]));
	ASSERT_EQ(0, bo_create(self->fd, 5 * page + 1, VTTM_PLACE_BOTH,
			       &handles[1]));

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
	int busy, busy_10ms;
	__u32 h;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_VRAM,
			       &h));
	start = now_ns();
	ASSERT_EQ(0, submit_for(self->fd, &h, 1, VTTM_SUBMIT_MAX_NS));
	busy = bo_wait_for(self->fd, h, 0);
	busy_10ms = bo_wait_for(self->fd, h, 10 * NSEC_PER_MSEC);
	/*
	 * The job ends no earlier than its duration after start: waits that
	 * returned before that must have found it busy. A test stalled past
	 * it has nothing to check.
	 */
	if (now_ns() - start < VTTM_SUBMIT_MAX_NS) {
		EXPECT_EQ(-ETIME, busy);
		EXPECT_EQ(-ETIME, busy_10ms);
	} else {
		TH_LOG("stalled past the job's end: its busy waits not checked");
	}
	EXPECT_EQ(0, bo_wait_for(self->fd, h, 10 * VTTM_SUBMIT_MAX_NS));
	elapsed = now_ns() - start;
	EXPECT_LE(VTTM_SUBMIT_MAX_NS, elapsed);
	EXPECT_EQ(0, bo_wait_for(self->fd, h, 0));
}

TEST_F(uapi, job_of_zero_duration_is_accepted)
{
	__u32 h;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size, VTTM_PLACE_BOTH,
			       &h));
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
	ASSERT_EQ(0, bo_create(other, self->dev.page_size, VTTM_PLACE_VRAM,
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

TEST_F(uapi, fdinfo_shows_where_the_buffers_are)
{
	__u64 page = self->dev.page_size;
	__u32 vram, gtt, sys;

	ASSERT_EQ(0, bo_create(self->fd, 2 * page, VTTM_PLACE_VRAM, &vram));
	ASSERT_EQ(0, bo_create(self->fd, 3 * page, VTTM_PLACE_GTT, &gtt));
	ASSERT_EQ(0, bo_create(self->fd, 5 * page, VTTM_PLACE_BOTH, &sys));
	EXPECT_EQ(10 * page, fdinfo_size(_metadata, self->fd,
					 "drm-resident-system"));
	EXPECT_EQ(0ULL, fdinfo_size(_metadata, self->fd, "drm-resident-vram"));

	/* The last one has no job yet: it stays in system memory. */
	ASSERT_EQ(0, submit(self->fd, &vram, 1));
	ASSERT_EQ(0, submit(self->fd, &gtt, 1));
	ASSERT_EQ(0, bo_wait(self->fd, vram));
	ASSERT_EQ(0, bo_wait(self->fd, gtt));
	EXPECT_EQ(2 * page, fdinfo_size(_metadata, self->fd,
					"drm-resident-vram"));
	EXPECT_EQ(2 * page, fdinfo_size(_metadata, self->fd,
					"drm-total-vram"));
	EXPECT_EQ(3 * page, fdinfo_size(_metadata, self->fd,
					"drm-resident-gtt"));
	EXPECT_EQ(5 * page, fdinfo_size(_metadata, self->fd,
					"drm-resident-system"));
}

/* ------------------------------------------------------------------ */
/* Contiguous buffers and the eviction window                         */
/* ------------------------------------------------------------------ */

#define EVICT_WINDOW_PARAM	"/sys/module/ttm/parameters/evict_window"

TEST_F(uapi, create_contiguous_outside_vram_alone_is_einval)
{
	__u32 h;

	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_create_flags(self->fd, self->dev.page_size,
					VTTM_PLACE_GTT, VTTM_BO_CONTIGUOUS, &h),
			"contiguous in GTT");
	EXPECT_REJECTED(self->fd, -EINVAL,
			bo_create_flags(self->fd, self->dev.page_size,
					VTTM_PLACE_BOTH, VTTM_BO_CONTIGUOUS,
					&h),
			"contiguous in VRAM or GTT");
	EXPECT_EQ(0, bo_create_flags(self->fd, self->dev.page_size,
				     VTTM_PLACE_VRAM, VTTM_BO_CONTIGUOUS, &h));
}

/* The largest power of two of whole pages that is at most @size. */
static __u64 pow2_pages_down(const struct vttm_dev *dev, __u64 size)
{
	__u64 p = dev->page_size;

	while (p * 2 <= size)
		p *= 2;
	return p;
}

/*
 * Fills VRAM with @n slot-sized VRAM-only buffers, then replaces every
 * other one with a new buffer, so that each aligned range of eight slots
 * holds four old buffers and four new ones. Returns the handles.
 */
static void fill_vram_interleaved(struct __test_metadata *_metadata, int fd,
				  __u64 slot, __u32 *handles, unsigned int n)
{
	unsigned int i;

	ASSERT_EQ(0, bo_create_many(fd, slot, VTTM_PLACE_VRAM, handles, n));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, submit(fd, &handles[i], 1));
	ASSERT_EQ(0, bo_wait_all(fd, handles, n));

	/*
	 * All idle first: the client's buffers share one reservation, and
	 * a buffer closed while it holds a job's fence leaves its VRAM
	 * taken until that job ends.
	 */
	for (i = 1; i < n; i += 2)
		ASSERT_EQ(0, gem_close(fd, handles[i]));
	for (i = 1; i < n; i += 2) {
		ASSERT_EQ(0, bo_create(fd, slot, VTTM_PLACE_VRAM,
				       &handles[i]));
		ASSERT_EQ(0, submit(fd, &handles[i], 1));
	}
	ASSERT_EQ(0, bo_wait_all(fd, handles, n));
}

/* Bytes a contiguous buffer of @size evicts from the full, mixed VRAM. */
static __u64 contiguous_evicts(struct __test_metadata *_metadata,
			       const struct vttm_dev *dev, __u64 slot,
			       __u64 size)
{
	struct drm_vttm_stats before, after;
	unsigned int n = dev->vram_size / slot;
	__u32 *handles, h;
	int fd;

	fd = vttm_open(dev);
	ASSERT_LE(0, fd);
	handles = calloc(n, sizeof(*handles));
	ASSERT_NE(NULL, handles);

	fill_vram_interleaved(_metadata, fd, slot, handles, n);
	ASSERT_EQ(0, bo_create_flags(fd, size, VTTM_PLACE_VRAM,
				     VTTM_BO_CONTIGUOUS, &h));
	ASSERT_EQ(0, get_stats(fd, &before));
	ASSERT_EQ(0, submit(fd, &h, 1));
	ASSERT_EQ(0, get_stats(fd, &after));
	ASSERT_EQ(0, bo_wait(fd, h));

	free(handles);
	close(fd);
	return after.bytes_evicted_by - before.bytes_evicted_by;
}

/* The device, and ttm.evict_window as found, put back at teardown. */
FIXTURE(window)
{
	struct vttm_dev dev;
	char saved[8];
};

FIXTURE_SETUP(window)
{
	int ret;

	self->saved[0] = '\0';
	ret = vttm_probe(&self->dev);
	if (ret == -ENODEV)
		SKIP(return, "vttm device not found (CONFIG_DRM_VTTM)");
	ASSERT_EQ(0, ret);
	if (self->dev.vram_size < MIN_VRAM_PAGES * self->dev.page_size)
		SKIP(return, "vram_size below %d pages", MIN_VRAM_PAGES);
	ASSERT_LT(0, read_text(EVICT_WINDOW_PARAM, self->saved,
			       sizeof(self->saved)))
		TH_LOG("no %s: no contiguity-aware eviction", EVICT_WINDOW_PARAM);
}

FIXTURE_TEARDOWN(window)
{
	if (self->saved[0])
		write_text(EVICT_WINDOW_PARAM, self->saved);
}

/*
 * VRAM full of one-slot buffers, every aligned eight-slot range holding
 * four old ones and four new (the buddy allocator places a fresh VRAM's
 * buffers in address order): a contiguous buffer of eight slots evicts
 * exactly one range's eight buffers. Eviction in LRU order
 * (ttm.evict_window=0) takes every old buffer first and then four new
 * ones, since no range comes free before: at least half of VRAM.
 */
TEST_F(window, contiguous_buffer_evicts_one_range)
{
	__u64 slot = pow2_pages_down(&self->dev, self->dev.vram_size / 64);
	unsigned int n = self->dev.vram_size / slot;
	__u64 window, lru;

	window = contiguous_evicts(_metadata, &self->dev, slot, 8 * slot);
	EXPECT_EQ(8 * slot, window);

	ASSERT_EQ(0, write_text(EVICT_WINDOW_PARAM, "0"));
	lru = contiguous_evicts(_metadata, &self->dev, slot, 8 * slot);
	EXPECT_LE((__u64)(n / 2 + 4) * slot, lru);
	TH_LOG("evicted %llu bytes for %llu: %llu in LRU order",
	       (unsigned long long)window, (unsigned long long)(8 * slot),
	       (unsigned long long)lru);
}

/* ------------------------------------------------------------------ */
/* What an export costs the exporter in host memory                   */
/* ------------------------------------------------------------------ */

static int prime_export(int fd, __u32 handle, int *dmabuf)
{
	struct drm_prime_handle args = {
		.handle = handle,
		.flags = DRM_CLOEXEC,
	};
	int ret;

	ret = vttm_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &args);
	if (!ret)
		*dmabuf = args.fd;
	return ret;
}

/* The device's host_memory debugfs file: populated_bytes, or -errno. */
static int host_memory(const struct vttm_dev *dev, __u64 *bytes)
{
	char path[96], buf[64];
	const char *key = "populated_bytes: ";
	ssize_t len;
	int ret;

	ret = debugfs_file(dev, "host_memory", R_OK, path, sizeof(path));
	if (ret)
		return ret;
	len = read_text(path, buf, sizeof(buf));
	if (len < 0)
		return len;
	if (strncmp(buf, key, strlen(key)))
		return -EINVAL;
	return parse_u64(buf + strlen(key), bytes);
}

/*
 * Waits until no TT of the device holds host memory: buffers that earlier
 * tests freed with jobs in flight are released by TTM's delayed destroy
 * once those jobs end. A count that never drains is a leak, which the
 * harness's timeout reports; no time of ours decides.
 */
static int host_memory_drained(const struct vttm_dev *dev)
{
	__u64 bytes;
	int ret;

	while (!(ret = host_memory(dev, &bytes)) && bytes)
		usleep(10000);
	return ret;
}

/*
 * nr_gpu_active of /proc/vmstat in bytes: TTM's pool pages of every device
 * together. Folding the per-CPU deltas in first (root only) makes it exact;
 * otherwise it lags by up to a few hundred pages per CPU.
 */
static __s64 gpu_active_bytes(struct __test_metadata *_metadata,
			      const struct vttm_dev *dev)
{
	char buf[16384], *line;
	ssize_t len;

	write_text("/proc/sys/vm/stat_refresh", "1");
	len = read_text("/proc/vmstat", buf, sizeof(buf));
	EXPECT_LT(0, len);
	line = strstr(buf, "\nnr_gpu_active ");
	if (!line)
		return -1;
	return strtoll(line + strlen("\nnr_gpu_active "), NULL, 10) *
	       (__s64)dev->page_size;
}

FIXTURE(export)
{
	struct vttm_dev dev;
	__u64 size;
	int fd;
};

FIXTURE_SETUP(export)
{
	__u64 bytes;
	int ret;

	self->fd = -1;
	ret = vttm_probe(&self->dev);
	if (ret == -ENODEV)
		SKIP(return, "vttm device not found (CONFIG_DRM_VTTM)");
	ASSERT_EQ(0, ret);
	ret = host_memory(&self->dev, &bytes);
	if (ret == -ENODEV)
		SKIP(return, "no %s/<minor> (debugfs)", DRI_DEBUGFS);
	ASSERT_EQ(0, ret) TH_LOG("host_memory: %s", strerror(-ret));
	/* The tests own the device: nothing else may hold host memory there. */
	ASSERT_EQ(0, host_memory_drained(&self->dev));

	/* Big enough to stand out of nr_gpu_active's per-CPU slack. */
	self->size = pages_down(&self->dev, self->dev.vram_size / 4);
	if (self->size < 1024 * self->dev.page_size)
		SKIP(return, "a quarter of vram_size %llu is below 1024 pages",
		     (unsigned long long)self->dev.vram_size);

	self->fd = vttm_open(&self->dev);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(export)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * The pattern of compute-runtime #968 on xe: a buffer created with deferred
 * backing, cleared into VRAM by its first job, which keeps its empty TT,
 * then exported. The export must not fill that TT from host memory.
 */
TEST_F(export, of_a_buffer_cleared_into_vram_takes_no_host_memory)
{
	__s64 active_before, active_after;
	__u64 host_before, host_after;
	int dmabuf = -1;
	__u32 bo;

	ASSERT_EQ(0, bo_create_flags(self->fd, self->size, VTTM_PLACE_VRAM,
				     VTTM_BO_DEFER_BACKING, &bo));
	ASSERT_EQ(0, submit(self->fd, &bo, 1));
	ASSERT_EQ(0, bo_wait(self->fd, bo));
	ASSERT_EQ(self->size, fdinfo_size(_metadata, self->fd,
					  "drm-resident-vram"));

	ASSERT_EQ(0, host_memory(&self->dev, &host_before));
	active_before = gpu_active_bytes(_metadata, &self->dev);
	ASSERT_EQ(0, prime_export(self->fd, bo, &dmabuf));
	ASSERT_EQ(0, host_memory(&self->dev, &host_after));
	active_after = gpu_active_bytes(_metadata, &self->dev);

	EXPECT_EQ(host_before, host_after)
		TH_LOG("the export populated %llu bytes behind a VRAM buffer",
		       (unsigned long long)(host_after - host_before));
	/*
	 * nr_gpu_active counts every GPU of the machine, which may allocate
	 * meanwhile: a figure only, host_memory above is the device's own.
	 */
	if (active_before >= 0 && active_after - active_before >=
				  (__s64)self->size / 2)
		TH_LOG("nr_gpu_active grew by %lld bytes",
		       (long long)(active_after - active_before));
	EXPECT_EQ(self->size, fdinfo_size(_metadata, self->fd,
					  "drm-resident-vram"));
	close(dmabuf);
}

/*
 * The control: a deferred buffer still in system memory is given its pages
 * by its export, so the witness above sees an export that allocates.
 */
TEST_F(export, of_a_buffer_in_system_memory_populates_it)
{
	__u64 host_before, host_after;
	int dmabuf = -1;
	__u32 bo;

	ASSERT_EQ(0, bo_create_flags(self->fd, self->size, VTTM_PLACE_BOTH,
				     VTTM_BO_DEFER_BACKING, &bo));
	ASSERT_EQ(0, host_memory(&self->dev, &host_before));
	ASSERT_EQ(0, prime_export(self->fd, bo, &dmabuf));
	ASSERT_EQ(0, host_memory(&self->dev, &host_after));
	EXPECT_EQ(self->size, host_after - host_before);

	/*
	 * The pages go with the buffer's last reference, the dma-buf's, at
	 * once or, if TTM defers the release, soon after.
	 */
	ASSERT_EQ(0, gem_close(self->fd, bo));
	close(dmabuf);
	ASSERT_EQ(0, host_memory_drained(&self->dev));
}

/*
 * An export before the first job finds the buffer still in system memory
 * and populates it; the first job then copies it into VRAM and frees its
 * pages. The host memory is a spike of the buffer's size, for as long as
 * the buffer waits for its first job.
 */
TEST_F(export, before_the_first_job_costs_its_size_until_the_move)
{
	__u64 host_before, host_after;
	int dmabuf = -1;
	__u32 bo;

	ASSERT_EQ(0, bo_create_flags(self->fd, self->size, VTTM_PLACE_VRAM,
				     VTTM_BO_DEFER_BACKING, &bo));
	ASSERT_EQ(0, host_memory(&self->dev, &host_before));
	ASSERT_EQ(0, prime_export(self->fd, bo, &dmabuf));
	ASSERT_EQ(0, host_memory(&self->dev, &host_after));
	EXPECT_EQ(self->size, host_after - host_before);

	ASSERT_EQ(0, submit(self->fd, &bo, 1));
	ASSERT_EQ(0, bo_wait(self->fd, bo));
	EXPECT_EQ(self->size, fdinfo_size(_metadata, self->fd,
					  "drm-resident-vram"));
	ASSERT_EQ(0, host_memory(&self->dev, &host_after));
	EXPECT_EQ(host_before, host_after)
		TH_LOG("%llu bytes stayed behind the buffer in VRAM",
		       (unsigned long long)(host_after - host_before));
	close(dmabuf);
}

/*
 * vttm imports nothing: DRM refuses a dma-buf that the exporting client
 * does not hold a handle to, as vttm has no gem_prime_import_sg_table.
 */
TEST_F(export, import_by_another_client_is_einval)
{
	struct drm_prime_handle args = { .flags = DRM_CLOEXEC };
	int dmabuf = -1, other;
	__u32 bo;

	ASSERT_EQ(0, bo_create(self->fd, self->dev.page_size,
			       VTTM_PLACE_BOTH, &bo));
	ASSERT_EQ(0, prime_export(self->fd, bo, &dmabuf));
	other = vttm_open(&self->dev);
	ASSERT_LE(0, other);
	args.fd = dmabuf;
	EXPECT_EQ(-EINVAL, vttm_ioctl(other, DRM_IOCTL_PRIME_FD_TO_HANDLE,
				      &args));
	close(other);
	close(dmabuf);
}

/*
 * A client that goes with its job still running leaves its buffers to the
 * job: once the job is over, their VRAM is free for the next client.
 */
TEST_F(uapi, vram_of_a_client_closed_with_a_job_running_is_freed_after_it)
{
	__u64 vram = pages_down(&self->dev, self->dev.vram_size);
	struct drm_vttm_stats stats;
	int other;
	__u32 h;

	other = vttm_open(&self->dev);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, bo_create(other, vram, VTTM_PLACE_VRAM, &h));
	ASSERT_EQ(0, submit_for(other, &h, 1, VTTM_SUBMIT_MAX_NS / 5));
	close(other);

	ASSERT_EQ(0, bo_create(self->fd, vram, VTTM_PLACE_VRAM, &h));
	EXPECT_EQ(0, submit(self->fd, &h, 1));
	EXPECT_EQ(0, bo_wait(self->fd, h));
	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(vram, stats.bytes_moved_to_vram);
	EXPECT_EQ(0ULL, stats.failed_submits);
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

	ASSERT_EQ(0, bo_create_many(self->fd, size, VTTM_PLACE_VRAM,
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

	ASSERT_EQ(0, bo_create_many(self->fd, size, VTTM_PLACE_VRAM,
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

	ASSERT_EQ(0, bo_create_many(self->fd, size, VTTM_PLACE_BOTH,
				    handles, 2));
	EXPECT_EQ(0, submit(self->fd, handles, 2));
	EXPECT_EQ(0, bo_wait_all(self->fd, handles, 2));
	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(0ULL, stats.failed_submits);
	/* One of them in VRAM, the other, which cannot evict it, in GTT. */
	EXPECT_EQ(size, stats.bytes_moved_to_vram);
}

/*
 * A buffer that allows GTT still prefers VRAM: it evicts another client's
 * idle buffers before it falls back.
 */
TEST_F(eviction, buffers_that_allow_gtt_evict_idle_ones_before_falling_back)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 8 * 5);
	struct drm_vttm_stats stats;
	__u32 idle, h;
	int other;

	other = vttm_open(&self->dev);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, bo_create(other, size, VTTM_PLACE_VRAM, &idle));
	ASSERT_EQ(0, submit(other, &idle, 1));
	ASSERT_EQ(0, bo_wait(other, idle));

	ASSERT_EQ(0, bo_create(self->fd, size, VTTM_PLACE_BOTH, &h));
	EXPECT_EQ(0, submit(self->fd, &h, 1));
	EXPECT_EQ(0, bo_wait(self->fd, h));
	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(size, stats.bytes_moved_to_vram);
	EXPECT_LT(0ULL, stats.bytes_evicted_by);
	close(other);
}

TEST_F(eviction, least_recently_used_client_is_evicted_first)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 8 * 3);
	struct drm_vttm_stats old, recent, third;
	__u32 h_old, h_recent, h;
	int fd_old, fd_recent;

	fd_old = vttm_open(&self->dev);
	ASSERT_LE(0, fd_old);
	fd_recent = vttm_open(&self->dev);
	ASSERT_LE(0, fd_recent);

	/* Created the other way round, so creation order can't decide. */
	ASSERT_EQ(0, bo_create(fd_recent, size, VTTM_PLACE_VRAM, &h_recent));
	ASSERT_EQ(0, bo_create(fd_old, size, VTTM_PLACE_VRAM, &h_old));
	ASSERT_EQ(0, submit(fd_old, &h_old, 1));
	ASSERT_EQ(0, bo_wait(fd_old, h_old));
	ASSERT_EQ(0, submit(fd_recent, &h_recent, 1));
	ASSERT_EQ(0, bo_wait(fd_recent, h_recent));

	/* 3/8 + 3/8 + 3/8 of VRAM: one of the first two must go. */
	ASSERT_EQ(0, bo_create(self->fd, size, VTTM_PLACE_VRAM, &h));
	EXPECT_EQ(0, submit(self->fd, &h, 1));
	EXPECT_EQ(0, bo_wait(self->fd, h));

	ASSERT_EQ(0, get_stats(fd_old, &old));
	ASSERT_EQ(0, get_stats(fd_recent, &recent));
	ASSERT_EQ(0, get_stats(self->fd, &third));
	EXPECT_EQ(size, old.bytes_evicted_from);
	EXPECT_EQ(1ULL, old.evictions);
	EXPECT_EQ(0ULL, recent.bytes_evicted_from);
	EXPECT_LE(size, third.bytes_evicted_by);
	close(fd_old);
	close(fd_recent);
}

#define PIECES	64

/*
 * VRAM filled with PIECES buffers of two clients, placed one of each in
 * turn; then one client goes. The other's buffers are left in every other
 * piece, and a buffer of half of VRAM fits in the holes between them
 * without evicting anything: VRAM is a buddy allocator, as on a real
 * discrete GPU, and a buffer's VRAM need not be contiguous.
 */
TEST_F_TIMEOUT(eviction, buffer_fits_in_free_vram_that_is_not_contiguous,
	       PRESSURE_TIMEOUT_S)
{
	__u64 piece = pages_down(&self->dev, self->dev.vram_size / PIECES);
	__u32 handles[2][PIECES / 2], h;
	struct drm_vttm_stats stats;
	int fds[2] = { self->fd };
	unsigned int i;

	fds[1] = vttm_open(&self->dev);
	ASSERT_LE(0, fds[1]);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, bo_create_many(fds[i], piece, VTTM_PLACE_VRAM,
					    handles[i], PIECES / 2));
	for (i = 0; i < PIECES; i++)
		ASSERT_EQ(0, submit(fds[i % 2], &handles[i % 2][i / 2], 1))
			TH_LOG("piece %u", i);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, bo_wait_all(fds[i], handles[i], PIECES / 2));
	close(fds[1]);

	ASSERT_EQ(0, bo_create(self->fd, piece * PIECES / 2, VTTM_PLACE_VRAM,
			       &h));
	EXPECT_EQ(0, submit(self->fd, &h, 1));
	EXPECT_EQ(0, bo_wait(self->fd, h));
	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(0ULL, stats.failed_submits);
	EXPECT_EQ(0ULL, stats.bytes_evicted_by);
	EXPECT_EQ(0ULL, stats.evictions);
	EXPECT_EQ((__u64)PIECES / 2 * piece + PIECES / 2 * piece,
		  stats.bytes_moved_to_vram);
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
	bool x_checked;

	ASSERT_EQ(0, bo_create(self->fd, filler, VTTM_PLACE_VRAM, &fx[0]));
	ASSERT_EQ(0, bo_create(self->fd, page, VTTM_PLACE_VRAM, &fx[1]));
	ASSERT_EQ(0, bo_create(self->fd, page, VTTM_PLACE_VRAM, &fy[1]));
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
	/* Too slow a machine leaves x's return unchecked: said below. */
	x_checked = elapsed < NSEC_PER_SEC / 10 * 9;
	if (x_checked)
		EXPECT_EQ(1ULL, stats.pingpongs);

	/* y was evicted just now: bring it back well over a second later. */
	pingpongs = stats.pingpongs;
	usleep(1200 * 1000);
	ASSERT_EQ(0, submit(self->fd, fy, 2));
	ASSERT_EQ(0, bo_wait_all(self->fd, fy, 2));
	ASSERT_EQ(0, get_stats(self->fd, &stats));
	EXPECT_EQ(3ULL, stats.evictions);
	EXPECT_EQ(pingpongs, stats.pingpongs);
	/* A skip here would hide a failed expectation above. */
	if (!x_checked)
		TH_LOG("x took %llu ms to come back: its ping-pong not checked",
		       (unsigned long long)(elapsed / NSEC_PER_MSEC));
}

/* ------------------------------------------------------------------ */
/* Contention                                                         */
/* ------------------------------------------------------------------ */

struct churn_plan {
	const struct vttm_dev *dev;
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
	ret = bo_create_many(fd, plan->bo_size, VTTM_PLACE_VRAM, handles,
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
	char knob[PATH_MAX];
	struct throttle_knobs throttle;
};

FIXTURE_SETUP(contention)
{
	int ret;

	self->knob[0] = '\0';
	self->throttle.hard[0] = '\0';

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

	/* On by default; a failed run of a test may have left it off. */
	ret = exec_eviction_knob(&self->dev, self->knob, sizeof(self->knob));
	if (ret == -ENODEV) {
		self->knob[0] = '\0';
		return;
	}
	ASSERT_EQ(0, ret) TH_LOG("%s: %s", self->knob, strerror(-ret));
	ASSERT_EQ(0, write_text(self->knob, "Y")) TH_LOG("%s", self->knob);
}

FIXTURE_TEARDOWN(contention)
{
	workers_kill(&self->workers);
	throttle_knobs_restore(&self->throttle);
	if (self->knob[0])
		write_text(self->knob, "Y");
	if (self->reports)
		munmap(self->reports, CHURN_CLIENTS * sizeof(*self->reports));
}

/*
 * Runs CHURN_CLIENTS clients, each with VRAM-only buffers of vram_size / 16,
 * 2x VRAM in all, and sums up their reports in @sum.
 */
static void run_churn(struct __test_metadata *_metadata,
		      const struct vttm_dev *dev, struct workers *ws,
		      struct churn_report *reports, struct churn_report *sum)
{
	struct churn_plan plan = {
		.dev = dev,
		.bo_size = pages_down(dev, dev->vram_size / 16),
	};
	struct churn_report *rep;
	struct worker *w[CHURN_CLIENTS];
	unsigned int i;
	int status;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < CHURN_CLIENTS; i++) {
		w[i] = worker_start(ws, churn_worker, &plan, &reports[i]);
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

	run_churn(_metadata, &self->dev, &self->workers, self->reports, &sum);
	TH_LOG("exec eviction: %d clients, %llu jobs, %llu failed, %llu backoffs",
	       CHURN_CLIENTS, (unsigned long long)sum.jobs,
	       (unsigned long long)(sum.enomem + sum.other),
	       (unsigned long long)sum.stats.backoffs);
	TH_LOG("exec eviction: %llu bytes evicted",
	       (unsigned long long)sum.stats.bytes_evicted_by);

	EXPECT_LE((__u64)CHURN_CLIENTS * CHURN_MIN_JOBS, sum.jobs);
	EXPECT_EQ(0ULL, sum.enomem);
	EXPECT_EQ(0ULL, sum.other);
	EXPECT_EQ(0ULL, sum.stats.failed_submits);
	/* Otherwise there was no pressure, and nothing was tested. */
	EXPECT_LT(0ULL, sum.stats.bytes_evicted_by);
	/*
	 * How much lock contention reached eviction depends on timing: the
	 * back-offs are a figure, never a condition. KUnit's ttm_bo_exec
	 * forces the contention that this load may or may not meet.
	 */
}

/*
 * With the exec_eviction knob off, validation leaves the job's drm_exec out
 * of TTM's operation context, and lock contention while evicting fails jobs
 * with -ENOMEM. How often depends on timing, so this only reports it, as
 * the figure the test above compares with, and checks what does not: every
 * failure is an -ENOMEM that the device counted as one.
 */
TEST_F_TIMEOUT(contention, without_exec_eviction_failed_jobs_are_reported,
	       CHURN_TIMEOUT_S)
{
	struct churn_report sum;

	if (!self->knob[0])
		SKIP(return, "no %s/<minor> (debugfs)", DRI_DEBUGFS);
	/* 7.3's path: no exec eviction, and no eviction throttle either. */
	ASSERT_EQ(0, throttle_knobs_get(&self->dev, &self->throttle));
	ASSERT_EQ(0, set_throttle(&self->throttle, 0, 0));
	ASSERT_EQ(0, write_text(self->knob, "N"));
	run_churn(_metadata, &self->dev, &self->workers, self->reports, &sum);
	ASSERT_EQ(0, write_text(self->knob, "Y"));
	throttle_knobs_restore(&self->throttle);
	self->throttle.hard[0] = '\0';
	TH_LOG("no exec eviction: %llu jobs, %llu failed with ENOMEM",
	       (unsigned long long)sum.jobs, (unsigned long long)sum.enomem);
	TH_LOG("no exec eviction: %llu failed otherwise, %llu backoffs",
	       (unsigned long long)sum.other,
	       (unsigned long long)sum.stats.backoffs);

	EXPECT_LE((__u64)CHURN_CLIENTS * CHURN_MIN_JOBS, sum.jobs);
	EXPECT_EQ(0ULL, sum.other);
	EXPECT_EQ(sum.enomem, sum.stats.failed_enomem);
}

/* ------------------------------------------------------------------ */
/* The dmem cgroup controller: vttm's VRAM region                     */
/* ------------------------------------------------------------------ */

#define CGROUP_ROOT	"/sys/fs/cgroup"

/*
 * vttm's VRAM region of the dmem controller: the "drm/<device>/vram0" line
 * of the root's dmem.capacity with vttm's VRAM size; -ENOENT if none.
 */
static int dmem_region(const struct vttm_dev *dev, char *name, size_t size)
{
	char buf[4096], *line, *save;

	if (read_text(CGROUP_ROOT "/dmem.capacity", buf, sizeof(buf)) < 0)
		return -ENOENT;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long bytes;
		char region[128];
		size_t len;

		if (sscanf(line, "%127s %llu", region, &bytes) != 2)
			continue;
		len = strlen(region);
		if (bytes == dev->vram_size && !strncmp(region, "drm/", 4) &&
		    len > 6 && !strcmp(region + len - 6, "/vram0")) {
			snprintf(name, size, "%s", region);
			return 0;
		}
	}
	return -ENOENT;
}

/* What dmem_value() returns for a file that shows no line for the region. */
#define DMEM_NONE	(UINT64_MAX - 1)

/* @file's value for @region in cgroup @cg: UINT64_MAX for "max". */
static __u64 dmem_value(const char *cg, const char *file, const char *region)
{
	char path[PATH_MAX], buf[4096], *line;
	size_t len = strlen(region);

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return DMEM_NONE;
	for (line = buf; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (strncmp(line, region, len) || line[len] != ' ')
			continue;
		if (!strncmp(line + len + 1, "max", 3))
			return UINT64_MAX;
		return strtoull(line + len + 1, NULL, 10);
	}
	return DMEM_NONE;
}

/* Moves the calling process into cgroup @cg. */
static int cg_enter(const char *cg)
{
	char path[PATH_MAX], pid[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_text(path, pid);
}

/* Whether @name is in the subtree_control of cgroup @cg. */
static bool cg_has_controller(const char *cg, const char *name)
{
	char path[PATH_MAX], buf[512], *tok, *save;

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", cg);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return false;
	for (tok = strtok_r(buf, "\n ", &save); tok;
	     tok = strtok_r(NULL, "\n ", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

/* Takes dmem out of the root's subtree_control if @enabled_here. */
static void root_dmem_restore(bool enabled_here)
{
	if (enabled_here)
		write_text(CGROUP_ROOT "/cgroup.subtree_control", "-dmem");
}

/* Writes "@region @bytes" into @file of cgroup @cg. */
static int dmem_write(const char *cg, const char *file, const char *region,
		      __u64 bytes)
{
	char path[PATH_MAX], line[192];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	snprintf(line, sizeof(line), "%s %llu", region,
		 (unsigned long long)bytes);
	return write_text(path, line);
}

/* Creates cgroup @cg, and moves the calling process into it if @enter. */
static int cg_make(const char *cg, bool enter)
{
	int ret = mkdir(cg, 0755) ? -errno : 0;

	if (!ret && enter) {
		ret = cg_enter(cg);
		if (ret)
			rmdir(cg);
	}
	return ret;
}

/*
 * Each test runs in a cgroup of its own, @cg, which its client's allocations
 * charge. A second client charges @other, a sibling: the cgroup that evicts.
 * Both sit in @parent, so that their protection is weighed against each
 * other. Tests of recursive protection put the first client's charges one
 * level further down, into @leaf; tests across subtrees charge the second
 * client to @outside, a sibling of @parent.
 */
FIXTURE(dmem)
{
	struct vttm_dev dev;
	char region[128];
	char parent[64];
	char cg[80];
	char other[80];
	char leaf[96];
	char outside[80];
	bool entered;
	int fd;
	int other_fd;
	__u64 quarter;
	bool root_dmem;
};

FIXTURE_SETUP(dmem)
{
	char path[PATH_MAX];
	int ret;

	self->fd = -1;
	self->other_fd = -1;
	self->leaf[0] = '\0';
	self->outside[0] = '\0';
	ret = vttm_probe(&self->dev);
	if (ret == -ENODEV)
		SKIP(return, "vttm device not found (CONFIG_DRM_VTTM)");
	ASSERT_EQ(0, ret);
	if (self->dev.vram_size < MIN_VRAM_PAGES * self->dev.page_size)
		SKIP(return, "vram_size %llu is below %d pages",
		     (unsigned long long)self->dev.vram_size, MIN_VRAM_PAGES);
	/*
	 * The root shows its dmem files, and its children theirs, only with
	 * +dmem in its subtree_control; teardown takes it out again if the
	 * test put it there.
	 */
	self->root_dmem = !cg_has_controller(CGROUP_ROOT, "dmem");
	if (write_text(CGROUP_ROOT "/cgroup.subtree_control", "+dmem"))
		SKIP(return, "cannot enable dmem in %s", CGROUP_ROOT);
	/* vttm's probe registers the region: missing, it is a failure. */
	ret = dmem_region(&self->dev, self->region, sizeof(self->region));
	if (ret)
		root_dmem_restore(self->root_dmem);
	ASSERT_EQ(0, ret)
		TH_LOG("no region of %llu bytes in %s/dmem.capacity",
		       (unsigned long long)self->dev.vram_size, CGROUP_ROOT);
	self->quarter = pages_down(&self->dev, self->dev.vram_size / 4);

	/* Nothing to undo if this fails: teardown does not run then. */
	self->fd = vttm_open(&self->dev);
	ASSERT_LE(0, self->fd);
	self->other_fd = vttm_open(&self->dev);
	ASSERT_LE(0, self->other_fd);
	snprintf(self->parent, sizeof(self->parent), "%s/vttm_dmem_%d",
		 CGROUP_ROOT, getpid());
	snprintf(self->cg, sizeof(self->cg), "%s/test", self->parent);
	snprintf(self->other, sizeof(self->other), "%s/other", self->parent);
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control",
		 self->parent);
	ret = cg_make(self->parent, false);
	if (!ret) {
		ret = write_text(path, "+dmem");
		if (!ret)
			ret = cg_make(self->other, false);
		if (!ret)
			ret = cg_make(self->cg, true);
		if (ret) {
			rmdir(self->other);
			rmdir(self->parent);
		}
	}
	if (ret) {
		close(self->fd);
		close(self->other_fd);
	}
	ASSERT_EQ(0, ret) TH_LOG("cgroups in %s: %s", self->parent,
				 strerror(-ret));
	self->entered = true;
}

FIXTURE_TEARDOWN(dmem)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->other_fd >= 0)
		close(self->other_fd);
	if (!self->entered)
		return;
	cg_enter(CGROUP_ROOT);
	if (self->leaf[0])
		rmdir(self->leaf);
	rmdir(self->cg);
	rmdir(self->other);
	rmdir(self->parent);
	/* Last: the root's dmem cannot go while a child of it is there. */
	if (self->outside[0])
		rmdir(self->outside);
	root_dmem_restore(self->root_dmem);
}

/*
 * dmem.current of the test's cgroup once it is @want, polled: a charge
 * that never comes back is a leak, which the harness's timeout reports.
 */
static __u64 dmem_current_settles(const char *cg, const char *region,
				  __u64 want)
{
	__u64 val;

	/* A file that cannot be read ends the wait, and fails the check. */
	while ((val = dmem_value(cg, "dmem.current", region)) != want &&
	       val != DMEM_NONE)
		usleep(10000);
	return val;
}

/*
 * A client's VRAM is charged to the cgroup of the task that placed it, and
 * uncharged, back to 0, once the buffer is gone; dmem.peak keeps the high
 * mark.
 */
TEST_F(dmem, vram_is_charged_to_the_cgroup_until_freed)
{
	__u64 size = 16 * self->dev.page_size;
	__u32 bo;

	ASSERT_EQ(0ULL, dmem_value(self->cg, "dmem.current", self->region));
	ASSERT_EQ(0, bo_create(self->fd, size, VTTM_PLACE_VRAM, &bo));
	ASSERT_EQ(0, submit(self->fd, &bo, 1));
	ASSERT_EQ(0, bo_wait(self->fd, bo));
	EXPECT_EQ(size, dmem_value(self->cg, "dmem.current", self->region));
	EXPECT_EQ(size, dmem_value(self->cg, "dmem.peak", self->region));

	ASSERT_EQ(0, gem_close(self->fd, bo));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0ULL, dmem_current_settles(self->cg, self->region, 0));
	EXPECT_EQ(size, dmem_value(self->cg, "dmem.peak", self->region));
}

/*
 * A job whose buffer does not fit under the cgroup's dmem.max fails with
 * -ENOMEM and leaves nothing charged; once the limit is raised it runs.
 */
TEST_F(dmem, job_over_the_cgroups_dmem_max_fails_and_charges_nothing)
{
	__u64 size = 16 * self->dev.page_size;
	char path[PATH_MAX], limit[192];
	__u32 bo;

	snprintf(path, sizeof(path), "%s/dmem.max", self->cg);
	snprintf(limit, sizeof(limit), "%s %llu", self->region,
		 (unsigned long long)(size / 2));
	ASSERT_EQ(0, write_text(path, limit));

	ASSERT_EQ(0, bo_create(self->fd, size, VTTM_PLACE_VRAM, &bo));
	EXPECT_EQ(-ENOMEM, submit(self->fd, &bo, 1));
	EXPECT_EQ(0ULL, dmem_value(self->cg, "dmem.current", self->region));

	snprintf(limit, sizeof(limit), "%s max", self->region);
	ASSERT_EQ(0, write_text(path, limit));
	EXPECT_EQ(0, submit(self->fd, &bo, 1));
	ASSERT_EQ(0, bo_wait(self->fd, bo));
	EXPECT_EQ(size, dmem_value(self->cg, "dmem.current", self->region));
}

/* A VRAM-only buffer of @size in @fd, moved into VRAM by a job. */
static __u32 vram_job(struct __test_metadata *_metadata, int fd, __u64 size)
{
	__u32 h;

	ASSERT_EQ(0, bo_create(fd, size, VTTM_PLACE_VRAM, &h));
	ASSERT_EQ(0, submit(fd, &h, 1));
	ASSERT_EQ(0, bo_wait(fd, h));
	return h;
}

static __u64 evicted_from(struct __test_metadata *_metadata, int fd)
{
	struct drm_vttm_stats stats;

	ASSERT_EQ(0, get_stats(fd, &stats));
	return stats.bytes_evicted_from;
}

/*
 * The other client, charging @evictor_cg, fills VRAM around half of it
 * that @victim_cg charges, which is the least recently used, and then
 * needs half of VRAM again.
 */
static void evict_around(struct __test_metadata *_metadata,
			 FIXTURE_DATA(dmem) * self, const char *victim_cg,
			 const char *evictor_cg)
{
	__u64 q = self->quarter;

	ASSERT_EQ(0, cg_enter(evictor_cg));
	vram_job(_metadata, self->other_fd, q);
	ASSERT_EQ(0, cg_enter(victim_cg));
	vram_job(_metadata, self->fd, 2 * q);
	ASSERT_EQ(0, cg_enter(evictor_cg));
	vram_job(_metadata, self->other_fd, q);
	vram_job(_metadata, self->other_fd, 2 * q);
}

/* The victim's half stayed, charged to @victim_cg; the other lost its own. */
static void expect_kept(struct __test_metadata *_metadata,
			FIXTURE_DATA(dmem) * self, const char *victim_cg)
{
	EXPECT_EQ(0ULL, evicted_from(_metadata, self->fd));
	EXPECT_EQ(2 * self->quarter, evicted_from(_metadata, self->other_fd));
	EXPECT_EQ(2 * self->quarter,
		  dmem_value(victim_cg, "dmem.current", self->region));
}

/* The victim's half went, and the other kept its own. */
static void expect_half_lost(struct __test_metadata *_metadata,
			     FIXTURE_DATA(dmem) * self)
{
	EXPECT_EQ(2 * self->quarter, evicted_from(_metadata, self->fd));
	EXPECT_EQ(0ULL, evicted_from(_metadata, self->other_fd));
	EXPECT_EQ(0ULL, dmem_value(self->cg, "dmem.current", self->region));
}

/* Without protection, the least recently used half goes. */
TEST_F_TIMEOUT(dmem, without_protection_the_least_recently_used_goes,
	       PRESSURE_TIMEOUT_S)
{
	evict_around(_metadata, self, self->cg, self->other);
	expect_half_lost(_metadata, self);
}

TEST_F_TIMEOUT(dmem, min_keeps_buffers_from_another_cgroups_eviction,
	       PRESSURE_TIMEOUT_S)
{
	ASSERT_EQ(0, dmem_write(self->cg, "dmem.min", self->region,
				2 * self->quarter));
	evict_around(_metadata, self, self->cg, self->other);
	expect_kept(_metadata, self, self->cg);
}

/* dmem.low is kept while anything unprotected can go instead. */
TEST_F_TIMEOUT(dmem, low_keeps_buffers_while_others_can_be_evicted,
	       PRESSURE_TIMEOUT_S)
{
	ASSERT_EQ(0, dmem_write(self->cg, "dmem.low", self->region,
				2 * self->quarter));
	evict_around(_metadata, self, self->cg, self->other);
	expect_kept(_metadata, self, self->cg);
}

/*
 * Protection reaches a child that sets none of its own: the parent's
 * dmem.low, unclaimed by its children, is shared among them by use
 * (the controller always protects recursively).
 */
TEST_F_TIMEOUT(dmem, low_of_a_parent_keeps_the_buffers_of_its_child,
	       PRESSURE_TIMEOUT_S)
{
	char path[PATH_MAX];

	snprintf(self->leaf, sizeof(self->leaf), "%s/leaf", self->cg);
	/* Only a cgroup without processes may enable controllers below. */
	ASSERT_EQ(0, cg_make(self->leaf, true));
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", self->cg);
	ASSERT_EQ(0, write_text(path, "+dmem"));
	ASSERT_EQ(0, dmem_write(self->cg, "dmem.low", self->region,
				2 * self->quarter));
	EXPECT_EQ(0ULL, dmem_value(self->leaf, "dmem.low", self->region));

	evict_around(_metadata, self, self->leaf, self->other);
	expect_kept(_metadata, self, self->leaf);
}

/*
 * The same load from a cgroup of another subtree, whose only common
 * ancestor with the test's cgroup is the root, as between two slices of
 * systemd; @file set to @on_parent in the test's parent and to @on_test
 * in the test's cgroup.
 */
static void evict_from_outside(struct __test_metadata *_metadata,
			       FIXTURE_DATA(dmem) * self, const char *file,
			       __u64 on_parent, __u64 on_test)
{
	snprintf(self->outside, sizeof(self->outside), "%s_outside",
		 self->parent);
	ASSERT_EQ(0, cg_make(self->outside, false));
	ASSERT_EQ(0, dmem_write(self->parent, file, self->region, on_parent));
	ASSERT_EQ(0, dmem_write(self->cg, file, self->region, on_test));
	evict_around(_metadata, self, self->cg, self->outside);
}

TEST_F_TIMEOUT(dmem, without_protection_another_subtree_evicts_the_lru,
	       PRESSURE_TIMEOUT_S)
{
	evict_from_outside(_metadata, self, "dmem.min", 0, 0);
	expect_half_lost(_metadata, self);
}

TEST_F_TIMEOUT(dmem, min_keeps_buffers_from_another_subtrees_eviction,
	       PRESSURE_TIMEOUT_S)
{
	evict_from_outside(_metadata, self, "dmem.min", 2 * self->quarter,
			   2 * self->quarter);
	expect_kept(_metadata, self, self->cg);
}

TEST_F_TIMEOUT(dmem, low_keeps_buffers_from_another_subtrees_eviction,
	       PRESSURE_TIMEOUT_S)
{
	evict_from_outside(_metadata, self, "dmem.low", 2 * self->quarter,
			   2 * self->quarter);
	expect_kept(_metadata, self, self->cg);
}

/* Against another subtree, a child's protection is bounded by its parent's. */
TEST_F_TIMEOUT(dmem, min_of_a_child_alone_gives_way_to_another_subtree,
	       PRESSURE_TIMEOUT_S)
{
	evict_from_outside(_metadata, self, "dmem.min", 0, 2 * self->quarter);
	expect_half_lost(_metadata, self);
}

/* All of VRAM under the test's cgroup's protection; the other needs half. */
static int fill_protected(struct __test_metadata *_metadata,
			  FIXTURE_DATA(dmem) * self, const char *file)
{
	__u64 q = self->quarter;
	__u32 h;

	ASSERT_EQ(0, dmem_write(self->cg, file, self->region, 4 * q));
	vram_job(_metadata, self->fd, 2 * q);
	vram_job(_metadata, self->fd, 2 * q);
	ASSERT_EQ(0, cg_enter(self->other));
	ASSERT_EQ(0, bo_create(self->other_fd, 2 * q, VTTM_PLACE_VRAM, &h));
	return submit(self->other_fd, &h, 1);
}

TEST_F_TIMEOUT(dmem, min_fails_a_job_that_needs_the_protected_vram,
	       PRESSURE_TIMEOUT_S)
{
	EXPECT_EQ(-ENOMEM, fill_protected(_metadata, self, "dmem.min"));
	EXPECT_EQ(0ULL, evicted_from(_metadata, self->fd));
	EXPECT_EQ(4 * self->quarter,
		  dmem_value(self->cg, "dmem.current", self->region));
}

TEST_F_TIMEOUT(dmem, low_gives_way_when_nothing_else_can_be_evicted,
	       PRESSURE_TIMEOUT_S)
{
	EXPECT_EQ(0, fill_protected(_metadata, self, "dmem.low"));
	EXPECT_EQ(2 * self->quarter, evicted_from(_metadata, self->fd));
	EXPECT_EQ(2 * self->quarter,
		  dmem_value(self->cg, "dmem.current", self->region));
}

/*
 * Over its dmem.max, a cgroup evicts its own buffers, though VRAM has room
 * and another cgroup's buffer is older.
 */
TEST_F_TIMEOUT(dmem, over_max_a_cgroup_evicts_only_its_own_buffers,
	       PRESSURE_TIMEOUT_S)
{
	__u64 q = self->quarter;

	ASSERT_EQ(0, dmem_write(self->cg, "dmem.max", self->region, 2 * q));
	ASSERT_EQ(0, cg_enter(self->other));
	vram_job(_metadata, self->other_fd, q);
	ASSERT_EQ(0, cg_enter(self->cg));
	vram_job(_metadata, self->fd, q);
	vram_job(_metadata, self->fd, q);
	vram_job(_metadata, self->fd, q);
	EXPECT_EQ(q, evicted_from(_metadata, self->fd));
	EXPECT_EQ(0ULL, evicted_from(_metadata, self->other_fd));
	EXPECT_EQ(2 * q, dmem_value(self->cg, "dmem.current", self->region));
}

/* Lowering dmem.max below the use evicts, at once, down to the new limit. */
TEST_F_TIMEOUT(dmem, lowering_max_evicts_the_cgroups_own_buffers,
	       PRESSURE_TIMEOUT_S)
{
	__u64 q = self->quarter;

	vram_job(_metadata, self->fd, q);
	vram_job(_metadata, self->fd, q);
	ASSERT_EQ(0, cg_enter(self->other));
	vram_job(_metadata, self->other_fd, q);

	ASSERT_EQ(0, dmem_write(self->cg, "dmem.max", self->region, q));
	EXPECT_EQ(q, dmem_value(self->cg, "dmem.current", self->region));
	EXPECT_EQ(q, evicted_from(_metadata, self->fd));
	EXPECT_EQ(0ULL, evicted_from(_metadata, self->other_fd));
}

/* ------------------------------------------------------------------ */
/* Residency levels                                                   */
/* ------------------------------------------------------------------ */

static int set_residency(int fd, __u32 handle, __u32 level)
{
	struct drm_vttm_bo_residency args = {
		.handle = handle,
		.level = level,
	};

	return vttm_ioctl(fd, DRM_IOCTL_VTTM_BO_SET_RESIDENCY, &args);
}

FIXTURE(residency)
{
	struct vttm_dev dev;
	char knob[PATH_MAX];
	__u64 size;
	int fd;
};

FIXTURE_SETUP(residency)
{
	int ret;

	self->fd = -1;
	self->knob[0] = '\0';
	ret = vttm_probe(&self->dev);
	if (ret == -ENODEV)
		SKIP(return, "vttm device not found (CONFIG_DRM_VTTM)");
	ASSERT_EQ(0, ret) TH_LOG("cannot read %s/{vram,gtt}_size: %s",
				 VTTM_PARAMS, strerror(-ret));
	if (self->dev.vram_size < MIN_VRAM_PAGES * self->dev.page_size)
		SKIP(return, "vram_size %llu is below %d pages",
		     (unsigned long long)self->dev.vram_size, MIN_VRAM_PAGES);
	ret = debugfs_file(&self->dev, "residency_levels", R_OK | W_OK,
			   self->knob, sizeof(self->knob));
	if (ret == -ENODEV)
		self->knob[0] = '\0';
	else
		ASSERT_EQ(0, ret) TH_LOG("%s: %s", self->knob, strerror(-ret));
	if (self->knob[0])
		ASSERT_EQ(0, write_text(self->knob, "Y"));

	/* Three buffers of 3/8 of VRAM: the third evicts one of the others. */
	self->size = pages_down(&self->dev, self->dev.vram_size / 8 * 3);
	self->fd = vttm_open(&self->dev);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", self->dev.path,
				      strerror(-self->fd));
}

FIXTURE_TEARDOWN(residency)
{
	if (self->knob[0])
		write_text(self->knob, "Y");
	if (self->fd >= 0)
		close(self->fd);
}

/* A buffer of @size at @level in @fd, moved into VRAM by a job. */
static __u32 place_at(struct __test_metadata *_metadata, int fd, __u64 size,
		      __u32 level)
{
	__u32 h;

	ASSERT_EQ(0, bo_create(fd, size, VTTM_PLACE_VRAM, &h));
	ASSERT_EQ(0, set_residency(fd, h, level));
	ASSERT_EQ(0, submit(fd, &h, 1));
	ASSERT_EQ(0, bo_wait(fd, h));
	return h;
}

/* @fd lost exactly @size, all of it at level @lost and none at @kept. */
static void expect_lost(struct __test_metadata *_metadata, int fd,
			__u64 size, __u32 lost, __u32 kept)
{
	struct drm_vttm_stats stats;

	ASSERT_EQ(0, get_stats(fd, &stats));
	EXPECT_EQ(size, stats.bytes_evicted_from);
	EXPECT_EQ(size, stats.bytes_evicted_from_level[lost]);
	EXPECT_EQ(0ULL, stats.bytes_evicted_from_level[kept]);
}

/*
 * In a new client, a buffer at MAXIMUM used first, then one at MINIMUM;
 * then the fixture's client places a third, which pushes one of them out.
 * Returns the new client.
 */
static int evict_one_of_two(struct __test_metadata *_metadata,
			    FIXTURE_DATA(residency) * self)
{
	int fd = vttm_open(&self->dev);

	ASSERT_LE(0, fd);
	place_at(_metadata, fd, self->size, VTTM_RESIDENCY_MAXIMUM);
	place_at(_metadata, fd, self->size, VTTM_RESIDENCY_MINIMUM);
	place_at(_metadata, self->fd, self->size, VTTM_RESIDENCY_NORMAL);
	return fd;
}

TEST_F(residency, lowest_level_of_a_client_goes_first_though_used_last)
{
	int fd = evict_one_of_two(_metadata, self);

	expect_lost(_metadata, fd, self->size, VTTM_RESIDENCY_MINIMUM,
		    VTTM_RESIDENCY_MAXIMUM);
	close(fd);
}

/* The same load with levels kept from TTM: LRU order alone decides. */
TEST_F(residency, without_levels_the_least_recently_used_goes_first)
{
	int fd;

	if (!self->knob[0])
		SKIP(return, "no %s/<minor> (debugfs)", DRI_DEBUGFS);
	ASSERT_EQ(0, write_text(self->knob, "N"));
	fd = evict_one_of_two(_metadata, self);
	expect_lost(_metadata, fd, self->size, VTTM_RESIDENCY_MAXIMUM,
		    VTTM_RESIDENCY_MINIMUM);
	close(fd);
}

/* An idle client's highest level goes before an active client's lowest. */
TEST_F(residency, levels_do_not_order_clients)
{
	struct drm_vttm_stats active;
	int fd_idle, fd_active;

	fd_idle = vttm_open(&self->dev);
	ASSERT_LE(0, fd_idle);
	fd_active = vttm_open(&self->dev);
	ASSERT_LE(0, fd_active);
	place_at(_metadata, fd_idle, self->size, VTTM_RESIDENCY_MAXIMUM);
	place_at(_metadata, fd_active, self->size, VTTM_RESIDENCY_MINIMUM);
	place_at(_metadata, self->fd, self->size, VTTM_RESIDENCY_NORMAL);

	expect_lost(_metadata, fd_idle, self->size, VTTM_RESIDENCY_MAXIMUM,
		    VTTM_RESIDENCY_MINIMUM);
	ASSERT_EQ(0, get_stats(fd_active, &active));
	EXPECT_EQ(0ULL, active.bytes_evicted_from);
	close(fd_idle);
	close(fd_active);
}

/*
 * Bad calls on the older buffer, at MAXIMUM: each fails, and the buffer
 * keeps its level, so the more recent NORMAL one is evicted instead of it.
 */
TEST_F(residency, bad_level_or_handle_fails_and_changes_nothing)
{
	static const __u32 bad[] = {
		VTTM_NUM_RESIDENCY, 0x78000000, UINT32_MAX,
	};
	__u32 h_old, h_recent;
	unsigned int i;
	int fd;

	fd = vttm_open(&self->dev);
	ASSERT_LE(0, fd);
	h_old = place_at(_metadata, fd, self->size, VTTM_RESIDENCY_MAXIMUM);
	h_recent = place_at(_metadata, fd, self->size, VTTM_RESIDENCY_NORMAL);

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(-EINVAL, set_residency(fd, h_old, bad[i]))
			TH_LOG("level %#x", bad[i]);
	EXPECT_EQ(-ENOENT, set_residency(fd, h_recent + 100,
					 VTTM_RESIDENCY_MINIMUM));
	/* The fixture's client has no buffer of that handle. */
	EXPECT_EQ(-ENOENT, set_residency(self->fd, h_old,
					 VTTM_RESIDENCY_MINIMUM));

	place_at(_metadata, self->fd, self->size, VTTM_RESIDENCY_NORMAL);
	expect_lost(_metadata, fd, self->size, VTTM_RESIDENCY_NORMAL,
		    VTTM_RESIDENCY_MAXIMUM);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* Eviction throttling                                                */
/* ------------------------------------------------------------------ */

FIXTURE(throttle)
{
	struct vttm_dev dev;
	struct throttle_knobs knobs;
	int fd;
};

FIXTURE_SETUP(throttle)
{
	int ret;

	self->fd = -1;
	self->knobs.hard[0] = '\0';
	ret = vttm_probe(&self->dev);
	if (ret == -ENODEV)
		SKIP(return, "vttm device not found (CONFIG_DRM_VTTM)");
	ASSERT_EQ(0, ret) TH_LOG("cannot read %s/{vram,gtt}_size: %s",
				 VTTM_PARAMS, strerror(-ret));
	if (self->dev.vram_size < MIN_VRAM_PAGES * self->dev.page_size)
		SKIP(return, "vram_size %llu is below %d pages",
		     (unsigned long long)self->dev.vram_size, MIN_VRAM_PAGES);
	ret = throttle_knobs_get(&self->dev, &self->knobs);
	if (ret == -ENODEV)
		SKIP(return, "no %s/<minor> (debugfs)", DRI_DEBUGFS);
	ASSERT_EQ(0, ret) TH_LOG("throttle_*_ms: %s", strerror(-ret));
	self->fd = vttm_open(&self->dev);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", self->dev.path,
				      strerror(-self->fd));
}

FIXTURE_TEARDOWN(throttle)
{
	if (self->fd >= 0)
		close(self->fd);
	throttle_knobs_restore(&self->knobs);
	/* Removing the instance disables its events. */
	rmdir(TRACE_INSTANCE);
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
			       VTTM_PLACE_VRAM, &h));
	EXPECT_EQ(0, submit(fd, &h, 1));
	EXPECT_EQ(0, bo_wait(fd, h));
	return fd;
}

static __u64 resident_vram(struct __test_metadata *_metadata, int fd)
{
	return fdinfo_size(_metadata, fd, "drm-resident-vram");
}

/*
 * The client's buffer of half of VRAM, which may fall back to GTT, is
 * evicted by another client's job; the other client then leaves, and VRAM
 * is free. Reports how much of the buffer is in VRAM after the client's
 * next job, in hard throttle (@hard_ms long) or not throttled (0), and
 * after one more job in soft throttle.
 */
static void refill_after_eviction(struct __test_metadata *_metadata,
				  FIXTURE_DATA(throttle) * self,
				  unsigned int hard_ms, __u64 *first,
				  __u64 *later)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 2);
	unsigned int soft_ms = hard_ms ? THROTTLE_LONG_MS : 0;
	__u32 h;
	int other;

	ASSERT_EQ(0, set_throttle(&self->knobs, hard_ms, soft_ms));
	ASSERT_EQ(0, bo_create(self->fd, size, VTTM_PLACE_BOTH, &h));
	ASSERT_EQ(0, submit(self->fd, &h, 1));
	ASSERT_EQ(0, bo_wait(self->fd, h));
	ASSERT_EQ(size, resident_vram(_metadata, self->fd));

	other = take_vram_from_another_client(_metadata, &self->dev);
	ASSERT_LE(0, other);
	close(other);
	ASSERT_EQ(0ULL, resident_vram(_metadata, self->fd));

	ASSERT_EQ(0, submit(self->fd, &h, 1));
	ASSERT_EQ(0, bo_wait(self->fd, h));
	*first = resident_vram(_metadata, self->fd);

	ASSERT_EQ(0, set_throttle(&self->knobs, 0, soft_ms));
	ASSERT_EQ(0, submit(self->fd, &h, 1));
	ASSERT_EQ(0, bo_wait(self->fd, h));
	*later = resident_vram(_metadata, self->fd);
}

TEST_F_TIMEOUT(throttle, hard_throttle_keeps_gtt_buffers_out_of_free_vram,
	       PRESSURE_TIMEOUT_S)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 2);
	__u64 first, later;

	refill_after_eviction(_metadata, self, THROTTLE_LONG_MS, &first,
			      &later);
	EXPECT_EQ(0ULL, first);
	/* Soft throttle fills free VRAM. */
	EXPECT_EQ(size, later);
}

/* The same load with the periods at 0: the buffer returns at once. */
TEST_F_TIMEOUT(throttle, without_throttle_evicted_buffers_return_at_once,
	       PRESSURE_TIMEOUT_S)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 2);
	__u64 first, later;

	refill_after_eviction(_metadata, self, 0, &first, &later);
	EXPECT_EQ(size, first);
	EXPECT_EQ(size, later);
}

/*
 * The client's VRAM-only buffer x, half of VRAM, is evicted by another
 * client's job on three quarters of VRAM; with no hard period the client is
 * in soft throttle at once (if @soft_ms). Its next job places y, half of
 * VRAM too, which may fall back to GTT; then x, which must be in VRAM.
 * Reports what the other client lost to each.
 */
static void place_after_eviction(struct __test_metadata *_metadata,
				 FIXTURE_DATA(throttle) * self,
				 unsigned int soft_ms, __u64 *lost_to_y,
				 __u64 *lost_to_x)
{
	__u64 half = pages_down(&self->dev, self->dev.vram_size / 2);
	struct drm_vttm_stats stats;
	__u32 x, y;
	int other;

	ASSERT_EQ(0, set_throttle(&self->knobs, 0, soft_ms));
	ASSERT_EQ(0, bo_create(self->fd, half, VTTM_PLACE_VRAM, &x));
	ASSERT_EQ(0, bo_create(self->fd, half, VTTM_PLACE_BOTH, &y));
	ASSERT_EQ(0, submit(self->fd, &x, 1));
	ASSERT_EQ(0, bo_wait(self->fd, x));

	other = take_vram_from_another_client(_metadata, &self->dev);
	ASSERT_LE(0, other);

	ASSERT_EQ(0, submit(self->fd, &y, 1));
	ASSERT_EQ(0, bo_wait(self->fd, y));
	ASSERT_EQ(0, get_stats(other, &stats));
	*lost_to_y = stats.bytes_evicted_from;

	ASSERT_EQ(0, submit(self->fd, &x, 1));
	ASSERT_EQ(0, bo_wait(self->fd, x));
	ASSERT_EQ(0, get_stats(other, &stats));
	*lost_to_x = stats.bytes_evicted_from - *lost_to_y;
	close(other);
}

TEST_F_TIMEOUT(throttle, soft_throttle_falls_back_to_gtt_rather_than_evict,
	       PRESSURE_TIMEOUT_S)
{
	__u64 other = pages_down(&self->dev, self->dev.vram_size / 4 * 3);
	__u64 lost_to_y, lost_to_x;

	place_after_eviction(_metadata, self, THROTTLE_LONG_MS, &lost_to_y,
			     &lost_to_x);
	EXPECT_EQ(0ULL, lost_to_y);
	/* A buffer that must be in VRAM is still placed. */
	EXPECT_EQ(other, lost_to_x);
}

/* The same load unthrottled: the fallback buffer evicts the other client. */
TEST_F_TIMEOUT(throttle, without_throttle_a_fallback_buffer_evicts,
	       PRESSURE_TIMEOUT_S)
{
	__u64 other = pages_down(&self->dev, self->dev.vram_size / 4 * 3);
	__u64 lost_to_y, lost_to_x;

	place_after_eviction(_metadata, self, 0, &lost_to_y, &lost_to_x);
	EXPECT_EQ(other, lost_to_y);
	EXPECT_EQ(0ULL, lost_to_x);
}

/* Whether a line of @event in @trace has each of @fields, in order. */
static bool trace_has(const char *trace, const char *event,
		      const char *const *fields, unsigned int n)
{
	const char *line = trace;

	while ((line = strstr(line, event))) {
		const char *end = strchrnul(line, '\n');
		const char *at = line;
		unsigned int i;

		for (i = 0; i < n && at; i++) {
			at = strstr(at, fields[i]);
			if (at && at >= end)
				at = NULL;
			else if (at)
				at += strlen(fields[i]) - 1;
		}
		if (at)
			return true;
		line = end;
	}
	return false;
}

static __u64 client_id(struct __test_metadata *_metadata, int fd)
{
	return fdinfo_size(_metadata, fd, "drm-client-id");
}

TEST_F_TIMEOUT(throttle, tracepoints_report_eviction_and_throttle,
	       PRESSURE_TIMEOUT_S)
{
	__u64 size = pages_down(&self->dev, self->dev.vram_size / 4 * 3);
	char want_size[48], want_victim[48], want_evictor[48], start[96];
	static char trace[1 << 20];
	__u64 victim_id, evictor_id;
	__u32 h, other_h;
	int other;

	if (access(TRACING "/events", R_OK) ||
	    access(TRACING "/instances", W_OK))
		SKIP(return, "no trace events or instances in " TRACING);
	/* TTM's events are always built: missing, they are a failure. */
	ASSERT_EQ(0, access(TRACING "/events/ttm/enable", R_OK));
	ASSERT_EQ(0, set_throttle(&self->knobs, THROTTLE_LONG_MS,
				  THROTTLE_LONG_MS));
	other = vttm_open(&self->dev);
	ASSERT_LE(0, other);
	victim_id = client_id(_metadata, self->fd);
	evictor_id = client_id(_metadata, other);
	ASSERT_NE(victim_id, evictor_id);

	ASSERT_EQ(0, bo_create(self->fd, size, VTTM_PLACE_BOTH, &h));
	ASSERT_EQ(0, submit(self->fd, &h, 1));
	ASSERT_EQ(0, bo_wait(self->fd, h));

	rmdir(TRACE_INSTANCE);
	ASSERT_EQ(0, mkdir(TRACE_INSTANCE, 0755)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, write_text(TRACE_INSTANCE "/events/ttm/enable", "1"));
	ASSERT_EQ(0, bo_create(other, size, VTTM_PLACE_VRAM, &other_h));
	EXPECT_EQ(0, submit(other, &other_h, 1));
	EXPECT_EQ(0, bo_wait(other, other_h));
	/* Hard throttle keeps the victim's buffer where it went. */
	EXPECT_EQ(0, submit(self->fd, &h, 1));
	EXPECT_EQ(0, bo_wait(self->fd, h));
	ASSERT_EQ(0, write_text(TRACE_INSTANCE "/events/ttm/enable", "0"));
	ASSERT_LT(0, read_text(TRACE_INSTANCE "/trace", trace, sizeof(trace)));
	close(other);

	snprintf(want_size, sizeof(want_size), " size=%llu vram->",
		 (unsigned long long)size);
	snprintf(want_victim, sizeof(want_victim), " client=%llu\n",
		 (unsigned long long)victim_id);
	snprintf(want_evictor, sizeof(want_evictor), "->vram client=%llu\n",
		 (unsigned long long)evictor_id);
	snprintf(start, sizeof(start), "client=%llu evicted_by=%llu\n",
		 (unsigned long long)victim_id, (unsigned long long)evictor_id);

	EXPECT_TRUE(trace_has(trace, "ttm_bo_evict:",
			      (const char *[]){ want_size, want_victim }, 2))
		TH_LOG("no eviction of %s by %llu", want_victim,
		       (unsigned long long)evictor_id);
	EXPECT_TRUE(trace_has(trace, "ttm_throttle_start:",
			      (const char *[]){ start }, 1))
		TH_LOG("no \"%s\" in the trace", start);
	EXPECT_TRUE(trace_has(trace, "ttm_bo_move:",
			      (const char *[]){ want_evictor }, 1))
		TH_LOG("no \"%s\" in the trace", want_evictor);
	EXPECT_TRUE(trace_has(trace, "ttm_bo_throttle_keep:",
			      (const char *[]){ want_victim }, 1))
		TH_LOG("no hard-throttle keep of %s", want_victim);
}

TEST_HARNESS_MAIN
