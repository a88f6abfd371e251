/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vttm_bench's scenarios: a workload read from a text file. The format is
 * in scenarios/README; this header is what the engine sees of a file.
 */

#ifndef VTTM_SCENARIO_H
#define VTTM_SCENARIO_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#define SCN_NAME_LEN		32
#define SCN_MAX_CLIENTS		8
#define SCN_MAX_GROUPS		64
#define SCN_MAX_BOS		4096
#define SCN_MAX_JOBS		256
#define SCN_MAX_REFS		1024
/* Phase 0 is the warm-up; the file's phases follow. */
#define SCN_MAX_PHASES		9

/* A client: one open file of the device, running its loop of jobs. */
struct scn_client {
	char name[SCN_NAME_LEN];
	/* 0: each loop starts when the last one ended, else every period. */
	__u64 period_ns;
	/* Its jobs, in order: jobs[first_job] to jobs[first_job + n_jobs - 1]. */
	unsigned int first_job;
	unsigned int n_jobs;
};

/* A named group of a client's buffers; jobs name buffers through them. */
struct scn_group {
	char name[SCN_NAME_LEN];
	unsigned int client;
	/* Its buffers, indices into scenario.bos, in order of creation. */
	unsigned int bos[SCN_MAX_BOS];
	unsigned int n_bos;
};

/* A buffer; its size is a fraction of VRAM until scn_resolve() runs. */
struct scn_bo {
	unsigned int group;
	__u64 size;
	__u64 size_num;
	__u64 size_den;
	__u32 placements;
	__u32 level;
	/* VTTM_BO_* creation flags: VTTM_BO_CONTIGUOUS or 0. */
	__u32 flags;
	/* Created when this phase starts; 0: before the first frame. */
	unsigned int phase;
};

enum scn_ref_kind {
	SCN_REF_ALL,		/* every buffer of the group */
	SCN_REF_RANGE,		/* buffers a to b of the group */
	SCN_REF_WINDOW,		/* a buffers from loop * b, wrapping */
};

/* Some buffers of a group, as a job names them. */
struct scn_ref {
	unsigned int group;
	enum scn_ref_kind kind;
	unsigned int a;
	unsigned int b;
};

struct scn_job {
	__u64 duration_ns;
	bool wait;
	unsigned int first_ref;
	unsigned int n_refs;
};

struct scn_phase {
	char name[SCN_NAME_LEN];
	unsigned int frames;
};

struct scenario {
	const char *path;
	/* The file's name without directory and suffix. */
	char name[SCN_NAME_LEN];
	struct scn_client clients[SCN_MAX_CLIENTS];
	unsigned int n_clients;
	struct scn_group groups[SCN_MAX_GROUPS];
	unsigned int n_groups;
	struct scn_bo bos[SCN_MAX_BOS];
	unsigned int n_bos;
	struct scn_job jobs[SCN_MAX_JOBS];
	unsigned int n_jobs;
	struct scn_ref refs[SCN_MAX_REFS];
	unsigned int n_refs;
	/* phases[0] is the warm-up. */
	struct scn_phase phases[SCN_MAX_PHASES];
	unsigned int n_phases;
	/* The client whose loops are the frames. */
	unsigned int frame_client;
};

int scn_parse(struct scenario *s, const char *path, FILE *err);
int scn_resolve(struct scenario *s, __u64 vram_size, __u64 page, FILE *err);
unsigned int scn_total_frames(const struct scenario *s);
unsigned int scn_group_size(const struct scenario *s,
			    const struct scn_group *g, unsigned int phase);
unsigned int scn_frame_phase(const struct scenario *s, unsigned int frame);
unsigned int scn_job_bos(const struct scenario *s, const struct scn_job *job,
			 unsigned int loop, unsigned int phase,
			 unsigned int *bos);
const char *scn_level_name(__u32 level);

#endif /* VTTM_SCENARIO_H */
