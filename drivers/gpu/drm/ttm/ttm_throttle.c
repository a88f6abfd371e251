// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * TTM eviction throttling: when a client that lost memory may take it back.
 */

#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/ktime.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_throttle.h>

#include "ttm_throttle_internal.h"

/**
 * DOC: Eviction throttling
 *
 * Under overcommit, two busy clients, a game and its compositor say, can
 * take turns evicting each other's buffers and moving their own back in on
 * every submission, so that the copy engine is busier than the GPU. The
 * throttle ends that. A driver keeps one per client, next to the client's
 * LRU bulk move (a VM for xe and amdgpu), links the two with
 * ttm_throttle_init(), and passes it to validation in
 * &ttm_operation_ctx.throttle.
 *
 * When eviction that makes room for a validation takes any of a client's
 * memory, the client enters *hard* throttle, and remembers who took it. A
 * buffer it validates then stays where it is if the placement accepts its
 * current resource as a fallback, rather than move to the memory it
 * prefers: only memory that must move, moves. *Soft* throttle follows: the
 * client may fill free memory again, and evict other clients' memory as
 * usual, but not the memory of the clients that took its own: a fallback
 * placement comes first. Only a buffer that can be placed no other way
 * evicts them, so no validation fails that would succeed unthrottled. A
 * soft period without another eviction returns the client to *normal*; a
 * new eviction restarts the sequence at hard.
 *
 * Each evictor is remembered for the hard and soft periods after it last
 * took the client's memory, in a set of %TTM_THROTTLE_EVICTORS: a further
 * evictor replaces the one that evicted longest ago. So a compositor that
 * evicts two renderers for its scanout buffer keeps both off its own
 * memory for a while, without freezing the split of VRAM between them.
 *
 * The throttle leaves dmem protection as it is: eviction of other clients'
 * memory follows dmem.min and dmem.low as without it, and the throttle only
 * takes the evictors' buffers out of the candidates.
 *
 * The periods are a device's settings, &ttm_device.throttle_periods, 0
 * until the driver sets them: how long a fight over memory lasts depends
 * on the device's copy rate and on the workload, so the policy is the
 * driver's, and a device whose driver sets none is never throttled. A
 * driver may change its device's at any time, let them be tuned in debugfs
 * with ttm_throttle_debugfs_init(), or point a client's throttle at
 * periods of its own, from a cgroup attribute or a context parameter say.
 * Both 0, or a NULL &ttm_operation_ctx.throttle, turn throttling off. A
 * hard period a little longer than a submission's validation lets the
 * evictor's job run before the victim takes its memory back; a soft period
 * of seconds keeps the winner of a fight over VRAM in place through a
 * scene, yet lets a client that went idle refill free VRAM once its hard
 * period ends.
 *
 * A buffer the throttle kept out of the memory it prefers, in hard
 * throttle or by a soft fallback, is reported in
 * &ttm_operation_ctx.throttle_kept. A driver that validates every buffer
 * of every submission, as amdgpu does, needs nothing more: the next
 * submission after the hard period tries the buffer again. A driver that
 * validates only what was evicted, as xe does with its VM's evict list,
 * must validate the reported buffers again itself once the hard period is
 * over; that validation moves them into free memory only, since a buffer
 * that is in a fallback placement evicts nothing to leave it.
 *
 * A client is known by its bulk move: buffers outside any bulk move, such
 * as buffers shared between processes, throttle no one when they are
 * evicted, and are spared by no one; a throttled client that validates
 * one follows its throttle for it as for its own. An evictor is known by
 * the throttle it validates with: one that validates without a throttle
 * is not remembered by its victims, and throttles with the same client id
 * (the VMs of one DRM file) are one client, which neither throttles nor
 * spares itself. When the relocation of a victim evicts a third client's
 * memory, the third client remembers the evictor whose validation caused
 * it. Only eviction that makes room for a
 * placement throttles the owners of what it takes; the shrinker, suspend,
 * ttm_resource_manager_evict_all() and the reclaim of a dmem.max write do
 * not throttle the owners of the buffers they move, though evictions that
 * make room for those buffers' relocation do. ttm_bo_mem_space(), which
 * relocates the victims of eviction, is never throttled.
 */

/* The clock, a function of its own so that KUnit can replace it. */
VISIBLE_IF_KUNIT ktime_t ttm_throttle_now(void)
{
	KUNIT_STATIC_STUB_REDIRECT(ttm_throttle_now);
	return ktime_get();
}
EXPORT_SYMBOL_IF_KUNIT(ttm_throttle_now);

/**
 * ttm_throttle_init - initialise a client's throttle
 * @throttle: The throttle.
 * @bulk: The client's LRU bulk move: eviction finds the throttle of a
 *	buffer's owner through it.
 * @periods: The periods that apply, normally &ttm_device.throttle_periods.
 * @client_id: The client's DRM client id, not 0: it names the client to
 *	those it evicts, and in tracepoints.
 *
 * The client starts unthrottled. Call this once, after
 * ttm_lru_bulk_move_init(); buffers may already be in @bulk. Eviction
 * reads the link with the buffer's reservation or &ttm_device.lru_lock
 * held, and finds the throttle complete once it is set.
 */
void ttm_throttle_init(struct ttm_throttle *throttle,
		       struct ttm_lru_bulk_move *bulk,
		       const struct ttm_throttle_periods *periods,
		       u64 client_id)
{
	throttle->periods = periods;
	throttle->client_id = client_id;
	atomic64_set(&throttle->evicted_at, 0);
	spin_lock_init(&throttle->lock);
	memset(throttle->evictors, 0, sizeof(throttle->evictors));
	/* Eviction may look the link up under lru_lock alone. */
	smp_store_release(&bulk->throttle, throttle);
}
EXPORT_SYMBOL(ttm_throttle_init);

/* How long after its last eviction a throttle is in effect. */
static ktime_t ttm_throttle_period(struct ttm_throttle *throttle, bool soft)
{
	ktime_t period = ms_to_ktime(READ_ONCE(throttle->periods->hard_ms));

	if (soft)
		period = ktime_add(period,
				   ms_to_ktime(READ_ONCE(throttle->periods->soft_ms)));
	return period;
}

/**
 * ttm_throttle_get_state - the throttle state of a client now
 * @throttle: The client's throttle, or NULL for none.
 *
 * The periods apply as they are now, so a change applies at once.
 *
 * Return: The state; %TTM_THROTTLE_NORMAL without a throttle.
 */
enum ttm_throttle_state ttm_throttle_get_state(struct ttm_throttle *throttle)
{
	ktime_t evicted_at, since;

	if (!throttle)
		return TTM_THROTTLE_NORMAL;

	evicted_at = atomic64_read(&throttle->evicted_at);
	if (!evicted_at)
		return TTM_THROTTLE_NORMAL;

	since = ktime_sub(ttm_throttle_now(), evicted_at);
	if (since < ttm_throttle_period(throttle, false))
		return TTM_THROTTLE_HARD;
	if (since < ttm_throttle_period(throttle, true))
		return TTM_THROTTLE_SOFT;
	return TTM_THROTTLE_NORMAL;
}
EXPORT_SYMBOL(ttm_throttle_get_state);

/**
 * ttm_throttle_evicted - restart a client's throttle at hard
 * @throttle: The throttle of the client whose memory was evicted.
 * @evictor: The throttle of the client the eviction made room for, or
 *	NULL if it validates without one.
 *
 * TTM calls this when eviction made room for someone else with the
 * client's memory. @evictor replaces the slot it already has, else the
 * slot of the evictor that evicted longest ago (a free slot is the
 * oldest). The clock is read under @throttle's lock, so that concurrent
 * evictions never move a time back; the time of the last eviction is
 * kept in an atomic as well, so that reading the state takes no lock.
 */
void ttm_throttle_evicted(struct ttm_throttle *throttle,
			  const struct ttm_throttle *evictor)
{
	struct ttm_throttle_evictor *slot;
	unsigned int i;
	ktime_t now;

	spin_lock(&throttle->lock);
	now = ttm_throttle_now();
	atomic64_set(&throttle->evicted_at, now);
	if (!evictor || !evictor->client_id)
		goto out;

	slot = &throttle->evictors[0];
	for (i = 0; i < TTM_THROTTLE_EVICTORS; i++) {
		struct ttm_throttle_evictor *e = &throttle->evictors[i];

		if (e->client_id == evictor->client_id) {
			slot = e;
			break;
		}
		if (!e->client_id || e->evicted_at < slot->evicted_at)
			slot = e;
	}
	slot->client_id = evictor->client_id;
	slot->evicted_at = now;
out:
	spin_unlock(&throttle->lock);
}
EXPORT_SYMBOL_IF_KUNIT(ttm_throttle_evicted);

/**
 * ttm_throttle_get_spare - the clients a throttled client keeps off, now
 * @throttle: The throttle of the client that is about to evict.
 * @spare: Where to put the ids of the clients that took its memory within
 *	the hard and soft periods before.
 *
 * Taken once per validation, so that eviction weighs each candidate
 * without the lock or the clock; an eviction of the client's memory in
 * the meantime counts from its next validation on.
 */
void ttm_throttle_get_spare(struct ttm_throttle *throttle,
			    struct ttm_throttle_spare *spare)
{
	unsigned int i;
	ktime_t since;

	spare->client_id = throttle->client_id;
	spare->count = 0;
	spin_lock(&throttle->lock);
	since = ktime_sub(ttm_throttle_now(),
			  ttm_throttle_period(throttle, true));
	for (i = 0; i < TTM_THROTTLE_EVICTORS; i++) {
		const struct ttm_throttle_evictor *e = &throttle->evictors[i];

		if (e->client_id && e->evicted_at > since)
			spare->ids[spare->count++] = e->client_id;
	}
	spin_unlock(&throttle->lock);
}
EXPORT_SYMBOL_IF_KUNIT(ttm_throttle_get_spare);

/**
 * ttm_throttle_spares - whether a throttled client keeps off a BO's owner
 * @spare: The clients it keeps off, from ttm_throttle_get_spare().
 * @owner: The throttle of the client that owns the candidate, or NULL.
 *
 * A client that is throttled does not evict the memory of the clients
 * that took its own; see "Eviction throttling". At most
 * %TTM_THROTTLE_EVICTORS compares, and no lock.
 *
 * Return: true if eviction should leave @owner's memory alone.
 */
bool ttm_throttle_spares(const struct ttm_throttle_spare *spare,
			 const struct ttm_throttle *owner)
{
	unsigned int i;

	if (!owner || !owner->client_id || owner->client_id == spare->client_id)
		return false;

	for (i = 0; i < spare->count; i++)
		if (spare->ids[i] == owner->client_id)
			return true;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(ttm_throttle_spares);

/**
 * ttm_throttle_debugfs_init - let a device's throttle periods be tuned
 * @bdev: The device.
 * @root: The debugfs directory for the files, the DRM minor's say.
 *
 * Adds ``throttle_hard_ms`` and ``throttle_soft_ms``, which read and write
 * @bdev's &ttm_device.throttle_periods. A write applies at each client's
 * next look at its state.
 */
void ttm_throttle_debugfs_init(struct ttm_device *bdev, struct dentry *root)
{
	debugfs_create_u32("throttle_hard_ms", 0600, root,
			   &bdev->throttle_periods.hard_ms);
	debugfs_create_u32("throttle_soft_ms", 0600, root,
			   &bdev->throttle_periods.soft_ms);
}
EXPORT_SYMBOL(ttm_throttle_debugfs_init);
