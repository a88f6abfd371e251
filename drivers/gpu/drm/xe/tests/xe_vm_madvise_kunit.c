// SPDX-License-Identifier: GPL-2.0 AND MIT
/*
 * KUnit tests of the madvise arguments for residency priorities: which
 * arguments pass, which get -EINVAL, and how a priority is applied.
 */

#include <kunit/test.h>

#include <drm/ttm/ttm_device.h>

#include "xe_kunit_helpers.h"

static struct drm_xe_madvise residency_args(u32 val)
{
	return (struct drm_xe_madvise) {
		.start = SZ_1M,
		.range = SZ_64K,
		.type = DRM_XE_VMA_ATTR_RESIDENCY_PRIORITY,
		.residency.val = val,
	};
}

static void residency_takes_each_level(struct kunit *test)
{
	struct xe_device *xe = test->priv;
	u32 val;

	for (val = DRM_XE_RESIDENCY_PRIORITY_MINIMUM;
	     val <= DRM_XE_RESIDENCY_PRIORITY_MAXIMUM; val++) {
		struct drm_xe_madvise args = residency_args(val);

		KUNIT_EXPECT_TRUE_MSG(test, madvise_args_are_sane(xe, &args),
				      "level %u", val);
	}
}

static void residency_rejects_levels_out_of_range(struct kunit *test)
{
	static const u32 bad[] = {
		DRM_XE_RESIDENCY_PRIORITY_MAXIMUM + 1, 0x78000000, U32_MAX,
	};
	struct xe_device *xe = test->priv;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct drm_xe_madvise args = residency_args(bad[i]);

		KUNIT_EXPECT_FALSE_MSG(test, madvise_args_are_sane(xe, &args),
				       "level %#x", bad[i]);
	}
}

static void residency_rejects_nonzero_padding(struct kunit *test)
{
	struct xe_device *xe = test->priv;
	struct drm_xe_madvise args;

	args = residency_args(DRM_XE_RESIDENCY_PRIORITY_LOW);
	args.residency.pad = 1;
	KUNIT_EXPECT_FALSE(test, madvise_args_are_sane(xe, &args));

	args = residency_args(DRM_XE_RESIDENCY_PRIORITY_LOW);
	args.residency.reserved = 1ull << 63;
	KUNIT_EXPECT_FALSE(test, madvise_args_are_sane(xe, &args));

	args = residency_args(DRM_XE_RESIDENCY_PRIORITY_LOW);
	args.reserved[0] = 1;
	KUNIT_EXPECT_FALSE(test, madvise_args_are_sane(xe, &args));

	args = residency_args(DRM_XE_RESIDENCY_PRIORITY_LOW);
	args.reserved[1] = 1;
	KUNIT_EXPECT_FALSE(test, madvise_args_are_sane(xe, &args));
}

static void residency_rejects_bad_ranges(struct kunit *test)
{
	struct xe_device *xe = test->priv;
	struct drm_xe_madvise args;

	args = residency_args(DRM_XE_RESIDENCY_PRIORITY_HIGH);
	args.start += SZ_2K;
	KUNIT_EXPECT_FALSE(test, madvise_args_are_sane(xe, &args));

	args = residency_args(DRM_XE_RESIDENCY_PRIORITY_HIGH);
	args.range = SZ_4K + SZ_2K;
	KUNIT_EXPECT_FALSE(test, madvise_args_are_sane(xe, &args));

	args = residency_args(DRM_XE_RESIDENCY_PRIORITY_HIGH);
	args.range = 0;
	KUNIT_EXPECT_FALSE(test, madvise_args_are_sane(xe, &args));
}

/* The type after the last one is still unknown. */
static void residency_is_the_last_type(struct kunit *test)
{
	struct drm_xe_madvise args = residency_args(DRM_XE_RESIDENCY_PRIORITY_NORMAL);
	struct xe_device *xe = test->priv;

	args.type = DRM_XE_VMA_ATTR_RESIDENCY_PRIORITY + 1;
	KUNIT_EXPECT_FALSE(test, madvise_args_are_sane(xe, &args));
}

/* No madvise extension is defined: a chain of any is refused. */
static void madvise_rejects_extensions(struct kunit *test)
{
	struct drm_xe_madvise args = {
		.start = SZ_1M,
		.range = SZ_64K,
		.type = DRM_XE_MEM_RANGE_ATTR_ATOMIC,
		.atomic.val = DRM_XE_ATOMIC_UNDEFINED,
	};
	struct xe_device *xe = test->priv;

	KUNIT_EXPECT_TRUE(test, madvise_args_are_sane(xe, &args));
	args.extensions = 1;
	KUNIT_EXPECT_FALSE(test, madvise_args_are_sane(xe, &args));
}

/* A priority is the BO's: no PTE is zapped, and no mapping is split. */
static void residency_leaves_mappings_alone(struct kunit *test)
{
	struct drm_xe_madvise args = residency_args(DRM_XE_RESIDENCY_PRIORITY_MINIMUM);

	KUNIT_EXPECT_FALSE(test, madvise_range_needs_invalidation(&args));
	KUNIT_EXPECT_FALSE(test, madvise_range_splits_vmas(&args));

	args.type = DRM_XE_MEM_RANGE_ATTR_ATOMIC;
	KUNIT_EXPECT_TRUE(test, madvise_range_needs_invalidation(&args));
	KUNIT_EXPECT_TRUE(test, madvise_range_splits_vmas(&args));
}

/**
 * struct residency_fake - what madvise_residency() reads of a VM's range
 * @bdev: Only its LRU lock, which ttm_bo_set_residency() takes.
 * @resv: The reservation object the BOs share, locked around each call as
 * madvise's drm_exec holds it.
 * @vm: The VM, compared by address only.
 * @other: Another VM, as the owner of a shared BO has.
 * @bo: Three BOs, in no bulk move and without a resource.
 * @vma: Four mappings: of bo[0] twice (a partial overlap at each end), of
 * bo[1], and one without a BO, as a userptr or NULL binding has.
 * @vmas: The mappings, as get_vmas() hands them over.
 */
struct residency_fake {
	struct ttm_device bdev;
	struct dma_resv resv;
	struct xe_vm vm, other;
	struct xe_bo bo[3];
	struct xe_vma vma[4];
	struct xe_vma *vmas[4];
};

static void residency_fake_exit(void *data)
{
	struct residency_fake *f = data;

	dma_resv_fini(&f->resv);
}

static struct residency_fake *residency_fake(struct kunit *test)
{
	struct residency_fake *f;
	int i, ret;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	spin_lock_init(&f->bdev.lru_lock);
	dma_resv_init(&f->resv);
	ret = kunit_add_action_or_reset(test, residency_fake_exit, f);
	KUNIT_ASSERT_EQ(test, 0, ret);
	f->vm.xe = test->priv;
	for (i = 0; i < ARRAY_SIZE(f->bo); i++) {
		f->bo[i].ttm.bdev = &f->bdev;
		f->bo[i].ttm.base.resv = &f->resv;
		f->bo[i].ttm.residency = TTM_RESIDENCY_NORMAL;
		f->bo[i].vm = &f->vm;
	}
	f->vma[0].gpuva.gem.obj = &f->bo[0].ttm.base;
	f->vma[1].gpuva.gem.obj = &f->bo[0].ttm.base;
	f->vma[2].gpuva.gem.obj = &f->bo[1].ttm.base;
	for (i = 0; i < ARRAY_SIZE(f->vma); i++)
		f->vmas[i] = &f->vma[i];
	return f;
}

static void residency_apply(struct residency_fake *f, u32 val)
{
	struct drm_xe_madvise args = residency_args(val);

	dma_resv_lock(&f->resv, NULL);
	madvise_residency(f->vm.xe, &f->vm, f->vmas, ARRAY_SIZE(f->vmas),
			  &args, NULL);
	dma_resv_unlock(&f->resv);
}

/*
 * Each BO mapped in the range gets the level, whole, however many of its
 * mappings the range overlaps; a BO outside the range keeps its own.
 */
static void residency_sets_each_bo_in_the_range(struct kunit *test)
{
	struct residency_fake *f = residency_fake(test);

	residency_apply(f, DRM_XE_RESIDENCY_PRIORITY_HIGH);
	KUNIT_EXPECT_EQ(test, f->bo[0].ttm.residency, TTM_RESIDENCY_HIGH);
	KUNIT_EXPECT_EQ(test, f->bo[1].ttm.residency, TTM_RESIDENCY_HIGH);
	KUNIT_EXPECT_EQ(test, f->bo[2].ttm.residency, TTM_RESIDENCY_NORMAL);

	residency_apply(f, DRM_XE_RESIDENCY_PRIORITY_MINIMUM);
	KUNIT_EXPECT_EQ(test, f->bo[0].ttm.residency, TTM_RESIDENCY_MINIMUM);
	KUNIT_EXPECT_EQ(test, f->bo[1].ttm.residency, TTM_RESIDENCY_MINIMUM);
	KUNIT_EXPECT_EQ(test, f->bo[2].ttm.residency, TTM_RESIDENCY_NORMAL);
}

/* A range that maps a BO of another VM, or an imported one, is refused. */
static void residency_refuses_bos_not_private(struct kunit *test)
{
	struct residency_fake *f = residency_fake(test);

	KUNIT_EXPECT_TRUE(test, residency_bos_are_private(&f->vm, f->vmas,
							  ARRAY_SIZE(f->vmas)));

	f->vma[3].gpuva.gem.obj = &f->bo[2].ttm.base;
	f->bo[2].vm = &f->other;
	KUNIT_EXPECT_FALSE(test, residency_bos_are_private(&f->vm, f->vmas,
							   ARRAY_SIZE(f->vmas)));
	f->bo[2].vm = NULL;
	KUNIT_EXPECT_FALSE(test, residency_bos_are_private(&f->vm, f->vmas,
							   ARRAY_SIZE(f->vmas)));
	/* The range without that mapping is the VM's own again. */
	KUNIT_EXPECT_TRUE(test, residency_bos_are_private(&f->vm, f->vmas, 3));
}

static struct kunit_case xe_vm_madvise_residency_cases[] = {
	KUNIT_CASE(residency_takes_each_level),
	KUNIT_CASE(residency_rejects_levels_out_of_range),
	KUNIT_CASE(residency_rejects_nonzero_padding),
	KUNIT_CASE(residency_rejects_bad_ranges),
	KUNIT_CASE(residency_is_the_last_type),
	KUNIT_CASE(madvise_rejects_extensions),
	KUNIT_CASE(residency_leaves_mappings_alone),
	KUNIT_CASE(residency_sets_each_bo_in_the_range),
	KUNIT_CASE(residency_refuses_bos_not_private),
	{}
};

static struct kunit_suite xe_vm_madvise_residency_suite = {
	.name = "xe_vm_madvise_residency",
	.test_cases = xe_vm_madvise_residency_cases,
	.init = xe_kunit_helper_xe_device_test_init,
};

kunit_test_suites(&xe_vm_madvise_residency_suite);
