#!/usr/bin/env bash
# Render the documentation the series touches with Sphinx, as
# 'make htmldocs' does, and fail on any warning about a file the series
# adds or changes. Not part of 'make check': it needs python3-sphinx,
# which it installs like deps.sh does, and several minutes of CPU.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/docs
LOG=$BUILD/docs.log

require_tree
missing=()
for p in python3-sphinx python3-sphinx-rtd-theme; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	note "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
fi

# The Documentation/ directories whose pages include what the series
# touches: the TTM and uAPI chapters (gpu), the dmem controller's kernel
# API (core-api) and its files (admin-guide).
dirs="gpu core-api admin-guide"
note "sphinx: $dirs (output in $OUT, log in $LOG)"
# Debian's sphinx lives with Debian's python, whatever python3 is first.
build_locked make -s -C "$TREE" O="$OUT" SPHINXDIRS="$dirs" \
	PYTHON3=/usr/bin/python3 SPHINXBUILD=/usr/bin/sphinx-build \
	htmldocs >"$LOG" 2>&1 || die "htmldocs failed; see $LOG"

mapfile -t files < <(git -C "$TREE" diff --name-only base HEAD)
pattern=$(printf '%s\n' "${files[@]}" | sed 's/[.]/\\./g' | paste -sd'|')
# Building only some directories leaves references into the others
# unresolved (labels such as 'psi', the RCU toctree): those warnings say
# nothing about the series' text, and appear without it too.
# Lines that start with 'WARNING: <file>' are kernel-doc's own, which the
# base prints too (7.3 has some in drm_exec.h and ttm_bo.c); make verify
# already fails on any kernel-doc warning the series adds.
if grep -E "($pattern).*(WARNING|ERROR)|(WARNING|ERROR).*($pattern)" "$LOG" |
	grep -vE "undefined label|toctree contains reference to nonexisting document" |
	grep -v '^WARNING: /'; then
	die "sphinx warns about files the series touches"
fi
note "docs: no Sphinx warning on the ${#files[@]} file(s) the series touches"
