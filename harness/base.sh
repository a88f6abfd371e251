#!/usr/bin/env bash
# Install the pinned base from Debian's archive and check its hash: the
# source tarball and Debian's configurations of it, both at BASE_VERSION.
# When series/base names a BASE_SUITE (the base comes from another suite
# than the machine's), add that suite as an apt source of its own, pinned
# low so that nothing else is upgraded from it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SOURCES=/etc/apt/sources.list.d/ttm-overcommit-base.sources
PIN=/etc/apt/preferences.d/ttm-overcommit-base

# put FILE CONTENT: write FILE unless it holds CONTENT already.
changed=no
put() {
	printf '%s\n' "$2" | cmp -s - "$1" && return 0
	[ "$(id -u)" -eq 0 ] || die "need root to write $1 (the apt source of $BASE_SUITE)"
	note "writing $1"
	printf '%s\n' "$2" >"$1"
	changed=yes
}

if [ -n "${BASE_SUITE:-}" ]; then
	put "$SOURCES" "Types: deb
URIs: http://deb.debian.org/debian
Suites: $BASE_SUITE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
	put "$PIN" "Package: *
Pin: release n=$BASE_SUITE
Pin-Priority: 100"
	if [ "$changed" = yes ]; then
		apt-get update -qq >/dev/null ||
			die "apt-get update failed after adding $BASE_SUITE; check the network and run 'make base' again"
	fi
fi

installed_version() {
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true
}

missing=()
for p in "$BASE_PACKAGE" "$DEB_CONFIG_PACKAGE"; do
	[ "$(installed_version "$p")" = "$BASE_VERSION" ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] ||
		die "need root to install ${missing[*]} at $BASE_VERSION"
	apt-get update -qq >/dev/null || true
	for p in "${missing[@]}"; do
		if ! apt-cache madison "$p" | awk '{print $3}' | grep -qxF "$BASE_VERSION"; then
			offered=$(apt-cache madison "$p" | awk '{print $3}' | paste -sd ' ' -)
			die "$p $BASE_VERSION is not offered by apt (offered: ${offered:-none}); set BASE_VERSION and BASE_SHA256 to override the pin in series/base"
		fi
	done
	note "installing ${missing[*]} at $BASE_VERSION"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		--allow-downgrades "${missing[@]/%/=$BASE_VERSION}" >/dev/null ||
		die "apt-get install ${missing[*]} at $BASE_VERSION failed"
fi

[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL missing after installing $BASE_PACKAGE"
[ -f "$DEB_CONFIG" ] || die "$DEB_CONFIG missing after installing $DEB_CONFIG_PACKAGE; fix DEB_CONFIG in harness/lib.sh"
sum=$(sha256sum "$BASE_TARBALL" | cut -d' ' -f1)
[ "$sum" = "$BASE_SHA256" ] ||
	die "$BASE_TARBALL has sha256 $sum, series/base pins $BASE_SHA256"
