#!/usr/bin/env bash
# Install the pinned base tarball from Debian's archive and check its hash.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

installed_version() {
	dpkg-query -W -f='${Version}' "$BASE_PACKAGE" 2>/dev/null || true
}

if [ "$(installed_version)" != "$BASE_VERSION" ]; then
	[ "$(id -u)" -eq 0 ] || die "need root to install $BASE_PACKAGE=$BASE_VERSION"
	apt-get update -qq >/dev/null || true
	if ! apt-cache madison "$BASE_PACKAGE" | awk '{print $3}' |
	     grep -qxF "$BASE_VERSION"; then
		offered=$(apt-cache madison "$BASE_PACKAGE" | awk '{print $3}' |
			  paste -sd ' ' -)
		die "$BASE_PACKAGE $BASE_VERSION is not offered by apt (offered: ${offered:-none}); set BASE_VERSION and BASE_SHA256 to override the pin in series/base"
	fi
	note "installing $BASE_PACKAGE=$BASE_VERSION"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		--allow-downgrades "$BASE_PACKAGE=$BASE_VERSION" >/dev/null ||
		die "apt-get install $BASE_PACKAGE=$BASE_VERSION failed"
fi

[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL missing after installing $BASE_PACKAGE"
sum=$(sha256sum "$BASE_TARBALL" | cut -d' ' -f1)
[ "$sum" = "$BASE_SHA256" ] ||
	die "$BASE_TARBALL has sha256 $sum, series/base pins $BASE_SHA256"
