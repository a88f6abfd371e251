// SPDX-License-Identifier: MIT
/*
 * Copyright © 2022 Intel Corporation
 */

#include "xe_dma_buf.h"

#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/dma-buf.h>
#include <linux/pci-p2pdma.h>

#include <drm/drm_device.h>
#include <drm/drm_prime.h>
#include <drm/ttm/ttm_tt.h>

#include "tests/xe_test.h"
#include "xe_bo.h"
#include "xe_device.h"
#include "xe_module.h"
#include "xe_pm.h"
#include "xe_ttm_vram_mgr.h"
#include "xe_vm.h"

MODULE_IMPORT_NS(DMA_BUF);

/**
 * DOC: Peer-to-peer dma-bufs
 *
 * When one GPU's VRAM is made resident on another, the exporter hands the
 * importer bus addresses of its VRAM, and the importer's GPU reads them
 * directly over PCIe. Neither side needs host memory for that, and xe
 * takes none:
 *
 * - **Importer.** An import is an sg BO placed in TT. It owns no pages.
 *   When its exporter is xe and maps it from VRAM for a peer-to-peer
 *   attachment, the import takes no GTT budget, TTM does not evict it to
 *   make room in TT, and fdinfo reports it as shared, not as resident.
 *   The decision is taken with the reservation the import shares with its
 *   exporter held, before the map and again once it is made. Imports from
 *   other drivers, whose mappings an importer may not look into, and
 *   imports of system memory count as before.
 *
 * - **Exporter.** Without ``CONFIG_DMABUF_MOVE_NOTIFY`` every map pins, and
 *   with it, some importers pin explicitly. A BO that lies in VRAM is
 *   pinned there when every attachment is peer-to-peer and the VRAM is
 *   shareable: all of it inside the BAR, without flat CCS state, and
 *   within the share of VRAM that peers may keep pinned,
 *   ``xe.peer_pin_vram_percent`` (50 by default, 0 keeps every pin in
 *   TT). Otherwise it is pinned in TT, as before. An importer that is not
 *   a peer cannot use a BO pinned in VRAM: its pin fails with -EINVAL, or,
 *   if it maps without pinning, its map with -EBUSY. Peers read the VRAM
 *   as it is: what a compressing PAT index wrote reaches them compressed.
 *   Across suspend such a BO keeps its VRAM, and its contents wait in a
 *   backup in system memory. Nothing stops peers from accessing it while
 *   the exporter suspends, so they must be idle then.
 *
 * - **Observability.** The debugfs file ``host_memory`` of each device
 *   shows the host memory TTM populated for it, the TT budget, what counts
 *   against it, the imports of peer VRAM that do not, and the VRAM pinned
 *   for peers.
 *
 * Peer-to-peer needs ``CONFIG_PCI_P2PDMA`` and a PCIe topology that
 * pci_p2pdma_distance() accepts. Where either is missing, attachments are
 * not peer-to-peer, and get system memory or, for BOs that can only live
 * in VRAM, fail to attach.
 */

static int xe_dma_buf_attach(struct dma_buf *dmabuf,
			     struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = attach->dmabuf->priv;

	if (attach->peer2peer &&
	    pci_p2pdma_distance(to_pci_dev(obj->dev->dev), attach->dev, false) < 0)
		attach->peer2peer = false;

	if (!attach->peer2peer && !xe_bo_can_migrate(gem_to_xe_bo(obj), XE_PL_TT))
		return -EOPNOTSUPP;

	xe_pm_runtime_get(to_xe_device(obj->dev));
	return 0;
}

static void xe_dma_buf_detach(struct dma_buf *dmabuf,
			      struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = attach->dmabuf->priv;

	xe_pm_runtime_put(to_xe_device(obj->dev));
}

/**
 * xe_dma_buf_all_peer2peer() - whether every importer of a dma-buf is a peer
 * @dmabuf: the dma-buf, with its reservation held
 *
 * Return: true if every attachment of @dmabuf is peer-to-peer.
 */
bool xe_dma_buf_all_peer2peer(struct dma_buf *dmabuf)
{
	struct dma_buf_attachment *attach;

	dma_resv_assert_held(dmabuf->resv);

	list_for_each_entry(attach, &dmabuf->attachments, node)
		if (!attach->peer2peer)
			return false;

	return true;
}
EXPORT_SYMBOL_IF_KUNIT(xe_dma_buf_all_peer2peer);

/**
 * xe_dma_buf_pin_mem_type() - where to pin an exported BO for its importers
 * @mem_type: where the BO is
 * @pinned: whether the BO is pinned already
 * @all_peer2peer: whether every attachment is peer-to-peer
 * @vram_shareable: whether the BO may stay where it is in VRAM: peers can
 *	reach all of it through the BAR, and it has no flat CCS state
 *
 * A BO in VRAM stays there when every importer is a peer that can reach
 * it: moving it to TT would cost host memory of its size for nothing.
 * Anything else is pinned in TT, which every importer can use. A BO does
 * not move into VRAM to be pinned, and never leaves it while pinned.
 *
 * Return: the memory type to pin in, or -EINVAL if the BO is pinned in
 * VRAM and some importer cannot use it there.
 */
int xe_dma_buf_pin_mem_type(u32 mem_type, bool pinned, bool all_peer2peer,
			    bool vram_shareable)
{
	if (mem_type_is_vram(mem_type)) {
		if (all_peer2peer && vram_shareable)
			return mem_type;
		if (pinned)
			return -EINVAL;
	}

	return XE_PL_TT;
}
EXPORT_SYMBOL_IF_KUNIT(xe_dma_buf_pin_mem_type);

/**
 * xe_dma_buf_may_map_pinned() - whether an importer may map a pinned BO
 * @mem_type: where the BO is pinned
 * @peer2peer: whether the importer's attachment is peer-to-peer
 *
 * With CONFIG_DMABUF_MOVE_NOTIFY, dynamic importers map without pinning,
 * so they can find the BO pinned in VRAM for others. Only peers may have
 * it there.
 *
 * Return: true if the importer can use the BO where it is pinned.
 */
bool xe_dma_buf_may_map_pinned(u32 mem_type, bool peer2peer)
{
	return peer2peer || !mem_type_is_vram(mem_type);
}
EXPORT_SYMBOL_IF_KUNIT(xe_dma_buf_may_map_pinned);

/**
 * xe_dma_buf_peer_pin_fits() - whether peers may pin more VRAM
 * @pinned: bytes of VRAM pinned for peers already
 * @size: bytes to pin
 * @vram: bytes of VRAM of the device
 * @percent: the share of @vram that peers may pin, xe.peer_pin_vram_percent
 *
 * Return: true if @size more bytes stay within the share.
 */
bool xe_dma_buf_peer_pin_fits(u64 pinned, u64 size, u64 vram,
			      unsigned int percent)
{
	return pinned + size <= div_u64(vram * min(percent, 100U), 100);
}
EXPORT_SYMBOL_IF_KUNIT(xe_dma_buf_peer_pin_fits);

static bool xe_dma_buf_vram_shareable(struct xe_bo *bo)
{
	struct xe_device *xe = xe_bo_device(bo);
	struct ttm_resource *res = bo->ttm.resource;

	return xe_bo_is_vram(bo) && !xe_bo_needs_ccs_pages(bo) &&
	       to_xe_ttm_vram_mgr_resource(res)->used_visible_size >= res->size &&
	       (bo->external_pins ||
		xe_dma_buf_peer_pin_fits(atomic64_read(&xe->mem.peer_pinned),
					 bo->size, xe->mem.vram.actual_physical_size,
					 xe_modparam.peer_pin_vram_percent));
}

/* Where pinning for the importers of @dmabuf leaves its BO, or an error. */
static int xe_dma_buf_pin_target(struct dma_buf *dmabuf)
{
	struct xe_bo *bo = gem_to_xe_bo(dmabuf->priv);

	return xe_dma_buf_pin_mem_type(bo->ttm.resource->mem_type,
				       xe_bo_is_pinned(bo),
				       xe_dma_buf_all_peer2peer(dmabuf),
				       xe_dma_buf_vram_shareable(bo));
}

/* Count a first external pin in VRAM against the peers' share, or refuse. */
static bool xe_dma_buf_reserve_peer_pin(struct xe_bo *bo)
{
	struct xe_device *xe = xe_bo_device(bo);
	atomic64_t *pinned = &xe->mem.peer_pinned;
	u64 before;

	if (bo->external_pins)
		return true;

	before = atomic64_add_return(bo->size, pinned) - bo->size;
	if (!xe_dma_buf_peer_pin_fits(before, bo->size,
				      xe->mem.vram.actual_physical_size,
				      xe_modparam.peer_pin_vram_percent)) {
		atomic64_sub(bo->size, pinned);
		return false;
	}

	return true;
}

static int xe_dma_buf_pin(struct dma_buf_attachment *attach)
{
	struct dma_buf *dmabuf = attach->dmabuf;
	struct drm_gem_object *obj = dmabuf->priv;
	struct xe_bo *bo = gem_to_xe_bo(obj);
	struct xe_device *xe = xe_bo_device(bo);
	int mem_type, ret;

	mem_type = xe_dma_buf_pin_target(dmabuf);
	if (mem_type < 0) {
		drm_dbg(&xe->drm, "Can't migrate pinned bo for dma-buf pin.\n");
		return mem_type;
	}

	/* Others pinned the last of the peers' share meanwhile. */
	if (mem_type_is_vram(mem_type) && !xe_dma_buf_reserve_peer_pin(bo))
		mem_type = XE_PL_TT;

	ret = xe_bo_migrate(bo, mem_type, NULL);
	if (ret) {
		if (ret != -EINTR && ret != -ERESTARTSYS)
			drm_dbg(&xe->drm,
				"Failed migrating dma-buf for pinning: %pe\n",
				ERR_PTR(ret));
		return ret;
	}

	ret = xe_bo_pin_external(bo, true);
	xe_assert(xe, !ret);

	return 0;
}

static void xe_dma_buf_unpin(struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = attach->dmabuf->priv;
	struct xe_bo *bo = gem_to_xe_bo(obj);
	struct xe_device *xe = xe_bo_device(bo);

	if (bo->external_pins == 1 && xe_bo_is_vram(bo))
		atomic64_sub(bo->size, &xe->mem.peer_pinned);
	xe_bo_unpin_external(bo);
}

static struct sg_table *xe_dma_buf_map(struct dma_buf_attachment *attach,
				       enum dma_data_direction dir)
{
	struct dma_buf *dma_buf = attach->dmabuf;
	struct drm_gem_object *obj = dma_buf->priv;
	struct xe_bo *bo = gem_to_xe_bo(obj);
	struct sg_table *sgt;
	int r = 0;

	if (!attach->peer2peer && !xe_bo_can_migrate(bo, XE_PL_TT))
		return ERR_PTR(-EOPNOTSUPP);

	if (!xe_bo_is_pinned(bo)) {
		if (!attach->peer2peer)
			r = xe_bo_migrate(bo, XE_PL_TT, NULL);
		else
			r = xe_bo_validate(bo, NULL, false, NULL);
		if (r)
			return ERR_PTR(r);
	} else if (!xe_dma_buf_may_map_pinned(bo->ttm.resource->mem_type,
					      attach->peer2peer)) {
		return ERR_PTR(-EBUSY);
	}

	switch (bo->ttm.resource->mem_type) {
	case XE_PL_TT:
		sgt = drm_prime_pages_to_sg(obj->dev,
					    bo->ttm.ttm->pages,
					    obj->size >> PAGE_SHIFT);
		if (IS_ERR(sgt))
			return sgt;

		if (dma_map_sgtable(attach->dev, sgt, dir,
				    DMA_ATTR_SKIP_CPU_SYNC))
			goto error_free;
		break;

	case XE_PL_VRAM0:
	case XE_PL_VRAM1:
		r = xe_ttm_vram_mgr_alloc_sgt(xe_bo_device(bo),
					      bo->ttm.resource, 0,
					      bo->ttm.base.size, attach->dev,
					      dir, &sgt);
		if (r)
			return ERR_PTR(r);
		break;
	default:
		return ERR_PTR(-EINVAL);
	}

	return sgt;

error_free:
	sg_free_table(sgt);
	kfree(sgt);
	return ERR_PTR(-EBUSY);
}

static void xe_dma_buf_unmap(struct dma_buf_attachment *attach,
			     struct sg_table *sgt,
			     enum dma_data_direction dir)
{
	if (sg_page(sgt->sgl)) {
		dma_unmap_sgtable(attach->dev, sgt, dir, 0);
		sg_free_table(sgt);
		kfree(sgt);
	} else {
		xe_ttm_vram_mgr_free_sgt(attach->dev, dir, sgt);
	}
}

static int xe_dma_buf_begin_cpu_access(struct dma_buf *dma_buf,
				       enum dma_data_direction direction)
{
	struct drm_gem_object *obj = dma_buf->priv;
	struct xe_bo *bo = gem_to_xe_bo(obj);
	bool reads =  (direction == DMA_BIDIRECTIONAL ||
		       direction == DMA_FROM_DEVICE);

	if (!reads)
		return 0;

	/* Can we do interruptible lock here? */
	xe_bo_lock(bo, false);
	(void)xe_bo_migrate(bo, XE_PL_TT, NULL);
	xe_bo_unlock(bo);

	return 0;
}

static const struct dma_buf_ops xe_dmabuf_ops = {
	.attach = xe_dma_buf_attach,
	.detach = xe_dma_buf_detach,
	.pin = xe_dma_buf_pin,
	.unpin = xe_dma_buf_unpin,
	.map_dma_buf = xe_dma_buf_map,
	.unmap_dma_buf = xe_dma_buf_unmap,
	.release = drm_gem_dmabuf_release,
	.begin_cpu_access = xe_dma_buf_begin_cpu_access,
	.mmap = drm_gem_dmabuf_mmap,
	.vmap = drm_gem_dmabuf_vmap,
	.vunmap = drm_gem_dmabuf_vunmap,
};

struct dma_buf *xe_gem_prime_export(struct drm_gem_object *obj, int flags)
{
	struct xe_bo *bo = gem_to_xe_bo(obj);
	struct dma_buf *buf;

	if (bo->vm)
		return ERR_PTR(-EPERM);

	buf = drm_gem_prime_export(obj, flags);
	if (!IS_ERR(buf))
		buf->ops = &xe_dmabuf_ops;

	return buf;
}

static struct drm_gem_object *
xe_dma_buf_init_obj(struct drm_device *dev, struct xe_bo *storage,
		    struct dma_buf *dma_buf)
{
	struct dma_resv *resv = dma_buf->resv;
	struct xe_device *xe = to_xe_device(dev);
	struct xe_bo *bo;
	int ret;

	dma_resv_lock(resv, NULL);
	bo = xe_bo_init_locked(xe, storage, NULL, resv, NULL, dma_buf->size,
			       0, /* Will require 1way or 2way for vm_bind */
			       ttm_bo_type_sg, XE_BO_FLAG_SYSTEM, dma_buf,
			       NULL);
	if (IS_ERR(bo)) {
		ret = PTR_ERR(bo);
		goto error;
	}
	dma_resv_unlock(resv);

	return &bo->ttm.base;

error:
	dma_resv_unlock(resv);
	return ERR_PTR(ret);
}

/**
 * xe_dma_buf_import_uses_gtt() - whether an import counts against GTT
 * @source: where the memory behind the import comes from
 * @peer2peer: whether the import's attachment is peer-to-peer
 *
 * The GTT budget stands for host memory. An import of a peer's VRAM holds
 * none, so it does not count. What another driver hands out cannot be
 * told: importers must not look at the pages of a mapping. Such imports,
 * and imports of system memory, count as they always did.
 *
 * Return: true if the import counts against the importer's GTT budget.
 */
bool xe_dma_buf_import_uses_gtt(enum xe_dma_buf_source source,
				bool peer2peer)
{
	return source != XE_DMA_BUF_XE_VRAM || !peer2peer;
}
EXPORT_SYMBOL_IF_KUNIT(xe_dma_buf_import_uses_gtt);

/* Whether mapping @attach will hand out @bo from VRAM: see xe_dma_buf_map(). */
static bool xe_dma_buf_maps_vram(struct xe_bo *bo,
				 struct dma_buf_attachment *attach)
{
	if (!attach->peer2peer)
		return false;

	/* A pinned BO stays where it is; peers may map it there. */
	if (xe_bo_is_pinned(bo))
		return xe_bo_is_vram(bo);

	/* Without MOVE_NOTIFY every map pins; an unpinned BO always can. */
	if (!IS_ENABLED(CONFIG_DMABUF_MOVE_NOTIFY))
		return xe_dma_buf_pin_target(attach->dmabuf) != XE_PL_TT;

	/* Peers map an unpinned BO where it is. */
	return xe_bo_is_vram(bo);
}

static enum xe_dma_buf_source
xe_dma_buf_source(struct dma_buf_attachment *attach)
{
	struct dma_buf *dmabuf = attach->dmabuf;
	struct xe_bo *exported;

	if (dmabuf->ops != &xe_dmabuf_ops)
		return XE_DMA_BUF_FOREIGN;

	/* The import shares the reservation of the BO it imports. */
	dma_resv_assert_held(dmabuf->resv);
	exported = gem_to_xe_bo(dmabuf->priv);

	return xe_dma_buf_maps_vram(exported, attach) ? XE_DMA_BUF_XE_VRAM :
							XE_DMA_BUF_XE_SYSTEM;
}

/**
 * xe_dma_buf_import_is_peer() - whether a BO imports a peer's VRAM
 * @tbo: the TTM BO, with its reservation held
 *
 * The answer is given with the reservation that the import shares with its
 * exporter held, by the rules the exporter's map applies: before the map,
 * when the import's GTT resource is allocated, as a forecast, and right
 * after it, when the exporter has chosen. Should the exporter move the
 * memory later, it tells the importer, which then maps again and asks again.
 *
 * Return: true if @tbo imports a peer's VRAM, which takes no GTT budget.
 */
bool xe_dma_buf_import_is_peer(struct ttm_buffer_object *tbo)
{
	struct dma_buf_attachment *attach = tbo->base.import_attach;

	return attach &&
	       !xe_dma_buf_import_uses_gtt(xe_dma_buf_source(attach),
					   attach->peer2peer);
}

static void xe_dma_buf_move_notify(struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = attach->importer_priv;
	struct xe_bo *bo = gem_to_xe_bo(obj);

	XE_WARN_ON(xe_bo_evict(bo, false));
}

static const struct dma_buf_attach_ops xe_dma_buf_attach_ops = {
	.allow_peer2peer = true,
	.move_notify = xe_dma_buf_move_notify
};

#if IS_ENABLED(CONFIG_DRM_XE_KUNIT_TEST)

struct dma_buf_test_params {
	struct xe_test_priv base;
	const struct dma_buf_attach_ops *attach_ops;
	bool force_different_devices;
	u32 mem_mask;
};

#define to_dma_buf_test_params(_priv) \
	container_of(_priv, struct dma_buf_test_params, base)
#endif

struct drm_gem_object *xe_gem_prime_import(struct drm_device *dev,
					   struct dma_buf *dma_buf)
{
	XE_TEST_DECLARE(struct dma_buf_test_params *test =
			to_dma_buf_test_params
			(xe_cur_kunit_priv(XE_TEST_LIVE_DMA_BUF));)
	const struct dma_buf_attach_ops *attach_ops;
	struct dma_buf_attachment *attach;
	struct drm_gem_object *obj;
	struct xe_bo *bo;

	if (dma_buf->ops == &xe_dmabuf_ops) {
		obj = dma_buf->priv;
		if (obj->dev == dev &&
		    !XE_TEST_ONLY(test && test->force_different_devices)) {
			/*
			 * Importing dmabuf exported from out own gem increases
			 * refcount on gem itself instead of f_count of dmabuf.
			 */
			drm_gem_object_get(obj);
			return obj;
		}
	}

	bo = xe_bo_alloc();
	if (IS_ERR(bo))
		return ERR_CAST(bo);

	/*
	 * xe_dma_buf_init_obj() takes ownership of the raw bo, so do not touch
	 * on fail, since it will already take care of cleanup. On success we
	 * still need to drop the ref, if something later fails.
	 *
	 * In addition this needs to happen before the attach, since
	 * it will create a new attachment for this, and add it to the list of
	 * attachments, at which point it is globally visible, and at any point
	 * the export side can call into on invalidate_mappings callback, which
	 * require a working object.
	 */
	obj = xe_dma_buf_init_obj(dev, bo, dma_buf);
	if (IS_ERR(obj))
		return obj;

	attach_ops = &xe_dma_buf_attach_ops;
#if IS_ENABLED(CONFIG_DRM_XE_KUNIT_TEST)
	if (test)
		attach_ops = test->attach_ops;
#endif

	attach = dma_buf_dynamic_attach(dma_buf, dev->dev, attach_ops, &bo->ttm.base);
	if (IS_ERR(attach)) {
		obj = ERR_CAST(attach);
		goto out_err;
	}

	get_dma_buf(dma_buf);
	obj->import_attach = attach;
	return obj;

out_err:
	xe_bo_put(bo);

	return obj;
}

#if IS_ENABLED(CONFIG_DRM_XE_KUNIT_TEST)
#include "tests/xe_dma_buf.c"
#endif
