// SPDX-License-Identifier: GPL-2.0 AND MIT
/*
 * KUnit tests of contiguity-aware eviction: a contiguous allocation in a
 * full, fragmented mock buddy manager evicts no more than the cheapest
 * window holds, which the tests find by trying every window.
 */
#include <linux/prandom.h>

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>

#include <kunit/test-bug.h>

#include "ttm_kunit_helpers.h"
#include "ttm_mock_manager.h"

#define WINDOW_VRAM_SIZE	SZ_8M
/* The contiguous allocation: 1/32 of the manager. */
#define WINDOW_SIZE		(WINDOW_VRAM_SIZE / 32)
#define WINDOW_COUNT		(WINDOW_VRAM_SIZE / WINDOW_SIZE)
/* Fragmenting BOs are 1 to 16 pages. */
#define WINDOW_BO_MAX_PAGES	16
#define WINDOW_MAX_BOS		(WINDOW_VRAM_SIZE / PAGE_SIZE)

static const struct ttm_place vram_place = { .mem_type = TTM_PL_VRAM };
static const struct ttm_place contig_place = {
	.mem_type = TTM_PL_VRAM,
	.flags = TTM_PL_FLAG_CONTIGUOUS,
};

/**
 * struct window_test - the BOs of one test
 * @devs: The devices; the TTM device has a mock buddy VRAM manager.
 * @bos: The fragmenting BOs, in creation order; NULL once freed.
 * @n_bos: Entries in @bos.
 * @refused: BOs the driver refuses to evict.
 * @n_refused: Entries in @refused.
 * @window_refusals: Times the driver refused one of them while eviction
 * was taking a window.
 * @rnd: Deterministic randomness.
 */
struct window_test {
	struct ttm_test_devices *devs;
	struct ttm_buffer_object *bos[WINDOW_MAX_BOS];
	unsigned int n_bos;
	struct ttm_buffer_object *refused[WINDOW_COUNT];
	unsigned int n_refused;
	unsigned int window_refusals;
	struct rnd_state rnd;
};

static bool is_refused(struct window_test *t, struct ttm_buffer_object *bo)
{
	unsigned int i;

	for (i = 0; i < t->n_refused; i++)
		if (t->refused[i] == bo)
			return true;
	return false;
}

/* The tests are about what gets evicted, so moves copy nothing. */
static int window_test_move(struct ttm_buffer_object *bo, bool evict,
			    struct ttm_operation_ctx *ctx,
			    struct ttm_resource *new_mem, struct ttm_place *hop)
{
	ttm_bo_move_null(bo, new_mem);
	return 0;
}

/*
 * The driver refuses some BOs, as when they became busy after the scan.
 * Swapout may ask from another task, outside the test.
 */
static bool window_test_valuable(struct ttm_buffer_object *bo,
				 const struct ttm_place *place)
{
	struct kunit *test = kunit_get_current_test();
	struct window_test *t = test ? test->priv : NULL;

	if (t && is_refused(t, bo)) {
		/* The window walk asks with the window as its place. */
		if (place->lpfn)
			t->window_refusals++;
		return false;
	}
	return ttm_bo_eviction_valuable(bo, place);
}

static int window_test_init(struct kunit *test)
{
	struct ttm_device_funcs *funcs;
	struct window_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	test->priv = t;
	prandom_seed_state(&t->rnd, 0x5ca9);

	funcs = kunit_kzalloc(test, sizeof(*funcs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, funcs);
	*funcs = ttm_dev_funcs;
	funcs->move = window_test_move;
	funcs->eviction_valuable = window_test_valuable;

	t->devs = ttm_test_devices_basic(test);
	t->devs->ttm_dev = kunit_kzalloc(test, sizeof(*t->devs->ttm_dev),
					 GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->devs->ttm_dev);
	KUNIT_ASSERT_EQ(test,
			ttm_device_kunit_init_with_funcs(t->devs,
							 t->devs->ttm_dev,
							 false, false, funcs),
			0);
	KUNIT_ASSERT_EQ(test, ttm_mock_manager_init(t->devs->ttm_dev,
						    TTM_PL_VRAM,
						    WINDOW_VRAM_SIZE), 0);
	return 0;
}

static void window_test_fini(struct kunit *test)
{
	struct window_test *t = test->priv;
	unsigned int i;

	if (!t || !t->devs)
		return;
	for (i = 0; i < t->n_bos; i++)
		if (t->bos[i])
			ttm_bo_put(t->bos[i]);
	if (t->devs->ttm_dev && ttm_manager_type(t->devs->ttm_dev, TTM_PL_VRAM))
		ttm_mock_manager_fini(t->devs->ttm_dev, TTM_PL_VRAM);
	ttm_test_devices_put(test, t->devs);
}

/* An unlocked BO of @size in @place. */
static struct ttm_buffer_object *window_test_bo(struct kunit *test,
						size_t size,
						const struct ttm_place *place)
{
	struct window_test *t = test->priv;
	struct ttm_placement placement = {
		.num_placement = 1,
		.placement = place,
	};
	struct ttm_operation_ctx ctx = { };
	struct ttm_buffer_object *bo;
	int err;

	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bo);
	drm_gem_private_object_init(t->devs->drm, &bo->base, size);

	err = ttm_bo_init_reserved(t->devs->ttm_dev, bo, ttm_bo_type_device,
				   &placement, PAGE_SIZE, &ctx, NULL, NULL,
				   &dummy_ttm_bo_destroy);
	KUNIT_ASSERT_EQ(test, err, 0);
	dma_resv_unlock(bo->base.resv);
	return bo;
}

static bool in_vram(struct ttm_buffer_object *bo)
{
	return bo && bo->resource && bo->resource->mem_type == TTM_PL_VRAM;
}

static u64 vram_bytes(struct window_test *t);

/* Fill VRAM exactly, with small BOs of random sizes: nothing is evicted. */
static void window_test_fill(struct kunit *test)
{
	struct window_test *t = test->priv;
	u64 free = WINDOW_VRAM_SIZE - vram_bytes(t);

	while (free) {
		u64 size = (prandom_u32_state(&t->rnd) % WINDOW_BO_MAX_PAGES +
			    1) * PAGE_SIZE;

		size = min(size, free);
		KUNIT_ASSERT_LT(test, t->n_bos, WINDOW_MAX_BOS);
		t->bos[t->n_bos++] = window_test_bo(test, size, &vram_place);
		free -= size;
	}
	KUNIT_ASSERT_EQ(test, vram_bytes(t), WINDOW_VRAM_SIZE);
}

/*
 * A full manager, fragmented: fill it, free a random third, fill it again
 * with other sizes, so that every window holds BOs of both ages.
 */
static void window_test_fragment(struct kunit *test)
{
	struct window_test *t = test->priv;
	unsigned int i;

	window_test_fill(test);
	for (i = 0; i < t->n_bos; i++) {
		if (prandom_u32_state(&t->rnd) % 3)
			continue;
		ttm_bo_put(t->bos[i]);
		t->bos[i] = NULL;
	}
	window_test_fill(test);
}

static bool bo_intersects(struct ttm_buffer_object *bo, u64 start, u64 end)
{
	struct ttm_resource_manager *man =
		ttm_manager_type(bo->bdev, TTM_PL_VRAM);
	struct ttm_mock_manager *mock = container_of(man, typeof(*mock), man);
	struct ttm_mock_resource *res =
		container_of(bo->resource, typeof(*res), base);
	struct gpu_buddy_block *block;

	list_for_each_entry(block, &res->blocks, link) {
		u64 offset = gpu_buddy_block_offset(block);

		if (offset < end &&
		    offset + gpu_buddy_block_size(&mock->mm, block) > start)
			return true;
	}
	return false;
}

/*
 * What freeing window @w costs: the bytes of every BO in it, or U64_MAX if
 * it holds one that is pinned or refused by the driver.
 */
static u64 window_cost(struct window_test *t, unsigned int w)
{
	u64 start = (u64)w * WINDOW_SIZE, end = start + WINDOW_SIZE;
	u64 cost = 0;
	unsigned int i;

	for (i = 0; i < t->n_bos; i++) {
		struct ttm_buffer_object *bo = t->bos[i];

		if (!in_vram(bo) || !bo_intersects(bo, start, end))
			continue;
		if (bo->pin_count || is_refused(t, bo))
			return U64_MAX;
		cost += bo->base.size;
	}
	return cost;
}

/* The exhaustive search: the cheapest window, and what it costs. */
static u64 cheapest_window(struct window_test *t, unsigned int *which)
{
	u64 best = U64_MAX;
	unsigned int w;

	for (w = 0; w < WINDOW_COUNT; w++) {
		u64 cost = window_cost(t, w);

		if (cost < best) {
			best = cost;
			*which = w;
		}
	}
	return best;
}

static u64 vram_bytes(struct window_test *t)
{
	u64 bytes = 0;
	unsigned int i;

	for (i = 0; i < t->n_bos; i++)
		if (in_vram(t->bos[i]))
			bytes += t->bos[i]->base.size;
	return bytes;
}

/* The window the contiguous BO landed in. */
static unsigned int bo_window(struct ttm_buffer_object *bo)
{
	struct ttm_mock_resource *res =
		container_of(bo->resource, typeof(*res), base);
	struct gpu_buddy_block *block =
		list_first_entry(&res->blocks, typeof(*block), link);

	return gpu_buddy_block_offset(block) / WINDOW_SIZE;
}

/* The first BO in window @w. */
static struct ttm_buffer_object *bo_in_window(struct window_test *t,
					      unsigned int w)
{
	u64 start = (u64)w * WINDOW_SIZE;
	unsigned int i;

	for (i = 0; i < t->n_bos; i++)
		if (in_vram(t->bos[i]) &&
		    bo_intersects(t->bos[i], start, start + WINDOW_SIZE))
			return t->bos[i];
	return NULL;
}

/* Place a contiguous BO of WINDOW_SIZE; return the bytes it evicted. */
static u64 window_test_place_contiguous(struct kunit *test,
					struct ttm_buffer_object **ret)
{
	struct window_test *t = test->priv;
	u64 before = vram_bytes(t);
	struct ttm_buffer_object *bo;

	bo = window_test_bo(test, WINDOW_SIZE, &contig_place);
	KUNIT_ASSERT_TRUE(test, in_vram(bo));
	*ret = bo;
	return before - vram_bytes(t);
}

static void ttm_evict_window_cheapest(struct kunit *test)
{
	struct window_test *t = test->priv;
	struct ttm_buffer_object *bo;
	unsigned int which;
	u64 best, evicted;

	window_test_fragment(test);
	best = cheapest_window(t, &which);
	KUNIT_ASSERT_NE(test, best, U64_MAX);

	evicted = window_test_place_contiguous(test, &bo);
	kunit_info(test, "evicted %llu bytes, cheapest window %u holds %llu\n",
		   evicted, which, best);
	KUNIT_EXPECT_LE(test, evicted, best);
	KUNIT_EXPECT_GT(test, evicted, 0);
	ttm_bo_put(bo);
}

static void ttm_evict_window_spares_pinned(struct kunit *test)
{
	struct window_test *t = test->priv;
	struct ttm_buffer_object *bo, *pinned[WINDOW_COUNT] = { };
	unsigned int i, w, which;
	u64 best, evicted;

	window_test_fragment(test);

	/* Pin a BO in each of the cheapest half of the windows. */
	for (i = 0; i < WINDOW_COUNT / 2; i++) {
		KUNIT_ASSERT_NE(test, cheapest_window(t, &w), U64_MAX);
		bo = bo_in_window(t, w);
		KUNIT_ASSERT_NOT_NULL(test, bo);
		KUNIT_ASSERT_EQ(test, ttm_bo_reserve(bo, false, false, NULL), 0);
		ttm_bo_pin(bo);
		ttm_bo_unreserve(bo);
		pinned[w] = bo;
	}

	best = cheapest_window(t, &which);
	KUNIT_ASSERT_NE(test, best, U64_MAX);
	evicted = window_test_place_contiguous(test, &bo);
	KUNIT_EXPECT_LE(test, evicted, best);
	w = bo_window(bo);
	KUNIT_EXPECT_EQ(test, window_cost(t, w), 0);
	for (i = 0; i < WINDOW_COUNT; i++)
		if (pinned[i])
			KUNIT_EXPECT_TRUE(test, in_vram(pinned[i]));
	ttm_bo_put(bo);

	for (i = 0; i < WINDOW_COUNT; i++) {
		if (!pinned[i])
			continue;
		KUNIT_ASSERT_EQ(test, ttm_bo_reserve(pinned[i], false, false,
						     NULL), 0);
		ttm_bo_unpin(pinned[i]);
		ttm_bo_unreserve(pinned[i]);
	}
}

/*
 * The driver refuses a BO in each of the cheapest windows once the scan
 * chose one: eviction falls back to LRU order, the allocation succeeds
 * elsewhere and the refused BOs stay.
 */
static void ttm_evict_window_lost_falls_back(struct kunit *test)
{
	struct window_test *t = test->priv;
	struct ttm_buffer_object *bo;
	bool lost[WINDOW_COUNT] = { };
	unsigned int i, w;
	u64 best;

	window_test_fragment(test);
	best = cheapest_window(t, &w);
	KUNIT_ASSERT_NE(test, best, U64_MAX);
	for (w = 0; w < WINDOW_COUNT; w++) {
		if (window_cost(t, w) != best)
			continue;
		bo = bo_in_window(t, w);
		KUNIT_ASSERT_NOT_NULL(test, bo);
		lost[w] = true;
	}
	/* Refuse only now: window_cost() counts refused BOs as unmovable. */
	for (w = 0; w < WINDOW_COUNT; w++)
		if (lost[w])
			t->refused[t->n_refused++] = bo_in_window(t, w);

	window_test_place_contiguous(test, &bo);
	/* Eviction lost the window it chose, and still placed the new one. */
	KUNIT_EXPECT_GT(test, t->window_refusals, 0);
	KUNIT_EXPECT_FALSE(test, lost[bo_window(bo)]);
	for (i = 0; i < t->n_refused; i++)
		KUNIT_EXPECT_TRUE(test, in_vram(t->refused[i]));
	ttm_bo_put(bo);
}

static struct kunit_case ttm_evict_window_test_cases[] = {
	KUNIT_CASE(ttm_evict_window_cheapest),
	KUNIT_CASE(ttm_evict_window_spares_pinned),
	KUNIT_CASE(ttm_evict_window_lost_falls_back),
	{}
};

static struct kunit_suite ttm_evict_window_test_suite = {
	.name = "ttm_evict_window",
	.init = window_test_init,
	.exit = window_test_fini,
	.test_cases = ttm_evict_window_test_cases,
};

kunit_test_suites(&ttm_evict_window_test_suite);

MODULE_DESCRIPTION("KUnit tests for TTM contiguity-aware eviction");
MODULE_LICENSE("GPL and additional rights");
