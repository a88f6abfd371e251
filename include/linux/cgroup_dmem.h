/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device memory cgroup controller: the interface for drivers.
 */
#ifndef _LINUX_CGROUP_DMEM_H
#define _LINUX_CGROUP_DMEM_H

#include <linux/types.h>

struct kunit;

/* A range of device memory that cgroups can limit, such as one VRAM. */
struct dmem_cgroup_region;
/* What one cgroup uses of one region, with its dmem.min/low/max. */
struct dmem_cgroup_pool_state;

/**
 * enum dmem_cgroup_file - the per-region values of a dmem cgroup
 * @DMEM_CGROUP_CAPACITY: dmem.capacity, the size of the region.
 * @DMEM_CGROUP_CURRENT: dmem.current, the bytes charged.
 * @DMEM_CGROUP_MIN: dmem.min, the hard protection.
 * @DMEM_CGROUP_LOW: dmem.low, the best-effort protection.
 * @DMEM_CGROUP_MAX: dmem.max, the limit.
 */
enum dmem_cgroup_file {
	DMEM_CGROUP_CAPACITY,
	DMEM_CGROUP_CURRENT,
	DMEM_CGROUP_MIN,
	DMEM_CGROUP_LOW,
	DMEM_CGROUP_MAX,
};

#if IS_ENABLED(CONFIG_CGROUP_DMEM)

__printf(2, 3) struct dmem_cgroup_region *
dmem_cgroup_register_region(u64 size, const char *name_fmt, ...);
void dmem_cgroup_unregister_region(struct dmem_cgroup_region *region);

int dmem_cgroup_try_charge(struct dmem_cgroup_region *region, u64 size,
			   struct dmem_cgroup_pool_state **ret_pool,
			   struct dmem_cgroup_pool_state **ret_limit_pool);
void dmem_cgroup_uncharge(struct dmem_cgroup_pool_state *pool, u64 size);
void dmem_cgroup_pool_state_put(struct dmem_cgroup_pool_state *pool);

bool dmem_cgroup_state_evict_valuable(struct dmem_cgroup_pool_state *limit_pool,
				      struct dmem_cgroup_pool_state *test_pool,
				      bool ignore_low, bool *ret_hit_low);
bool dmem_cgroup_below_min(struct dmem_cgroup_pool_state *root,
			   struct dmem_cgroup_pool_state *test);
bool dmem_cgroup_below_low(struct dmem_cgroup_pool_state *root,
			   struct dmem_cgroup_pool_state *test);

#else

static inline __printf(2, 3) struct dmem_cgroup_region *
dmem_cgroup_register_region(u64 size, const char *name_fmt, ...)
{
	return NULL;
}

static inline void
dmem_cgroup_unregister_region(struct dmem_cgroup_region *region)
{
}

static inline int
dmem_cgroup_try_charge(struct dmem_cgroup_region *region, u64 size,
		       struct dmem_cgroup_pool_state **ret_pool,
		       struct dmem_cgroup_pool_state **ret_limit_pool)
{
	*ret_pool = NULL;
	if (ret_limit_pool)
		*ret_limit_pool = NULL;
	return 0;
}

static inline void dmem_cgroup_uncharge(struct dmem_cgroup_pool_state *pool,
					u64 size)
{
}

static inline void
dmem_cgroup_pool_state_put(struct dmem_cgroup_pool_state *pool)
{
}

static inline bool
dmem_cgroup_state_evict_valuable(struct dmem_cgroup_pool_state *limit_pool,
				 struct dmem_cgroup_pool_state *test_pool,
				 bool ignore_low, bool *ret_hit_low)
{
	return true;
}

static inline bool dmem_cgroup_below_min(struct dmem_cgroup_pool_state *root,
					 struct dmem_cgroup_pool_state *test)
{
	return false;
}

static inline bool dmem_cgroup_below_low(struct dmem_cgroup_pool_state *root,
					 struct dmem_cgroup_pool_state *test)
{
	return false;
}

#endif

#if IS_ENABLED(CONFIG_CGROUP_DMEM) && IS_ENABLED(CONFIG_KUNIT)

struct dmem_cgroup_pool_state *
dmem_cgroup_kunit_pool(struct kunit *test, struct dmem_cgroup_region *region,
		       struct dmem_cgroup_pool_state *parent);
int dmem_cgroup_kunit_charge(struct dmem_cgroup_pool_state *pool, u64 size,
			     struct dmem_cgroup_pool_state **ret_limit_pool);
int dmem_cgroup_kunit_write(struct dmem_cgroup_pool_state *pool,
			    enum dmem_cgroup_file file, const char *buf);
u64 dmem_cgroup_kunit_read(struct dmem_cgroup_pool_state *pool,
			   enum dmem_cgroup_file file);

#endif

#endif /* _LINUX_CGROUP_DMEM_H */
