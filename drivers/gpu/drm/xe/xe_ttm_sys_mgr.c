// SPDX-License-Identifier: MIT
/*
 * Copyright © 2021-2022 Intel Corporation
 * Copyright (C) 2021-2002 Red Hat
 */

#include "xe_ttm_sys_mgr.h"

#include <drm/drm_managed.h>

#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_range_manager.h>
#include <drm/ttm/ttm_tt.h>

#include "xe_bo.h"
#include "xe_device.h"
#include "xe_dma_buf.h"
#include "xe_gt.h"

struct xe_ttm_sys_node {
	struct ttm_buffer_object *tbo;
	/* Imports a peer's VRAM: counted apart from the budget. */
	bool peer;
	struct ttm_range_mgr_node base;
};

static inline struct xe_ttm_sys_node *
to_xe_ttm_sys_node(struct ttm_resource *res)
{
	return container_of(res, struct xe_ttm_sys_node, base.base);
}

static struct xe_device *sys_mgr_to_xe(struct ttm_resource_manager *man)
{
	return container_of(man, struct xe_device, mem.sys_mgr);
}

/**
 * xe_ttm_sys_mgr_usage() - the part of the GTT budget in use
 * @man: xe's system TTM manager
 *
 * The budget stands for host memory, so imports of a peer's VRAM do not
 * count. TTM's own usage of @man still includes them.
 *
 * Return: the bytes in use.
 */
u64 xe_ttm_sys_mgr_usage(struct ttm_resource_manager *man)
{
	return atomic64_read(&sys_mgr_to_xe(man)->mem.sys_used);
}

/**
 * xe_ttm_sys_mgr_is_peer() - whether a resource imports a peer's VRAM
 * @res: a resource of any xe memory type
 *
 * Return: true if @res is a GTT resource of an import of a peer's VRAM.
 */
bool xe_ttm_sys_mgr_is_peer(const struct ttm_resource *res)
{
	return res->mem_type == XE_PL_TT &&
	       container_of_const(res, struct xe_ttm_sys_node, base.base)->peer;
}

/**
 * xe_ttm_sys_mgr_set_peer() - settle whether a GTT resource imports peer VRAM
 * @res: a resource of xe's system TTM manager
 * @peer: whether the mapping made for it hands out a peer's VRAM
 *
 * The decision at allocation forecasts the map that follows. Once mapped,
 * the exporter has chosen, and the resource moves between the counters if
 * the forecast was wrong. It is not checked against the budget then: the
 * pages behind it, if any, are the exporter's.
 */
void xe_ttm_sys_mgr_set_peer(struct ttm_resource *res, bool peer)
{
	struct xe_ttm_sys_node *node = to_xe_ttm_sys_node(res);
	struct xe_device *xe = ttm_to_xe_device(node->tbo->bdev);

	if (node->peer == peer)
		return;

	node->peer = peer;
	atomic64_add(res->size, peer ? &xe->mem.sys_peer : &xe->mem.sys_used);
	atomic64_sub(res->size, peer ? &xe->mem.sys_used : &xe->mem.sys_peer);
}

/* Count @size against the budget, unless @check and it does not fit. */
static bool xe_ttm_sys_mgr_charge(struct ttm_resource_manager *man, u64 size,
				  bool check)
{
	atomic64_t *used = &sys_mgr_to_xe(man)->mem.sys_used;

	if (atomic64_add_return(size, used) > (man->size << PAGE_SHIFT) &&
	    check) {
		atomic64_sub(size, used);
		return false;
	}

	return true;
}

static int xe_ttm_sys_mgr_new(struct ttm_resource_manager *man,
			      struct ttm_buffer_object *tbo,
			      const struct ttm_place *place,
			      struct ttm_resource **res)
{
	struct xe_ttm_sys_node *node;
	int r;

	node = kzalloc(struct_size(node, base.mm_nodes, 1), GFP_KERNEL);
	if (!node)
		return -ENOMEM;

	node->tbo = tbo;
	ttm_resource_init(tbo, place, &node->base.base);

	node->peer = xe_dma_buf_import_is_peer(tbo);
	if (node->peer) {
		atomic64_add(tbo->base.size, &sys_mgr_to_xe(man)->mem.sys_peer);
	} else if (!xe_ttm_sys_mgr_charge(man, tbo->base.size,
					  !(place->flags & TTM_PL_FLAG_TEMPORARY))) {
		r = -ENOSPC;
		goto err_fini;
	}

	node->base.mm_nodes[0].start = 0;
	node->base.mm_nodes[0].size = PFN_UP(node->base.base.size);
	node->base.base.start = XE_BO_INVALID_OFFSET;

	*res = &node->base.base;

	return 0;

err_fini:
	ttm_resource_fini(man, &node->base.base);
	kfree(node);
	return r;
}

static void xe_ttm_sys_mgr_del(struct ttm_resource_manager *man,
			       struct ttm_resource *res)
{
	struct xe_ttm_sys_node *node = to_xe_ttm_sys_node(res);
	struct xe_device *xe = sys_mgr_to_xe(man);

	atomic64_sub(res->size, node->peer ? &xe->mem.sys_peer :
					     &xe->mem.sys_used);
	ttm_resource_fini(man, res);
	kfree(node);
}

static void xe_ttm_sys_mgr_debug(struct ttm_resource_manager *man,
				 struct drm_printer *printer)
{
	/*
	 * This function is called by debugfs entry and would require
	 * pm_runtime_{get,put} wrappers around any operation.
	 */
}

static const struct ttm_resource_manager_func xe_ttm_sys_mgr_func = {
	.alloc = xe_ttm_sys_mgr_new,
	.free = xe_ttm_sys_mgr_del,
	.debug = xe_ttm_sys_mgr_debug
};

static void ttm_sys_mgr_fini(struct drm_device *drm, void *arg)
{
	struct xe_device *xe = (struct xe_device *)arg;
	struct ttm_resource_manager *man = &xe->mem.sys_mgr;
	int err;

	ttm_resource_manager_set_used(man, false);

	err = ttm_resource_manager_evict_all(&xe->ttm, man);
	if (err)
		return;

	ttm_resource_manager_cleanup(man);
	ttm_set_driver_manager(&xe->ttm, XE_PL_TT, NULL);
}

int xe_ttm_sys_mgr_init(struct xe_device *xe)
{
	struct ttm_resource_manager *man = &xe->mem.sys_mgr;
	struct sysinfo si;
	u64 gtt_size;

	si_meminfo(&si);
	gtt_size = (u64)si.totalram * si.mem_unit;
	/* TTM limits allocation of all TTM devices by 50% of system memory */
	gtt_size /= 2;

	man->use_tt = true;
	man->func = &xe_ttm_sys_mgr_func;
	atomic64_set(&xe->mem.sys_used, 0);
	atomic64_set(&xe->mem.sys_peer, 0);
	ttm_resource_manager_init(man, &xe->ttm, gtt_size >> PAGE_SHIFT);
	ttm_set_driver_manager(&xe->ttm, XE_PL_TT, man);
	ttm_resource_manager_set_used(man, true);
	return drmm_add_action_or_reset(&xe->drm, ttm_sys_mgr_fini, xe);
}
