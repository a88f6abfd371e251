// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the dmem cgroup controller.
 *
 * The cgroups here are built by the test, outside the cgroup tree, so that
 * each test sets up exactly the hierarchy it checks.
 */

#include <kunit/test.h>
#include <linux/cgroup_dmem.h>
#include <linux/page_counter.h>
#include <linux/sizes.h>

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static void dmem_test_unregister(void *region)
{
	dmem_cgroup_unregister_region(region);
}

static struct dmem_cgroup_region *dmem_test_region(struct kunit *test)
{
	struct dmem_cgroup_region *region;
	int ret;

	region = dmem_cgroup_register_region(SZ_1G, "kunit/%s", test->name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, region);
	ret = kunit_add_action_or_reset(test, dmem_test_unregister, region);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return region;
}

static u64 dmem_test_current(struct dmem_cgroup_pool_state *pool)
{
	return dmem_cgroup_kunit_read(pool, DMEM_CGROUP_CURRENT);
}

static void dmem_test_set(struct kunit *test,
			  struct dmem_cgroup_pool_state *pool,
			  enum dmem_cgroup_file file, const char *value)
{
	char line[128];

	snprintf(line, sizeof(line), "kunit/%s %s\n", test->name, value);
	KUNIT_ASSERT_EQ(test, dmem_cgroup_kunit_write(pool, file, line), 0);
}

static void dmem_test_charge(struct kunit *test,
			     struct dmem_cgroup_pool_state *pool, u64 size)
{
	KUNIT_ASSERT_EQ(test, dmem_cgroup_kunit_charge(pool, size, NULL), 0);
}

static void dmem_charge_uncharge(struct kunit *test)
{
	struct dmem_cgroup_region *region = dmem_test_region(test);
	struct dmem_cgroup_pool_state *pool, *limit = NULL;

	KUNIT_ASSERT_EQ(test, dmem_cgroup_try_charge(region, SZ_4K, &pool,
						     &limit), 0);
	KUNIT_ASSERT_NOT_NULL(test, pool);
	KUNIT_EXPECT_NULL(test, limit);
	KUNIT_EXPECT_EQ(test, dmem_test_current(pool), SZ_4K);

	dmem_cgroup_uncharge(pool, SZ_4K);
}

static void dmem_charge_null_region(struct kunit *test)
{
	struct dmem_cgroup_pool_state *pool = (void *)1, *limit = (void *)1;

	KUNIT_EXPECT_EQ(test, dmem_cgroup_try_charge(NULL, SZ_4K, &pool,
						     &limit), 0);
	KUNIT_EXPECT_NULL(test, pool);
	KUNIT_EXPECT_NULL(test, limit);
}

static void dmem_current_is_hierarchical(struct kunit *test)
{
	struct dmem_cgroup_region *region = dmem_test_region(test);
	struct dmem_cgroup_pool_state *root, *a, *b;

	root = dmem_cgroup_kunit_pool(test, region, NULL);
	a = dmem_cgroup_kunit_pool(test, region, root);
	b = dmem_cgroup_kunit_pool(test, region, a);

	dmem_test_charge(test, b, SZ_8K);
	dmem_test_charge(test, a, SZ_4K);
	KUNIT_EXPECT_EQ(test, dmem_test_current(b), SZ_8K);
	KUNIT_EXPECT_EQ(test, dmem_test_current(a), SZ_8K + SZ_4K);
	KUNIT_EXPECT_EQ(test, dmem_test_current(root), SZ_8K + SZ_4K);

	dmem_cgroup_uncharge(b, SZ_8K);
	dmem_cgroup_uncharge(a, SZ_4K);
	KUNIT_EXPECT_EQ(test, dmem_test_current(root), 0);
}

static void dmem_max_fails_charge(struct kunit *test)
{
	struct dmem_cgroup_region *region = dmem_test_region(test);
	struct dmem_cgroup_pool_state *root, *a, *limit = NULL;

	root = dmem_cgroup_kunit_pool(test, region, NULL);
	a = dmem_cgroup_kunit_pool(test, region, root);
	dmem_test_set(test, a, DMEM_CGROUP_MAX, "8K");

	dmem_test_charge(test, a, SZ_4K);
	KUNIT_EXPECT_EQ(test, dmem_cgroup_kunit_charge(a, SZ_8K, &limit),
			-EAGAIN);
	KUNIT_EXPECT_PTR_EQ(test, limit, a);
	KUNIT_EXPECT_EQ(test, dmem_test_current(a), SZ_4K);
	dmem_cgroup_pool_state_put(limit);

	dmem_test_charge(test, a, SZ_4K);
	KUNIT_EXPECT_EQ(test, dmem_test_current(a), SZ_8K);
	dmem_cgroup_uncharge(a, SZ_4K);
	dmem_cgroup_uncharge(a, SZ_4K);
}

static void dmem_max_of_ancestor_names_it(struct kunit *test)
{
	struct dmem_cgroup_region *region = dmem_test_region(test);
	struct dmem_cgroup_pool_state *root, *a, *b, *limit = NULL;

	root = dmem_cgroup_kunit_pool(test, region, NULL);
	a = dmem_cgroup_kunit_pool(test, region, root);
	b = dmem_cgroup_kunit_pool(test, region, a);
	dmem_test_set(test, a, DMEM_CGROUP_MAX, "4K");

	KUNIT_EXPECT_EQ(test, dmem_cgroup_kunit_charge(b, SZ_8K, &limit),
			-EAGAIN);
	KUNIT_EXPECT_PTR_EQ(test, limit, a);
	KUNIT_EXPECT_EQ(test, dmem_test_current(b), 0);
	KUNIT_EXPECT_EQ(test, dmem_test_current(a), 0);
	dmem_cgroup_pool_state_put(limit);
}

static void dmem_max_below_usage_keeps_charges(struct kunit *test)
{
	struct dmem_cgroup_region *region = dmem_test_region(test);
	struct dmem_cgroup_pool_state *root, *a;

	root = dmem_cgroup_kunit_pool(test, region, NULL);
	a = dmem_cgroup_kunit_pool(test, region, root);
	dmem_test_charge(test, a, SZ_8K);

	dmem_test_set(test, a, DMEM_CGROUP_MAX, "4K");
	KUNIT_EXPECT_EQ(test, dmem_cgroup_kunit_read(a, DMEM_CGROUP_MAX), SZ_4K);
	KUNIT_EXPECT_EQ(test, dmem_test_current(a), SZ_8K);
	KUNIT_EXPECT_EQ(test, dmem_cgroup_kunit_charge(a, 1, NULL), -EAGAIN);
	dmem_cgroup_uncharge(a, SZ_8K);
}

static void dmem_min_is_never_valuable(struct kunit *test)
{
	struct dmem_cgroup_region *region = dmem_test_region(test);
	struct dmem_cgroup_pool_state *root, *a;
	bool hit_low = false;

	root = dmem_cgroup_kunit_pool(test, region, NULL);
	a = dmem_cgroup_kunit_pool(test, region, root);
	dmem_test_set(test, a, DMEM_CGROUP_MIN, "16K");
	dmem_test_charge(test, a, SZ_16K);

	KUNIT_EXPECT_TRUE(test, dmem_cgroup_below_min(NULL, a));
	KUNIT_EXPECT_FALSE(test, dmem_cgroup_state_evict_valuable(NULL, a, false,
								  &hit_low));
	KUNIT_EXPECT_FALSE(test, dmem_cgroup_state_evict_valuable(NULL, a, true,
								  &hit_low));
	KUNIT_EXPECT_FALSE(test, hit_low);

	/* One byte over its protection, and the pool is fair game. */
	dmem_test_charge(test, a, 1);
	KUNIT_EXPECT_FALSE(test, dmem_cgroup_below_min(NULL, a));
	KUNIT_EXPECT_TRUE(test, dmem_cgroup_state_evict_valuable(NULL, a, false,
								 &hit_low));
	dmem_cgroup_uncharge(a, 1);
	dmem_cgroup_uncharge(a, SZ_16K);
}

static void dmem_low_is_valuable_in_second_pass(struct kunit *test)
{
	struct dmem_cgroup_region *region = dmem_test_region(test);
	struct dmem_cgroup_pool_state *root, *a;
	bool hit_low = false;

	root = dmem_cgroup_kunit_pool(test, region, NULL);
	a = dmem_cgroup_kunit_pool(test, region, root);
	dmem_test_set(test, a, DMEM_CGROUP_LOW, "16K");
	dmem_test_charge(test, a, SZ_8K);

	KUNIT_EXPECT_TRUE(test, dmem_cgroup_below_low(NULL, a));
	KUNIT_EXPECT_FALSE(test, dmem_cgroup_below_min(NULL, a));
	KUNIT_EXPECT_FALSE(test, dmem_cgroup_state_evict_valuable(NULL, a, false,
								  &hit_low));
	KUNIT_EXPECT_TRUE(test, hit_low);
	KUNIT_EXPECT_TRUE(test, dmem_cgroup_state_evict_valuable(NULL, a, true,
								 NULL));
	dmem_cgroup_uncharge(a, SZ_8K);
}

static void dmem_unprotected_is_valuable(struct kunit *test)
{
	struct dmem_cgroup_region *region = dmem_test_region(test);
	struct dmem_cgroup_pool_state *root, *a;
	bool hit_low = false;

	root = dmem_cgroup_kunit_pool(test, region, NULL);
	a = dmem_cgroup_kunit_pool(test, region, root);
	dmem_test_charge(test, a, SZ_8K);

	KUNIT_EXPECT_TRUE(test, dmem_cgroup_state_evict_valuable(NULL, a, false,
								 &hit_low));
	KUNIT_EXPECT_FALSE(test, hit_low);
	KUNIT_EXPECT_TRUE(test, dmem_cgroup_state_evict_valuable(NULL, NULL,
								 false, NULL));
	dmem_cgroup_uncharge(a, SZ_8K);
}

/*
 * Siblings that claim more protection than their parent has share the
 * parent's in proportion to their use of it: each gets half here.
 */
static void dmem_overcommitted_low_is_shared(struct kunit *test)
{
	struct dmem_cgroup_region *region = dmem_test_region(test);
	struct dmem_cgroup_pool_state *root, *p, *a, *b;

	root = dmem_cgroup_kunit_pool(test, region, NULL);
	p = dmem_cgroup_kunit_pool(test, region, root);
	a = dmem_cgroup_kunit_pool(test, region, p);
	b = dmem_cgroup_kunit_pool(test, region, p);
	dmem_test_set(test, p, DMEM_CGROUP_LOW, "16K");
	dmem_test_set(test, a, DMEM_CGROUP_LOW, "16K");
	dmem_test_set(test, b, DMEM_CGROUP_LOW, "16K");
	dmem_test_charge(test, a, SZ_16K);
	dmem_test_charge(test, b, SZ_16K);

	/* 16K used against an effective low of 8K each. */
	KUNIT_EXPECT_FALSE(test, dmem_cgroup_below_low(NULL, a));
	KUNIT_EXPECT_FALSE(test, dmem_cgroup_below_low(NULL, b));

	dmem_cgroup_uncharge(b, SZ_16K);
	dmem_test_charge(test, b, SZ_4K);
	/* 16K + 4K claimed of 16K: a gets 16K * 16 / 20, b 16K * 4 / 20. */
	KUNIT_EXPECT_FALSE(test, dmem_cgroup_below_low(NULL, a));
	KUNIT_EXPECT_FALSE(test, dmem_cgroup_below_low(NULL, b));

	dmem_cgroup_uncharge(a, SZ_16K);
	dmem_test_charge(test, a, SZ_8K);
	/* 8K + 4K claimed of 16K: both fully protected. */
	KUNIT_EXPECT_TRUE(test, dmem_cgroup_below_low(NULL, a));
	KUNIT_EXPECT_TRUE(test, dmem_cgroup_below_low(NULL, b));

	dmem_cgroup_uncharge(a, SZ_8K);
	dmem_cgroup_uncharge(b, SZ_4K);
}

/* A child can't claim more protection than its parent has. */
static void dmem_min_is_capped_by_parent(struct kunit *test)
{
	struct dmem_cgroup_region *region = dmem_test_region(test);
	struct dmem_cgroup_pool_state *root, *p, *a;

	root = dmem_cgroup_kunit_pool(test, region, NULL);
	p = dmem_cgroup_kunit_pool(test, region, root);
	a = dmem_cgroup_kunit_pool(test, region, p);
	dmem_test_set(test, p, DMEM_CGROUP_MIN, "4K");
	dmem_test_set(test, a, DMEM_CGROUP_MIN, "max");
	dmem_test_charge(test, a, SZ_8K);

	KUNIT_EXPECT_FALSE(test, dmem_cgroup_below_min(NULL, a));
	KUNIT_EXPECT_TRUE(test, dmem_cgroup_state_evict_valuable(NULL, a, true,
								 NULL));

	dmem_test_set(test, p, DMEM_CGROUP_MIN, "8K");
	KUNIT_EXPECT_TRUE(test, dmem_cgroup_below_min(NULL, a));
	dmem_cgroup_uncharge(a, SZ_8K);
}

/* Under a limit, protection counts from the limiting cgroup down. */
static void dmem_limit_pool_scopes_eviction(struct kunit *test)
{
	struct dmem_cgroup_region *region = dmem_test_region(test);
	struct dmem_cgroup_pool_state *root, *p, *a, *other;

	root = dmem_cgroup_kunit_pool(test, region, NULL);
	p = dmem_cgroup_kunit_pool(test, region, root);
	a = dmem_cgroup_kunit_pool(test, region, p);
	other = dmem_cgroup_kunit_pool(test, region, root);
	dmem_test_set(test, p, DMEM_CGROUP_MIN, "max");
	dmem_test_charge(test, a, SZ_4K);
	dmem_test_charge(test, other, SZ_4K);

	/* Outside p's subtree: evicting frees nothing under p's limit. */
	KUNIT_EXPECT_FALSE(test, dmem_cgroup_state_evict_valuable(p, other,
								  true, NULL));
	/* p's own min protects p against others, not against itself. */
	KUNIT_EXPECT_TRUE(test, dmem_cgroup_state_evict_valuable(p, a, false,
								 NULL));
	KUNIT_EXPECT_TRUE(test, dmem_cgroup_state_evict_valuable(p, p, false,
								 NULL));
	KUNIT_EXPECT_FALSE(test, dmem_cgroup_state_evict_valuable(NULL, a,
								  true, NULL));
	/* Uncharged memory frees nothing under a limit. */
	KUNIT_EXPECT_FALSE(test, dmem_cgroup_state_evict_valuable(p, NULL,
								  true, NULL));

	dmem_cgroup_uncharge(a, SZ_4K);
	dmem_cgroup_uncharge(other, SZ_4K);
}

static void dmem_unregister_with_charges(struct kunit *test)
{
	struct dmem_cgroup_pool_state *root, *a, *pool;
	struct dmem_cgroup_region *region;

	region = dmem_cgroup_register_region(SZ_1M, "kunit/%s", test->name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, region);
	root = dmem_cgroup_kunit_pool(test, region, NULL);
	a = dmem_cgroup_kunit_pool(test, region, root);
	dmem_test_charge(test, a, SZ_4K);
	KUNIT_ASSERT_EQ(test, dmem_cgroup_try_charge(region, SZ_4K, &pool,
						     NULL), 0);

	dmem_cgroup_unregister_region(region);

	/* The pools outlive the region's registration until uncharged. */
	KUNIT_EXPECT_EQ(test, dmem_test_current(a), SZ_4K);
	KUNIT_EXPECT_EQ(test, dmem_test_current(root), SZ_4K);
	dmem_cgroup_uncharge(a, SZ_4K);
	dmem_cgroup_uncharge(pool, SZ_4K);
}

static void dmem_charge_after_unregister_fails(struct kunit *test)
{
	struct dmem_cgroup_pool_state *pool, *root;
	struct dmem_cgroup_region *region;

	region = dmem_cgroup_register_region(SZ_1M, "kunit/%s", test->name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, region);
	root = dmem_cgroup_kunit_pool(test, region, NULL);
	/* Keep the region alive past unregister through a charge. */
	dmem_test_charge(test, root, SZ_4K);
	dmem_cgroup_unregister_region(region);

	KUNIT_EXPECT_EQ(test, dmem_cgroup_try_charge(region, SZ_4K, &pool,
						     NULL), -ENODEV);
	KUNIT_EXPECT_NULL(test, pool);
	dmem_cgroup_uncharge(root, SZ_4K);
}

static void dmem_register_rejects_bad_names(struct kunit *test)
{
	struct dmem_cgroup_region *region = dmem_test_region(test);

	KUNIT_EXPECT_PTR_EQ(test, dmem_cgroup_register_region(SZ_1M, "kunit/%s",
							      test->name),
			    ERR_PTR(-EBUSY));
	KUNIT_EXPECT_PTR_EQ(test, dmem_cgroup_register_region(SZ_1M, "a b"),
			    ERR_PTR(-EINVAL));
	KUNIT_EXPECT_PTR_EQ(test, dmem_cgroup_register_region(SZ_1M, "%s", ""),
			    ERR_PTR(-EINVAL));
	KUNIT_EXPECT_NULL(test, dmem_cgroup_register_region(0, "kunit/empty"));
	KUNIT_EXPECT_NOT_NULL(test, region);
}

/**
 * struct dmem_parse_case - one write to a limit file
 * @desc: What the case checks.
 * @line: What is written, with each '@' replaced by the region's name.
 * @err: The expected errno, 0 for success.
 * @value: The expected value of dmem.max after a successful write.
 */
struct dmem_parse_case {
	const char *desc;
	const char *line;
	int err;
	u64 value;
};

static const struct dmem_parse_case dmem_parse_cases[] = {
	{ "bytes", "@ 4096\n", 0, 4096 },
	{ "no newline", "@ 12345", 0, 12345 },
	{ "kilobytes", "@ 4K\n", 0, SZ_4K },
	{ "megabytes", "@ 3m\n", 0, 3 * SZ_1M },
	{ "gigabytes", "@ 2G\n", 0, 2ull * SZ_1G },
	{ "max", "@ max\n", 0, PAGE_COUNTER_MAX },
	{ "zero", "@ 0\n", 0, 0 },
	{ "extra spaces", "  @   4096  ", 0, 4096 },
	{ "unknown region", "kunit/nosuch 4096\n", -EINVAL },
	{ "garbage value", "@ lots\n", -EINVAL },
	{ "trailing garbage", "@ 4096x\n", -EINVAL },
	{ "bad suffix", "@ 4KB\n", -EINVAL },
	{ "negative", "@ -1\n", -EINVAL },
	{ "missing value", "@\n", -EINVAL },
	{ "missing value, space", "@ ", -EINVAL },
	{ "extra field", "@ 4096 4096\n", -EINVAL },
	{ "empty", "\n", 0, 777 },
	{ "tab", "@\t4096\n", 0, 4096 },
	{ "bad second line", "@ 4096\n@ nope\n", -EINVAL },
	{ "two good lines", "@ 4096\n@ 8192\n", 0, 8192 },
};

static void dmem_test_fill_name(char *buf, size_t size, const char *fmt,
				const char *name)
{
	size_t len = 0;

	for (; *fmt && len + 1 < size; fmt++) {
		if (*fmt == '@') {
			ssize_t n = strscpy(buf + len, name, size - len);

			if (n < 0)
				break;
			len += n;
		} else {
			buf[len++] = *fmt;
		}
	}
	buf[len] = '\0';
}

static void dmem_parse_case_desc(const struct dmem_parse_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dmem_parse, dmem_parse_cases, dmem_parse_case_desc);

/* Every file parses alike; a failed write leaves the old value. */
static void dmem_write_parses(struct kunit *test)
{
	const struct dmem_parse_case *c = test->param_value;
	static const enum dmem_cgroup_file files[] = {
		DMEM_CGROUP_MIN, DMEM_CGROUP_LOW, DMEM_CGROUP_MAX,
	};
	struct dmem_cgroup_region *region = dmem_test_region(test);
	struct dmem_cgroup_pool_state *root, *a;
	char name[64], line[256];
	unsigned int i;

	root = dmem_cgroup_kunit_pool(test, region, NULL);
	a = dmem_cgroup_kunit_pool(test, region, root);
	snprintf(name, sizeof(name), "kunit/%s", test->name);
	dmem_test_fill_name(line, sizeof(line), c->line, name);

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		dmem_test_set(test, a, files[i], "777");
		KUNIT_EXPECT_EQ(test, dmem_cgroup_kunit_write(a, files[i], line),
				c->err);
		KUNIT_EXPECT_EQ(test, dmem_cgroup_kunit_read(a, files[i]),
				c->err ? 777 : c->value);
	}
}

static struct kunit_case dmem_test_cases[] = {
	KUNIT_CASE(dmem_charge_uncharge),
	KUNIT_CASE(dmem_charge_null_region),
	KUNIT_CASE(dmem_current_is_hierarchical),
	KUNIT_CASE(dmem_max_fails_charge),
	KUNIT_CASE(dmem_max_of_ancestor_names_it),
	KUNIT_CASE(dmem_max_below_usage_keeps_charges),
	KUNIT_CASE(dmem_min_is_never_valuable),
	KUNIT_CASE(dmem_low_is_valuable_in_second_pass),
	KUNIT_CASE(dmem_unprotected_is_valuable),
	KUNIT_CASE(dmem_overcommitted_low_is_shared),
	KUNIT_CASE(dmem_min_is_capped_by_parent),
	KUNIT_CASE(dmem_limit_pool_scopes_eviction),
	KUNIT_CASE(dmem_unregister_with_charges),
	KUNIT_CASE(dmem_charge_after_unregister_fails),
	KUNIT_CASE(dmem_register_rejects_bad_names),
	KUNIT_CASE_PARAM(dmem_write_parses, dmem_parse_gen_params),
	{}
};

static struct kunit_suite dmem_test_suite = {
	.name = "cgroup_dmem",
	.test_cases = dmem_test_cases,
};

kunit_test_suite(dmem_test_suite);

MODULE_DESCRIPTION("KUnit tests for the dmem cgroup controller");
MODULE_LICENSE("GPL");
