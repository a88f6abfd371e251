// SPDX-License-Identifier: GPL-2.0 AND MIT
/*
 * KUnit tests for eviction that locks its victims through the caller's
 * drm_exec transaction.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/prandom.h>

#include <drm/drm_exec.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>

#include "ttm_kunit_helpers.h"
#include "ttm_mock_manager.h"

#define EXEC_BO_SIZE		SZ_128K

#define STRESS_THREADS		8
#define STRESS_TXNS		200
#define STRESS_BOS		16
#define STRESS_MAX_SET		6
/* Half of what the BOs need: a 2x overcommit. */
#define STRESS_VRAM_SIZE	(STRESS_BOS * EXEC_BO_SIZE / 2)

static const struct ttm_place sys_place = { .mem_type = TTM_PL_SYSTEM };
static const struct ttm_place vram_place = { .mem_type = TTM_PL_VRAM };

static struct ttm_placement sys_placement = {
	.num_placement = 1,
	.placement = &sys_place,
};

static struct ttm_placement vram_placement = {
	.num_placement = 1,
	.placement = &vram_place,
};

/*
 * What the running test saw of its victims while they were being evicted,
 * and how many of the BOs it counts were destroyed. Only single-threaded
 * tests watch.
 */
static struct {
	bool watch;
	int evicted;
	int evicted_through_exec;
	int earlier_victims_held;
	int destroyed;
	struct ttm_buffer_object *victims[2];
	struct ttm_buffer_object *unevictable;
} exec_test_seen;

/* Is @bo locked by, and tracked in, @exec? */
static bool exec_holds(struct drm_exec *exec, struct ttm_buffer_object *bo)
{
	struct drm_gem_object *obj;

	if (dma_resv_locking_ctx(bo->base.resv) != &exec->ticket)
		return false;

	drm_exec_for_each_locked_object(exec, obj)
		if (obj == &bo->base)
			return true;
	return false;
}

/* Record an eviction, and whether the earlier victims are still held. */
static void exec_test_seen_eviction(struct drm_exec *exec,
				    struct ttm_buffer_object *bo)
{
	int i, n = exec_test_seen.evicted++;

	for (i = 0; i < min_t(int, n, ARRAY_SIZE(exec_test_seen.victims)); i++)
		if (exec_holds(exec, exec_test_seen.victims[i]))
			exec_test_seen.earlier_victims_held++;
	if (n < ARRAY_SIZE(exec_test_seen.victims))
		exec_test_seen.victims[n] = bo;
	if (exec_holds(exec, bo))
		exec_test_seen.evicted_through_exec++;
}

/*
 * The tests are about who may move what, so moves copy nothing. Evictions
 * record whether the victim was locked through the caller's exec.
 */
static int exec_test_move(struct ttm_buffer_object *bo, bool evict,
			  struct ttm_operation_ctx *ctx,
			  struct ttm_resource *new_mem, struct ttm_place *hop)
{
	if (evict && exec_test_seen.watch && ctx->exec)
		exec_test_seen_eviction(ctx->exec, bo);
	else if (evict && exec_test_seen.watch)
		exec_test_seen.evicted++;
	ttm_bo_move_null(bo, new_mem);
	return 0;
}

static void exec_test_evict_flags(struct ttm_buffer_object *bo,
				  struct ttm_placement *placement)
{
	*placement = sys_placement;
}

/* As a driver refuses a busy page table, refuse the test's unevictable BO. */
static bool exec_test_eviction_valuable(struct ttm_buffer_object *bo,
					const struct ttm_place *place)
{
	return bo != exec_test_seen.unevictable &&
	       ttm_bo_eviction_valuable(bo, place);
}

static int ttm_bo_exec_test_init(struct kunit *test)
{
	struct ttm_device_funcs *funcs = ttm_dev_funcs_copy(test);

	funcs->move = exec_test_move;
	funcs->evict_flags = exec_test_evict_flags;
	funcs->eviction_valuable = exec_test_eviction_valuable;
	test->priv = ttm_test_devices_with_funcs(test, funcs);

	memset(&exec_test_seen, 0, sizeof(exec_test_seen));
	exec_test_seen.watch = true;
	return 0;
}

static void ttm_bo_exec_test_fini(struct kunit *test)
{
	struct ttm_test_devices *priv = test->priv;

	if (ttm_manager_type(priv->ttm_dev, TTM_PL_VRAM))
		ttm_mock_manager_fini(priv->ttm_dev, TTM_PL_VRAM);
	ttm_test_devices_fini(test);
}

static struct ttm_resource_manager *exec_test_vram(struct kunit *test,
						   u32 size)
{
	struct ttm_test_devices *priv = test->priv;

	KUNIT_ASSERT_EQ(test, ttm_mock_manager_init(priv->ttm_dev, TTM_PL_VRAM,
						    size), 0);
	return ttm_manager_type(priv->ttm_dev, TTM_PL_VRAM);
}

/*
 * An unlocked BO of @size placed in @placement, with its own reservation or,
 * like the BOs private to a VM, with @resv.
 */
static struct ttm_buffer_object *
exec_test_bo_resv(struct kunit *test, struct ttm_placement *placement,
		  size_t size, struct dma_resv *resv)
{
	struct ttm_test_devices *priv = test->priv;
	struct ttm_operation_ctx ctx = { };
	struct ttm_buffer_object *bo;
	int err;

	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bo);

	drm_gem_private_object_init(priv->drm, &bo->base, size);
	if (resv)
		dma_resv_lock(resv, NULL);
	err = ttm_bo_init_reserved(priv->ttm_dev, bo, ttm_bo_type_device,
				   placement, PAGE_SIZE, &ctx, NULL, resv,
				   &dummy_ttm_bo_destroy);
	KUNIT_ASSERT_EQ(test, err, 0);
	dma_resv_unlock(bo->base.resv);

	return bo;
}

static struct ttm_buffer_object *exec_test_bo(struct kunit *test,
					      struct ttm_placement *placement,
					      size_t size)
{
	return exec_test_bo_resv(test, placement, size, NULL);
}

/* Keep CONFIG_DEBUG_WW_MUTEX_SLOWPATH from injecting -EDEADLK into @ticket. */
static void exec_test_no_injection(struct ww_acquire_ctx *ticket)
{
#ifdef CONFIG_DEBUG_WW_MUTEX_SLOWPATH
	ticket->deadlock_inject_countdown = UINT_MAX;
#endif
}

/*
 * Another client's transaction. It runs in a thread of its own, because
 * one task must not hold two acquire contexts of a ww class. It locks
 * @bos and holds them until released or, with @waiter set, releases each
 * BO once @waiter sleeps on it, counting those sleeps in @waits, until
 * @waiter is @finished. Without @any_order, @waiter must sleep on them in
 * their order; each sleep on a later one counts in @misordered. With
 * @move_out, it moves each BO to system memory before releasing it, as an
 * owner evicting its own BO would, and keeps the first error in @move_err.
 */
struct exec_holder {
	struct ttm_buffer_object *bos[2];
	unsigned int nr;
	struct task_struct *waiter;
	bool any_order;
	bool move_out;
	bool finished;
	unsigned int waits;
	unsigned int misordered;
	int move_err;
	struct completion locked;
	struct completion release;
	struct completion done;
};

/*
 * Whether @task sleeps on @bo's reservation lock, as the mutex code
 * records it. PREEMPT_RT's ww_mutex does not, so the tests with a waiter
 * do not run there.
 */
static bool exec_test_blocked_on(struct task_struct *task,
				 struct ttm_buffer_object *bo)
{
	/* Read without blocked_lock: it is only compared, never followed. */
	return data_race(task->blocked_on) == &bo->base.resv->lock.base;
}

/* For a test with a waiter, before it allocates anything. */
static void exec_test_skip_on_rt(struct kunit *test)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "the holder cannot see what an RT waiter sleeps on");
}

/*
 * The index of the held BO that the waiter sleeps on, or -1 once it has
 * finished. It sleeps on nothing else of ours, so this ends while eviction
 * works; if eviction hangs, so does the test.
 */
static int exec_holder_wait_for_waiter(struct exec_holder *h,
				       unsigned long held)
{
	unsigned int i;

	while (!READ_ONCE(h->finished)) {
		for_each_set_bit(i, &held, h->nr)
			if (exec_test_blocked_on(h->waiter, h->bos[i]))
				return i;
		usleep_range(100, 200);
	}
	return -1;
}

static void exec_holder_release(struct exec_holder *h, unsigned int i)
{
	struct ttm_operation_ctx ctx = { };

	if (h->move_out && !h->move_err)
		h->move_err = ttm_bo_validate(h->bos[i], &sys_placement, &ctx);
	dma_resv_unlock(h->bos[i]->base.resv);
}

static int exec_holder_fn(void *arg)
{
	struct exec_holder *h = arg;
	struct ww_acquire_ctx ticket;
	unsigned long held = 0;
	unsigned int i;
	int err = 0;

	ww_acquire_init(&ticket, &reservation_ww_class);
	exec_test_no_injection(&ticket);
	for (i = 0; i < h->nr && !err; i++) {
		err = dma_resv_lock(h->bos[i]->base.resv, &ticket);
		if (!err)
			__set_bit(i, &held);
	}
	complete(&h->locked);

	if (!err && !h->waiter)
		wait_for_completion(&h->release);
	while (h->waiter && held) {
		int n = exec_holder_wait_for_waiter(h, held);

		if (n < 0)
			break;
		if (!h->any_order && n != __ffs(held))
			h->misordered++;
		h->waits++;
		exec_holder_release(h, n);
		__clear_bit(n, &held);
	}
	for_each_set_bit(i, &held, h->nr)
		dma_resv_unlock(h->bos[i]->base.resv);
	ww_acquire_fini(&ticket);
	complete(&h->done);
	return 0;
}

static void exec_holder_start(struct kunit *test, struct exec_holder *h,
			      struct task_struct *waiter)
{
	struct task_struct *task;
	unsigned int i;

	h->waiter = waiter;
	init_completion(&h->locked);
	init_completion(&h->release);
	init_completion(&h->done);
	task = kthread_run(exec_holder_fn, h, "ttm-exec-holder");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	wait_for_completion(&h->locked);
	/* No assertion from here: the holder runs until it is done. */
	for (i = 0; i < h->nr; i++)
		KUNIT_EXPECT_PTR_NE(test,
				    dma_resv_locking_ctx(h->bos[i]->base.resv),
				    NULL);
}

static void exec_holder_stop(struct exec_holder *h)
{
	complete(&h->release);
	wait_for_completion(&h->done);
}

/*
 * The younger of two transactions needs a BO the older holds. It gets
 * -EDEADLK with that BO as the contended object, backs off, and succeeds in
 * the same transaction once the older one is done. The victim is locked
 * through the exec while it is evicted, and released afterwards.
 */
static void ttm_bo_exec_evict_contended(struct kunit *test)
{
	struct ttm_buffer_object *held, *own, *bo;
	struct ttm_operation_ctx ctx = { };
	struct drm_gem_object *pair[2];
	struct exec_holder older = { };
	struct drm_exec exec;
	int deadlocks = 0;
	int err;

	exec_test_vram(test, 2 * EXEC_BO_SIZE);
	held = exec_test_bo(test, &vram_placement, EXEC_BO_SIZE);
	own = exec_test_bo(test, &vram_placement, EXEC_BO_SIZE);
	bo = exec_test_bo(test, &sys_placement, EXEC_BO_SIZE);
	pair[0] = &own->base;
	pair[1] = &bo->base;
	older.bos[older.nr++] = held;
	exec_holder_start(test, &older, NULL);

	drm_exec_init(&exec, 0, 0);
	ctx.exec = &exec;
	drm_exec_until_all_locked(&exec) {
		/* Only the real conflict: an injected one drops the prelock. */
		exec_test_no_injection(&exec.ticket);
		err = drm_exec_prepare_array(&exec, pair, ARRAY_SIZE(pair), 1);
		drm_exec_retry_on_contention(&exec);
		if (err)
			break;

		err = ttm_bo_validate(bo, &vram_placement, &ctx);
		if (err == -EDEADLK && exec.contended == &held->base &&
		    !deadlocks++)
			exec_holder_stop(&older);
		drm_exec_retry_on_contention(&exec);
	}

	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_GE(test, deadlocks, 1);
	KUNIT_EXPECT_EQ(test, bo->resource->mem_type, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, own->resource->mem_type, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, held->resource->mem_type, TTM_PL_SYSTEM);
	KUNIT_EXPECT_EQ(test, exec_test_seen.evicted_through_exec, 1);
	KUNIT_EXPECT_EQ(test, exec.num_objects, 2);
	KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(held->base.resv));

	drm_exec_fini(&exec);
	if (!deadlocks)
		exec_holder_stop(&older);
	ttm_bo_fini(bo);
	ttm_bo_fini(own);
	ttm_bo_fini(held);
}

/* Without an exec in the context, the same conflict fails with -ENOMEM. */
static void ttm_bo_exec_evict_contended_no_exec(struct kunit *test)
{
	struct ttm_buffer_object *held, *own, *bo;
	struct ttm_operation_ctx ctx = { };
	struct drm_gem_object *pair[2];
	struct exec_holder older = { };
	struct drm_exec exec;
	int err;

	exec_test_vram(test, 2 * EXEC_BO_SIZE);
	held = exec_test_bo(test, &vram_placement, EXEC_BO_SIZE);
	own = exec_test_bo(test, &vram_placement, EXEC_BO_SIZE);
	bo = exec_test_bo(test, &sys_placement, EXEC_BO_SIZE);
	pair[0] = &own->base;
	pair[1] = &bo->base;
	older.bos[older.nr++] = held;
	exec_holder_start(test, &older, NULL);

	drm_exec_init(&exec, 0, 0);
	drm_exec_until_all_locked(&exec) {
		err = drm_exec_prepare_array(&exec, pair, ARRAY_SIZE(pair), 1);
		drm_exec_retry_on_contention(&exec);
		if (err)
			break;

		err = ttm_bo_validate(bo, &vram_placement, &ctx);
		drm_exec_retry_on_contention(&exec);
	}

	KUNIT_EXPECT_EQ(test, err, -ENOMEM);
	KUNIT_EXPECT_EQ(test, held->resource->mem_type, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, exec_test_seen.evicted, 0);

	drm_exec_fini(&exec);
	exec_holder_stop(&older);
	ttm_bo_fini(bo);
	ttm_bo_fini(own);
	ttm_bo_fini(held);
}

static void exec_test_count_destroy(struct ttm_buffer_object *bo)
{
	exec_test_seen.destroyed++;
	dummy_ttm_bo_destroy(bo);
}

/*
 * Creates a BO of @size in VRAM that shares @owner's reservation, which
 * @ctx->exec holds, as a driver creates the page tables of a VM.
 */
static int exec_test_create_shared(struct kunit *test,
				   struct ttm_buffer_object *owner,
				   struct ttm_operation_ctx *ctx,
				   struct ttm_buffer_object **new)
{
	struct ttm_test_devices *priv = test->priv;
	struct ttm_buffer_object *bo;
	int err;

	/* No assertion here: the caller's exec and holder must be cleaned up. */
	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return -ENOMEM;

	drm_gem_private_object_init(priv->drm, &bo->base, EXEC_BO_SIZE);
	err = ttm_bo_init_reserved(priv->ttm_dev, bo, ttm_bo_type_device,
				   &vram_placement, PAGE_SIZE, ctx, NULL,
				   owner->base.resv, &exec_test_count_destroy);
	*new = err ? NULL : bo;
	return err;
}

/*
 * Creating a BO can contend too: a younger transaction creates a BO with a
 * reservation it holds, and placing it needs a victim that an older one
 * holds. Creation fails with -EDEADLK and the exec contended on the victim,
 * having put the new BO exactly once; created again after the back-off, it
 * lands in VRAM.
 */
static void ttm_bo_exec_create_contended(struct kunit *test)
{
	struct ttm_buffer_object *held, *owner, *bo = NULL;
	struct ttm_operation_ctx ctx = { };
	struct exec_holder older = { };
	struct drm_exec exec;
	int deadlocks = 0;
	int err;

	exec_test_vram(test, EXEC_BO_SIZE);
	held = exec_test_bo(test, &vram_placement, EXEC_BO_SIZE);
	owner = exec_test_bo(test, &sys_placement, EXEC_BO_SIZE);
	older.bos[older.nr++] = held;
	exec_holder_start(test, &older, NULL);

	drm_exec_init(&exec, 0, 0);
	ctx.exec = &exec;
	drm_exec_until_all_locked(&exec) {
		exec_test_no_injection(&exec.ticket);
		err = drm_exec_lock_obj(&exec, &owner->base);
		drm_exec_retry_on_contention(&exec);
		if (err)
			break;

		err = exec_test_create_shared(test, owner, &ctx, &bo);
		if (err == -EDEADLK && exec.contended == &held->base &&
		    !deadlocks++) {
			KUNIT_EXPECT_EQ(test, exec_test_seen.destroyed, 1);
			exec_holder_stop(&older);
		}
		/* A second back-off would mean the first one fixed nothing. */
		if (deadlocks > 1)
			break;
		drm_exec_retry_on_contention(&exec);
	}

	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, deadlocks, 1);
	KUNIT_EXPECT_EQ(test, exec_test_seen.destroyed, 1);
	KUNIT_EXPECT_NOT_NULL(test, bo);
	if (bo)
		KUNIT_EXPECT_EQ(test, bo->resource->mem_type, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, held->resource->mem_type, TTM_PL_SYSTEM);
	KUNIT_EXPECT_EQ(test, exec_test_seen.evicted_through_exec, 1);
	KUNIT_EXPECT_EQ(test, exec.num_objects, 1);

	drm_exec_fini(&exec);
	if (!deadlocks)
		exec_holder_stop(&older);
	if (bo) {
		ttm_bo_fini(bo);
		KUNIT_EXPECT_EQ(test, exec_test_seen.destroyed, 2);
	}
	ttm_bo_fini(owner);
	ttm_bo_fini(held);
}

/* The two cases of a test with one switch, by name. */
struct exec_switch {
	bool on;
	const char *desc;
};

static const struct exec_switch exec_flags_cases[] = {
	{ .on = false, .desc = "default" },
	{ .on = true, .desc = "ignore-duplicates" },
};

KUNIT_ARRAY_PARAM_DESC(exec_flags, exec_flags_cases, desc);

/*
 * A BO the transaction already holds is its own working set: eviction
 * skips it, and never unlocks it behind the transaction's back.
 */
static void ttm_bo_exec_skips_own_bos(struct kunit *test)
{
	const struct exec_switch *ignore_duplicates = test->param_value;
	struct ttm_buffer_object *own, *bo;
	struct ttm_operation_ctx ctx = { };
	struct drm_gem_object *pair[2];
	struct drm_exec exec;
	int err;

	exec_test_vram(test, EXEC_BO_SIZE);
	own = exec_test_bo(test, &vram_placement, EXEC_BO_SIZE);
	bo = exec_test_bo(test, &sys_placement, EXEC_BO_SIZE);
	pair[0] = &own->base;
	pair[1] = &bo->base;

	drm_exec_init(&exec, ignore_duplicates->on ?
		      DRM_EXEC_IGNORE_DUPLICATES : 0, 0);
	ctx.exec = &exec;
	drm_exec_until_all_locked(&exec) {
		err = drm_exec_prepare_array(&exec, pair, ARRAY_SIZE(pair), 1);
		drm_exec_retry_on_contention(&exec);
		if (err)
			break;
		err = ttm_bo_validate(bo, &vram_placement, &ctx);
		drm_exec_retry_on_contention(&exec);
	}

	KUNIT_EXPECT_EQ(test, err, -ENOMEM);
	KUNIT_EXPECT_EQ(test, own->resource->mem_type, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, exec.num_objects, 2);
	KUNIT_EXPECT_TRUE(test, exec_holds(&exec, own));

	drm_exec_fini(&exec);
	KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(own->base.resv));
	ttm_bo_fini(bo);
	ttm_bo_fini(own);
}

enum exec_orphan { EXEC_ZOMBIE, EXEC_GHOST, EXEC_DYING };

static const enum exec_orphan exec_orphan_cases[] = {
	EXEC_ZOMBIE, EXEC_GHOST, EXEC_DYING
};

static void exec_orphan_desc(const enum exec_orphan *kind, char *desc)
{
	static const char * const names[] = {
		[EXEC_ZOMBIE] = "zombie",
		[EXEC_GHOST] = "ghost",
		[EXEC_DYING] = "gem-refcount-zero",
	};

	strscpy(desc, names[*kind], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(exec_orphan, exec_orphan_cases, exec_orphan_desc);

/*
 * A zombie (released, awaiting destruction), a ghost (no DRM device) or a
 * BO whose GEM object is on its way out, held by an older transaction,
 * must not be locked through the exec: it would take a GEM reference the
 * BO does not have, and back off for something it may never lock.
 */
static void ttm_bo_exec_skips_orphans(struct kunit *test)
{
	const enum exec_orphan *kind = test->param_value;
	struct ttm_buffer_object *orphan, *bo;
	struct ttm_operation_ctx ctx = { };
	struct exec_holder older = { };
	struct drm_device *dev;
	struct drm_exec exec;
	int deadlocks = 0;
	int err;

	exec_test_vram(test, EXEC_BO_SIZE);
	orphan = exec_test_bo(test, &vram_placement, EXEC_BO_SIZE);
	bo = exec_test_bo(test, &sys_placement, EXEC_BO_SIZE);
	older.bos[older.nr++] = orphan;
	exec_holder_start(test, &older, NULL);

	dev = orphan->base.dev;
	if (*kind == EXEC_ZOMBIE)
		orphan->deleted = true;
	else if (*kind == EXEC_GHOST)
		orphan->base.dev = NULL;
	else
		refcount_set(&orphan->base.refcount.refcount, 0);

	drm_exec_init(&exec, 0, 0);
	ctx.exec = &exec;
	drm_exec_until_all_locked(&exec) {
		err = drm_exec_lock_obj(&exec, &bo->base);
		drm_exec_retry_on_contention(&exec);
		if (err)
			break;
		err = ttm_bo_validate(bo, &vram_placement, &ctx);
		/* A wrong back-off would wait for the holder: let it go. */
		if (err == -EDEADLK && !deadlocks++)
			exec_holder_stop(&older);
		drm_exec_retry_on_contention(&exec);
	}

	KUNIT_EXPECT_EQ(test, deadlocks, 0);
	KUNIT_EXPECT_EQ(test, err, -ENOMEM);
	KUNIT_EXPECT_EQ(test, exec.num_objects, 1);
	KUNIT_EXPECT_EQ(test, kref_read(&orphan->base.refcount),
			*kind == EXEC_DYING ? 0 : 1);
	drm_exec_fini(&exec);
	if (!deadlocks)
		exec_holder_stop(&older);

	refcount_set(&orphan->base.refcount.refcount, 1);
	orphan->base.dev = dev;
	orphan->deleted = false;
	ttm_bo_fini(bo);
	ttm_bo_fini(orphan);
}

/*
 * Validate @bo into VRAM in @exec, waiting for what eviction needs from
 * @younger, which is started once our ticket exists and so is younger:
 * we wait for it instead of backing off.
 */
static int exec_test_validate_past(struct kunit *test, struct drm_exec *exec,
				   struct ttm_buffer_object *bo,
				   struct exec_holder *younger)
{
	struct ttm_operation_ctx ctx = { .exec = exec };
	bool started = false;
	int err;

	drm_exec_until_all_locked(exec) {
		/* These tests are about waiting, not about backing off. */
		exec_test_no_injection(&exec->ticket);
		err = drm_exec_lock_obj(exec, &bo->base);
		drm_exec_retry_on_contention(exec);
		if (err)
			break;

		if (!started) {
			exec_holder_start(test, younger, current);
			started = true;
		}
		err = ttm_bo_validate(bo, &vram_placement, &ctx);
		drm_exec_retry_on_contention(exec);
	}
	WRITE_ONCE(younger->finished, true);
	if (started)
		wait_for_completion(&younger->done);
	KUNIT_EXPECT_EQ(test, younger->misordered, 0);
	KUNIT_EXPECT_EQ(test, younger->move_err, 0);
	return err;
}

static const struct exec_switch exec_owner_moves_cases[] = {
	{ .on = false, .desc = "evicted" },
	{ .on = true, .desc = "moved-by-its-owner" },
};

KUNIT_ARRAY_PARAM_DESC(exec_owner_moves, exec_owner_moves_cases, desc);

/*
 * A younger transaction holds the only victim. The older one waits for it
 * instead of giving up, evicts it while holding it through the exec, and
 * releases it once the space is allocated: afterwards the exec holds
 * exactly what the caller locked. When the younger one moves the victim
 * out itself while the older one sleeps on it, the walk finds nothing to
 * evict, but the space is free: the older one takes it instead of failing.
 */
static void ttm_bo_exec_waited_victim_released(struct kunit *test)
{
	const struct exec_switch *moves = test->param_value;
	struct exec_holder younger = { .move_out = moves->on };
	struct ttm_buffer_object *victim, *bo;
	struct drm_exec exec;
	int err;

	exec_test_skip_on_rt(test);

	exec_test_vram(test, EXEC_BO_SIZE);
	victim = exec_test_bo(test, &vram_placement, EXEC_BO_SIZE);
	bo = exec_test_bo(test, &sys_placement, EXEC_BO_SIZE);
	younger.bos[younger.nr++] = victim;

	drm_exec_init(&exec, 0, 0);
	err = exec_test_validate_past(test, &exec, bo, &younger);

	KUNIT_EXPECT_EQ(test, younger.waits, 1);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, bo->resource->mem_type, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, victim->resource->mem_type, TTM_PL_SYSTEM);
	KUNIT_EXPECT_EQ(test, exec_test_seen.evicted, moves->on ? 0 : 1);
	KUNIT_EXPECT_EQ(test, exec_test_seen.evicted_through_exec,
			moves->on ? 0 : 1);
	KUNIT_EXPECT_EQ(test, exec.num_objects, 1);
	KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(victim->base.resv));

	drm_exec_fini(&exec);
	ttm_bo_fini(bo);
	ttm_bo_fini(victim);
}

static const struct exec_switch exec_shared_resv_cases[] = {
	{ .on = false, .desc = "own-reservations" },
	{ .on = true, .desc = "shared-reservation" },
};

KUNIT_ARRAY_PARAM_DESC(exec_shared_resv, exec_shared_resv_cases, desc);

/*
 * One allocation needs two victims, both held by a younger transaction.
 * The first stays locked through the exec while the second is evicted, so
 * that its owner cannot move it back in between, and both are released
 * once the space is allocated. Victims that share one reservation, as the
 * BOs private to a VM do, are evicted under the lock taken once.
 */
static void ttm_bo_exec_victims_held_until_allocated(struct kunit *test)
{
	const struct exec_switch *shared = test->param_value;
	struct ttm_buffer_object *first, *second, *bo;
	struct exec_holder younger = { };
	struct drm_exec exec;
	int err;

	exec_test_skip_on_rt(test);

	exec_test_vram(test, 2 * EXEC_BO_SIZE);
	first = exec_test_bo(test, &vram_placement, EXEC_BO_SIZE);
	second = exec_test_bo_resv(test, &vram_placement, EXEC_BO_SIZE,
				   shared->on ? first->base.resv : NULL);
	bo = exec_test_bo(test, &sys_placement, 2 * EXEC_BO_SIZE);
	younger.bos[younger.nr++] = first;
	if (!shared->on)
		younger.bos[younger.nr++] = second;

	drm_exec_init(&exec, 0, 0);
	err = exec_test_validate_past(test, &exec, bo, &younger);

	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, bo->resource->mem_type, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, first->resource->mem_type, TTM_PL_SYSTEM);
	KUNIT_EXPECT_EQ(test, second->resource->mem_type, TTM_PL_SYSTEM);
	KUNIT_EXPECT_EQ(test, exec_test_seen.evicted, 2);
	/* A victim that shares a held lock is not tracked a second time. */
	KUNIT_EXPECT_EQ(test, exec_test_seen.evicted_through_exec,
			shared->on ? 1 : 2);
	KUNIT_EXPECT_EQ(test, exec_test_seen.earlier_victims_held, 1);
	KUNIT_EXPECT_EQ(test, exec.num_objects, 1);
	KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(first->base.resv));
	KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(second->base.resv));

	drm_exec_fini(&exec);
	ttm_bo_fini(bo);
	ttm_bo_fini(second);
	ttm_bo_fini(first);
}

/*
 * A younger transaction holds two BOs, and the first that eviction visits
 * cannot be evicted. The older one sleeps on it, frees nothing, and sleeps
 * on nothing else in that walk: it does not wait for the second, and the
 * walk ends. Without that bound, an old transaction would sleep on every
 * BO a younger one holds.
 */
static void ttm_bo_exec_fruitless_sleep_ends_walk(struct kunit *test)
{
	struct ttm_buffer_object *busy, *victim, *bo;
	struct exec_holder younger = { .any_order = true };
	struct drm_exec exec;
	int err;

	exec_test_skip_on_rt(test);

	exec_test_vram(test, 2 * EXEC_BO_SIZE);
	busy = exec_test_bo(test, &vram_placement, EXEC_BO_SIZE);
	victim = exec_test_bo(test, &vram_placement, EXEC_BO_SIZE);
	bo = exec_test_bo(test, &sys_placement, EXEC_BO_SIZE);
	exec_test_seen.unevictable = busy;
	younger.bos[younger.nr++] = busy;
	younger.bos[younger.nr++] = victim;

	drm_exec_init(&exec, 0, 0);
	err = exec_test_validate_past(test, &exec, bo, &younger);

	KUNIT_EXPECT_EQ(test, younger.waits, 1);
	KUNIT_EXPECT_EQ(test, err, -ENOMEM);
	KUNIT_EXPECT_EQ(test, exec_test_seen.evicted, 0);
	KUNIT_EXPECT_EQ(test, victim->resource->mem_type, TTM_PL_VRAM);
	KUNIT_EXPECT_EQ(test, exec.num_objects, 1);

	drm_exec_fini(&exec);
	ttm_bo_fini(bo);
	ttm_bo_fini(victim);
	ttm_bo_fini(busy);
}

struct exec_stress {
	struct ttm_buffer_object *bos[STRESS_BOS];
	bool use_exec;
	bool inject;
	atomic_t failures;
	atomic_t backoffs;
};

struct exec_stress_worker {
	struct exec_stress *stress;
	struct completion done;
	u32 seed;
};

/*
 * Let the other transactions run. UML has one CPU and does not preempt:
 * without yield() the threads run one after another and never contend.
 * schedule() rarely switches, and a sleep makes the test 100 times slower.
 */
static void exec_stress_interleave(void)
{
	yield();
}

/* One transaction: lock 2 to 6 random BOs and validate each into VRAM. */
static void exec_stress_transaction(struct exec_stress *s,
				    struct rnd_state *rnd)
{
	struct ttm_buffer_object *set[STRESS_MAX_SET];
	struct ttm_operation_ctx ctx = { };
	unsigned int n, i;
	struct drm_exec exec;
	int err = 0;

	n = 2 + prandom_u32_state(rnd) % (STRESS_MAX_SET - 1);
	for (i = 0; i < n; i++)
		set[i] = s->bos[prandom_u32_state(rnd) % STRESS_BOS];

	drm_exec_init(&exec, DRM_EXEC_IGNORE_DUPLICATES, n);
	if (s->use_exec)
		ctx.exec = &exec;

	drm_exec_until_all_locked(&exec) {
		if (!s->inject)
			exec_test_no_injection(&exec.ticket);
		for (i = 0; i < n; i++) {
			err = drm_exec_lock_obj(&exec, &set[i]->base);
			drm_exec_retry_on_contention(&exec);
			if (err)
				goto out;
			exec_stress_interleave();
		}
		for (i = 0; i < n; i++) {
			err = ttm_bo_validate(set[i], &vram_placement, &ctx);
			if (err == -EDEADLK)
				atomic_inc(&s->backoffs);
			drm_exec_retry_on_contention(&exec);
			if (err)
				goto out;
			exec_stress_interleave();
		}
	}
	/* Hold the set for a while, as a job would. */
	exec_stress_interleave();
out:
	if (err)
		atomic_inc(&s->failures);
	drm_exec_fini(&exec);
}

static int exec_stress_fn(void *arg)
{
	struct exec_stress_worker *w = arg;
	struct rnd_state rnd;
	int i;

	prandom_seed_state(&rnd, w->seed);
	for (i = 0; i < STRESS_TXNS; i++)
		exec_stress_transaction(w->stress, &rnd);

	complete(&w->done);
	return 0;
}

/* Every BO is placed and VRAM usage is exactly what its BOs hold. */
static void exec_stress_check(struct kunit *test, struct exec_stress *s,
			      struct ttm_resource_manager *vram)
{
	u64 in_vram = 0;
	int i;

	for (i = 0; i < STRESS_BOS; i++) {
		struct ttm_buffer_object *bo = s->bos[i];

		KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(bo->base.resv));
		KUNIT_ASSERT_NOT_NULL(test, bo->resource);
		if (bo->resource->mem_type == TTM_PL_VRAM)
			in_vram += bo->base.size;
		else
			KUNIT_EXPECT_EQ(test, bo->resource->mem_type,
					TTM_PL_SYSTEM);
	}
	KUNIT_EXPECT_EQ(test, ttm_resource_manager_usage(vram), in_vram);
}

static void exec_stress_run(struct kunit *test, struct exec_stress *s,
			    struct ttm_resource_manager *vram)
{
	struct exec_stress_worker *workers;
	struct task_struct *task;
	int i, started;

	workers = kunit_kcalloc(test, STRESS_THREADS, sizeof(*workers),
				GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, workers);

	for (i = 0; i < STRESS_BOS; i++)
		s->bos[i] = exec_test_bo(test, &sys_placement, EXEC_BO_SIZE);

	for (started = 0; started < STRESS_THREADS; started++) {
		struct exec_stress_worker *w = &workers[started];

		w->stress = s;
		w->seed = started + 1;
		init_completion(&w->done);
		task = kthread_run(exec_stress_fn, w, "ttm-exec-stress/%d",
				   started);
		if (IS_ERR(task))
			break;
	}
	/* Never leave the test while a worker still uses its memory. */
	for (i = 0; i < started; i++)
		wait_for_completion(&workers[i].done);
	KUNIT_ASSERT_EQ(test, started, STRESS_THREADS);

	exec_stress_check(test, s, vram);
	for (i = 0; i < STRESS_BOS; i++)
		ttm_bo_fini(s->bos[i]);
	KUNIT_EXPECT_EQ(test, ttm_resource_manager_usage(vram), 0);
}

static const struct exec_switch exec_inject_cases[] = {
	{ .on = true, .desc = "injected-deadlocks" },
	{ .on = false, .desc = "natural" },
};

KUNIT_ARRAY_PARAM_DESC(exec_inject, exec_inject_cases, desc);

/*
 * 8 threads run 200 transactions each against a 2x overcommitted VRAM,
 * once without an exec and once with the exec in the context, with
 * and without the ww-mutex slowpath's injected deadlocks. With the exec,
 * no transaction fails, whatever the interleaving. Eviction reaches a
 * sleeping lock, where a deadlock can be injected, only when a trylock
 * fails, so how often it backs off depends on timing, as does how often
 * the path without an exec fails: both are printed as figures, never
 * checked. ttm_bo_exec_evict_contended backs off by construction.
 */
static void ttm_bo_exec_stress(struct kunit *test)
{
	struct exec_stress *baseline, *exec;
	struct ttm_resource_manager *vram;
	const struct exec_switch *inject = test->param_value;

	baseline = kunit_kzalloc(test, sizeof(*baseline), GFP_KERNEL);
	exec = kunit_kzalloc(test, sizeof(*exec), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, baseline);
	KUNIT_ASSERT_NOT_NULL(test, exec);
	baseline->inject = inject->on;
	exec->inject = inject->on;
	exec->use_exec = true;

	/* Many threads evict at once: nothing to watch one by one. */
	exec_test_seen.watch = false;
	vram = exec_test_vram(test, STRESS_VRAM_SIZE);
	exec_stress_run(test, baseline, vram);
	exec_stress_run(test, exec, vram);

	kunit_info(test, "figure: failed transactions of %d: without exec %d, exec-aware %d (%d eviction back-offs)\n",
		   STRESS_THREADS * STRESS_TXNS,
		   atomic_read(&baseline->failures),
		   atomic_read(&exec->failures),
		   atomic_read(&exec->backoffs));

	KUNIT_EXPECT_EQ(test, atomic_read(&exec->failures), 0);
}

static struct kunit_case ttm_bo_exec_test_cases[] = {
	KUNIT_CASE(ttm_bo_exec_evict_contended),
	KUNIT_CASE(ttm_bo_exec_evict_contended_no_exec),
	KUNIT_CASE(ttm_bo_exec_create_contended),
	KUNIT_CASE_PARAM(ttm_bo_exec_skips_own_bos, exec_flags_gen_params),
	KUNIT_CASE_PARAM(ttm_bo_exec_skips_orphans, exec_orphan_gen_params),
	KUNIT_CASE_PARAM(ttm_bo_exec_waited_victim_released,
			 exec_owner_moves_gen_params),
	KUNIT_CASE_PARAM(ttm_bo_exec_victims_held_until_allocated,
			 exec_shared_resv_gen_params),
	KUNIT_CASE(ttm_bo_exec_fruitless_sleep_ends_walk),
	KUNIT_CASE_PARAM_ATTR(ttm_bo_exec_stress, exec_inject_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite ttm_bo_exec_test_suite = {
	.name = "ttm_bo_exec",
	.init = ttm_bo_exec_test_init,
	.exit = ttm_bo_exec_test_fini,
	.test_cases = ttm_bo_exec_test_cases,
};

kunit_test_suites(&ttm_bo_exec_test_suite);

MODULE_DESCRIPTION("KUnit tests for exec-aware TTM eviction");
MODULE_LICENSE("GPL and additional rights");
