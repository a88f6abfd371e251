// SPDX-License-Identifier: GPL-2.0 AND MIT
/*
 * KUnit tests for contiguity-aware eviction, on the mock buddy manager.
 */
#include <linux/cgroup_dmem.h>
#include <linux/completion.h>
#include <linux/kthread.h>

#include <drm/drm_exec.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>

#include "ttm_kunit_helpers.h"
#include "ttm_mock_manager.h"

/* VRAM of 16 one-page BOs; the contiguous allocation needs 4 pages. */
#define WINDOW_VRAM_PAGES	16
#define WINDOW_PAGES		4

/*
 * The page each BO takes, in creation and so LRU order: LRU order takes a
 * page from each aligned 4-page range in turn. Pages 9 and 13 stay free,
 * so that the ranges at 8 and 12 cost three BOs, the others four.
 */
static const u8 window_lru_page[WINDOW_VRAM_PAGES] = {
	0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15
};

static const struct ttm_place sys_place = { .mem_type = TTM_PL_SYSTEM };

static struct ttm_placement sys_placement = {
	.num_placement = 1,
	.placement = &sys_place,
};

static const struct ttm_place contig_place = {
	.mem_type = TTM_PL_VRAM,
	.flags = TTM_PL_FLAG_CONTIGUOUS,
};

static struct ttm_placement contig_placement = {
	.num_placement = 1,
	.placement = &contig_place,
};

static const struct ttm_place vram_place = { .mem_type = TTM_PL_VRAM };

static struct ttm_placement vram_placement = {
	.num_placement = 1,
	.placement = &vram_place,
};

/*
 * The pages whose BOs were evicted, BOs the driver refuses to evict, the
 * pages of BOs that eviction_valuable() said yes to, where a driver's side
 * effects would act, and the first pages of the resources eviction asked
 * intersects about.
 */
static struct {
	unsigned long pages;
	unsigned int evicted;
	struct ttm_buffer_object *refuse[TTM_EVICT_WINDOW_TRIES];
	unsigned long valuable;
	unsigned long intersected;
} window_seen;

/* The test's device callbacks, for a test to add eviction_check. */
static struct ttm_device_funcs *window_funcs;

/* The first VRAM page of @bo. */
static unsigned int window_page(struct ttm_buffer_object *bo)
{
	struct ttm_mock_resource *res;
	struct gpu_buddy_block *block;

	res = container_of(bo->resource, struct ttm_mock_resource, base);
	block = list_first_entry(&res->blocks, struct gpu_buddy_block, link);
	return gpu_buddy_block_offset(block) >> PAGE_SHIFT;
}

/* A function, so that a failure prints the mask, not GENMASK()'s body. */
static void window_expect_pages(struct kunit *test, unsigned long want)
{
	KUNIT_EXPECT_EQ(test, window_seen.pages, want);
}

static int window_test_move(struct ttm_buffer_object *bo, bool evict,
			    struct ttm_operation_ctx *ctx,
			    struct ttm_resource *new_mem, struct ttm_place *hop)
{
	if (evict) {
		window_seen.pages |= BIT(window_page(bo));
		window_seen.evicted++;
	}
	ttm_bo_move_null(bo, new_mem);
	return 0;
}

static void window_test_evict_flags(struct ttm_buffer_object *bo,
				    struct ttm_placement *placement)
{
	*placement = sys_placement;
}

static bool window_test_eviction_check(struct ttm_buffer_object *bo,
				       const struct ttm_place *place)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(window_seen.refuse); i++)
		if (bo == window_seen.refuse[i])
			return false;

	return ttm_bo_eviction_valuable(bo, place);
}

static bool window_test_eviction_valuable(struct ttm_buffer_object *bo,
					  const struct ttm_place *place)
{
	if (!window_test_eviction_check(bo, place))
		return false;

	if (bo->resource->mem_type == TTM_PL_VRAM)
		window_seen.valuable |= BIT(window_page(bo));
	return true;
}

static int ttm_evict_window_test_init(struct kunit *test)
{
	struct ttm_device_funcs *funcs = ttm_dev_funcs_copy(test);
	struct ttm_test_devices *priv;

	funcs->move = window_test_move;
	funcs->evict_flags = window_test_evict_flags;
	funcs->eviction_valuable = window_test_eviction_valuable;
	window_funcs = funcs;
	priv = ttm_test_devices_with_funcs(test, funcs);
	test->priv = priv;

	memset(&window_seen, 0, sizeof(window_seen));
	return ttm_mock_manager_init(priv->ttm_dev, TTM_PL_VRAM,
				     WINDOW_VRAM_PAGES * PAGE_SIZE);
}

static void ttm_evict_window_test_fini(struct kunit *test)
{
	struct ttm_test_devices *priv = test->priv;

	if (ttm_manager_type(priv->ttm_dev, TTM_PL_VRAM))
		ttm_mock_manager_fini(priv->ttm_dev, TTM_PL_VRAM);
	ttm_test_devices_fini(test);
}

/* An unlocked BO placed in @placement, sharing @resv if set. */
static struct ttm_buffer_object *window_test_bo(struct kunit *test,
						struct ttm_placement *placement,
						size_t size,
						struct dma_resv *resv)
{
	struct ttm_test_devices *priv = test->priv;
	struct ttm_operation_ctx ctx = { };
	struct ttm_buffer_object *bo;

	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bo);

	drm_gem_private_object_init(priv->drm, &bo->base, size);
	if (resv)
		dma_resv_lock(resv, NULL);
	KUNIT_ASSERT_EQ(test, ttm_bo_init_reserved(priv->ttm_dev, bo,
						   ttm_bo_type_device,
						   placement, 0, &ctx,
						   NULL, resv,
						   &dummy_ttm_bo_destroy), 0);
	dma_resv_unlock(bo->base.resv);
	return bo;
}

/* A page the fill leaves free. */
static bool window_free_page(unsigned int page)
{
	return page == 9 || page == 13;
}

/*
 * Fill VRAM in window_lru_page order, but for the free pages. With @share,
 * the BO on page 10 shares page 8's reservation.
 */
static void window_test_fill(struct kunit *test,
			     struct ttm_buffer_object **bos, bool share)
{
	unsigned int i;

	for (i = 0; i < WINDOW_VRAM_PAGES; i++) {
		unsigned int page = window_lru_page[i];
		struct ttm_place place = {
			.mem_type = TTM_PL_VRAM,
			.fpfn = page,
			.lpfn = page + 1,
		};
		struct ttm_placement placement = {
			.num_placement = 1,
			.placement = &place,
		};
		struct dma_resv *resv = NULL;
		struct ttm_buffer_object *bo;

		bos[page] = NULL;
		if (window_free_page(page))
			continue;
		if (share && page == 10)
			resv = bos[8]->base.resv;
		bo = window_test_bo(test, &placement, PAGE_SIZE, resv);
		KUNIT_ASSERT_EQ(test, window_page(bo), page);
		bos[page] = bo;
	}
}

static void window_test_put(struct ttm_buffer_object **bos,
			    struct ttm_buffer_object *evictor)
{
	unsigned int i;

	for (i = 0; i < WINDOW_VRAM_PAGES; i++)
		if (bos[i])
			ttm_bo_fini(bos[i]);
	ttm_bo_fini(evictor);
}

/* Place @evictor in @placement, without a ww ticket. */
static int window_test_validate(struct ttm_buffer_object *evictor,
				struct ttm_placement *placement)
{
	struct ttm_operation_ctx ctx = { };
	int err;

	dma_resv_lock(evictor->base.resv, NULL);
	err = ttm_bo_validate(evictor, placement, &ctx);
	dma_resv_unlock(evictor->base.resv);
	return err;
}

/*
 * A contiguous allocation evicts the three BOs of the cheapest range, the
 * lowest of two, where LRU order would take eleven.
 */
static void ttm_evict_window_cheapest(struct kunit *test)
{
	struct ttm_buffer_object *bos[WINDOW_VRAM_PAGES], *evictor;

	window_test_fill(test, bos, false);
	evictor = window_test_bo(test, &sys_placement,
				 WINDOW_PAGES * PAGE_SIZE, NULL);

	KUNIT_ASSERT_EQ(test, window_test_validate(evictor, &contig_placement),
			0);
	window_expect_pages(test, BIT(8) | BIT(10) | BIT(11));
	KUNIT_EXPECT_EQ(test, window_seen.evicted, 3);
	KUNIT_EXPECT_EQ(test, evictor->resource->mem_type, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, window_page(evictor), 8);

	window_test_put(bos, evictor);
}

/* An allocation that need not be contiguous still evicts in LRU order. */
static void ttm_evict_window_not_contiguous(struct kunit *test)
{
	struct ttm_buffer_object *bos[WINDOW_VRAM_PAGES], *evictor;

	window_test_fill(test, bos, false);
	evictor = window_test_bo(test, &sys_placement,
				 WINDOW_PAGES * PAGE_SIZE, NULL);

	KUNIT_ASSERT_EQ(test, window_test_validate(evictor, &vram_placement),
			0);
	window_expect_pages(test, BIT(0) | BIT(4));
	KUNIT_EXPECT_EQ(test, window_seen.evicted, 2);

	window_test_put(bos, evictor);
}

/* BOs the driver refuses, by page, and what eviction then takes. */
struct window_refused_case {
	const char *name;
	u8 refuse[TTM_EVICT_WINDOW_TRIES];
	unsigned int n_refuse;
	unsigned int page;
	unsigned long evicted;
	bool check;
};

static const struct window_refused_case window_refused_cases[] = {
	/*
	 * A BO of the cheapest range, at 8: the range is searched again
	 * before anything is evicted, and the one at 12 frees as few BOs.
	 */
	{ "in the cheapest range", { 10 }, 1, 12,
	  BIT(12) | BIT(14) | BIT(15) },
	/*
	 * One in each range searched (at 8, 12, then 0): nothing is evicted
	 * for them, and LRU order frees the range at 4 first.
	 */
	{ "in every range searched", { 10, 14, 2 }, 3, 4,
	  BIT(0) | BIT(1) | BIT(3) | BIT(4) | BIT(5) | BIT(6) | BIT(7) |
	  BIT(8) | BIT(12) },
	/*
	 * As the first, with an eviction_check callback: eviction_valuable()
	 * says yes only to the BOs evicted, not to page 8's in the range
	 * refused.
	 */
	{ "in the cheapest range, through eviction_check", { 10 }, 1, 12,
	  BIT(12) | BIT(14) | BIT(15), true },
};

static void window_refused_desc(const struct window_refused_case *c,
				char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(window_refused, window_refused_cases, window_refused_desc);

/*
 * The driver's eviction_valuable() refuses BOs: the allocation succeeds,
 * they stay, and only the BOs of the range finally freed are evicted.
 */
static void ttm_evict_window_refused(struct kunit *test)
{
	const struct window_refused_case *c = test->param_value;
	struct ttm_buffer_object *bos[WINDOW_VRAM_PAGES], *evictor;
	unsigned int i;

	window_test_fill(test, bos, false);
	evictor = window_test_bo(test, &sys_placement,
				 WINDOW_PAGES * PAGE_SIZE, NULL);
	for (i = 0; i < c->n_refuse; i++)
		window_seen.refuse[i] = bos[c->refuse[i]];
	if (c->check)
		window_funcs->eviction_check = window_test_eviction_check;

	KUNIT_ASSERT_EQ(test, window_test_validate(evictor, &contig_placement),
			0);
	KUNIT_EXPECT_EQ(test, window_page(evictor), c->page);
	window_expect_pages(test, c->evicted);
	for (i = 0; i < c->n_refuse; i++)
		KUNIT_EXPECT_EQ(test, bos[c->refuse[i]]->resource->mem_type,
				TTM_PL_VRAM);
	if (c->check)
		KUNIT_EXPECT_EQ(test, window_seen.valuable, c->evicted);

	window_test_put(bos, evictor);
}

enum window_unmovable {
	WINDOW_HELD, WINDOW_SHARES_HELD, WINDOW_PINNED, WINDOW_PRELOCKED
};

static const enum window_unmovable window_unmovable_cases[] = {
	WINDOW_HELD, WINDOW_SHARES_HELD, WINDOW_PINNED, WINDOW_PRELOCKED
};

static void window_unmovable_desc(const enum window_unmovable *kind,
				  char *desc)
{
	static const char * const names[] = {
		"held by the caller's exec",
		"shares a reservation the caller's exec holds",
		"pinned",
		"prelocked by the caller's exec after a real back-off",
	};

	strscpy(desc, names[*kind], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(window_unmovable, window_unmovable_cases,
		  window_unmovable_desc);

/* Validate @evictor contiguously in @exec, holding @held too if set. */
static int window_validate_holding(struct drm_exec *exec,
				   struct ttm_operation_ctx *ctx,
				   struct ttm_buffer_object *evictor,
				   struct ttm_buffer_object *held)
{
	int err;

	drm_exec_until_all_locked(exec) {
		err = drm_exec_lock_obj(exec, &evictor->base);
		drm_exec_retry_on_contention(exec);
		if (err)
			break;
		if (held) {
			err = drm_exec_lock_obj(exec, &held->base);
			drm_exec_retry_on_contention(exec);
			if (err)
				break;
		}
		err = ttm_bo_validate(evictor, &contig_placement, ctx);
		drm_exec_retry_on_contention(exec);
	}
	return err;
}

/* An older transaction that holds one BO until released. */
struct window_holder {
	struct ttm_buffer_object *bo;
	struct completion locked;
	struct completion release;
	struct completion done;
};

static int window_holder_fn(void *arg)
{
	struct window_holder *h = arg;
	struct ww_acquire_ctx ticket;

	ww_acquire_init(&ticket, &reservation_ww_class);
#ifdef CONFIG_DEBUG_WW_MUTEX_SLOWPATH
	ticket.deadlock_inject_countdown = UINT_MAX;
#endif
	dma_resv_lock(h->bo->base.resv, &ticket);
	complete(&h->locked);
	wait_for_completion(&h->release);
	dma_resv_unlock(h->bo->base.resv);
	ww_acquire_fini(&ticket);
	complete(&h->done);
	return 0;
}

/* Starts @h, an older transaction, and returns once it holds @bo. */
static void window_holder_start(struct kunit *test, struct window_holder *h,
				struct ttm_buffer_object *bo)
{
	struct task_struct *task;

	h->bo = bo;
	init_completion(&h->locked);
	init_completion(&h->release);
	init_completion(&h->done);
	task = kthread_run(window_holder_fn, h, "ttm-window-holder");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	wait_for_completion(&h->locked);
}

/*
 * Lock @evictor, then @held, which an older transaction holds: the back-off
 * prelocks @held, as drm_exec does for the object it contended on, and the
 * loop goes on without locking it again.
 */
static int window_validate_prelocked(struct kunit *test, struct drm_exec *exec,
				     struct ttm_operation_ctx *ctx,
				     struct ttm_buffer_object *evictor,
				     struct ttm_buffer_object *held)
{
	struct window_holder older;
	bool backed_off = false;
	int err;

	window_holder_start(test, &older, held);

	drm_exec_until_all_locked(exec) {
#ifdef CONFIG_DEBUG_WW_MUTEX_SLOWPATH
		exec->ticket.deadlock_inject_countdown = UINT_MAX;
#endif
		err = drm_exec_lock_obj(exec, &evictor->base);
		drm_exec_retry_on_contention(exec);
		if (err)
			break;
		if (!backed_off) {
			err = drm_exec_lock_obj(exec, &held->base);
			if (err == -EDEADLK) {
				backed_off = true;
				complete(&older.release);
			}
			drm_exec_retry_on_contention(exec);
			if (err)
				break;
		}
		KUNIT_EXPECT_PTR_EQ(test, exec->prelocked, &held->base);
		err = ttm_bo_validate(evictor, &contig_placement, ctx);
		drm_exec_retry_on_contention(exec);
	}
	if (!backed_off)
		complete(&older.release);
	wait_for_completion(&older.done);
	KUNIT_EXPECT_TRUE(test, backed_off);
	return err;
}

/*
 * A BO in the cheapest range that the walk cannot take makes the range no
 * candidate: the walk only trylocks, and the caller's ticket already holds
 * the reservations of its transaction, the object drm_exec prelocked after
 * a back-off among them. The next cheapest range goes instead, and nothing
 * else.
 */
static void ttm_evict_window_skips_unmovable(struct kunit *test)
{
	const enum window_unmovable *kind = test->param_value;
	struct ttm_buffer_object *bos[WINDOW_VRAM_PAGES], *evictor;
	struct ttm_buffer_object *unmovable;
	struct ttm_operation_ctx ctx = { };
	struct drm_exec exec;
	int err;

	window_test_fill(test, bos, *kind == WINDOW_SHARES_HELD);
	evictor = window_test_bo(test, &sys_placement,
				 WINDOW_PAGES * PAGE_SIZE, NULL);
	unmovable = *kind == WINDOW_SHARES_HELD ? bos[10] : bos[8];

	if (*kind == WINDOW_PINNED) {
		dma_resv_lock(unmovable->base.resv, NULL);
		ttm_bo_pin(unmovable);
		dma_resv_unlock(unmovable->base.resv);
	}

	drm_exec_init(&exec, 0, 0);
	ctx.exec = &exec;
	if (*kind == WINDOW_PRELOCKED)
		err = window_validate_prelocked(test, &exec, &ctx, evictor,
						bos[8]);
	else
		err = window_validate_holding(&exec, &ctx, evictor,
					      *kind == WINDOW_PINNED ? NULL :
					      bos[8]);
	drm_exec_fini(&exec);

	KUNIT_ASSERT_EQ(test, err, 0);
	window_expect_pages(test, BIT(12) | BIT(14) | BIT(15));
	KUNIT_EXPECT_EQ(test, window_seen.evicted, 3);
	KUNIT_EXPECT_EQ(test, unmovable->resource->mem_type, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, window_page(evictor), 12);

	if (*kind == WINDOW_PINNED) {
		dma_resv_lock(unmovable->base.resv, NULL);
		ttm_bo_unpin(unmovable);
		dma_resv_unlock(unmovable->base.resv);
	}
	window_test_put(bos, evictor);
}

/*
 * A BO in the cheapest range that another transaction holds: the walk's
 * trylock cannot get it, so the range is searched again before anything
 * is evicted, as for a BO the driver refuses, and the next cheapest range
 * goes instead. Otherwise the range's other BOs would be evicted for
 * nothing, and LRU order would then take more.
 */
static void ttm_evict_window_busy(struct kunit *test)
{
	struct ttm_buffer_object *bos[WINDOW_VRAM_PAGES], *evictor;
	struct window_holder other;
	int err;

	window_test_fill(test, bos, false);
	evictor = window_test_bo(test, &sys_placement,
				 WINDOW_PAGES * PAGE_SIZE, NULL);

	window_holder_start(test, &other, bos[10]);

	err = window_test_validate(evictor, &contig_placement);
	complete(&other.release);
	wait_for_completion(&other.done);

	KUNIT_ASSERT_EQ(test, err, 0);
	window_expect_pages(test, BIT(12) | BIT(14) | BIT(15));
	KUNIT_EXPECT_EQ(test, window_seen.evicted, 3);
	KUNIT_EXPECT_EQ(test, bos[10]->resource->mem_type, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, window_page(evictor), 12);

	window_test_put(bos, evictor);
}

/* The mock manager's intersects, which window_test_intersects() wraps. */
static bool (*window_mock_intersects)(struct ttm_resource_manager *man,
				      struct ttm_resource *res,
				      const struct ttm_place *place,
				      size_t size);

/* Records the first page of every resource eviction asks about. */
static bool window_test_intersects(struct ttm_resource_manager *man,
				   struct ttm_resource *res,
				   const struct ttm_place *place, size_t size)
{
	struct ttm_mock_resource *mock;
	struct gpu_buddy_block *block;

	mock = container_of(res, struct ttm_mock_resource, base);
	block = list_first_entry(&mock->blocks, struct gpu_buddy_block, link);
	window_seen.intersected |= BIT(gpu_buddy_block_offset(block) >>
				       PAGE_SHIFT);
	return window_mock_intersects(man, res, place, size);
}

/*
 * The range's BOs first in LRU order: the walks end at the last of them,
 * and the BOs after them are never even asked about.
 */
static void ttm_evict_window_walk_ends(struct kunit *test)
{
	const unsigned long range = BIT(8) | BIT(10) | BIT(11);
	struct ttm_buffer_object *bos[WINDOW_VRAM_PAGES], *evictor;
	struct ttm_test_devices *priv = test->priv;
	const struct ttm_resource_manager_func *mock_funcs;
	struct ttm_resource_manager_func *funcs;
	struct ttm_resource_manager *man;
	unsigned int i;

	man = ttm_manager_type(priv->ttm_dev, TTM_PL_VRAM);
	mock_funcs = man->func;
	funcs = kunit_kmalloc(test, sizeof(*funcs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, funcs);
	*funcs = *mock_funcs;
	window_mock_intersects = funcs->intersects;
	funcs->intersects = window_test_intersects;

	window_test_fill(test, bos, false);
	evictor = window_test_bo(test, &sys_placement,
				 WINDOW_PAGES * PAGE_SIZE, NULL);
	for (i = 0; i < WINDOW_VRAM_PAGES; i++) {
		if (!bos[i] || range & BIT(i))
			continue;
		dma_resv_lock(bos[i]->base.resv, NULL);
		spin_lock(&priv->ttm_dev->lru_lock);
		ttm_bo_move_to_lru_tail(bos[i]);
		spin_unlock(&priv->ttm_dev->lru_lock);
		dma_resv_unlock(bos[i]->base.resv);
	}

	man->func = funcs;
	KUNIT_EXPECT_EQ(test, window_test_validate(evictor, &contig_placement),
			0);
	man->func = mock_funcs;
	KUNIT_EXPECT_EQ(test, window_seen.intersected, range);
	window_expect_pages(test, range);
	KUNIT_EXPECT_EQ(test, window_page(evictor), 8);

	window_test_put(bos, evictor);
}

/*
 * The benchmark: what the search costs with n resources, and so how long
 * it holds the manager's lock, against one failed contiguous allocation
 * attempt in the same manager, which LRU order repeats after every victim.
 * Two layouts, each leaving no two free pages adjacent:
 * - one page per resource, on the odd pages of a VRAM of 2n pages, so that
 *   a 16-page buffer must evict eight of them;
 * - fragmented: four one-page blocks per resource, on the odd pages of
 *   each 8-page range of a VRAM of 8n pages, each resource charged to a
 *   dmem pool (the test's cgroup's), so that a 16-page buffer must evict
 *   two resources of four blocks each, and every resource's protection is
 *   asked about.
 */
struct window_bench_case {
	unsigned int n;
	bool fragmented;
};

static const struct window_bench_case window_bench_cases[] = {
	{ 1000, false }, { 10000, false }, { 100000, false },
	{ 1000, true }, { 10000, true }, { 100000, true },
};

#define WINDOW_BENCH_RUNS	5

static void window_bench_desc(const struct window_bench_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u %s", c->n,
		 c->fragmented ? "fragmented resources with a dmem pool" :
		 "one-page resources");
}

KUNIT_ARRAY_PARAM(window_bench, window_bench_cases, window_bench_desc);

/* @a as a multiple of @b, in hundredths. */
static u32 window_bench_ratio(u64 a, u64 b)
{
	return min_t(u64, div64_u64(a * 100, max_t(u64, b, 1)), U32_MAX);
}

/* Take every even page of the first @pages, straight from the allocator. */
static void window_bench_take_even(struct kunit *test,
				   struct ttm_mock_manager *mock,
				   unsigned int pages, struct list_head *taken)
{
	unsigned int i;
	int err = 0;

	mutex_lock(&mock->lock);
	for (i = 0; i < pages && !err; i += 2)
		err = gpu_buddy_alloc_blocks(&mock->mm, (u64)i * PAGE_SIZE,
					     (u64)(i + 1) * PAGE_SIZE, PAGE_SIZE,
					     PAGE_SIZE, taken,
					     GPU_BUDDY_RANGE_ALLOCATION);
	mutex_unlock(&mock->lock);
	KUNIT_ASSERT_EQ(test, err, 0);
}

static void ttm_evict_window_bench(struct kunit *test)
{
	const struct window_bench_case *c = test->param_value;
	const unsigned int blocks = c->fragmented ? 4 : 1;
	const unsigned int pages = 2 * blocks * c->n;
	u64 search_ns = U64_MAX, attempt_ns = U64_MAX;
	struct ttm_test_devices *priv = test->priv;
	struct dmem_cgroup_region *region = NULL;
	struct ttm_buffer_object *owner, *evictor;
	struct ttm_operation_ctx ctx = { };
	struct ttm_evict_window_pools pools = { };
	struct ttm_evict_window_request req = {
		.place = &contig_place,
		.ctx = &ctx,
		.may_try_low = true,
		.pools = &pools,
	};
	struct ttm_resource_manager *man;
	struct ttm_mock_manager *mock;
	struct ttm_evict_window window;
	struct ttm_resource **res;
	LIST_HEAD(even);
	unsigned int i;
	u32 ratio;

	/* The suite's 16-page VRAM makes way for the layout's. */
	ttm_mock_manager_fini(priv->ttm_dev, TTM_PL_VRAM);
	KUNIT_ASSERT_EQ(test, ttm_mock_manager_init(priv->ttm_dev, TTM_PL_VRAM,
						    pages * PAGE_SIZE), 0);
	man = ttm_manager_type(priv->ttm_dev, TTM_PL_VRAM);
	mock = container_of(man, struct ttm_mock_manager, man);

	if (c->fragmented) {
		region = dmem_cgroup_register_region(&(struct dmem_cgroup_init){
			.size = (u64)pages * PAGE_SIZE }, "ttm_evict_window_bench");
		/* NULL without CONFIG_CGROUP_DMEM: no pool to charge. */
		if (!region)
			kunit_skip(test, "no dmem cgroup controller (CONFIG_CGROUP_DMEM)");
		KUNIT_ASSERT_FALSE(test, IS_ERR(region));
	}
	res = kvcalloc(c->n, sizeof(*res), GFP_KERNEL);
	if (!res) {
		if (region)
			dmem_cgroup_unregister_region(region);
		kunit_skip(test, "no memory for %u resources", c->n);
	}
	if (region) {
		ttm_resource_manager_set_dmem_region(man, region);
		window_bench_take_even(test, mock, pages, &even);
	}

	owner = window_test_bo(test, &sys_placement, blocks * PAGE_SIZE, NULL);
	evictor = window_test_bo(test, &sys_placement, 16 * PAGE_SIZE, NULL);
	req.evictor = evictor;

	dma_resv_lock(owner->base.resv, NULL);
	for (i = 0; i < c->n; i++) {
		struct ttm_place range = {
			.mem_type = TTM_PL_VRAM,
			.fpfn = c->fragmented ? 8 * i : 2 * i + 1,
			.lpfn = c->fragmented ? 8 * i + 8 : 2 * i + 2,
		};
		struct dmem_cgroup_pool_state *pool;

		KUNIT_ASSERT_EQ(test, ttm_resource_try_charge(owner, &range,
							      &pool, NULL), 0);
		KUNIT_ASSERT_EQ(test, ttm_resource_alloc(owner, &range, &res[i],
							 pool), 0);
	}
	if (c->fragmented) {
		mutex_lock(&mock->lock);
		gpu_buddy_free_list(&mock->mm, &even, 0);
		mutex_unlock(&mock->lock);
	}

	/* Each figure is the fastest of its runs, the two taking turns. */
	for (i = 0; i < WINDOW_BENCH_RUNS; i++) {
		struct ttm_resource *none = NULL;
		ktime_t start = ktime_get();

		memset(&pools, 0, sizeof(pools));
		KUNIT_ASSERT_TRUE(test, man->func->evict_window(man, &req,
								&window));
		search_ns = min_t(u64, search_ns,
				  ktime_to_ns(ktime_sub(ktime_get(), start)));

		start = ktime_get();
		KUNIT_ASSERT_EQ(test, man->func->alloc(man, evictor,
						       &contig_place, &none),
				-ENOSPC);
		attempt_ns = min_t(u64, attempt_ns,
				   ktime_to_ns(ktime_sub(ktime_get(), start)));
	}

	/* Eight NORMAL pages, weighted 1 + TTM_RESIDENCY_NORMAL. */
	KUNIT_EXPECT_EQ(test, window.size, 16 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, window.cost,
			8 * PAGE_SIZE * (1 + TTM_RESIDENCY_NORMAL));
	/* Eight one-page resources, or two of four blocks. */
	KUNIT_EXPECT_EQ(test, window.resources, 8 / blocks);

	ratio = window_bench_ratio(search_ns, attempt_ns);
	kunit_info(test, "%u resources of %u block(s)%s: search (manager lock held) %llu ns, failed contiguous allocation %llu ns (search = x%u.%02u attempts)\n",
		   c->n, blocks, c->fragmented ? ", dmem pool" : "",
		   search_ns, attempt_ns, ratio / 100, ratio % 100);

	for (i = 0; i < c->n; i++)
		ttm_resource_free(owner, &res[i]);
	dma_resv_unlock(owner->base.resv);
	kvfree(res);
	ttm_bo_fini(evictor);
	ttm_bo_fini(owner);
	if (region) {
		ttm_resource_manager_set_dmem_region(man, NULL);
		dmem_cgroup_unregister_region(region);
	}
}

static struct kunit_case ttm_evict_window_cases[] = {
	KUNIT_CASE(ttm_evict_window_cheapest),
	KUNIT_CASE(ttm_evict_window_not_contiguous),
	KUNIT_CASE_PARAM(ttm_evict_window_refused, window_refused_gen_params),
	KUNIT_CASE_PARAM(ttm_evict_window_skips_unmovable,
			 window_unmovable_gen_params),
	KUNIT_CASE(ttm_evict_window_busy),
	KUNIT_CASE(ttm_evict_window_walk_ends),
	{}
};

static struct kunit_suite ttm_evict_window_suite = {
	.name = "ttm_evict_window",
	.init = ttm_evict_window_test_init,
	.exit = ttm_evict_window_test_fini,
	.test_cases = ttm_evict_window_cases,
};

static struct kunit_case ttm_evict_window_bench_cases[] = {
	/* Information rather than a test: it fails only if the search does. */
	KUNIT_CASE_PARAM_ATTR(ttm_evict_window_bench, window_bench_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite ttm_evict_window_bench_suite = {
	.name = "ttm_evict_window_bench",
	.init = ttm_evict_window_test_init,
	.exit = ttm_evict_window_test_fini,
	.test_cases = ttm_evict_window_bench_cases,
};

kunit_test_suites(&ttm_evict_window_suite, &ttm_evict_window_bench_suite);

MODULE_DESCRIPTION("KUnit tests for contiguity-aware eviction");
MODULE_LICENSE("GPL and additional rights");
