// SPDX-License-Identifier: GPL-2.0
/*
 * vttm_bench's scenario files: the parser and the questions the engine
 * asks of a scenario. The format is documented in scenarios/README. The
 * parser checks everything it can before anything runs, and names the
 * file and line of the first error.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vttm_scenario.h"
#include "vttm_uapi.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define SCN_VERSION		"1"
#define SCN_MAX_TOKENS		(8 + VTTM_SUBMIT_MAX_BOS)
#define SCN_LINE_LEN		4096
#define SCN_MIN_PERIOD_NS	10000

/* The parser's state: where it is in the file. */
struct scn_parser {
	struct scenario *s;
	FILE *err;
	unsigned int line;
	/* The phase that the next bo lines belong to. */
	unsigned int phase;
	bool have_version;
	bool have_frames;
	/* Lines of jobs and clients, for errors found once the file is read. */
	unsigned int job_line[SCN_MAX_JOBS];
	unsigned int client_line[SCN_MAX_CLIENTS];
};

static const char * const level_names[VTTM_NUM_RESIDENCY] = {
	[VTTM_RESIDENCY_MINIMUM] = "minimum",
	[VTTM_RESIDENCY_LOW] = "low",
	[VTTM_RESIDENCY_NORMAL] = "normal",
	[VTTM_RESIDENCY_HIGH] = "high",
	[VTTM_RESIDENCY_MAXIMUM] = "maximum",
};

static int scn_error(struct scn_parser *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(p->err, "%s:%u: ", p->s->path, p->line);
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fputc('\n', p->err);
	return -EINVAL;
}

/* An unsigned decimal number that fits @max. */
static bool scn_uint(const char *tok, unsigned long long max,
		     unsigned long long *val)
{
	char *end;

	if (*tok < '0' || *tok > '9')
		return false;
	errno = 0;
	*val = strtoull(tok, &end, 10);
	return !errno && !*end && *val <= max;
}

static bool scn_name_char(char c)
{
	return c == '_' || c == '-' || (c >= '0' && c <= '9') ||
	       (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool scn_name_ok(const char *tok)
{
	const char *c;

	if (!*tok || strlen(tok) >= SCN_NAME_LEN)
		return false;
	for (c = tok; *c; c++)
		if (!scn_name_char(*c))
			return false;
	return true;
}

/* A duration: a number and one of ns, us, ms, s; 1 s at most. */
static bool scn_duration(const char *tok, __u64 *ns)
{
	static const struct { const char *sfx; __u64 mul; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	unsigned long long v;
	unsigned int i;
	char *end;

	errno = 0;
	v = strtoull(tok, &end, 10);
	if (errno || end == tok || *tok < '0' || *tok > '9')
		return false;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].sfx))
			continue;
		if (v > VTTM_SUBMIT_MAX_NS / units[i].mul)
			return false;
		*ns = v * units[i].mul;
		return true;
	}
	return false;
}

/* A size: bytes with an optional K, M or G, or a fraction A/B of VRAM. */
static bool scn_size(const char *tok, struct scn_bo *bo)
{
	unsigned long long v, den;
	const char *slash = strchr(tok, '/');
	unsigned int shift;
	char *end;

	errno = 0;
	v = strtoull(tok, &end, 10);
	if (errno || end == tok || *tok < '0' || *tok > '9' || !v)
		return false;
	if (slash) {
		if (end != slash || !scn_uint(slash + 1, UINT_MAX, &den) ||
		    !den || v > den)
			return false;
		bo->size_num = v;
		bo->size_den = den;
		return true;
	}
	if (*end && end[1])
		return false;
	shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 :
		*end ? 64 : 0;
	if (shift == 64 || v >> (40 - shift))
		return false;
	bo->size = v << shift;
	return true;
}

static bool scn_placements(const char *tok, __u32 *placements)
{
	char copy[SCN_NAME_LEN], *p = copy, *name;

	if (strlen(tok) >= sizeof(copy))
		return false;
	strcpy(copy, tok);
	*placements = 0;
	while ((name = strsep(&p, ",")) != NULL) {
		if (!strcmp(name, "vram") && !(*placements & VTTM_PLACE_VRAM))
			*placements |= VTTM_PLACE_VRAM;
		else if (!strcmp(name, "gtt") &&
			 !(*placements & VTTM_PLACE_GTT))
			*placements |= VTTM_PLACE_GTT;
		else
			return false;
	}
	return true;
}

static bool scn_level(const char *tok, __u32 *level)
{
	__u32 i;

	for (i = 0; i < VTTM_NUM_RESIDENCY; i++) {
		if (!strcmp(tok, level_names[i])) {
			*level = i;
			return true;
		}
	}
	return false;
}

static int scn_find_client(const struct scenario *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->n_clients; i++)
		if (!strcmp(s->clients[i].name, name))
			return i;
	return -1;
}

/* Group names are the client's own: two clients may both have "rt". */
static int scn_find_group(const struct scenario *s, unsigned int client,
			  const char *name)
{
	unsigned int i;

	for (i = 0; i < s->n_groups; i++)
		if (s->groups[i].client == client &&
		    !strcmp(s->groups[i].name, name))
			return i;
	return -1;
}

static int scn_client_arg(struct scn_parser *p, const char *tok)
{
	int c = scn_find_client(p->s, tok);

	if (c < 0)
		scn_error(p, "no client named '%s' (declare it first)", tok);
	return c;
}

/* client NAME [period DURATION] */
static int scn_line_client(struct scn_parser *p, char **tok, unsigned int n)
{
	struct scenario *s = p->s;
	struct scn_client *c;

	if (n != 2 && !(n == 4 && !strcmp(tok[2], "period")))
		return scn_error(p, "expected: client NAME [period DURATION]");
	if (p->phase)
		return scn_error(p, "clients come before the phases");
	if (!scn_name_ok(tok[1]))
		return scn_error(p, "bad client name '%s'", tok[1]);
	if (scn_find_client(s, tok[1]) >= 0)
		return scn_error(p, "client '%s' declared twice", tok[1]);
	if (s->n_clients == SCN_MAX_CLIENTS)
		return scn_error(p, "more than %d clients", SCN_MAX_CLIENTS);

	c = &s->clients[s->n_clients];
	strcpy(c->name, tok[1]);
	if (n == 4 && (!scn_duration(tok[3], &c->period_ns) ||
		       c->period_ns < SCN_MIN_PERIOD_NS))
		return scn_error(p, "bad period '%s' (10us to 1s)", tok[3]);
	p->client_line[s->n_clients++] = p->line;
	return 0;
}

/* bo CLIENT GROUP COUNT SIZE PLACEMENTS [level LEVEL] [contiguous] */
static int scn_line_bo(struct scn_parser *p, char **tok, unsigned int n)
{
	struct scenario *s = p->s;
	struct scn_bo proto = { .level = VTTM_RESIDENCY_NORMAL };
	unsigned long long count;
	struct scn_group *g;
	bool level = false;
	unsigned int i;
	int client, gi;

	if (n < 6)
		return scn_error(p, "expected: bo CLIENT GROUP COUNT SIZE PLACEMENTS ...");
	client = scn_client_arg(p, tok[1]);
	if (client < 0)
		return -EINVAL;
	if (!scn_name_ok(tok[2]))
		return scn_error(p, "bad group name '%s'", tok[2]);
	if (!scn_uint(tok[3], SCN_MAX_BOS, &count) || !count)
		return scn_error(p, "bad count '%s' (1 to %d)", tok[3],
				 SCN_MAX_BOS);
	if (!scn_size(tok[4], &proto))
		return scn_error(p, "bad size '%s' (e.g. 4M or 1/32)", tok[4]);
	if (!scn_placements(tok[5], &proto.placements))
		return scn_error(p, "bad placements '%s' (vram, gtt or vram,gtt)",
				 tok[5]);
	for (i = 6; i < n; i++) {
		if (!strcmp(tok[i], "level") && i + 1 < n && !level) {
			level = true;
			if (!scn_level(tok[++i], &proto.level))
				return scn_error(p, "bad level '%s'", tok[i]);
		} else if (!strcmp(tok[i], "contiguous") && !proto.flags) {
			if (proto.placements != VTTM_PLACE_VRAM)
				return scn_error(p, "contiguous: only for placements vram");
			proto.flags = VTTM_BO_CONTIGUOUS;
		} else {
			return scn_error(p, "unexpected '%s'", tok[i]);
		}
	}

	gi = scn_find_group(s, client, tok[2]);
	if (gi < 0 && p->phase)
		return scn_error(p, "a phase may add buffers to a group, not a new group");
	if (gi < 0) {
		if (s->n_groups == SCN_MAX_GROUPS)
			return scn_error(p, "more than %d groups",
					 SCN_MAX_GROUPS);
		gi = s->n_groups++;
		strcpy(s->groups[gi].name, tok[2]);
		s->groups[gi].client = client;
	}
	g = &s->groups[gi];
	if (s->n_bos + count > SCN_MAX_BOS)
		return scn_error(p, "more than %d buffers", SCN_MAX_BOS);

	proto.group = gi;
	proto.phase = p->phase;
	for (i = 0; i < count; i++) {
		g->bos[g->n_bos++] = s->n_bos;
		s->bos[s->n_bos++] = proto;
	}
	return 0;
}

/* Reads a decimal number at *@c and moves past it. */
static bool scn_digits(const char **c, unsigned int *v)
{
	unsigned long long n = 0;

	if (**c < '0' || **c > '9')
		return false;
	while (**c >= '0' && **c <= '9') {
		n = n * 10 + (*(*c)++ - '0');
		if (n > SCN_MAX_BOS)
			return false;
	}
	*v = n;
	return true;
}

/* Reads the index part of GROUP[I], GROUP[I-J] or GROUP{N,STEP}. */
static bool scn_index(const char *c, struct scn_ref *ref)
{
	if (*c++ == '{') {
		ref->kind = SCN_REF_WINDOW;
		return scn_digits(&c, &ref->a) && ref->a && *c++ == ',' &&
		       scn_digits(&c, &ref->b) && !strcmp(c, "}");
	}
	ref->kind = SCN_REF_RANGE;
	if (!scn_digits(&c, &ref->a))
		return false;
	ref->b = ref->a;
	if (*c == '-') {
		c++;
		if (!scn_digits(&c, &ref->b) || ref->b < ref->a)
			return false;
	}
	return !strcmp(c, "]");
}

/* GROUP, GROUP[I], GROUP[I-J] or GROUP{N,STEP}, of @client. */
static int scn_ref(struct scn_parser *p, const char *tok, unsigned int client,
		   struct scn_ref *ref)
{
	const char *open = strpbrk(tok, "[{");
	size_t len = open ? (size_t)(open - tok) : strlen(tok);
	char name[SCN_NAME_LEN];
	int gi;

	if (len >= sizeof(name))
		return scn_error(p, "bad buffers '%s'", tok);
	memcpy(name, tok, len);
	name[len] = '\0';
	gi = scn_find_group(p->s, client, name);
	if (gi < 0)
		return scn_error(p, "client '%s' has no group named '%s'",
				 p->s->clients[client].name, name);
	ref->group = gi;
	ref->kind = SCN_REF_ALL;
	if (open && !scn_index(open, ref))
		return scn_error(p, "bad buffers '%s' (see README)", tok);
	return 0;
}

/* job CLIENT DURATION wait|nowait BUFFERS... */
static int scn_line_job(struct scn_parser *p, char **tok, unsigned int n)
{
	struct scenario *s = p->s;
	struct scn_client *c;
	struct scn_job *job;
	unsigned int i, j;
	int client, ret;

	if (n < 5)
		return scn_error(p, "expected: job CLIENT DURATION wait|nowait BUFFERS...");
	if (p->phase)
		return scn_error(p, "jobs come before the phases");
	client = scn_client_arg(p, tok[1]);
	if (client < 0)
		return -EINVAL;
	c = &s->clients[client];
	if (c->n_jobs && c->first_job + c->n_jobs != s->n_jobs)
		return scn_error(p, "client '%s''s jobs must be on consecutive lines",
				 c->name);
	if (s->n_jobs == SCN_MAX_JOBS || s->n_refs + n - 4 > SCN_MAX_REFS)
		return scn_error(p, "too many jobs or buffer names");

	job = &s->jobs[s->n_jobs];
	if (!scn_duration(tok[2], &job->duration_ns) || !job->duration_ns)
		return scn_error(p, "bad duration '%s' (1ns to 1s, e.g. 2ms)",
				 tok[2]);
	if (!strcmp(tok[3], "wait"))
		job->wait = true;
	else if (strcmp(tok[3], "nowait"))
		return scn_error(p, "expected wait or nowait, not '%s'",
				 tok[3]);
	job->first_ref = s->n_refs;
	job->n_refs = n - 4;
	for (i = 4; i < n; i++) {
		ret = scn_ref(p, tok[i], client, &s->refs[s->n_refs + i - 4]);
		if (ret)
			return ret;
	}
	/* A group twice in one job only as ranges that do not overlap. */
	for (i = 0; i < job->n_refs; i++) {
		const struct scn_ref *x = &s->refs[job->first_ref + i];

		for (j = 0; j < i; j++) {
			const struct scn_ref *y = &s->refs[job->first_ref + j];

			if (x->group != y->group)
				continue;
			if (x->kind != SCN_REF_RANGE || y->kind != SCN_REF_RANGE ||
			    !(x->b < y->a || y->b < x->a))
				return scn_error(p, "group '%s' is named twice in this job",
						 s->groups[x->group].name);
		}
	}

	if (!c->n_jobs)
		c->first_job = s->n_jobs;
	c->n_jobs++;
	p->job_line[s->n_jobs] = p->line;
	s->n_refs += job->n_refs;
	s->n_jobs++;
	return 0;
}

static int scn_line_frames(struct scn_parser *p, char **tok, unsigned int n)
{
	int client;

	if (n != 2)
		return scn_error(p, "expected: frames CLIENT");
	if (p->have_frames)
		return scn_error(p, "frames given twice");
	client = scn_client_arg(p, tok[1]);
	if (client < 0)
		return -EINVAL;
	p->s->frame_client = client;
	p->have_frames = true;
	return 0;
}

static int scn_line_warmup(struct scn_parser *p, char **tok, unsigned int n)
{
	unsigned long long v;

	if (n != 2 || !scn_uint(tok[1], 100000, &v))
		return scn_error(p, "expected: warmup FRAMES (0 to 100000)");
	if (p->s->n_phases > 1)
		return scn_error(p, "warmup must come before the phases");
	p->s->phases[0].frames = v;
	return 0;
}

/*
 * Checks a job's buffer names at the first phase line: the groups hold
 * just the buffers that exist before the first frame.
 */
static int scn_check_job(struct scn_parser *p, unsigned int j)
{
	const struct scenario *s = p->s;
	const struct scn_job *job = &s->jobs[j];
	unsigned int i, n = 0;

	p->line = p->job_line[j];
	for (i = 0; i < job->n_refs; i++) {
		const struct scn_ref *r = &s->refs[job->first_ref + i];
		const struct scn_group *g = &s->groups[r->group];

		if (!g->n_bos)
			return scn_error(p, "group '%s' has no buffers before the first phase",
					 g->name);
		if (r->kind == SCN_REF_RANGE && r->b >= g->n_bos)
			return scn_error(p, "'%s'[%u] is past its %u first buffers",
					 g->name, r->b, g->n_bos);
		if (r->kind == SCN_REF_WINDOW && r->a > g->n_bos)
			return scn_error(p, "a window of %u in '%s', which starts with %u",
					 r->a, g->name, g->n_bos);
		n += r->kind == SCN_REF_ALL ? g->n_bos :
		     r->kind == SCN_REF_RANGE ? r->b - r->a + 1 : r->a;
	}
	if (n > VTTM_SUBMIT_MAX_BOS)
		return scn_error(p, "a job of more than %d buffers",
				 VTTM_SUBMIT_MAX_BOS);
	return 0;
}

/* Checks every job, at the first phase line: they all come before it. */
static int scn_check_jobs(struct scn_parser *p)
{
	unsigned int j, line = p->line;
	int ret;

	for (j = 0; j < p->s->n_jobs; j++) {
		ret = scn_check_job(p, j);
		if (ret)
			return ret;
	}
	p->line = line;
	return 0;
}

static int scn_line_phase(struct scn_parser *p, char **tok, unsigned int n)
{
	struct scenario *s = p->s;
	unsigned long long v;
	unsigned int i;
	int ret;

	if (n != 3 || !scn_name_ok(tok[1]) || !scn_uint(tok[2], 100000, &v) ||
	    !v)
		return scn_error(p, "expected: phase NAME FRAMES (1 to 100000)");
	if (s->n_phases == SCN_MAX_PHASES)
		return scn_error(p, "more than %d phases", SCN_MAX_PHASES - 1);
	for (i = 0; i < s->n_phases; i++)
		if (!strcmp(s->phases[i].name, tok[1]))
			return scn_error(p, "phase '%s' named twice", tok[1]);
	/* The jobs are all read: check their buffers before going on. */
	if (s->n_phases == 1) {
		ret = scn_check_jobs(p);
		if (ret)
			return ret;
	}
	strcpy(s->phases[s->n_phases].name, tok[1]);
	s->phases[s->n_phases].frames = v;
	p->phase = s->n_phases++;
	return 0;
}

static int scn_line(struct scn_parser *p, char **tok, unsigned int n)
{
	static const struct {
		const char *word;
		int (*fn)(struct scn_parser *p, char **tok, unsigned int n);
	} lines[] = {
		{ "client", scn_line_client },
		{ "bo", scn_line_bo },
		{ "job", scn_line_job },
		{ "frames", scn_line_frames },
		{ "warmup", scn_line_warmup },
		{ "phase", scn_line_phase },
	};
	unsigned int i;

	if (!p->have_version) {
		if (n != 2 || strcmp(tok[0], "vttm-scenario") ||
		    strcmp(tok[1], SCN_VERSION))
			return scn_error(p, "the first line must be '%s'",
					 "vttm-scenario " SCN_VERSION);
		p->have_version = true;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(lines); i++)
		if (!strcmp(tok[0], lines[i].word))
			return lines[i].fn(p, tok, n);
	return scn_error(p, "unknown line '%s'", tok[0]);
}

/* What can only be checked once the whole file is read. */
static int scn_check(struct scn_parser *p)
{
	const struct scenario *s = p->s;
	unsigned int c, j;
	bool waits;

	if (!p->have_version) {
		p->line = 1;
		return scn_error(p, "empty scenario");
	}
	if (!s->n_clients)
		return scn_error(p, "no clients");
	if (s->n_phases < 2)
		return scn_error(p, "no phases");
	if (!p->have_frames)
		return scn_error(p, "no 'frames CLIENT' line");
	for (c = 0; c < s->n_clients; c++) {
		const struct scn_client *cl = &s->clients[c];

		p->line = p->client_line[c];
		waits = false;
		for (j = 0; j < cl->n_jobs; j++)
			waits |= s->jobs[cl->first_job + j].wait;
		if (!cl->n_jobs && c == s->frame_client)
			return scn_error(p, "the frames' client '%s' has no jobs",
					 cl->name);
		if (cl->n_jobs && !cl->period_ns && !waits)
			return scn_error(p, "client '%s' neither waits nor has a period",
					 cl->name);
	}
	return 0;
}

/* Splits @buf at blanks, up to a '#'; returns the count or -E2BIG. */
static int scn_tokens(char *buf, char **tok)
{
	char *hash = strchr(buf, '#'), *save, *t;
	int n = 0;

	if (hash)
		*hash = '\0';
	for (t = strtok_r(buf, " \t\r\n", &save); t;
	     t = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == SCN_MAX_TOKENS)
			return -E2BIG;
		tok[n++] = t;
	}
	return n;
}

static void scn_set_name(struct scenario *s, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;
	char *c;

	base = base ? base + 1 : path;
	len = strrchr(base, '.') ? (size_t)(strrchr(base, '.') - base) :
				   strlen(base);
	if (len >= sizeof(s->name))
		len = sizeof(s->name) - 1;
	memcpy(s->name, base, len);
	s->name[len] = '\0';
	/* It names the scenario in the CSV: no commas, no blanks. */
	for (c = s->name; *c; c++)
		if (!scn_name_char(*c))
			*c = '_';
}

/**
 * scn_parse - read a scenario file
 * @s: Filled in; zeroed first.
 * @path: The file.
 * @err: Where errors go, as "FILE:LINE: what".
 *
 * Return: 0, or a negative errno with the first error written to @err.
 */
int scn_parse(struct scenario *s, const char *path, FILE *err)
{
	struct scn_parser p = { .s = s, .err = err };
	char *buf = NULL, **tok = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int n, ret = 0;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->n_phases = 1;
	strcpy(s->phases[0].name, "warmup");
	scn_set_name(s, path);

	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		fprintf(err, "%s: %s\n", path, strerror(errno));
		return ret;
	}
	tok = calloc(SCN_MAX_TOKENS, sizeof(*tok));
	if (!tok) {
		fclose(f);
		return -ENOMEM;
	}
	while ((len = getline(&buf, &cap, f)) >= 0) {
		p.line++;
		if (len > SCN_LINE_LEN + 1) {
			ret = scn_error(&p, "line longer than %d characters",
					SCN_LINE_LEN);
			break;
		}
		n = scn_tokens(buf, tok);
		if (n < 0) {
			ret = scn_error(&p, "too many words");
			break;
		}
		if (!n)
			continue;
		ret = scn_line(&p, tok, n);
		if (ret)
			break;
	}
	if (!ret && ferror(f))
		ret = scn_error(&p, "read error");
	if (!ret)
		ret = scn_check(&p);
	free(buf);
	free(tok);
	fclose(f);
	return ret;
}

/**
 * scn_resolve - size a scenario's buffers for a device
 * @s: A parsed scenario.
 * @vram_size: The device's VRAM, for sizes given as fractions of it.
 * @page: Sizes round down to this.
 * @err: Where errors go.
 *
 * Return: 0, or -EINVAL if a buffer rounds down to nothing.
 */
int scn_resolve(struct scenario *s, __u64 vram_size, __u64 page, FILE *err)
{
	struct scn_bo *bo;
	unsigned int i;

	for (i = 0; i < s->n_bos; i++) {
		bo = &s->bos[i];
		if (bo->size_den)
			bo->size = vram_size / bo->size_den * bo->size_num;
		bo->size = bo->size / page * page;
		if (bo->placements == VTTM_PLACE_VRAM && bo->size > vram_size) {
			fprintf(err, "%s: group '%s': larger than VRAM (%llu bytes)\n",
				s->path, s->groups[bo->group].name,
				(unsigned long long)vram_size);
			return -EINVAL;
		}
		if (!bo->size) {
			fprintf(err, "%s: group '%s': under a page with %llu bytes of VRAM\n",
				s->path, s->groups[bo->group].name,
				(unsigned long long)vram_size);
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * scn_total_frames - the frames of a run, warm-up included
 * @s: A scenario.
 *
 * Return: The sum of every phase's frames.
 */
unsigned int scn_total_frames(const struct scenario *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->n_phases; i++)
		n += s->phases[i].frames;
	return n;
}

/**
 * scn_frame_phase - the phase a frame belongs to
 * @s: A scenario.
 * @frame: A frame of the run, from 0, warm-up included.
 *
 * Return: The phase; 0 is the warm-up.
 */
unsigned int scn_frame_phase(const struct scenario *s, unsigned int frame)
{
	unsigned int i;

	for (i = 0; i < s->n_phases - 1; i++) {
		if (frame < s->phases[i].frames)
			return i;
		frame -= s->phases[i].frames;
	}
	return s->n_phases - 1;
}

/**
 * scn_group_size - how many buffers of a group exist in a phase
 * @s: A scenario.
 * @g: One of its groups.
 * @phase: A phase; 0 is the warm-up, before which the first ones exist.
 *
 * Return: The number of the group's buffers created by @phase.
 */
unsigned int scn_group_size(const struct scenario *s,
			    const struct scn_group *g, unsigned int phase)
{
	unsigned int n = 0;

	while (n < g->n_bos && s->bos[g->bos[n]].phase <= phase)
		n++;
	return n;
}

/**
 * scn_job_bos - the buffers of a job in one of its client's loops
 * @s: A scenario.
 * @job: One of its jobs.
 * @loop: The client's loop, from 0; windows move on with it.
 * @phase: The phase the loop runs in: a window spans the group's buffers
 *	that exist by then.
 * @bos: Filled with indices into @s->bos; VTTM_SUBMIT_MAX_BOS at most.
 *
 * Return: The number of buffers.
 */
unsigned int scn_job_bos(const struct scenario *s, const struct scn_job *job,
			 unsigned int loop, unsigned int phase,
			 unsigned int *bos)
{
	unsigned int i, k, n = 0, size, first;

	for (i = 0; i < job->n_refs; i++) {
		const struct scn_ref *r = &s->refs[job->first_ref + i];
		const struct scn_group *g = &s->groups[r->group];

		size = scn_group_size(s, g, phase);
		switch (r->kind) {
		case SCN_REF_ALL:
			for (k = 0; k < size; k++)
				bos[n++] = g->bos[k];
			break;
		case SCN_REF_RANGE:
			for (k = r->a; k <= r->b; k++)
				bos[n++] = g->bos[k];
			break;
		case SCN_REF_WINDOW:
			first = (unsigned int)(((unsigned long long)loop * r->b) %
					       size);
			for (k = 0; k < r->a; k++)
				bos[n++] = g->bos[(first + k) % size];
			break;
		}
	}
	return n;
}

/**
 * scn_level_name - a residency level's name in scenario files
 * @level: A VTTM_RESIDENCY_* level.
 *
 * Return: Its name.
 */
const char *scn_level_name(__u32 level)
{
	return level < VTTM_NUM_RESIDENCY ? level_names[level] : "?";
}
