// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the files of the dmem cgroup controller, as userspace sees
 * them and Documentation/admin-guide/cgroup-v2.rst describes them: which
 * cgroups have which file, their format and defaults, the values a write
 * takes, the errno of every malformed write and that it changes nothing,
 * and the write sequence that dmemcg-booster and foreground boosters use.
 *
 * The tests of values need a region, which a driver registers (xe, amdgpu,
 * or the vttm test device); without one they skip and say so. main()
 * enables dmem in the root's cgroup.subtree_control first: on 7.3 the
 * root showed no dmem files before that.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <limits.h>
#include <linux/limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"

#define MAX_REGIONS	64
/* Enough for the lines of MAX_REGIONS regions. */
#define FILE_SIZE	16384
#define DMEM_MAX	ULLONG_MAX

struct dmem_region {
	char name[128];
	unsigned long long size;
};

static struct dmem_region regions[MAX_REGIONS];
static int nr_regions;

/*
 * Reads "<region> <bytes|max>" lines, one space between the fields and
 * nothing else on the line, into @out: the number of lines, or -1 if one
 * has another format.
 */
static int parse_lines(const char *text, struct dmem_region *out, int max)
{
	const char *line = text;
	int n = 0;

	while (*line) {
		const char *eol = strchrnul(line, '\n');
		char value[32], *end;
		int len = 0;

		if (n == max ||
		    sscanf(line, "%127[^\n ]%*1[ ]%31[^\n ]%n", out[n].name,
			   value, &len) != 2 || line + len != eol)
			return -1;

		if (!strcmp(value, "max")) {
			out[n].size = DMEM_MAX;
		} else {
			errno = 0;
			out[n].size = strtoull(value, &end, 10);
			if (errno || *end || value[0] == '-')
				return -1;
		}
		n++;
		line = *eol ? eol + 1 : eol;
	}
	return n;
}

static int read_file_lines(const char *cg, const char *file,
			   struct dmem_region *out, int max)
{
	static char buf[FILE_SIZE];

	if (cg_read(cg, file, buf, sizeof(buf)))
		return -1;
	return parse_lines(buf, out, max);
}

/* The value @file of @cg shows for @region, or -1 if it shows none. */
static int region_value(const char *cg, const char *file, const char *region,
			unsigned long long *val)
{
	struct dmem_region lines[MAX_REGIONS];
	int i, n;

	n = read_file_lines(cg, file, lines, MAX_REGIONS);
	for (i = 0; i < n; i++) {
		if (!strcmp(lines[i].name, region)) {
			*val = lines[i].size;
			return 0;
		}
	}
	return -1;
}

static bool value_is(const char *cg, const char *file, const char *region,
		     unsigned long long want)
{
	unsigned long long val;

	return !region_value(cg, file, region, &val) && val == want;
}

/* Writes "@region @value" to @file of @cg: 0 or -errno. */
static int write_region(const char *cg, const char *file, const char *region,
			const char *value)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%.127s %.31s", region, value);
	return cg_write(cg, file, buf);
}

/* Whether the value tests can run: skip without a region, fail on a bad one. */
static int regions_missing(void)
{
	if (nr_regions < 0)
		return KSFT_FAIL;
	return nr_regions ? 0 : KSFT_SKIP;
}

static char *child_create(const char *root, const char *name)
{
	char *cg = cg_name(root, name);

	if (cg && cg_create(cg)) {
		free(cg);
		return NULL;
	}
	return cg;
}

static void child_destroy(char *cg)
{
	if (!cg)
		return;
	cg_destroy(cg);
	free(cg);
}

static bool has_file(const char *cg, const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return !access(path, F_OK);
}

/*
 * dmem.capacity is on the root only, dmem.peak, min, low and max below it
 * only, dmem.current on both (cgroup-v2.rst says it is not on the root;
 * on 7.3 it is, with the total charged). capacity, current and peak have
 * no write bits in their mode, and a write to them fails.
 */
static int test_dmem_files(const char *root)
{
	static const char * const child_files[] = {
		"dmem.current", "dmem.peak", "dmem.min", "dmem.low", "dmem.max",
	};
	/* The first on the root, the others on the child. */
	static const char * const read_only[] = {
		"dmem.capacity", "dmem.current", "dmem.peak",
	};
	int ret = KSFT_FAIL;
	char *cg;
	int i;

	cg = child_create(root, "dmem_files");
	if (!cg)
		return KSFT_FAIL;

	if (!has_file(root, "dmem.capacity") || has_file(cg, "dmem.capacity")) {
		ksft_print_msg("dmem.capacity is not on the root alone\n");
		goto out;
	}
	if (!has_file(root, "dmem.current")) {
		ksft_print_msg("no dmem.current on the root\n");
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(child_files); i++) {
		if (!has_file(cg, child_files[i]) ||
		    (i && has_file(root, child_files[i]))) {
			ksft_print_msg("%s is not below the root alone\n",
				       child_files[i]);
			goto out;
		}
	}

	for (i = 0; i < ARRAY_SIZE(read_only); i++) {
		const char *cgroup = i ? cg : root;
		char path[PATH_MAX];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", cgroup, read_only[i]);
		if (stat(path, &st) || (st.st_mode & 0222) ||
		    cg_write(cgroup, read_only[i], "x 1") >= 0) {
			ksft_print_msg("%s is writable\n", read_only[i]);
			goto out;
		}
	}
	ret = KSFT_PASS;
out:
	child_destroy(cg);
	return ret;
}

/*
 * dmem.capacity: one "<region> <bytes>" line per region, each region once,
 * its size a number and not zero; the root's dmem.current names the same
 * regions in the same order.
 */
static int test_dmem_capacity_format(const char *root)
{
	static struct dmem_region current[MAX_REGIONS];
	int i, j, n;
	int skip;

	skip = regions_missing();
	if (skip)
		return skip;
	for (i = 0; i < nr_regions; i++) {
		if (!regions[i].size || regions[i].size == DMEM_MAX)
			return KSFT_FAIL;
		for (j = 0; j < i; j++)
			if (!strcmp(regions[i].name, regions[j].name))
				return KSFT_FAIL;
	}

	n = read_file_lines(root, "dmem.current", current, MAX_REGIONS);
	if (n != nr_regions)
		return KSFT_FAIL;
	for (i = 0; i < n; i++)
		if (strcmp(current[i].name, regions[i].name))
			return KSFT_FAIL;
	return KSFT_PASS;
}

/* A new cgroup: nothing used, no protection, no limit, for every region. */
static int test_dmem_defaults(const char *root)
{
	int ret = KSFT_FAIL;
	char *cg;
	int i;
	int skip;

	skip = regions_missing();
	if (skip)
		return skip;
	cg = child_create(root, "dmem_defaults");
	if (!cg)
		return KSFT_FAIL;

	for (i = 0; i < nr_regions; i++) {
		const char *r = regions[i].name;

		if (!value_is(cg, "dmem.current", r, 0) ||
		    !value_is(cg, "dmem.peak", r, 0) ||
		    !value_is(cg, "dmem.min", r, 0) ||
		    !value_is(cg, "dmem.low", r, 0) ||
		    !value_is(cg, "dmem.max", r, DMEM_MAX))
			goto out;
	}
	ret = KSFT_PASS;
out:
	child_destroy(cg);
	return ret;
}

/* Bytes, memparse suffixes and "max" are taken, and read back in bytes. */
static int test_dmem_write_formats(const char *root)
{
	static const char * const files[] = { "dmem.min", "dmem.low",
					      "dmem.max" };
	static const struct {
		const char *text;
		unsigned long long bytes;
	} values[] = {
		{ "4096", 4096 },
		{ "64K", 64 << 10 },
		{ "1M", 1 << 20 },
		{ "1G", 1ULL << 30 },
		{ "0", 0 },
		{ "max", DMEM_MAX },
	};
	const char *r = regions[0].name;
	int ret = KSFT_FAIL;
	char buf[256];
	unsigned int f, v;
	char *cg;
	int skip;

	skip = regions_missing();
	if (skip)
		return skip;
	cg = child_create(root, "dmem_formats");
	if (!cg)
		return KSFT_FAIL;

	for (f = 0; f < ARRAY_SIZE(files); f++) {
		for (v = 0; v < ARRAY_SIZE(values); v++) {
			if (write_region(cg, files[f], r, values[v].text) ||
			    !value_is(cg, files[f], r, values[v].bytes)) {
				ksft_print_msg("%s: \"%s %s\" not read back\n",
					       files[f], r, values[v].text);
				goto out;
			}
		}
		/* Blanks around the line and a tab between its fields. */
		snprintf(buf, sizeof(buf), "  %.127s\t8192\n", r);
		if (cg_write(cg, files[f], buf) ||
		    !value_is(cg, files[f], r, 8192))
			goto out;
	}
	ret = KSFT_PASS;
out:
	child_destroy(cg);
	return ret;
}

/* dmem.min, dmem.low and dmem.max of @cg, one after the other, in @buf. */
static int read_all(const char *cg, char *buf, size_t size)
{
	static const char * const files[] = { "dmem.min", "dmem.low",
					      "dmem.max" };
	size_t len = 0;
	unsigned int f;

	for (f = 0; f < ARRAY_SIZE(files); f++) {
		if (cg_read(cg, files[f], buf + len, size - len))
			return -1;
		len += strlen(buf + len);
	}
	return 0;
}

/* Every malformed write fails with EINVAL and leaves the values as they were. */
static int test_dmem_bad_writes_change_nothing(const char *root)
{
	static const char * const files[] = { "dmem.min", "dmem.low",
					      "dmem.max" };
	static char before[3 * FILE_SIZE], after[3 * FILE_SIZE];
	const char *r = regions[0].name;
	char bad[8][320];
	int ret = KSFT_FAIL;
	unsigned int f, b;
	char *cg;
	int skip;

	skip = regions_missing();
	if (skip)
		return skip;
	snprintf(bad[0], sizeof(bad[0]), "\n");
	snprintf(bad[1], sizeof(bad[1]), "%.127s", r);
	snprintf(bad[2], sizeof(bad[2]), "%.127s abc", r);
	snprintf(bad[3], sizeof(bad[3]), "%.127s 12x", r);
	snprintf(bad[4], sizeof(bad[4]), "%.127s -1", r);
	snprintf(bad[5], sizeof(bad[5]), "%.127s 4096 4096", r);
	snprintf(bad[6], sizeof(bad[6]), "%.127s 4096\n%.127s 4096", r, r);
	snprintf(bad[7], sizeof(bad[7]), "no/such/region 4096");

	cg = child_create(root, "dmem_bad_writes");
	if (!cg)
		return KSFT_FAIL;

	for (f = 0; f < ARRAY_SIZE(files); f++) {
		if (write_region(cg, files[f], r, "8192") ||
		    read_all(cg, before, sizeof(before)))
			goto out;
		for (b = 0; b < ARRAY_SIZE(bad); b++) {
			int err = cg_write(cg, files[f], bad[b]);

			/* Nothing changed, in this file or another. */
			if (err != -EINVAL ||
			    read_all(cg, after, sizeof(after)) ||
			    strcmp(before, after)) {
				ksft_print_msg("%s: \"%s\" returned %d\n",
					       files[f], bad[b], err);
				goto out;
			}
		}
	}
	ret = KSFT_PASS;
out:
	child_destroy(cg);
	return ret;
}

/*
 * What a limit of @bytes reads back as: the page counter behind it holds
 * at most LONG_MAX, shown as "max", which matters on 32-bit kernels.
 */
static unsigned long long shown(unsigned long long bytes)
{
	return bytes >= (unsigned long long)LONG_MAX ? DMEM_MAX : bytes;
}

/*
 * dmemcg-booster's sequence: +dmem into cgroup.subtree_control, parents
 * first; the root's dmem.capacity copied into a child's dmem.low, region
 * by region; then dmem.low changed per application.
 */
static int test_dmem_booster_sequence(const char *root)
{
	char *parent = NULL, *app = NULL;
	int ret = KSFT_FAIL;
	char buf[256];
	int i;
	int skip;

	skip = regions_missing();
	if (skip)
		return skip;
	parent = child_create(root, "dmem_booster");
	if (!parent)
		goto out;
	app = cg_name(parent, "app");
	if (!app)
		goto out;

	/* The child of a parent without +dmem has no dmem files. */
	if (cg_create(app) || has_file(app, "dmem.low"))
		goto out;
	if (cg_destroy(app))
		goto out;

	if (cg_write(parent, "cgroup.subtree_control", "+dmem") ||
	    cg_read_strstr(parent, "cgroup.subtree_control", "dmem") ||
	    cg_create(app) || !has_file(app, "dmem.low"))
		goto out;

	for (i = 0; i < nr_regions; i++) {
		snprintf(buf, sizeof(buf), "%.127s %llu", regions[i].name,
			 regions[i].size);
		if (cg_write(app, "dmem.low", buf) ||
		    !value_is(app, "dmem.low", regions[i].name,
			      shown(regions[i].size)))
			goto out;
	}

	/* The app loses focus: its protection goes, the others' stay. */
	if (write_region(app, "dmem.low", regions[0].name, "0") ||
	    !value_is(app, "dmem.low", regions[0].name, 0))
		goto out;
	for (i = 1; i < nr_regions; i++)
		if (!value_is(app, "dmem.low", regions[i].name,
			      shown(regions[i].size)))
			goto out;
	ret = KSFT_PASS;
out:
	child_destroy(app);
	child_destroy(parent);
	return ret;
}

#define T(x) { x, #x }
static const struct dmem_test {
	int (*fn)(const char *root);
	const char *name;
} tests[] = {
	T(test_dmem_files),
	T(test_dmem_capacity_format),
	T(test_dmem_defaults),
	T(test_dmem_write_formats),
	T(test_dmem_bad_writes_change_nothing),
	T(test_dmem_booster_sequence),
};

#undef T

int main(int argc, char **argv)
{
	char root[PATH_MAX];
	int i;

	ksft_print_header();
	if (cg_find_unified_root(root, sizeof(root), NULL))
		ksft_exit_skip("cgroup v2 isn't mounted\n");
	if (cg_read_strstr(root, "cgroup.controllers", "dmem"))
		ksft_exit_skip("dmem controller isn't available (CONFIG_CGROUP_DMEM)\n");
	if (cg_read_strstr(root, "cgroup.subtree_control", "dmem") &&
	    cg_write(root, "cgroup.subtree_control", "+dmem"))
		ksft_exit_skip("Failed to enable the dmem controller\n");

	nr_regions = read_file_lines(root, "dmem.capacity", regions,
				     MAX_REGIONS);
	if (!nr_regions)
		ksft_print_msg("no dmem region registered: value tests skip\n");
	else if (nr_regions < 0)
		ksft_print_msg("dmem.capacity is not \"<region> <bytes>\" lines\n");

	ksft_set_plan(ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		switch (tests[i].fn(root)) {
		case KSFT_PASS:
			ksft_test_result_pass("%s\n", tests[i].name);
			break;
		case KSFT_SKIP:
			ksft_test_result_skip("%s\n", tests[i].name);
			break;
		default:
			ksft_test_result_fail("%s\n", tests[i].name);
			break;
		}
	}

	ksft_finished();
}
