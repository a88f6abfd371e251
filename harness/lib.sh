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

# Debian's amd64 configuration of the base, the symbols Debian's build of it
# exports, and the fragments the series merges into it (harness/distro/).
DEB_CONFIG=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
DEB_SYMVERS=/usr/src/linux-headers-$BASE_UPSTREAM+deb12-amd64/Module.symvers
DISTRO=$TOP/harness/distro

# merge_config SRC OUT BASE FRAGMENT...: OUT/.config is BASE with the
# fragments merged, resolved by olddefconfig in source tree SRC, and every
# option set as the last fragment naming it asks.
merge_config() {
	local src=$1 out=$2 base=$3
	shift 3
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$out" "$base" "$@" \
		>/dev/null)
	build_locked make -s -C "$src" O="$out" olddefconfig >/dev/null
	config_has "$out/.config" "$@"
}

# config_has CONFIG FRAGMENT...: every option is set as the last fragment
# that names it asks.
config_has() {
	local config=$1 line bad=0
	shift
	while read -r line; do
		grep -qxF -- "$line" "$config" || {
			echo "  '$line' did not resolve" >&2
			bad=1
		}
	done < <(wanted_options "$@")
	return $bad
}

# The option lines of the fragments, the last one winning.
wanted_options() {
	grep -hE '^(CONFIG_|# CONFIG_.* is not set$)' "$@" |
		awk '{ name = $1 == "#" ? $2 : substr($0, 1, index($0, "=") - 1)
		       if (!(name in line)) order[n++] = name
		       line[name] = $0 }
		     END { for (i = 0; i < n; i++) print line[order[i]] }'
}
