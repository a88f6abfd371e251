// SPDX-License-Identifier: MIT
/*
 * KUnit tests for the rules xe applies to dma-bufs it imports and exports.
 * They need no hardware: the decisions are in helpers.
 */

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/sizes.h>

#include <kunit/test.h>

#include "xe_bo.h"
#include "xe_dma_buf.h"

struct import_case {
	const char *name;
	enum xe_dma_buf_source source;
	bool peer2peer;
	bool uses_gtt;
};

/*
 * Every source of an import against P2P yes and no. An import of the
 * device's own BO never gets here: xe_gem_prime_import() hands back the
 * exporter's BO, which is accounted where it lives.
 */
static const struct import_case import_cases[] = {
	{ "peer VRAM, P2P", XE_DMA_BUF_XE_VRAM, true, false },
	/* The exporter moves it to TT for an importer that is no peer. */
	{ "peer VRAM, no P2P", XE_DMA_BUF_XE_VRAM, false, true },
	{ "peer system memory, P2P", XE_DMA_BUF_XE_SYSTEM, true, true },
	{ "peer system memory, no P2P", XE_DMA_BUF_XE_SYSTEM, false, true },
	/* What another driver hands out cannot be told. */
	{ "other driver, P2P", XE_DMA_BUF_FOREIGN, true, true },
	{ "other driver, no P2P", XE_DMA_BUF_FOREIGN, false, true },
};

KUNIT_ARRAY_PARAM_DESC(import, import_cases, name);

static void xe_dma_buf_import_charges_host_memory_only(struct kunit *test)
{
	const struct import_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, xe_dma_buf_import_uses_gtt(c->source,
							 c->peer2peer),
			c->uses_gtt);
}

/* Peer-to-peer or not, in the order the importers attach and map. */
#define MAX_IMPORTERS	3

struct fake_dma_buf {
	struct dma_buf base;
	struct dma_resv resv;
	struct dma_buf_attachment attach[MAX_IMPORTERS];
};

static struct fake_dma_buf *fake_dma_buf(struct kunit *test)
{
	struct fake_dma_buf *fake;

	fake = kunit_kzalloc(test, sizeof(*fake), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fake);

	dma_resv_init(&fake->resv);
	fake->base.resv = &fake->resv;
	INIT_LIST_HEAD(&fake->base.attachments);

	return fake;
}

static void fake_attach(struct fake_dma_buf *fake, unsigned int i,
			bool peer2peer)
{
	fake->attach[i].dmabuf = &fake->base;
	fake->attach[i].peer2peer = peer2peer;
	list_add_tail(&fake->attach[i].node, &fake->base.attachments);
}

static void xe_dma_buf_all_peer2peer_needs_every_attachment(struct kunit *test)
{
	struct fake_dma_buf *fake = fake_dma_buf(test);

	dma_resv_lock(&fake->resv, NULL);
	/* Nobody to serve but peers, vacuously. */
	KUNIT_EXPECT_TRUE(test, xe_dma_buf_all_peer2peer(&fake->base));

	fake_attach(fake, 0, true);
	fake_attach(fake, 1, true);
	KUNIT_EXPECT_TRUE(test, xe_dma_buf_all_peer2peer(&fake->base));

	fake_attach(fake, 2, false);
	KUNIT_EXPECT_FALSE(test, xe_dma_buf_all_peer2peer(&fake->base));

	list_del(&fake->attach[0].node);
	list_del(&fake->attach[1].node);
	KUNIT_EXPECT_FALSE(test, xe_dma_buf_all_peer2peer(&fake->base));
	dma_resv_unlock(&fake->resv);

	dma_resv_fini(&fake->resv);
}

struct pin_case {
	const char *name;
	u32 mem_type;
	bool pinned;
	bool all_peer2peer;
	bool vram_shareable;
	int expected;
};

static const struct pin_case pin_cases[] = {
	{ "VRAM, all peers", XE_PL_VRAM0, false, true, true, XE_PL_VRAM0 },
	{ "VRAM1, all peers", XE_PL_VRAM1, false, true, true, XE_PL_VRAM1 },
	{ "VRAM, some not peers", XE_PL_VRAM0, false, false, true, XE_PL_TT },
	{ "VRAM out of reach, all peers", XE_PL_VRAM0, false, true, false,
	  XE_PL_TT },
	{ "pinned VRAM, all peers", XE_PL_VRAM0, true, true, true,
	  XE_PL_VRAM0 },
	{ "pinned VRAM, some not peers", XE_PL_VRAM0, true, false, true,
	  -EINVAL },
	{ "pinned VRAM out of reach", XE_PL_VRAM0, true, true, false,
	  -EINVAL },
	{ "TT, all peers", XE_PL_TT, false, true, false, XE_PL_TT },
	{ "pinned TT, all peers", XE_PL_TT, true, true, false, XE_PL_TT },
	{ "pinned TT, some not peers", XE_PL_TT, true, false, false,
	  XE_PL_TT },
	{ "system, all peers", XE_PL_SYSTEM, false, true, false, XE_PL_TT },
};

KUNIT_ARRAY_PARAM_DESC(pin, pin_cases, name);

static void xe_dma_buf_pin_keeps_vram_for_peers_only(struct kunit *test)
{
	const struct pin_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, xe_dma_buf_pin_mem_type(c->mem_type, c->pinned,
						      c->all_peer2peer,
						      c->vram_shareable),
			c->expected);
}

/*
 * Importers attach and map one after another. Without
 * CONFIG_DMABUF_MOVE_NOTIFY the dma-buf core pins on every map. With it,
 * dynamic importers map without pinning, and only an explicit dma_buf_pin()
 * pins. Each row says what every importer is handed.
 */
struct sequence_case {
	const char *name;
	bool move_notify;
	/* The first importer pins with dma_buf_pin() before it maps. */
	bool first_pins;
	unsigned int importers;
	bool peer2peer[MAX_IMPORTERS];
	int handed[MAX_IMPORTERS];
};

#define VRAM	XE_PL_VRAM0
#define TT	XE_PL_TT

static const struct sequence_case sequence_cases[] = {
	{ "all peers", false, false, 3, { true, true, true },
	  { VRAM, VRAM, VRAM } },
	{ "all peers, MOVE_NOTIFY", true, false, 3, { true, true, true },
	  { VRAM, VRAM, VRAM } },
	{ "mixed, peer first", false, false, 2, { true, false },
	  { VRAM, -EINVAL } },
	{ "mixed, peer first, MOVE_NOTIFY", true, false, 2, { true, false },
	  { VRAM, TT } },
	{ "mixed, peer pins first, MOVE_NOTIFY", true, true, 2,
	  { true, false }, { VRAM, -EBUSY } },
	{ "mixed, non-peer first", false, false, 2, { false, true },
	  { TT, TT } },
	{ "mixed, non-peer first, MOVE_NOTIFY", true, false, 2,
	  { false, true }, { TT, TT } },
	{ "no peers", false, false, 2, { false, false }, { TT, TT } },
	{ "no peers, MOVE_NOTIFY", true, false, 2, { false, false },
	  { TT, TT } },
};

#undef VRAM
#undef TT

struct fake_bo {
	u32 mem_type;
	unsigned int pins;
};

static int fake_pin(struct fake_dma_buf *fake, struct fake_bo *bo)
{
	int mem_type;

	mem_type = xe_dma_buf_pin_mem_type(bo->mem_type, bo->pins,
					   xe_dma_buf_all_peer2peer(&fake->base),
					   true);
	if (mem_type < 0)
		return mem_type;

	bo->mem_type = mem_type;
	bo->pins++;
	return 0;
}

/* What xe_dma_buf_map() hands @attach, after the core pinned or not. */
static int fake_map(struct fake_dma_buf *fake, struct fake_bo *bo,
		    struct dma_buf_attachment *attach, bool move_notify)
{
	int err;

	if (!move_notify) {
		err = fake_pin(fake, bo);
		if (err)
			return err;
	}

	if (!bo->pins) {
		/* Unpinned: peers map in place, others get it moved to TT. */
		if (!attach->peer2peer)
			bo->mem_type = XE_PL_TT;
		return bo->mem_type;
	}

	if (!xe_dma_buf_may_map_pinned(bo->mem_type, attach->peer2peer))
		return -EBUSY;

	return bo->mem_type;
}

KUNIT_ARRAY_PARAM_DESC(sequence, sequence_cases, name);

static void xe_dma_buf_importers_get_what_they_can_reach(struct kunit *test)
{
	const struct sequence_case *c = test->param_value;
	struct fake_dma_buf *fake = fake_dma_buf(test);
	struct fake_bo bo = { .mem_type = XE_PL_VRAM0 };
	unsigned int i;

	dma_resv_lock(&fake->resv, NULL);
	for (i = 0; i < c->importers; i++) {
		fake_attach(fake, i, c->peer2peer[i]);
		if (i == 0 && c->first_pins)
			KUNIT_ASSERT_EQ(test, fake_pin(fake, &bo), 0);

		KUNIT_EXPECT_EQ_MSG(test, fake_map(fake, &bo, &fake->attach[i],
						   c->move_notify),
				    c->handed[i], "importer %u", i);
	}
	dma_resv_unlock(&fake->resv);

	dma_resv_fini(&fake->resv);
}

struct fits_case {
	const char *name;
	u64 pinned;
	u64 size;
	unsigned int percent;
	bool fits;
};

static const struct fits_case fits_cases[] = {
	{ "nothing pinned", 0, SZ_1G, 50, true },
	{ "up to the share", 7ULL * SZ_1G, SZ_1G, 50, true },
	{ "one byte over", 7ULL * SZ_1G, SZ_1G + 1, 50, false },
	{ "share full", 8ULL * SZ_1G, PAGE_SIZE, 50, false },
	{ "share 0", 0, PAGE_SIZE, 0, false },
	{ "share 100", 15ULL * SZ_1G, SZ_1G, 100, true },
	{ "share over 100 is 100", 15ULL * SZ_1G, SZ_1G + 1, 200, false },
};

KUNIT_ARRAY_PARAM_DESC(fits, fits_cases, name);

/* A device with 16 GiB of VRAM. */
static void xe_dma_buf_peer_pins_stay_within_their_share(struct kunit *test)
{
	const struct fits_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, xe_dma_buf_peer_pin_fits(c->pinned, c->size,
						       16ULL * SZ_1G,
						       c->percent),
			c->fits);
}

static struct kunit_case xe_dma_buf_rules_tests[] = {
	KUNIT_CASE_PARAM(xe_dma_buf_import_charges_host_memory_only,
			 import_gen_params),
	KUNIT_CASE(xe_dma_buf_all_peer2peer_needs_every_attachment),
	KUNIT_CASE_PARAM(xe_dma_buf_pin_keeps_vram_for_peers_only,
			 pin_gen_params),
	KUNIT_CASE_PARAM(xe_dma_buf_importers_get_what_they_can_reach,
			 sequence_gen_params),
	KUNIT_CASE_PARAM(xe_dma_buf_peer_pins_stay_within_their_share,
			 fits_gen_params),
	{}
};

static struct kunit_suite xe_dma_buf_rules_test_suite = {
	.name = "xe_dma_buf_rules",
	.test_cases = xe_dma_buf_rules_tests,
};

kunit_test_suite(xe_dma_buf_rules_test_suite);
