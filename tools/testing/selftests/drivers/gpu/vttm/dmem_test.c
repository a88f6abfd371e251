// SPDX-License-Identifier: GPL-2.0
/*
 * vttm: the dmem cgroup controller on vttm's VRAM region: charges,
 * limits and protection.
 *
 * Every test skips when the vttm module is absent.
 */

#include "../../../kselftest_harness.h"

#include "vttm_util.h"

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
	char path[PATH_MAX], why[128];
	int ret;

	self->fd = -1;
	self->other_fd = -1;
	self->leaf[0] = '\0';
	self->outside[0] = '\0';
	ret = vttm_probe_min(&self->dev, MIN_VRAM_PAGES, why, sizeof(why));
	if (ret == -ENODEV)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("%s", why);
	/*
	 * The root shows its dmem files, and its children theirs, only with
	 * +dmem in its subtree_control; teardown takes it out again if the
	 * test put it there.
	 */
	self->root_dmem = !cg_has_controller(CGROUP_ROOT, "dmem");
	if (write_text(CGROUP_ROOT "/cgroup.subtree_control", "+dmem"))
		SKIP(return, "cannot enable dmem in %s", CGROUP_ROOT);
	/* A loaded vttm has registered the region: missing, it fails. */
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
	struct vttm_stats stats;

	ASSERT_EQ(0, get_stats(fd, &stats));
	return stats.bytes_evicted_from;
}

/*
 * The other client, charging @evictor_cg, fills VRAM around half of it
 * that @victim_cg charges, which is the least recently used; then a third
 * client in @evictor_cg needs half of VRAM. A job evicts no buffer of its
 * own client, so the third one's choice is between the two others.
 */
static void evict_around(struct __test_metadata *_metadata,
			 FIXTURE_DATA(dmem) * self, const char *victim_cg,
			 const char *evictor_cg)
{
	__u64 q = self->quarter;
	int third;

	ASSERT_EQ(0, cg_enter(evictor_cg));
	vram_job(_metadata, self->other_fd, q);
	ASSERT_EQ(0, cg_enter(victim_cg));
	vram_job(_metadata, self->fd, 2 * q);
	ASSERT_EQ(0, cg_enter(evictor_cg));
	vram_job(_metadata, self->other_fd, q);
	third = vttm_open(&self->dev);
	ASSERT_LE(0, third);
	vram_job(_metadata, third, 2 * q);
	close(third);
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
 * and another cgroup's buffer is older: those of another client in it, since
 * a job evicts none of its own client's.
 */
TEST_F_TIMEOUT(dmem, over_max_a_cgroup_evicts_only_its_own_buffers,
	       PRESSURE_TIMEOUT_S)
{
	__u64 q = self->quarter;
	int third;

	ASSERT_EQ(0, dmem_write(self->cg, "dmem.max", self->region, 2 * q));
	ASSERT_EQ(0, cg_enter(self->other));
	vram_job(_metadata, self->other_fd, q);
	ASSERT_EQ(0, cg_enter(self->cg));
	vram_job(_metadata, self->fd, q);
	vram_job(_metadata, self->fd, q);
	third = vttm_open(&self->dev);
	ASSERT_LE(0, third);
	vram_job(_metadata, third, q);
	EXPECT_EQ(q, evicted_from(_metadata, self->fd));
	EXPECT_EQ(0ULL, evicted_from(_metadata, self->other_fd));
	EXPECT_EQ(2 * q, dmem_value(self->cg, "dmem.current", self->region));
	close(third);
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

TEST_HARNESS_MAIN
