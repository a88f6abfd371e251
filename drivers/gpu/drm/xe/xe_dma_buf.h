/* SPDX-License-Identifier: MIT */
/*
 * Copyright © 2022 Intel Corporation
 */

#ifndef _XE_DMA_BUF_H_
#define _XE_DMA_BUF_H_

#include <drm/drm_gem.h>

struct dma_buf;
struct sg_table;
struct ttm_buffer_object;

/**
 * enum xe_dma_buf_backing - what an exporter handed an importer
 * @XE_DMA_BUF_UNMAPPED: nothing yet, the attachment was never mapped
 * @XE_DMA_BUF_SYSTEM_PAGES: system memory, with struct pages
 * @XE_DMA_BUF_DEVICE_MEMORY: a device's memory, which has no struct pages
 */
enum xe_dma_buf_backing {
	XE_DMA_BUF_UNMAPPED,
	XE_DMA_BUF_SYSTEM_PAGES,
	XE_DMA_BUF_DEVICE_MEMORY,
};

enum xe_dma_buf_backing xe_dma_buf_backing(const struct sg_table *sgt);
bool xe_dma_buf_import_uses_gtt(enum xe_dma_buf_backing backing,
				bool peer2peer);
bool xe_dma_buf_is_peer_import(const struct ttm_buffer_object *tbo);
bool xe_dma_buf_all_peer2peer(struct dma_buf *dmabuf);
int xe_dma_buf_pin_mem_type(u32 mem_type, bool pinned, bool all_peer2peer,
			    bool vram_shareable);
bool xe_dma_buf_may_map_pinned(u32 mem_type, bool peer2peer);

struct dma_buf *xe_gem_prime_export(struct drm_gem_object *obj, int flags);
struct drm_gem_object *xe_gem_prime_import(struct drm_device *dev,
					   struct dma_buf *dma_buf);

#endif
