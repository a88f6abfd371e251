// SPDX-License-Identifier: GPL-2.0
/*
 * What vttm's test programs share; see vttm_util.h.
 */

#include <ctype.h>

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

/*
 * vttm_probe() for a fixture: 0; -ENODEV, to skip, without a vttm device or
 * with VRAM below @min_pages; another error, to fail, if the device's
 * parameters can't be read. @why says which, in @size bytes.
 */
int vttm_probe_min(struct vttm_dev *dev, unsigned int min_pages,
		   char *why, size_t size)
{
	int ret = vttm_probe(dev);

	if (ret == -ENODEV)
		snprintf(why, size, "vttm device not found (CONFIG_DRM_VTTM)");
	else if (ret == -ENOENT)
		snprintf(why, size, "vttm is loaded, but shows no device node or no %s",
			 VTTM_PARAMS);
	else if (ret)
		snprintf(why, size, "cannot read %s/{vram,gtt}_size: %s",
			 VTTM_PARAMS, strerror(-ret));
	else if (dev->vram_size < (__u64)min_pages * dev->page_size)
		snprintf(why, size, "vram_size %llu is below %u pages",
			 (unsigned long long)dev->vram_size, min_pages);
	else
		return 0;
	return ret ? ret : -ENODEV;
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

/* The vttm-* keys of the client's fdinfo, and where struct vttm_stats has each. */
static const struct {
	const char *key;
	size_t offset;
} stats_keys[] = {
	{ "vttm-submits", offsetof(struct vttm_stats, submits) },
	{ "vttm-failed-submits", offsetof(struct vttm_stats, failed_submits) },
	{ "vttm-failed-enomem", offsetof(struct vttm_stats, failed_enomem) },
	{ "vttm-failed-other", offsetof(struct vttm_stats, failed_other) },
	{ "vttm-backoffs", offsetof(struct vttm_stats, backoffs) },
	{ "vttm-evictions", offsetof(struct vttm_stats, evictions) },
	{ "vttm-pingpongs", offsetof(struct vttm_stats, pingpongs) },
	{ "vttm-bytes-moved-to-vram",
	  offsetof(struct vttm_stats, bytes_moved_to_vram) },
	{ "vttm-bytes-evicted-by-jobs",
	  offsetof(struct vttm_stats, bytes_evicted_by) },
	{ "vttm-bytes-evicted",
	  offsetof(struct vttm_stats, bytes_evicted_from) },
#define LEVEL_KEY(name, level) \
	{ "vttm-bytes-evicted-" name, \
	  offsetof(struct vttm_stats, bytes_evicted_from_level[level]) }
	LEVEL_KEY("minimum", VTTM_RESIDENCY_MINIMUM),
	LEVEL_KEY("low", VTTM_RESIDENCY_LOW),
	LEVEL_KEY("normal", VTTM_RESIDENCY_NORMAL),
	LEVEL_KEY("high", VTTM_RESIDENCY_HIGH),
	LEVEL_KEY("maximum", VTTM_RESIDENCY_MAXIMUM),
#undef LEVEL_KEY
};

/* The client's whole fdinfo: its length, or -errno; -E2BIG if cut short. */
static ssize_t read_fdinfo(int fd, char *buf, size_t size)
{
	char path[64];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	len = read_text(path, buf, size);
	return len == (ssize_t)size - 1 ? -E2BIG : len;
}

/*
 * Reads what the client's jobs cost from its fdinfo: 0, -errno if fdinfo
 * can't be read, or -ENOKEY if a key is missing or is no number.
 */
int get_stats(int fd, struct vttm_stats *stats)
{
	char buf[FDINFO_SIZE], *line, *next, *value;
	__u64 found = 0;
	unsigned int i;
	ssize_t len;

	memset(stats, 0, sizeof(*stats));
	len = read_fdinfo(fd, buf, sizeof(buf));
	if (len < 0)
		return len;
	for (line = strtok_r(buf, "\n", &next); line;
	     line = strtok_r(NULL, "\n", &next)) {
		value = strchr(line, ':');
		if (!value)
			continue;
		*value++ = '\0';
		value += strspn(value, " \t");
		for (i = 0; i < ARRAY_SIZE(stats_keys); i++) {
			if (strcmp(line, stats_keys[i].key))
				continue;
			if (!isdigit((unsigned char)*value) ||
			    parse_u64(value, (__u64 *)((char *)stats +
						      stats_keys[i].offset)))
				return -ENOKEY;
			found |= 1ull << i;
		}
	}
	return found == (1ull << ARRAY_SIZE(stats_keys)) - 1 ? 0 : -ENOKEY;
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
	char buf[FDINFO_SIZE], *line, *end;
	size_t klen = strlen(key);
	unsigned long long val;
	ssize_t len;

	len = read_fdinfo(fd, buf, sizeof(buf));
	if (len < 0)
		ksft_print_msg("fdinfo of fd %d: %s\n", fd, strerror(-len));
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
	ksft_print_msg("no %s in the fdinfo of fd %d\n", key, fd);
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
bool no_job_effects(const struct vttm_stats *before,
		    const struct vttm_stats *after)
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
