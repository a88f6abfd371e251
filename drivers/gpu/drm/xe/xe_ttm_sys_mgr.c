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
	/* Imports a peer's device memory: no host memory behind it. */
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
 * The budget stands for host memory, so imports of a peer's device memory
 * do not count.
 *
 * Return: the bytes in use.
 */
u64 xe_ttm_sys_mgr_usage(struct ttm_resource_manager *man)
{
	s64 usage = ttm_resource_manager_usage(man) -
		    atomic64_read(&sys_mgr_to_xe(man)->mem.sys_peer_usage);

	/* The two counters are read apart: never report less than nothing. */
	return max_t(s64, usage, 0);
}

/**
 * xe_ttm_sys_mgr_set_peer() - say whether a GTT resource imports peer memory
 * @res: a resource of xe's system TTM manager
 * @peer: whether it imports a peer's device memory
 *
 * Allocation takes a guess for imports that were never mapped. Moving the
 * import maps it, and the mapping tells what it really is.
 */
void xe_ttm_sys_mgr_set_peer(struct ttm_resource *res, bool peer)
{
	struct xe_ttm_sys_node *node = to_xe_ttm_sys_node(res);
	struct xe_device *xe = ttm_to_xe_device(node->tbo->bdev);
	s64 size = res->size;

	if (node->peer == peer)
		return;

	node->peer = peer;
	atomic64_add(peer ? size : -size, &xe->mem.sys_peer_usage);
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
	xe_ttm_sys_mgr_set_peer(&node->base.base,
				xe_dma_buf_is_peer_import(tbo));

	if (!node->peer && !(place->flags & TTM_PL_FLAG_TEMPORARY) &&
	    xe_ttm_sys_mgr_usage(man) > (man->size << PAGE_SHIFT)) {
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

	xe_ttm_sys_mgr_set_peer(res, false);
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
	atomic64_set(&xe->mem.sys_peer_usage, 0);
	ttm_resource_manager_init(man, &xe->ttm, gtt_size >> PAGE_SHIFT);
	ttm_set_driver_manager(&xe->ttm, XE_PL_TT, man);
	ttm_resource_manager_set_used(man, true);
	return drmm_add_action_or_reset(&xe->drm, ttm_sys_mgr_fini, xe);
}
