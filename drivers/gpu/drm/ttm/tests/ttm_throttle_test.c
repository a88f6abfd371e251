// SPDX-License-Identifier: GPL-2.0 AND MIT
/*
 * KUnit tests for eviction throttling: the state sequence on a fake clock,
 * and what a throttled client may move and evict in each state.
 */
#include <kunit/static_stub.h>

#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_throttle.h>

#include "../ttm_throttle_internal.h"
#include "ttm_kunit_helpers.h"
#include "ttm_mock_manager.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define THR_BO_SIZE	SZ_128K
#define THR_HARD	ms_to_ktime(5)
#define THR_SOFT	ms_to_ktime(2000)
/* The fake clock starts well away from 0, where no throttle has ended. */
#define THR_START	ms_to_ktime(1000000)

static const struct ttm_place vram_place = { .mem_type = TTM_PL_VRAM };
static const struct ttm_place tt_place = { .mem_type = TTM_PL_TT };
static const struct ttm_place vram_or_tt[] = {
	{ .mem_type = TTM_PL_VRAM },
	{ .mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_FALLBACK },
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
 * @hard: The hard period.
 * @soft: The soft period.
 */
struct thr_test {
	struct ttm_test_devices *devs;
	ktime_t now;
	ktime_t hard;
	ktime_t soft;
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

static void thr_fake_periods(ktime_t *hard, ktime_t *soft)
{
	struct thr_test *t = kunit_get_current_test()->priv;

	*hard = t->hard;
	*soft = t->soft;
}

/* The tests are about what moves where, so moves copy nothing. */
static int thr_test_move(struct ttm_buffer_object *bo, bool evict,
			 struct ttm_operation_ctx *ctx,
			 struct ttm_resource *new_mem, struct ttm_place *hop)
{
	ttm_bo_move_null(bo, new_mem);
	return 0;
}

static int ttm_throttle_test_init(struct kunit *test)
{
	struct thr_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	test->priv = t;
	t->now = THR_START;
	t->hard = THR_HARD;
	t->soft = THR_SOFT;

	t->devs = ttm_test_devices_basic(test);
	KUNIT_ASSERT_EQ(test, ttm_device_kunit_init_evict_to_system(test,
								    t->devs,
								    thr_test_move),
			0);

	kunit_activate_static_stub(test, ttm_throttle_now, thr_fake_now);
	kunit_activate_static_stub(test, ttm_throttle_periods,
				   thr_fake_periods);
	return 0;
}

static void thr_managers_fini(struct kunit *test)
{
	struct thr_test *t = test->priv;
	struct ttm_device *bdev = t->devs->ttm_dev;

	if (ttm_manager_type(bdev, TTM_PL_VRAM))
		ttm_mock_manager_fini(bdev, TTM_PL_VRAM);
	if (ttm_manager_type(bdev, TTM_PL_TT))
		ttm_mock_manager_fini(bdev, TTM_PL_TT);
}

static void ttm_throttle_test_fini(struct kunit *test)
{
	struct thr_test *t = test->priv;

	thr_managers_fini(test);
	ttm_test_devices_put(test, t->devs);
}

/* VRAM with room for @slots BOs, and a GTT with room for all. */
static void thr_managers(struct kunit *test, unsigned int slots)
{
	struct thr_test *t = test->priv;
	struct ttm_device *bdev = t->devs->ttm_dev;

	KUNIT_ASSERT_EQ(test, ttm_mock_manager_init(bdev, TTM_PL_VRAM,
						    slots * THR_BO_SIZE), 0);
	KUNIT_ASSERT_EQ(test, ttm_mock_manager_init(bdev, TTM_PL_TT,
						    16 * THR_BO_SIZE), 0);
}

static void thr_advance(struct kunit *test, ktime_t delta)
{
	struct thr_test *t = test->priv;

	t->now = ktime_add(t->now, delta);
}

/* A bulk move is too large for the stack. */
static struct thr_client *thr_client(struct kunit *test, u64 id)
{
	struct thr_client *client;

	client = kunit_kzalloc(test, sizeof(*client), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, client);
	dma_resv_init(&client->resv);
	ttm_lru_bulk_move_init(&client->bulk);
	ttm_throttle_init(&client->throttle, &client->bulk, id);
	return client;
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
	KUNIT_ASSERT_EQ(test, ttm_bo_init_reserved(t->devs->ttm_dev, bo,
						   ttm_bo_type_device,
						   placement, PAGE_SIZE, &ctx,
						   NULL, &client->resv,
						   &dummy_ttm_bo_destroy), 0);
	ttm_bo_set_bulk_move(bo, &client->bulk);
	dma_resv_unlock(&client->resv);
	return bo;
}

/* Validates @bo as a submission of @client holding its reservation would. */
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

/*
 * As a submission that may evict the client's other BOs, passing @throttle:
 * the client's own, or NULL for a kernel without throttling.
 */
static int thr_validate_with(struct thr_client *client,
			     struct ttm_buffer_object *bo,
			     struct ttm_placement *placement,
			     struct ttm_throttle *throttle)
{
	struct ttm_operation_ctx ctx = {
		/* The client's other BOs share the lock it holds. */
		.allow_res_evict = true,
		.resv = &client->resv,
		.throttle = throttle,
	};

	return thr_validate_ctx(client, bo, placement, &ctx);
}

static int thr_validate(struct thr_client *client,
			struct ttm_buffer_object *bo,
			struct ttm_placement *placement)
{
	return thr_validate_with(client, bo, placement, &client->throttle);
}

static u32 mem_type(struct ttm_buffer_object *bo)
{
	return bo->resource->mem_type;
}

static void thr_put(struct ttm_buffer_object **bos, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		dma_resv_lock(bos[i]->base.resv, NULL);
		ttm_bo_set_bulk_move(bos[i], NULL);
		dma_resv_unlock(bos[i]->base.resv);
		ttm_bo_put(bos[i]);
	}
}

static void thr_client_fini(struct kunit *test, struct thr_client *client)
{
	struct thr_test *t = test->priv;

	ttm_lru_bulk_move_fini(t->devs->ttm_dev, &client->bulk);
	dma_resv_fini(&client->resv);
}

static void ttm_throttle_states_follow_the_clock(struct kunit *test)
{
	struct thr_client *c = thr_client(test, 1);
	struct ttm_throttle *thr = &c->throttle;

	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(NULL), TTM_THROTTLE_NORMAL);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(thr), TTM_THROTTLE_NORMAL);

	ttm_throttle_evicted(thr);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(thr), TTM_THROTTLE_HARD);
	thr_advance(test, ktime_sub(THR_HARD, 1));
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(thr), TTM_THROTTLE_HARD);
	thr_advance(test, 1);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(thr), TTM_THROTTLE_SOFT);
	thr_advance(test, ktime_sub(THR_SOFT, 1));
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(thr), TTM_THROTTLE_SOFT);
	thr_advance(test, 1);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(thr), TTM_THROTTLE_NORMAL);

	/* An eviction in soft throttle restarts the sequence at hard. */
	ttm_throttle_evicted(thr);
	thr_advance(test, THR_HARD);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(thr), TTM_THROTTLE_SOFT);
	ttm_throttle_evicted(thr);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(thr), TTM_THROTTLE_HARD);

	/* So does one in hard throttle: the periods run from the last. */
	thr_advance(test, ktime_sub(THR_HARD, 1));
	ttm_throttle_evicted(thr);
	thr_advance(test, ktime_sub(THR_HARD, 1));
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(thr), TTM_THROTTLE_HARD);
	thr_advance(test, ktime_add(THR_SOFT, 1));
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(thr), TTM_THROTTLE_NORMAL);

	thr_client_fini(test, c);
}

static void ttm_throttle_zero_periods_never_throttle(struct kunit *test)
{
	struct thr_test *t = test->priv;
	struct thr_client *c = thr_client(test, 1);

	t->hard = 0;
	t->soft = 0;
	ttm_throttle_evicted(&c->throttle);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(&c->throttle),
			TTM_THROTTLE_NORMAL);

	thr_client_fini(test, c);
}

static void ttm_throttle_eviction_throttles_the_victim(struct kunit *test)
{
	struct ttm_buffer_object *a[2], *b[2];
	struct thr_client *ca, *cb;

	thr_managers(test, 2);
	ca = thr_client(test, 1);
	cb = thr_client(test, 2);
	/* In LRU order: B's BO is the first victim, then A's. */
	b[0] = thr_bo(test, cb, &vram_placement);
	a[0] = thr_bo(test, ca, &vram_placement);
	a[1] = thr_bo(test, ca, &tt_placement);
	b[1] = thr_bo(test, cb, &tt_placement);

	/* B evicting its own BO throttles nobody, with or without throttle. */
	KUNIT_EXPECT_EQ(test, thr_validate_with(cb, b[1], &vram_placement,
						NULL), 0);
	KUNIT_EXPECT_EQ(test, mem_type(b[0]), TTM_PL_SYSTEM);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(&cb->throttle),
			TTM_THROTTLE_NORMAL);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(&ca->throttle),
			TTM_THROTTLE_NORMAL);

	/* Taking A's BO for B throttles A only. */
	KUNIT_EXPECT_EQ(test, thr_validate(cb, b[0], &vram_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(a[0]), TTM_PL_SYSTEM);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(&ca->throttle),
			TTM_THROTTLE_HARD);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(&cb->throttle),
			TTM_THROTTLE_NORMAL);

	thr_put(a, ARRAY_SIZE(a));
	thr_put(b, ARRAY_SIZE(b));
	thr_client_fini(test, cb);
	thr_client_fini(test, ca);
}

static void ttm_throttle_hard_keeps_acceptable_memory(struct kunit *test)
{
	struct thr_client *c;
	struct ttm_buffer_object *bo;

	thr_managers(test, 2);
	c = thr_client(test, 1);
	bo = thr_bo(test, c, &tt_placement);

	/* VRAM is free, but GTT is acceptable: hard throttle stays there. */
	ttm_throttle_evicted(&c->throttle);
	KUNIT_EXPECT_EQ(test, thr_validate(c, bo, &vram_or_tt_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(bo), TTM_PL_TT);

	/* Soft throttle fills free VRAM. */
	thr_advance(test, THR_HARD);
	KUNIT_EXPECT_EQ(test, thr_validate(c, bo, &vram_or_tt_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(bo), TTM_PL_VRAM);

	thr_put(&bo, 1);
	thr_client_fini(test, c);
}

static void ttm_throttle_hard_moves_what_must_move(struct kunit *test)
{
	struct ttm_buffer_object *bo, *other;
	struct thr_client *c, *oc;

	thr_managers(test, 1);
	oc = thr_client(test, 2);
	other = thr_bo(test, oc, &vram_placement);
	c = thr_client(test, 1);
	bo = thr_bo(test, c, &tt_placement);

	/* VRAM only: even in hard throttle, and at another client's cost. */
	ttm_throttle_evicted(&c->throttle);
	KUNIT_EXPECT_EQ(test, thr_validate(c, bo, &vram_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(bo), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(other), TTM_PL_SYSTEM);

	thr_put(&bo, 1);
	thr_put(&other, 1);
	thr_client_fini(test, c);
	thr_client_fini(test, oc);
}

/*
 * VRAM holds another client's BO, the older, then one of client c's. c,
 * in soft throttle if @throttled, places a BO that must be in VRAM. Returns
 * where c's BOs and the other's end up.
 */
static void thr_soft_scenario(struct kunit *test, bool throttled,
			      u32 *own_old, u32 *own_new, u32 *others)
{
	struct ttm_buffer_object *bos[3];
	struct thr_client *c, *oc;

	thr_managers(test, 2);
	oc = thr_client(test, 2);
	c = thr_client(test, 1);
	bos[0] = thr_bo(test, oc, &vram_placement);
	bos[1] = thr_bo(test, c, &vram_placement);
	bos[2] = thr_bo(test, c, &tt_placement);

	if (throttled) {
		ttm_throttle_evicted(&c->throttle);
		thr_advance(test, THR_HARD);
		KUNIT_ASSERT_EQ(test, ttm_throttle_get_state(&c->throttle),
				TTM_THROTTLE_SOFT);
	}
	KUNIT_EXPECT_EQ(test, thr_validate(c, bos[2], &vram_placement), 0);
	*others = mem_type(bos[0]);
	*own_old = mem_type(bos[1]);
	*own_new = mem_type(bos[2]);

	thr_put(bos, ARRAY_SIZE(bos));
	thr_client_fini(test, c);
	thr_client_fini(test, oc);
}

static void ttm_throttle_soft_evicts_own_first(struct kunit *test)
{
	u32 own_old, own_new, others;

	thr_soft_scenario(test, true, &own_old, &own_new, &others);
	KUNIT_EXPECT_EQ(test, own_new, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, own_old, TTM_PL_SYSTEM);
	KUNIT_EXPECT_EQ(test, others, TTM_PL_VRAM);
}

/* The same without throttle: the LRU order decides, as in 6.12. */
static void ttm_throttle_normal_evicts_lru_first(struct kunit *test)
{
	u32 own_old, own_new, others;

	thr_soft_scenario(test, false, &own_old, &own_new, &others);
	KUNIT_EXPECT_EQ(test, own_new, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, own_old, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, others, TTM_PL_SYSTEM);
}

static void ttm_throttle_soft_falls_back_before_evicting(struct kunit *test)
{
	struct ttm_buffer_object *bo, *other, *scanout;
	struct thr_client *c, *oc;

	thr_managers(test, 1);
	oc = thr_client(test, 2);
	other = thr_bo(test, oc, &vram_placement);
	c = thr_client(test, 1);
	bo = thr_bo(test, c, &tt_placement);
	scanout = thr_bo(test, c, &tt_placement);

	ttm_throttle_evicted(&c->throttle);
	thr_advance(test, THR_HARD);

	/* GTT is acceptable: the other client keeps its VRAM. */
	KUNIT_EXPECT_EQ(test, thr_validate(c, bo, &vram_or_tt_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(bo), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, mem_type(other), TTM_PL_VRAM);

	/* Only VRAM will do: the scanout buffer takes it. */
	KUNIT_EXPECT_EQ(test, thr_validate(c, scanout, &vram_placement), 0);
	KUNIT_EXPECT_EQ(test, mem_type(scanout), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(other), TTM_PL_SYSTEM);
	KUNIT_EXPECT_EQ(test, ttm_throttle_get_state(&oc->throttle),
			TTM_THROTTLE_HARD);

	thr_put(&scanout, 1);
	thr_put(&bo, 1);
	thr_put(&other, 1);
	thr_client_fini(test, c);
	thr_client_fini(test, oc);
}

/*
 * Without allow_res_evict, as xe and amdgpu submit, a client's own BOs are
 * out of its reach: soft throttle then falls back, and only what must be in
 * VRAM evicts the other client.
 */
static void ttm_throttle_soft_without_own_reach(struct kunit *test)
{
	struct ttm_buffer_object *own, *bo, *other, *scanout;
	struct thr_client *c, *oc;
	struct ttm_operation_ctx ctx = { };

	thr_managers(test, 2);
	oc = thr_client(test, 2);
	other = thr_bo(test, oc, &vram_placement);
	c = thr_client(test, 1);
	own = thr_bo(test, c, &vram_placement);
	bo = thr_bo(test, c, &tt_placement);
	scanout = thr_bo(test, c, &tt_placement);
	ctx.resv = &c->resv;
	ctx.throttle = &c->throttle;

	ttm_throttle_evicted(&c->throttle);
	thr_advance(test, THR_HARD);

	KUNIT_EXPECT_EQ(test, thr_validate_ctx(c, bo, &vram_or_tt_placement,
					       &ctx), 0);
	KUNIT_EXPECT_EQ(test, mem_type(bo), TTM_PL_TT);
	KUNIT_EXPECT_EQ(test, mem_type(own), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(other), TTM_PL_VRAM);

	KUNIT_EXPECT_EQ(test, thr_validate_ctx(c, scanout, &vram_placement,
					       &ctx), 0);
	KUNIT_EXPECT_EQ(test, mem_type(scanout), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(own), TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, mem_type(other), TTM_PL_SYSTEM);

	thr_put(&scanout, 1);
	thr_put(&bo, 1);
	thr_put(&own, 1);
	thr_put(&other, 1);
	thr_client_fini(test, c);
	thr_client_fini(test, oc);
}

/* Hard throttle keeps nothing pinned: a pinned BO fails to move as ever. */
static void ttm_throttle_hard_leaves_pinned_bos_alone(struct kunit *test)
{
	struct ttm_buffer_object *bo;
	struct thr_client *c;
	unsigned int throttled;

	thr_managers(test, 2);
	c = thr_client(test, 1);
	bo = thr_bo(test, c, &tt_placement);
	dma_resv_lock(&c->resv, NULL);
	ttm_bo_pin(bo);
	dma_resv_unlock(&c->resv);

	for (throttled = 0; throttled < 2; throttled++) {
		if (throttled)
			ttm_throttle_evicted(&c->throttle);
		KUNIT_EXPECT_EQ(test, thr_validate(c, bo,
						   &vram_or_tt_placement),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, mem_type(bo), TTM_PL_TT);
	}

	dma_resv_lock(&c->resv, NULL);
	ttm_bo_unpin(bo);
	dma_resv_unlock(&c->resv);
	thr_put(&bo, 1);
	thr_client_fini(test, c);
}

#define THR_STEPS	6

/*
 * Two clients fight over two VRAM slots with BOs that prefer VRAM and BOs
 * that must be there. Records every BO's memory type after every step.
 */
static void thr_fight(struct kunit *test, bool with_throttle,
		      u32 types[THR_STEPS][4])
{
	struct ttm_placement *placements[2] = {
		&vram_placement, &vram_or_tt_placement
	};
	struct ttm_buffer_object *a[2], *b[2];
	struct thr_client *ca, *cb;
	unsigned int i;

	thr_managers(test, 2);
	ca = thr_client(test, 1);
	cb = thr_client(test, 2);
	a[0] = thr_bo(test, ca, &tt_placement);
	a[1] = thr_bo(test, ca, &tt_placement);
	b[0] = thr_bo(test, cb, &tt_placement);
	b[1] = thr_bo(test, cb, &tt_placement);

	for (i = 0; i < THR_STEPS; i++) {
		struct thr_client *c = i % 2 ? cb : ca;
		struct ttm_buffer_object **bos = i % 2 ? b : a;
		unsigned int j;

		for (j = 0; j < 2; j++)
			KUNIT_EXPECT_EQ(test,
					thr_validate_with(c, bos[j],
							  placements[j],
							  with_throttle ?
							  &c->throttle : NULL),
					0);
		types[i][0] = mem_type(a[0]);
		types[i][1] = mem_type(a[1]);
		types[i][2] = mem_type(b[0]);
		types[i][3] = mem_type(b[1]);
		thr_advance(test, 1);
	}

	thr_put(a, ARRAY_SIZE(a));
	thr_put(b, ARRAY_SIZE(b));
	thr_client_fini(test, cb);
	thr_client_fini(test, ca);
	thr_managers_fini(test);
}

static void ttm_throttle_zero_periods_change_nothing(struct kunit *test)
{
	struct thr_test *t = test->priv;
	u32 with[THR_STEPS][4], without[THR_STEPS][4];
	unsigned int i;

	t->hard = 0;
	t->soft = 0;
	thr_fight(test, false, without);
	thr_fight(test, true, with);
	KUNIT_EXPECT_MEMEQ(test, with, without, sizeof(with));

	/* The scenario is one that throttling changes. */
	t->hard = THR_HARD;
	t->soft = THR_SOFT;
	thr_fight(test, true, with);
	for (i = 0; i < THR_STEPS; i++)
		if (memcmp(with[i], without[i], sizeof(with[i])))
			break;
	KUNIT_EXPECT_LT(test, i, THR_STEPS);
}

static struct kunit_case ttm_throttle_test_cases[] = {
	KUNIT_CASE(ttm_throttle_states_follow_the_clock),
	KUNIT_CASE(ttm_throttle_zero_periods_never_throttle),
	KUNIT_CASE(ttm_throttle_eviction_throttles_the_victim),
	KUNIT_CASE(ttm_throttle_hard_keeps_acceptable_memory),
	KUNIT_CASE(ttm_throttle_hard_moves_what_must_move),
	KUNIT_CASE(ttm_throttle_soft_evicts_own_first),
	KUNIT_CASE(ttm_throttle_normal_evicts_lru_first),
	KUNIT_CASE(ttm_throttle_soft_falls_back_before_evicting),
	KUNIT_CASE(ttm_throttle_soft_without_own_reach),
	KUNIT_CASE(ttm_throttle_hard_leaves_pinned_bos_alone),
	KUNIT_CASE(ttm_throttle_zero_periods_change_nothing),
	{}
};

static struct kunit_suite ttm_throttle_test_suite = {
	.name = "ttm_throttle",
	.init = ttm_throttle_test_init,
	.exit = ttm_throttle_test_fini,
	.test_cases = ttm_throttle_test_cases,
};

kunit_test_suites(&ttm_throttle_test_suite);

MODULE_DESCRIPTION("KUnit tests for TTM eviction throttling");
MODULE_LICENSE("GPL and additional rights");
