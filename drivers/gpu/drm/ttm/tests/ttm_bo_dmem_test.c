// SPDX-License-Identifier: GPL-2.0 AND MIT
/*
 * KUnit tests for TTM's dmem cgroup charging, and for eviction that
 * respects dmem.min, dmem.low and dmem.max.
 */
#include <kunit/static_stub.h>
#include <linux/cgroup_dmem.h>

#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_throttle.h>

#include "../ttm_throttle_internal.h"
#include "ttm_kunit_helpers.h"
#include "ttm_mock_manager.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define DMEM_BO_SIZE	SZ_128K

static const struct ttm_place sys_place = { .mem_type = TTM_PL_SYSTEM };
static const struct ttm_place vram_place = { .mem_type = TTM_PL_VRAM };
static const struct ttm_place vram_then_tt[] = {
	{ .mem_type = TTM_PL_VRAM },
	{ .mem_type = TTM_PL_TT },
};

static struct ttm_placement sys_placement = {
	.num_placement = 1,
	.placement = &sys_place,
};

static struct ttm_placement vram_placement = {
	.num_placement = 1,
	.placement = &vram_place,
};

static struct ttm_placement vram_or_tt_placement = {
	.num_placement = ARRAY_SIZE(vram_then_tt),
	.placement = vram_then_tt,
};

/**
 * struct dmem_test - what one test set up
 * @devs: The devices; the TTM device has a mock VRAM manager.
 * @region: The region of the mock VRAM manager.
 * @root: The root of the test's cgroup hierarchy.
 * @charge_to: The pool the test's allocations are charged to.
 */
struct dmem_test {
	struct ttm_test_devices *devs;
	struct dmem_cgroup_region *region;
	struct dmem_cgroup_pool_state *root;
	struct dmem_cgroup_pool_state *charge_to;
};

/* The test's task is in none of the test's cgroups: charge the chosen one. */
static int dmem_test_try_charge(struct dmem_cgroup_region *region, u64 size,
				struct dmem_cgroup_pool_state **ret_pool,
				struct dmem_cgroup_pool_state **ret_limit_pool)
{
	struct dmem_test *t = kunit_get_current_test()->priv;
	int ret;

	*ret_pool = NULL;
	if (ret_limit_pool)
		*ret_limit_pool = NULL;
	if (!region)
		return 0;

	ret = dmem_cgroup_kunit_charge(t->charge_to, size, ret_limit_pool);
	if (!ret)
		*ret_pool = t->charge_to;
	return ret;
}

/* The tests are about what gets evicted, so moves copy nothing. */
static int dmem_test_move(struct ttm_buffer_object *bo, bool evict,
			  struct ttm_operation_ctx *ctx,
			  struct ttm_resource *new_mem, struct ttm_place *hop)
{
	ttm_bo_move_null(bo, new_mem);
	return 0;
}

static int ttm_bo_dmem_test_init(struct kunit *test)
{
	struct dmem_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	test->priv = t;

	t->devs = ttm_test_devices_basic(test);
	KUNIT_ASSERT_EQ(test, ttm_device_kunit_init_evict_to_system(test,
								    t->devs,
								    dmem_test_move),
			0);

	kunit_activate_static_stub(test, dmem_cgroup_try_charge,
				   dmem_test_try_charge);
	return 0;
}

static void ttm_bo_dmem_test_fini(struct kunit *test)
{
	struct dmem_test *t = test->priv;

	if (ttm_manager_type(t->devs->ttm_dev, TTM_PL_VRAM))
		ttm_mock_manager_fini(t->devs->ttm_dev, TTM_PL_VRAM);
	if (ttm_manager_type(t->devs->ttm_dev, TTM_PL_TT))
		ttm_mock_manager_fini(t->devs->ttm_dev, TTM_PL_TT);
	dmem_cgroup_unregister_region(t->region);
	ttm_test_devices_put(test, t->devs);
}

/* A mock VRAM manager with room for @slots BOs, charged to a new region. */
static void dmem_test_vram(struct kunit *test, unsigned int slots)
{
	struct dmem_test *t = test->priv;
	struct ttm_device *bdev = t->devs->ttm_dev;
	u32 size = slots * DMEM_BO_SIZE;

	KUNIT_ASSERT_EQ(test, ttm_mock_manager_init(bdev, TTM_PL_VRAM, size), 0);
	t->region = dmem_cgroup_register_region(size, "kunit/ttm/%s",
						test->name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->region);
	ttm_manager_type(bdev, TTM_PL_VRAM)->cg = t->region;

	t->root = dmem_cgroup_kunit_pool(test, t->region, NULL);
	t->charge_to = t->root;
}

/* A cgroup below the test's root, with @file set to @value if given. */
static struct dmem_cgroup_pool_state *
dmem_test_cgroup(struct kunit *test, enum dmem_cgroup_file file,
		 const char *value)
{
	struct dmem_test *t = test->priv;
	struct dmem_cgroup_pool_state *pool;
	char line[128];

	pool = dmem_cgroup_kunit_pool(test, t->region, t->root);
	if (value) {
		snprintf(line, sizeof(line), "kunit/ttm/%s %s", test->name,
			 value);
		KUNIT_ASSERT_EQ(test, dmem_cgroup_kunit_write(pool, file, line),
				0);
	}
	return pool;
}

/* An unlocked BO of @size, allocated in @placement and charged to @pool. */
static struct ttm_buffer_object *
dmem_test_bo_sized(struct kunit *test, struct dmem_cgroup_pool_state *pool,
		   struct ttm_placement *placement, size_t size)
{
	struct dmem_test *t = test->priv;
	struct ttm_operation_ctx ctx = { };
	struct ttm_buffer_object *bo;

	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bo);
	drm_gem_private_object_init(t->devs->drm, &bo->base, size);

	t->charge_to = pool;
	KUNIT_ASSERT_EQ(test, ttm_bo_init_reserved(t->devs->ttm_dev, bo,
						   ttm_bo_type_device,
						   placement, PAGE_SIZE, &ctx,
						   NULL, NULL,
						   &dummy_ttm_bo_destroy), 0);
	dma_resv_unlock(bo->base.resv);
	return bo;
}

static struct ttm_buffer_object *
dmem_test_bo(struct kunit *test, struct dmem_cgroup_pool_state *pool,
	     struct ttm_placement *placement)
{
	return dmem_test_bo_sized(test, pool, placement, DMEM_BO_SIZE);
}

/* Allocate a BO of @pool in VRAM, evicting for room, as @throttle's client. */
static int dmem_test_validate_as(struct kunit *test,
				 struct dmem_cgroup_pool_state *pool,
				 struct ttm_buffer_object *bo,
				 struct ttm_placement *placement,
				 struct ttm_throttle *throttle)
{
	struct dmem_test *t = test->priv;
	struct ttm_operation_ctx ctx = { .throttle = throttle };
	int err;

	t->charge_to = pool;
	KUNIT_ASSERT_EQ(test, ttm_bo_reserve(bo, false, false, NULL), 0);
	err = ttm_bo_validate(bo, placement, &ctx);
	ttm_bo_unreserve(bo);
	return err;
}

static int dmem_test_validate(struct kunit *test,
			      struct dmem_cgroup_pool_state *pool,
			      struct ttm_buffer_object *bo,
			      struct ttm_placement *placement)
{
	return dmem_test_validate_as(test, pool, bo, placement, NULL);
}

static bool in_vram(struct ttm_buffer_object *bo)
{
	return bo->resource->mem_type == TTM_PL_VRAM;
}

static u64 dmem_current(struct dmem_cgroup_pool_state *pool)
{
	return dmem_cgroup_kunit_read(pool, DMEM_CGROUP_CURRENT);
}

/* Free every BO; nothing may stay charged after. */
static void dmem_test_put_all(struct kunit *test,
			      struct ttm_buffer_object **bos, unsigned int n)
{
	struct dmem_test *t = test->priv;
	unsigned int i;

	for (i = 0; i < n; i++)
		ttm_bo_put(bos[i]);
	KUNIT_EXPECT_EQ(test, dmem_current(t->root), 0);
}

static void ttm_bo_dmem_charges_follow_resources(struct kunit *test)
{
	struct dmem_cgroup_pool_state *a, *b;
	struct ttm_buffer_object *bos[2];

	dmem_test_vram(test, 4);
	a = dmem_test_cgroup(test, DMEM_CGROUP_MAX, NULL);
	b = dmem_test_cgroup(test, DMEM_CGROUP_MAX, NULL);

	bos[0] = dmem_test_bo(test, a, &vram_placement);
	bos[1] = dmem_test_bo(test, b, &sys_placement);
	KUNIT_EXPECT_PTR_EQ(test, bos[0]->resource->css, a);
	KUNIT_EXPECT_EQ(test, dmem_current(a), DMEM_BO_SIZE);
	/* Only managers with a region charge. */
	KUNIT_EXPECT_NULL(test, bos[1]->resource->css);
	KUNIT_EXPECT_EQ(test, dmem_current(b), 0);

	/* The charge moves with the memory, to whoever moved it in. */
	KUNIT_EXPECT_EQ(test, dmem_test_validate(test, a, bos[0],
						 &sys_placement), 0);
	KUNIT_EXPECT_EQ(test, dmem_current(a), 0);
	KUNIT_EXPECT_EQ(test, dmem_test_validate(test, b, bos[1],
						 &vram_placement), 0);
	KUNIT_EXPECT_EQ(test, dmem_current(b), DMEM_BO_SIZE);
	KUNIT_EXPECT_EQ(test, dmem_current(((struct dmem_test *)test->priv)->root), DMEM_BO_SIZE);

	dmem_test_put_all(test, bos, ARRAY_SIZE(bos));
}

static void ttm_bo_dmem_evicts_unprotected_first(struct kunit *test)
{
	struct dmem_cgroup_pool_state *min, *low, *none;
	struct ttm_buffer_object *bos[4];

	dmem_test_vram(test, 3);
	min = dmem_test_cgroup(test, DMEM_CGROUP_MIN, "max");
	low = dmem_test_cgroup(test, DMEM_CGROUP_LOW, "max");
	none = dmem_test_cgroup(test, DMEM_CGROUP_MAX, NULL);

	/* In LRU order, so the unprotected BO is the last one looked at. */
	bos[0] = dmem_test_bo(test, min, &vram_placement);
	bos[1] = dmem_test_bo(test, low, &vram_placement);
	bos[2] = dmem_test_bo(test, none, &vram_placement);
	bos[3] = dmem_test_bo(test, none, &sys_placement);

	KUNIT_EXPECT_EQ(test, dmem_test_validate(test, none, bos[3],
						 &vram_placement), 0);
	KUNIT_EXPECT_TRUE(test, in_vram(bos[0]));
	KUNIT_EXPECT_TRUE(test, in_vram(bos[1]));
	KUNIT_EXPECT_FALSE(test, in_vram(bos[2]));
	KUNIT_EXPECT_TRUE(test, in_vram(bos[3]));

	dmem_test_put_all(test, bos, ARRAY_SIZE(bos));
}

static void ttm_bo_dmem_evicts_low_in_second_pass(struct kunit *test)
{
	struct dmem_cgroup_pool_state *min, *low, *none;
	struct ttm_buffer_object *bos[3];

	dmem_test_vram(test, 2);
	min = dmem_test_cgroup(test, DMEM_CGROUP_MIN, "max");
	low = dmem_test_cgroup(test, DMEM_CGROUP_LOW, "max");
	none = dmem_test_cgroup(test, DMEM_CGROUP_MAX, NULL);

	bos[0] = dmem_test_bo(test, min, &vram_placement);
	bos[1] = dmem_test_bo(test, low, &vram_placement);
	bos[2] = dmem_test_bo(test, none, &sys_placement);

	KUNIT_EXPECT_EQ(test, dmem_test_validate(test, none, bos[2],
						 &vram_placement), 0);
	KUNIT_EXPECT_TRUE(test, in_vram(bos[0]));
	KUNIT_EXPECT_FALSE(test, in_vram(bos[1]));
	KUNIT_EXPECT_TRUE(test, in_vram(bos[2]));
	KUNIT_EXPECT_EQ(test, dmem_current(low), 0);

	dmem_test_put_all(test, bos, ARRAY_SIZE(bos));
}

/* The clock stands still: a throttled client stays throttled. */
static ktime_t dmem_test_frozen_clock(void)
{
	return NSEC_PER_SEC;
}

/* As above, but the client is throttled: dmem.low holds against it. */
static void ttm_bo_dmem_throttled_spares_low(struct kunit *test)
{
	struct dmem_cgroup_pool_state *min, *low, *none;
	struct ttm_buffer_object *bos[3];
	struct ttm_lru_bulk_move *bulk;
	struct ttm_throttle throttle;

	bulk = kunit_kzalloc(test, sizeof(*bulk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bulk);
	ttm_lru_bulk_move_init(bulk);
	ttm_throttle_init(&throttle, bulk, 1);
	kunit_activate_static_stub(test, ttm_throttle_now,
				   dmem_test_frozen_clock);
	ttm_throttle_evicted(&throttle);
	KUNIT_ASSERT_NE(test, ttm_throttle_get_state(&throttle),
			TTM_THROTTLE_NORMAL);

	dmem_test_vram(test, 2);
	min = dmem_test_cgroup(test, DMEM_CGROUP_MIN, "max");
	low = dmem_test_cgroup(test, DMEM_CGROUP_LOW, "max");
	none = dmem_test_cgroup(test, DMEM_CGROUP_MAX, NULL);

	bos[0] = dmem_test_bo(test, min, &vram_placement);
	bos[1] = dmem_test_bo(test, low, &vram_placement);
	bos[2] = dmem_test_bo(test, none, &sys_placement);

	KUNIT_EXPECT_EQ(test, dmem_test_validate_as(test, none, bos[2],
						    &vram_placement, &throttle),
			-ENOMEM);
	KUNIT_EXPECT_TRUE(test, in_vram(bos[0]));
	KUNIT_EXPECT_TRUE(test, in_vram(bos[1]));
	KUNIT_EXPECT_EQ(test, dmem_current(none), 0);

	dmem_test_put_all(test, bos, ARRAY_SIZE(bos));
}

static void ttm_bo_dmem_never_evicts_below_min(struct kunit *test)
{
	struct dmem_cgroup_pool_state *min, *none;
	struct ttm_buffer_object *bos[3];

	dmem_test_vram(test, 2);
	min = dmem_test_cgroup(test, DMEM_CGROUP_MIN, "max");
	none = dmem_test_cgroup(test, DMEM_CGROUP_MAX, NULL);

	bos[0] = dmem_test_bo(test, min, &vram_placement);
	bos[1] = dmem_test_bo(test, min, &vram_placement);
	bos[2] = dmem_test_bo(test, none, &sys_placement);

	KUNIT_EXPECT_EQ(test, dmem_test_validate(test, none, bos[2],
						 &vram_placement), -ENOMEM);
	KUNIT_EXPECT_TRUE(test, in_vram(bos[0]));
	KUNIT_EXPECT_TRUE(test, in_vram(bos[1]));
	/* The failed allocation returned its charge. */
	KUNIT_EXPECT_EQ(test, dmem_current(none), 0);

	dmem_test_put_all(test, bos, ARRAY_SIZE(bos));
}

static void ttm_bo_dmem_max_evicts_inside_the_limit(struct kunit *test)
{
	struct dmem_cgroup_pool_state *limited, *other;
	struct ttm_buffer_object *bos[4];
	char max[32];

	dmem_test_vram(test, 3);
	snprintf(max, sizeof(max), "%u", 2 * DMEM_BO_SIZE);
	limited = dmem_test_cgroup(test, DMEM_CGROUP_MAX, max);
	other = dmem_test_cgroup(test, DMEM_CGROUP_MAX, NULL);

	bos[0] = dmem_test_bo(test, other, &vram_placement);
	bos[1] = dmem_test_bo(test, limited, &vram_placement);
	bos[2] = dmem_test_bo(test, limited, &vram_placement);
	bos[3] = dmem_test_bo(test, limited, &sys_placement);

	/* Evicting the other cgroup's older BO would not get under the max. */
	KUNIT_EXPECT_EQ(test, dmem_test_validate(test, limited, bos[3],
						 &vram_placement), 0);
	KUNIT_EXPECT_TRUE(test, in_vram(bos[0]));
	KUNIT_EXPECT_FALSE(test, in_vram(bos[1]));
	KUNIT_EXPECT_TRUE(test, in_vram(bos[3]));
	KUNIT_EXPECT_EQ(test, dmem_current(limited), 2 * DMEM_BO_SIZE);

	dmem_test_put_all(test, bos, ARRAY_SIZE(bos));
}

/*
 * Without eviction, an allocation that may fall back to TT goes there when
 * VRAM is full, unless its cgroup protects it: then it takes unprotected
 * VRAM first.
 */
static void ttm_bo_dmem_protected_evicts_before_fallback(struct kunit *test)
{
	struct dmem_cgroup_pool_state *protected, *none;
	struct dmem_test *t = test->priv;
	struct ttm_buffer_object *bos[4];

	dmem_test_vram(test, 2);
	KUNIT_ASSERT_EQ(test, ttm_mock_manager_init(t->devs->ttm_dev, TTM_PL_TT,
						    4 * DMEM_BO_SIZE), 0);
	protected = dmem_test_cgroup(test, DMEM_CGROUP_LOW, "max");
	none = dmem_test_cgroup(test, DMEM_CGROUP_MAX, NULL);

	bos[0] = dmem_test_bo(test, none, &vram_placement);
	bos[1] = dmem_test_bo(test, none, &vram_placement);
	bos[2] = dmem_test_bo(test, none, &sys_placement);
	bos[3] = dmem_test_bo(test, protected, &sys_placement);

	KUNIT_EXPECT_EQ(test, dmem_test_validate(test, none, bos[2],
						 &vram_or_tt_placement), 0);
	KUNIT_EXPECT_EQ(test, bos[2]->resource->mem_type, TTM_PL_TT);
	KUNIT_EXPECT_TRUE(test, in_vram(bos[0]));
	KUNIT_EXPECT_TRUE(test, in_vram(bos[1]));

	KUNIT_EXPECT_EQ(test, dmem_test_validate(test, protected, bos[3],
						 &vram_or_tt_placement), 0);
	KUNIT_EXPECT_TRUE(test, in_vram(bos[3]));
	KUNIT_EXPECT_FALSE(test, in_vram(bos[0]));
	KUNIT_EXPECT_EQ(test, dmem_current(protected), DMEM_BO_SIZE);

	dmem_test_put_all(test, bos, ARRAY_SIZE(bos));
}

/*
 * A contiguous allocation in full VRAM, 3 of whose 8 slots @file protects,
 * takes the cheapest window without protected memory: two slots, where
 * eviction in LRU order, which skips protected BOs, may have to take more.
 */
static void dmem_test_window_spares(struct kunit *test,
				    enum dmem_cgroup_file file)
{
	static const struct ttm_place contig_place = {
		.mem_type = TTM_PL_VRAM,
		.flags = TTM_PL_FLAG_CONTIGUOUS,
	};
	struct ttm_placement contig_placement = {
		.num_placement = 1,
		.placement = &contig_place,
	};
	struct dmem_cgroup_pool_state *protected, *none;
	struct ttm_buffer_object *bos[9];
	unsigned int i, evicted = 0;

	dmem_test_vram(test, 8);
	protected = dmem_test_cgroup(test, file, "max");
	none = dmem_test_cgroup(test, DMEM_CGROUP_MAX, NULL);
	for (i = 0; i < 8; i++)
		bos[i] = dmem_test_bo(test, i < 3 ? protected : none,
				      &vram_placement);

	bos[8] = dmem_test_bo_sized(test, none, &contig_placement,
				    2 * DMEM_BO_SIZE);
	KUNIT_EXPECT_TRUE(test, in_vram(bos[8]));
	for (i = 0; i < 8; i++) {
		if (i < 3)
			KUNIT_EXPECT_TRUE(test, in_vram(bos[i]));
		evicted += !in_vram(bos[i]);
	}
	KUNIT_EXPECT_EQ(test, evicted, 2);
	KUNIT_EXPECT_EQ(test, dmem_current(protected), 3 * DMEM_BO_SIZE);

	dmem_test_put_all(test, bos, ARRAY_SIZE(bos));
}

static void ttm_bo_dmem_window_spares_min(struct kunit *test)
{
	dmem_test_window_spares(test, DMEM_CGROUP_MIN);
}

/* dmem.low memory goes in LRU order's last resort only, never for a window. */
static void ttm_bo_dmem_window_spares_low(struct kunit *test)
{
	dmem_test_window_spares(test, DMEM_CGROUP_LOW);
}

static struct kunit_case ttm_bo_dmem_test_cases[] = {
	KUNIT_CASE(ttm_bo_dmem_charges_follow_resources),
	KUNIT_CASE(ttm_bo_dmem_evicts_unprotected_first),
	KUNIT_CASE(ttm_bo_dmem_evicts_low_in_second_pass),
	KUNIT_CASE(ttm_bo_dmem_throttled_spares_low),
	KUNIT_CASE(ttm_bo_dmem_never_evicts_below_min),
	KUNIT_CASE(ttm_bo_dmem_max_evicts_inside_the_limit),
	KUNIT_CASE(ttm_bo_dmem_protected_evicts_before_fallback),
	KUNIT_CASE(ttm_bo_dmem_window_spares_min),
	KUNIT_CASE(ttm_bo_dmem_window_spares_low),
	{}
};

static struct kunit_suite ttm_bo_dmem_test_suite = {
	.name = "ttm_bo_dmem",
	.init = ttm_bo_dmem_test_init,
	.exit = ttm_bo_dmem_test_fini,
	.test_cases = ttm_bo_dmem_test_cases,
};

kunit_test_suites(&ttm_bo_dmem_test_suite);

MODULE_DESCRIPTION("KUnit tests for TTM's dmem cgroup charging");
MODULE_LICENSE("GPL and additional rights");
