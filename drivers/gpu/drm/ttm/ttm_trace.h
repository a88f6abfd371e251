/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TTM tracepoints: buffer moves, evictions, throttle states, failed
 * validations and eviction windows, for a timeline of memory traffic in
 * perf or trace-cmd.
 */
#if !defined(_TTM_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _TTM_TRACE_H_

#include <linux/tracepoint.h>
#include <linux/types.h>

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_throttle.h>

#undef TRACE_SYSTEM
#define TRACE_SYSTEM ttm
#define TRACE_INCLUDE_FILE ttm_trace

/* A BO had no resource: the "from" of its first move. */
#define TTM_TRACE_NO_MEM	-1

TRACE_DEFINE_ENUM(TTM_THROTTLE_NORMAL);
TRACE_DEFINE_ENUM(TTM_THROTTLE_SOFT);
TRACE_DEFINE_ENUM(TTM_THROTTLE_HARD);

#define ttm_throttle_state_name(state)				\
	__print_symbolic(state,						\
			 { TTM_THROTTLE_NORMAL, "normal" },		\
			 { TTM_THROTTLE_SOFT, "soft" },			\
			 { TTM_THROTTLE_HARD, "hard" })

TRACE_EVENT(ttm_bo_move,
	    TP_PROTO(struct ttm_buffer_object *bo, int from, int to,
		     bool evict, u64 client),
	    TP_ARGS(bo, from, to, evict, client),
	    TP_STRUCT__entry(__field(const void *, bo)
			     __field(u64, size)
			     __field(int, from)
			     __field(int, to)
			     __field(bool, evict)
			     __field(u64, client)
	    ),
	    TP_fast_assign(__entry->bo = bo;
			   __entry->size = bo->base.size;
			   __entry->from = from;
			   __entry->to = to;
			   __entry->evict = evict;
			   __entry->client = client;
	    ),
	    TP_printk("bo=%p size=%llu from=%d to=%d evict=%d client=%llu",
		      __entry->bo, __entry->size, __entry->from, __entry->to,
		      __entry->evict, __entry->client)
);

TRACE_EVENT(ttm_bo_evict,
	    TP_PROTO(struct ttm_buffer_object *bo, int from, int to,
		     u64 evictor, u64 victim, bool below_low),
	    TP_ARGS(bo, from, to, evictor, victim, below_low),
	    TP_STRUCT__entry(__field(const void *, bo)
			     __field(u64, size)
			     __field(int, from)
			     __field(int, to)
			     __field(u64, evictor)
			     __field(u64, victim)
			     __field(bool, below_low)
	    ),
	    TP_fast_assign(__entry->bo = bo;
			   __entry->size = bo->base.size;
			   __entry->from = from;
			   __entry->to = to;
			   __entry->evictor = evictor;
			   __entry->victim = victim;
			   __entry->below_low = below_low;
	    ),
	    TP_printk("bo=%p size=%llu from=%d to=%d evictor=%llu victim=%llu below_low=%d",
		      __entry->bo, __entry->size, __entry->from, __entry->to,
		      __entry->evictor, __entry->victim, __entry->below_low)
);

TRACE_EVENT(ttm_throttle,
	    TP_PROTO(u64 client, int old_state, int new_state),
	    TP_ARGS(client, old_state, new_state),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(int, old_state)
			     __field(int, new_state)
	    ),
	    TP_fast_assign(__entry->client = client;
			   __entry->old_state = old_state;
			   __entry->new_state = new_state;
	    ),
	    TP_printk("client=%llu %s -> %s", __entry->client,
		      ttm_throttle_state_name(__entry->old_state),
		      ttm_throttle_state_name(__entry->new_state))
);

TRACE_EVENT(ttm_bo_validate_fail,
	    TP_PROTO(struct ttm_buffer_object *bo, u64 client, int err),
	    TP_ARGS(bo, client, err),
	    TP_STRUCT__entry(__field(const void *, bo)
			     __field(u64, size)
			     __field(int, from)
			     __field(u64, client)
			     __field(int, err)
	    ),
	    TP_fast_assign(__entry->bo = bo;
			   __entry->size = bo->base.size;
			   __entry->from = bo->resource ? bo->resource->mem_type :
				    TTM_TRACE_NO_MEM;
			   __entry->client = client;
			   __entry->err = err;
	    ),
	    TP_printk("bo=%p size=%llu from=%d client=%llu err=%d",
		      __entry->bo, __entry->size, __entry->from,
		      __entry->client, __entry->err)
);

/*
 * The window chosen for a contiguous allocation: @evict bytes of resources
 * intersect it, where eviction in LRU order would have taken @lru_evict
 * bytes (0: it would free no window).
 */
TRACE_EVENT(ttm_evict_window,
	    TP_PROTO(struct ttm_buffer_object *bo, int mem_type, u64 start,
		     u64 size, u64 evict, u64 lru_evict),
	    TP_ARGS(bo, mem_type, start, size, evict, lru_evict),
	    TP_STRUCT__entry(__field(const void *, bo)
			     __field(int, mem_type)
			     __field(u64, start)
			     __field(u64, size)
			     __field(u64, evict)
			     __field(u64, lru_evict)
	    ),
	    TP_fast_assign(__entry->bo = bo;
			   __entry->mem_type = mem_type;
			   __entry->start = start;
			   __entry->size = size;
			   __entry->evict = evict;
			   __entry->lru_evict = lru_evict;
	    ),
	    TP_printk("bo=%p mem_type=%d start=0x%llx size=%llu evict=%llu lru_evict=%llu",
		      __entry->bo, __entry->mem_type, __entry->start,
		      __entry->size, __entry->evict, __entry->lru_evict)
);

#endif /* _TTM_TRACE_H_ */

/* This part must be outside protection */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#include <trace/define_trace.h>
