// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory cgroup controller.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/cgroup.h>
#include <linux/cgroup_dmem.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/page_counter.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

/**
 * DOC: Overview
 *
 * Device memory, such as a GPU's VRAM, is shared by every process that uses
 * the device, and a process that fills it pushes the others out. The dmem
 * controller gives that memory the limits and protection that the memory
 * controller gives system memory: dmem.max, dmem.min and dmem.low, with the
 * same semantics, one line per region.
 *
 * A driver registers each range of device memory as a region, and charges
 * every allocation in it to the current task's cgroup. The charge stays with
 * that cgroup until the memory is freed, wherever the task goes. A charge
 * over dmem.max fails with -EAGAIN and names the cgroup whose limit was hit,
 * so the driver can evict from inside that cgroup and try again::
 *
 *	region = dmem_cgroup_register_region(size, "drm/%s/vram0", unique);
 *
 *	ret = dmem_cgroup_try_charge(region, size, &pool, &limit_pool);
 *	if (ret == -EAGAIN) {
 *		// evict buffers whose pool passes
 *		// dmem_cgroup_state_evict_valuable(limit_pool, victim_pool, ...)
 *		dmem_cgroup_pool_state_put(limit_pool);
 *		// and charge again
 *	}
 *	...
 *	dmem_cgroup_uncharge(pool, size);
 *
 *	dmem_cgroup_unregister_region(region);
 *
 * Eviction for other reasons, such as a full region, asks the same question
 * with no limiting pool: memory below its cgroup's effective dmem.min is never
 * evicted, and memory below dmem.low only when nothing else is left.
 *
 * Each cgroup has one pool per region it uses, and each pool counts bytes in
 * a &struct page_counter whose parent is the pool of the parent cgroup. A pool
 * lives while its cgroup and region do, or while memory is charged to it, so
 * a region can be unregistered and a cgroup removed with charges outstanding.
 */

/**
 * struct dmem_cgroup_region - a range of device memory
 * @ref: One reference from the driver until unregister, one per pool.
 * @rcu: Frees the region after readers of @node are done.
 * @node: Entry in the list of registered regions.
 * @pools: The pools of every cgroup in this region.
 * @size: Capacity in bytes.
 * @name: The key of the region's lines in the cgroup files.
 * @unregistered: The driver is done with the region: charge nothing more.
 */
struct dmem_cgroup_region {
	struct kref ref;
	struct rcu_head rcu;
	struct list_head node;
	struct list_head pools;
	u64 size;
	char *name;
	bool unregistered;
};

/**
 * struct dmemcg_state - the dmem state of one cgroup
 * @css: The cgroup subsystem state.
 * @pools: The cgroup's pools, one per region it has used or configured.
 */
struct dmemcg_state {
	struct cgroup_subsys_state css;
	struct list_head pools;
};

/**
 * struct dmem_cgroup_pool_state - one cgroup's use of one region
 * @region: The region.
 * @cs: The cgroup; valid while the pool is listed.
 * @parent: The pool of the parent cgroup in the same region, or NULL.
 * @css_node: Entry in the cgroup's list of pools.
 * @region_node: Entry in the region's list of pools.
 * @ref: One reference while listed, one per charge and child pool, and one
 *       for each limiting pool handed to a driver.
 * @rcu: Frees the pool after readers of the lists are done.
 * @cnt: Usage, limit and protection, in bytes.
 */
struct dmem_cgroup_pool_state {
	struct dmem_cgroup_region *region;
	struct dmemcg_state *cs;
	struct dmem_cgroup_pool_state *parent;
	struct list_head css_node;
	struct list_head region_node;
	refcount_t ref;
	struct rcu_head rcu;
	struct page_counter cnt;
};

/* Serialises pool creation, limit writes and list changes. */
static DEFINE_MUTEX(dmemcg_mutex);
static LIST_HEAD(dmem_regions);

static struct dmemcg_state *css_to_dmemcs(struct cgroup_subsys_state *css)
{
	return css ? container_of(css, struct dmemcg_state, css) : NULL;
}

static struct dmemcg_state *parent_dmemcs(struct dmemcg_state *cs)
{
	return css_to_dmemcs(cs->css.parent);
}

static void dmemcg_region_free_rcu(struct rcu_head *rcu)
{
	struct dmem_cgroup_region *region =
		container_of(rcu, struct dmem_cgroup_region, rcu);

	kfree(region->name);
	kfree(region);
}

/* Readers of the region list print the name: free both after them. */
static void dmemcg_region_free(struct kref *ref)
{
	struct dmem_cgroup_region *region =
		container_of(ref, struct dmem_cgroup_region, ref);

	call_rcu(&region->rcu, dmemcg_region_free_rcu);
}

static void dmemcg_pool_put(struct dmem_cgroup_pool_state *pool)
{
	/* A pool pins its parent, so releasing one may release a chain. */
	while (pool && refcount_dec_and_test(&pool->ref)) {
		struct dmem_cgroup_pool_state *parent = pool->parent;

		kref_put(&pool->region->ref, dmemcg_region_free);
		kfree_rcu(pool, rcu);
		pool = parent;
	}
}

static struct dmem_cgroup_pool_state *
dmemcg_find_pool(struct dmemcg_state *cs, struct dmem_cgroup_region *region)
{
	struct dmem_cgroup_pool_state *pool;

	list_for_each_entry_rcu(pool, &cs->pools, css_node,
				lockdep_is_held(&dmemcg_mutex))
		if (pool->region == region)
			return pool;

	return NULL;
}

static struct dmem_cgroup_pool_state *
dmemcg_create_pool_locked(struct dmemcg_state *cs,
			  struct dmem_cgroup_region *region)
{
	struct dmemcg_state *parent_cs = parent_dmemcs(cs);
	struct dmem_cgroup_pool_state *parent, *pool;

	parent = parent_cs ? dmemcg_find_pool(parent_cs, region) : NULL;
	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);

	page_counter_init(&pool->cnt, parent ? &parent->cnt : NULL, true);
	refcount_set(&pool->ref, 1);
	kref_get(&region->ref);
	pool->region = region;
	pool->cs = cs;
	if (parent)
		refcount_inc(&parent->ref);
	pool->parent = parent;

	list_add_tail_rcu(&pool->css_node, &cs->pools);
	list_add_tail(&pool->region_node, &region->pools);
	return pool;
}

/* Pools are created top-down, so that each finds its parent's. */
static struct dmem_cgroup_pool_state *
dmemcg_ensure_pool_locked(struct dmemcg_state *cs,
			  struct dmem_cgroup_region *region)
{
	struct dmem_cgroup_pool_state *pool;
	struct dmemcg_state *missing, *p;

	lockdep_assert_held(&dmemcg_mutex);
	if (region->unregistered)
		return ERR_PTR(-ENODEV);

	for (;;) {
		pool = dmemcg_find_pool(cs, region);
		if (pool)
			return pool;

		missing = cs;
		for (p = parent_dmemcs(cs); p && !dmemcg_find_pool(p, region);
		     p = parent_dmemcs(p))
			missing = p;

		pool = dmemcg_create_pool_locked(missing, region);
		if (IS_ERR(pool))
			return pool;
	}
}

/* Returns the pool of @cs in @region with a reference, creating it. */
static struct dmem_cgroup_pool_state *
dmemcg_get_pool(struct dmemcg_state *cs, struct dmem_cgroup_region *region)
{
	struct dmem_cgroup_pool_state *pool;

	rcu_read_lock();
	pool = dmemcg_find_pool(cs, region);
	if (pool && !refcount_inc_not_zero(&pool->ref))
		pool = NULL;
	rcu_read_unlock();
	if (pool)
		return pool;

	mutex_lock(&dmemcg_mutex);
	pool = dmemcg_ensure_pool_locked(cs, region);
	if (!IS_ERR(pool))
		refcount_inc(&pool->ref);
	mutex_unlock(&dmemcg_mutex);
	return pool;
}

/* Drops the listed reference; charges keep the pool alive after this. */
static void dmemcg_unlink_pool_locked(struct dmem_cgroup_pool_state *pool)
{
	list_del_rcu(&pool->css_node);
	list_del(&pool->region_node);
	dmemcg_pool_put(pool);
}

static struct dmem_cgroup_region *dmemcg_find_region_locked(const char *name)
{
	struct dmem_cgroup_region *region;

	list_for_each_entry(region, &dmem_regions, node)
		if (!strcmp(region->name, name))
			return region;

	return NULL;
}

/**
 * dmem_cgroup_register_region() - make a range of device memory limitable
 * @size: Capacity of the region in bytes, shown in dmem.capacity.
 * @name_fmt: printf() format of the region's name.
 *
 * The name keys the region's lines in the cgroup files. It must be unique
 * and contain no white space. DRM drivers use drmm_cgroup_register_region(),
 * which names regions ``drm/<device>/<name>``.
 *
 * Return: The region, NULL if @size is zero (charging to NULL always
 * succeeds), or an ERR_PTR(): -EINVAL for a malformed name, -EBUSY if the
 * name is taken, -ENOMEM.
 */
struct dmem_cgroup_region *dmem_cgroup_register_region(u64 size,
						       const char *name_fmt, ...)
{
	struct dmem_cgroup_region *region;
	va_list args;
	int ret;

	if (!size)
		return NULL;

	region = kzalloc(sizeof(*region), GFP_KERNEL);
	if (!region)
		return ERR_PTR(-ENOMEM);

	va_start(args, name_fmt);
	region->name = kvasprintf(GFP_KERNEL, name_fmt, args);
	va_end(args);
	if (!region->name) {
		kfree(region);
		return ERR_PTR(-ENOMEM);
	}

	kref_init(&region->ref);
	INIT_LIST_HEAD(&region->pools);
	region->size = size;

	ret = 0;
	mutex_lock(&dmemcg_mutex);
	if (!*region->name || strpbrk(region->name, " \t\n"))
		ret = -EINVAL;
	else if (dmemcg_find_region_locked(region->name))
		ret = -EBUSY;
	else
		list_add_tail_rcu(&region->node, &dmem_regions);
	mutex_unlock(&dmemcg_mutex);

	if (ret) {
		kref_put(&region->ref, dmemcg_region_free);
		return ERR_PTR(ret);
	}
	return region;
}
EXPORT_SYMBOL_GPL(dmem_cgroup_register_region);

/**
 * dmem_cgroup_unregister_region() - remove a region from the cgroup files
 * @region: The region, or NULL.
 *
 * After this, charges to @region fail with -ENODEV; a charge racing with
 * the unregister may still succeed. Memory still charged can be uncharged as
 * usual: the pools it is charged to outlive the region's registration.
 */
void dmem_cgroup_unregister_region(struct dmem_cgroup_region *region)
{
	struct dmem_cgroup_pool_state *pool, *next;

	if (!region)
		return;

	mutex_lock(&dmemcg_mutex);
	region->unregistered = true;
	list_del_rcu(&region->node);
	list_for_each_entry_safe(pool, next, &region->pools, region_node)
		dmemcg_unlink_pool_locked(pool);
	mutex_unlock(&dmemcg_mutex);

	kref_put(&region->ref, dmemcg_region_free);
}
EXPORT_SYMBOL_GPL(dmem_cgroup_unregister_region);

static int dmemcg_charge_pool(struct dmem_cgroup_pool_state *pool, u64 size,
			      struct dmem_cgroup_pool_state **ret_limit_pool)
{
	struct dmem_cgroup_pool_state *limit_pool;
	struct page_counter *fail;

	if (size > PAGE_COUNTER_MAX)
		return -ENOSPC;

	if (page_counter_try_charge(&pool->cnt, size, &fail))
		return 0;

	if (ret_limit_pool) {
		/* An ancestor of a pool we hold: its reference can't be zero. */
		limit_pool = container_of(fail, struct dmem_cgroup_pool_state,
					  cnt);
		refcount_inc(&limit_pool->ref);
		*ret_limit_pool = limit_pool;
	}
	return -EAGAIN;
}

/**
 * dmem_cgroup_try_charge() - charge an allocation to the current cgroup
 * @region: The region allocated from, or NULL to charge nothing.
 * @size: Bytes allocated.
 * @ret_pool: Where to store the pool charged, NULL if @region is.
 * @ret_limit_pool: Where to store the pool whose dmem.max was hit, or NULL if
 *	the caller doesn't want it.
 *
 * Charges @size to the current task's cgroup and its ancestors.
 *
 * Return: 0 on success: the caller must pass *@ret_pool to
 * dmem_cgroup_uncharge() when the memory is freed. -EAGAIN if a dmem.max in
 * the hierarchy would be exceeded: *@ret_limit_pool then holds a reference to
 * the limiting pool, which the caller evicts from and drops with
 * dmem_cgroup_pool_state_put(). -ENODEV if @region was unregistered, -ENOSPC
 * if @size can never fit, -ENOMEM.
 */
int dmem_cgroup_try_charge(struct dmem_cgroup_region *region, u64 size,
			   struct dmem_cgroup_pool_state **ret_pool,
			   struct dmem_cgroup_pool_state **ret_limit_pool)
{
	struct cgroup_subsys_state *css;
	struct dmem_cgroup_pool_state *pool;
	int ret;

	/* Lets a test charge a cgroup of its own instead of the current one. */
	KUNIT_STATIC_STUB_REDIRECT(dmem_cgroup_try_charge, region, size,
				   ret_pool, ret_limit_pool);

	*ret_pool = NULL;
	if (ret_limit_pool)
		*ret_limit_pool = NULL;
	if (!region)
		return 0;

	css = task_get_css(current, dmem_cgrp_id);
	pool = dmemcg_get_pool(css_to_dmemcs(css), region);
	css_put(css);
	if (IS_ERR(pool))
		return PTR_ERR(pool);

	ret = dmemcg_charge_pool(pool, size, ret_limit_pool);
	if (ret) {
		dmemcg_pool_put(pool);
		return ret;
	}

	*ret_pool = pool;
	return 0;
}
EXPORT_SYMBOL_GPL(dmem_cgroup_try_charge);

/**
 * dmem_cgroup_uncharge() - return a charge
 * @pool: The pool from dmem_cgroup_try_charge(), or NULL.
 * @size: The size charged.
 */
void dmem_cgroup_uncharge(struct dmem_cgroup_pool_state *pool, u64 size)
{
	if (!pool)
		return;

	page_counter_uncharge(&pool->cnt, size);
	dmemcg_pool_put(pool);
}
EXPORT_SYMBOL_GPL(dmem_cgroup_uncharge);

/**
 * dmem_cgroup_pool_state_put() - drop a limiting pool
 * @pool: The pool from dmem_cgroup_try_charge()'s @ret_limit_pool, or NULL.
 */
void dmem_cgroup_pool_state_put(struct dmem_cgroup_pool_state *pool)
{
	dmemcg_pool_put(pool);
}
EXPORT_SYMBOL_GPL(dmem_cgroup_pool_state_put);

static bool dmemcg_is_ancestor(struct dmem_cgroup_pool_state *ancestor,
			       struct dmem_cgroup_pool_state *pool)
{
	for (; pool; pool = pool->parent)
		if (pool == ancestor)
			return true;

	return false;
}

static struct dmem_cgroup_pool_state *
dmemcg_top(struct dmem_cgroup_pool_state *pool)
{
	while (pool->parent)
		pool = pool->parent;

	return pool;
}

/*
 * Effective protection is derived from the parent's, so update every pool
 * between @root and @pool, top-down, as the memory controller's reclaim does.
 * Protection is always recursive: memory is charged to the leaf cgroup of the
 * allocating task, while the protection is often set on a parent.
 */
static void dmemcg_calculate_protection(struct dmem_cgroup_pool_state *root,
					struct dmem_cgroup_pool_state *pool)
{
	struct dmem_cgroup_pool_state *done = root, *p;

	while (done != pool) {
		for (p = pool; p->parent != done; p = p->parent)
			;
		page_counter_calculate_protection(&root->cnt, &p->cnt, true);
		done = p;
	}
}

/* Updates @test's effective protection; false if nothing protects it. */
static bool dmemcg_protection_applies(struct dmem_cgroup_pool_state **root,
				      struct dmem_cgroup_pool_state *test)
{
	if (!test)
		return false;
	if (!*root)
		*root = dmemcg_top(test);
	if (test == *root || !dmemcg_is_ancestor(*root, test))
		return false;

	dmemcg_calculate_protection(*root, test);
	return true;
}

/**
 * dmem_cgroup_below_min() - is a pool within its effective dmem.min
 * @root: The pool whose limit is being enforced, or NULL for the whole region.
 * @test: The pool to check, or NULL.
 *
 * Return: true if all of @test's usage is protected by dmem.min against
 * eviction on behalf of @root.
 */
bool dmem_cgroup_below_min(struct dmem_cgroup_pool_state *root,
			   struct dmem_cgroup_pool_state *test)
{
	if (!dmemcg_protection_applies(&root, test))
		return false;

	return page_counter_read(&test->cnt) <= READ_ONCE(test->cnt.emin);
}
EXPORT_SYMBOL_GPL(dmem_cgroup_below_min);

/**
 * dmem_cgroup_below_low() - is a pool within its effective dmem.low
 * @root: The pool whose limit is being enforced, or NULL for the whole region.
 * @test: The pool to check, or NULL.
 *
 * Return: true if all of @test's usage is protected by dmem.low against
 * eviction on behalf of @root.
 */
bool dmem_cgroup_below_low(struct dmem_cgroup_pool_state *root,
			   struct dmem_cgroup_pool_state *test)
{
	if (!dmemcg_protection_applies(&root, test))
		return false;

	return page_counter_read(&test->cnt) <= READ_ONCE(test->cnt.elow);
}
EXPORT_SYMBOL_GPL(dmem_cgroup_below_low);

/**
 * dmem_cgroup_state_evict_valuable() - may memory charged to a pool be evicted
 * @limit_pool: The pool whose dmem.max failed a charge, or NULL when
 *	evicting to make room in the region as a whole.
 * @test_pool: The pool the candidate victim is charged to, or NULL.
 * @ignore_low: Evict memory that only dmem.low protects.
 * @ret_hit_low: Set to true when dmem.low alone spared the victim, so that
 *	the caller knows a pass with @ignore_low can find more. May be NULL.
 *
 * Under a limit, only memory charged inside @limit_pool's subtree is worth
 * evicting: nothing else counts against that limit. Memory within its
 * cgroup's effective dmem.min, computed relative to @limit_pool, is never
 * worth evicting, and memory within dmem.low only if @ignore_low is set.
 * Eviction makes one pass without @ignore_low and, if that finds nothing and
 * reported a hit on dmem.low, a second pass with it.
 *
 * Return: true if the victim may be evicted.
 */
bool dmem_cgroup_state_evict_valuable(struct dmem_cgroup_pool_state *limit_pool,
				      struct dmem_cgroup_pool_state *test_pool,
				      bool ignore_low, bool *ret_hit_low)
{
	if (!test_pool)
		return !limit_pool;
	if (limit_pool && !dmemcg_is_ancestor(limit_pool, test_pool))
		return false;

	if (dmem_cgroup_below_min(limit_pool, test_pool))
		return false;

	if (!ignore_low && dmem_cgroup_below_low(limit_pool, test_pool)) {
		if (ret_hit_low)
			*ret_hit_low = true;
		return false;
	}
	return true;
}
EXPORT_SYMBOL_GPL(dmem_cgroup_state_evict_valuable);

static u64 dmemcg_pool_read(struct dmem_cgroup_pool_state *pool,
			    enum dmem_cgroup_file file)
{
	switch (file) {
	case DMEM_CGROUP_CAPACITY:
		return pool->region->size;
	case DMEM_CGROUP_CURRENT:
		return page_counter_read(&pool->cnt);
	case DMEM_CGROUP_MIN:
		return READ_ONCE(pool->cnt.min);
	case DMEM_CGROUP_LOW:
		return READ_ONCE(pool->cnt.low);
	case DMEM_CGROUP_MAX:
		return READ_ONCE(pool->cnt.max);
	}
	return 0;
}

/* What a cgroup that never used or configured a region reads for it. */
static u64 dmemcg_default(struct dmem_cgroup_region *region,
			  enum dmem_cgroup_file file)
{
	switch (file) {
	case DMEM_CGROUP_CAPACITY:
		return region->size;
	case DMEM_CGROUP_MAX:
		return PAGE_COUNTER_MAX;
	default:
		return 0;
	}
}

static bool dmemcg_is_limit(enum dmem_cgroup_file file)
{
	return file == DMEM_CGROUP_MIN || file == DMEM_CGROUP_LOW ||
	       file == DMEM_CGROUP_MAX;
}

static void dmemcg_pool_write(struct dmem_cgroup_pool_state *pool,
			      enum dmem_cgroup_file file, u64 value)
{
	switch (file) {
	case DMEM_CGROUP_MIN:
		page_counter_set_min(&pool->cnt, value);
		break;
	case DMEM_CGROUP_LOW:
		page_counter_set_low(&pool->cnt, value);
		break;
	case DMEM_CGROUP_MAX:
		/* As memory.max: usage above the new limit stays until freed. */
		WRITE_ONCE(pool->cnt.max, value);
		break;
	default:
		break;
	}
}

static int dmemcg_show(struct seq_file *sf, void *v)
{
	enum dmem_cgroup_file file = seq_cft(sf)->private;
	struct dmemcg_state *cs = css_to_dmemcs(seq_css(sf));
	struct dmem_cgroup_pool_state *pool;
	struct dmem_cgroup_region *region;
	u64 value;

	rcu_read_lock();
	list_for_each_entry_rcu(region, &dmem_regions, node) {
		pool = dmemcg_find_pool(cs, region);
		value = pool ? dmemcg_pool_read(pool, file) :
			       dmemcg_default(region, file);

		if (dmemcg_is_limit(file) && value >= PAGE_COUNTER_MAX)
			seq_printf(sf, "%s max\n", region->name);
		else
			seq_printf(sf, "%s %llu\n", region->name, value);
	}
	rcu_read_unlock();
	return 0;
}

/**
 * struct dmemcg_setting - one parsed line of a limit file
 * @region: The region the line names.
 * @value: The new value in bytes.
 */
struct dmemcg_setting {
	struct dmem_cgroup_region *region;
	u64 value;
};

static int dmemcg_parse_value(const char *str, u64 *value)
{
	char *end;

	if (!strcmp(str, "max")) {
		*value = PAGE_COUNTER_MAX;
		return 0;
	}

	/* memparse() takes no sign, so "-1" stops at once and fails here. */
	*value = memparse(str, &end);
	if (end == str || *end)
		return -EINVAL;

	*value = min_t(u64, *value, PAGE_COUNTER_MAX);
	return 0;
}

/* Parses "<region> <bytes|max>": exactly two fields. */
static int dmemcg_parse_line(char *line, struct dmemcg_setting *setting)
{
	char *name, *value;

	name = strsep(&line, " \t");
	if (!line)
		return -EINVAL;

	value = skip_spaces(line);
	if (!*value || strpbrk(value, " \t"))
		return -EINVAL;

	setting->region = dmemcg_find_region_locked(name);
	if (!setting->region)
		return -EINVAL;

	return dmemcg_parse_value(value, &setting->value);
}

static unsigned int dmemcg_count_lines(const char *buf)
{
	unsigned int n = 1;

	for (; *buf; buf++)
		n += *buf == '\n';
	return n;
}

/*
 * A write is all or nothing: every line is parsed and every pool created
 * before the first value changes. Empty lines are skipped, so an empty
 * write changes nothing and succeeds.
 */
static int dmemcg_write(struct dmemcg_state *cs, enum dmem_cgroup_file file,
			char *buf)
{
	struct dmem_cgroup_pool_state **pools = NULL;
	struct dmemcg_setting *settings;
	unsigned int n = 0, i;
	char *line;
	int ret = 0;

	settings = kcalloc(dmemcg_count_lines(buf), sizeof(*settings),
			   GFP_KERNEL);
	if (!settings)
		return -ENOMEM;

	mutex_lock(&dmemcg_mutex);
	while ((line = strsep(&buf, "\n"))) {
		line = strim(line);
		if (!*line)
			continue;

		ret = dmemcg_parse_line(line, &settings[n++]);
		if (ret)
			goto out;
	}
	if (!n)
		goto out;

	pools = kcalloc(n, sizeof(*pools), GFP_KERNEL);
	if (!pools) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		pools[i] = dmemcg_ensure_pool_locked(cs, settings[i].region);
		if (IS_ERR(pools[i])) {
			ret = PTR_ERR(pools[i]);
			goto out;
		}
	}
	for (i = 0; i < n; i++)
		dmemcg_pool_write(pools[i], file, settings[i].value);
out:
	mutex_unlock(&dmemcg_mutex);
	kfree(pools);
	kfree(settings);
	return ret;
}

static ssize_t dmemcg_write_file(struct kernfs_open_file *of, char *buf,
				 size_t nbytes, loff_t off)
{
	int ret;

	ret = dmemcg_write(css_to_dmemcs(of_css(of)), of_cft(of)->private, buf);
	return ret ?: nbytes;
}

static struct cftype dmemcg_files[] = {
	{
		.name = "capacity",
		.seq_show = dmemcg_show,
		.private = DMEM_CGROUP_CAPACITY,
		.flags = CFTYPE_ONLY_ON_ROOT,
	},
	{
		.name = "current",
		.seq_show = dmemcg_show,
		.private = DMEM_CGROUP_CURRENT,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "min",
		.seq_show = dmemcg_show,
		.write = dmemcg_write_file,
		.private = DMEM_CGROUP_MIN,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "low",
		.seq_show = dmemcg_show,
		.write = dmemcg_write_file,
		.private = DMEM_CGROUP_LOW,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "max",
		.seq_show = dmemcg_show,
		.write = dmemcg_write_file,
		.private = DMEM_CGROUP_MAX,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{ } /* terminate */
};

static struct cgroup_subsys_state *
dmemcs_alloc(struct cgroup_subsys_state *parent_css)
{
	struct dmemcg_state *cs;

	cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	if (!cs)
		return ERR_PTR(-ENOMEM);

	INIT_LIST_HEAD(&cs->pools);
	return &cs->css;
}

/* A removed cgroup's leftover charges get no protection and no limit. */
static void dmemcs_offline(struct cgroup_subsys_state *css)
{
	struct dmem_cgroup_pool_state *pool;

	mutex_lock(&dmemcg_mutex);
	list_for_each_entry(pool, &css_to_dmemcs(css)->pools, css_node) {
		page_counter_set_min(&pool->cnt, 0);
		page_counter_set_low(&pool->cnt, 0);
		WRITE_ONCE(pool->cnt.max, PAGE_COUNTER_MAX);
	}
	mutex_unlock(&dmemcg_mutex);
}

static void dmemcs_free(struct cgroup_subsys_state *css)
{
	struct dmemcg_state *cs = css_to_dmemcs(css);
	struct dmem_cgroup_pool_state *pool, *next;

	mutex_lock(&dmemcg_mutex);
	list_for_each_entry_safe(pool, next, &cs->pools, css_node)
		dmemcg_unlink_pool_locked(pool);
	mutex_unlock(&dmemcg_mutex);

	kfree(cs);
}

struct cgroup_subsys dmem_cgrp_subsys = {
	.css_alloc	= dmemcs_alloc,
	.css_offline	= dmemcs_offline,
	.css_free	= dmemcs_free,
	.dfl_cftypes	= dmemcg_files,
	.legacy_cftypes	= dmemcg_files,
};

#if IS_ENABLED(CONFIG_KUNIT)

static void dmemcg_kunit_free(void *cs)
{
	dmemcs_free(&((struct dmemcg_state *)cs)->css);
}

/**
 * dmem_cgroup_kunit_pool() - a pool in a cgroup that only a test sees
 * @test: The test; the cgroup is freed when it ends.
 * @region: The region of the pool.
 * @parent: The parent cgroup's pool, or NULL for a new hierarchy.
 *
 * The cgroup is outside the cgroup tree and has no tasks: tests charge it
 * with dmem_cgroup_kunit_charge().
 *
 * Return: The pool. Nothing to put: it lives until the test ends.
 */
struct dmem_cgroup_pool_state *
dmem_cgroup_kunit_pool(struct kunit *test, struct dmem_cgroup_region *region,
		       struct dmem_cgroup_pool_state *parent)
{
	struct cgroup_subsys_state *css;
	struct dmem_cgroup_pool_state *pool;
	int ret;

	css = dmemcs_alloc(NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, css);
	ret = kunit_add_action_or_reset(test, dmemcg_kunit_free,
					css_to_dmemcs(css));
	KUNIT_ASSERT_EQ(test, ret, 0);
	css->parent = parent ? &parent->cs->css : NULL;

	mutex_lock(&dmemcg_mutex);
	pool = dmemcg_ensure_pool_locked(css_to_dmemcs(css), region);
	mutex_unlock(&dmemcg_mutex);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	return pool;
}
EXPORT_SYMBOL_IF_KUNIT(dmem_cgroup_kunit_pool);

/**
 * dmem_cgroup_kunit_charge() - charge a given pool
 * @pool: The pool, from dmem_cgroup_kunit_pool().
 * @size: Bytes to charge.
 * @ret_limit_pool: As for dmem_cgroup_try_charge().
 *
 * Return: As dmem_cgroup_try_charge(). Uncharge with dmem_cgroup_uncharge().
 */
int dmem_cgroup_kunit_charge(struct dmem_cgroup_pool_state *pool, u64 size,
			     struct dmem_cgroup_pool_state **ret_limit_pool)
{
	int ret;

	refcount_inc(&pool->ref);
	ret = dmemcg_charge_pool(pool, size, ret_limit_pool);
	if (ret)
		dmemcg_pool_put(pool);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(dmem_cgroup_kunit_charge);

/**
 * dmem_cgroup_kunit_write() - write a file of a pool's cgroup
 * @pool: The pool, from dmem_cgroup_kunit_pool().
 * @file: The file: min, low or max.
 * @buf: What userspace would write.
 *
 * Return: 0 or the errno the write would fail with.
 */
int dmem_cgroup_kunit_write(struct dmem_cgroup_pool_state *pool,
			    enum dmem_cgroup_file file, const char *buf)
{
	char *copy = kstrdup(buf, GFP_KERNEL);
	int ret;

	if (!copy)
		return -ENOMEM;

	ret = dmemcg_write(pool->cs, file, copy);
	kfree(copy);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(dmem_cgroup_kunit_write);

/**
 * dmem_cgroup_kunit_read() - read a pool's value of a file
 * @pool: The pool.
 * @file: The file.
 *
 * Return: The value, in bytes; PAGE_COUNTER_MAX reads as "max".
 */
u64 dmem_cgroup_kunit_read(struct dmem_cgroup_pool_state *pool,
			   enum dmem_cgroup_file file)
{
	return dmemcg_pool_read(pool, file);
}
EXPORT_SYMBOL_IF_KUNIT(dmem_cgroup_kunit_read);

#endif
