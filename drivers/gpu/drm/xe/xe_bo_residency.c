// SPDX-License-Identifier: MIT
/*
 * Residency priorities of xe BOs: the uAPI side. TTM orders eviction by
 * them (see "Eviction order" in the TTM documentation); this file checks
 * what userspace asks for, in helpers that KUnit reaches without hardware.
 */

#include <linux/nospec.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <uapi/drm/xe_drm.h>
#include <kunit/visibility.h>

#include "xe_bo.h"
#include "xe_bo_residency.h"
#include "xe_device.h"
#include "xe_macros.h"

/* As many extensions as other xe ioctls take, to bound the chain. */
#define XE_GEM_CREATE_MAX_EXTENSIONS	16

/**
 * xe_bo_residency_from_user() - check a residency priority from userspace
 * @value: One of the DRM_XE_GEM_RESIDENCY_PRIORITY_* values.
 * @residency: Set to the matching TTM level on success.
 *
 * Return: 0, or -EINVAL for a value out of range.
 */
int xe_bo_residency_from_user(u64 value, enum ttm_residency *residency)
{
	static const enum ttm_residency levels[] = {
		[DRM_XE_GEM_RESIDENCY_PRIORITY_MINIMUM] = TTM_RESIDENCY_MINIMUM,
		[DRM_XE_GEM_RESIDENCY_PRIORITY_LOW] = TTM_RESIDENCY_LOW,
		[DRM_XE_GEM_RESIDENCY_PRIORITY_NORMAL] = TTM_RESIDENCY_NORMAL,
		[DRM_XE_GEM_RESIDENCY_PRIORITY_HIGH] = TTM_RESIDENCY_HIGH,
		[DRM_XE_GEM_RESIDENCY_PRIORITY_MAXIMUM] = TTM_RESIDENCY_MAXIMUM,
	};

	unsigned long idx;

	if (value >= ARRAY_SIZE(levels))
		return -EINVAL;

	/* In range, so it fits the long that array_index_nospec() takes. */
	idx = array_index_nospec((unsigned long)value, ARRAY_SIZE(levels));
	*residency = levels[idx];
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xe_bo_residency_from_user);

/**
 * xe_gem_create_ext_check() - check one extension of GEM create
 * @ext: The extension, copied from userspace.
 * @residency: Set to the residency priority it asks for, on success.
 *
 * Return: 0, or -EINVAL for an unknown extension or property, nonzero
 * padding or reserved fields, or a value out of range.
 */
int xe_gem_create_ext_check(const struct drm_xe_ext_set_property *ext,
			    enum ttm_residency *residency)
{
	if (ext->base.name != DRM_XE_GEM_CREATE_EXTENSION_SET_PROPERTY ||
	    ext->base.pad || ext->pad || ext->reserved[0] || ext->reserved[1] ||
	    ext->property != DRM_XE_GEM_CREATE_SET_PROPERTY_RESIDENCY_PRIORITY)
		return -EINVAL;

	return xe_bo_residency_from_user(ext->value, residency);
}
EXPORT_SYMBOL_IF_KUNIT(xe_gem_create_ext_check);

/**
 * xe_gem_create_user_extensions() - read the extensions of GEM create
 * @xe: The device.
 * @extensions: The user pointer to the first extension, or 0.
 * @residency: The residency priority to create the BO with. Set only when
 *	the whole chain is good, and only if an extension sets it; the last
 *	one that does wins.
 *
 * All of it happens before the BO exists, so that a bad extension changes
 * nothing.
 *
 * Return: 0, -EFAULT for an unreadable extension, -E2BIG for a chain of
 * more than 16, or an error from xe_gem_create_ext_check().
 */
int xe_gem_create_user_extensions(struct xe_device *xe, u64 extensions,
				  enum ttm_residency *residency)
{
	enum ttm_residency level = *residency;
	struct drm_xe_ext_set_property ext;
	unsigned int count = 0;
	int err;

	while (extensions) {
		if (XE_IOCTL_DBG(xe, ++count > XE_GEM_CREATE_MAX_EXTENSIONS))
			return -E2BIG;

		/* The name first: it says how large the extension is. */
		if (XE_IOCTL_DBG(xe, copy_from_user(&ext.base,
						    u64_to_user_ptr(extensions),
						    sizeof(ext.base))))
			return -EFAULT;
		if (XE_IOCTL_DBG(xe, ext.base.name !=
				 DRM_XE_GEM_CREATE_EXTENSION_SET_PROPERTY))
			return -EINVAL;

		if (XE_IOCTL_DBG(xe, copy_from_user(&ext,
						    u64_to_user_ptr(extensions),
						    sizeof(ext))))
			return -EFAULT;

		err = xe_gem_create_ext_check(&ext, &level);
		if (XE_IOCTL_DBG(xe, err))
			return err;

		extensions = ext.base.next_extension;
	}
	*residency = level;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xe_gem_create_user_extensions);

/**
 * xe_gem_set_property_check() - check the arguments of GEM set property
 * @args: The arguments.
 * @residency: Set to the residency priority asked for, on success.
 *
 * Return: 0, or -EINVAL for nonzero extensions or reserved fields, an
 * unknown property, or a value out of range.
 */
int xe_gem_set_property_check(const struct drm_xe_gem_set_property *args,
			      enum ttm_residency *residency)
{
	if (args->extensions || args->reserved[0] || args->reserved[1] ||
	    args->property != DRM_XE_GEM_PROPERTY_RESIDENCY_PRIORITY)
		return -EINVAL;

	return xe_bo_residency_from_user(args->value, residency);
}
EXPORT_SYMBOL_IF_KUNIT(xe_gem_set_property_check);

/**
 * xe_bo_residency_may_set() - whether a file may set a BO's priority
 * @bo: The BO.
 * @file: The file asking.
 *
 * Only the file that created a BO decides its priority: a compositor that
 * imported a game's buffer must not reorder the game's memory. Today only
 * BOs private to a VM are ordered, and those cannot be shared, so the rule
 * guards shared BOs for the day TTM orders them too.
 *
 * Return: 0, -EOPNOTSUPP for a BO imported from another device or driver,
 * or -EPERM for a BO another file created.
 */
int xe_bo_residency_may_set(const struct xe_bo *bo,
			    const struct drm_file *file)
{
	if (bo->ttm.base.import_attach)
		return -EOPNOTSUPP;
	if (bo->owner != file->client_id)
		return -EPERM;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xe_bo_residency_may_set);

/**
 * xe_gem_set_property_ioctl() - the GEM set property ioctl
 * @dev: The DRM device.
 * @data: struct drm_xe_gem_set_property.
 * @file: The file calling.
 *
 * Return: 0, or a negative error code; see struct drm_xe_gem_set_property.
 */
int xe_gem_set_property_ioctl(struct drm_device *dev, void *data,
			      struct drm_file *file)
{
	struct drm_xe_gem_set_property *args = data;
	struct xe_device *xe = to_xe_device(dev);
	enum ttm_residency residency;
	struct drm_gem_object *obj;
	struct xe_bo *bo;
	int err;

	err = xe_gem_set_property_check(args, &residency);
	if (XE_IOCTL_DBG(xe, err))
		return err;

	obj = drm_gem_object_lookup(file, args->handle);
	if (XE_IOCTL_DBG(xe, !obj))
		return -ENOENT;
	bo = gem_to_xe_bo(obj);

	err = xe_bo_residency_may_set(bo, file);
	if (XE_IOCTL_DBG(xe, err))
		goto out_put;

	err = xe_bo_lock(bo, true);
	if (err)
		goto out_put;
	ttm_bo_set_residency(&bo->ttm, residency);
	xe_bo_unlock(bo);

out_put:
	xe_bo_put(bo);
	return err;
}
