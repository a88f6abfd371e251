// SPDX-License-Identifier: GPL-2.0 AND MIT
/*
 * KUnit tests of the madvise arguments for residency priorities: which
 * arguments pass, which get -EINVAL, and how a priority is applied.
 */

#include <kunit/test.h>

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

static struct kunit_case xe_vm_madvise_residency_cases[] = {
	KUNIT_CASE(residency_takes_each_level),
	KUNIT_CASE(residency_rejects_levels_out_of_range),
	KUNIT_CASE(residency_rejects_nonzero_padding),
	KUNIT_CASE(residency_rejects_bad_ranges),
	KUNIT_CASE(residency_is_the_last_type),
	KUNIT_CASE(madvise_rejects_extensions),
	KUNIT_CASE(residency_leaves_mappings_alone),
	{}
};

static struct kunit_suite xe_vm_madvise_residency_suite = {
	.name = "xe_vm_madvise_residency",
	.test_cases = xe_vm_madvise_residency_cases,
	.init = xe_kunit_helper_xe_device_test_init,
};

kunit_test_suites(&xe_vm_madvise_residency_suite);
