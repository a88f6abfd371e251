/* SPDX-License-Identifier: MIT */
/*
 * Copyright © 2023 Intel Corporation
 */

#ifndef _XE_TTM_SYS_MGR_H_
#define _XE_TTM_SYS_MGR_H_

#include <linux/types.h>

struct ttm_resource;
struct ttm_resource_manager;
struct xe_device;

int xe_ttm_sys_mgr_init(struct xe_device *xe);
u64 xe_ttm_sys_mgr_usage(struct ttm_resource_manager *man);
bool xe_ttm_sys_mgr_is_peer(const struct ttm_resource *res);
void xe_ttm_sys_mgr_set_peer(struct ttm_resource *res, bool peer);

#endif
