# Common settings for the harness scripts. Sourced, never run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=$BUILD/linux

# The pin, unless the environment overrides it.
_pin_version=${BASE_VERSION:-}
_pin_sha=${BASE_SHA256:-}
# shellcheck source=../series/base
. "$TOP/series/base"
BASE_VERSION=${_pin_version:-$BASE_VERSION}
BASE_SHA256=${_pin_sha:-$BASE_SHA256}

# Authorship and Signed-off-by of every patch: the project, not a person.
PROJECT_NAME="ttm-overcommit"
PROJECT_EMAIL="ttm-overcommit@lists.invalid"
export GIT_AUTHOR_NAME=$PROJECT_NAME GIT_AUTHOR_EMAIL=$PROJECT_EMAIL
export GIT_COMMITTER_NAME=$PROJECT_NAME GIT_COMMITTER_EMAIL=$PROJECT_EMAIL
# Fixed dates keep git am reproducible, so the series round-trips exactly.
export GIT_COMMITTER_DATE="2026-11-30T00:00:00+00:00"

JOBS=${JOBS:-$(nproc)}

die() {
	printf '%s: error: %s\n' "$(basename "$0")" "$*" >&2
	exit 1
}

note() {
	printf '==> %s\n' "$*"
}

require_tree() {
	[ -e "$TREE/.git" ] || die "no kernel tree in $TREE; run 'make tree' first"
}

# The patches of the series, in order, without the cover letter.
series_patches() {
	find "$TOP/series" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-*' | sort
}

# Kernel builds share 2 cores: run them one at a time, across every shell
# and helper, by taking this lock.
build_locked() {
	mkdir -p "$BUILD"
	flock "$BUILD/.build-lock" "$@"
}
