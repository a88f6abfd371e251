// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The ttm trace system's events, defined once for the module.
 */

/**
 * DOC: Tracepoints
 *
 * The ``ttm`` trace system tells who evicted whom and how often a buffer
 * crossed the bus, which totals in fdinfo cannot. Memory types print by
 * name (system, tt, vram, priv) or, for a driver's own types, by number.
 * Clients are named by the id their driver gave ttm_throttle_init(), the
 * DRM client id fdinfo shows as ``drm-client-id``; 0 stands for a buffer
 * outside any throttled client's bulk move, or for the kernel.
 *
 * - ``ttm_bo_evict``: a move that TTM makes to evict a buffer: to make
 *   room, for suspend, or to system memory before the shrinker swaps the
 *   buffer out. The first leg of an eviction that needs a bounce shows as
 *   ``ttm_bo_move``.
 * - ``ttm_bo_move``: every other move: for a validation, or a driver's
 *   own.
 * - ``ttm_bo_throttle_keep``: hard throttle kept a buffer in a fallback
 *   placement, though its placement prefers another memory type.
 * - ``ttm_throttle_start``: eviction that made room for a validation took
 *   a client's memory for another (``evicted_by``), moving it or freeing
 *   it, and the client's throttle restarted at hard.
 * - ``ttm_bo_validate_fail``: ttm_bo_validate() failed, with the errno and
 *   the throttle state of the client validating as the event fires. A
 *   back-off (-EDEADLK) or a signal is not a failure and is not reported.
 * - ``ttm_evict_window``: a contiguous allocation found no room, and its
 *   manager chose the range of ``size`` bytes at ``start`` to free; the
 *   buffers in it weigh ``cost`` (bytes, weighted by priority and
 *   residency level). Eviction then takes only buffers in that range.
 *
 * The first three share one event class. For example::
 *
 *	# echo 1 > /sys/kernel/tracing/events/ttm/enable
 *	# cat /sys/kernel/tracing/trace_pipe
 *	ttm_bo_evict: bo=... size=50331648 vram->tt client=12
 *	ttm_throttle_start: client=12 evicted_by=14
 *	ttm_bo_move: bo=... size=50331648 system->vram client=14
 *
 * While disabled, the events cost their static branches.
 */

#define CREATE_TRACE_POINTS
#include "ttm_trace.h"
