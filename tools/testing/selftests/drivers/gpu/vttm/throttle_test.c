// SPDX-License-Identifier: GPL-2.0
/*
 * vttm: eviction throttling per client, and the ttm tracepoints.
 *
 * Every test skips when the vttm module is absent.
 */

#include "../../../kselftest_harness.h"

#include "vttm_util.h"

#define TRACING			"/sys/kernel/tracing"
/* A trace instance of the tests' own: an empty buffer, default options. */
#define TRACE_INSTANCE		TRACING "/instances/vttm_test"
/* A period no test outlasts. */
#define THROTTLE_LONG_MS	600000

/*
 * The device's eviction throttle periods, in its debugfs files
 * throttle_hard_ms and throttle_soft_ms; they apply at once, so a test
 * steps from hard to soft throttle by setting them, and never waits on the
 * clock.
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

FIXTURE(throttle)
{
	struct vttm_dev dev;
	struct throttle_knobs knobs;
	int fd;
};

FIXTURE_SETUP(throttle)
{
	char why[128];
	int ret;

	self->fd = -1;
	self->knobs.hard[0] = '\0';
	ret = vttm_probe_min(&self->dev, MIN_VRAM_PAGES, why, sizeof(why));
	if (ret == -ENODEV)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("%s", why);
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

static __u64 resident_vram(int fd)
{
	return fdinfo_size(fd, "drm-resident-vram");
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
	ASSERT_EQ(size, resident_vram(self->fd));

	other = take_vram_from_another_client(_metadata, &self->dev);
	ASSERT_LE(0, other);
	close(other);
	ASSERT_EQ(0ULL, resident_vram(self->fd));

	ASSERT_EQ(0, submit(self->fd, &h, 1));
	ASSERT_EQ(0, bo_wait(self->fd, h));
	*first = resident_vram(self->fd);

	ASSERT_EQ(0, set_throttle(&self->knobs, 0, soft_ms));
	ASSERT_EQ(0, submit(self->fd, &h, 1));
	ASSERT_EQ(0, bo_wait(self->fd, h));
	*later = resident_vram(self->fd);
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
 * in soft throttle at once (if @soft_ms). Its next job validates y, half of
 * VRAM too, created before the eviction and never placed, which may fall
 * back to GTT, and then x, which must be in VRAM: the order of the client's
 * evict list, as xe's exec validates it. Reports what the other client
 * lost, and how much of the client's memory is in GTT after the job.
 */
static void place_after_eviction(struct __test_metadata *_metadata,
				 FIXTURE_DATA(throttle) * self,
				 unsigned int soft_ms, __u64 *lost,
				 __u64 *in_gtt)
{
	__u64 half = pages_down(&self->dev, self->dev.vram_size / 2);
	struct vttm_stats stats;
	__u32 x, y;
	int other;

	ASSERT_EQ(0, set_throttle(&self->knobs, 0, soft_ms));
	ASSERT_EQ(0, bo_create(self->fd, half, VTTM_PLACE_VRAM, &x));
	ASSERT_EQ(0, submit(self->fd, &x, 1));
	ASSERT_EQ(0, bo_wait(self->fd, x));
	ASSERT_EQ(0, bo_create(self->fd, half, VTTM_PLACE_BOTH, &y));

	other = take_vram_from_another_client(_metadata, &self->dev);
	ASSERT_LE(0, other);

	ASSERT_EQ(0, submit(self->fd, &y, 1));
	ASSERT_EQ(0, bo_wait_all(self->fd, (__u32[]){ x, y }, 2));
	ASSERT_EQ(0, get_stats(other, &stats));
	*lost = stats.bytes_evicted_from;
	*in_gtt = fdinfo_size(self->fd, "drm-resident-gtt");
	/* A buffer that must be in VRAM is placed either way. */
	EXPECT_LE(half, resident_vram(self->fd));
	close(other);
}

TEST_F_TIMEOUT(throttle, soft_throttle_falls_back_to_gtt_rather_than_evict,
	       PRESSURE_TIMEOUT_S)
{
	__u64 half = pages_down(&self->dev, self->dev.vram_size / 2);
	__u64 other = pages_down(&self->dev, self->dev.vram_size / 4 * 3);
	__u64 lost, in_gtt;

	place_after_eviction(_metadata, self, THROTTLE_LONG_MS, &lost,
			     &in_gtt);
	/* y went to GTT; x, which has no fallback, took the evictor's VRAM. */
	EXPECT_EQ(half, in_gtt);
	EXPECT_EQ(other, lost);
}

/* The same load unthrottled: the fallback buffer evicts the other client. */
TEST_F_TIMEOUT(throttle, without_throttle_a_fallback_buffer_evicts,
	       PRESSURE_TIMEOUT_S)
{
	__u64 other = pages_down(&self->dev, self->dev.vram_size / 4 * 3);
	__u64 lost, in_gtt;

	place_after_eviction(_metadata, self, 0, &lost, &in_gtt);
	EXPECT_EQ(0ULL, in_gtt);
	EXPECT_EQ(other, lost);
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

static __u64 client_id(int fd)
{
	return fdinfo_size(fd, "drm-client-id");
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
	victim_id = client_id(self->fd);
	evictor_id = client_id(other);
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
