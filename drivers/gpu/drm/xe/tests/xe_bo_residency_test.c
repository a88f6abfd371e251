// SPDX-License-Identifier: MIT
/*
 * KUnit tests for the argument checks of xe's residency priority uAPI.
 * They need no hardware: the decisions are in helpers.
 */

#include <linux/dma-buf.h>
#include <linux/mman.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_kunit_helpers.h>
#include <kunit/test.h>
#include <uapi/drm/xe_drm.h>

#include "tests/xe_kunit_helpers.h"
#include "xe_bo_residency.h"
#include "xe_bo_types.h"

/* What the checks must leave alone when they fail. */
#define UNTOUCHED	TTM_NUM_RESIDENCY

static const enum ttm_residency uapi_to_ttm[] = {
	[DRM_XE_GEM_RESIDENCY_PRIORITY_MINIMUM] = TTM_RESIDENCY_MINIMUM,
	[DRM_XE_GEM_RESIDENCY_PRIORITY_LOW] = TTM_RESIDENCY_LOW,
	[DRM_XE_GEM_RESIDENCY_PRIORITY_NORMAL] = TTM_RESIDENCY_NORMAL,
	[DRM_XE_GEM_RESIDENCY_PRIORITY_HIGH] = TTM_RESIDENCY_HIGH,
	[DRM_XE_GEM_RESIDENCY_PRIORITY_MAXIMUM] = TTM_RESIDENCY_MAXIMUM,
};

static void xe_bo_residency_maps_every_level(struct kunit *test)
{
	enum ttm_residency residency;
	u64 value;

	for (value = 0; value < ARRAY_SIZE(uapi_to_ttm); value++) {
		residency = UNTOUCHED;
		KUNIT_EXPECT_EQ(test, xe_bo_residency_from_user(value,
								&residency), 0);
		KUNIT_EXPECT_EQ(test, residency, uapi_to_ttm[value]);
	}
}

static const u64 bad_values[] = {
	DRM_XE_GEM_RESIDENCY_PRIORITY_MAXIMUM + 1, U32_MAX, (u64)U32_MAX + 1,
	U64_MAX,
};

static void xe_bo_residency_rejects_out_of_range(struct kunit *test)
{
	enum ttm_residency residency = UNTOUCHED;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_values); i++) {
		KUNIT_EXPECT_EQ(test, xe_bo_residency_from_user(bad_values[i],
								&residency),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, residency, UNTOUCHED);
	}
}

static struct drm_xe_ext_set_property good_ext(u64 value)
{
	return (struct drm_xe_ext_set_property) {
		.base.name = DRM_XE_GEM_CREATE_EXTENSION_SET_PROPERTY,
		.property = DRM_XE_GEM_CREATE_SET_PROPERTY_RESIDENCY_PRIORITY,
		.value = value,
	};
}

static void xe_gem_create_ext_checks_every_field(struct kunit *test)
{
	struct drm_xe_ext_set_property ext = good_ext(1);
	enum ttm_residency residency = UNTOUCHED;
	struct drm_xe_ext_set_property bad[7];
	unsigned int i;

	KUNIT_EXPECT_EQ(test, xe_gem_create_ext_check(&ext, &residency), 0);
	KUNIT_EXPECT_EQ(test, residency, TTM_RESIDENCY_LOW);

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		bad[i] = good_ext(1);
	bad[0].base.name = DRM_XE_GEM_CREATE_EXTENSION_SET_PROPERTY + 1;
	bad[1].base.pad = 1;
	bad[2].pad = 1;
	bad[3].reserved[0] = 1;
	bad[4].reserved[1] = 1;
	bad[5].property = DRM_XE_GEM_CREATE_SET_PROPERTY_RESIDENCY_PRIORITY + 1;
	bad[6].value = DRM_XE_GEM_RESIDENCY_PRIORITY_MAXIMUM + 1;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		residency = UNTOUCHED;
		KUNIT_EXPECT_EQ_MSG(test, xe_gem_create_ext_check(&bad[i],
								  &residency),
				    -EINVAL, "bad extension %u", i);
		KUNIT_EXPECT_EQ(test, residency, UNTOUCHED);
	}
}

static void xe_gem_set_property_checks_every_field(struct kunit *test)
{
	struct drm_xe_gem_set_property good = {
		.property = DRM_XE_GEM_PROPERTY_RESIDENCY_PRIORITY,
		.value = DRM_XE_GEM_RESIDENCY_PRIORITY_MAXIMUM,
	};
	enum ttm_residency residency = UNTOUCHED;
	struct drm_xe_gem_set_property bad[5];
	unsigned int i;

	KUNIT_EXPECT_EQ(test, xe_gem_set_property_check(&good, &residency), 0);
	KUNIT_EXPECT_EQ(test, residency, TTM_RESIDENCY_MAXIMUM);

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		bad[i] = good;
	bad[0].extensions = 1;
	bad[1].reserved[0] = 1;
	bad[2].reserved[1] = 1;
	bad[3].property = DRM_XE_GEM_PROPERTY_RESIDENCY_PRIORITY + 1;
	bad[4].value = DRM_XE_GEM_RESIDENCY_PRIORITY_MAXIMUM + 1;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		residency = UNTOUCHED;
		KUNIT_EXPECT_EQ_MSG(test, xe_gem_set_property_check(&bad[i],
								    &residency),
				    -EINVAL, "bad arguments %u", i);
		KUNIT_EXPECT_EQ(test, residency, UNTOUCHED);
	}
}

static void xe_bo_residency_only_the_creator_sets(struct kunit *test)
{
	struct dma_buf_attachment attach = { };
	struct drm_file *creator, *other;
	struct xe_bo *bo;

	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	creator = kunit_kzalloc(test, sizeof(*creator), GFP_KERNEL);
	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, bo && creator && other);
	creator->client_id = 7;
	other->client_id = 8;

	bo->owner = creator->client_id;
	KUNIT_EXPECT_EQ(test, xe_bo_residency_may_set(bo, creator), 0);
	KUNIT_EXPECT_EQ(test, xe_bo_residency_may_set(bo, other), -EPERM);

	/* Kernel BOs have no creator. */
	bo->owner = 0;
	KUNIT_EXPECT_EQ(test, xe_bo_residency_may_set(bo, creator), -EPERM);

	/* An imported BO's exporter decides, whoever imported it. */
	bo->owner = creator->client_id;
	bo->ttm.base.import_attach = &attach;
	KUNIT_EXPECT_EQ(test, xe_bo_residency_may_set(bo, creator),
			-EOPNOTSUPP);
}

/* A chain of extensions in user memory, each pointing to the next. */
static u64 user_chain(struct kunit *test,
		      struct drm_xe_ext_set_property *exts, unsigned int n)
{
	unsigned long addr;
	unsigned int i;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0, "no user memory");
	KUNIT_ASSERT_LE(test, n * sizeof(*exts), PAGE_SIZE);

	for (i = 0; i < n; i++)
		exts[i].base.next_extension = i + 1 < n ?
			addr + (i + 1) * sizeof(*exts) : 0;
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, exts,
					   n * sizeof(*exts)), 0);
	return addr;
}

static void xe_gem_create_extensions_read_the_chain(struct kunit *test)
{
	struct drm_xe_ext_set_property exts[3] = {
		good_ext(DRM_XE_GEM_RESIDENCY_PRIORITY_MINIMUM),
		good_ext(DRM_XE_GEM_RESIDENCY_PRIORITY_HIGH),
		good_ext(DRM_XE_GEM_RESIDENCY_PRIORITY_MAXIMUM + 1),
	};
	struct xe_device *xe = test->priv;
	enum ttm_residency residency;
	u64 chain;

	/* No extensions: the default stays. */
	residency = TTM_RESIDENCY_NORMAL;
	KUNIT_EXPECT_EQ(test, xe_gem_create_user_extensions(xe, 0, &residency),
			0);
	KUNIT_EXPECT_EQ(test, residency, TTM_RESIDENCY_NORMAL);

	/* The last extension that sets the priority wins. */
	chain = user_chain(test, exts, 2);
	KUNIT_EXPECT_EQ(test, xe_gem_create_user_extensions(xe, chain,
							    &residency), 0);
	KUNIT_EXPECT_EQ(test, residency, TTM_RESIDENCY_HIGH);

	/* A bad extension anywhere in the chain fails it, changing nothing. */
	chain = user_chain(test, exts, 3);
	KUNIT_EXPECT_EQ(test, xe_gem_create_user_extensions(xe, chain,
							    &residency),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, residency, TTM_RESIDENCY_HIGH);

	/* So does a pointer userspace cannot read. */
	KUNIT_EXPECT_EQ(test, xe_gem_create_user_extensions(xe, 8, &residency),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, residency, TTM_RESIDENCY_HIGH);
}

static void xe_gem_create_extensions_bound_the_chain(struct kunit *test)
{
	struct drm_xe_ext_set_property ext = good_ext(1), exts[17];
	struct xe_device *xe = test->priv;
	enum ttm_residency residency;
	unsigned int i;
	u64 chain;

	/* Sixteen extensions are the most a chain may have. */
	for (i = 0; i < ARRAY_SIZE(exts); i++)
		exts[i] = good_ext(i % 5);
	chain = user_chain(test, exts, 16);
	KUNIT_EXPECT_EQ(test, xe_gem_create_user_extensions(xe, chain,
							    &residency), 0);
	chain = user_chain(test, exts, 17);
	KUNIT_EXPECT_EQ(test, xe_gem_create_user_extensions(xe, chain,
							    &residency),
			-E2BIG);

	/* An extension that points to itself is a chain without end. */
	chain = user_chain(test, &ext, 1);
	ext.base.next_extension = chain;
	KUNIT_ASSERT_EQ(test, copy_to_user(u64_to_user_ptr(chain), &ext,
					   sizeof(ext)), 0);
	KUNIT_EXPECT_EQ(test, xe_gem_create_user_extensions(xe, chain,
							    &residency),
			-E2BIG);
}

static int xe_bo_residency_test_init(struct kunit *test)
{
	struct device *dev = drm_kunit_helper_alloc_device(test);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	test->priv = xe_kunit_helper_alloc_xe_device(test, dev);
	return 0;
}

static struct kunit_case xe_bo_residency_tests[] = {
	KUNIT_CASE(xe_bo_residency_maps_every_level),
	KUNIT_CASE(xe_bo_residency_rejects_out_of_range),
	KUNIT_CASE(xe_gem_create_ext_checks_every_field),
	KUNIT_CASE(xe_gem_set_property_checks_every_field),
	KUNIT_CASE(xe_bo_residency_only_the_creator_sets),
	KUNIT_CASE(xe_gem_create_extensions_read_the_chain),
	KUNIT_CASE(xe_gem_create_extensions_bound_the_chain),
	{}
};

static struct kunit_suite xe_bo_residency_test_suite = {
	.name = "xe_bo_residency",
	.init = xe_bo_residency_test_init,
	.test_cases = xe_bo_residency_tests,
};

kunit_test_suite(xe_bo_residency_test_suite);
