// SPDX-License-Identifier: GPL-2.0
/*
 * vttm: contiguous buffers, and contiguity-aware eviction.
 *
 * Every test skips when the vttm module is absent.
 */

#include "../../../kselftest_harness.h"

#include "vttm_util.h"

#define EVICT_WINDOW_PARAM	"/sys/module/ttm/parameters/evict_window"

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

/*
 * Bytes a contiguous buffer of @size evicts from the full, mixed VRAM of
 * another client: a job evicts none of its own client's buffers.
 */
static __u64 contiguous_evicts(struct __test_metadata *_metadata,
			       const struct vttm_dev *dev, __u64 slot,
			       __u64 size)
{
	struct vttm_stats before, after;
	unsigned int n = dev->vram_size / slot;
	__u32 *handles, h;
	int fd, evictor;

	fd = vttm_open(dev);
	ASSERT_LE(0, fd);
	evictor = vttm_open(dev);
	ASSERT_LE(0, evictor);
	handles = calloc(n, sizeof(*handles));
	ASSERT_NE(NULL, handles);

	fill_vram_interleaved(_metadata, fd, slot, handles, n);
	ASSERT_EQ(0, bo_create_flags(evictor, size, VTTM_PLACE_VRAM,
				     VTTM_BO_CONTIGUOUS, &h));
	ASSERT_EQ(0, get_stats(evictor, &before));
	ASSERT_EQ(0, submit(evictor, &h, 1));
	ASSERT_EQ(0, get_stats(evictor, &after));
	ASSERT_EQ(0, bo_wait(evictor, h));

	free(handles);
	close(evictor);
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
	char why[128];
	int ret;

	self->saved[0] = '\0';
	ret = vttm_probe_min(&self->dev, MIN_VRAM_PAGES, why, sizeof(why));
	if (ret == -ENODEV)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("%s", why);
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

TEST_HARNESS_MAIN
