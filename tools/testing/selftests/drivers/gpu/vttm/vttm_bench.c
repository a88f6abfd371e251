// SPDX-License-Identifier: GPL-2.0
/*
 * vttm_bench - VRAM overcommit benchmark for the vttm test driver
 *
 * The model
 * =========
 *
 * A scaled model of a game that overcommits VRAM, with a compositor beside
 * it. Every size is a fraction of the device's VRAM, V, read from
 * /sys/module/vttm/parameters/vram_size (or --vram-size), so the model
 * scales with the emulated device.
 *
 * game: one client (one open file). Buffers of V/32, VRAM only, as a
 *	game wants its render targets and textures. (With VRAM|GTT, what
 *	one frame cannot fit beside its own buffers would settle in GTT, and
 *	stop moving.) 16 of them (V/2) are the hot set, used by every
 *	frame. The others are the streaming pool: each frame uses a window
 *	of 4 of them (V/8), and the window moves on by --stream-step
 *	buffers (default 4) every frame. Hot set plus pool is the working
 *	set: 36 buffers (9/8 V) in phase 1 and 40 (10/8 V) in phase 2; the
 *	4 extra buffers are created when phase 2 starts. The hot set is at
 *	residency level HIGH, as render targets, the pool at MINIMUM, as
 *	streamed textures. A frame is two jobs, each lasting half of
 *	--game-us (2000 us): one on the first half of the hot set and the
 *	window, as a pass that samples the streamed textures, then one on
 *	the other half of the hot set, so that eviction must choose between
 *	render targets and textures. The game waits for both
 *	(DRM_IOCTL_VTTM_WAIT) before the next frame. When a submit fails,
 *	the job counts as failed and the game sleeps for the job's duration
 *	instead.
 *
 * compositor: a second client, driven by a child process. 8 buffers of
 *	V/64 (V/8 in all), VRAM only. It submits one job on all
 *	of them lasting --comp-us (200 us) every --comp-period-us (1000 us)
 *	of wall clock, without waiting for its jobs, and skips the ticks it
 *	missed, as a compositor drops vblanks. It runs from before the
 *	first game frame until after the last.
 *
 * The parent opens both clients, so it can read the compositor's stats
 * through the same file while the child submits on it. A game frame's
 * window runs from its submit to the next frame's submit. Over that
 * window, with deltas of struct drm_vttm_stats:
 *
 *	migrated   = bytes_moved_to_vram + bytes_evicted_by,
 *		     of the game plus the compositor
 *	failed     = failed_submits, of the game plus the compositor
 *	pingpongs  = pingpongs, of the game plus the compositor
 *	frame_time = game job duration + migrated / link bandwidth
 *
 * The link bandwidth is 32 GB/s (PCIe 4.0 x16; --link-gbs). The formula
 * charges every migrated byte to the frame in full, with no overlap of
 * copies and rendering.
 *
 * Each mode of modes[] runs the whole scenario with fresh clients and
 * fresh buffers: first --warmup frames that are not recorded, then phase 1
 * and phase 2, each as long as --frames says. A mode sets the device's
 * debugfs knobs: exec_eviction (eviction locks its victims through the
 * job's drm_exec), residency_levels (the levels the game sets reach TTM)
 * and throttle_hard_ms and throttle_soft_ms (the eviction throttle: TTM's
 * defaults, or 0 and 0 for none). baseline has all three off, which is
 * 7.3's eviction; exec, levels and throttle add one feature each to
 * exec; all has every one. The report gives, for phase 1,
 * phase 2 and all frames: migrated bytes per frame and modelled frame time
 * (median and 99th percentile, by nearest rank), ping-pongs and failed
 * submits (sums, per client), the game's hot set's evicted MiB per frame,
 * and the ratio of each figure to the first mode run in the same
 * invocation, baseline by default. A mode whose knobs cannot be written
 * (no debugfs, or not root) is skipped, unless it is what the device does
 * as it loads (all). The knobs get back the values they had at the start.
 *
 * The optimum
 * ===========
 *
 * Each mode records the jobs it submitted, failed ones too, in order: the
 * game's jobs with their buffers, and when the compositor submitted (its
 * job is always all of its buffers). Belady's MIN then replays that trace
 * against VRAM: on a miss with VRAM full, it evicts what is used again
 * furthest in the future, never a buffer of the job it is placing. Its
 * migrated bytes, counted as the bench counts them (bytes moved into
 * VRAM plus bytes evicted), are printed beside each mode's, per phase and
 * per client, and in the CSV per frame.
 *
 * With buffers of one size MIN is the optimum. The model's are of two
 * (V/32 and V/64), so MIN runs on units of their greatest common divisor:
 * each buffer is that many units, loaded and evicted together by any
 * real policy, but one at a time by MIN. Every policy on whole buffers is
 * thus one on units, so MIN on units loads no more than the best policy
 * on buffers; and as any policy evicts at least what it loads beyond
 * VRAM's size, which is all MIN evicts, MIN's total is a lower bound on
 * the migration of the whole run, not always reached. Failed jobs are
 * left out of the trace, as they need not have moved anything. The
 * report's "whole run" line compares each mode with that bound, over the
 * same jobs from empty VRAM. The split by phase and client is MIN's own
 * schedule, not a bound per part: a policy may beat it in one phase by
 * paying in another.
 *
 * Exit status: 0 done, 1 error, 2 bad usage, 4 no vttm device (SKIP).
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>

/* The driver's private uAPI, found through the Makefile's include path. */
#include "vttm_uapi.h"

#define PFX		"vttm-bench: "
#define CSV_PFX		"vttm-bench-csv: "
#define CSV_HEADER \
	"mode,phase,frame,migrated_bytes,frame_time_us,failed,pingpongs," \
	"optimum_bytes"
#define VRAM_PARAM	"/sys/module/vttm/parameters/vram_size"
#define TTM_PARAMS	"/sys/module/ttm/parameters"
#define DRI_DEBUGFS	"/sys/kernel/debug/dri"

#define EXIT_ERROR	1
#define EXIT_USAGE	2
#define EXIT_SKIP	4

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_SEC	1000000000ULL
#define MIB		(1024.0 * 1024.0)

/* The model, in buffers; see the comment at the top. */
#define GAME_BO_DIV	32	/* a game buffer is 1/32 of VRAM */
#define GAME_HOT_BOS	16	/* hot set: 1/2 of VRAM */
#define GAME_WIN_BOS	4	/* streaming window: 1/8 of VRAM */
#define GAME_WS1_BOS	36	/* phase 1 working set: 9/8 of VRAM */
#define GAME_WS2_BOS	40	/* phase 2 working set: 10/8 of VRAM */
#define GAME_JOB_BOS	(GAME_HOT_BOS + GAME_WIN_BOS)
#define COMP_BO_DIV	64	/* a compositor buffer is 1/64 of VRAM */
#define COMP_BOS	8	/* compositor: 1/8 of VRAM */

#define DEF_FRAMES		100
#define DEF_WARMUP		5
#define SHORT_FRAMES		20
#define SHORT_WARMUP		2
#define DEF_GAME_US		2000
#define DEF_COMP_US		200
#define DEF_COMP_PERIOD_US	1000
#define DEF_LINK_GBS		32.0

/* A job runs for milliseconds; a wait this long means a hung device. */
#define WAIT_TIMEOUT_NS		(10 * NSEC_PER_SEC)
/* Pause between modes, so the last mode's buffers are gone. */
#define SETTLE_NS		(200 * 1000 * NSEC_PER_USEC)

#define MAX_RUN_MODES		16

/* Most compositor jobs one mode records for the optimum. */
#define TRACE_MAX_COMP_JOBS	262144
/* Most units the optimum splits the buffers into. */
#define OPT_MAX_UNITS		4096

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
	const char *desc;
};

static const struct bench_mode modes[] = {
	{ "baseline", false, false, false,
	  "7.3's eviction: none of the features below" },
	{ "exec", true, false, false,
	  "eviction locks its victims through the job's drm_exec" },
	{ "levels", true, true, false,
	  "exec, and the game's residency levels reach TTM" },
	{ "throttle", true, false, true,
	  "exec, and the eviction throttle with TTM's default periods" },
	{ "all", true, true, true,
	  "every feature, as the device loads" },
};

/* The device's knobs, in its debugfs directory. */
enum knob {
	K_EXEC,
	K_LEVELS,
	K_HARD,
	K_SOFT,
	K_COUNT
};

static const char * const knob_names[K_COUNT] = {
	[K_EXEC] = "exec_eviction",
	[K_LEVELS] = "residency_levels",
	[K_HARD] = "throttle_hard_ms",
	[K_SOFT] = "throttle_soft_ms",
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define N_MODES		ARRAY_SIZE(modes)

struct config {
	const char *device;
	char knobs[K_COUNT][128];
	/* The knobs' values as found, restored at the end. */
	char saved[K_COUNT][16];
	/* What the throttle knobs take for "on": TTM's defaults. */
	char throttle_on[K_COUNT][16];
	__u64 vram_size;
	unsigned int frames;
	unsigned int warmup;
	unsigned int stream_step;
	__u64 game_ns;
	__u64 comp_ns;
	__u64 comp_period_ns;
	double link_bps;
	const char *csv_path;
	bool csv_stdout;
	unsigned int n_modes;
	const struct bench_mode *modes[MAX_RUN_MODES];
	/* Derived from vram_size. */
	__u64 game_bo_size;
	__u64 comp_bo_size;
};

/* One recorded game frame, with both clients' stats deltas over it. */
struct frame_rec {
	unsigned int phase;
	unsigned int frame;
	bool game_failed;
	__u64 wall_ns;
	struct drm_vttm_stats game;
	struct drm_vttm_stats comp;
};

/* What the compositor saw, in shared memory, read after it exits. */
struct comp_counts {
	__u64 submits;
	__u64 failed;
	__u64 missed_ticks;
};

/* When the compositor submitted, in shared memory: the game's trace. */
struct comp_trace {
	__u64 n;
	__u64 submit_ns[TRACE_MAX_COMP_JOBS];
	bool failed[TRACE_MAX_COMP_JOBS];
};

/* The optimum's migrated bytes in one recorded frame, per client. */
struct opt_frame {
	__u64 game;
	__u64 comp;
};

struct mode_run {
	const struct bench_mode *mode;
	bool supported;
	unsigned int n_frames;
	struct frame_rec *frames;
	/* Per recorded frame, or NULL when the trace could not be replayed. */
	struct opt_frame *opt;
	/* Migrated over the whole run, by the mode and by the optimum. */
	__u64 run_migrated;
	__u64 run_optimum;
	struct comp_counts comp;
	__u64 game_failed;
	__u64 elapsed_ms;
};

/* A game job of the trace: when it was submitted, and its buffers. */
struct game_job {
	__u64 submit_ns;
	bool failed;
	unsigned int n;
	unsigned char bos[GAME_JOB_BOS];
};

struct game {
	int fd;
	unsigned int n_bos;
	unsigned int window;
	__u32 bos[GAME_WS2_BOS];
	__u32 job[GAME_JOB_BOS];
	/*
	 * The trace: every job submitted; when the first frame's window
	 * started and when each frame's ended.
	 */
	struct game_job *jobs;
	unsigned int n_jobs;
	__u64 start_ns;
	__u64 *frame_end_ns;
};

/* A frame is two passes, each a job on half the hot set. */
#define GAME_PASSES	2
#define GAME_PASS_BOS	(GAME_HOT_BOS / GAME_PASSES)

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
			  __u32 *handle)
{
	struct drm_vttm_bo_create req = {
		.size = size,
		.placements = placements,
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
	d->bytes_evicted_from_level[VTTM_RESIDENCY_HIGH] =
		a->bytes_evicted_from_level[VTTM_RESIDENCY_HIGH] -
		b->bytes_evicted_from_level[VTTM_RESIDENCY_HIGH];
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
 * Find the device's debugfs knobs through its minor, and TTM's default
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
		snprintf(cfg->knobs[k], sizeof(cfg->knobs[k]), "%s/%u/%s",
			 DRI_DEBUGFS, minor(st.st_rdev), knob_names[k]);
		if (access(cfg->knobs[k], W_OK) ||
		    read_small(cfg->knobs[k], cfg->saved[k],
			       sizeof(cfg->saved[k])))
			cfg->knobs[k][0] = '\0';
	}
	if (read_small(TTM_PARAMS "/throttle_hard_ms", cfg->throttle_on[K_HARD],
		       sizeof(cfg->throttle_on[K_HARD])) ||
	    read_small(TTM_PARAMS "/throttle_soft_ms", cfg->throttle_on[K_SOFT],
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

/* Adds buffers up to @n_bos: the hot set at HIGH, the pool at MINIMUM. */
static int game_add_bos(struct game *g, const struct config *cfg,
			unsigned int n_bos)
{
	__u32 level;
	int ret;

	while (g->n_bos < n_bos) {
		level = g->n_bos < GAME_HOT_BOS ? VTTM_RESIDENCY_HIGH :
						  VTTM_RESIDENCY_MINIMUM;
		ret = vttm_bo_create(g->fd, cfg->game_bo_size, VTTM_PLACE_VRAM,
				     &g->bos[g->n_bos]);
		if (!ret)
			ret = vttm_set_residency(g->fd, g->bos[g->n_bos], level);
		if (ret) {
			bench_err("game buffer %u: BO_CREATE: %s", g->n_bos,
				  strerror(-ret));
			return ret;
		}
		g->n_bos++;
	}
	return 0;
}

/* Records the job about to be submitted in the trace, by buffer index. */
static void game_trace_job(struct game *g, unsigned int n)
{
	struct game_job *job = &g->jobs[g->n_jobs++];
	unsigned int i, b;

	job->submit_ns = now_ns();
	job->n = n;
	job->failed = false;
	for (i = 0; i < n; i++) {
		for (b = 0; b < g->n_bos && g->bos[b] != g->job[i]; b++)
			;
		job->bos[i] = b;
	}
}

/* Submits one pass of a frame; counts a job the kernel failed in *failed. */
static int game_pass(struct game *g, const struct config *cfg,
		     unsigned int n, unsigned int *failed)
{
	int ret;

	game_trace_job(g, n);
	ret = vttm_submit(g->fd, g->job, n, cfg->game_ns / 2);

	if (job_failure(ret)) {
		g->jobs[g->n_jobs - 1].failed = true;
		(*failed)++;
		sleep_ns(cfg->game_ns / 2);
		return 0;
	}
	if (ret)
		bench_err("game SUBMIT: %s", strerror(-ret));
	return ret;
}

/* Run one game frame; *failed counts its jobs that failed. */
static int game_frame(struct game *g, const struct config *cfg,
		      unsigned int *failed)
{
	unsigned int pool = g->n_bos - GAME_HOT_BOS;
	unsigned int i, n = 0;
	int ret;

	*failed = 0;
	for (i = 0; i < GAME_PASS_BOS; i++)
		g->job[n++] = g->bos[i];
	for (i = 0; i < GAME_WIN_BOS; i++)
		g->job[n++] = g->bos[GAME_HOT_BOS + (g->window + i) % pool];
	g->window = (g->window + cfg->stream_step) % pool;
	ret = game_pass(g, cfg, n, failed);
	if (ret)
		return ret;

	for (i = 0; i < GAME_PASS_BOS; i++)
		g->job[i] = g->bos[GAME_PASS_BOS + i];
	ret = game_pass(g, cfg, GAME_PASS_BOS, failed);
	if (ret)
		return ret;

	ret = vttm_wait(g->fd, g->bos[0]);
	if (!ret)
		ret = vttm_wait(g->fd, g->bos[GAME_PASS_BOS]);
	if (ret)
		bench_err("game WAIT: %s", strerror(-ret));
	return ret;
}

static int wait_idle(int fd, const __u32 *bos, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = vttm_wait(fd, bos[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The compositor process: a job every period until @stop_fd is closed at
 * the other end. Returns an exit status.
 */
static int comp_main(int fd, const __u32 *bos, const struct config *cfg,
		     int stop_fd, struct comp_counts *counts,
		     struct comp_trace *trace)
{
	struct pollfd pfd = { .fd = stop_fd, .events = POLLIN };
	__u64 next = now_ns(), t;
	struct timespec ts;
	int ret;

	for (;;) {
		if (trace->n < TRACE_MAX_COMP_JOBS)
			trace->submit_ns[trace->n] = now_ns();
		ret = vttm_submit(fd, bos, COMP_BOS, cfg->comp_ns);
		counts->submits++;
		if (job_failure(ret) && trace->n < TRACE_MAX_COMP_JOBS)
			trace->failed[trace->n] = true;
		trace->n++;
		if (job_failure(ret)) {
			counts->failed++;
		} else if (ret) {
			bench_err("compositor SUBMIT: %s", strerror(-ret));
			return EXIT_ERROR;
		}

		next += cfg->comp_period_ns;
		t = now_ns();
		while (next <= t) {
			next += cfg->comp_period_ns;
			counts->missed_ticks++;
		}

		ts = ns_to_ts(next - t);
		ret = ppoll(&pfd, 1, &ts, NULL);
		if (ret > 0)
			break;
		if (ret < 0 && errno != EINTR) {
			bench_err("compositor ppoll: %s", strerror(errno));
			return EXIT_ERROR;
		}
	}

	ret = wait_idle(fd, bos, COMP_BOS);
	if (ret) {
		bench_err("compositor WAIT: %s", strerror(-ret));
		return EXIT_ERROR;
	}
	return 0;
}

static unsigned int frame_phase(const struct config *cfg, unsigned int i)
{
	if (i < cfg->warmup)
		return 0;
	if (i < cfg->warmup + cfg->frames)
		return 1;
	return 2;
}

static int read_both_stats(int game_fd, int comp_fd,
			   struct drm_vttm_stats *game,
			   struct drm_vttm_stats *comp)
{
	int ret;

	ret = vttm_stats(game_fd, game);
	if (!ret)
		ret = vttm_stats(comp_fd, comp);
	if (ret)
		bench_err("STATS: %s", strerror(-ret));
	return ret;
}

static int stop_compositor(pid_t pid, int *stop_wr)
{
	int status;

	close(*stop_wr);
	*stop_wr = -1;
	if (waitpid(pid, &status, 0) != pid) {
		bench_err("waitpid: %s", strerror(errno));
		return -ECHILD;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		bench_err("compositor process failed (status 0x%x)", status);
		return -EIO;
	}
	return 0;
}

/* The game loop, with the compositor running beside it. */
static int game_loop(const struct config *cfg, struct mode_run *run,
		     struct game *g, int comp_fd)
{
	struct drm_vttm_stats g0, g1, c0, c1;
	unsigned int i, total, phase;
	struct frame_rec *rec;
	unsigned int failed;
	__u64 t0;
	int ret;

	ret = read_both_stats(g->fd, comp_fd, &g0, &c0);
	if (ret)
		return ret;
	g->start_ns = now_ns();

	total = cfg->warmup + 2 * cfg->frames;
	for (i = 0; i < total; i++) {
		phase = frame_phase(cfg, i);
		if (i == cfg->warmup + cfg->frames) {
			ret = game_add_bos(g, cfg, GAME_WS2_BOS);
			if (ret)
				return ret;
		}

		t0 = now_ns();
		ret = game_frame(g, cfg, &failed);
		if (ret)
			return ret;

		ret = read_both_stats(g->fd, comp_fd, &g1, &c1);
		if (ret)
			return ret;
		g->frame_end_ns[i] = now_ns();

		if (phase) {
			rec = &run->frames[run->n_frames++];
			rec->phase = phase;
			rec->frame = i - cfg->warmup;
			rec->game_failed = failed;
			rec->wall_ns = now_ns() - t0;
			stats_sub(&rec->game, &g1, &g0);
			stats_sub(&rec->comp, &c1, &c0);
			run->game_failed += failed;
		}
		g0 = g1;
		c0 = c1;
	}
	return 0;
}

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

/* The merged trace of one mode: jobs in order of submission, as units. */
struct opt_trace {
	unsigned int n_jobs;
	unsigned int *start;
	unsigned int *units;
	__u64 *submit_ns;
	bool *comp;
};

static void opt_trace_free(struct opt_trace *t)
{
	free(t->start);
	free(t->units);
	free(t->submit_ns);
	free(t->comp);
}

/* Appends a job of buffers @bos, each @per units from @first + b * @per. */
static void opt_trace_add(struct opt_trace *t, __u64 submit_ns, bool comp,
			  const unsigned char *bos, unsigned int n,
			  unsigned int first, unsigned int per)
{
	unsigned int j = t->n_jobs++, k = t->start[j], i, u;

	for (i = 0; i < n; i++)
		for (u = 0; u < per; u++)
			t->units[k++] = first + (bos ? bos[i] : i) * per + u;
	t->start[j + 1] = k;
	t->submit_ns[j] = submit_ns;
	t->comp[j] = comp;
}

/*
 * Merges the game's jobs and the compositor's by submission time, each
 * buffer as @gu or @cu units: the game's first, then the compositor's.
 */
static int opt_trace_build(struct opt_trace *t, const struct game *g,
			   const struct comp_trace *ct, unsigned int gu,
			   unsigned int cu)
{
	unsigned int n = g->n_jobs + ct->n, gi = 0, ci = 0;
	size_t n_units = (size_t)g->n_jobs * GAME_JOB_BOS * gu +
			 (size_t)ct->n * COMP_BOS * cu;

	memset(t, 0, sizeof(*t));
	t->start = calloc(n + 1, sizeof(*t->start));
	t->units = calloc(n_units + 1, sizeof(*t->units));
	t->submit_ns = calloc(n + 1, sizeof(*t->submit_ns));
	t->comp = calloc(n + 1, sizeof(*t->comp));
	if (!t->start || !t->units || !t->submit_ns || !t->comp) {
		opt_trace_free(t);
		return -ENOMEM;
	}

	while (gi < g->n_jobs || ci < ct->n) {
		if (ci == ct->n || (gi < g->n_jobs &&
				    g->jobs[gi].submit_ns <= ct->submit_ns[ci])) {
			if (!g->jobs[gi].failed)
				opt_trace_add(t, g->jobs[gi].submit_ns, false,
					      g->jobs[gi].bos, g->jobs[gi].n,
					      0, gu);
			gi++;
		} else {
			if (!ct->failed[ci])
				opt_trace_add(t, ct->submit_ns[ci], true, NULL,
					      COMP_BOS, GAME_WS2_BOS * gu,
					      cu);
			ci++;
		}
	}
	return 0;
}

/*
 * Replays the trace of a mode with MIN and counts what it migrates in all
 * and in each recorded frame: the window from the previous frame's stats
 * to its own, as the bench counts. Leaves run->opt NULL, and says why,
 * when the trace cannot be replayed.
 */
static int run_optimum(const struct config *cfg, struct mode_run *run,
		       const struct game *g, const struct comp_trace *ct)
{
	__u64 unit = gcd_u64(cfg->game_bo_size, cfg->comp_bo_size);
	__u64 n_units = (GAME_WS2_BOS * cfg->game_bo_size +
			 COMP_BOS * cfg->comp_bo_size) / unit;
	unsigned int total = cfg->warmup + 2 * cfg->frames;
	unsigned int *loaded = NULL, *evicted = NULL;
	unsigned int j, f = 0, gu, cu;
	struct opt_trace t;
	__u64 bytes;
	int ret;

	if (ct->n > TRACE_MAX_COMP_JOBS || n_units > OPT_MAX_UNITS) {
		bench_info("mode %s: no optimum: %s", run->mode->name,
			   ct->n > TRACE_MAX_COMP_JOBS ?
			   "too many compositor jobs to record" :
			   "buffer sizes share no large unit");
		return 0;
	}

	gu = cfg->game_bo_size / unit;
	cu = cfg->comp_bo_size / unit;
	ret = opt_trace_build(&t, g, ct, gu, cu);
	if (ret)
		return ret;
	loaded = calloc(t.n_jobs + 1, sizeof(*loaded));
	evicted = calloc(t.n_jobs + 1, sizeof(*evicted));
	run->opt = calloc(2 * cfg->frames, sizeof(*run->opt));
	ret = -ENOMEM;
	if (!loaded || !evicted || !run->opt)
		goto out;

	ret = belady_min(n_units, (cfg->vram_size + unit - 1) / unit,
			 t.n_jobs, t.start, t.units, loaded, evicted);
	if (ret)
		goto out;

	for (j = 0; j < t.n_jobs; j++) {
		bytes = (__u64)(loaded[j] + evicted[j]) * unit;
		run->run_optimum += bytes;
		while (f < total && t.submit_ns[j] > g->frame_end_ns[f])
			f++;
		if (f < cfg->warmup || f == total || t.submit_ns[j] < g->start_ns)
			continue;
		if (t.comp[j])
			run->opt[f - cfg->warmup].comp += bytes;
		else
			run->opt[f - cfg->warmup].game += bytes;
	}
out:
	if (ret) {
		free(run->opt);
		run->opt = NULL;
		if (ret == -E2BIG) {
			bench_info("mode %s: no optimum: a job exceeds VRAM",
				   run->mode->name);
			ret = 0;
		}
	}
	free(loaded);
	free(evicted);
	opt_trace_free(&t);
	return ret;
}

/* Run the whole scenario once, in one mode, with fresh clients. */
static int run_mode(const struct config *cfg, struct mode_run *run)
{
	unsigned int total = cfg->warmup + 2 * cfg->frames;
	const struct bench_mode *mode = run->mode;
	struct comp_counts *shared = MAP_FAILED;
	struct comp_trace *trace = MAP_FAILED;
	struct drm_vttm_stats gst, cst;
	struct game g = { .fd = -1 };
	__u32 comp_bos[COMP_BOS];
	int stop[2] = { -1, -1 };
	int comp_fd = -1, ret;
	unsigned int i;
	__u64 start;
	pid_t pid;

	ret = set_knobs(cfg, mode);
	/* Without the knobs, the device does what "all" does. */
	if (ret && strcmp(mode->name, "all")) {
		bench_info("mode %s: cannot set the device's knobs (%s); skipped",
			   mode->name, strerror(-ret));
		return 0;
	}

	start = now_ns();
	g.fd = open_client(cfg->device);
	if (g.fd < 0) {
		bench_err("open %s: %s", cfg->device, strerror(-g.fd));
		return g.fd;
	}
	comp_fd = open_client(cfg->device);
	if (comp_fd < 0) {
		ret = comp_fd;
		bench_err("open %s: %s", cfg->device, strerror(-ret));
		goto out_game;
	}

	for (i = 0; i < COMP_BOS; i++) {
		ret = vttm_bo_create(comp_fd, cfg->comp_bo_size,
				     VTTM_PLACE_VRAM, &comp_bos[i]);
		if (ret) {
			bench_err("compositor buffer %u: BO_CREATE: %s", i,
				  strerror(-ret));
			goto out_comp;
		}
	}
	ret = game_add_bos(&g, cfg, GAME_WS1_BOS);
	if (ret)
		goto out_comp;

	run->frames = calloc(2 * cfg->frames, sizeof(*run->frames));
	g.jobs = calloc((size_t)total * GAME_PASSES, sizeof(*g.jobs));
	g.frame_end_ns = calloc(total, sizeof(*g.frame_end_ns));
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	trace = mmap(NULL, sizeof(*trace), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!run->frames || !g.jobs || !g.frame_end_ns ||
	    shared == MAP_FAILED || trace == MAP_FAILED) {
		ret = -ENOMEM;
		bench_err("out of memory");
		goto out_unmap;
	}
	memset(shared, 0, sizeof(*shared));
	trace->n = 0;
	run->supported = true;
	bench_info("mode %s: running", mode->name);

	if (pipe2(stop, O_CLOEXEC)) {
		ret = -errno;
		bench_err("pipe: %s", strerror(errno));
		goto out_unmap;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		bench_err("fork: %s", strerror(errno));
		close(stop[0]);
		close(stop[1]);
		goto out_unmap;
	}
	if (!pid) {
		close(g.fd);
		close(stop[1]);
		_exit(comp_main(comp_fd, comp_bos, cfg, stop[0], shared,
				trace));
	}
	close(stop[0]);

	ret = game_loop(cfg, run, &g, comp_fd);
	if (stop_compositor(pid, &stop[1]) && !ret)
		ret = -EIO;
	run->comp = *shared;
	if (!ret) {
		ret = wait_idle(g.fd, g.bos, g.n_bos);
		if (ret)
			bench_err("game WAIT: %s", strerror(-ret));
	}
	run->elapsed_ms = (now_ns() - start) / (1000 * NSEC_PER_USEC);
	/* Fresh clients: their stats cover the whole run. */
	if (!ret)
		ret = read_both_stats(g.fd, comp_fd, &gst, &cst);
	if (!ret) {
		run->run_migrated = stats_migrated(&gst) + stats_migrated(&cst);
		ret = run_optimum(cfg, run, &g, trace);
	}

out_unmap:
	if (trace != MAP_FAILED)
		munmap(trace, sizeof(*trace));
	if (shared != MAP_FAILED)
		munmap(shared, sizeof(*shared));
	free(g.jobs);
	free(g.frame_end_ns);
out_comp:
	close(comp_fd);
out_game:
	close(g.fd);
	sleep_ns(SETTLE_NS);
	return ret;
}

/* The figures of the report, one table row each. */
enum metric {
	M_MIG_P50,
	M_MIG_P99,
	M_GAME_MIG_P50,
	M_COMP_MIG_P50,
	M_MIG_MEAN,
	M_OPT_MEAN,
	M_X_OPT,
	M_X_OPT_GAME,
	M_COMP_MIG_MEAN,
	M_COMP_OPT_MEAN,
	M_TIME_P50,
	M_TIME_P99,
	M_PP_GAME,
	M_PP_COMP,
	M_FAIL_GAME,
	M_FAIL_COMP,
	M_EVICT_GAME,
	M_EVICT_COMP,
	M_HOT_EVICT,
	M_COMP_JOBS,
	M_WALL_P50,
	M_COUNT
};

struct metric_desc {
	const char *name;
	int decimals;
};

static const struct metric_desc metric_desc[M_COUNT] = {
	[M_MIG_P50]	 = { "migrated MiB/frame p50", 2 },
	[M_MIG_P99]	 = { "migrated MiB/frame p99", 2 },
	[M_GAME_MIG_P50] = { " game MiB/frame p50", 2 },
	[M_COMP_MIG_P50] = { " compositor MiB/frame p50", 2 },
	[M_MIG_MEAN]	 = { "migrated MiB/frame mean", 2 },
	[M_OPT_MEAN]	 = { "optimum MiB/frame mean", 2 },
	[M_X_OPT]	 = { "migrated x optimum", 2 },
	[M_X_OPT_GAME]	 = { " game x optimum", 2 },
	[M_COMP_MIG_MEAN] = { " compositor MiB/frame mean", 2 },
	[M_COMP_OPT_MEAN] = { " compositor optimum", 2 },
	[M_TIME_P50]	 = { "model frame time us p50", 1 },
	[M_TIME_P99]	 = { "model frame time us p99", 1 },
	[M_PP_GAME]	 = { "ping-pongs game", 0 },
	[M_PP_COMP]	 = { "ping-pongs compositor", 0 },
	[M_FAIL_GAME]	 = { "failed submits game", 0 },
	[M_FAIL_COMP]	 = { "failed submits compositor", 0 },
	[M_EVICT_GAME]	 = { "evictions of game bufs", 0 },
	[M_EVICT_COMP]	 = { "evictions of comp. bufs", 0 },
	[M_HOT_EVICT]	 = { "game hot set evicted MiB/frame", 2 },
	[M_COMP_JOBS]	 = { "compositor jobs", 0 },
	[M_WALL_P50]	 = { "wall frame time us p50", 0 },
};

static __u64 frame_migrated(const struct frame_rec *f)
{
	return stats_migrated(&f->game) + stats_migrated(&f->comp);
}

static double frame_time_us(const struct config *cfg,
			    const struct frame_rec *f)
{
	double s = (double)cfg->game_ns / NSEC_PER_SEC +
		   (double)frame_migrated(f) / cfg->link_bps;

	return s * 1e6;
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

/*
 * A mode's migration as a multiple of the optimum's: nan without an
 * optimum (the run said why), 1 where neither moved anything.
 */
static double opt_multiple(const struct mode_run *run, double bytes,
			   double opt)
{
	if (!run->opt)
		return NAN;
	if (opt > 0)
		return bytes / opt;
	return bytes > 0 ? INFINITY : 1;
}

/* Fill @m with the figures of @run over @phase, or all frames for 0. */
static int summarize(const struct config *cfg, const struct mode_run *run,
		     unsigned int phase, double *m)
{
	double game = 0, comp = 0, opt_game = 0, opt_comp = 0;
	double *mig, *gmig, *cmig, *ft, *wall;
	const struct frame_rec *f;
	unsigned int i, n = 0;

	mig = calloc(5 * (size_t)(run->n_frames + 1), sizeof(*mig));
	if (!mig)
		return -ENOMEM;
	gmig = mig + run->n_frames + 1;
	cmig = gmig + run->n_frames + 1;
	ft = cmig + run->n_frames + 1;
	wall = ft + run->n_frames + 1;

	memset(m, 0, M_COUNT * sizeof(*m));
	for (i = 0; i < run->n_frames; i++) {
		f = &run->frames[i];
		if (phase && f->phase != phase)
			continue;
		mig[n] = frame_migrated(f) / MIB;
		gmig[n] = stats_migrated(&f->game) / MIB;
		cmig[n] = stats_migrated(&f->comp) / MIB;
		ft[n] = frame_time_us(cfg, f);
		wall[n] = f->wall_ns / 1000.0;
		n++;
		m[M_PP_GAME] += f->game.pingpongs;
		m[M_PP_COMP] += f->comp.pingpongs;
		m[M_FAIL_GAME] += f->game.failed_submits;
		m[M_FAIL_COMP] += f->comp.failed_submits;
		m[M_EVICT_GAME] += f->game.evictions;
		m[M_EVICT_COMP] += f->comp.evictions;
		m[M_HOT_EVICT] += f->game.bytes_evicted_from_level[VTTM_RESIDENCY_HIGH] /
				  MIB;
		m[M_COMP_JOBS] += f->comp.submits;
		game += stats_migrated(&f->game);
		comp += stats_migrated(&f->comp);
		if (run->opt) {
			opt_game += run->opt[i].game;
			opt_comp += run->opt[i].comp;
		}
	}
	if (n) {
		m[M_HOT_EVICT] /= n;
		m[M_MIG_MEAN] = (game + comp) / n / MIB;
		m[M_OPT_MEAN] = (opt_game + opt_comp) / n / MIB;
		m[M_COMP_MIG_MEAN] = comp / n / MIB;
		m[M_COMP_OPT_MEAN] = opt_comp / n / MIB;
	}
	if (!run->opt) {
		m[M_OPT_MEAN] = NAN;
		m[M_COMP_OPT_MEAN] = NAN;
	}
	/* The optimum often keeps the compositor in VRAM: no multiple. */
	m[M_X_OPT] = opt_multiple(run, game + comp, opt_game + opt_comp);
	m[M_X_OPT_GAME] = opt_multiple(run, game, opt_game);

	m[M_MIG_P50] = sorted_pct(mig, n, 50);
	m[M_MIG_P99] = percentile(mig, n, 99);
	m[M_GAME_MIG_P50] = sorted_pct(gmig, n, 50);
	m[M_COMP_MIG_P50] = sorted_pct(cmig, n, 50);
	m[M_TIME_P50] = sorted_pct(ft, n, 50);
	m[M_TIME_P99] = percentile(ft, n, 99);
	m[M_WALL_P50] = sorted_pct(wall, n, 50);

	free(mig);
	return 0;
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

static int print_table(const struct config *cfg, const struct mode_run *runs,
		       unsigned int n_runs, unsigned int phase)
{
	static const char * const scope[] = {
		"all frames", "phase 1, working set 9/8 VRAM",
		"phase 2, working set 10/8 VRAM",
	};
	double m[MAX_RUN_MODES][M_COUNT];
	const struct mode_run *ref = NULL;
	char line[1024], ratio[32];
	unsigned int i, r;
	int len, ret;

	for (r = 0; r < n_runs; r++) {
		if (!runs[r].supported)
			continue;
		if (!ref)
			ref = &runs[r];
		ret = summarize(cfg, &runs[r], phase, m[r]);
		if (ret)
			return ret;
	}
	if (!ref)
		return 0;

	bench_info("");
	bench_info("%s, %u frames per mode; ratio = mode / %s", scope[phase],
		   phase ? cfg->frames : 2 * cfg->frames, ref->mode->name);
	len = snprintf(line, sizeof(line), "%-26s", "metric");
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

	for (i = 0; i < M_COUNT; i++) {
		len = snprintf(line, sizeof(line), "%-26s",
			       metric_desc[i].name);
		for (r = 0; r < n_runs; r++) {
			if (!runs[r].supported)
				continue;
			len += snprintf(line + len, sizeof(line) - len,
					" %11.*f", metric_desc[i].decimals,
					m[r][i]);
			if (&runs[r] == ref)
				continue;
			format_ratio(ratio, sizeof(ratio), m[r][i],
				     m[ref - runs][i]);
			len += snprintf(line + len, sizeof(line) - len,
					" %7s", ratio);
		}
		bench_info("%s", line);
	}
	return 0;
}

static void write_csv(FILE *f, const char *pfx, const struct config *cfg,
		      const struct mode_run *runs, unsigned int n_runs)
{
	const struct frame_rec *fr;
	unsigned int r, i;

	fprintf(f, "%s%s\n", pfx, CSV_HEADER);
	for (r = 0; r < n_runs; r++) {
		for (i = 0; i < runs[r].n_frames; i++) {
			fr = &runs[r].frames[i];
			fprintf(f, "%s%s,%u,%u,%llu,%.3f,%llu,%llu,", pfx,
				runs[r].mode->name, fr->phase, fr->frame,
				(unsigned long long)frame_migrated(fr),
				frame_time_us(cfg, fr),
				(unsigned long long)(fr->game.failed_submits +
						     fr->comp.failed_submits),
				(unsigned long long)(fr->game.pingpongs +
						     fr->comp.pingpongs));
			if (runs[r].opt)
				fprintf(f, "%llu",
					(unsigned long long)(runs[r].opt[i].game +
							     runs[r].opt[i].comp));
			fputc('\n', f);
		}
	}
}

/*
 * Each mode's whole run, warm-up included, against MIN's total on the same
 * jobs from empty VRAM: the one figure the optimum bounds.
 */
static void print_run_bounds(const struct mode_run *runs, unsigned int n)
{
	unsigned int r;

	bench_info("whole run, against MIN's total (a lower bound)");
	for (r = 0; r < n; r++) {
		if (!runs[r].supported || !runs[r].opt)
			continue;
		bench_info("%-10s migrated %9.1f MiB, optimum %9.1f MiB, x%.2f",
			   runs[r].mode->name, runs[r].run_migrated / MIB,
			   runs[r].run_optimum / MIB,
			   opt_multiple(&runs[r], runs[r].run_migrated,
					runs[r].run_optimum));
	}
}

/* Compare what userspace saw with what the kernel counted. */
static void check_run(const struct mode_run *run)
{
	unsigned long long kgame = 0, kcomp = 0, ksub = 0;
	const char *name = run->mode->name;
	unsigned int i;

	for (i = 0; i < run->n_frames; i++) {
		kgame += run->frames[i].game.failed_submits;
		kcomp += run->frames[i].comp.failed_submits;
		ksub += run->frames[i].game.submits;
	}
	bench_info("mode %s: done in %llu ms", name,
		   (unsigned long long)run->elapsed_ms);
	bench_info("mode %s: compositor %llu jobs, %llu failed, %llu missed",
		   name, (unsigned long long)run->comp.submits,
		   (unsigned long long)run->comp.failed,
		   (unsigned long long)run->comp.missed_ticks);
	if (ksub != GAME_PASSES * run->n_frames)
		bench_info("mode %s: WARNING %llu game jobs in %u frames",
			   name, ksub, run->n_frames);
	if (kgame != run->game_failed)
		bench_info("mode %s: WARNING game failed %llu, kernel %llu",
			   name, (unsigned long long)run->game_failed, kgame);
	if (kcomp > run->comp.failed)
		bench_info("mode %s: WARNING comp. failed %llu, kernel %llu",
			   name, (unsigned long long)run->comp.failed, kcomp);
}

static void print_modes(FILE *f)
{
	unsigned int i;

	for (i = 0; i < N_MODES; i++)
		fprintf(f, "  %-10s %s\n", modes[i].name, modes[i].desc);
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: vttm_bench [options]\n"
		"VRAM overcommit benchmark for the vttm driver: a game and a\n"
		"compositor, run once per mode, compared with the first mode.\n"
		"\n"
		"  -f, --frames N          frames per phase (default %u)\n"
		"  -w, --warmup N          unrecorded frames (default %u)\n"
		"  -s, --short             %u frames per phase, %u warm-up\n"
		"  -m, --modes A,B,...     modes to run, in order; ratios are\n"
		"                          to the first (default: all)\n"
		"  -l, --list-modes        list the modes and exit\n"
		"  -d, --device PATH       DRM node (default: scan /dev/dri)\n"
		"  -V, --vram-size BYTES   VRAM size, suffix K/M/G allowed\n"
		"                          (default: " VRAM_PARAM ")\n"
		"      --game-us N         game job, us (default %u)\n"
		"      --comp-us N         compositor job, us (default %u)\n"
		"      --comp-period-us N  compositor period, us (default %u)\n"
		"      --stream-step N     streaming window step, buffers per\n"
		"                          frame (default %u)\n"
		"      --link-gbs X        modelled link, GB/s (default %.0f)\n"
		"  -c, --csv PATH          write the per-frame CSV to PATH\n"
		"      --csv-stdout        print the CSV to stdout, each line\n"
		"                          prefixed \"" CSV_PFX "\"\n"
		"  -h, --help              this help\n"
		"\n"
		"Exit status: 0 done, 1 error, 2 bad usage, 4 no vttm device.\n"
		"\n"
		"modes:\n",
		DEF_FRAMES, DEF_WARMUP, SHORT_FRAMES, SHORT_WARMUP,
		DEF_GAME_US, DEF_COMP_US, DEF_COMP_PERIOD_US, GAME_WIN_BOS,
		DEF_LINK_GBS);
	print_modes(f);
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

enum {
	OPT_GAME_US = 256,
	OPT_COMP_US,
	OPT_COMP_PERIOD_US,
	OPT_STREAM_STEP,
	OPT_LINK_GBS,
	OPT_CSV_STDOUT,
};

static const struct option long_opts[] = {
	{ "frames", required_argument, NULL, 'f' },
	{ "warmup", required_argument, NULL, 'w' },
	{ "short", no_argument, NULL, 's' },
	{ "modes", required_argument, NULL, 'm' },
	{ "list-modes", no_argument, NULL, 'l' },
	{ "device", required_argument, NULL, 'd' },
	{ "vram-size", required_argument, NULL, 'V' },
	{ "game-us", required_argument, NULL, OPT_GAME_US },
	{ "comp-us", required_argument, NULL, OPT_COMP_US },
	{ "comp-period-us", required_argument, NULL, OPT_COMP_PERIOD_US },
	{ "stream-step", required_argument, NULL, OPT_STREAM_STEP },
	{ "link-gbs", required_argument, NULL, OPT_LINK_GBS },
	{ "csv", required_argument, NULL, 'c' },
	{ "csv-stdout", no_argument, NULL, OPT_CSV_STDOUT },
	{ "help", no_argument, NULL, 'h' },
	{ }
};

/* Returns -1 to go on, or an exit status. */
static int parse_args(struct config *cfg, int argc, char **argv)
{
	bool is_short = false, set_frames = false, set_warmup = false;
	unsigned int game_us = DEF_GAME_US, comp_us = DEF_COMP_US;
	unsigned int period_us = DEF_COMP_PERIOD_US;
	char *end;
	bool ok;
	int c;

	cfg->frames = DEF_FRAMES;
	cfg->warmup = DEF_WARMUP;
	cfg->stream_step = GAME_WIN_BOS;
	cfg->link_bps = DEF_LINK_GBS * 1e9;
	for (c = 0; c < (int)N_MODES && c < MAX_RUN_MODES; c++)
		cfg->modes[cfg->n_modes++] = &modes[c];

	while ((c = getopt_long(argc, argv, "f:w:sm:ld:V:c:h", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'f':
			ok = parse_uint(optarg, &cfg->frames) && cfg->frames;
			set_frames = true;
			break;
		case 'w':
			ok = parse_uint(optarg, &cfg->warmup);
			set_warmup = true;
			break;
		case 's':
			ok = true;
			is_short = true;
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
		case OPT_GAME_US:
			ok = parse_uint(optarg, &game_us) && game_us;
			break;
		case OPT_COMP_US:
			ok = parse_uint(optarg, &comp_us) && comp_us;
			break;
		case OPT_COMP_PERIOD_US:
			ok = parse_uint(optarg, &period_us) && period_us;
			break;
		case OPT_STREAM_STEP:
			ok = parse_uint(optarg, &cfg->stream_step);
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

	if (is_short && !set_frames)
		cfg->frames = SHORT_FRAMES;
	if (is_short && !set_warmup)
		cfg->warmup = SHORT_WARMUP;
	cfg->game_ns = game_us * NSEC_PER_USEC;
	cfg->comp_ns = comp_us * NSEC_PER_USEC;
	cfg->comp_period_ns = period_us * NSEC_PER_USEC;
	if (cfg->game_ns > VTTM_SUBMIT_MAX_NS ||
	    cfg->comp_ns > VTTM_SUBMIT_MAX_NS) {
		fprintf(stderr, PFX "a job may last at most %llu us\n",
			VTTM_SUBMIT_MAX_NS / NSEC_PER_USEC);
		return EXIT_USAGE;
	}
	return -1;
}

/* Find the device and size the model; returns -1 or an exit status. */
static int setup_device(struct config *cfg, char *path, size_t len)
{
	struct drm_version ver;
	long page = sysconf(_SC_PAGESIZE);
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
	cfg->game_bo_size = cfg->vram_size / GAME_BO_DIV / page * page;
	cfg->comp_bo_size = cfg->vram_size / COMP_BO_DIV / page * page;
	if (!cfg->comp_bo_size) {
		bench_err("VRAM of %llu bytes is too small for the model",
			  (unsigned long long)cfg->vram_size);
		return EXIT_ERROR;
	}

	bench_info("device %s: %s %d.%d.%d", cfg->device, ver.name,
		   ver.version_major, ver.version_minor,
		   ver.version_patchlevel);
	return -1;
}

static void print_config(const struct config *cfg)
{
	struct utsname uts;
	unsigned int i;

	if (!uname(&uts))
		bench_info("kernel %s %s", uts.release, uts.machine);
	bench_info("vram %.1f MiB, game buffers %llu KiB, compositor %llu KiB",
		   cfg->vram_size / MIB,
		   (unsigned long long)cfg->game_bo_size / 1024,
		   (unsigned long long)cfg->comp_bo_size / 1024);
	bench_info("game: %u buffers (%u in phase 2), hot %u, window %u/%u",
		   GAME_WS1_BOS, GAME_WS2_BOS, GAME_HOT_BOS, GAME_WIN_BOS,
		   cfg->stream_step);
	bench_info("game job %llu us",
		   (unsigned long long)cfg->game_ns / NSEC_PER_USEC);
	bench_info("compositor: %u buffers, job %llu us every %llu us",
		   COMP_BOS,
		   (unsigned long long)cfg->comp_ns / NSEC_PER_USEC,
		   (unsigned long long)cfg->comp_period_ns / NSEC_PER_USEC);
	bench_info("frames %u per phase, %u warm-up; link %.1f GB/s",
		   cfg->frames, cfg->warmup, cfg->link_bps / 1e9);
	bench_info("frame_time = game job + migrated / link");
	for (i = 0; i < K_COUNT; i++)
		bench_info("knob %s: %s", knob_names[i],
			   cfg->knobs[i][0] ? cfg->knobs[i] : "not found");
	bench_info("throttle on: hard %s ms, soft %s ms",
		   cfg->throttle_on[K_HARD], cfg->throttle_on[K_SOFT]);
	for (i = 0; i < cfg->n_modes; i++)
		bench_info("mode %u: %s: %s", i, cfg->modes[i]->name,
			   cfg->modes[i]->desc);
}

int main(int argc, char **argv)
{
	struct mode_run runs[MAX_RUN_MODES] = { };
	struct config cfg = { };
	unsigned int r, n_ok = 0;
	char path[64];
	FILE *csv = NULL;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = parse_args(&cfg, argc, argv);
	if (ret >= 0)
		return ret;
	ret = setup_device(&cfg, path, sizeof(path));
	if (ret >= 0)
		return ret;
	find_knobs(&cfg);
	print_config(&cfg);

	if (cfg.csv_path) {
		csv = fopen(cfg.csv_path, "we");
		if (!csv) {
			bench_err("%s: %s", cfg.csv_path, strerror(errno));
			return EXIT_ERROR;
		}
	}

	for (r = 0; r < cfg.n_modes; r++) {
		runs[r].mode = cfg.modes[r];
		ret = run_mode(&cfg, &runs[r]);
		if (ret)
			break;
		if (runs[r].supported) {
			check_run(&runs[r]);
			n_ok++;
		}
	}
	if (restore_knobs(&cfg))
		bench_err("cannot set the device's knobs back");
	if (ret) {
		bench_err("mode %s failed", cfg.modes[r]->name);
		return EXIT_ERROR;
	}
	if (!n_ok) {
		bench_err("no mode could run");
		return EXIT_ERROR;
	}

	for (r = 1; r <= 3; r++) {
		if (print_table(&cfg, runs, cfg.n_modes, r % 3)) {
			bench_err("out of memory");
			return EXIT_ERROR;
		}
	}
	bench_info("");
	print_run_bounds(runs, cfg.n_modes);
	bench_info("");

	if (csv) {
		write_csv(csv, "", &cfg, runs, cfg.n_modes);
		if (fclose(csv)) {
			bench_err("%s: %s", cfg.csv_path, strerror(errno));
			return EXIT_ERROR;
		}
		bench_info("CSV written to %s", cfg.csv_path);
	}
	if (cfg.csv_stdout)
		write_csv(stdout, CSV_PFX, &cfg, runs, cfg.n_modes);

	bench_info("done");
	return 0;
}
