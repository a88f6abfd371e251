/* SPDX-License-Identifier: MIT */
/*
 * Residency priorities of xe BOs: the uAPI side.
 */
#ifndef _XE_BO_RESIDENCY_H_
#define _XE_BO_RESIDENCY_H_

#include <linux/types.h>

#include <drm/ttm/ttm_resource.h>

struct drm_device;
struct drm_file;
struct drm_xe_ext_set_property;
struct drm_xe_gem_set_property;
struct xe_bo;
struct xe_device;

int xe_bo_residency_from_user(u64 value, enum ttm_residency *residency);
int xe_gem_create_ext_check(const struct drm_xe_ext_set_property *ext,
			    enum ttm_residency *residency);
int xe_gem_create_user_extensions(struct xe_device *xe, u64 extensions,
				  enum ttm_residency *residency);
int xe_gem_set_property_check(const struct drm_xe_gem_set_property *args,
			      enum ttm_residency *residency);
int xe_bo_residency_may_set(const struct xe_bo *bo,
			    const struct drm_file *file);
int xe_gem_set_property_ioctl(struct drm_device *dev, void *data,
			      struct drm_file *file);

#endif
