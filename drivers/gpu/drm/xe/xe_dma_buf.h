/* SPDX-License-Identifier: MIT */
/*
 * Copyright © 2022 Intel Corporation
 */

#ifndef _XE_DMA_BUF_H_
#define _XE_DMA_BUF_H_

#include <drm/drm_gem.h>

struct dma_buf;
struct ttm_buffer_object;

/**
 * enum xe_dma_buf_source - where the memory behind an import comes from
 * @XE_DMA_BUF_FOREIGN: another driver's export: what backs it is unknown
 * @XE_DMA_BUF_XE_SYSTEM: an xe export that its exporter maps from TT
 * @XE_DMA_BUF_XE_VRAM: an xe export that its exporter maps from VRAM
 */
enum xe_dma_buf_source {
	XE_DMA_BUF_FOREIGN,
	XE_DMA_BUF_XE_SYSTEM,
	XE_DMA_BUF_XE_VRAM,
};

bool xe_dma_buf_import_uses_gtt(enum xe_dma_buf_source source,
				bool peer2peer);
bool xe_dma_buf_import_is_peer(struct ttm_buffer_object *tbo);
bool xe_dma_buf_all_peer2peer(struct dma_buf *dmabuf);
int xe_dma_buf_pin_mem_type(u32 mem_type, bool pinned, bool all_peer2peer,
			    bool vram_shareable);
bool xe_dma_buf_may_map_pinned(u32 mem_type, bool peer2peer);
bool xe_dma_buf_peer_pin_fits(u64 pinned, u64 size, u64 vram,
			      unsigned int percent);

struct dma_buf *xe_gem_prime_export(struct drm_gem_object *obj, int flags);
struct drm_gem_object *xe_gem_prime_import(struct drm_device *dev,
					   struct dma_buf *dma_buf);

#endif
