// SPDX-License-Identifier: GPL-2.0
/*
 * vttm: what a PRIME export of a buffer costs the exporter in host memory.
 *
 * Every test skips when the vttm module is absent.
 */

#include "../../../kselftest_harness.h"

#include "vttm_util.h"

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
	char why[128];
	__u64 bytes;
	int ret;

	self->fd = -1;
	ret = vttm_probe_min(&self->dev, 0, why, sizeof(why));
	if (ret == -ENODEV)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("%s", why);
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
	ASSERT_EQ(self->size, fdinfo_size(self->fd,
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
	EXPECT_EQ(self->size, fdinfo_size(self->fd,
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
	EXPECT_EQ(self->size, fdinfo_size(self->fd,
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

TEST_HARNESS_MAIN
