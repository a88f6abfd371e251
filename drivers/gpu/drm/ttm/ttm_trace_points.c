// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * TTM tracepoints: the one place they are created.
 */

/**
 * DOC: Tracing memory traffic
 *
 * The ``ttm`` trace system shows where a device's memory goes, one event
 * per decision, so that gpuvis, perf or trace-cmd can draw a timeline of
 * moves and find ping-pong:
 *
 * ttm_bo_move
 *	A buffer object moved: ``from`` and ``to`` are TTM memory types
 *	(0 system, 1 TT, 2 VRAM, drivers' own types above; -1 for a first
 *	placement), ``evict`` tells an eviction, ``client`` the owner's.
 * ttm_bo_evict
 *	Eviction made room for someone: ``evictor`` is the client validating,
 *	``victim`` the owner of the buffer, and ``below_low`` tells that the
 *	memory was within its cgroup's dmem.low protection, which only the
 *	pass of last resort of an unthrottled client takes. An evictor in
 *	throttle with ``below_low=1`` is a bug.
 * ttm_throttle
 *	A client's throttle state changed, as TTM saw it at its next
 *	eviction or validation.
 * ttm_bo_validate_fail
 *	ttm_bo_validate() failed for the client validating, with the errno;
 *	-EDEADLK and -ERESTARTSYS are retried by the caller.
 * ttm_evict_window
 *	A contiguous allocation found no room, and eviction chose the window
 *	at ``start`` of ``size`` bytes in memory type ``mem_type``: ``evict``
 *	bytes of buffers lie in it, where eviction in LRU order would have
 *	taken ``lru_evict`` bytes (0: no window would have come free). With
 *	``ttm.evict_window=0`` the event still shows the window, but eviction
 *	ignores it.
 *
 * Clients are the ids drivers give ttm_throttle_init(), the DRM client ids
 * of fdinfo; 0 is a client without a throttle, the kernel, or the owner of
 * a buffer outside any bulk move, such as one shared between clients. For
 * example, to record a game running beside its compositor::
 *
 *	# trace-cmd record -e ttm:ttm_bo_evict -e ttm:ttm_throttle \
 *		-e ttm:ttm_bo_move -- ./game
 *	# trace-cmd report
 *	game-2210 [001] 812.421590: ttm_bo_evict: bo=... size=8388608
 *		from=2 to=0 evictor=7 victim=5 below_low=0
 *	game-2210 [001] 812.421597: ttm_throttle: client=5 normal -> hard
 *
 * or live, with ``perf trace -e 'ttm:*'``.
 */

#define CREATE_TRACE_POINTS
#include "ttm_trace.h"
