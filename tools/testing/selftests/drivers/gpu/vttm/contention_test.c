// SPDX-License-Identifier: GPL-2.0
/*
 * vttm: validation of concurrent jobs, with eviction locking through the
 * jobs' drm_exec.
 *
 * Every test skips when the vttm module is absent.
 */

#include "../../../kselftest_harness.h"

#include "vttm_util.h"

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

TEST_HARNESS_MAIN
