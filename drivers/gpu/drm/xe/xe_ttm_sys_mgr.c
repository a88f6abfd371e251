// SPDX-License-Identifier: MIT
/*
 * Copyright © 2021-2022 Intel Corporation
 * Copyright (C) 2021-2022 Red Hat
 */

#include "xe_ttm_sys_mgr.h"

#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_range_manager.h>
#include <drm/ttm/ttm_tt.h>

#include "xe_bo.h"
#include "xe_device.h"
#include "xe_dma_buf.h"

/**
 * struct xe_ttm_sys_node - A resource of the system manager
 * @tbo: The BO it was allocated for.
 * @peer_import: Whether it imports a peer's VRAM; see
 *	xe_ttm_sys_mgr_is_peer_import().
 * @base: The range manager node, whose base is the resource.
 */
struct xe_ttm_sys_node {
	struct ttm_buffer_object *tbo;
	bool peer_import;
	struct ttm_range_mgr_node base;
};

static inline const struct xe_ttm_sys_node *
to_xe_ttm_sys_node(const struct ttm_resource *res)
{
	return container_of_const(res, struct xe_ttm_sys_node, base.base);
}

/*
 * The budget stands for host memory. An import of a peer's VRAM takes none,
 * so it is counted apart, and TTM's usage of the manager, which counts both,
 * is not what the budget checks.
 */
static atomic64_t *xe_ttm_sys_node_counter(struct xe_device *xe,
					   const struct xe_ttm_sys_node *node)
{
	return node->peer_import ? &xe->mem.sys_peer_import_bytes :
		&xe->mem.sys_used_bytes;
}

static int xe_ttm_sys_mgr_new(struct ttm_resource_manager *man,
			      struct ttm_buffer_object *tbo,
			      const struct ttm_place *place,
			      struct ttm_resource **res)
{
	struct xe_device *xe = ttm_to_xe_device(tbo->bdev);
	struct xe_ttm_sys_node *node;
	atomic64_t *counter;
	u64 used;
	int r;

	node = kzalloc_flex(*node, base.mm_nodes, 1);
	if (!node)
		return -ENOMEM;

	node->tbo = tbo;
	node->peer_import = tbo->type == ttm_bo_type_sg &&
		xe_dma_buf_is_peer_vram(ttm_to_xe_bo(tbo));
	ttm_resource_init(tbo, place, &node->base.base);

	counter = xe_ttm_sys_node_counter(xe, node);
	used = atomic64_add_return(node->base.base.size, counter);
	if (!node->peer_import && !(place->flags & TTM_PL_FLAG_TEMPORARY) &&
	    used > (man->size << PAGE_SHIFT)) {
		atomic64_sub(node->base.base.size, counter);
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
	const struct xe_ttm_sys_node *node = to_xe_ttm_sys_node(res);
	struct xe_device *xe = container_of(man, struct xe_device, mem.sys_mgr);

	atomic64_sub(res->size, xe_ttm_sys_node_counter(xe, node));
	ttm_resource_fini(man, res);
	kfree(node);
}

/**
 * xe_ttm_sys_mgr_used() - What the system manager charged to its budget
 * @xe: The device.
 *
 * Return: Bytes of XE_PL_TT resources that count against the budget: all
 * but imports of a peer's VRAM.
 */
u64 xe_ttm_sys_mgr_used(struct xe_device *xe)
{
	return atomic64_read(&xe->mem.sys_used_bytes);
}

/**
 * xe_ttm_sys_mgr_is_peer_import() - Whether a resource imports peer VRAM
 * @res: A resource, or NULL.
 *
 * Decided when the resource was allocated, by xe_dma_buf_is_peer_vram().
 * Such a resource holds neither host memory nor GTT budget: the budget,
 * eviction from TT and fdinfo's resident memory leave it out.
 *
 * Return: true if @res is in XE_PL_TT for an import of a peer's VRAM.
 */
bool xe_ttm_sys_mgr_is_peer_import(const struct ttm_resource *res)
{
	return res && res->mem_type == XE_PL_TT &&
		to_xe_ttm_sys_node(res)->peer_import;
}

static void xe_ttm_sys_mgr_debug(struct ttm_resource_manager *man,
				 struct drm_printer *printer)
{
	struct xe_device *xe = container_of(man, struct xe_device, mem.sys_mgr);

	/*
	 * This function is called by debugfs entry and would require
	 * pm_runtime_{get,put} wrappers around any operation on the hardware;
	 * the counters are plain memory.
	 */
	drm_printf(printer, "budget used: %llu, peer imports: %llu\n",
		   xe_ttm_sys_mgr_used(xe),
		   (u64)atomic64_read(&xe->mem.sys_peer_import_bytes));
}

static const struct ttm_resource_manager_func xe_ttm_sys_mgr_func = {
	.alloc = xe_ttm_sys_mgr_new,
	.free = xe_ttm_sys_mgr_del,
	.debug = xe_ttm_sys_mgr_debug
};

static void xe_ttm_sys_mgr_fini(struct drm_device *drm, void *arg)
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
	/* Potentially restrict amount of TT memory here. */
	gtt_size = (u64)si.totalram * si.mem_unit;

	man->use_tt = true;
	man->func = &xe_ttm_sys_mgr_func;
	ttm_resource_manager_init(man, &xe->ttm, gtt_size >> PAGE_SHIFT);
	ttm_set_driver_manager(&xe->ttm, XE_PL_TT, man);
	ttm_resource_manager_set_used(man, true);
	return drmm_add_action_or_reset(&xe->drm, xe_ttm_sys_mgr_fini, xe);
}
