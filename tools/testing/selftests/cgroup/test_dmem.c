// SPDX-License-Identifier: GPL-2.0
/*
 * The dmem controller's files, as userspace sees them: where they exist,
 * what they read, and which writes they refuse.
 *
 * Charging needs a device that registers a region. Without one, the tests
 * that need a region skip and say so.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"

static char region[256];

/* The name of the first registered region, or false if there is none. */
static bool find_region(const char *root)
{
	char buf[4096];

	if (cg_read(root, "dmem.capacity", buf, sizeof(buf)))
		return false;
	if (sscanf(buf, "%255s", region) != 1)
		return false;
	return true;
}

static bool cg_has_file(const char *cgroup, const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", cgroup, file);
	return access(path, F_OK) == 0;
}

/* Expect @file of @cgroup to read "<region> <value>\n". */
static bool region_reads(const char *cgroup, const char *file,
			 const char *value)
{
	char want[512], buf[4096];

	snprintf(want, sizeof(want), "%s %s\n", region, value);
	if (cg_read(cgroup, file, buf, sizeof(buf)))
		return false;
	if (!strstr(buf, want)) {
		ksft_print_msg("%s reads \"%s\", want a line \"%s\"\n", file,
			       buf, want);
		return false;
	}
	return true;
}

static int region_write(const char *cgroup, const char *file,
			const char *value)
{
	char line[512];

	snprintf(line, sizeof(line), "%s %s\n", region, value);
	return cg_write(cgroup, file, line);
}

static char *dmem_child(const char *root, const char *name)
{
	char *cg = cg_name(root, name);

	if (!cg)
		return NULL;
	if (cg_create(cg)) {
		free(cg);
		return NULL;
	}
	return cg;
}

static void dmem_child_destroy(char *cg)
{
	if (cg) {
		cg_destroy(cg);
		free(cg);
	}
}

/*
 * The files of a child appear with "+dmem" in its parent's subtree_control
 * and go with "-dmem". dmem.capacity is on the root only, the rest on
 * children only.
 */
static int test_dmem_files_follow_subtree_control(const char *root)
{
	static const char * const child_files[] = {
		"dmem.current", "dmem.min", "dmem.low", "dmem.max",
	};
	int ret = KSFT_FAIL;
	char *cg;
	int i;

	cg = dmem_child(root, "dmem_test_files");
	if (!cg)
		return KSFT_FAIL;

	if (cg_write(root, "cgroup.subtree_control", "-dmem"))
		goto out;
	for (i = 0; i < ARRAY_SIZE(child_files); i++)
		if (cg_has_file(cg, child_files[i]))
			goto out;

	if (cg_write(root, "cgroup.subtree_control", "+dmem"))
		goto out;
	for (i = 0; i < ARRAY_SIZE(child_files); i++) {
		if (!cg_has_file(cg, child_files[i]))
			goto out;
		if (cg_has_file(root, child_files[i]))
			goto out;
	}
	if (cg_has_file(cg, "dmem.capacity") ||
	    !cg_has_file(root, "dmem.capacity"))
		goto out;

	ret = KSFT_PASS;
out:
	dmem_child_destroy(cg);
	return ret;
}

/* dmem.capacity and dmem.current take no writes. */
static int test_dmem_read_only_files(const char *root)
{
	int ret = KSFT_FAIL;
	char *cg;

	cg = dmem_child(root, "dmem_test_read_only");
	if (!cg)
		return KSFT_FAIL;

	if (!cg_write(root, "dmem.capacity", "x 1\n"))
		goto out;
	if (!cg_write(cg, "dmem.current", "x 1\n"))
		goto out;

	ret = KSFT_PASS;
out:
	dmem_child_destroy(cg);
	return ret;
}

/* Writes that name no registered region fail with EINVAL. */
static int test_dmem_unknown_region(const char *root)
{
	static const char * const bad[] = {
		"nosuch/region 1M\n", "garbage\n", "nosuch 1M 2M\n",
	};
	static const char * const files[] = {
		"dmem.min", "dmem.low", "dmem.max",
	};
	char before[4096], after[4096];
	int ret = KSFT_FAIL;
	int i, j;
	char *cg;

	cg = dmem_child(root, "dmem_test_unknown");
	if (!cg)
		return KSFT_FAIL;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (cg_read(cg, files[i], before, sizeof(before)))
			goto out;
		for (j = 0; j < ARRAY_SIZE(bad); j++) {
			int err = cg_write(cg, files[i], (char *)bad[j]);

			if (err != -EINVAL) {
				ksft_print_msg("%s < \"%s\": %d, want %d\n",
					       files[i], bad[j], err, -EINVAL);
				goto out;
			}
		}
		if (cg_read(cg, files[i], after, sizeof(after)) ||
		    strcmp(before, after))
			goto out;
	}

	ret = KSFT_PASS;
out:
	dmem_child_destroy(cg);
	return ret;
}

/* Every region has a line, with its defaults, in every file. */
static int test_dmem_defaults(const char *root)
{
	int ret = KSFT_FAIL;
	char *cg;

	if (!find_region(root)) {
		ksft_print_msg("no dmem region: needs a device that registers one\n");
		return KSFT_SKIP;
	}

	cg = dmem_child(root, "dmem_test_defaults");
	if (!cg)
		return KSFT_FAIL;

	if (region_reads(cg, "dmem.max", "max") &&
	    region_reads(cg, "dmem.min", "0") &&
	    region_reads(cg, "dmem.low", "0") &&
	    region_reads(cg, "dmem.current", "0"))
		ret = KSFT_PASS;

	dmem_child_destroy(cg);
	return ret;
}

/* Limits take bytes, memparse() suffixes and "max", and read back bytes. */
static int test_dmem_limit_formats(const char *root)
{
	static const struct {
		const char *write, *read;
	} cases[] = {
		{ "4096", "4096" }, { "1M", "1048576" }, { "4k", "4096" },
		{ "2G", "2147483648" }, { "max", "max" }, { "0", "0" },
	};
	static const char * const files[] = {
		"dmem.min", "dmem.low", "dmem.max",
	};
	int ret = KSFT_FAIL;
	int i, j;
	char *cg;

	if (!find_region(root)) {
		ksft_print_msg("no dmem region: needs a device that registers one\n");
		return KSFT_SKIP;
	}

	cg = dmem_child(root, "dmem_test_formats");
	if (!cg)
		return KSFT_FAIL;

	for (i = 0; i < ARRAY_SIZE(files); i++)
		for (j = 0; j < ARRAY_SIZE(cases); j++)
			if (region_write(cg, files[i], cases[j].write) ||
			    !region_reads(cg, files[i], cases[j].read))
				goto out;

	ret = KSFT_PASS;
out:
	dmem_child_destroy(cg);
	return ret;
}

/* A malformed value fails with EINVAL and leaves the old one. */
static int test_dmem_bad_values(const char *root)
{
	static const char * const bad[] = {
		"lots", "-1", "", "1M 2M", "4KB", "1.5G",
	};
	int ret = KSFT_FAIL;
	char *cg;
	int i;

	if (!find_region(root)) {
		ksft_print_msg("no dmem region: needs a device that registers one\n");
		return KSFT_SKIP;
	}

	cg = dmem_child(root, "dmem_test_bad_values");
	if (!cg)
		return KSFT_FAIL;

	if (region_write(cg, "dmem.max", "8192"))
		goto out;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = region_write(cg, "dmem.max", bad[i]);

		if (err != -EINVAL) {
			ksft_print_msg("dmem.max < \"%s %s\": %d, want %d\n",
				       region, bad[i], err, -EINVAL);
			goto out;
		}
	}
	if (region_reads(cg, "dmem.max", "8192"))
		ret = KSFT_PASS;
out:
	dmem_child_destroy(cg);
	return ret;
}

#define T(x) { x, #x }
static const struct {
	int (*fn)(const char *root);
	const char *name;
} tests[] = {
	T(test_dmem_files_follow_subtree_control),
	T(test_dmem_read_only_files),
	T(test_dmem_unknown_region),
	T(test_dmem_defaults),
	T(test_dmem_limit_formats),
	T(test_dmem_bad_values),
};

#undef T

int main(int argc, char **argv)
{
	char root[PATH_MAX];
	int i;

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(tests));
	if (cg_find_unified_root(root, sizeof(root), NULL))
		ksft_exit_skip("cgroup v2 isn't mounted\n");
	if (cg_read_strstr(root, "cgroup.controllers", "dmem"))
		ksft_exit_skip("dmem controller isn't available\n");
	if (cg_read_strstr(root, "cgroup.subtree_control", "dmem") &&
	    cg_write(root, "cgroup.subtree_control", "+dmem"))
		ksft_exit_skip("Failed to enable the dmem controller\n");

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
