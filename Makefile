# ttm-overcommit harness. 'make help' lists the targets.
SHELL := /bin/bash
H := harness

.PHONY: all help deps base tree export kunit boot bench verify distro-check deb check send-check send docs harness-test

all: tree boot ## Build the patched kernel, boot it under QEMU and run its tests

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		awk -F':.*## ' '{ printf "  %-14s %s\n", $$1, $$2 }'

deps: ## Install the Debian packages the harness needs
	@bash $(H)/deps.sh

base: deps ## Install and check the pinned base (series/base)
	@bash $(H)/base.sh

tree: base ## build/linux = base + every series/<n>-<topic>/ in order (git am, no fuzz), a branch per series
	@bash $(H)/tree.sh

export: ## series/<n>-<topic>/ from build/linux's series/* branches, and the browsable view
	@bash $(H)/export.sh

kunit: tree ## Run every KUnit suite of kunit-configs/ in one UML kernel
	@bash $(H)/kunit.sh

boot: tree ## Boot an x86_64 test kernel under QEMU (TCG), run KUnit and selftests
	@bash $(H)/boot.sh

bench: tree ## Run the vttm overcommit benchmark in the booted kernel; plot it
	@bash $(H)/bench.sh

verify: tree ## Reviewer checks: apply, bisect, view, checkpatch, sparse, W=1, kernel-doc
	@bash $(H)/verify.sh

distro-check: tree ## Debian's config + the series' options: modules build, modpost, CGROUP_DMEM=n
	@bash $(H)/distro-check.sh

deb: tree ## Installable linux-image/headers .debs in Debian's config (TRIM=1: a cut for GPU machines)
	@bash $(H)/deb.sh

send-check: tree ## Ready to send: get_maintainer To/Cc into the cover, mails signed by you (CI: a test identity), dry run, checks
	@bash $(H)/send-check.sh

send: ## Mail the series signed by you, in README's Sending order: a dry run that fails unless SEND=yes; never in CI
	@bash $(H)/send.sh

docs: tree ## Render the touched docs with Sphinx; fail on warnings about the series' files
	@bash $(H)/docs.sh

harness-test: ## Prove the harness fails on broken input
	@bash $(H)/tests/run.sh

check: ## tree + kunit + verify + distro-check + send-check + boot + harness-test: the test command
	@bash $(H)/check.sh
