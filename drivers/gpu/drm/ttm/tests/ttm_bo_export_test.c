// SPDX-License-Identifier: GPL-2.0 AND MIT
/*
 * KUnit tests for what ttm_bo_setup_export() allocates: host pages for a
 * BO in a TT placement, none for a BO in VRAM.
 */
#include <linux/mm.h>

#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_range_manager.h>
#include <drm/ttm/ttm_tt.h>

#include "ttm_kunit_helpers.h"

/*
 * The device's populated pages are the exact witness. NR_GPU_ACTIVE is
 * checked loosely: it counts every device's pages, and its per-CPU deltas
 * reach the global count in batches of up to 125 pages per CPU, so a
 * populate of 512 pages on one CPU shows as at least 262.
 */
#define EXPORT_BO_SIZE		SZ_2M
#define EXPORT_MAN_SIZE		SZ_4M

static const struct ttm_place sys_place = { .mem_type = TTM_PL_SYSTEM };
static const struct ttm_place tt_place = { .mem_type = TTM_PL_TT };
static const struct ttm_place vram_place = { .mem_type = TTM_PL_VRAM };

static struct ttm_placement sys_placement = {
	.num_placement = 1,
	.placement = &sys_place,
};

static struct ttm_placement tt_placement = {
	.num_placement = 1,
	.placement = &tt_place,
};

static struct ttm_placement vram_placement = {
	.num_placement = 1,
	.placement = &vram_place,
};

struct ttm_bo_export_priv {
	struct ttm_test_devices *devs;
	struct ttm_device ttm_dev;
};

static struct ttm_tt *export_tt_create(struct ttm_buffer_object *bo,
				       u32 page_flags)
{
	struct ttm_tt *tt;

	tt = kzalloc_obj(*tt);
	if (!tt)
		return NULL;

	if (ttm_tt_init(tt, bo, page_flags, ttm_cached, 0)) {
		kfree(tt);
		return NULL;
	}

	return tt;
}

static void export_tt_destroy(struct ttm_device *bdev, struct ttm_tt *tt)
{
	ttm_tt_fini(tt);
	kfree(tt);
}

/*
 * Moves that copy nothing. A BO whose TT holds no data enters VRAM the way
 * xe clears a new BO into VRAM: by ttm_bo_move_null(), which keeps the
 * unpopulated TT behind the VRAM resource.
 */
static int export_move(struct ttm_buffer_object *bo, bool evict,
		       struct ttm_operation_ctx *ctx,
		       struct ttm_resource *new_mem, struct ttm_place *hop)
{
	ttm_bo_move_null(bo, new_mem);
	return 0;
}

static void export_evict_flags(struct ttm_buffer_object *bo,
			       struct ttm_placement *placement)
{
	*placement = sys_placement;
}

static struct ttm_device_funcs export_funcs = {
	.ttm_tt_create = export_tt_create,
	.ttm_tt_destroy = export_tt_destroy,
	.move = export_move,
	.eviction_valuable = ttm_bo_eviction_valuable,
	.evict_flags = export_evict_flags,
};

static int ttm_bo_export_init(struct kunit *test)
{
	struct ttm_bo_export_priv *priv;
	struct drm_device *drm;
	int err;

	priv = kunit_kzalloc(test, sizeof(*priv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, priv);

	priv->devs = ttm_test_devices_basic(test);
	drm = priv->devs->drm;
	err = ttm_device_init(&priv->ttm_dev, &export_funcs, drm->dev,
			      drm->anon_inode->i_mapping,
			      drm->vma_offset_manager, 0);
	KUNIT_ASSERT_EQ(test, err, 0);
	priv->devs->ttm_dev = &priv->ttm_dev;

	err = ttm_range_man_init(&priv->ttm_dev, TTM_PL_TT, true,
				 EXPORT_MAN_SIZE >> PAGE_SHIFT);
	KUNIT_ASSERT_EQ(test, err, 0);
	err = ttm_range_man_init(&priv->ttm_dev, TTM_PL_VRAM, false,
				 EXPORT_MAN_SIZE >> PAGE_SHIFT);
	KUNIT_ASSERT_EQ(test, err, 0);

	test->priv = priv;
	return 0;
}

static void ttm_bo_export_exit(struct kunit *test)
{
	struct ttm_bo_export_priv *priv = test->priv;

	ttm_range_man_fini(&priv->ttm_dev, TTM_PL_VRAM);
	ttm_range_man_fini(&priv->ttm_dev, TTM_PL_TT);
	/* Every BO is gone: the pool must have let every page go. */
	KUNIT_EXPECT_EQ(test, ttm_pool_populated_pages(&priv->ttm_dev.pool), 0);
	ttm_test_devices_put(test, priv->devs);
}

/* A new BO in system placement, with an unpopulated ZERO_ALLOC TT. */
static struct ttm_buffer_object *export_bo_create(struct kunit *test)
{
	struct ttm_bo_export_priv *priv = test->priv;
	struct ttm_operation_ctx ctx = { };
	struct ttm_buffer_object *bo;
	int err;

	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bo);
	drm_gem_private_object_init(priv->devs->drm, &bo->base, EXPORT_BO_SIZE);

	err = ttm_bo_init_reserved(&priv->ttm_dev, bo, ttm_bo_type_device,
				   &sys_placement, PAGE_SIZE, &ctx, NULL, NULL,
				   &dummy_ttm_bo_destroy);
	KUNIT_ASSERT_EQ(test, err, 0);
	dma_resv_unlock(bo->base.resv);

	KUNIT_ASSERT_NOT_NULL(test, bo->ttm);
	KUNIT_ASSERT_TRUE(test, bo->ttm->page_flags & TTM_TT_FLAG_ZERO_ALLOC);
	KUNIT_ASSERT_FALSE(test, ttm_tt_is_populated(bo->ttm));
	return bo;
}

static void export_bo_validate(struct kunit *test,
			       struct ttm_buffer_object *bo,
			       struct ttm_placement *placement)
{
	struct ttm_operation_ctx ctx = { };
	int err;

	dma_resv_lock(bo->base.resv, NULL);
	err = ttm_bo_validate(bo, placement, &ctx);
	dma_resv_unlock(bo->base.resv);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ(test, bo->resource->mem_type,
			placement->placement[0].mem_type);
}

/* @bo's TT is populated, by its size more than the pool held before. */
static void expect_populated(struct kunit *test, struct ttm_buffer_object *bo,
			     unsigned long pool_before)
{
	struct ttm_pool *pool = &bo->bdev->pool;

	KUNIT_ASSERT_NOT_NULL(test, bo->ttm);
	KUNIT_EXPECT_TRUE(test, ttm_tt_is_populated(bo->ttm));
	KUNIT_EXPECT_EQ(test, ttm_pool_populated_pages(pool),
			pool_before + bo->ttm->num_pages);
}

static unsigned long gpu_active_pages(void)
{
	return global_node_page_state(NR_GPU_ACTIVE);
}

/*
 * A BO in VRAM that kept its unpopulated TT gets no pages from its export:
 * neither the device's pool nor NR_GPU_ACTIVE grows.
 */
static void ttm_bo_export_vram_keeps_tt_empty(struct kunit *test)
{
	struct ttm_bo_export_priv *priv = test->priv;
	struct ttm_pool *pool = &priv->ttm_dev.pool;
	struct ttm_operation_ctx ctx = { };
	unsigned long pool_before, active_before;
	struct ttm_buffer_object *bo;
	long bo_pages;
	int err;

	bo = export_bo_create(test);
	export_bo_validate(test, bo, &vram_placement);
	KUNIT_ASSERT_NOT_NULL(test, bo->ttm);
	bo_pages = bo->ttm->num_pages;

	pool_before = ttm_pool_populated_pages(pool);
	active_before = gpu_active_pages();

	err = ttm_bo_setup_export(bo, &ctx);
	KUNIT_EXPECT_EQ(test, err, 0);

	KUNIT_EXPECT_FALSE(test, ttm_tt_is_populated(bo->ttm));
	KUNIT_EXPECT_EQ(test, ttm_pool_populated_pages(pool), pool_before);
	KUNIT_EXPECT_LT(test, (long)(gpu_active_pages() - active_before),
			bo_pages / 2);

	ttm_bo_fini(bo);
}

/* A BO in system placement is still populated by its export. */
static void ttm_bo_export_system_populates(struct kunit *test)
{
	struct ttm_bo_export_priv *priv = test->priv;
	struct ttm_pool *pool = &priv->ttm_dev.pool;
	struct ttm_operation_ctx ctx = { };
	unsigned long pool_before;
	struct ttm_buffer_object *bo;
	int err;

	bo = export_bo_create(test);
	pool_before = ttm_pool_populated_pages(pool);

	err = ttm_bo_setup_export(bo, &ctx);
	KUNIT_EXPECT_EQ(test, err, 0);
	expect_populated(test, bo, pool_before);

	ttm_bo_fini(bo);
}

/*
 * An importer that needs system pages still gets them: once the exporter
 * moves the exported VRAM BO into TT for it, the TT is populated.
 */
static void ttm_bo_export_vram_then_tt(struct kunit *test)
{
	struct ttm_bo_export_priv *priv = test->priv;
	struct ttm_pool *pool = &priv->ttm_dev.pool;
	struct ttm_operation_ctx ctx = { };
	unsigned long pool_before;
	struct ttm_buffer_object *bo;
	int err;

	bo = export_bo_create(test);
	export_bo_validate(test, bo, &vram_placement);
	pool_before = ttm_pool_populated_pages(pool);

	err = ttm_bo_setup_export(bo, &ctx);
	KUNIT_EXPECT_EQ(test, err, 0);

	export_bo_validate(test, bo, &tt_placement);
	expect_populated(test, bo, pool_before);

	ttm_bo_fini(bo);
}

static struct kunit_case ttm_bo_export_test_cases[] = {
	KUNIT_CASE(ttm_bo_export_vram_keeps_tt_empty),
	KUNIT_CASE(ttm_bo_export_system_populates),
	KUNIT_CASE(ttm_bo_export_vram_then_tt),
	{}
};

static struct kunit_suite ttm_bo_export_test_suite = {
	.name = "ttm_bo_export",
	.init = ttm_bo_export_init,
	.exit = ttm_bo_export_exit,
	.test_cases = ttm_bo_export_test_cases,
};

kunit_test_suites(&ttm_bo_export_test_suite);

MODULE_DESCRIPTION("KUnit tests for ttm_bo_setup_export()");
MODULE_LICENSE("GPL and additional rights");
