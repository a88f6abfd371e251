// SPDX-License-Identifier: MIT
/*
 * Copyright 2022 Advanced Micro Devices, Inc.
 */

#define pr_fmt(fmt) "drm_exec: " fmt

#include <kunit/test.h>

#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/prime_numbers.h>

#include <drm/drm_exec.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_kunit_helpers.h>

struct drm_exec_priv {
	struct device *dev;
	struct drm_device *drm;
};

static int drm_exec_test_init(struct kunit *test)
{
	struct drm_exec_priv *priv;

	priv = kunit_kzalloc(test, sizeof(*priv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, priv);

	test->priv = priv;

	priv->dev = drm_kunit_helper_alloc_device(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, priv->dev);

	priv->drm = __drm_kunit_helper_alloc_drm_device(test, priv->dev, sizeof(*priv->drm), 0,
							DRIVER_MODESET);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, priv->drm);

	return 0;
}

static void sanitycheck(struct kunit *test)
{
	struct drm_exec exec;

	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 0);
	drm_exec_fini(&exec);
	KUNIT_SUCCEED(test);
}

static void test_lock(struct kunit *test)
{
	struct drm_exec_priv *priv = test->priv;
	struct drm_gem_object gobj = { };
	struct drm_exec exec;
	int ret;

	drm_gem_private_object_init(priv->drm, &gobj, PAGE_SIZE);

	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_exec_lock_obj(&exec, &gobj);
		drm_exec_retry_on_contention(&exec);
		KUNIT_EXPECT_EQ(test, ret, 0);
		if (ret)
			break;
	}
	drm_exec_fini(&exec);
}

static void test_lock_unlock(struct kunit *test)
{
	struct drm_exec_priv *priv = test->priv;
	struct drm_gem_object gobj = { };
	struct drm_exec exec;
	int ret;

	drm_gem_private_object_init(priv->drm, &gobj, PAGE_SIZE);

	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_exec_lock_obj(&exec, &gobj);
		drm_exec_retry_on_contention(&exec);
		KUNIT_EXPECT_EQ(test, ret, 0);
		if (ret)
			break;

		drm_exec_unlock_obj(&exec, &gobj);
		ret = drm_exec_lock_obj(&exec, &gobj);
		drm_exec_retry_on_contention(&exec);
		KUNIT_EXPECT_EQ(test, ret, 0);
		if (ret)
			break;
	}
	drm_exec_fini(&exec);
}

static void test_duplicates(struct kunit *test)
{
	struct drm_exec_priv *priv = test->priv;
	struct drm_gem_object gobj = { };
	struct drm_exec exec;
	int ret;

	drm_gem_private_object_init(priv->drm, &gobj, PAGE_SIZE);

	drm_exec_init(&exec, DRM_EXEC_IGNORE_DUPLICATES, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_exec_lock_obj(&exec, &gobj);
		drm_exec_retry_on_contention(&exec);
		KUNIT_EXPECT_EQ(test, ret, 0);
		if (ret)
			break;

		ret = drm_exec_lock_obj(&exec, &gobj);
		drm_exec_retry_on_contention(&exec);
		KUNIT_EXPECT_EQ(test, ret, 0);
		if (ret)
			break;
	}
	drm_exec_unlock_obj(&exec, &gobj);
	drm_exec_fini(&exec);
}

static void test_prepare(struct kunit *test)
{
	struct drm_exec_priv *priv = test->priv;
	struct drm_gem_object gobj = { };
	struct drm_exec exec;
	int ret;

	drm_gem_private_object_init(priv->drm, &gobj, PAGE_SIZE);

	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_exec_prepare_obj(&exec, &gobj, 1);
		drm_exec_retry_on_contention(&exec);
		KUNIT_EXPECT_EQ(test, ret, 0);
		if (ret)
			break;
	}
	drm_exec_fini(&exec);

	drm_gem_private_object_fini(&gobj);
}

static void test_prepare_array(struct kunit *test)
{
	struct drm_exec_priv *priv = test->priv;
	struct drm_gem_object *gobj1;
	struct drm_gem_object *gobj2;
	struct drm_gem_object *array[] = {
		(gobj1 = kunit_kzalloc(test, sizeof(*gobj1), GFP_KERNEL)),
		(gobj2 = kunit_kzalloc(test, sizeof(*gobj2), GFP_KERNEL)),
	};
	struct drm_exec exec;
	int ret;

	if (!gobj1 || !gobj2) {
		KUNIT_FAIL(test, "Failed to allocate GEM objects.\n");
		return;
	}

	drm_gem_private_object_init(priv->drm, gobj1, PAGE_SIZE);
	drm_gem_private_object_init(priv->drm, gobj2, PAGE_SIZE);

	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 0);
	drm_exec_until_all_locked(&exec)
		ret = drm_exec_prepare_array(&exec, array, ARRAY_SIZE(array),
					     1);
	KUNIT_EXPECT_EQ(test, ret, 0);
	drm_exec_fini(&exec);

	drm_gem_private_object_fini(gobj1);
	drm_gem_private_object_fini(gobj2);
}

static void test_multiple_loops(struct kunit *test)
{
	struct drm_exec exec;

	{
		__label__ drm_exec_retry;

		drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 0);
		drm_exec_until_all_locked(&exec)
		{
			break;
		}
		drm_exec_fini(&exec);
	}

	{
		__label__ drm_exec_retry;

		drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 0);
		drm_exec_until_all_locked(&exec)
		{
			break;
		}
		drm_exec_fini(&exec);
	}
	KUNIT_SUCCEED(test);
}

/* A GEM object off the stack: with lock debugging, several overflow it. */
static struct drm_gem_object *drm_exec_test_obj(struct kunit *test)
{
	struct drm_exec_priv *priv = test->priv;
	struct drm_gem_object *obj;

	obj = kunit_kzalloc(test, sizeof(*obj), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	drm_gem_private_object_init(priv->drm, obj, PAGE_SIZE);
	return obj;
}

struct drm_exec_test_holder {
	struct drm_gem_object *obj;
	struct completion locked;
	struct completion release;
	struct completion done;
};

/* Lock an object with an older ticket than the test's, until told. */
static int drm_exec_test_hold(void *arg)
{
	struct drm_exec_test_holder *holder = arg;
	struct ww_acquire_ctx ticket;

	ww_acquire_init(&ticket, &reservation_ww_class);
	dma_resv_lock(holder->obj->resv, &ticket);
	complete(&holder->locked);
	wait_for_completion(&holder->release);
	dma_resv_unlock(holder->obj->resv);
	ww_acquire_fini(&ticket);
	complete(&holder->done);
	return 0;
}

/* Keep CONFIG_DEBUG_WW_MUTEX_SLOWPATH from injecting contention into @exec. */
static void drm_exec_test_no_injection(struct drm_exec *exec)
{
#ifdef CONFIG_DEBUG_WW_MUTEX_SLOWPATH
	exec->ticket.deadlock_inject_countdown = UINT_MAX;
#endif
}

/* Start a thread that holds @obj with an older ticket than the test's. */
static void drm_exec_test_hold_start(struct kunit *test,
				     struct drm_exec_test_holder *holder,
				     struct drm_gem_object *obj)
{
	struct task_struct *thread;

	holder->obj = obj;
	init_completion(&holder->locked);
	init_completion(&holder->release);
	init_completion(&holder->done);
	thread = kthread_run(drm_exec_test_hold, holder, "drm_exec_test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(thread));
	wait_for_completion(&holder->locked);
}

/*
 * Lock @own, then @victim, which an older transaction holds: back off, which
 * prelocks @victim, and then lock only @sharer, which shares its
 * reservation, as a caller whose set of objects changed after a back-off
 * does. With @checkpoint, end the loop's body as a helper called there
 * would: lock @victim since a checkpoint, and unlock since it.
 */
static int drm_exec_test_lock_sharer(struct kunit *test, struct drm_exec *exec,
				     struct drm_gem_object *own,
				     struct drm_gem_object *victim,
				     struct drm_gem_object *sharer,
				     int *helper_ret)
{
	struct drm_exec_test_holder holder;
	unsigned int checkpoint;
	bool contended = false;
	int ret;

	sharer->resv = victim->resv;
	drm_exec_test_hold_start(test, &holder, victim);

	drm_exec_until_all_locked(exec) {
		drm_exec_test_no_injection(exec);
		ret = drm_exec_lock_obj(exec, own);
		drm_exec_retry_on_contention(exec);
		if (ret)
			break;

		if (!contended) {
			ret = drm_exec_lock_obj(exec, victim);
			if (ret == -EDEADLK) {
				contended = true;
				complete(&holder.release);
			}
			drm_exec_retry_on_contention(exec);
			if (ret)
				break;
		}

		ret = drm_exec_lock_obj(exec, sharer);
		drm_exec_retry_on_contention(exec);
		if (!ret && helper_ret) {
			checkpoint = drm_exec_checkpoint(exec);
			*helper_ret = drm_exec_lock_obj_since(exec, checkpoint,
							      victim);
			drm_exec_unlock_since(exec, checkpoint);
		}
	}
	if (!contended)
		complete(&holder.release);
	wait_for_completion(&holder.done);

	KUNIT_EXPECT_TRUE(test, contended);
	return ret;
}

/*
 * A duplicate of the object prelocked after a back-off holds its
 * reservation only through that object. Its lock lasts until the end of the
 * transaction, though the caller never locks the prelocked object again.
 */
static void test_duplicate_of_prelocked(struct kunit *test)
{
	struct drm_gem_object *own = drm_exec_test_obj(test);
	struct drm_gem_object *victim = drm_exec_test_obj(test);
	struct drm_gem_object *sharer = drm_exec_test_obj(test);
	struct drm_exec exec;
	int ret;

	drm_exec_init(&exec, DRM_EXEC_IGNORE_DUPLICATES, 0);
	ret = drm_exec_test_lock_sharer(test, &exec, own, victim, sharer, NULL);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, dma_resv_is_locked(sharer->resv));
	KUNIT_EXPECT_EQ(test, exec.num_objects, 2);

	drm_exec_fini(&exec);
	KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(sharer->resv));
}

static void test_unlock_since(struct kunit *test)
{
	struct drm_gem_object *own = drm_exec_test_obj(test);
	struct drm_gem_object *a = drm_exec_test_obj(test);
	struct drm_gem_object *b = drm_exec_test_obj(test);
	struct drm_exec exec;
	unsigned int checkpoint;
	int ret;

	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_exec_lock_obj(&exec, own);
		drm_exec_retry_on_contention(&exec);
		KUNIT_ASSERT_EQ(test, ret, 0);

		checkpoint = drm_exec_checkpoint(&exec);
		ret = drm_exec_lock_obj_since(&exec, checkpoint, a);
		drm_exec_retry_on_contention(&exec);
		KUNIT_ASSERT_EQ(test, ret, 0);
		ret = drm_exec_lock_obj_since(&exec, checkpoint, b);
		drm_exec_retry_on_contention(&exec);
		KUNIT_ASSERT_EQ(test, ret, 0);
	}
	KUNIT_EXPECT_EQ(test, exec.num_objects, 3);

	drm_exec_unlock_since(&exec, checkpoint);
	KUNIT_EXPECT_EQ(test, exec.num_objects, 1);
	KUNIT_EXPECT_PTR_EQ(test, drm_exec_obj(&exec, 0), own);
	KUNIT_EXPECT_TRUE(test, dma_resv_is_locked(own->resv));
	KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(a->resv));
	KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(b->resv));
	KUNIT_EXPECT_EQ(test, kref_read(&a->refcount), 1);
	drm_exec_fini(&exec);
}

static void test_lock_since_leaves_own(struct kunit *test)
{
	struct drm_gem_object *own = drm_exec_test_obj(test);
	struct drm_exec exec;
	unsigned int checkpoint;
	int ret;

	/* Duplicates ignored: drm_exec_lock_obj() would return 0 here. */
	drm_exec_init(&exec, DRM_EXEC_IGNORE_DUPLICATES, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_exec_lock_obj(&exec, own);
		drm_exec_retry_on_contention(&exec);
		KUNIT_ASSERT_EQ(test, ret, 0);

		checkpoint = drm_exec_checkpoint(&exec);
		ret = drm_exec_lock_obj_since(&exec, checkpoint, own);
		drm_exec_retry_on_contention(&exec);
		KUNIT_EXPECT_EQ(test, ret, -EALREADY);
	}
	drm_exec_unlock_since(&exec, checkpoint);
	KUNIT_EXPECT_EQ(test, exec.num_objects, 1);
	KUNIT_EXPECT_TRUE(test, dma_resv_is_locked(own->resv));
	drm_exec_fini(&exec);
}

static void test_lock_since_shared_resv(struct kunit *test)
{
	struct drm_gem_object *a = drm_exec_test_obj(test);
	struct drm_gem_object *b = drm_exec_test_obj(test);
	struct drm_exec exec;
	unsigned int checkpoint;
	int ret;

	b->resv = a->resv;

	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 0);
	drm_exec_until_all_locked(&exec) {
		checkpoint = drm_exec_checkpoint(&exec);
		ret = drm_exec_lock_obj_since(&exec, checkpoint, a);
		drm_exec_retry_on_contention(&exec);
		KUNIT_ASSERT_EQ(test, ret, 0);
		ret = drm_exec_lock_obj_since(&exec, checkpoint, b);
		drm_exec_retry_on_contention(&exec);
		KUNIT_EXPECT_EQ(test, ret, 0);
	}
	KUNIT_EXPECT_EQ(test, exec.num_objects, 1);

	drm_exec_unlock_since(&exec, checkpoint);
	KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(a->resv));
	drm_exec_fini(&exec);
}

/*
 * After a back-off, the contended victim is prelocked. It is not the
 * caller's: locking it since a checkpoint hands it over. Until then, an
 * object sharing its reservation is refused as the caller's.
 */
static void test_lock_since_prelocked(struct kunit *test)
{
	struct drm_exec_test_holder holder;
	struct drm_gem_object *own = drm_exec_test_obj(test);
	struct drm_gem_object *victim = drm_exec_test_obj(test);
	struct drm_gem_object *sharer = drm_exec_test_obj(test);
	int sharer_before = 0, sharer_after = -1;
	unsigned int checkpoint = 0;
	struct drm_exec exec;
	bool contended = false;
	int ret;

	sharer->resv = victim->resv;
	drm_exec_test_hold_start(test, &holder, victim);

	drm_exec_init(&exec, 0, 0);
	drm_exec_until_all_locked(&exec) {
		drm_exec_test_no_injection(&exec);
		ret = drm_exec_lock_obj(&exec, own);
		drm_exec_retry_on_contention(&exec);
		if (ret)
			break;

		checkpoint = drm_exec_checkpoint(&exec);
		if (exec.prelocked == victim)
			sharer_before = drm_exec_lock_obj_since(&exec, checkpoint,
								sharer);
		ret = drm_exec_lock_obj_since(&exec, checkpoint, victim);
		if (ret == -EDEADLK && !contended) {
			/* The older holder lets go; the back-off prelocks. */
			contended = true;
			complete(&holder.release);
		}
		drm_exec_retry_on_contention(&exec);
		if (ret)
			break;
		sharer_after = drm_exec_lock_obj_since(&exec, checkpoint, sharer);
	}
	if (!contended)
		complete(&holder.release);
	wait_for_completion(&holder.done);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, contended);
	KUNIT_EXPECT_EQ(test, sharer_before, -EALREADY);
	KUNIT_EXPECT_EQ(test, sharer_after, 0);
	KUNIT_EXPECT_NULL(test, exec.prelocked);
	KUNIT_EXPECT_EQ(test, exec.num_objects, 2);

	drm_exec_unlock_since(&exec, checkpoint);
	KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(victim->resv));
	KUNIT_EXPECT_TRUE(test, dma_resv_is_locked(own->resv));
	drm_exec_fini(&exec);
}

/*
 * Once the caller holds a duplicate of the prelocked object, that object is
 * the caller's: a helper may neither lock it as its own nor unlock it.
 */
static void test_lock_since_duplicate_of_prelocked(struct kunit *test)
{
	struct drm_gem_object *own = drm_exec_test_obj(test);
	struct drm_gem_object *victim = drm_exec_test_obj(test);
	struct drm_gem_object *sharer = drm_exec_test_obj(test);
	struct drm_exec exec;
	int helper_ret = 0;
	int ret;

	drm_exec_init(&exec, DRM_EXEC_IGNORE_DUPLICATES, 0);
	ret = drm_exec_test_lock_sharer(test, &exec, own, victim, sharer,
					&helper_ret);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, helper_ret, -EALREADY);
	KUNIT_EXPECT_TRUE(test, dma_resv_is_locked(sharer->resv));

	drm_exec_fini(&exec);
}

struct lock_since_after_loop_case {
	bool by_break;
	const char *desc;
};

/*
 * A helper handed an exec whose loop has been left, at its end or by a
 * break, is told, with a warning.
 */
static void test_lock_since_after_loop(struct kunit *test)
{
	const struct lock_since_after_loop_case *c = test->param_value;
	struct drm_gem_object *own = drm_exec_test_obj(test);
	struct drm_gem_object *obj = drm_exec_test_obj(test);
	struct drm_exec exec;
	int ret;

	drm_exec_init(&exec, 0, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_exec_lock_obj(&exec, own);
		drm_exec_retry_on_contention(&exec);
		KUNIT_ASSERT_EQ(test, ret, 0);
		KUNIT_EXPECT_FALSE(test, drm_exec_all_locked(&exec));
		if (c->by_break)
			break;
	}
	KUNIT_EXPECT_TRUE(test, drm_exec_all_locked(&exec));

	ret = drm_exec_lock_obj_since(&exec, drm_exec_checkpoint(&exec), obj);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(obj->resv));
	drm_exec_fini(&exec);
}

static const struct lock_since_after_loop_case lock_since_after_loop_cases[] = {
	{ .by_break = false, .desc = "ended" },
	{ .by_break = true, .desc = "left by a break" },
};

KUNIT_ARRAY_PARAM_DESC(lock_since_after_loop, lock_since_after_loop_cases,
		       desc);

/*
 * A checkpoint beyond the objects locked means the helper's caller unlocked
 * objects since: the helper is told, with a warning, and nothing changes.
 */
static void test_checkpoint_beyond_locked(struct kunit *test)
{
	struct drm_gem_object *a = drm_exec_test_obj(test);
	struct drm_gem_object *b = drm_exec_test_obj(test);
	struct drm_exec exec;
	unsigned int checkpoint;
	int ret;

	drm_exec_init(&exec, 0, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_exec_lock_obj(&exec, a);
		drm_exec_retry_on_contention(&exec);
		KUNIT_ASSERT_EQ(test, ret, 0);

		checkpoint = drm_exec_checkpoint(&exec);
		drm_exec_unlock_obj(&exec, a);
		ret = drm_exec_lock_obj_since(&exec, checkpoint, b);
		KUNIT_EXPECT_EQ(test, ret, -EINVAL);
		KUNIT_EXPECT_FALSE(test, dma_resv_is_locked(b->resv));
	}
	drm_exec_fini(&exec);
}

static struct kunit_case drm_exec_tests[] = {
	KUNIT_CASE(sanitycheck),
	KUNIT_CASE(test_lock),
	KUNIT_CASE(test_lock_unlock),
	KUNIT_CASE(test_duplicates),
	KUNIT_CASE(test_prepare),
	KUNIT_CASE(test_prepare_array),
	KUNIT_CASE(test_multiple_loops),
	KUNIT_CASE(test_duplicate_of_prelocked),
	KUNIT_CASE(test_unlock_since),
	KUNIT_CASE(test_lock_since_leaves_own),
	KUNIT_CASE(test_lock_since_shared_resv),
	KUNIT_CASE(test_lock_since_prelocked),
	KUNIT_CASE(test_lock_since_duplicate_of_prelocked),
	KUNIT_CASE_PARAM(test_lock_since_after_loop,
			 lock_since_after_loop_gen_params),
	KUNIT_CASE(test_checkpoint_beyond_locked),
	{}
};

static struct kunit_suite drm_exec_test_suite = {
	.name = "drm_exec",
	.init = drm_exec_test_init,
	.test_cases = drm_exec_tests,
};

kunit_test_suite(drm_exec_test_suite);

MODULE_AUTHOR("AMD");
MODULE_DESCRIPTION("Kunit test for drm_exec functions");
MODULE_LICENSE("GPL and additional rights");
