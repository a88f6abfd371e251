// SPDX-License-Identifier: GPL-2.0 AND MIT
/*
 * KUnit tests for residency levels: the order of resources inside LRU bulk
 * moves, LRU cursors while levels change, and what eviction takes first. A
 * benchmark suite prints what bulk moves and level changes cost as bulk
 * moves grow.
 */
#include <linux/dma-fence.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_tt.h>

#include "ttm_kunit_helpers.h"
#include "ttm_mock_manager.h"

#define RES_BO_SIZE	SZ_128K

static const struct ttm_place sys_place = { .mem_type = TTM_PL_SYSTEM };
static const struct ttm_place vram_place = { .mem_type = TTM_PL_VRAM };

static struct ttm_placement vram_placement = {
	.num_placement = 1,
	.placement = &vram_place,
};

static struct ttm_placement sys_placement = {
	.num_placement = 1,
	.placement = &sys_place,
};

/**
 * struct res_client - a client: one reservation object and one bulk move,
 * as a GPU VM has
 * @resv: The reservation object all of the client's BOs share.
 * @bulk: The client's bulk move.
 */
struct res_client {
	struct dma_resv resv;
	struct ttm_lru_bulk_move bulk;
};

/*
 * Set by the one case that moves as a copy engine would: the old resource
 * goes to a ghost object until this fence signals. Cases run one after
 * another, and the suite's init clears it.
 */
static struct dma_fence *res_move_fence;
static DEFINE_SPINLOCK(res_fence_lock);

static const char *res_fence_name(struct dma_fence *fence)
{
	return "ttm_residency_test";
}

static const struct dma_fence_ops res_fence_ops = {
	.get_driver_name = res_fence_name,
	.get_timeline_name = res_fence_name,
};

/* The tests are about what gets evicted, so moves copy nothing. */
static int res_test_move(struct ttm_buffer_object *bo, bool evict,
			 struct ttm_operation_ctx *ctx,
			 struct ttm_resource *new_mem, struct ttm_place *hop)
{
	if (res_move_fence && !evict && bo->resource)
		return ttm_bo_move_accel_cleanup(bo, res_move_fence, false,
						 false, new_mem);

	ttm_bo_move_null(bo, new_mem);
	return 0;
}

static void res_test_evict_flags(struct ttm_buffer_object *bo,
				 struct ttm_placement *placement)
{
	*placement = sys_placement;
}

static int ttm_residency_test_init(struct kunit *test)
{
	struct ttm_device_funcs *funcs = ttm_dev_funcs_copy(test);

	res_move_fence = NULL;
	funcs->move = res_test_move;
	funcs->evict_flags = res_test_evict_flags;
	test->priv = ttm_test_devices_with_funcs(test, funcs);
	return 0;
}

static struct ttm_resource_manager *sys_man(struct kunit *test)
{
	struct ttm_test_devices *devs = test->priv;

	return ttm_manager_type(devs->ttm_dev, TTM_PL_SYSTEM);
}

/* On the heap, as a driver embeds its bulk moves in its VMs. */
static struct res_client *res_client(struct kunit *test)
{
	struct res_client *client;

	client = kunit_kzalloc(test, sizeof(*client), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, client);
	dma_resv_init(&client->resv);
	ttm_lru_bulk_move_init(&client->bulk);
	return client;
}

static void res_client_fini(struct kunit *test, struct res_client *client)
{
	struct ttm_test_devices *devs = test->priv;

	ttm_lru_bulk_move_fini(devs->ttm_dev, &client->bulk);
	dma_resv_fini(&client->resv);
}

/*
 * A BO with a system resource in @bulk, set up by hand rather than with
 * ttm_bo_init_reserved(), so that the benchmark can afford 100k of them.
 * @resv is locked.
 */
static void res_bo_init(struct kunit *test, struct ttm_buffer_object *bo,
			struct ttm_resource *res, struct dma_resv *resv,
			struct ttm_lru_bulk_move *bulk,
			enum ttm_residency residency)
{
	struct ttm_test_devices *devs = test->priv;

	/* bo->priority, the LRU list, may be set by the caller. */
	kref_init(&bo->kref);
	bo->bdev = devs->ttm_dev;
	bo->base.size = PAGE_SIZE;
	bo->base.resv = resv;
	bo->residency = residency;

	ttm_resource_init(bo, &sys_place, res);
	bo->resource = res;
	ttm_bo_set_bulk_move(bo, bulk);
}

/* The reservation object is locked. */
static void res_bo_fini(struct ttm_buffer_object *bo)
{
	ttm_bo_set_bulk_move(bo, NULL);
	ttm_resource_fini(ttm_manager_type(bo->bdev, TTM_PL_SYSTEM),
			  bo->resource);
}

/*
 * The tests take one client's lock at a time, around each step, as two
 * reservation locks without an acquire context may not nest.
 */
static struct ttm_buffer_object *res_bo_on(struct kunit *test,
					   struct res_client *client,
					   unsigned int priority,
					   enum ttm_residency residency)
{
	struct ttm_buffer_object *bo;
	struct ttm_resource *res;

	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bo);
	bo->priority = priority;
	res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, res);

	dma_resv_lock(&client->resv, NULL);
	res_bo_init(test, bo, res, &client->resv, &client->bulk, residency);
	dma_resv_unlock(&client->resv);
	return bo;
}

/* A BO on the system manager's first LRU list. */
static struct ttm_buffer_object *res_bo(struct kunit *test,
					struct res_client *client,
					enum ttm_residency residency)
{
	return res_bo_on(test, client, 0, residency);
}

static void res_bos_put(struct ttm_buffer_object **bos, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		dma_resv_lock(bos[i]->base.resv, NULL);
		res_bo_fini(bos[i]);
		dma_resv_unlock(bos[i]->base.resv);
	}
}

static void res_set_residency(struct ttm_buffer_object *bo,
			      enum ttm_residency residency)
{
	dma_resv_lock(bo->base.resv, NULL);
	ttm_bo_set_residency(bo, residency);
	dma_resv_unlock(bo->base.resv);
}

static void res_set_bulk(struct ttm_buffer_object *bo,
			 struct ttm_lru_bulk_move *bulk)
{
	dma_resv_lock(bo->base.resv, NULL);
	ttm_bo_set_bulk_move(bo, bulk);
	dma_resv_unlock(bo->base.resv);
}

static void res_use(struct ttm_buffer_object *bo)
{
	dma_resv_lock(bo->base.resv, NULL);
	spin_lock(&bo->bdev->lru_lock);
	ttm_bo_move_to_lru_tail(bo);
	spin_unlock(&bo->bdev->lru_lock);
	dma_resv_unlock(bo->base.resv);
}

static void res_bulk_tail(struct kunit *test, struct res_client *client)
{
	struct ttm_test_devices *devs = test->priv;

	dma_resv_lock(&client->resv, NULL);
	spin_lock(&devs->ttm_dev->lru_lock);
	ttm_lru_bulk_move_tail(&client->bulk);
	spin_unlock(&devs->ttm_dev->lru_lock);
	dma_resv_unlock(&client->resv);
}

/* The BOs on the manager's LRU list @prio must be exactly @bos, in order. */
static void expect_list_order(struct kunit *test,
			      struct ttm_resource_manager *man,
			      unsigned int prio,
			      struct ttm_buffer_object **bos, unsigned int n)
{
	struct ttm_test_devices *devs = test->priv;
	struct ttm_lru_item *lru;
	unsigned int i = 0;

	spin_lock(&devs->ttm_dev->lru_lock);
	list_for_each_entry(lru, &man->lru[prio], link) {
		struct ttm_resource *res;

		if (!ttm_lru_item_is_res(lru))
			continue;
		res = ttm_lru_item_to_res(lru);
		if (i < n)
			KUNIT_EXPECT_PTR_EQ_MSG(test, res->bo, bos[i],
						"LRU position %u", i);
		i++;
	}
	spin_unlock(&devs->ttm_dev->lru_lock);
	KUNIT_EXPECT_EQ(test, i, n);
}

static void expect_lru_order(struct kunit *test,
			     struct ttm_resource_manager *man,
			     struct ttm_buffer_object **bos, unsigned int n)
{
	expect_list_order(test, man, 0, bos, n);
}

/*
 * The invariant of a bulk move on the LRU list @prio of the manager of
 * @mem_type: its @count resources follow each other in order of the level
 * they joined at, the range starts and ends where the bulk move says, and
 * so does each level. A BO's current resource is at the BO's level. A
 * range without level ends holds NORMAL resources only.
 */
static void expect_range_sorted(struct kunit *test, u32 mem_type,
				unsigned int prio,
				struct ttm_lru_bulk_move *bulk,
				unsigned int count)
{
	struct ttm_test_devices *devs = test->priv;
	struct ttm_resource_manager *man = ttm_manager_type(devs->ttm_dev,
							    mem_type);
	struct ttm_resource **level_last =
		bulk->levels ? bulk->levels->last[mem_type][prio] : NULL;
	struct ttm_lru_bulk_move_pos *pos = &bulk->pos[mem_type][prio];
	struct ttm_resource *last_seen[TTM_NUM_RESIDENCY] = { };
	struct ttm_resource *first = NULL, *last = NULL;
	bool ended = false;
	unsigned int level = 0;
	struct ttm_lru_item *lru;
	unsigned int i, seen = 0;

	spin_lock(&devs->ttm_dev->lru_lock);
	list_for_each_entry(lru, &man->lru[prio], link) {
		struct ttm_resource *res;

		if (!ttm_lru_item_is_res(lru))
			continue;
		res = ttm_lru_item_to_res(lru);
		if (res->bo->bulk_move != bulk || res->bo->pin_count) {
			ended = first;
			continue;
		}
		KUNIT_EXPECT_FALSE_MSG(test, ended, "bulk move is split");
		KUNIT_EXPECT_GE(test, res->residency, level);
		if (!level_last)
			KUNIT_EXPECT_EQ(test, res->residency,
					TTM_RESIDENCY_NORMAL);
		else if (res == res->bo->resource)
			KUNIT_EXPECT_EQ(test, res->residency, res->bo->residency);
		level = res->residency;
		if (!first)
			first = res;
		last = res;
		last_seen[level] = res;
		seen++;
	}
	spin_unlock(&devs->ttm_dev->lru_lock);

	KUNIT_EXPECT_EQ(test, seen, count);
	KUNIT_EXPECT_PTR_EQ(test, pos->first, first);
	KUNIT_EXPECT_PTR_EQ(test, pos->last, last);
	for (i = 0; level_last && i < TTM_NUM_RESIDENCY; i++)
		KUNIT_EXPECT_PTR_EQ_MSG(test, level_last[i], last_seen[i],
					"end of level %u", i);
}

static void expect_list_sorted(struct kunit *test, unsigned int prio,
			       struct ttm_lru_bulk_move *bulk,
			       unsigned int count)
{
	expect_range_sorted(test, TTM_PL_SYSTEM, prio, bulk, count);
}

static void expect_bulk_sorted(struct kunit *test,
			       struct ttm_lru_bulk_move *bulk,
			       unsigned int count)
{
	expect_list_sorted(test, 0, bulk, count);
}

static void ttm_residency_orders_inserts(struct kunit *test)
{
	static const enum ttm_residency levels[] = {
		TTM_RESIDENCY_NORMAL, TTM_RESIDENCY_MINIMUM,
		TTM_RESIDENCY_MAXIMUM, TTM_RESIDENCY_NORMAL,
		TTM_RESIDENCY_LOW, TTM_RESIDENCY_MINIMUM,
	};
	struct ttm_buffer_object *bos[ARRAY_SIZE(levels)];
	struct ttm_buffer_object *want[ARRAY_SIZE(levels)];
	struct res_client *a;
	unsigned int i;

	a = res_client(test);
	for (i = 0; i < ARRAY_SIZE(levels); i++)
		bos[i] = res_bo(test, a, levels[i]);

	/* By level, and by age within a level. */
	want[0] = bos[1];
	want[1] = bos[5];
	want[2] = bos[4];
	want[3] = bos[0];
	want[4] = bos[3];
	want[5] = bos[2];
	expect_lru_order(test, sys_man(test), want, ARRAY_SIZE(want));
	expect_bulk_sorted(test, &a->bulk, ARRAY_SIZE(bos));

	/* A use moves a BO to the tail of its own level only. */
	res_use(bos[1]);
	want[0] = bos[5];
	want[1] = bos[1];
	expect_lru_order(test, sys_man(test), want, ARRAY_SIZE(want));
	expect_bulk_sorted(test, &a->bulk, ARRAY_SIZE(bos));

	res_bos_put(bos, ARRAY_SIZE(bos));
	res_client_fini(test, a);
}

static void ttm_residency_bulk_move_keeps_order(struct kunit *test)
{
	struct ttm_buffer_object *a0, *a1, *a2, *b0, *b1;
	struct res_client *a, *b;

	a = res_client(test);
	b = res_client(test);

	/* Interleaved, as two clients allocate at once. */
	a0 = res_bo(test, a, TTM_RESIDENCY_NORMAL);
	b0 = res_bo(test, b, TTM_RESIDENCY_MINIMUM);
	a1 = res_bo(test, a, TTM_RESIDENCY_MINIMUM);
	b1 = res_bo(test, b, TTM_RESIDENCY_HIGH);
	a2 = res_bo(test, a, TTM_RESIDENCY_MAXIMUM);

	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ a1, a0, a2, b0, b1 },
			 5);

	/* A used last: all of B goes first, then A's lowest level. */
	res_bulk_tail(test, a);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ b0, b1, a1, a0, a2 },
			 5);
	expect_bulk_sorted(test, &a->bulk, 3);
	expect_bulk_sorted(test, &b->bulk, 2);

	res_bos_put((struct ttm_buffer_object *[]){ a0, a1, a2, b0, b1 }, 5);
	res_client_fini(test, b);
	res_client_fini(test, a);
}

static void ttm_residency_change_moves_within_bulk(struct kunit *test)
{
	struct ttm_buffer_object *x[4], *y;
	struct res_client *a, *b;
	unsigned int i;

	a = res_client(test);
	b = res_client(test);
	for (i = 0; i < ARRAY_SIZE(x); i++)
		x[i] = res_bo(test, a, TTM_RESIDENCY_NORMAL);
	y = res_bo(test, b, TTM_RESIDENCY_MINIMUM);

	res_set_residency(x[2], TTM_RESIDENCY_MINIMUM);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ x[2], x[0], x[1], x[3], y },
			 5);

	/* A change is not a use: each goes to the front of its new level. */
	res_set_residency(x[0], TTM_RESIDENCY_MAXIMUM);
	res_set_residency(x[1], TTM_RESIDENCY_MAXIMUM);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ x[2], x[3], x[1], x[0], y },
			 5);
	expect_bulk_sorted(test, &a->bulk, 4);

	/* The lowest level empties; x[2] goes in front of x[3]. */
	res_set_residency(x[2], TTM_RESIDENCY_NORMAL);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ x[2], x[3], x[1], x[0], y },
			 5);

	/* The same level again changes nothing. */
	res_set_residency(x[3], TTM_RESIDENCY_NORMAL);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ x[2], x[3], x[1], x[0], y },
			 5);
	expect_bulk_sorted(test, &a->bulk, 4);
	expect_bulk_sorted(test, &b->bulk, 1);

	res_bos_put(x, ARRAY_SIZE(x));
	res_bos_put(&y, 1);
	res_client_fini(test, b);
	res_client_fini(test, a);
}

/*
 * D3D12's Evict() sets MINIMUM: the BO must be the first to go, before the
 * BOs that were at MINIMUM already, until it is used again.
 */
static void ttm_residency_lowered_bo_goes_first(struct kunit *test)
{
	struct ttm_buffer_object *m, *n0, *n1;
	struct res_client *a;

	a = res_client(test);
	m = res_bo(test, a, TTM_RESIDENCY_MINIMUM);
	n0 = res_bo(test, a, TTM_RESIDENCY_NORMAL);
	n1 = res_bo(test, a, TTM_RESIDENCY_NORMAL);

	res_set_residency(n1, TTM_RESIDENCY_MINIMUM);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ n1, m, n0 }, 3);
	expect_bulk_sorted(test, &a->bulk, 3);

	res_use(n1);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ m, n1, n0 }, 3);
	expect_bulk_sorted(test, &a->bulk, 3);

	res_bos_put((struct ttm_buffer_object *[]){ m, n0, n1 }, 3);
	res_client_fini(test, a);
}

/*
 * A bulk move whose BOs are all NORMAL allocates nothing; the first BO of
 * another level allocates the level ends of its own range only, and the
 * NORMAL resources already there keep their order.
 */
static void ttm_residency_levels_only_where_used(struct kunit *test)
{
	struct ttm_buffer_object *n0, *n1, *p1, *lo, *n2;
	struct ttm_lru_bulk_levels *levels;
	struct res_client *a;
	unsigned int i, j;

	a = res_client(test);
	n0 = res_bo(test, a, TTM_RESIDENCY_NORMAL);
	n1 = res_bo(test, a, TTM_RESIDENCY_NORMAL);
	p1 = res_bo_on(test, a, 1, TTM_RESIDENCY_NORMAL);
	KUNIT_EXPECT_NULL(test, a->bulk.levels);
	expect_bulk_sorted(test, &a->bulk, 2);

	lo = res_bo(test, a, TTM_RESIDENCY_LOW);
	n2 = res_bo(test, a, TTM_RESIDENCY_NORMAL);
	levels = a->bulk.levels;
	KUNIT_ASSERT_NOT_NULL(test, levels);
	for (i = 0; i < TTM_NUM_MEM_TYPES; i++)
		for (j = 0; j < TTM_MAX_BO_PRIORITY; j++)
			KUNIT_EXPECT_EQ_MSG(test, !!levels->last[i][j],
					    i == TTM_PL_SYSTEM && j == 0,
					    "range of type %u, priority %u",
					    i, j);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ lo, n0, n1, n2 }, 4);
	expect_bulk_sorted(test, &a->bulk, 4);
	expect_list_sorted(test, 1, &a->bulk, 1);

	res_bos_put((struct ttm_buffer_object *[]){ n0, n1, p1, lo, n2 }, 5);
	res_client_fini(test, a);
	KUNIT_EXPECT_NULL(test, a->bulk.levels);
}

static void ttm_residency_refills_an_emptied_range(struct kunit *test)
{
	struct ttm_buffer_object *x, *hi, *lo;
	struct res_client *a;

	a = res_client(test);
	x = res_bo(test, a, TTM_RESIDENCY_LOW);
	res_bos_put(&x, 1);
	expect_bulk_sorted(test, &a->bulk, 0);

	/* Nothing of the level that emptied the range is left to join. */
	hi = res_bo(test, a, TTM_RESIDENCY_HIGH);
	lo = res_bo(test, a, TTM_RESIDENCY_MINIMUM);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ lo, hi }, 2);
	expect_bulk_sorted(test, &a->bulk, 2);

	res_bos_put((struct ttm_buffer_object *[]){ hi, lo }, 2);
	res_client_fini(test, a);
}

/*
 * While a BO moves, its new resource is in the bulk move beside the old
 * one. A level change then moves the BO's current resource only; the other
 * keeps the level it joined at, and leaves from there.
 */
static void ttm_residency_second_resource_keeps_its_level(struct kunit *test)
{
	struct ttm_buffer_object *x, *y;
	struct ttm_resource *second;
	struct res_client *a;

	a = res_client(test);
	x = res_bo(test, a, TTM_RESIDENCY_NORMAL);
	y = res_bo(test, a, TTM_RESIDENCY_NORMAL);

	dma_resv_lock(&a->resv, NULL);
	KUNIT_ASSERT_EQ(test, ttm_resource_alloc(x, &sys_place, &second, NULL),
			0);
	ttm_bo_set_residency(x, TTM_RESIDENCY_MAXIMUM);
	dma_resv_unlock(&a->resv);
	KUNIT_EXPECT_EQ(test, second->residency, TTM_RESIDENCY_NORMAL);
	expect_bulk_sorted(test, &a->bulk, 3);

	dma_resv_lock(&a->resv, NULL);
	ttm_resource_free(x, &second);
	dma_resv_unlock(&a->resv);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ y, x }, 2);
	expect_bulk_sorted(test, &a->bulk, 2);

	res_bos_put((struct ttm_buffer_object *[]){ x, y }, 2);
	res_client_fini(test, a);
}

/* A level set while pinned takes effect when the BO rejoins its bulk move. */
static void ttm_residency_set_while_pinned(struct kunit *test)
{
	struct ttm_buffer_object *x, *y, *z;
	struct res_client *a;

	a = res_client(test);
	x = res_bo(test, a, TTM_RESIDENCY_NORMAL);
	y = res_bo(test, a, TTM_RESIDENCY_NORMAL);
	z = res_bo(test, a, TTM_RESIDENCY_LOW);

	dma_resv_lock(&a->resv, NULL);
	ttm_bo_pin(x);
	ttm_bo_set_residency(x, TTM_RESIDENCY_MINIMUM);
	dma_resv_unlock(&a->resv);
	expect_bulk_sorted(test, &a->bulk, 2);

	dma_resv_lock(&a->resv, NULL);
	ttm_bo_unpin(x);
	dma_resv_unlock(&a->resv);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ x, z, y }, 3);
	expect_bulk_sorted(test, &a->bulk, 3);

	res_bos_put((struct ttm_buffer_object *[]){ x, y, z }, 3);
	res_client_fini(test, a);
}

/* A BO that changes bulk moves takes its level along. */
static void ttm_residency_moves_between_bulk_moves(struct kunit *test)
{
	struct ttm_buffer_object *lo, *mid, *hi;
	struct ttm_lru_bulk_move *other;
	struct res_client *a;

	a = res_client(test);
	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, other);
	ttm_lru_bulk_move_init(other);
	lo = res_bo(test, a, TTM_RESIDENCY_MINIMUM);
	mid = res_bo(test, a, TTM_RESIDENCY_NORMAL);
	hi = res_bo(test, a, TTM_RESIDENCY_HIGH);

	res_set_bulk(hi, other);
	res_set_bulk(lo, other);
	expect_bulk_sorted(test, &a->bulk, 1);
	expect_bulk_sorted(test, other, 2);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ mid, lo, hi }, 3);

	res_set_bulk(lo, &a->bulk);
	expect_bulk_sorted(test, &a->bulk, 2);
	expect_bulk_sorted(test, other, 1);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ lo, mid, hi }, 3);

	res_bos_put((struct ttm_buffer_object *[]){ lo, mid, hi }, 3);
	ttm_lru_bulk_move_fini(sys_man(test)->bdev, other);
	res_client_fini(test, a);
}

static void ttm_residency_orders_each_list_apart(struct kunit *test)
{
	struct ttm_buffer_object *a0, *a1, *a2, *a3, *b0;
	struct res_client *a, *b;

	a = res_client(test);
	b = res_client(test);

	/* TTM's priority picks the list; levels order each one. */
	a0 = res_bo_on(test, a, 0, TTM_RESIDENCY_NORMAL);
	a1 = res_bo_on(test, a, 1, TTM_RESIDENCY_MAXIMUM);
	b0 = res_bo_on(test, b, 1, TTM_RESIDENCY_NORMAL);
	a2 = res_bo_on(test, a, 1, TTM_RESIDENCY_MINIMUM);
	a3 = res_bo_on(test, a, 0, TTM_RESIDENCY_MINIMUM);

	expect_list_order(test, sys_man(test), 0,
			  (struct ttm_buffer_object *[]){ a3, a0 }, 2);
	expect_list_order(test, sys_man(test), 1,
			  (struct ttm_buffer_object *[]){ a2, a1, b0 }, 3);

	/* A bulk move moves the client on every list it is on. */
	res_bulk_tail(test, a);
	expect_list_order(test, sys_man(test), 1,
			  (struct ttm_buffer_object *[]){ b0, a2, a1 }, 3);
	expect_list_sorted(test, 0, &a->bulk, 2);
	expect_list_sorted(test, 1, &a->bulk, 2);
	expect_list_sorted(test, 1, &b->bulk, 1);

	res_bos_put((struct ttm_buffer_object *[]){ a0, a1, a2, a3, b0 }, 5);
	res_client_fini(test, b);
	res_client_fini(test, a);
}

static void ttm_residency_leaving_bulk_goes_behind_it(struct kunit *test)
{
	struct ttm_buffer_object *lo, *mid, *hi, *other;
	struct res_client *a, *b;

	a = res_client(test);
	b = res_client(test);
	lo = res_bo(test, a, TTM_RESIDENCY_MINIMUM);
	mid = res_bo(test, a, TTM_RESIDENCY_NORMAL);
	hi = res_bo(test, a, TTM_RESIDENCY_MAXIMUM);
	other = res_bo(test, b, TTM_RESIDENCY_NORMAL);

	res_set_bulk(mid, NULL);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ lo, hi, mid, other },
			 4);
	expect_bulk_sorted(test, &a->bulk, 2);

	/* Moving the bulk does not take the BO that left it along. */
	res_bulk_tail(test, a);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ mid, other, lo, hi },
			 4);

	/* Pinning leaves the bulk too, and unpinning returns to the level. */
	res_set_bulk(mid, &a->bulk);
	dma_resv_lock(&a->resv, NULL);
	ttm_bo_pin(mid);
	dma_resv_unlock(&a->resv);
	expect_bulk_sorted(test, &a->bulk, 2);
	dma_resv_lock(&a->resv, NULL);
	ttm_bo_unpin(mid);
	dma_resv_unlock(&a->resv);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ other, lo, mid, hi },
			 4);
	expect_bulk_sorted(test, &a->bulk, 3);

	res_bos_put((struct ttm_buffer_object *[]){ lo, mid, hi, other }, 4);
	res_client_fini(test, b);
	res_client_fini(test, a);
}

/* Returns the next resource of a walk, with the LRU lock dropped between. */
static struct ttm_buffer_object *
walk_next(struct ttm_resource_cursor *cursor, bool first)
{
	struct ttm_resource_manager *man = cursor->man;
	struct ttm_resource *res;

	spin_lock(&man->bdev->lru_lock);
	res = first ? ttm_resource_manager_first(cursor) :
		ttm_resource_manager_next(cursor);
	spin_unlock(&man->bdev->lru_lock);
	return res ? res->bo : NULL;
}

static void ttm_residency_cursor_survives_changes(struct kunit *test)
{
	struct ttm_resource_cursor cursor;
	struct ttm_buffer_object *x[4], *y;
	struct res_client *a, *b;
	unsigned int i;

	ttm_resource_cursor_init(&cursor, sys_man(test));
	a = res_client(test);
	b = res_client(test);
	for (i = 0; i < ARRAY_SIZE(x); i++)
		x[i] = res_bo(test, a, TTM_RESIDENCY_NORMAL);
	y = res_bo(test, b, TTM_RESIDENCY_NORMAL);

	KUNIT_EXPECT_PTR_EQ(test, walk_next(&cursor, true), x[0]);
	KUNIT_EXPECT_PTR_EQ(test, walk_next(&cursor, false), x[1]);

	/*
	 * A change of level is a use: the walk meets a BO again only if it
	 * moved behind the cursor. x[1] moves up behind it; x[3] moves down,
	 * ahead of it, and is not met.
	 */
	res_set_residency(x[1], TTM_RESIDENCY_HIGH);
	res_set_residency(x[3], TTM_RESIDENCY_MINIMUM);
	KUNIT_EXPECT_PTR_EQ(test, walk_next(&cursor, false), x[2]);
	KUNIT_EXPECT_PTR_EQ(test, walk_next(&cursor, false), x[1]);

	/* A bulk move under the cursor sends it behind the bulk. */
	res_bulk_tail(test, a);
	KUNIT_EXPECT_PTR_EQ(test, walk_next(&cursor, false), y);
	KUNIT_EXPECT_PTR_EQ(test, walk_next(&cursor, false), x[3]);

	/*
	 * The BO the cursor stands behind moves up to the last level, and
	 * the first BO ahead leaves the bulk where it is.
	 */
	res_set_residency(x[3], TTM_RESIDENCY_MAXIMUM);
	res_set_bulk(x[0], NULL);
	KUNIT_EXPECT_PTR_EQ(test, walk_next(&cursor, false), x[0]);
	KUNIT_EXPECT_PTR_EQ(test, walk_next(&cursor, false), x[2]);
	KUNIT_EXPECT_PTR_EQ(test, walk_next(&cursor, false), x[1]);
	KUNIT_EXPECT_PTR_EQ(test, walk_next(&cursor, false), x[3]);
	KUNIT_EXPECT_NULL(test, walk_next(&cursor, false));

	spin_lock(&sys_man(test)->bdev->lru_lock);
	ttm_resource_cursor_fini(&cursor);
	spin_unlock(&sys_man(test)->bdev->lru_lock);
	expect_bulk_sorted(test, &a->bulk, 3);

	res_bos_put(x, ARRAY_SIZE(x));
	res_bos_put(&y, 1);
	res_client_fini(test, b);
	res_client_fini(test, a);
}

/* A BO of @client placed by @placement, in its bulk move, at @residency. */
static struct ttm_buffer_object *client_bo(struct kunit *test,
					   struct res_client *client,
					   struct ttm_placement *placement,
					   enum ttm_residency residency)
{
	struct ttm_test_devices *devs = test->priv;
	struct ttm_operation_ctx ctx = { };
	struct ttm_buffer_object *bo;

	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bo);
	drm_gem_private_object_init(devs->drm, &bo->base, RES_BO_SIZE);
	dma_resv_lock(&client->resv, NULL);
	KUNIT_ASSERT_EQ(test, ttm_bo_init_reserved(devs->ttm_dev, bo,
						   ttm_bo_type_device,
						   placement, PAGE_SIZE,
						   &ctx, NULL, &client->resv,
						   &dummy_ttm_bo_destroy), 0);
	ttm_bo_set_bulk_move(bo, &client->bulk);
	ttm_bo_set_residency(bo, residency);
	dma_resv_unlock(&client->resv);
	return bo;
}

static struct ttm_buffer_object *vram_bo(struct kunit *test,
					 struct res_client *client,
					 enum ttm_residency residency)
{
	return client_bo(test, client, &vram_placement, residency);
}

/* A system BO; @populated gives it pages, which a swap-out can take. */
static struct ttm_buffer_object *sys_bo(struct kunit *test,
					struct res_client *client,
					enum ttm_residency residency,
					bool populated)
{
	struct ttm_buffer_object *bo;
	struct ttm_operation_ctx ctx = { };

	bo = client_bo(test, client, &sys_placement, residency);
	if (populated) {
		dma_resv_lock(&client->resv, NULL);
		KUNIT_EXPECT_EQ(test, ttm_bo_populate(bo, &ctx), 0);
		dma_resv_unlock(&client->resv);
	}
	return bo;
}

static void res_bos_fini(struct ttm_buffer_object **bos, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		res_set_bulk(bos[i], NULL);
		ttm_bo_fini(bos[i]);
	}
}

/* Swaps x, the one BO of @a with pages, out; the bulk move keeps @left. */
static void res_swap_out(struct kunit *test, struct res_client *a,
			 struct ttm_buffer_object *x, unsigned int left)
{
	struct ttm_test_devices *devs = test->priv;
	struct ttm_operation_ctx ctx = { };

	KUNIT_ASSERT_GT(test, ttm_bo_swapout(devs->ttm_dev, &ctx,
					     sys_man(test), GFP_KERNEL, 1), 0);
	KUNIT_ASSERT_TRUE(test, ttm_tt_is_swapped(x->ttm));
	expect_bulk_sorted(test, &a->bulk, left);
}

static void res_swap_in(struct kunit *test, struct ttm_buffer_object *x)
{
	struct ttm_operation_ctx ctx = { };

	dma_resv_lock(x->base.resv, NULL);
	KUNIT_EXPECT_EQ(test, ttm_bo_populate(x, &ctx), 0);
	dma_resv_unlock(x->base.resv);
	KUNIT_ASSERT_FALSE(test, ttm_tt_is_swapped(x->ttm));
}

/*
 * A swapped-out BO leaves its bulk move, as it cannot be evicted, and keeps
 * its level, which may change meanwhile; swapped in, it returns to the end
 * of that level.
 */
static void ttm_residency_swapped_bo_returns_to_its_level(struct kunit *test)
{
	struct ttm_buffer_object *lo, *x, *mid, *hi;
	struct res_client *a;

	a = res_client(test);
	/* Only x has pages, so the swap-out walk takes x alone. */
	lo = sys_bo(test, a, TTM_RESIDENCY_MINIMUM, false);
	x = sys_bo(test, a, TTM_RESIDENCY_NORMAL, true);
	mid = sys_bo(test, a, TTM_RESIDENCY_NORMAL, false);
	hi = sys_bo(test, a, TTM_RESIDENCY_MAXIMUM, false);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ lo, x, mid, hi }, 4);

	res_swap_out(test, a, x, 3);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ lo, mid, hi }, 3);
	res_swap_in(test, x);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ lo, mid, x, hi }, 4);
	expect_bulk_sorted(test, &a->bulk, 4);

	/* A level set while swapped out is the one it returns to. */
	res_swap_out(test, a, x, 3);
	res_set_residency(x, TTM_RESIDENCY_MAXIMUM);
	KUNIT_EXPECT_EQ(test, x->residency, TTM_RESIDENCY_MAXIMUM);
	expect_bulk_sorted(test, &a->bulk, 3);
	res_swap_in(test, x);
	expect_lru_order(test, sys_man(test),
			 (struct ttm_buffer_object *[]){ lo, mid, hi, x }, 4);
	expect_bulk_sorted(test, &a->bulk, 4);

	res_bos_fini((struct ttm_buffer_object *[]){ lo, x, mid, hi }, 4);
	res_client_fini(test, a);
}

/* The resources on the manager's LRU list @prio, in bulk moves or not. */
static unsigned int list_count(struct kunit *test,
			       struct ttm_resource_manager *man,
			       unsigned int prio)
{
	struct ttm_test_devices *devs = test->priv;
	struct ttm_lru_item *lru;
	unsigned int n = 0;

	spin_lock(&devs->ttm_dev->lru_lock);
	list_for_each_entry(lru, &man->lru[prio], link)
		n += ttm_lru_item_is_res(lru);
	spin_unlock(&devs->ttm_dev->lru_lock);
	return n;
}

/*
 * A move that leaves the old resource to a ghost object until the copy's
 * fence signals, as a copy engine's does, takes that resource out of the
 * bulk move at the BO's level; the new resource joins at the same level.
 */
static void ttm_residency_ghost_leaves_the_bulk(struct kunit *test)
{
	struct ttm_test_devices *devs = test->priv;
	struct ttm_operation_ctx ctx = { };
	struct ttm_buffer_object *lo, *x, *hi, *y;
	struct dma_fence *fence;
	struct res_client *a;

	KUNIT_ASSERT_EQ(test, ttm_mock_manager_init(devs->ttm_dev, TTM_PL_VRAM,
						    4 * RES_BO_SIZE), 0);
	a = res_client(test);
	lo = vram_bo(test, a, TTM_RESIDENCY_MINIMUM);
	hi = vram_bo(test, a, TTM_RESIDENCY_MAXIMUM);
	x = sys_bo(test, a, TTM_RESIDENCY_HIGH, false);
	y = sys_bo(test, a, TTM_RESIDENCY_LOW, false);
	expect_range_sorted(test, TTM_PL_SYSTEM, 0, &a->bulk, 2);

	/* Freed by its last put, with kfree(), once it has signalled. */
	fence = kzalloc_obj(*fence);
	KUNIT_ASSERT_NOT_NULL(test, fence);
	dma_fence_init(fence, &res_fence_ops, &res_fence_lock,
		       dma_fence_context_alloc(1), 1);
	res_move_fence = fence;
	dma_resv_lock(&a->resv, NULL);
	KUNIT_EXPECT_EQ(test, ttm_bo_validate(x, &vram_placement, &ctx), 0);
	dma_resv_unlock(&a->resv);
	res_move_fence = NULL;

	/* While the copy runs, a ghost holds x's old resource, off the bulk. */
	KUNIT_EXPECT_EQ(test, x->resource->mem_type, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, x->residency, TTM_RESIDENCY_HIGH);
	expect_range_sorted(test, TTM_PL_VRAM, 0, &a->bulk, 3);
	expect_list_order(test, ttm_manager_type(devs->ttm_dev, TTM_PL_VRAM),
			  0, (struct ttm_buffer_object *[]){ lo, x, hi }, 3);
	expect_range_sorted(test, TTM_PL_SYSTEM, 0, &a->bulk, 1);
	KUNIT_EXPECT_EQ(test, list_count(test, sys_man(test), 0), 2);

	/* Once the copy is done, the ghost and its resource go. */
	dma_fence_signal(fence);
	dma_fence_put(fence);
	flush_workqueue(devs->ttm_dev->wq);
	expect_range_sorted(test, TTM_PL_SYSTEM, 0, &a->bulk, 1);
	KUNIT_EXPECT_EQ(test, list_count(test, sys_man(test), 0), 1);

	res_bos_fini((struct ttm_buffer_object *[]){ lo, x, hi, y }, 4);
	res_client_fini(test, a);
	ttm_mock_manager_fini(devs->ttm_dev, TTM_PL_VRAM);
}

static void ttm_residency_evicts_lowest_of_oldest_client(struct kunit *test)
{
	struct ttm_test_devices *devs = test->priv;
	struct ttm_buffer_object *a[3], *b[3], *c[6];
	struct ttm_operation_ctx ctx = { };
	struct ttm_buffer_object *order[6];
	struct res_client *ca, *cb;
	unsigned int i, j;

	KUNIT_ASSERT_EQ(test, ttm_mock_manager_init(devs->ttm_dev, TTM_PL_VRAM,
						    6 * RES_BO_SIZE), 0);

	ca = res_client(test);
	a[0] = vram_bo(test, ca, TTM_RESIDENCY_HIGH);
	a[1] = vram_bo(test, ca, TTM_RESIDENCY_LOW);
	a[2] = vram_bo(test, ca, TTM_RESIDENCY_NORMAL);

	cb = res_client(test);
	b[0] = vram_bo(test, cb, TTM_RESIDENCY_MINIMUM);
	b[1] = vram_bo(test, cb, TTM_RESIDENCY_MAXIMUM);
	b[2] = vram_bo(test, cb, TTM_RESIDENCY_LOW);

	/*
	 * A was created first but submits last, which makes B the older
	 * client. Within each, the lowest level goes first.
	 */
	res_bulk_tail(test, ca);
	expect_range_sorted(test, TTM_PL_VRAM, 0, &ca->bulk, 3);
	expect_range_sorted(test, TTM_PL_VRAM, 0, &cb->bulk, 3);
	order[0] = b[0];
	order[1] = b[2];
	order[2] = b[1];
	order[3] = a[1];
	order[4] = a[2];
	order[5] = a[0];

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		c[i] = kunit_kzalloc(test, sizeof(*c[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, c[i]);
		drm_gem_private_object_init(devs->drm, &c[i]->base,
					    RES_BO_SIZE);
		KUNIT_ASSERT_EQ(test, ttm_bo_init_reserved(devs->ttm_dev, c[i],
							   ttm_bo_type_device,
							   &sys_placement,
							   PAGE_SIZE, &ctx,
							   NULL, NULL,
							   &dummy_ttm_bo_destroy),
				0);
		KUNIT_EXPECT_EQ(test, ttm_bo_validate(c[i], &vram_placement,
						      &ctx), 0);
		ttm_bo_unreserve(c[i]);

		for (j = 0; j <= i; j++)
			KUNIT_EXPECT_EQ_MSG(test, order[j]->resource->mem_type,
					    TTM_PL_SYSTEM,
					    "eviction %u: BO %u still in VRAM",
					    i, j);
		for (; j < ARRAY_SIZE(order); j++)
			KUNIT_EXPECT_EQ_MSG(test, order[j]->resource->mem_type,
					    TTM_PL_VRAM,
					    "eviction %u: BO %u evicted early",
					    i, j);
	}
	/* Each client's evicted BOs keep their levels in system memory. */
	expect_range_sorted(test, TTM_PL_SYSTEM, 0, &ca->bulk, 3);
	expect_range_sorted(test, TTM_PL_SYSTEM, 0, &cb->bulk, 3);

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		res_set_bulk(order[i], NULL);
		ttm_bo_fini(order[i]);
		ttm_bo_fini(c[i]);
	}
	res_client_fini(test, cb);
	res_client_fini(test, ca);
	ttm_mock_manager_fini(devs->ttm_dev, TTM_PL_VRAM);
}

static struct kunit_case ttm_residency_test_cases[] = {
	KUNIT_CASE(ttm_residency_orders_inserts),
	KUNIT_CASE(ttm_residency_bulk_move_keeps_order),
	KUNIT_CASE(ttm_residency_change_moves_within_bulk),
	KUNIT_CASE(ttm_residency_lowered_bo_goes_first),
	KUNIT_CASE(ttm_residency_levels_only_where_used),
	KUNIT_CASE(ttm_residency_refills_an_emptied_range),
	KUNIT_CASE(ttm_residency_second_resource_keeps_its_level),
	KUNIT_CASE(ttm_residency_set_while_pinned),
	KUNIT_CASE(ttm_residency_moves_between_bulk_moves),
	KUNIT_CASE(ttm_residency_orders_each_list_apart),
	KUNIT_CASE(ttm_residency_leaving_bulk_goes_behind_it),
	KUNIT_CASE(ttm_residency_cursor_survives_changes),
	KUNIT_CASE(ttm_residency_evicts_lowest_of_oldest_client),
	KUNIT_CASE(ttm_residency_swapped_bo_returns_to_its_level),
	KUNIT_CASE(ttm_residency_ghost_leaves_the_bulk),
	{}
};

static struct kunit_suite ttm_residency_test_suite = {
	.name = "ttm_residency",
	.init = ttm_residency_test_init,
	.exit = ttm_test_devices_fini,
	.test_cases = ttm_residency_test_cases,
};

/*
 * The benchmark: one client with n BOs, and a second one with one BO so
 * that each bulk move really moves. The n BOs take turns in two bulk moves:
 * "7.3's path" has every BO at NORMAL in a bulk move that never had
 * another level, so it holds no level ends and adding, using and removing
 * a resource run the code without residency levels, behind one test of a
 * NULL pointer; "five levels" spreads the BOs over all levels. Both run in
 * the same kernel, in turns. ttm_lru_bulk_move_tail() is the same code for
 * both.
 */
static const unsigned int bench_bos[] = { 10, 1000, 10000, 100000 };

#define BENCH_ROUNDS	1000
#define BENCH_RUNS	5

static void bench_bos_desc(const unsigned int *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u BOs", *n);
}

KUNIT_ARRAY_PARAM(bench_bos, bench_bos, bench_bos_desc);

/**
 * struct bench_times - the fastest nanoseconds per operation of all runs
 * @add: A resource joins the bulk move.
 * @remove: A resource leaves it.
 * @use: A resource moves to the end of its level.
 * @change: A BO changes level (five levels only).
 * @tail: ttm_lru_bulk_move_tail() of the client, the other one's between.
 */
struct bench_times {
	u64 add, remove, use, change, tail;
};

static void bench_times_init(struct bench_times *t)
{
	t->add = U64_MAX;
	t->remove = U64_MAX;
	t->use = U64_MAX;
	t->change = U64_MAX;
	t->tail = U64_MAX;
}

/* Nanoseconds per bulk move of the client, with the other one's between. */
static u64 bench_bulk_moves(struct ttm_lru_bulk_move *a,
			    struct ttm_lru_bulk_move *b, spinlock_t *lru_lock)
{
	ktime_t start = ktime_get();
	unsigned int i;

	spin_lock(lru_lock);
	for (i = 0; i < BENCH_ROUNDS; i++) {
		ttm_lru_bulk_move_tail(a);
		ttm_lru_bulk_move_tail(b);
	}
	spin_unlock(lru_lock);
	return ktime_to_ns(ktime_sub(ktime_get(), start)) / (2 * BENCH_ROUNDS);
}

/* Nanoseconds per level change of one BO; it ends at HIGH. */
static u64 bench_level_changes(struct ttm_buffer_object *bo)
{
	ktime_t start = ktime_get();
	unsigned int i;

	for (i = 0; i < BENCH_ROUNDS; i++)
		ttm_bo_set_residency(bo, i & 1 ? TTM_RESIDENCY_LOW :
				     TTM_RESIDENCY_HIGH);
	return ktime_to_ns(ktime_sub(ktime_get(), start)) / BENCH_ROUNDS;
}

/*
 * Nanoseconds per use of a BO: two BOs of one level take turns, so that
 * each use is one list move, with levels or without.
 */
static u64 bench_uses(struct ttm_buffer_object *a, struct ttm_buffer_object *b)
{
	ktime_t start = ktime_get();
	unsigned int i;

	for (i = 0; i < BENCH_ROUNDS; i++) {
		struct ttm_buffer_object *bo = i & 1 ? b : a;

		spin_lock(&bo->bdev->lru_lock);
		ttm_bo_move_to_lru_tail(bo);
		spin_unlock(&bo->bdev->lru_lock);
	}
	return ktime_to_ns(ktime_sub(ktime_get(), start)) / BENCH_ROUNDS;
}

/*
 * Nanoseconds per removal and per addition of a resource: the first
 * BENCH_ROUNDS BOs (at most n) leave @bulk one by one, then join it again,
 * each at the end of its level.
 */
static void bench_leave_join(struct ttm_buffer_object *bos, unsigned int n,
			     struct ttm_lru_bulk_move *bulk,
			     struct bench_times *t)
{
	unsigned int i, k = min(n, BENCH_ROUNDS);
	ktime_t start;

	start = ktime_get();
	for (i = 0; i < k; i++)
		ttm_bo_set_bulk_move(&bos[i], NULL);
	t->remove = min_t(u64, t->remove,
			  ktime_to_ns(ktime_sub(ktime_get(), start)) / k);

	start = ktime_get();
	for (i = 0; i < k; i++)
		ttm_bo_set_bulk_move(&bos[i], bulk);
	t->add = min_t(u64, t->add,
		       ktime_to_ns(ktime_sub(ktime_get(), start)) / k);
}

/*
 * Every BO into @bulk, at NORMAL or spread over all levels. A BO leaves
 * its level in the bulk move it is in, so that a bulk move of NORMAL BOs
 * never sees another level.
 */
static void bench_set_levels(struct ttm_buffer_object *bos, unsigned int n,
			     struct ttm_lru_bulk_move *bulk, bool spread)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!spread)
			ttm_bo_set_residency(&bos[i], TTM_RESIDENCY_NORMAL);
		ttm_bo_set_bulk_move(&bos[i], bulk);
		if (spread)
			ttm_bo_set_residency(&bos[i], i % TTM_NUM_RESIDENCY);
	}
}

/* One run of every operation on @bulk; the level change with levels only. */
static void bench_run(struct ttm_buffer_object *bos, unsigned int n,
		      struct ttm_lru_bulk_move *bulk,
		      struct ttm_lru_bulk_move *other_bulk, bool spread,
		      struct bench_times *t)
{
	spinlock_t *lru_lock = &bos[0].bdev->lru_lock;

	bench_set_levels(bos, n, bulk, spread);
	t->tail = min(t->tail, bench_bulk_moves(bulk, other_bulk, lru_lock));
	/* Five BOs apart, as they are spread over the levels: the same level. */
	t->use = min(t->use, bench_uses(&bos[n / 2 - 5], &bos[n / 2]));
	bench_leave_join(bos, n, bulk, t);
	if (spread)
		t->change = min(t->change, bench_level_changes(&bos[n / 2]));
}

/* @a as a multiple of @b, in hundredths. */
static u32 bench_ratio(u64 a, u64 b)
{
	return min_t(u64, div64_u64(a * 100, max_t(u64, b, 1)), U32_MAX);
}

static void bench_print(struct kunit *test, const char *what, u64 levels,
			u64 flat)
{
	u32 ratio = bench_ratio(levels, flat);

	kunit_info(test, "  %-8s %6llu ns with five levels, %6llu ns on 7.3's path (x%u.%02u)\n",
		   what, levels, flat, ratio / 100, ratio % 100);
}

static void ttm_residency_bench(struct kunit *test)
{
	const unsigned int *param = test->param_value;
	struct ttm_lru_bulk_move *flat, *levelled, *other_bulk;
	struct bench_times t_flat, t_levels;
	struct ttm_buffer_object *bos, *other;
	unsigned int i, n = *param;
	struct ttm_resource *res;
	struct dma_resv resv;

	flat = kunit_kzalloc(test, sizeof(*flat), GFP_KERNEL);
	levelled = kunit_kzalloc(test, sizeof(*levelled), GFP_KERNEL);
	other_bulk = kunit_kzalloc(test, sizeof(*other_bulk), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, flat && levelled && other_bulk);
	bos = kvcalloc(n + 1, sizeof(*bos), GFP_KERNEL);
	res = kvcalloc(n + 1, sizeof(*res), GFP_KERNEL);
	if (!bos || !res) {
		kvfree(bos);
		kvfree(res);
		kunit_skip(test, "no memory for %u BOs", n);
	}

	/* Bulk moves may share a lock: one lock is all the timing needs. */
	dma_resv_init(&resv);
	ttm_lru_bulk_move_init(flat);
	ttm_lru_bulk_move_init(levelled);
	ttm_lru_bulk_move_init(other_bulk);
	dma_resv_lock(&resv, NULL);

	other = &bos[n];
	for (i = 0; i < n; i++)
		res_bo_init(test, &bos[i], &res[i], &resv, flat,
			    TTM_RESIDENCY_NORMAL);
	res_bo_init(test, other, &res[n], &resv, other_bulk,
		    TTM_RESIDENCY_NORMAL);

	/*
	 * The two take turns, and each figure is the fastest of its runs: a
	 * timer interrupt inside one run would otherwise decide it.
	 */
	bench_times_init(&t_flat);
	bench_times_init(&t_levels);
	for (i = 0; i < BENCH_RUNS; i++) {
		bench_run(bos, n, flat, other_bulk, false, &t_flat);
		expect_bulk_sorted(test, flat, n);
		bench_run(bos, n, levelled, other_bulk, true, &t_levels);
		expect_bulk_sorted(test, levelled, n);
	}
	/* The comparison holds only if 7.3's path really had no levels. */
	KUNIT_EXPECT_NULL(test, flat->levels);

	kunit_info(test, "%u BOs, per operation:\n", n);
	bench_print(test, "add", t_levels.add, t_flat.add);
	bench_print(test, "remove", t_levels.remove, t_flat.remove);
	bench_print(test, "use", t_levels.use, t_flat.use);
	kunit_info(test, "  %-8s %6llu ns with five levels; 7.3 has none (a use there: %llu ns)\n",
		   "change", t_levels.change, t_flat.use);
	bench_print(test, "tail", t_levels.tail, t_flat.tail);

	for (i = 0; i <= n; i++)
		res_bo_fini(&bos[i]);
	dma_resv_unlock(&resv);
	ttm_lru_bulk_move_fini(other->bdev, other_bulk);
	ttm_lru_bulk_move_fini(other->bdev, levelled);
	ttm_lru_bulk_move_fini(other->bdev, flat);
	dma_resv_fini(&resv);
	kvfree(res);
	kvfree(bos);
}

static struct kunit_case ttm_residency_bench_cases[] = {
	/* Information rather than a test: it fails only if the order breaks. */
	KUNIT_CASE_PARAM_ATTR(ttm_residency_bench, bench_bos_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite ttm_residency_bench_suite = {
	.name = "ttm_residency_bench",
	.init = ttm_residency_test_init,
	.exit = ttm_test_devices_fini,
	.test_cases = ttm_residency_bench_cases,
};

kunit_test_suites(&ttm_residency_test_suite, &ttm_residency_bench_suite);

MODULE_DESCRIPTION("KUnit tests for TTM residency levels");
MODULE_LICENSE("GPL and additional rights");
