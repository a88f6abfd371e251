// SPDX-License-Identifier: GPL-2.0
/*
 * vttm_bench - VRAM overcommit benchmark for the vttm test driver
 *
 * Scenarios
 * =========
 *
 * A scenario is a text file (scenarios/README has the format): clients,
 * their buffers with size, placements and residency level, each client's
 * loop of jobs, and the frames and phases to run. --replay FILE runs one;
 * without it, every scenarios/NAME.scenario beside this program runs, in
 * the order of their names. The shipped ones:
 *
 * game: a game that overcommits VRAM, with a compositor beside it. A hot
 *	set of render targets (V/2, level high) is used by every frame; a
 *	window of streamed textures (V/8, level minimum) moves through a
 *	pool, so the working set is 9/8 V, then 10/8 V in phase 2. The
 *	compositor (V/8) submits every millisecond without waiting.
 * pingpong: two applications, each with 5/8 of VRAM, taking turns, as
 *	two windows in front of each other do: what one loads evicts some
 *	of the other's. LRU order is already optimal here; no feature may
 *	make it worse.
 * levels: one client whose working set fits only if its large,
 *	rarely used buffers (level low) give way to its small hot ones.
 *
 * Sizes are fractions of the device's VRAM, V, read from
 * /sys/module/vttm/parameters/vram_size (or --vram-size), so a scenario
 * scales with the emulated device.
 *
 * The virtual clock
 * =================
 *
 * The bench runs a scenario in one process, on a clock of its own: a
 * job's duration is what the file says, whatever the machine. Each
 * client has a queue: a job starts when its predecessor ends, and a
 * job marked "wait" holds the client until it ends. A client with a
 * period starts a loop every period, skipping the ticks that find it
 * still waiting or its queue still running; one without starts its next
 * loop when the last one's waits are over. The bench submits every job
 * in the order of its virtual time (a tie goes to the client declared
 * first), so the same file submits the same jobs in the same order on
 * every run. The kernel sees real jobs, each as long as its time in the
 * client's queue. The bench never runs ahead of the virtual clock, and
 * may trail it: it is one process, so a "wait" holds every client until
 * the job has really ended (on a slow machine, all of them). What the
 * kernel decides depends on the order of the jobs, not on when they
 * run, but for what the virtual clock does not govern:
 *  - the eviction throttle's periods, which the kernel counts in
 *    wall-clock milliseconds, so that the throttle's modes can differ
 *    from run to run;
 *  - vttm's ping-pong count (a buffer back in VRAM within a second of
 *    its eviction, in jiffies);
 *  - a job's real duration, which only delays the bench.
 * --runs repeats each mode and prints the spread. Between modes the
 * bench waits until TTM's VRAM manager holds nothing (debugfs vram_mm),
 * not for a time.
 *
 * What is measured
 * ================
 *
 * A frame is one loop of the client the file names in its "frames"
 * line, from the start of that loop to the start of the next. Over a
 * frame, with deltas of every client's struct drm_vttm_stats:
 *
 *	migrated   = bytes_moved_to_vram + bytes_evicted_by, of all clients
 *	failed     = failed_submits, of all clients
 *	pingpongs  = pingpongs, of all clients
 *	gtt_used   = bytes_used_in_gtt, of all clients
 *	frame_time = the frame's virtual length
 *		     + (migrated + gtt_used) / link bandwidth
 *
 * The link bandwidth is 32 GB/s (PCIe 4.0 x16; --link-gbs). The formula
 * charges every migrated byte to the frame in full, with no overlap of
 * copies and rendering, and every use of a buffer that lies in GTT as a
 * read of all of it across the link: a job's buffer in GTT costs its size
 * over the link bandwidth, each time a job uses it. So leaving buffers in
 * GTT is not free.
 *
 * Each mode of modes[] runs the whole scenario with fresh clients and
 * fresh buffers: first the warm-up frames, which are not recorded, then
 * the phases. A mode sets the device's debugfs knobs: exec_eviction
 * (eviction locks its victims through the job's drm_exec),
 * residency_levels (the levels of the file reach TTM) and
 * throttle_hard_ms and throttle_soft_ms (the eviction throttle: vttm's
 * defaults, or 0 and 0 for none), and TTM's evict_window parameter
 * (a contiguous buffer evicts the cheapest range). baseline has all four
 * off, which is 7.3's eviction; exec, levels, throttle and window add one
 * feature each to exec; all has every one. Every mode validates as the
 * device's debugfs file validation says, xe's exec by default, or as
 * --validation sets it for the whole run; amdgpu's results are named
 * SCENARIO@amdgpu. The report gives, per phase and for all
 * recorded frames, per client and in all: migrated bytes per frame,
 * modelled frame time, ping-pongs and failed submits, and the ratio of
 * each figure to the first mode run, baseline by default. A mode whose
 * knobs cannot be written (no debugfs, or not root) is skipped, unless it
 * is what the device does as it loads (all). The knobs get back the
 * values they had at the start.
 *
 * The optimum
 * ===========
 *
 * Each run records the jobs it submitted and the kernel accepted, in
 * order. Belady's MIN replays them against VRAM: on a miss with VRAM
 * full, it evicts what is used again furthest in the future, never a
 * buffer of the job it is placing. Its migrated bytes, counted as the
 * bench counts them (bytes moved into VRAM plus bytes evicted), are
 * printed beside each mode's, per phase and per client, and in the CSV
 * per frame.
 *
 * With buffers of one size MIN is the optimum. With several, MIN runs on
 * units of their greatest common divisor: each buffer is that many units,
 * loaded and evicted together by any real policy, but one at a time by
 * MIN. Every policy on whole buffers is thus one on units, so MIN on
 * units loads no more than the best policy on buffers; and as any policy
 * evicts at least what it loads beyond VRAM's size, which is all MIN
 * evicts, MIN's total is a lower bound on the migration of the whole run,
 * not always reached. Only buffers that may live in VRAM alone enter the
 * trace: one that may also live in GTT can stay there and move nothing,
 * so leaving it out keeps the bound a bound. Failed jobs are left out, as
 * they need not have moved anything. The report's "whole run" line
 * compares each mode with that bound, over the same jobs from empty VRAM.
 * MIN on units may keep part of a buffer and ignores contiguity and
 * alignment, so a mode's multiple of it is at most its gap to the best
 * policy, not the gap itself. The whole-run multiple is the report's
 * headline; the split by phase and client is MIN's own schedule cut up,
 * not a bound per part: a policy may beat it in one phase by paying in
 * another, and a part where MIN moves nothing (all of a client's buffers
 * may live in GTT, say) gets absolute figures, not a multiple.
 *
 * No frame time of the optimum is given: MIN minimises migration over the
 * run, not any frame's time, and leaves GTT use out, so it bounds neither
 * a percentile nor the mean of the modelled frame time.
 *
 * Exit status: 0 done, 1 error, 2 bad usage or a bad scenario, 4 no vttm
 * device (SKIP).
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

/* The driver's private uAPI, found through the Makefile's include path. */
#include "vttm_uapi.h"
#include "vttm_scenario.h"

#define PFX		"vttm-bench: "
#define CSV_PFX		"vttm-bench-csv: "
#define CSV_HEADER \
	"scenario,mode,run,phase,frame,migrated_bytes,frame_time_us,failed," \
	"pingpongs,optimum_bytes,gtt_used_bytes"
#define VRAM_PARAM	"/sys/module/vttm/parameters/vram_size"
#define TTM_PARAMS	"/sys/module/ttm/parameters"
#define VTTM_PARAMS	"/sys/module/vttm/parameters"
#define DRI_DEBUGFS	"/sys/kernel/debug/dri"
#define SCENARIO_DIR	"scenarios"
#define SCENARIO_SFX	".scenario"

#define EXIT_ERROR	1
#define EXIT_USAGE	2
#define EXIT_SKIP	4

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL
#define MIB		(1024.0 * 1024.0)

#define SHORT_FRAMES		20
#define SHORT_WARMUP		2
#define DEF_LINK_GBS		32.0

/* A job runs for milliseconds; a wait this long means a hung device. */
#define WAIT_TIMEOUT_NS		(10 * NSEC_PER_SEC)
/* Without debugfs, a pause between runs, so the last run's buffers go. */
#define SETTLE_NS		(200 * NSEC_PER_MSEC)
#define SETTLE_POLL_NS		NSEC_PER_MSEC

#define MAX_RUN_MODES		16
#define MAX_SCENARIOS		16
#define MAX_RUNS		9

/* Most units the optimum splits the buffers into. */
#define OPT_MAX_UNITS		16384

/* A multiple of the optimum that the game's phases should stay within. */
#define GOAL_X_OPT		1.5

/*
 * The modes to compare: a name (no commas: it goes into the CSV) and the
 * features on, each one of the device's debugfs knobs. --modes picks and
 * orders them; the first mode run is the reference for ratios.
 */
struct bench_mode {
	const char *name;
	bool exec_eviction;
	bool levels;
	bool throttle;
	bool window;
	const char *desc;
};

static const struct bench_mode modes[] = {
	{ "baseline", false, false, false, false,
	  "7.3's eviction: none of the features below" },
	{ "exec", true, false, false, false,
	  "eviction locks its victims through the job's drm_exec" },
	{ "levels", true, true, false, false,
	  "exec, and the scenario's residency levels reach TTM" },
	{ "throttle", true, false, true, false,
	  "exec, and the eviction throttle with vttm's default periods" },
	{ "window", true, false, false, true,
	  "exec, and a contiguous buffer evicts the cheapest range" },
	{ "all", true, true, true, true,
	  "every feature, as the device loads" },
};

/* The device's knobs, in its debugfs directory, and one of TTM's. */
enum knob {
	K_EXEC,
	K_LEVELS,
	K_HARD,
	K_SOFT,
	K_WINDOW,
	K_VALIDATION,
	K_COUNT
};

static const char * const knob_names[K_COUNT] = {
	[K_EXEC] = "exec_eviction",
	[K_LEVELS] = "residency_levels",
	[K_HARD] = "throttle_hard_ms",
	[K_SOFT] = "throttle_soft_ms",
	[K_WINDOW] = "evict_window",
	[K_VALIDATION] = "validation",
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define N_MODES		ARRAY_SIZE(modes)

struct config {
	const char *device;
	char knobs[K_COUNT][128];
	/* The knobs' values as found, restored at the end. */
	char saved[K_COUNT][16];
	/* What the throttle knobs take for "on": vttm's defaults. */
	char throttle_on[K_COUNT][16];
	__u64 vram_size;
	/* 0: as the scenario says; else every phase's frames. */
	unsigned int frames;
	/* -1: as the scenario says. */
	int warmup;
	unsigned int runs;
	double link_bps;
	const char *csv_path;
	bool csv_stdout;
	bool check_only;
	/* The device's validation for the whole run, or NULL: as found. */
	const char *validation;
	unsigned int n_modes;
	const struct bench_mode *modes[MAX_RUN_MODES];
	unsigned int n_files;
	char *files[MAX_SCENARIOS];
	/* The files' names were allocated, not taken from argv. */
	bool own_files;
};

/* One recorded frame, with every client's stats deltas over it. */
struct frame_rec {
	unsigned int phase;
	unsigned int frame;
	__u64 wall_ns;
	/* The frame's length on the virtual clock. */
	__u64 virt_ns;
	struct drm_vttm_stats st[SCN_MAX_CLIENTS];
	/* The optimum's migrated bytes in this frame, per client. */
	__u64 opt[SCN_MAX_CLIENTS];
};

/* One run of a scenario in one mode. */
struct mode_run {
	const struct bench_mode *mode;
	bool supported;
	/* False when the trace could not be replayed; the run says why. */
	bool has_opt;
	unsigned int n_frames;
	struct frame_rec *frames;
	/* Migrated over the whole run, by the mode and by the optimum. */
	__u64 run_migrated;
	__u64 run_optimum;
	/* What the bench saw, per client, to check against the kernel's. */
	__u64 jobs[SCN_MAX_CLIENTS];
	__u64 failed[SCN_MAX_CLIENTS];
	__u64 missed_ticks[SCN_MAX_CLIENTS];
	__u64 elapsed_ms;
};

/* The accepted jobs of a run, in order, for the optimum. */
struct job_trace {
	unsigned int n_jobs;
	unsigned int cap_jobs;
	/* Job j's buffers: bos[start[j]] to bos[start[j + 1] - 1]. */
	unsigned int *start;
	unsigned int *bos;
	unsigned int cap_bos;
	/* The frame (from 0, warm-up included) and client of each job. */
	unsigned int *frame;
	unsigned char *client;
};

/* A client of a running scenario, on the virtual clock. */
struct client_run {
	int fd;
	/* When it submits its next job. */
	__u64 t;
	/* When its last job ends. */
	__u64 queue_end;
	__u64 loop_start;
	unsigned int loop;
	/* Its next job in its loop. */
	unsigned int job;
};

/* One run of a scenario: the clients, the buffers, the frame being run. */
struct engine {
	const struct config *cfg;
	const struct scenario *s;
	struct mode_run *run;
	struct client_run cl[SCN_MAX_CLIENTS];
	/* Each buffer's handle, once created. */
	__u32 *handles;
	unsigned int phase;
	unsigned int frame;
	unsigned int total_frames;
	__u64 wall_start;
	__u64 frame_wall;
	__u64 frame_virt;
	struct drm_vttm_stats last[SCN_MAX_CLIENTS];
	struct job_trace trace;
	/* Scratch for one job. */
	unsigned int idx[VTTM_SUBMIT_MAX_BOS];
	__u32 job_handles[VTTM_SUBMIT_MAX_BOS];
};

/*
 * Belady's MIN over units. Job j needs the units units[start[j]] to
 * units[start[j + 1] - 1] in VRAM at once, each of them once; @cap units
 * fit. The arrays below are its state.
 */
struct belady {
	unsigned int n_units;
	unsigned int cap;
	/* Unit u's jobs, in order: occ[occ_start[u]] to occ[occ_start[u+1]-1]. */
	unsigned int *occ_start;
	unsigned int *occ;
	/* Where unit u's next use after the current job is in occ. */
	unsigned int *next;
	/* The last job that needed unit u. */
	unsigned int *stamp;
	bool *resident;
};

static void bench_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs(PFX, stdout);
	vfprintf(stdout, fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
}

static void bench_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	fputs(PFX "error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static struct timespec ns_to_ts(__u64 ns)
{
	struct timespec ts = {
		.tv_sec = ns / NSEC_PER_SEC,
		.tv_nsec = ns % NSEC_PER_SEC,
	};

	return ts;
}

static void sleep_ns(__u64 ns)
{
	struct timespec ts = ns_to_ts(ns);

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		continue;
}

/* ioctl() that retries when interrupted; returns 0 or -errno. */
static int vttm_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && errno == EINTR);

	return ret == -1 ? -errno : 0;
}

static int vttm_bo_create(int fd, __u64 size, __u32 placements,
			  __u32 flags, __u32 *handle)
{
	struct drm_vttm_bo_create req = {
		.size = size,
		.placements = placements,
		.flags = flags,
	};
	int ret;

	ret = vttm_ioctl(fd, DRM_IOCTL_VTTM_BO_CREATE, &req);
	if (!ret)
		*handle = req.handle;
	return ret;
}

/*
 * Submit a job. Not retried when interrupted: the kernel counts a failed
 * job in its stats, so the benchmark counts it as well.
 */
static int vttm_submit(int fd, const __u32 *handles, unsigned int count,
		       __u64 duration_ns)
{
	struct drm_vttm_submit req = {
		.handles = (__u64)(unsigned long)handles,
		.count = count,
		.duration_ns = duration_ns,
	};

	return ioctl(fd, DRM_IOCTL_VTTM_SUBMIT, &req) == -1 ? -errno : 0;
}

/* The errors that fail a job the kernel counts; any other is a bug. */
static bool job_failure(int ret)
{
	return ret == -ENOMEM || ret == -EINTR;
}

static int vttm_wait(int fd, __u32 handle)
{
	struct drm_vttm_wait req = {
		.handle = handle,
		.timeout_ns = WAIT_TIMEOUT_NS,
	};

	return vttm_ioctl(fd, DRM_IOCTL_VTTM_WAIT, &req);
}

static int vttm_stats(int fd, struct drm_vttm_stats *st)
{
	memset(st, 0, sizeof(*st));
	return vttm_ioctl(fd, DRM_IOCTL_VTTM_STATS, st);
}

static void stats_sub(struct drm_vttm_stats *d,
		      const struct drm_vttm_stats *a,
		      const struct drm_vttm_stats *b)
{
	unsigned int i;

	d->submits = a->submits - b->submits;
	d->failed_submits = a->failed_submits - b->failed_submits;
	d->failed_enomem = a->failed_enomem - b->failed_enomem;
	d->failed_other = a->failed_other - b->failed_other;
	d->backoffs = a->backoffs - b->backoffs;
	d->bytes_moved_to_vram = a->bytes_moved_to_vram -
				 b->bytes_moved_to_vram;
	d->bytes_evicted_by = a->bytes_evicted_by - b->bytes_evicted_by;
	d->bytes_evicted_from = a->bytes_evicted_from - b->bytes_evicted_from;
	d->evictions = a->evictions - b->evictions;
	d->pingpongs = a->pingpongs - b->pingpongs;
	for (i = 0; i < VTTM_NUM_RESIDENCY; i++)
		d->bytes_evicted_from_level[i] = a->bytes_evicted_from_level[i] -
						 b->bytes_evicted_from_level[i];
	d->bytes_used_in_gtt = a->bytes_used_in_gtt - b->bytes_used_in_gtt;
}

static __u64 stats_migrated(const struct drm_vttm_stats *st)
{
	return st->bytes_moved_to_vram + st->bytes_evicted_by;
}

/* Open a new client; returns an fd or -errno. */
static int open_client(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * Find the device's debugfs knobs through its minor, and vttm's default
 * throttle periods. Leaves a knob's path empty if it cannot be written.
 */
static void find_knobs(struct config *cfg)
{
	struct stat st;
	unsigned int k;

	for (k = 0; k < K_COUNT; k++) {
		cfg->knobs[k][0] = '\0';
		if (stat(cfg->device, &st))
			continue;
		if (k == K_WINDOW)
			snprintf(cfg->knobs[k], sizeof(cfg->knobs[k]), "%s/%s",
				 TTM_PARAMS, knob_names[k]);
		else
			snprintf(cfg->knobs[k], sizeof(cfg->knobs[k]),
				 "%s/%u/%s", DRI_DEBUGFS, minor(st.st_rdev),
				 knob_names[k]);
		if (access(cfg->knobs[k], W_OK) ||
		    read_small(cfg->knobs[k], cfg->saved[k],
			       sizeof(cfg->saved[k])))
			cfg->knobs[k][0] = '\0';
	}
	if (read_small(VTTM_PARAMS "/throttle_hard_ms", cfg->throttle_on[K_HARD],
		       sizeof(cfg->throttle_on[K_HARD])) ||
	    read_small(VTTM_PARAMS "/throttle_soft_ms", cfg->throttle_on[K_SOFT],
		       sizeof(cfg->throttle_on[K_SOFT]))) {
		cfg->knobs[K_HARD][0] = '\0';
		cfg->knobs[K_SOFT][0] = '\0';
	}
}

static int write_knob(const struct config *cfg, enum knob k, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd;

	if (!cfg->knobs[k][0])
		return -ENOENT;
	fd = open(cfg->knobs[k], O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/*
 * Wait until the last run's buffers have left VRAM: TTM's usage of the
 * VRAM manager, in the device's debugfs file vram_mm, is 0. Without
 * debugfs, pause SETTLE_NS instead. A device that never frees is hung.
 */
static int settle(const struct config *cfg)
{
	char path[PATH_MAX], buf[8192], *at;
	unsigned long long usage;
	struct stat st;
	__u64 start = now_ns();
	ssize_t n;
	int fd;

	if (stat(cfg->device, &st))
		return -errno;
	snprintf(path, sizeof(path), "%s/%u/vram_mm", DRI_DEBUGFS,
		 minor(st.st_rdev));
	for (;;) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			sleep_ns(SETTLE_NS);
			return 0;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return -EIO;
		buf[n] = '\0';
		at = strstr(buf, "usage: ");
		if (!at || sscanf(at, "usage: %llu", &usage) != 1)
			return -EIO;
		if (!usage)
			return 0;
		if (now_ns() - start > WAIT_TIMEOUT_NS)
			return -ETIMEDOUT;
		sleep_ns(SETTLE_POLL_NS);
	}
}

/* Put back the values the knobs had when the benchmark started. */
static int restore_knobs(const struct config *cfg)
{
	unsigned int k;
	int ret = 0;

	for (k = 0; k < K_COUNT; k++)
		if (cfg->knobs[k][0] && write_knob(cfg, k, cfg->saved[k]))
			ret = -EIO;
	return ret;
}

/* Set the knobs for @mode; returns 0 or -errno. */
static int set_knobs(const struct config *cfg, const struct bench_mode *mode)
{
	const char *hard = mode->throttle ? cfg->throttle_on[K_HARD] : "0";
	const char *soft = mode->throttle ? cfg->throttle_on[K_SOFT] : "0";
	int ret;

	ret = write_knob(cfg, K_EXEC, mode->exec_eviction ? "Y" : "N");
	if (!ret)
		ret = write_knob(cfg, K_LEVELS, mode->levels ? "Y" : "N");
	if (!ret)
		ret = write_knob(cfg, K_HARD, hard);
	if (!ret)
		ret = write_knob(cfg, K_SOFT, soft);
	if (!ret)
		ret = write_knob(cfg, K_WINDOW, mode->window ? "Y" : "N");
	return ret;
}

/* Returns 0 if @path is a vttm device, filling @ver, or -errno. */
static int probe_device(const char *path, struct drm_version *ver)
{
	static char name[32];
	int fd, ret;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	memset(name, 0, sizeof(name));
	memset(ver, 0, sizeof(*ver));
	ver->name = name;
	ver->name_len = sizeof(name) - 1;
	ret = vttm_ioctl(fd, DRM_IOCTL_VERSION, ver);
	close(fd);
	if (ret)
		return ret;

	if (ver->name_len != strlen("vttm") || memcmp(name, "vttm", 4))
		return -ENODEV;
	return 0;
}

/* The first vttm node in /dev/dri, render nodes before card nodes. */
static bool find_device(char *path, size_t len, struct drm_version *ver)
{
	static const char * const prefixes[] = { "render", "card" };
	struct dirent *de;
	unsigned int i;
	DIR *dir;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		dir = opendir("/dev/dri");
		if (!dir)
			return false;
		while ((de = readdir(dir))) {
			if (strncmp(de->d_name, prefixes[i],
				    strlen(prefixes[i])))
				continue;
			snprintf(path, len, "/dev/dri/%.20s", de->d_name);
			if (!probe_device(path, ver)) {
				closedir(dir);
				return true;
			}
		}
		closedir(dir);
	}
	return false;
}

/* Parse a size in bytes, with an optional K, M or G suffix. */
static bool parse_size(const char *s, __u64 *size)
{
	unsigned int shift = 0;
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return false;

	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	}
	if (shift) {
		if (v > ~0ULL >> shift)
			return false;
		v <<= shift;
		end++;
	}
	while (*end == '\n' || *end == ' ')
		end++;
	if (*end)
		return false;

	*size = v;
	return true;
}

static bool parse_uint(const char *s, unsigned int *val)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > 1000000000UL || *s == '-')
		return false;

	*val = v;
	return true;
}

static int read_vram_param(__u64 *size)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = open(VRAM_PARAM, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';

	return parse_size(buf, size) ? 0 : -EINVAL;
}

static int vttm_set_residency(int fd, __u32 handle, __u32 level)
{
	struct drm_vttm_bo_residency req = {
		.handle = handle,
		.level = level,
	};

	return vttm_ioctl(fd, DRM_IOCTL_VTTM_BO_SET_RESIDENCY, &req);
}

static void belady_free(struct belady *b)
{
	free(b->occ_start);
	free(b->occ);
	free(b->next);
	free(b->stamp);
	free(b->resident);
}

static int belady_init(struct belady *b, unsigned int n_units,
		       unsigned int cap, unsigned int n_jobs,
		       const unsigned int *start, const unsigned int *units)
{
	unsigned int j, k, u, n_acc = start[n_jobs];

	b->n_units = n_units;
	b->cap = cap;
	b->occ_start = calloc(n_units + 1, sizeof(*b->occ_start));
	b->occ = calloc(n_acc + 1, sizeof(*b->occ));
	b->next = calloc(n_units, sizeof(*b->next));
	b->stamp = calloc(n_units, sizeof(*b->stamp));
	b->resident = calloc(n_units, sizeof(*b->resident));
	if (!b->occ_start || !b->occ || !b->next || !b->stamp ||
	    !b->resident) {
		belady_free(b);
		return -ENOMEM;
	}

	for (k = 0; k < n_acc; k++)
		b->occ_start[units[k] + 1]++;
	for (u = 0; u < n_units; u++)
		b->occ_start[u + 1] += b->occ_start[u];
	memcpy(b->next, b->occ_start, n_units * sizeof(*b->next));
	for (j = 0; j < n_jobs; j++)
		for (k = start[j]; k < start[j + 1]; k++)
			b->occ[b->next[units[k]]++] = j;
	memcpy(b->next, b->occ_start, n_units * sizeof(*b->next));
	memset(b->stamp, 0xff, n_units * sizeof(*b->stamp));
	return 0;
}

/* The job that needs unit @u next, or UINT_MAX if none does. */
static unsigned int belady_next_use(const struct belady *b, unsigned int u)
{
	return b->next[u] < b->occ_start[u + 1] ? b->occ[b->next[u]] :
						  UINT_MAX;
}

/* The resident unit, outside job @j, needed again last; n_units if none. */
static unsigned int belady_victim(const struct belady *b, unsigned int j)
{
	unsigned int v, use, best = b->n_units, best_use = 0;

	for (v = 0; v < b->n_units; v++) {
		if (!b->resident[v] || b->stamp[v] == j)
			continue;
		use = belady_next_use(b, v);
		if (best == b->n_units || use > best_use) {
			best = v;
			best_use = use;
		}
		if (use == UINT_MAX)
			break;
	}
	return best;
}

/*
 * Replays @n_jobs jobs; sets loaded[j] and evicted[j] to the units job j
 * moves into VRAM and out of it. Returns 0, -E2BIG if a job needs more
 * than @cap units, or -ENOMEM.
 */
static int belady_min(unsigned int n_units, unsigned int cap,
		      unsigned int n_jobs, const unsigned int *start,
		      const unsigned int *units, unsigned int *loaded,
		      unsigned int *evicted)
{
	unsigned int j, k, u, v, n_res = 0;
	struct belady b;
	int ret;

	ret = belady_init(&b, n_units, cap, n_jobs, start, units);
	if (ret)
		return ret;

	for (j = 0; j < n_jobs; j++) {
		loaded[j] = 0;
		evicted[j] = 0;
		for (k = start[j]; k < start[j + 1]; k++) {
			b.stamp[units[k]] = j;
			b.next[units[k]]++;
		}
		for (k = start[j]; k < start[j + 1]; k++) {
			u = units[k];
			if (b.resident[u])
				continue;
			if (n_res == cap) {
				v = belady_victim(&b, j);
				if (v == n_units) {
					ret = -E2BIG;
					goto out;
				}
				b.resident[v] = false;
				n_res--;
				evicted[j]++;
			}
			b.resident[u] = true;
			n_res++;
			loaded[j]++;
		}
	}
out:
	belady_free(&b);
	return ret;
}

static __u64 gcd_u64(__u64 a, __u64 b)
{
	while (b) {
		__u64 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of @n sorted values. */
static double percentile(const double *v, unsigned int n, unsigned int p)
{
	unsigned int rank;

	if (!n)
		return 0;
	rank = (p * n + 99) / 100;
	return v[rank ? rank - 1 : 0];
}

/* Sort @v and take its percentile; a helper for summarize(). */
static double sorted_pct(double *v, unsigned int n, unsigned int p)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return percentile(v, n, p);
}

static void format_ratio(char *buf, size_t len, double v, double ref)
{
	if (!isfinite(v) || !isfinite(ref))
		snprintf(buf, len, "-");
	else if (ref != 0)
		snprintf(buf, len, "%.2f", v / ref);
	else if (v != 0)
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "-");
}

static void print_modes(FILE *f)
{
	unsigned int i;

	for (i = 0; i < N_MODES; i++)
		fprintf(f, "  %-10s %s\n", modes[i].name, modes[i].desc);
}

static bool parse_modes(struct config *cfg, const char *arg)
{
	char *copy, *p, *name;
	unsigned int i;
	bool ok = true;

	copy = strdup(arg);
	if (!copy)
		return false;

	cfg->n_modes = 0;
	p = copy;
	while (ok && (name = strsep(&p, ",")) != NULL) {
		for (i = 0; i < N_MODES; i++)
			if (!strcmp(name, modes[i].name))
				break;
		if (i == N_MODES || cfg->n_modes == MAX_RUN_MODES) {
			fprintf(stderr, PFX "unknown or too many modes: %s\n",
				name);
			ok = false;
		} else {
			cfg->modes[cfg->n_modes++] = &modes[i];
		}
	}
	free(copy);
	return ok && cfg->n_modes;
}

static void trace_free(struct job_trace *t)
{
	free(t->start);
	free(t->bos);
	free(t->frame);
	free(t->client);
	memset(t, 0, sizeof(*t));
}

/* Makes room for one more job of @n buffers. */
static int trace_reserve(struct job_trace *t, unsigned int n)
{
	unsigned int need = (t->n_jobs ? t->start[t->n_jobs] : 0) + n;
	void *p;

	if (t->n_jobs + 2 > t->cap_jobs) {
		t->cap_jobs = t->cap_jobs ? 2 * t->cap_jobs : 1024;
		p = realloc(t->start, t->cap_jobs * sizeof(*t->start));
		if (!p)
			return -ENOMEM;
		t->start = p;
		p = realloc(t->frame, t->cap_jobs * sizeof(*t->frame));
		if (!p)
			return -ENOMEM;
		t->frame = p;
		p = realloc(t->client, t->cap_jobs * sizeof(*t->client));
		if (!p)
			return -ENOMEM;
		t->client = p;
	}
	if (need > t->cap_bos) {
		while (need > t->cap_bos)
			t->cap_bos = t->cap_bos ? 2 * t->cap_bos : 16384;
		p = realloc(t->bos, t->cap_bos * sizeof(*t->bos));
		if (!p)
			return -ENOMEM;
		t->bos = p;
	}
	return 0;
}

/* Records an accepted job: buffers @idx of the scenario. */
static int trace_add(struct job_trace *t, unsigned int frame,
		     unsigned int client, const unsigned int *idx,
		     unsigned int n)
{
	unsigned int j = t->n_jobs;
	int ret;

	ret = trace_reserve(t, n);
	if (ret)
		return ret;
	if (!j)
		t->start[0] = 0;
	memcpy(t->bos + t->start[j], idx, n * sizeof(*idx));
	t->start[j + 1] = t->start[j] + n;
	t->frame[j] = frame;
	t->client[j] = client;
	t->n_jobs++;
	return 0;
}

/* Creates the buffers of phases up to @phase that do not exist yet. */
static int engine_enter_phase(struct engine *e, unsigned int phase)
{
	const struct scenario *s = e->s;
	const struct scn_bo *bo;
	unsigned int i;
	int fd, ret;

	for (i = 0; i < s->n_bos; i++) {
		bo = &s->bos[i];
		if (e->handles[i] || bo->phase > phase)
			continue;
		fd = e->cl[s->groups[bo->group].client].fd;
		ret = vttm_bo_create(fd, bo->size, bo->placements, bo->flags,
				     &e->handles[i]);
		if (!ret)
			ret = vttm_set_residency(fd, e->handles[i], bo->level);
		if (ret) {
			bench_err("%s: group %s: BO_CREATE: %s", s->name,
				  s->groups[bo->group].name, strerror(-ret));
			return ret;
		}
	}
	e->phase = phase;
	return 0;
}

static int engine_read_stats(struct engine *e, struct drm_vttm_stats *st)
{
	unsigned int c;
	int ret;

	for (c = 0; c < e->s->n_clients; c++) {
		ret = vttm_stats(e->cl[c].fd, &st[c]);
		if (ret) {
			bench_err("STATS: %s", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* Ends the current frame: records it unless it is a warm-up frame. */
static int engine_end_frame(struct engine *e)
{
	const struct scenario *s = e->s;
	struct drm_vttm_stats now[SCN_MAX_CLIENTS];
	struct frame_rec *rec;
	unsigned int c;
	int ret;

	ret = engine_read_stats(e, now);
	if (ret)
		return ret;
	if (e->phase) {
		rec = &e->run->frames[e->run->n_frames++];
		rec->phase = e->phase;
		rec->frame = e->frame - s->phases[0].frames;
		rec->wall_ns = now_ns() - e->frame_wall;
		rec->virt_ns = e->cl[s->frame_client].t - e->frame_virt;
		for (c = 0; c < s->n_clients; c++)
			stats_sub(&rec->st[c], &now[c], &e->last[c]);
	}
	memcpy(e->last, now, sizeof(now));
	return 0;
}

/* Starts the next frame; returns 1 when the run is over. */
static int engine_next_frame(struct engine *e)
{
	unsigned int phase;
	int ret;

	ret = engine_end_frame(e);
	if (ret)
		return ret;
	if (++e->frame == e->total_frames)
		return 1;
	phase = scn_frame_phase(e->s, e->frame);
	if (phase != e->phase) {
		ret = engine_enter_phase(e, phase);
		if (ret)
			return ret;
	}
	e->frame_wall = now_ns();
	e->frame_virt = e->cl[e->s->frame_client].t;
	return 0;
}

/* The client whose next job comes first; ties go to the first declared. */
static unsigned int engine_next_client(const struct engine *e)
{
	unsigned int c, best = 0;

	for (c = 1; c < e->s->n_clients; c++)
		if (e->cl[c].t < e->cl[best].t)
			best = c;
	return best;
}

/* Waits, as the virtual clock says, for the client's job to end. */
static int engine_wait(struct engine *e, struct client_run *cl,
		       unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = vttm_wait(cl->fd, e->job_handles[i]);
		if (ret) {
			bench_err("WAIT: %s", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* Counts and traces a job the kernel took; waits for it if it says so. */
static int engine_accepted(struct engine *e, unsigned int c,
			   const struct scn_job *job, unsigned int n)
{
	int ret;

	e->run->jobs[c]++;
	ret = trace_add(&e->trace, e->frame, c, e->idx, n);
	if (!ret && job->wait)
		ret = engine_wait(e, &e->cl[c], n);
	return ret;
}

/* Moves a client past the end of a loop to the start of its next one. */
static void engine_end_loop(struct engine *e, unsigned int c)
{
	const struct scn_client *sc = &e->s->clients[c];
	struct client_run *cl = &e->cl[c];
	__u64 next = cl->loop_start + sc->period_ns;

	cl->job = 0;
	cl->loop++;
	if (sc->period_ns) {
		/* A tick while the client still waits or its queue still runs. */
		while (next < cl->t || next < cl->queue_end) {
			next += sc->period_ns;
			e->run->missed_ticks[c]++;
		}
		cl->t = next;
	}
	cl->loop_start = cl->t;
}

/* Submits client @c's next job at its virtual time. */
static int engine_submit(struct engine *e, unsigned int c)
{
	const struct scenario *s = e->s;
	const struct scn_client *sc = &s->clients[c];
	const struct scn_job *job = &s->jobs[sc->first_job + e->cl[c].job];
	struct client_run *cl = &e->cl[c];
	__u64 start, end, wall;
	unsigned int i, n;
	int ret;

	n = scn_job_bos(s, job, cl->loop, e->phase, e->idx);
	for (i = 0; i < n; i++)
		e->job_handles[i] = e->handles[e->idx[i]];
	start = cl->t > cl->queue_end ? cl->t : cl->queue_end;
	end = start + job->duration_ns;
	if (end - cl->t > VTTM_SUBMIT_MAX_NS) {
		bench_err("%s: client %s: its queue is over %llu ms long",
			  s->name, sc->name, VTTM_SUBMIT_MAX_NS / NSEC_PER_MSEC);
		return -E2BIG;
	}

	/* Never ahead of the virtual clock, so the kernel's timers agree. */
	wall = now_ns() - e->wall_start;
	if (wall < cl->t)
		sleep_ns(cl->t - wall);

	ret = vttm_submit(cl->fd, e->job_handles, n, end - cl->t);
	if (job_failure(ret)) {
		e->run->failed[c]++;
		ret = 0;
	} else if (ret) {
		bench_err("%s: client %s: SUBMIT: %s", s->name, sc->name,
			  strerror(-ret));
	} else {
		ret = engine_accepted(e, c, job, n);
	}
	if (ret)
		return ret;
	cl->queue_end = end;
	if (job->wait)
		cl->t = end;
	if (++cl->job == sc->n_jobs)
		engine_end_loop(e, c);
	return 0;
}

/* Runs the scenario's frames: the event loop of the virtual clock. */
static int engine_loop(struct engine *e)
{
	unsigned int fc = e->s->frame_client, c;
	int ret;

	ret = engine_read_stats(e, e->last);
	if (ret)
		return ret;
	e->wall_start = now_ns();
	e->frame_wall = e->wall_start;
	for (;;) {
		c = engine_next_client(e);
		if (c == fc && !e->cl[c].job && e->cl[c].loop) {
			ret = engine_next_frame(e);
			if (ret)
				return ret > 0 ? 0 : ret;
		}
		ret = engine_submit(e, c);
		if (ret)
			return ret;
	}
}

/* Waits for every buffer of every client to be idle. */
static int engine_idle(struct engine *e)
{
	const struct scenario *s = e->s;
	unsigned int i;
	int ret;

	for (i = 0; i < s->n_bos; i++) {
		if (!e->handles[i])
			continue;
		ret = vttm_wait(e->cl[s->groups[s->bos[i].group].client].fd,
				e->handles[i]);
		if (ret) {
			bench_err("WAIT: %s", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* The unit size of the optimum, and each VRAM-only buffer's first unit. */
static __u64 opt_units(const struct scenario *s, unsigned int *first,
		       unsigned int *n_units)
{
	__u64 unit = 0, n = 0;
	unsigned int i;

	for (i = 0; i < s->n_bos; i++)
		if (s->bos[i].placements == VTTM_PLACE_VRAM)
			unit = gcd_u64(unit, s->bos[i].size);
	for (i = 0; i < s->n_bos && unit; i++) {
		first[i] = n;
		if (s->bos[i].placements == VTTM_PLACE_VRAM)
			n += s->bos[i].size / unit;
	}
	*n_units = n;
	return n > OPT_MAX_UNITS ? 0 : unit;
}

/* The trace as units of @unit: VRAM-only buffers only. */
static int opt_units_trace(const struct scenario *s,
			   const struct job_trace *t, __u64 unit,
			   const unsigned int *first, unsigned int *start,
			   unsigned int **units)
{
	unsigned int j, k, u, n = 0, b;
	size_t total = 0;

	for (k = 0; k < (t->n_jobs ? t->start[t->n_jobs] : 0); k++)
		if (s->bos[t->bos[k]].placements == VTTM_PLACE_VRAM)
			total += s->bos[t->bos[k]].size / unit;
	*units = calloc(total + 1, sizeof(**units));
	if (!*units)
		return -ENOMEM;
	for (j = 0; j < t->n_jobs; j++) {
		start[j] = n;
		for (k = t->start[j]; k < t->start[j + 1]; k++) {
			b = t->bos[k];
			if (s->bos[b].placements != VTTM_PLACE_VRAM)
				continue;
			for (u = 0; u < s->bos[b].size / unit; u++)
				(*units)[n++] = first[b] + u;
		}
	}
	start[t->n_jobs] = n;
	return 0;
}

/*
 * Replays the run's trace with MIN and counts what it migrates in all,
 * and per recorded frame and client. Leaves has_opt false, and says why,
 * when the trace cannot be replayed.
 */
static int run_optimum(const struct config *cfg, const struct scenario *s,
		       struct mode_run *run, const struct job_trace *t)
{
	unsigned int *first, *start = NULL, *units = NULL;
	unsigned int *loaded = NULL, *evicted = NULL;
	unsigned int j, n_units = 0, warm = s->phases[0].frames;
	__u64 unit, bytes;
	int ret = -ENOMEM;

	first = calloc(s->n_bos + 1, sizeof(*first));
	if (!first)
		return -ENOMEM;
	unit = opt_units(s, first, &n_units);
	if (!unit) {
		bench_info("%s: mode %s: no optimum: %s", s->name,
			   run->mode->name, n_units ?
			   "buffer sizes share no large unit" :
			   "no buffer is VRAM-only");
		free(first);
		return 0;
	}
	start = calloc(t->n_jobs + 1, sizeof(*start));
	loaded = calloc(t->n_jobs + 1, sizeof(*loaded));
	evicted = calloc(t->n_jobs + 1, sizeof(*evicted));
	if (!start || !loaded || !evicted)
		goto out;
	ret = opt_units_trace(s, t, unit, first, start, &units);
	if (ret)
		goto out;
	ret = belady_min(n_units, (cfg->vram_size + unit - 1) / unit,
			 t->n_jobs, start, units, loaded, evicted);
	if (ret == -E2BIG) {
		bench_info("%s: mode %s: no optimum: a job exceeds VRAM",
			   s->name, run->mode->name);
		ret = 0;
		goto out;
	}
	if (ret)
		goto out;

	for (j = 0; j < t->n_jobs; j++) {
		bytes = (__u64)(loaded[j] + evicted[j]) * unit;
		run->run_optimum += bytes;
		if (t->frame[j] >= warm && t->frame[j] - warm < run->n_frames)
			run->frames[t->frame[j] - warm].opt[t->client[j]] +=
				bytes;
	}
	run->has_opt = true;
out:
	free(first);
	free(start);
	free(units);
	free(loaded);
	free(evicted);
	return ret;
}

static int engine_open(struct engine *e)
{
	unsigned int c;

	for (c = 0; c < e->s->n_clients; c++) {
		e->cl[c].fd = open_client(e->cfg->device);
		if (e->cl[c].fd < 0) {
			bench_err("open %s: %s", e->cfg->device,
				  strerror(-e->cl[c].fd));
			return e->cl[c].fd;
		}
	}
	return 0;
}

static void engine_close(struct engine *e)
{
	unsigned int c;

	for (c = 0; c < e->s->n_clients; c++)
		if (e->cl[c].fd >= 0)
			close(e->cl[c].fd);
	free(e->handles);
	trace_free(&e->trace);
}

/*
 * Whole-run migration: fresh clients, so their stats cover the run. The
 * kernel's count of jobs must be the bench's.
 */
static int engine_run_totals(struct engine *e)
{
	struct drm_vttm_stats st[SCN_MAX_CLIENTS];
	struct mode_run *run = e->run;
	unsigned int c;
	int ret;

	ret = engine_read_stats(e, st);
	for (c = 0; !ret && c < e->s->n_clients; c++) {
		run->run_migrated += stats_migrated(&st[c]);
		if (st[c].submits != run->jobs[c] + run->failed[c] ||
		    st[c].failed_submits != run->failed[c]) {
			bench_err("%s: client %s: the kernel counted %llu jobs, %llu failed; the bench %llu, %llu",
				  e->s->name, e->s->clients[c].name,
				  (unsigned long long)st[c].submits,
				  (unsigned long long)st[c].failed_submits,
				  (unsigned long long)(run->jobs[c] +
						       run->failed[c]),
				  (unsigned long long)run->failed[c]);
			ret = -EIO;
		}
	}
	return ret;
}

/* Runs scenario @s once, in one mode, with fresh clients and buffers. */
static int run_mode(const struct config *cfg, const struct scenario *s,
		    struct mode_run *run)
{
	const struct bench_mode *mode = run->mode;
	struct engine e = { .cfg = cfg, .s = s, .run = run };
	int ret, settle_ret;
	unsigned int c;
	__u64 start;

	ret = set_knobs(cfg, mode);
	/* Without the knobs, the device does what "all" does. */
	if (ret && strcmp(mode->name, "all")) {
		bench_info("mode %s: cannot set the device's knobs (%s); skipped",
			   mode->name, strerror(-ret));
		return 0;
	}

	for (c = 0; c < SCN_MAX_CLIENTS; c++) {
		e.cl[c].fd = -1;
		/* A client without jobs only holds buffers: it never runs. */
		if (c < s->n_clients && !s->clients[c].n_jobs)
			e.cl[c].t = ~0ULL;
	}
	e.total_frames = scn_total_frames(s);
	e.handles = calloc(s->n_bos, sizeof(*e.handles));
	run->frames = calloc(e.total_frames, sizeof(*run->frames));
	if (!e.handles || !run->frames) {
		ret = -ENOMEM;
		bench_err("out of memory");
		goto out;
	}
	start = now_ns();
	ret = engine_open(&e);
	if (!ret)
		ret = engine_enter_phase(&e, scn_frame_phase(s, 0));
	if (ret)
		goto out;
	run->supported = true;

	ret = engine_loop(&e);
	if (!ret)
		ret = engine_idle(&e);
	run->elapsed_ms = (now_ns() - start) / NSEC_PER_MSEC;
	if (!ret)
		ret = engine_run_totals(&e);
	if (!ret)
		ret = run_optimum(cfg, s, run, &e.trace);
out:
	engine_close(&e);
	settle_ret = settle(cfg);
	if (settle_ret)
		bench_err("VRAM did not empty after mode %s: %s", mode->name,
			  strerror(-settle_ret));
	return ret ? ret : settle_ret;
}

/* The report's figures over some frames of a run: one row each. */
enum row {
	R_MIG_P50,
	R_MIG_P99,
	R_MIG_MEAN,
	R_OPT_MEAN,
	R_X_OPT,
	R_TIME_P50,
	R_TIME_P99,
	R_GTT_MEAN,
	R_HIGH_EVICT,
	R_WALL_P50,
	R_GLOBAL_ROWS,
};

/* Per client, after the global rows. */
enum client_row {
	CR_MIG_MEAN,
	CR_OPT_MEAN,
	CR_X_OPT,
	CR_PINGPONGS,
	CR_FAILED,
	CR_EVICTIONS,
	CR_JOBS,
	CR_ROWS,
};

#define MAX_ROWS	(R_GLOBAL_ROWS + SCN_MAX_CLIENTS * CR_ROWS)

struct row_desc {
	const char *name;
	int decimals;
};

static const struct row_desc row_desc[R_GLOBAL_ROWS] = {
	[R_MIG_P50]	= { "migrated MiB/frame p50", 2 },
	[R_MIG_P99]	= { "migrated MiB/frame p99", 2 },
	[R_MIG_MEAN]	= { "migrated MiB/frame mean", 2 },
	[R_OPT_MEAN]	= { "MIN's schedule MiB/frame", 2 },
	[R_X_OPT]	= { "x MIN's schedule (no bound)", 2 },
	[R_TIME_P50]	= { "model frame time us p50", 1 },
	[R_TIME_P99]	= { "model frame time us p99", 1 },
	[R_GTT_MEAN]	= { "used in GTT MiB/frame mean", 2 },
	[R_HIGH_EVICT]	= { "level high+ evicted MiB/fr", 2 },
	[R_WALL_P50]	= { "wall frame time us p50", 0 },
};

static const struct row_desc client_row_desc[CR_ROWS] = {
	[CR_MIG_MEAN]	= { "MiB/frame mean", 2 },
	[CR_OPT_MEAN]	= { "MIN's schedule MiB/fr", 2 },
	[CR_X_OPT]	= { "x MIN's schedule", 2 },
	[CR_PINGPONGS]	= { "ping-pongs", 0 },
	[CR_FAILED]	= { "failed submits", 0 },
	[CR_EVICTIONS]	= { "evictions of its bufs", 0 },
	[CR_JOBS]	= { "jobs", 0 },
};

static __u64 frame_migrated(const struct scenario *s,
			    const struct frame_rec *f)
{
	__u64 sum = 0;
	unsigned int c;

	for (c = 0; c < s->n_clients; c++)
		sum += stats_migrated(&f->st[c]);
	return sum;
}

static __u64 frame_optimum(const struct scenario *s,
			   const struct frame_rec *f)
{
	__u64 sum = 0;
	unsigned int c;

	for (c = 0; c < s->n_clients; c++)
		sum += f->opt[c];
	return sum;
}

static __u64 frame_gtt_used(const struct scenario *s,
			    const struct frame_rec *f)
{
	__u64 sum = 0;
	unsigned int c;

	for (c = 0; c < s->n_clients; c++)
		sum += f->st[c].bytes_used_in_gtt;
	return sum;
}

/* The frame's virtual length, plus what crossed the link: see the top. */
static double frame_time_us(const struct config *cfg,
			    const struct scenario *s, const struct frame_rec *f)
{
	double link = (double)frame_migrated(s, f) + frame_gtt_used(s, f);
	double sec = (double)f->virt_ns / NSEC_PER_SEC + link / cfg->link_bps;

	return sec * 1e6;
}

/*
 * A run's migration as a multiple of the optimum's: nan without an
 * optimum (the run said why), 1 where neither moved anything.
 */
static double opt_multiple(const struct mode_run *run, double bytes,
			   double opt)
{
	if (!run->has_opt)
		return NAN;
	if (opt > 0)
		return bytes / opt;
	return bytes > 0 ? INFINITY : 1;
}

/* The per-client rows of @m over the frames of @phase (0: all). */
static void summarize_clients(const struct scenario *s,
			      const struct mode_run *run, unsigned int phase,
			      double *m)
{
	double mig, opt, n = 0;
	const struct frame_rec *f;
	unsigned int c, i;
	double *cm;

	for (c = 0; c < s->n_clients; c++) {
		cm = m + R_GLOBAL_ROWS + c * CR_ROWS;
		mig = 0;
		opt = 0;
		n = 0;
		for (i = 0; i < run->n_frames; i++) {
			f = &run->frames[i];
			if (phase && f->phase != phase)
				continue;
			n++;
			mig += stats_migrated(&f->st[c]);
			opt += f->opt[c];
			cm[CR_PINGPONGS] += f->st[c].pingpongs;
			cm[CR_FAILED] += f->st[c].failed_submits;
			cm[CR_EVICTIONS] += f->st[c].evictions;
			cm[CR_JOBS] += f->st[c].submits;
		}
		cm[CR_MIG_MEAN] = n ? mig / n / MIB : 0;
		cm[CR_OPT_MEAN] = run->has_opt && n ? opt / n / MIB : NAN;
		cm[CR_X_OPT] = opt_multiple(run, mig, opt);
	}
}

/* Fill @m with the figures of @run over @phase, or all frames for 0. */
static int summarize(const struct config *cfg, const struct scenario *s,
		     const struct mode_run *run, unsigned int phase, double *m)
{
	double mig_sum = 0, opt_sum = 0, gtt_sum = 0, high = 0;
	double *mig, *ft, *wall;
	const struct frame_rec *f;
	unsigned int i, c, n = 0;

	mig = calloc(3 * (size_t)(run->n_frames + 1), sizeof(*mig));
	if (!mig)
		return -ENOMEM;
	ft = mig + run->n_frames + 1;
	wall = ft + run->n_frames + 1;

	for (i = 0; i < MAX_ROWS; i++)
		m[i] = 0;
	for (i = 0; i < run->n_frames; i++) {
		f = &run->frames[i];
		if (phase && f->phase != phase)
			continue;
		mig[n] = frame_migrated(s, f) / MIB;
		ft[n] = frame_time_us(cfg, s, f);
		wall[n] = f->wall_ns / 1000.0;
		n++;
		mig_sum += frame_migrated(s, f);
		opt_sum += frame_optimum(s, f);
		gtt_sum += frame_gtt_used(s, f);
		for (c = 0; c < s->n_clients; c++)
			high += f->st[c].bytes_evicted_from_level[VTTM_RESIDENCY_HIGH] +
				f->st[c].bytes_evicted_from_level[VTTM_RESIDENCY_MAXIMUM];
	}
	if (n) {
		m[R_MIG_MEAN] = mig_sum / n / MIB;
		m[R_OPT_MEAN] = opt_sum / n / MIB;
		m[R_HIGH_EVICT] = high / n / MIB;
		m[R_GTT_MEAN] = gtt_sum / n / MIB;
	}
	if (!run->has_opt)
		m[R_OPT_MEAN] = NAN;
	m[R_X_OPT] = opt_multiple(run, mig_sum, opt_sum);
	m[R_MIG_P50] = sorted_pct(mig, n, 50);
	m[R_MIG_P99] = percentile(mig, n, 99);
	m[R_TIME_P50] = sorted_pct(ft, n, 50);
	m[R_TIME_P99] = percentile(ft, n, 99);
	m[R_WALL_P50] = sorted_pct(wall, n, 50);
	summarize_clients(s, run, phase, m);
	free(mig);
	return 0;
}

/* Row @i's label: a global row's, or a client's name and its row's. */
static void row_label(const struct scenario *s, unsigned int i, char *buf,
		      size_t len)
{
	if (i < R_GLOBAL_ROWS) {
		snprintf(buf, len, "%s", row_desc[i].name);
		return;
	}
	i -= R_GLOBAL_ROWS;
	snprintf(buf, len, " %s %s", s->clients[i / CR_ROWS].name,
		 client_row_desc[i % CR_ROWS].name);
}

static int row_decimals(unsigned int i)
{
	if (i < R_GLOBAL_ROWS)
		return row_desc[i].decimals;
	return client_row_desc[(i - R_GLOBAL_ROWS) % CR_ROWS].decimals;
}

static void print_row(const struct scenario *s, const struct mode_run *runs,
		      unsigned int n_runs, const struct mode_run *ref,
		      double (*m)[MAX_ROWS], unsigned int i)
{
	char line[1024], label[64], ratio[32];
	unsigned int r;
	int len;

	row_label(s, i, label, sizeof(label));
	len = snprintf(line, sizeof(line), "%-40s", label);
	for (r = 0; r < n_runs; r++) {
		if (!runs[r].supported)
			continue;
		/* MIN moved nothing here: the absolute rows say what moved. */
		if (isinf(m[r][i]))
			len += snprintf(line + len, sizeof(line) - len,
					" %11s", "-");
		else
			len += snprintf(line + len, sizeof(line) - len,
					" %11.*f", row_decimals(i), m[r][i]);
		if (&runs[r] == ref)
			continue;
		format_ratio(ratio, sizeof(ratio), m[r][i], m[ref - runs][i]);
		len += snprintf(line + len, sizeof(line) - len, " %7s", ratio);
	}
	bench_info("%s", line);
}

static int print_table(const struct config *cfg, const struct scenario *s,
		       const struct mode_run *runs, unsigned int n_runs,
		       unsigned int phase)
{
	double (*m)[MAX_ROWS];
	const struct mode_run *ref = NULL;
	unsigned int i, r, n_rows, frames = 0;
	char line[1024];
	int len, ret = 0;

	m = calloc(n_runs, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (r = 0; r < n_runs && !ret; r++) {
		if (!runs[r].supported)
			continue;
		if (!ref)
			ref = &runs[r];
		ret = summarize(cfg, s, &runs[r], phase, m[r]);
	}
	if (ret || !ref)
		goto out;

	for (i = 0; i < ref->n_frames; i++)
		frames += !phase || ref->frames[i].phase == phase;
	bench_info("");
	bench_info("%s, %s%s, %u frames per mode; ratio = mode / %s", s->name,
		   phase ? "phase " : "all phases",
		   phase ? s->phases[phase].name : "", frames,
		   ref->mode->name);
	bench_info("(MIN's schedule: its whole-run optimum cut up by frame and client, not a bound for them)");
	len = snprintf(line, sizeof(line), "%-40s", "metric");
	for (r = 0; r < n_runs; r++) {
		if (!runs[r].supported)
			continue;
		len += snprintf(line + len, sizeof(line) - len, " %11s",
				runs[r].mode->name);
		if (&runs[r] != ref)
			len += snprintf(line + len, sizeof(line) - len,
					" %7s", "ratio");
	}
	bench_info("%s", line);
	n_rows = R_GLOBAL_ROWS + s->n_clients * CR_ROWS;
	for (i = 0; i < n_rows; i++)
		print_row(s, runs, n_runs, ref, m, i);
out:
	free(m);
	return ret;
}

static void write_csv(FILE *f, const char *pfx, const struct config *cfg,
		      const struct scenario *s, const struct mode_run *run,
		      unsigned int rep)
{
	const struct frame_rec *fr;
	unsigned long long failed, pp;
	unsigned int i, c;

	for (i = 0; i < run->n_frames; i++) {
		fr = &run->frames[i];
		failed = 0;
		pp = 0;
		for (c = 0; c < s->n_clients; c++) {
			failed += fr->st[c].failed_submits;
			pp += fr->st[c].pingpongs;
		}
		fprintf(f, "%s%s,%s,%u,%u,%u,%llu,%.3f,%llu,%llu,", pfx,
			s->name, run->mode->name, rep, fr->phase, fr->frame,
			(unsigned long long)frame_migrated(s, fr),
			frame_time_us(cfg, s, fr), failed, pp);
		if (run->has_opt)
			fprintf(f, "%llu",
				(unsigned long long)frame_optimum(s, fr));
		fprintf(f, ",%llu\n", (unsigned long long)frame_gtt_used(s, fr));
	}
}

/*
 * The headline: each mode's whole run, warm-up included, against MIN's
 * total on the same jobs from empty VRAM, the one figure the optimum
 * bounds; beside it, the modelled frame time of the recorded frames.
 */
static int print_run_bounds(const struct config *cfg, const struct scenario *s,
			    const struct mode_run *runs, unsigned int n)
{
	double m[MAX_ROWS], x;
	char mult[48];
	unsigned int r;
	int ret;

	bench_info("");
	bench_info("%s: headline: whole run against MIN's total, a lower bound (MIN on units may keep part of a buffer and ignores contiguity and alignment: the multiple is at most the gap); model frame time of the recorded frames, GTT use charged",
		   s->name);
	for (r = 0; r < n; r++) {
		if (!runs[r].supported)
			continue;
		ret = summarize(cfg, s, &runs[r], 0, m);
		if (ret)
			return ret;
		x = opt_multiple(&runs[r], runs[r].run_migrated,
				 runs[r].run_optimum);
		if (!runs[r].has_opt)
			snprintf(mult, sizeof(mult), "no optimum");
		else if (isinf(x))
			snprintf(mult, sizeof(mult), "optimum 0 MiB");
		else
			snprintf(mult, sizeof(mult), "optimum %.1f MiB, x%.2f",
				 runs[r].run_optimum / MIB, x);
		bench_info("%-10s migrated %9.1f MiB, %s; frame time p50 %.1f us, p99 %.1f us; used in GTT %.2f MiB/frame",
			   runs[r].mode->name, runs[r].run_migrated / MIB, mult,
			   m[R_TIME_P50], m[R_TIME_P99], m[R_GTT_MEAN]);
	}
	return 0;
}

/* The frames' client's multiple of the optimum in @phase. */
static double phase_x_opt(const struct scenario *s, const struct mode_run *run,
			  unsigned int phase)
{
	unsigned int c = s->frame_client, i;
	double mig = 0, opt = 0;

	for (i = 0; i < run->n_frames; i++) {
		if (run->frames[i].phase != phase)
			continue;
		mig += stats_migrated(&run->frames[i].st[c]);
		opt += run->frames[i].opt[c];
	}
	return opt_multiple(run, mig, opt);
}

static const struct mode_run *find_run(const struct mode_run *runs,
				       unsigned int n, const char *name)
{
	unsigned int r;

	for (r = 0; r < n; r++)
		if (runs[r].supported && !strcmp(runs[r].mode->name, name))
			return &runs[r];
	return NULL;
}

/* The goal: with every feature, the frames' client within GOAL_X_OPT. */
static void print_goal(const struct scenario *s, const struct mode_run *runs,
		       unsigned int n)
{
	const struct mode_run *all = find_run(runs, n, "all");
	const struct mode_run *base = find_run(runs, n, "baseline");
	char ref[32];
	double x, xb;
	unsigned int p;

	if (!all || !all->has_opt)
		return;
	bench_info("");
	bench_info("%s: goal: %s within x%.1f of MIN's schedule in every phase, with every feature (MIN's schedule cut up by phase, not a bound)",
		   s->name, s->clients[s->frame_client].name, GOAL_X_OPT);
	for (p = 1; p < s->n_phases; p++) {
		x = phase_x_opt(s, all, p);
		xb = base ? phase_x_opt(s, base, p) : NAN;
		ref[0] = '\0';
		if (base)
			snprintf(ref, sizeof(ref), ", baseline x%.2f", xb);
		if (isinf(x)) {
			bench_info("phase %-10s all: MIN moves nothing there; see the table's absolute figures",
				   s->phases[p].name);
			continue;
		}
		bench_info("phase %-10s all x%.2f (%s)%s", s->phases[p].name, x,
			   x <= GOAL_X_OPT ? "met" : "not met", ref);
	}
}

/* With --runs, the spread of each mode's figures over its runs. */
static void print_spread(const struct scenario *s, struct mode_run **reps,
			 unsigned int n_modes, unsigned int n_reps)
{
	double v[MAX_RUNS];
	unsigned int m, k, p, n;
	char line[512];
	int len;

	if (n_reps < 2)
		return;
	bench_info("");
	bench_info("%s: spread over %u runs of each mode: min median max", s->name,
		   n_reps);
	for (m = 0; m < n_modes; m++) {
		if (!reps[0][m].supported || !reps[0][m].has_opt)
			continue;
		for (p = 0; p < s->n_phases; p++) {
			for (k = 0, n = 0; k < n_reps; k++) {
				const struct mode_run *r = &reps[k][m];

				if (!r->has_opt)
					continue;
				v[n++] = p ? phase_x_opt(s, r, p) :
					 opt_multiple(r, r->run_migrated,
						      r->run_optimum);
			}
			if (!n)
				continue;
			qsort(v, n, sizeof(*v), cmp_double);
			/* A part where MIN moves nothing has no multiple. */
			if (isinf(v[n - 1]))
				continue;
			len = snprintf(line, sizeof(line), "%-10s %-16s",
				       reps[0][m].mode->name,
				       p ? s->phases[p].name : "whole run");
			snprintf(line + len, sizeof(line) - len,
				 " x%.2f x%.2f x%.2f%s", v[0], v[(n - 1) / 2],
				 v[n - 1], p ? " (frames' client)" : "");
			bench_info("%s", line);
		}
	}
}

/* What a run did, per client. */
static void report_run(const struct scenario *s, const struct mode_run *run)
{
	unsigned int c;

	bench_info("%s: mode %s: done in %llu ms", s->name, run->mode->name,
		   (unsigned long long)run->elapsed_ms);
	for (c = 0; c < s->n_clients; c++) {
		bench_info("%s: mode %s: %s: %llu jobs, %llu failed, %llu missed ticks",
			   s->name, run->mode->name, s->clients[c].name,
			   (unsigned long long)run->jobs[c] + run->failed[c],
			   (unsigned long long)run->failed[c],
			   (unsigned long long)run->missed_ticks[c]);
	}
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: vttm_bench [options]\n"
		"VRAM overcommit benchmark for the vttm driver: each scenario\n"
		"runs once per mode, compared with the first mode and with the\n"
		"offline optimum.\n"
		"\n"
		"  -r, --replay FILE       run the scenario in FILE (format:\n"
		"                          " SCENARIO_DIR "/README); may repeat.\n"
		"                          Default: every " SCENARIO_DIR "/NAME"
		SCENARIO_SFX "\n"
		"                          beside this program\n"
		"      --check             read the scenarios, report errors\n"
		"                          and exit; needs no device\n"
		"  -f, --frames N          frames of every phase (default: the\n"
		"                          scenario's)\n"
		"  -w, --warmup N          unrecorded frames (default: the\n"
		"                          scenario's)\n"
		"  -s, --short             %u frames per phase, %u warm-up\n"
		"  -n, --runs N            run each mode N times, print the\n"
		"                          spread (default 1, at most %u)\n"
		"  -m, --modes A,B,...     modes to run, in order; ratios are\n"
		"                          to the first (default: all)\n"
		"  -l, --list-modes        list the modes and exit\n"
		"  -d, --device PATH       DRM node (default: scan /dev/dri)\n"
		"  -V, --vram-size BYTES   VRAM size, suffix K/M/G allowed\n"
		"                          (default: " VRAM_PARAM ")\n"
		"      --link-gbs X        modelled link, GB/s (default %.0f)\n"
		"  -c, --csv PATH          write the per-frame CSV to PATH\n"
		"      --csv-stdout        print the CSV to stdout, each line\n"
		"                          prefixed \"" CSV_PFX "\"\n"
		"      --validation NAME   validate jobs as xe or amdgpu does\n"
		"                          (debugfs validation; default: as\n"
		"                          found); amdgpu names the results\n"
		"                          SCENARIO@amdgpu\n"
		"  -h, --help              this help\n"
		"\n"
		"Exit status: 0 done, 1 error, 2 bad usage or scenario, 4 no\n"
		"vttm device.\n"
		"\n"
		"modes:\n",
		SHORT_FRAMES, SHORT_WARMUP, MAX_RUNS, DEF_LINK_GBS);
	print_modes(f);
}

enum {
	OPT_LINK_GBS = 256,
	OPT_CSV_STDOUT,
	OPT_CHECK,
	OPT_VALIDATION,
};

static const struct option long_opts[] = {
	{ "replay", required_argument, NULL, 'r' },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "frames", required_argument, NULL, 'f' },
	{ "warmup", required_argument, NULL, 'w' },
	{ "short", no_argument, NULL, 's' },
	{ "runs", required_argument, NULL, 'n' },
	{ "modes", required_argument, NULL, 'm' },
	{ "list-modes", no_argument, NULL, 'l' },
	{ "device", required_argument, NULL, 'd' },
	{ "vram-size", required_argument, NULL, 'V' },
	{ "link-gbs", required_argument, NULL, OPT_LINK_GBS },
	{ "csv", required_argument, NULL, 'c' },
	{ "csv-stdout", no_argument, NULL, OPT_CSV_STDOUT },
	{ "validation", required_argument, NULL, OPT_VALIDATION },
	{ "help", no_argument, NULL, 'h' },
	{ }
};

/* Returns -1 to go on, or an exit status. */
static int parse_args(struct config *cfg, int argc, char **argv)
{
	bool is_short = false;
	unsigned int v;
	char *end;
	bool ok;
	int c;

	cfg->warmup = -1;
	cfg->runs = 1;
	cfg->link_bps = DEF_LINK_GBS * 1e9;
	for (c = 0; c < (int)N_MODES && c < MAX_RUN_MODES; c++)
		cfg->modes[cfg->n_modes++] = &modes[c];

	while ((c = getopt_long(argc, argv, "r:f:w:sn:m:ld:V:c:h", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'r':
			ok = cfg->n_files < MAX_SCENARIOS;
			if (ok)
				cfg->files[cfg->n_files++] = optarg;
			break;
		case OPT_CHECK:
			ok = true;
			cfg->check_only = true;
			break;
		case 'f':
			ok = parse_uint(optarg, &cfg->frames) && cfg->frames;
			break;
		case 'w':
			ok = parse_uint(optarg, &v) && v <= INT_MAX;
			cfg->warmup = v;
			break;
		case 's':
			ok = true;
			is_short = true;
			break;
		case 'n':
			ok = parse_uint(optarg, &cfg->runs) && cfg->runs &&
			     cfg->runs <= MAX_RUNS;
			break;
		case 'm':
			ok = parse_modes(cfg, optarg);
			break;
		case 'l':
			print_modes(stdout);
			return 0;
		case 'd':
			ok = true;
			cfg->device = optarg;
			break;
		case 'V':
			ok = parse_size(optarg, &cfg->vram_size);
			break;
		case OPT_LINK_GBS:
			cfg->link_bps = strtod(optarg, &end) * 1e9;
			ok = end != optarg && !*end && cfg->link_bps > 0;
			break;
		case 'c':
			ok = true;
			cfg->csv_path = optarg;
			break;
		case OPT_CSV_STDOUT:
			ok = true;
			cfg->csv_stdout = true;
			break;
		case OPT_VALIDATION:
			ok = !strcmp(optarg, "xe") || !strcmp(optarg, "amdgpu");
			cfg->validation = optarg;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return EXIT_USAGE;
		}
		if (!ok) {
			fprintf(stderr, PFX "bad argument for option: %s\n",
				optarg);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PFX "unexpected argument: %s\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (is_short && !cfg->frames)
		cfg->frames = SHORT_FRAMES;
	if (is_short && cfg->warmup < 0)
		cfg->warmup = SHORT_WARMUP;
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* Without --replay: every scenario file beside this program, by name. */
static int default_scenarios(struct config *cfg)
{
	char exe[PATH_MAX], dir[PATH_MAX + 16], *slash;
	struct dirent *de;
	ssize_t len;
	size_t sfx = strlen(SCENARIO_SFX), n;
	DIR *d;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		return -errno;
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(dir, sizeof(dir), "%s/" SCENARIO_DIR, exe);
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, PFX "%s: %s; give --replay FILE\n", dir,
			strerror(errno));
		return -ENOENT;
	}
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n <= sfx || strcmp(de->d_name + n - sfx, SCENARIO_SFX))
			continue;
		if (cfg->n_files == MAX_SCENARIOS) {
			fprintf(stderr, PFX "more than %d scenarios in %s\n",
				MAX_SCENARIOS, dir);
			closedir(d);
			return -E2BIG;
		}
		if (asprintf(&cfg->files[cfg->n_files], "%s/%s", dir,
			     de->d_name) < 0)
			break;
		cfg->n_files++;
	}
	closedir(d);
	cfg->own_files = true;
	if (!cfg->n_files) {
		fprintf(stderr, PFX "no *" SCENARIO_SFX " in %s\n", dir);
		return -ENOENT;
	}
	qsort(cfg->files, cfg->n_files, sizeof(*cfg->files), cmp_str);
	return 0;
}

/* Reads every scenario before anything runs; returns -1 or an exit status. */
static int load_scenarios(const struct config *cfg, struct scenario **s)
{
	unsigned int i, p;

	for (i = 0; i < cfg->n_files; i++) {
		s[i] = calloc(1, sizeof(*s[i]));
		if (!s[i])
			return EXIT_ERROR;
		if (scn_parse(s[i], cfg->files[i], stderr))
			return EXIT_USAGE;
		if (cfg->warmup >= 0)
			s[i]->phases[0].frames = cfg->warmup;
		/* Each validation's figures under a name of their own. */
		if (cfg->validation && strcmp(cfg->validation, "xe")) {
			size_t n = strlen(s[i]->name);

			snprintf(s[i]->name + n, sizeof(s[i]->name) - n, "@%s",
				 cfg->validation);
		}
		for (p = 1; cfg->frames && p < s[i]->n_phases; p++)
			s[i]->phases[p].frames = cfg->frames;
	}
	return -1;
}

/* Find the device and size the scenarios; returns -1 or an exit status. */
static int setup_device(struct config *cfg, struct scenario **s, char *path,
			size_t len)
{
	struct drm_version ver;
	long page = sysconf(_SC_PAGESIZE);
	unsigned int i;
	int ret;

	if (cfg->device) {
		ret = probe_device(cfg->device, &ver);
		if (ret) {
			bench_err("%s is not a vttm device: %s", cfg->device,
				  strerror(-ret));
			return EXIT_ERROR;
		}
	} else if (find_device(path, len, &ver)) {
		cfg->device = path;
	} else {
		bench_info("SKIP no vttm device");
		return EXIT_SKIP;
	}

	if (!cfg->vram_size) {
		ret = read_vram_param(&cfg->vram_size);
		if (ret) {
			bench_err("cannot read %s (%s); give --vram-size",
				  VRAM_PARAM, strerror(-ret));
			return EXIT_ERROR;
		}
	}
	for (i = 0; i < cfg->n_files; i++)
		if (scn_resolve(s[i], cfg->vram_size, page, stderr))
			return EXIT_USAGE;

	bench_info("device %s: %s %d.%d.%d", cfg->device, ver.name,
		   ver.version_major, ver.version_minor,
		   ver.version_patchlevel);
	return -1;
}

static void print_scenario(const struct scenario *s)
{
	unsigned int c, g, p, j;

	bench_info("scenario %s (%s): frames of client %s", s->name, s->path,
		   s->clients[s->frame_client].name);
	for (c = 0; c < s->n_clients; c++) {
		const struct scn_client *cl = &s->clients[c];

		bench_info("  client %s: %u jobs per loop%s", cl->name,
			   cl->n_jobs, cl->period_ns ? ", periodic" : "");
		for (j = 0; j < cl->n_jobs; j++) {
			const struct scn_job *job = &s->jobs[cl->first_job + j];

			bench_info("    job %llu us, %s, %u buffer names",
				   (unsigned long long)job->duration_ns /
				   NSEC_PER_USEC, job->wait ? "wait" : "nowait",
				   job->n_refs);
		}
	}
	for (g = 0; g < s->n_groups; g++) {
		const struct scn_group *gr = &s->groups[g];
		const struct scn_bo *bo = &s->bos[gr->bos[0]];

		bench_info("  group %s of %s: %u buffers (%u at first), %llu KiB, level %s",
			   gr->name, s->clients[gr->client].name, gr->n_bos,
			   scn_group_size(s, gr, 0),
			   (unsigned long long)bo->size / 1024,
			   scn_level_name(bo->level));
	}
	for (p = 0; p < s->n_phases; p++)
		bench_info("  phase %s: %u frames", s->phases[p].name,
			   s->phases[p].frames);
}

static void print_config(const struct config *cfg)
{
	struct utsname uts;
	unsigned int i;

	if (!uname(&uts))
		bench_info("kernel %s %s", uts.release, uts.machine);
	bench_info("vram %.1f MiB; link %.1f GB/s; %u run(s) per mode",
		   cfg->vram_size / MIB, cfg->link_bps / 1e9, cfg->runs);
	bench_info("frame_time = frame's virtual length + migrated / link");
	for (i = 0; i < K_COUNT; i++)
		bench_info("knob %s: %s", knob_names[i],
			   cfg->knobs[i][0] ? cfg->knobs[i] : "not found");
	if (cfg->throttle_on[K_HARD][0])
		bench_info("throttle on: hard %s ms, soft %s ms",
			   cfg->throttle_on[K_HARD], cfg->throttle_on[K_SOFT]);
	for (i = 0; i < cfg->n_modes; i++)
		bench_info("mode %u: %s: %s", i, cfg->modes[i]->name,
			   cfg->modes[i]->desc);
}

static void free_runs(struct mode_run **reps, unsigned int n_reps,
		      unsigned int n_modes)
{
	unsigned int k, m;

	for (k = 0; k < n_reps && reps[k]; k++) {
		for (m = 0; m < n_modes; m++)
			free(reps[k][m].frames);
		free(reps[k]);
	}
}

/* Runs one scenario in every mode, --runs times, and reports it. */
static int bench_scenario(const struct config *cfg, const struct scenario *s,
			  FILE *csv)
{
	struct mode_run *reps[MAX_RUNS] = { };
	unsigned int k, m, p, n_ok = 0;
	int ret = 0;

	print_scenario(s);
	for (k = 0; k < cfg->runs && !ret; k++) {
		reps[k] = calloc(cfg->n_modes, sizeof(*reps[k]));
		if (!reps[k]) {
			ret = -ENOMEM;
			break;
		}
		for (m = 0; m < cfg->n_modes && !ret; m++) {
			reps[k][m].mode = cfg->modes[m];
			bench_info("%s: mode %s: run %u", s->name,
				   cfg->modes[m]->name, k);
			ret = run_mode(cfg, s, &reps[k][m]);
			if (ret)
				bench_err("%s: mode %s failed", s->name,
					  cfg->modes[m]->name);
			else if (reps[k][m].supported)
				report_run(s, &reps[k][m]);
			n_ok += reps[k][m].supported;
		}
	}
	if (!ret && !n_ok) {
		bench_err("no mode could run");
		ret = -ENODEV;
	}

	if (!ret)
		ret = print_run_bounds(cfg, s, reps[0], cfg->n_modes);
	for (p = 1; !ret && p <= s->n_phases - 1; p++)
		ret = print_table(cfg, s, reps[0], cfg->n_modes, p);
	if (!ret && s->n_phases > 2)
		ret = print_table(cfg, s, reps[0], cfg->n_modes, 0);
	if (!ret) {
		print_goal(s, reps[0], cfg->n_modes);
		print_spread(s, reps, cfg->n_modes, cfg->runs);
		for (k = 0; k < cfg->runs; k++) {
			for (m = 0; m < cfg->n_modes; m++) {
				if (csv)
					write_csv(csv, "", cfg, s, &reps[k][m],
						  k);
				if (cfg->csv_stdout)
					write_csv(stdout, CSV_PFX, cfg, s,
						  &reps[k][m], k);
			}
		}
	}
	free_runs(reps, cfg->runs, cfg->n_modes);
	return ret;
}

int main(int argc, char **argv)
{
	struct scenario *scn[MAX_SCENARIOS] = { };
	struct config cfg = { };
	FILE *csv = NULL;
	char path[64];
	unsigned int i;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = parse_args(&cfg, argc, argv);
	if (ret >= 0)
		return ret;
	if (!cfg.n_files && default_scenarios(&cfg))
		return EXIT_USAGE;
	ret = load_scenarios(&cfg, scn);
	if (ret >= 0)
		return ret;
	if (cfg.check_only) {
		for (i = 0; i < cfg.n_files; i++)
			printf("%s: ok\n", cfg.files[i]);
		return 0;
	}
	ret = setup_device(&cfg, scn, path, sizeof(path));
	if (ret >= 0)
		return ret;
	find_knobs(&cfg);
	if (cfg.validation && write_knob(&cfg, K_VALIDATION, cfg.validation)) {
		bench_err("cannot set the device's validation to %s",
			  cfg.validation);
		return EXIT_ERROR;
	}
	print_config(&cfg);

	if (cfg.csv_path) {
		csv = fopen(cfg.csv_path, "we");
		if (!csv) {
			bench_err("%s: %s", cfg.csv_path, strerror(errno));
			return EXIT_ERROR;
		}
		fprintf(csv, "%s\n", CSV_HEADER);
	}
	if (cfg.csv_stdout)
		printf("%s%s\n", CSV_PFX, CSV_HEADER);

	ret = 0;
	for (i = 0; i < cfg.n_files && !ret; i++)
		ret = bench_scenario(&cfg, scn[i], csv);
	for (i = 0; i < cfg.n_files; i++) {
		free(scn[i]);
		if (cfg.own_files)
			free(cfg.files[i]);
	}
	if (restore_knobs(&cfg))
		bench_err("cannot set the device's knobs back");
	if (csv && fclose(csv)) {
		bench_err("%s: %s", cfg.csv_path, strerror(errno));
		ret = -EIO;
	}
	if (ret)
		return EXIT_ERROR;
	if (cfg.csv_path)
		bench_info("CSV written to %s", cfg.csv_path);
	bench_info("done");
	return 0;
}
