// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * TTM eviction throttling: when a client that lost memory may take it back.
 */

#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/moduleparam.h>

#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_throttle.h>

#include "ttm_throttle_internal.h"
#include "ttm_trace.h"

/**
 * DOC: Eviction throttling
 *
 * Under overcommit, two busy clients, say a game and its compositor, can
 * take turns evicting each other's buffers and moving their own back in on
 * every submission, so that the copy engine is busier than the GPU. The
 * throttle ends that. It belongs to a driver's client, next to the client's
 * LRU bulk move (a VM for xe and amdgpu), and is passed to validation in
 * &ttm_operation_ctx.throttle.
 *
 * When eviction made room for someone else by taking any of a client's
 * memory, the client enters *hard* throttle for ``ttm.throttle_hard_ms``
 * milliseconds. A buffer it validates then stays where it is if the
 * placement accepts its current resource, counting fallback placements;
 * only memory that must move, moves. *Soft* throttle follows for
 * ``ttm.throttle_soft_ms``: the client may fill free memory again, but
 * eviction on its behalf takes only its own buffers, lowest residency
 * priority first, unless a buffer has no placement at all it could get
 * otherwise. A buffer that must be in VRAM, a scanout buffer say, is
 * always placed. At no time does a throttled client evict memory within
 * another cgroup's effective dmem.low or dmem.min protection. A soft period
 * without another eviction returns the client to *normal*; a new eviction
 * restarts the sequence at hard.
 *
 * The hard default, 5 ms, is a little longer than a typical submission's
 * validation, so that the evictor's job can run before the victim takes its
 * memory back. The soft default, 2000 ms, is long enough for the winner of
 * a fight over VRAM to keep it through a scene, and short enough that a
 * client that becomes busy again, after its memory went while it was idle,
 * comes back to full speed without a visible stall: it refills free VRAM
 * as soon as hard throttle ends. Both are module parameters of ttm and
 * take effect at once, for every client. Setting both to 0 gives the
 * behaviour of a kernel without throttling, as does a NULL
 * &ttm_operation_ctx.throttle.
 *
 * A client's own buffers share the reservation it holds while it
 * validates, so eviction reaches them only when the driver validates with
 * &ttm_operation_ctx.allow_res_evict. Without it, as in xe's and amdgpu's
 * submissions, soft throttle means placing a buffer in a fallback placement
 * rather than evicting another client. A throttled client that must evict
 * others after all may first have evicted some of its own buffers in vain.
 *
 * Eviction that makes room for a validation throttles its victims; the
 * shrinker, suspend and ttm_resource_manager_evict_all() do not, as no
 * client gained memory there.
 */

static unsigned int ttm_throttle_hard_ms = 5;
module_param_named(throttle_hard_ms, ttm_throttle_hard_ms, uint, 0644);
MODULE_PARM_DESC(throttle_hard_ms,
		 "Hard throttle after a client's memory is evicted, in ms (default 5)");

static unsigned int ttm_throttle_soft_ms = 2000;
module_param_named(throttle_soft_ms, ttm_throttle_soft_ms, uint, 0644);
MODULE_PARM_DESC(throttle_soft_ms,
		 "Soft throttle after hard throttle ends, in ms (default 2000)");

/* The clock; a function of its own so that KUnit can replace it. */
VISIBLE_IF_KUNIT ktime_t ttm_throttle_now(void)
{
	KUNIT_STATIC_STUB_REDIRECT(ttm_throttle_now);
	return ktime_get();
}
EXPORT_SYMBOL_IF_KUNIT(ttm_throttle_now);

/* The periods, from the module parameters unless KUnit replaces them. */
VISIBLE_IF_KUNIT void ttm_throttle_periods(ktime_t *hard, ktime_t *soft)
{
	KUNIT_STATIC_STUB_REDIRECT(ttm_throttle_periods, hard, soft);
	*hard = ms_to_ktime(READ_ONCE(ttm_throttle_hard_ms));
	*soft = ms_to_ktime(READ_ONCE(ttm_throttle_soft_ms));
}
EXPORT_SYMBOL_IF_KUNIT(ttm_throttle_periods);

/* The periods apply as they are now, so that a change takes effect at once. */
static enum ttm_throttle_state ttm_throttle_state_at(struct ttm_throttle *throttle,
						     ktime_t now)
{
	ktime_t evicted_at = atomic64_read(&throttle->evicted_at);
	ktime_t hard, soft, since;

	if (!evicted_at)
		return TTM_THROTTLE_NORMAL;

	ttm_throttle_periods(&hard, &soft);
	since = ktime_sub(now, evicted_at);
	if (since < hard)
		return TTM_THROTTLE_HARD;
	if (since < ktime_add(hard, soft))
		return TTM_THROTTLE_SOFT;
	return TTM_THROTTLE_NORMAL;
}

/*
 * Reports each change of the client's state once, while the tracepoint is
 * on. Changes are seen when TTM next looks, at an eviction or a validation.
 */
static enum ttm_throttle_state ttm_throttle_report(struct ttm_throttle *throttle,
						   enum ttm_throttle_state state)
{
	enum ttm_throttle_state old;

	if (!trace_ttm_throttle_enabled() ||
	    atomic_read(&throttle->state) == state)
		return state;

	old = atomic_xchg(&throttle->state, state);
	if (old != state)
		trace_ttm_throttle(throttle->client_id, old, state);
	return state;
}

/**
 * ttm_throttle_init - initialise a client's throttle
 * @throttle: The throttle.
 * @bulk: The client's LRU bulk move, through which eviction finds the
 *	throttle of a buffer's owner.
 * @client_id: The client's DRM client id, for tracepoints.
 *
 * The client starts unthrottled. Call this after ttm_lru_bulk_move_init(),
 * and before any buffer joins @bulk or with the reservation the buffers of
 * @bulk share held: eviction looks the throttle up under that reservation.
 */
void ttm_throttle_init(struct ttm_throttle *throttle,
		       struct ttm_lru_bulk_move *bulk, u64 client_id)
{
	throttle->client_id = client_id;
	atomic64_set(&throttle->evicted_at, 0);
	atomic_set(&throttle->state, TTM_THROTTLE_NORMAL);
	bulk->throttle = throttle;
}
EXPORT_SYMBOL(ttm_throttle_init);

/**
 * ttm_throttle_get_state - the throttle state of a client now
 * @throttle: The client's throttle, or NULL for none.
 *
 * Return: The state; %TTM_THROTTLE_NORMAL without a throttle.
 */
enum ttm_throttle_state ttm_throttle_get_state(struct ttm_throttle *throttle)
{
	if (!throttle)
		return TTM_THROTTLE_NORMAL;

	return ttm_throttle_report(throttle,
				   ttm_throttle_state_at(throttle,
							 ttm_throttle_now()));
}
EXPORT_SYMBOL(ttm_throttle_get_state);

/**
 * ttm_throttle_evicted - start the throttle sequence of a client
 * @throttle: The throttle of the client whose memory was evicted.
 *
 * Called by TTM when eviction made room for someone else with the
 * client's memory. Restarts the sequence at hard throttle.
 */
void ttm_throttle_evicted(struct ttm_throttle *throttle)
{
	ktime_t now = ttm_throttle_now();

	atomic64_set(&throttle->evicted_at, now);
	ttm_throttle_report(throttle, ttm_throttle_state_at(throttle, now));
}
EXPORT_SYMBOL_IF_KUNIT(ttm_throttle_evicted);
