// SPDX-License-Identifier: GPL-2.0
/*
 * vttm: eviction by residency level.
 *
 * Every test skips when the vttm module is absent.
 */

#include "../../../kselftest_harness.h"

#include "vttm_util.h"

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
	__u64 size;
	int fd;
};

FIXTURE_SETUP(residency)
{
	char why[128];
	int ret;

	self->fd = -1;
	ret = vttm_probe_min(&self->dev, MIN_VRAM_PAGES, why, sizeof(why));
	if (ret == -ENODEV)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("%s", why);

	/* Three buffers of 3/8 of VRAM: the third evicts one of the others. */
	self->size = pages_down(&self->dev, self->dev.vram_size / 8 * 3);
	self->fd = vttm_open(&self->dev);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", self->dev.path,
				      strerror(-self->fd));
}

FIXTURE_TEARDOWN(residency)
{
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
	struct vttm_stats stats;

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

/*
 * The same load at one level, but the recent buffer is smaller, 2/8 of
 * VRAM, and the third one larger, 4/8: either of the two makes room, and
 * the least recently used goes, which is the MAXIMUM buffer's place above,
 * so the test above fails without levels.
 */
TEST_F(residency, at_one_level_the_least_recently_used_goes_first)
{
	__u64 small = pages_down(&self->dev, self->dev.vram_size / 8 * 2);
	__u64 large = pages_down(&self->dev, self->dev.vram_size / 8 * 4);
	int fd;

	fd = vttm_open(&self->dev);
	ASSERT_LE(0, fd);
	place_at(_metadata, fd, self->size, VTTM_RESIDENCY_NORMAL);
	place_at(_metadata, fd, small, VTTM_RESIDENCY_NORMAL);
	place_at(_metadata, self->fd, large, VTTM_RESIDENCY_NORMAL);

	expect_lost(_metadata, fd, self->size, VTTM_RESIDENCY_NORMAL,
		    VTTM_RESIDENCY_MAXIMUM);
	close(fd);
}

/* An idle client's highest level goes before an active client's lowest. */
TEST_F(residency, levels_do_not_order_clients)
{
	struct vttm_stats active;
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

TEST_HARNESS_MAIN
