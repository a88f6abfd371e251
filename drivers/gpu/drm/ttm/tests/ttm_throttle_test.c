// SPDX-License-Identifier: GPL-2.0 AND MIT
/*
 * KUnit tests for eviction throttling: the state sequence on a fake clock,
 * and what a throttled client may move and evict in each state.
 */
#include <kunit/static_stub.h>
#include <kunit/visibility.h>

#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_throttle.h>

#include "../ttm_throttle_internal.h"
#include "ttm_kunit_helpers.h"
#include "ttm_mock_manager.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

#define THR_BO_SIZE	SZ_128K
#define THR_HARD_MS	5
#define THR_SOFT_MS	2000
#define THR_HARD	ms_to_ktime(THR_HARD_MS)
#define THR_SOFT	ms_to_ktime(THR_SOFT_MS)
/* The fake clock starts well away from 0, which means "never evicted". */
#define THR_START	ms_to_ktime(1000000)

static const struct ttm_place sys_place = { .mem_type = TTM_PL_SYSTEM };
static const struct ttm_place vram_place = { .mem_type = TTM_PL_VRAM };
static const struct ttm_place tt_place = { .mem_type = TTM_PL_TT };
static const struct ttm_place vram_or_tt[] = {
	{ .mem_type = TTM_PL_VRAM },
	{ .mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_FALLBACK },
};

static struct ttm_placement sys_placement = {
	.num_placement = 1,
	.placement = &sys_place,
};

/* Must be in VRAM, as a scanout buffer. */
static struct ttm_placement vram_placement = {
	.num_placement = 1,
	.placement = &vram_place,
};

static struct ttm_placement tt_placement = {
	.num_placement = 1,
	.placement = &tt_place,
};

/* Prefers VRAM, accepts GTT, as most buffers of xe and amdgpu. */
static struct ttm_placement vram_or_tt_placement = {
	.num_placement = ARRAY_SIZE(vram_or_tt),
	.placement = vram_or_tt,
};

/**
 * struct thr_test - what one test set up
 * @devs: The devices.
 * @now: The fake clock.
 * @last_id: The client id given last; the first client's is 1.
 */
struct thr_test {
	struct ttm_test_devices *devs;
	ktime_t now;
	u64 last_id;
};

/**
 * struct thr_client - a client, as a GPU VM: one reservation object, one
 * bulk move and its throttle
 * @resv: The reservation object all of the client's BOs share.
 * @bulk: The client's bulk move.
 * @throttle: The client's throttle.
 */
struct thr_client {
	struct dma_resv resv;
	struct ttm_lru_bulk_move bulk;
	struct ttm_throttle throttle;
};

static ktime_t thr_fake_now(void)
{
	struct thr_test *t = kunit_get_current_test()->priv;

	return t->now;
}

/* The tests are about what moves where, so moves copy nothing. */
static int thr_test_move(struct ttm_buffer_object *bo, bool evict,
			 struct ttm_operation_ctx *ctx,
			 struct ttm_resource *new_mem, struct ttm_place *hop)
{
	ttm_bo_move_null(bo, new_mem);
	return 0;
}

/* VRAM is evicted to GTT, GTT to system memory. */
static void thr_test_evict_flags(struct ttm_buffer_object *bo,
				 struct ttm_placement *placement)
{
	*placement = bo->resource->mem_type == TTM_PL_VRAM ? tt_placement :
							     sys_placement;
}

static struct ttm_device *thr_bdev(struct kunit *test)
{
	struct thr_test *t = test->priv;

	return t->devs->ttm_dev;
}

/*
 * Teardown runs as deferred actions, last set up first undone: BOs, then
 * clients, then managers, then the device.
 */
static void thr_devices_put(void *data)
{
	struct kunit *test = data;
	struct thr_test *t = test->priv;

	ttm_test_devices_put(test, t->devs);
}

static int ttm_throttle_test_init(struct kunit *test)
{
	struct ttm_device_funcs *funcs;
	struct ttm_device *bdev;
	struct thr_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->now = THR_START;
	test->priv = t;

	funcs = ttm_dev_funcs_copy(test);
	funcs->move = thr_test_move;
	funcs->evict_flags = thr_test_evict_flags;
	t->devs = ttm_test_devices_with_funcs(test, funcs);
	bdev = t->devs->ttm_dev;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, thr_devices_put,
							test), 0);
	/* The periods the drivers opt in with; TTM sets none. */
	bdev->throttle_periods.hard_ms = THR_HARD_MS;
	bdev->throttle_periods.soft_ms = THR_SOFT_MS;

	kunit_activate_static_stub(test, ttm_throttle_now, thr_fake_now);
	return 0;
}

static void thr_managers_fini(void *data)
{
	struct ttm_device *bdev = thr_bdev(data);

	ttm_mock_manager_fini(bdev, TTM_PL_VRAM);
	ttm_mock_manager_fini(bdev, TTM_PL_TT);
}

/* VRAM with room for @vram BOs, GTT with room for @tt. */
static void thr_managers(struct kunit *test, unsigned int vram,
			 unsigned int tt)
{
	KUNIT_ASSERT_EQ(test, ttm_mock_manager_init(thr_bdev(test), TTM_PL_VRAM,
						    vram * THR_BO_SIZE), 0);
	KUNIT_ASSERT_EQ(test, ttm_mock_manager_init(thr_bdev(test), TTM_PL_TT,
						    tt * THR_BO_SIZE), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, thr_managers_fini,
							test), 0);
}

static void thr_advance(struct kunit *test, ktime_t delta)
{
	struct thr_test *t = test->priv;

	t->now = ktime_add(t->now, delta);
}

static void thr_client_fini(void *data)
{
	struct thr_client *client = data;

	dma_resv_fini(&client->resv);
}

/* A client, its bulk move off the stack, for its size. */
static struct thr_client *thr_client(struct kunit *test)
{
	struct thr_test *t = test->priv;
	struct thr_client *client;

	client = kunit_kzalloc(test, sizeof(*client), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, client);
	dma_resv_init(&client->resv);
	ttm_lru_bulk_move_init(&client->bulk);
	ttm_throttle_init(&client->throttle, &client->bulk,
			  &thr_bdev(test)->throttle_periods, ++t->last_id);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, thr_client_fini,
							client), 0);
	return client;
}

/* VRAM with room for @vram BOs, GTT for 16, and client A, and B if @cb. */
static void thr_setup(struct kunit *test, unsigned int vram,
		      struct thr_client **ca, struct thr_client **cb)
{
	thr_managers(test, vram, 16);
	*ca = thr_client(test);
	if (cb)
		*cb = thr_client(test);
}

/* Takes the BO out of its bulk move before the put: the move goes first. */
static void thr_bo_put(void *data)
{
	struct ttm_buffer_object *bo = data;

	dma_resv_lock(bo->base.resv, NULL);
	ttm_bo_set_bulk_move(bo, NULL);
	dma_resv_unlock(bo->base.resv);
	ttm_bo_fini(bo);
}

/* A BO of @client, in its bulk move, first placed in @placement. */
static struct ttm_buffer_object *thr_bo(struct kunit *test,
					struct thr_client *client,
					struct ttm_placement *placement)
{
	struct thr_test *t = test->priv;
	struct ttm_operation_ctx ctx = { };
	struct ttm_buffer_object *bo;

	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bo);
	drm_gem_private_object_init(t->devs->drm, &bo->base, THR_BO_SIZE);
	dma_resv_lock(&client->resv, NULL);
	KUNIT_ASSERT_EQ(test, ttm_bo_init_reserved(thr_bdev(test), bo,
						   ttm_bo_type_device,
						   placement, PAGE_SIZE, &ctx,
						   NULL, &client->resv,
						   &dummy_ttm_bo_destroy), 0);
	ttm_bo_set_bulk_move(bo, &client->bulk);
	dma_resv_unlock(&client->resv);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, thr_bo_put, bo),
			0);
	return bo;
}

/*
 * Validates @bo as a submission of @client holding its reservation would,
 * with @throttle: the client's own, or NULL as without throttling.
 */
static int thr_validate_as(struct thr_client *client,
			   struct ttm_buffer_object *bo,
			   struct ttm_placement *placement,
			   struct ttm_throttle *throttle, bool allow_res_evict)
{
	struct ttm_operation_ctx ctx = {
		/* The client's other BOs share the lock it holds. */
		.allow_res_evict = allow_res_evict,
		.resv = &client->resv,
		.throttle = throttle,
	};
	int ret;

	dma_resv_lock(&client->resv, NULL);
	ret = ttm_bo_validate(bo, placement, &ctx);
	dma_resv_unlock(&client->resv);
	return ret;
}

/* The context of a submission of @client, as xe and amdgpu validate. */
static struct ttm_operation_ctx thr_ctx(struct thr_client *client)
{
	return (struct ttm_operation_ctx) {
		.resv = &client->resv,
		.throttle = &client->throttle,
	};
}

static int thr_validate_ctx(struct thr_client *client,
			    struct ttm_buffer_object *bo,
			    struct ttm_placement *placement,
			    struct ttm_operation_ctx *ctx)
{
	int ret;

	dma_resv_lock(&client->resv, NULL);
	ret = ttm_bo_validate(bo, placement, ctx);
	dma_resv_unlock(&client->resv);
	return ret;
}

static int thr_validate(struct thr_client *client,
			struct ttm_buffer_object *bo,
			struct ttm_placement *placement)
{
	return thr_validate_as(client, bo, placement, &client->throttle, true);
}

static u32 mem_type(struct ttm_buffer_object *bo)
{
	return bo->resource->mem_type;
}

static enum ttm_throttle_state state(struct thr_client *client)
{
	return ttm_throttle_get_state(&client->throttle);
}

static void ttm_throttle_states_follow_the_clock(struct kunit *test)
{
	struct thr_client *c = thr_client(test);
	struct ttm_throttle *thr = &c->throttle;

	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(NULL), TTM_THROTTLE_NORMAL);
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_NORMAL);

	ttm_throttle_evicted(thr, NULL);
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_HARD);
	thr_advance(test, ktime_sub(THR_HARD, 1));
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_HARD);
	thr_advance(test, 1);
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_SOFT);
	thr_advance(test, ktime_sub(THR_SOFT, 1));
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_SOFT);
	thr_advance(test, 1);
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_NORMAL);

	/* An eviction in soft throttle restarts the sequence at hard. */
	ttm_throttle_evicted(thr, NULL);
	thr_advance(test, THR_HARD);
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_SOFT);
	ttm_throttle_evicted(thr, NULL);
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_HARD);

	/* So does one in hard throttle: the periods run from the last. */
	thr_advance(test, ktime_sub(THR_HARD, 1));
	ttm_throttle_evicted(thr, NULL);
	thr_advance(test, ktime_sub(THR_HARD, 1));
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_HARD);
	thr_advance(test, ktime_add(THR_SOFT, 1));
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_NORMAL);
}

static void ttm_throttle_device_periods_apply_at_once(struct kunit *test)
{
	struct ttm_throttle_periods *periods = &thr_bdev(test)->throttle_periods;
	struct thr_client *c = thr_client(test);

	ttm_throttle_evicted(&c->throttle, NULL);
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_HARD);

	periods->hard_ms = 0;
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_SOFT);

	/* Both 0: throttling is off, even right after an eviction. */
	periods->soft_ms = 0;
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_NORMAL);
	ttm_throttle_evicted(&c->throttle, NULL);
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_NORMAL);

	periods->hard_ms = THR_HARD_MS;
	KUNIT_EXPECT_EQ(test, state(c), TTM_THROTTLE_HARD);
}

/* A device whose driver sets no periods throttles nobody. */
static void ttm_throttle_off_by_default(struct kunit *test)
{
	struct thr_test *t = test->priv;
	struct ttm_lru_bulk_move *bulk;
	struct ttm_throttle throttle;
	struct ttm_device *ttm;

	ttm = kunit_kzalloc(test, sizeof(*ttm), GFP_KERNEL);
	bulk = kunit_kzalloc(test, sizeof(*bulk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ttm);
	KUNIT_ASSERT_NOT_NULL(test, bulk);
	/* ttm_device_init() must set the periods, not find them zeroed. */
	ttm->throttle_periods.hard_ms = THR_HARD_MS;
	ttm->throttle_periods.soft_ms = THR_SOFT_MS;
	KUNIT_ASSERT_EQ(test, ttm_device_kunit_init(t->devs, ttm, 0), 0);
	KUNIT_EXPECT_EQ(test, ttm->throttle_periods.hard_ms, 0);
	KUNIT_EXPECT_EQ(test, ttm->throttle_periods.soft_ms, 0);

	ttm_lru_bulk_move_init(bulk);
	ttm_throttle_init(&throttle, bulk, &ttm->throttle_periods, 1);
	ttm_throttle_evicted(&throttle, NULL);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(&throttle),
			TTM_THROTTLE_NORMAL);
	ttm_device_fini(ttm);
}

static void ttm_throttle_eviction_throttles_the_victim(struct kunit *test)
{
	struct ttm_buffer_object *a, *b, *a_new;
	struct thr_client *ca, *cb;

	thr_setup(test, 2, &ca, &cb);
	/* In LRU order: B's BO is the first victim. */
	b = thr_bo(test, cb, &vram_placement);
	a = thr_bo(test, ca, &vram_placement);
	a_new = thr_bo(test, ca, &tt_placement);

	KUNIT_ASSERT_EQ(test, thr_validate(ca, a_new, &vram_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a_new), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(b), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, mem_type(a), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, state(cb), TTM_THROTTLE_HARD);
	KUNIT_EXPECT_EQ(test, state(ca), TTM_THROTTLE_NORMAL);
}

static void ttm_throttle_own_eviction_throttles_nobody(struct kunit *test)
{
	struct ttm_buffer_object *a[3];
	struct thr_client *ca;

	thr_setup(test, 2, &ca, NULL);
	a[0] = thr_bo(test, ca, &vram_placement);
	a[1] = thr_bo(test, ca, &vram_placement);
	a[2] = thr_bo(test, ca, &tt_placement);

	/* Without a throttle, the shared reservation makes a[0] its own. */
	KUNIT_ASSERT_EQ(test, thr_validate_as(ca, a[2], &vram_placement, NULL,
					      true), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a[0]), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, mem_type(a[2]), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, state(ca), TTM_THROTTLE_NORMAL);
}

static void ttm_throttle_hard_keeps_acceptable_memory(struct kunit *test)
{
	struct ttm_buffer_object *a;
	struct thr_client *ca;

	thr_setup(test, 2, &ca, NULL);
	a = thr_bo(test, ca, &tt_placement);

	/* VRAM is free, but a hard-throttled client stays in GTT. */
	ttm_throttle_evicted(&ca->throttle, NULL);
	KUNIT_ASSERT_EQ(test, thr_validate(ca, a, &vram_or_tt_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a), TTM_PL_TT);

	/* In soft throttle it fills the free VRAM again. */
	thr_advance(test, THR_HARD);
	KUNIT_ASSERT_EQ(test, thr_validate(ca, a, &vram_or_tt_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a), TTM_PL_VRAM);
}

static void ttm_throttle_hard_moves_what_must_move(struct kunit *test)
{
	struct ttm_buffer_object *a, *b[2];
	struct thr_client *ca, *cb;

	thr_setup(test, 2, &ca, &cb);
	b[0] = thr_bo(test, cb, &vram_placement);
	b[1] = thr_bo(test, cb, &vram_placement);
	a = thr_bo(test, ca, &tt_placement);

	/* A scanout buffer must be in VRAM, at another client's cost. */
	ttm_throttle_evicted(&ca->throttle, NULL);
	KUNIT_ASSERT_EQ(test, thr_validate(ca, a, &vram_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(b[0]), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, mem_type(b[1]), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, state(cb), TTM_THROTTLE_HARD);
}

/*
 * VRAM holds B's BO, first in LRU order, then A's. A, whose memory B took
 * if A is throttled, places a BO that must be in VRAM; returns A's BO that
 * was in VRAM, B's in @b.
 */
static struct ttm_buffer_object *
thr_must_place_scenario(struct kunit *test, enum ttm_throttle_state a_state,
			struct ttm_buffer_object **b)
{
	struct ttm_buffer_object *a, *a_new;
	struct thr_client *ca, *cb;

	thr_setup(test, 2, &ca, &cb);
	*b = thr_bo(test, cb, &vram_placement);
	a = thr_bo(test, ca, &vram_placement);
	a_new = thr_bo(test, ca, &tt_placement);

	if (a_state != TTM_THROTTLE_NORMAL)
		ttm_throttle_evicted(&ca->throttle, &cb->throttle);
	if (a_state == TTM_THROTTLE_SOFT)
		thr_advance(test, THR_HARD);
	KUNIT_ASSERT_EQ(test, state(ca), a_state);

	KUNIT_ASSERT_EQ(test, thr_validate(ca, a_new, &vram_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a_new), TTM_PL_VRAM);
	return a;
}

/* A's own BO goes rather than that of B, which took A's memory. */
static void ttm_throttle_soft_spares_its_evictor(struct kunit *test)
{
	struct ttm_buffer_object *a, *b;

	a = thr_must_place_scenario(test, TTM_THROTTLE_SOFT, &b);
	KUNIT_EXPECT_EQ(test, mem_type(a), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, mem_type(b), TTM_PL_VRAM);
}

static void ttm_throttle_normal_evicts_lru_first(struct kunit *test)
{
	struct ttm_buffer_object *a, *b;

	a = thr_must_place_scenario(test, TTM_THROTTLE_NORMAL, &b);
	KUNIT_EXPECT_EQ(test, mem_type(a), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(b), TTM_PL_TT);
}

static void ttm_throttle_soft_falls_back_before_evicting(struct kunit *test)
{
	struct ttm_buffer_object *a, *b[2];
	struct thr_client *ca, *cb;

	thr_setup(test, 2, &ca, &cb);
	b[0] = thr_bo(test, cb, &vram_placement);
	b[1] = thr_bo(test, cb, &vram_placement);
	a = thr_bo(test, ca, &sys_placement);

	ttm_throttle_evicted(&ca->throttle, &cb->throttle);
	thr_advance(test, THR_HARD);
	KUNIT_ASSERT_EQ(test, thr_validate(ca, a, &vram_or_tt_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, mem_type(b[0]), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(b[1]), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, state(cb), TTM_THROTTLE_NORMAL);

	/* Once normal again, it takes VRAM from B. */
	thr_advance(test, THR_SOFT);
	KUNIT_ASSERT_EQ(test, thr_validate(ca, a, &vram_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(b[0]), TTM_PL_TT);
}

static void ttm_throttle_soft_spares_evictor_unless_must_place(struct kunit *test)
{
	struct ttm_buffer_object *a[3], *b;
	struct thr_client *ca, *cb;

	thr_setup(test, 2, &ca, &cb);
	b = thr_bo(test, cb, &vram_placement);
	a[0] = thr_bo(test, ca, &vram_placement);
	a[1] = thr_bo(test, ca, &sys_placement);
	a[2] = thr_bo(test, ca, &sys_placement);

	/* As xe and amdgpu validate: the client's own BOs are out of reach. */
	ttm_throttle_evicted(&ca->throttle, &cb->throttle);
	thr_advance(test, THR_HARD);
	KUNIT_ASSERT_EQ(test, thr_validate_as(ca, a[1], &vram_or_tt_placement,
					      &ca->throttle, false), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a[1]), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, mem_type(b), TTM_PL_VRAM);

	/* A BO that can only be in VRAM takes the place of B's, A's evictor. */
	KUNIT_ASSERT_EQ(test, thr_validate_as(ca, a[2], &vram_placement,
					      &ca->throttle, false), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a[2]), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(a[0]), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(b), TTM_PL_TT);
}

static void ttm_throttle_hard_leaves_pinned_bos_alone(struct kunit *test)
{
	struct ttm_buffer_object *a;
	struct thr_client *ca;

	thr_setup(test, 2, &ca, NULL);
	a = thr_bo(test, ca, &tt_placement);

	dma_resv_lock(&ca->resv, NULL);
	ttm_bo_pin(a);
	dma_resv_unlock(&ca->resv);

	/*
	 * GTT is only a fallback, so a pinned BO there gets the -EINVAL of a
	 * move it may not make, as without throttling; hard throttle would
	 * have kept it.
	 */
	ttm_throttle_evicted(&ca->throttle, NULL);
	KUNIT_EXPECT_EQ(test, thr_validate(ca, a, &vram_or_tt_placement),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mem_type(a), TTM_PL_TT);

	dma_resv_lock(&ca->resv, NULL);
	ttm_bo_unpin(a);
	dma_resv_unlock(&ca->resv);
}

static void ttm_throttle_relocation_ignores_the_evictor(struct kunit *test)
{
	struct ttm_buffer_object *a_tt, *a_new, *b, *c;
	struct thr_client *ca, *cb, *cc;

	/* VRAM: B's BO. GTT, in LRU order: C's, then A's. */
	thr_managers(test, 1, 2);
	ca = thr_client(test);
	cb = thr_client(test);
	cc = thr_client(test);
	b = thr_bo(test, cb, &vram_placement);
	c = thr_bo(test, cc, &tt_placement);
	a_tt = thr_bo(test, ca, &tt_placement);
	a_new = thr_bo(test, ca, &sys_placement);

	/*
	 * A, soft-throttled after C took its memory, must place a BO in VRAM
	 * and evicts B's. B's BO makes room in GTT in LRU order, taking C's:
	 * A's throttle, which would spare C, is not the relocation's.
	 */
	ttm_throttle_evicted(&ca->throttle, &cc->throttle);
	thr_advance(test, THR_HARD);
	KUNIT_ASSERT_EQ(test, thr_validate(ca, a_new, &vram_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a_new), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(b), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, mem_type(c), TTM_PL_SYSTEM);
	KUNIT_EXPECT_EQ(test, mem_type(a_tt), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, state(cc), TTM_THROTTLE_HARD);
}

/* Two throttles with one client id, as xe's VMs of one file, are one. */
static void ttm_throttle_same_client_throttles_nobody(struct kunit *test)
{
	struct ttm_buffer_object *a, *a2, *a_new;
	struct thr_client *ca, *ca2;

	thr_setup(test, 2, &ca, &ca2);
	ca2->throttle.client_id = ca->throttle.client_id;
	a2 = thr_bo(test, ca2, &vram_placement);
	a = thr_bo(test, ca, &vram_placement);
	a_new = thr_bo(test, ca, &tt_placement);

	KUNIT_ASSERT_EQ(test, thr_validate_as(ca, a_new, &vram_placement,
					      &ca->throttle, false), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a2), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, mem_type(a), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, state(ca2), TTM_THROTTLE_NORMAL);
}

/*
 * The 3-client rule: B, whose memory A took, still evicts C's memory, but
 * not A's. Without a throttle, B would evict A's, first in LRU order.
 */
static void ttm_throttle_soft_evicts_others_not_its_evictor(struct kunit *test)
{
	struct ttm_buffer_object *a, *b[3], *c;
	struct thr_client *ca, *cb, *cc;

	thr_setup(test, 2, &ca, &cb);
	cc = thr_client(test);
	b[0] = thr_bo(test, cb, &vram_placement);
	c = thr_bo(test, cc, &vram_placement);
	a = thr_bo(test, ca, &tt_placement);
	b[1] = thr_bo(test, cb, &sys_placement);
	b[2] = thr_bo(test, cb, &sys_placement);

	/* A takes B's VRAM; C's submission then puts A's BO first in LRU. */
	KUNIT_ASSERT_EQ(test, thr_validate_as(ca, a, &vram_placement,
					      &ca->throttle, false), 0);
	KUNIT_ASSERT_EQ(test, mem_type(b[0]), TTM_PL_TT);
	KUNIT_ASSERT_EQ(test, state(cb), TTM_THROTTLE_HARD);
	dma_resv_lock(&cc->resv, NULL);
	spin_lock(&thr_bdev(test)->lru_lock);
	ttm_lru_bulk_move_tail(&cc->bulk);
	spin_unlock(&thr_bdev(test)->lru_lock);
	dma_resv_unlock(&cc->resv);

	/* As xe and amdgpu validate, B's own BOs are out of its reach. */
	thr_advance(test, THR_HARD);
	KUNIT_ASSERT_EQ(test, state(cb), TTM_THROTTLE_SOFT);
	KUNIT_ASSERT_EQ(test, thr_validate_as(cb, b[1], &vram_or_tt_placement,
					      &cb->throttle, false), 0);
	KUNIT_EXPECT_EQ(test, mem_type(b[1]), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(c), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, mem_type(a), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, state(cc), TTM_THROTTLE_HARD);
	KUNIT_EXPECT_EQ(test, state(ca), TTM_THROTTLE_NORMAL);

	/* A's memory alone is left: B's next BO falls back to GTT. */
	KUNIT_ASSERT_EQ(test, thr_validate_as(cb, b[2], &vram_or_tt_placement,
					      &cb->throttle, false), 0);
	KUNIT_EXPECT_EQ(test, mem_type(b[2]), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, mem_type(a), TTM_PL_VRAM);

	/* Once B is normal again, A's memory is anyone's. */
	thr_advance(test, THR_SOFT);
	KUNIT_ASSERT_EQ(test, thr_validate_as(cb, b[2], &vram_placement,
					      &cb->throttle, false), 0);
	KUNIT_EXPECT_EQ(test, mem_type(b[2]), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(a), TTM_PL_TT);
}

/* Whether @victim, throttled, keeps off @owner's memory now. */
static bool thr_spares(struct ttm_throttle *victim, struct ttm_throttle *owner)
{
	struct ttm_throttle_spare spare;

	ttm_throttle_get_spare(victim, &spare);
	return ttm_throttle_spares(&spare, owner);
}

/* The driver learns which BOs the throttle kept, and only those. */
static void ttm_throttle_reports_what_it_kept(struct kunit *test)
{
	struct ttm_buffer_object *a[3], *b;
	struct ttm_operation_ctx ctx;
	struct thr_client *ca, *cb;

	thr_setup(test, 2, &ca, &cb);
	b = thr_bo(test, cb, &vram_placement);
	a[0] = thr_bo(test, ca, &tt_placement);
	a[1] = thr_bo(test, ca, &tt_placement);
	a[2] = thr_bo(test, ca, &sys_placement);

	/* Hard: a[0] stays in GTT though VRAM has room; that is reported. */
	ttm_throttle_evicted(&ca->throttle, &cb->throttle);
	ctx = thr_ctx(ca);
	KUNIT_ASSERT_EQ(test, thr_validate_ctx(ca, a[0], &vram_or_tt_placement,
					       &ctx), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a[0]), TTM_PL_TT);
	KUNIT_EXPECT_TRUE(test, ctx.throttle_kept);

	/* A BO that asks for GTT alone, as a prefetch there, is not kept. */
	ctx = thr_ctx(ca);
	KUNIT_ASSERT_EQ(test, thr_validate_ctx(ca, a[1], &tt_placement, &ctx),
			0);
	KUNIT_EXPECT_FALSE(test, ctx.throttle_kept);

	/* Soft: a[0] fills the free VRAM, nothing kept. */
	thr_advance(test, THR_HARD);
	ctx = thr_ctx(ca);
	KUNIT_ASSERT_EQ(test, thr_validate_ctx(ca, a[0], &vram_or_tt_placement,
					       &ctx), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a[0]), TTM_PL_VRAM);
	KUNIT_EXPECT_FALSE(test, ctx.throttle_kept);

	/* VRAM holds only B's, A's evictor, and A's own: a[2] falls back. */
	ctx = thr_ctx(ca);
	KUNIT_ASSERT_EQ(test, thr_validate_ctx(ca, a[2], &vram_or_tt_placement,
					       &ctx), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a[2]), TTM_PL_TT);
	KUNIT_EXPECT_TRUE(test, ctx.throttle_kept);

	/* A BO that must be in VRAM evicts B's, and is where it must be. */
	ctx = thr_ctx(ca);
	KUNIT_ASSERT_EQ(test, thr_validate_ctx(ca, a[1], &vram_placement,
					       &ctx), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a[1]), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(b), TTM_PL_TT);
	KUNIT_EXPECT_FALSE(test, ctx.throttle_kept);
}

/* Each evictor for its own periods, at most TTM_THROTTLE_EVICTORS. */
static void ttm_throttle_evictors_are_remembered(struct kunit *test)
{
	struct thr_client *c[TTM_THROTTLE_EVICTORS + 2];
	struct ttm_throttle *victim;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		c[i] = thr_client(test);
	victim = &c[0]->throttle;

	/* No one yet; an evictor without a throttle is not remembered. */
	KUNIT_EXPECT_FALSE(test, thr_spares(victim, &c[1]->throttle));
	ttm_throttle_evicted(victim, NULL);
	KUNIT_EXPECT_FALSE(test, thr_spares(victim, &c[1]->throttle));
	KUNIT_EXPECT_FALSE(test, thr_spares(victim, NULL));

	ttm_throttle_evicted(victim, &c[1]->throttle);
	KUNIT_EXPECT_TRUE(test, thr_spares(victim, &c[1]->throttle));
	KUNIT_EXPECT_FALSE(test, thr_spares(victim, &c[2]->throttle));
	KUNIT_EXPECT_FALSE(test, thr_spares(victim, victim));

	/* c[2] later: c[1] is forgotten first, when its periods end. */
	thr_advance(test, THR_HARD);
	ttm_throttle_evicted(victim, &c[2]->throttle);
	thr_advance(test, ktime_sub(THR_SOFT, 1));
	KUNIT_EXPECT_TRUE(test, thr_spares(victim, &c[1]->throttle));
	thr_advance(test, 1);
	KUNIT_EXPECT_FALSE(test, thr_spares(victim, &c[1]->throttle));
	KUNIT_EXPECT_TRUE(test, thr_spares(victim, &c[2]->throttle));

	/* An evictor that evicts again keeps one slot, with the new time. */
	for (i = 1; i <= TTM_THROTTLE_EVICTORS; i++) {
		thr_advance(test, 1);
		ttm_throttle_evicted(victim, &c[i]->throttle);
		ttm_throttle_evicted(victim, &c[i]->throttle);
	}
	for (i = 1; i <= TTM_THROTTLE_EVICTORS; i++)
		KUNIT_EXPECT_TRUE(test,
				  thr_spares(victim, &c[i]->throttle));

	/* One more replaces the one that evicted longest ago, c[1]. */
	thr_advance(test, 1);
	ttm_throttle_evicted(victim, &c[TTM_THROTTLE_EVICTORS + 1]->throttle);
	KUNIT_EXPECT_FALSE(test, thr_spares(victim, &c[1]->throttle));
	for (i = 2; i <= TTM_THROTTLE_EVICTORS + 1; i++)
		KUNIT_EXPECT_TRUE(test,
				  thr_spares(victim, &c[i]->throttle));
}

static struct kunit_case ttm_throttle_test_cases[] = {
	KUNIT_CASE(ttm_throttle_states_follow_the_clock),
	KUNIT_CASE(ttm_throttle_device_periods_apply_at_once),
	KUNIT_CASE(ttm_throttle_off_by_default),
	KUNIT_CASE(ttm_throttle_eviction_throttles_the_victim),
	KUNIT_CASE(ttm_throttle_own_eviction_throttles_nobody),
	KUNIT_CASE(ttm_throttle_hard_keeps_acceptable_memory),
	KUNIT_CASE(ttm_throttle_hard_moves_what_must_move),
	KUNIT_CASE(ttm_throttle_soft_spares_its_evictor),
	KUNIT_CASE(ttm_throttle_normal_evicts_lru_first),
	KUNIT_CASE(ttm_throttle_soft_falls_back_before_evicting),
	KUNIT_CASE(ttm_throttle_soft_spares_evictor_unless_must_place),
	KUNIT_CASE(ttm_throttle_same_client_throttles_nobody),
	KUNIT_CASE(ttm_throttle_soft_evicts_others_not_its_evictor),
	KUNIT_CASE(ttm_throttle_reports_what_it_kept),
	KUNIT_CASE(ttm_throttle_evictors_are_remembered),
	KUNIT_CASE(ttm_throttle_hard_leaves_pinned_bos_alone),
	KUNIT_CASE(ttm_throttle_relocation_ignores_the_evictor),
	{}
};

static struct kunit_suite ttm_throttle_test_suite = {
	.name = "ttm_throttle",
	.init = ttm_throttle_test_init,
	.test_cases = ttm_throttle_test_cases,
};

kunit_test_suites(&ttm_throttle_test_suite);

MODULE_DESCRIPTION("KUnit tests for TTM eviction throttling");
MODULE_LICENSE("GPL and additional rights");
