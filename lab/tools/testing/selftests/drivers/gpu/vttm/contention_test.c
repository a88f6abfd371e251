// SPDX-License-Identifier: GPL-2.0
/*
 * vttm: validation of concurrent jobs, with eviction locking through the
 * jobs' drm_exec.
 *
 * Every test skips when the vttm module is absent.
 */

#include "../../../kselftest_harness.h"

#include "vttm_util.h"

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

#define MSG_READY	'R'
#define MSG_GO		'G'

static int worker_fail(struct worker_error *e, int err, int line)
{
	e->err = err;
	e->line = line;
	return 1;
}

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
	struct vttm_stats stats;
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

/* The debugfs files of the lab's baseline, and their values there. */
static const char * const baseline_files[] = {
	"exec_eviction", "throttle_hard_ms", "throttle_soft_ms",
};

static const char * const baseline_values[] = { "N", "0", "0" };
/* Their defaults: exec eviction on, the throttle at vttm's parameters. */
static const char * const baseline_defaults[] = {
	NULL, VTTM_PARAMS "/throttle_hard_ms", VTTM_PARAMS "/throttle_soft_ms",
};

/* What to restore, in the test's process; teardown runs there too. */
static char baseline_path[ARRAY_SIZE(baseline_files)][PATH_MAX];
static char baseline_saved[ARRAY_SIZE(baseline_files)][32];

static void baseline_restore(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(baseline_files); i++)
		if (baseline_path[i][0])
			write_text(baseline_path[i], baseline_saved[i]);
}

FIXTURE(contention)
{
	struct vttm_dev dev;
	struct workers workers;
	struct churn_report *reports;
};

/*
 * A run killed on its timeout leaves the switches as it set them, which
 * no teardown undoes: put them back to their defaults first.
 */
static void baseline_reset(const struct vttm_dev *dev)
{
	char path[PATH_MAX], value[32];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(baseline_files); i++) {
		if (debugfs_file(dev, baseline_files[i], R_OK | W_OK, path,
				 sizeof(path)))
			continue;
		if (!baseline_defaults[i])
			write_text(path, "Y");
		else if (read_text(baseline_defaults[i], value,
				   sizeof(value)) > 0)
			write_text(path, value);
	}
}

FIXTURE_SETUP(contention)
{
	char why[128];
	int ret;

	ret = vttm_probe_min(&self->dev, MIN_VRAM_PAGES, why, sizeof(why));
	if (ret == -ENODEV)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("%s", why);
	baseline_reset(&self->dev);

	self->reports = shared_alloc(CHURN_CLIENTS * sizeof(*self->reports));
	ASSERT_NE(NULL, self->reports);
}

FIXTURE_TEARDOWN(contention)
{
	workers_kill(&self->workers);
	baseline_restore();
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
 * The lab's baseline: exec_eviction off, so that validation leaves the
 * job's drm_exec out of TTM's operation context as 7.3 does, and the
 * eviction throttle off. Lock contention while evicting then fails jobs
 * with -ENOMEM. How often depends on timing, so this only reports it, as
 * the figure the test above compares with, and checks what does not:
 * every failure is an -ENOMEM that the device counted as one.
 */
TEST_F_TIMEOUT(contention, without_exec_eviction_failed_jobs_are_reported,
	       CHURN_TIMEOUT_S)
{
	struct churn_report sum;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(baseline_files); i++) {
		char path[PATH_MAX];

		ret = debugfs_file(&self->dev, baseline_files[i], R_OK | W_OK,
				   path, sizeof(path));
		if (ret == -ENODEV)
			SKIP(return, "no %s/<minor> (debugfs)", DRI_DEBUGFS);
		ASSERT_EQ(0, ret) TH_LOG("%s: %s", path, strerror(-ret));
		ASSERT_LE(0, read_text(path, baseline_saved[i],
				       sizeof(baseline_saved[i])));
		strcpy(baseline_path[i], path);
	}
	for (i = 0; i < ARRAY_SIZE(baseline_files); i++)
		ASSERT_EQ(0, write_text(baseline_path[i], baseline_values[i]));
	run_churn(_metadata, &self->dev, &self->workers, self->reports, &sum);
	baseline_restore();
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
