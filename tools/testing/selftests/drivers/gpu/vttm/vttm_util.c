// SPDX-License-Identifier: GPL-2.0
/*
 * What vttm's test programs share; see vttm_util.h.
 */

#include "vttm_util.h"

bool fd_is_vttm(int fd)
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
int vttm_find_node(struct vttm_dev *dev)
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

ssize_t read_text(const char *path, char *buf, size_t size)
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

int write_text(const char *path, const char *text)
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

int parse_u64(const char *text, __u64 *val)
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

int read_param(const char *name, __u64 *val)
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
int vttm_probe(struct vttm_dev *dev)
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

int vttm_open(const struct vttm_dev *dev)
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
int debugfs_file(const struct vttm_dev *dev, const char *name,
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
int exec_eviction_knob(const struct vttm_dev *dev, char *path,
		       size_t size)
{
	return debugfs_file(dev, "exec_eviction", R_OK | W_OK, path, size);
}

/* Finds and saves the periods: 0, or -errno if they are not there. */
int throttle_knobs_get(const struct vttm_dev *dev,
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

int set_throttle(const struct throttle_knobs *k, unsigned int hard_ms,
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

void throttle_knobs_restore(const struct throttle_knobs *k)
{
	if (!k->hard[0])
		return;
	write_text(k->hard, k->saved_hard);
	write_text(k->soft, k->saved_soft);
}

/* @size rounded down to a whole number of pages. */
__u64 pages_down(const struct vttm_dev *dev, __u64 size)
{
	return size - size % dev->page_size;
}

int vttm_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg) ? -errno : 0;
}

int bo_create_args(int fd, struct drm_vttm_bo_create *args)
{
	return vttm_ioctl(fd, DRM_IOCTL_VTTM_BO_CREATE, args);
}

int bo_create_flags(int fd, __u64 size, __u32 placements,
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

int bo_create(int fd, __u64 size, __u32 placements, __u32 *handle)
{
	return bo_create_flags(fd, size, placements, 0, handle);
}

int submit_args(int fd, struct drm_vttm_submit *args)
{
	return vttm_ioctl(fd, DRM_IOCTL_VTTM_SUBMIT, args);
}

int submit_for(int fd, const __u32 *handles, __u32 count,
	       __u64 duration_ns)
{
	struct drm_vttm_submit args = {
		.handles = (uintptr_t)handles,
		.count = count,
		.duration_ns = duration_ns,
	};

	return submit_args(fd, &args);
}

int submit(int fd, const __u32 *handles, __u32 count)
{
	return submit_for(fd, handles, count, JOB_NS);
}

int bo_wait_args(int fd, struct drm_vttm_wait *args)
{
	return vttm_ioctl(fd, DRM_IOCTL_VTTM_WAIT, args);
}

int bo_wait_for(int fd, __u32 handle, __s64 timeout_ns)
{
	struct drm_vttm_wait args = {
		.handle = handle,
		.timeout_ns = timeout_ns,
	};

	return bo_wait_args(fd, &args);
}

int bo_wait(int fd, __u32 handle)
{
	return bo_wait_for(fd, handle, IDLE_TIMEOUT_NS);
}

int bo_wait_all(int fd, const __u32 *handles, unsigned int count)
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

int get_stats(int fd, struct drm_vttm_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	return vttm_ioctl(fd, DRM_IOCTL_VTTM_STATS, stats);
}

int gem_close(int fd, __u32 handle)
{
	struct drm_gem_close args = { .handle = handle };

	return vttm_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &args);
}

/*
 * A size in bytes from the client's fdinfo, such as drm-resident-vram,
 * whose value may carry a KiB or MiB unit; UINT64_MAX if it is not there.
 */
__u64 fdinfo_size(int fd, const char *key)
{
	char path[64], buf[4096], *line, *end;
	size_t klen = strlen(key);
	unsigned long long val;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	len = read_text(path, buf, sizeof(buf));
	if (len < 0)
		ksft_print_msg("%s: %s\n", path, strerror(-len));
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
	ksft_print_msg("no %s in %s\n", key, path);
	return UINT64_MAX;
}

/* Creates @count buffers of @size bytes each. */
int bo_create_many(int fd, __u64 size, __u32 placements,
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

__u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Whether a failed call left no trace: nothing moved, evicted or ran. */
bool no_job_effects(const struct drm_vttm_stats *before,
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

int worker_fail(struct worker_error *e, int err, int line)
{
	e->err = err;
	e->line = line;
	return 1;
}

int msg_send(int fd, char msg)
{
	return write(fd, &msg, 1) == 1 ? 0 : -EPIPE;
}

/* Returns the message, or -EPIPE if the other side has gone. */
int msg_recv(int fd)
{
	ssize_t n;
	char msg;

	do {
		n = read(fd, &msg, 1);
	} while (n < 0 && errno == EINTR);
	return n == 1 ? msg : -EPIPE;
}

/* Starts @fn in a child process. Returns the worker, or NULL with errno set. */
struct worker *worker_start(struct workers *ws, worker_fn fn,
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
int worker_join(struct worker *w)
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
void workers_kill(struct workers *ws)
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

void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}
