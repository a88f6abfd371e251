/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Tracepoints of TTM: moves, evictions, eviction throttling, failed
 * validations and eviction windows.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ttm

#if !defined(_TTM_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _TTM_TRACE_H_

#include <linux/tracepoint.h>

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_throttle.h>

#include "ttm_bo_internal.h"

#define ttm_show_mem_type(type)					\
	__print_symbolic(type,					\
			 { TTM_PL_SYSTEM, "system" },		\
			 { TTM_PL_TT, "tt" },			\
			 { TTM_PL_VRAM, "vram" },		\
			 { TTM_PL_PRIV, "priv" })

#define ttm_show_throttle_state(state)				\
	__print_symbolic(state,					\
			 { TTM_THROTTLE_NORMAL, "normal" },	\
			 { TTM_THROTTLE_SOFT, "soft" },		\
			 { TTM_THROTTLE_HARD, "hard" })

#ifndef _TTM_TRACE_CLIENT_
#define _TTM_TRACE_CLIENT_
/* The DRM client id of a throttle's client; 0 for none. */
static inline u64 ttm_trace_client(struct ttm_throttle *throttle)
{
	return throttle ? throttle->client_id : 0;
}
#endif

DECLARE_EVENT_CLASS(ttm_bo_placement,
		    TP_PROTO(struct ttm_buffer_object *bo, u32 from, u32 to),
		    TP_ARGS(bo, from, to),
		    TP_STRUCT__entry(__field(const void *, bo)
				     __field(u64, size)
				     __field(u32, from)
				     __field(u32, to)
				     __field(u64, client)),
		    TP_fast_assign(__entry->bo = bo;
				   __entry->size = bo->base.size;
				   __entry->from = from;
				   __entry->to = to;
				   __entry->client =
					ttm_trace_client(ttm_bo_owner_throttle(bo));),
		    TP_printk("bo=%p size=%llu %s->%s client=%llu",
			      __entry->bo, __entry->size,
			      ttm_show_mem_type(__entry->from),
			      ttm_show_mem_type(__entry->to), __entry->client)
);

/* Any move but an eviction's: for a validation, or a driver's own. */
DEFINE_EVENT(ttm_bo_placement, ttm_bo_move,
	     TP_PROTO(struct ttm_buffer_object *bo, u32 from, u32 to),
	     TP_ARGS(bo, from, to)
);

/* A move TTM makes to evict a buffer: for room, suspend or swap-out. */
DEFINE_EVENT(ttm_bo_placement, ttm_bo_evict,
	     TP_PROTO(struct ttm_buffer_object *bo, u32 from, u32 to),
	     TP_ARGS(bo, from, to)
);

/* Hard throttle kept a buffer in @from, a fallback, though it prefers @to. */
DEFINE_EVENT(ttm_bo_placement, ttm_bo_throttle_keep,
	     TP_PROTO(struct ttm_buffer_object *bo, u32 from, u32 to),
	     TP_ARGS(bo, from, to)
);

TRACE_EVENT(ttm_throttle_start,
	    TP_PROTO(struct ttm_throttle *victim, struct ttm_throttle *evictor),
	    TP_ARGS(victim, evictor),
	    TP_STRUCT__entry(__field(u64, victim)
			     __field(u64, evictor)),
	    TP_fast_assign(__entry->victim = ttm_trace_client(victim);
			   __entry->evictor = ttm_trace_client(evictor);),
	    TP_printk("client=%llu evicted_by=%llu", __entry->victim,
		      __entry->evictor)
);

TRACE_EVENT(ttm_bo_validate_fail,
	    TP_PROTO(struct ttm_buffer_object *bo,
		     struct ttm_operation_ctx *ctx, int err),
	    TP_ARGS(bo, ctx, err),
	    TP_STRUCT__entry(__field(const void *, bo)
			     __field(u64, size)
			     __field(int, err)
			     __field(u64, client)
			     __field(u32, state)),
	    TP_fast_assign(__entry->bo = bo;
			   __entry->size = bo->base.size;
			   __entry->err = err;
			   __entry->client = ttm_trace_client(ctx->throttle);
			   __entry->state =
				ttm_throttle_get_state(ctx->throttle);),
	    TP_printk("bo=%p size=%llu err=%d client=%llu throttle=%s",
		      __entry->bo, __entry->size, __entry->err,
		      __entry->client,
		      ttm_show_throttle_state(__entry->state))
);

TRACE_EVENT(ttm_evict_window,
	    TP_PROTO(struct ttm_buffer_object *bo, u32 mem_type, u64 start,
		     u64 size, u64 cost),
	    TP_ARGS(bo, mem_type, start, size, cost),
	    TP_STRUCT__entry(__field(const void *, bo)
			     __field(u32, mem_type)
			     __field(u64, start)
			     __field(u64, size)
			     __field(u64, cost)),
	    TP_fast_assign(__entry->bo = bo;
			   __entry->mem_type = mem_type;
			   __entry->start = start;
			   __entry->size = size;
			   __entry->cost = cost;),
	    TP_printk("bo=%p %s start=0x%llx size=%llu cost=%llu",
		      __entry->bo, ttm_show_mem_type(__entry->mem_type),
		      __entry->start, __entry->size, __entry->cost)
);

#endif /* _TTM_TRACE_H_ */

/* This part must be outside protection; the Makefile adds -I$(src). */
#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE ttm_trace
#include <trace/define_trace.h>
