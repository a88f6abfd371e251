#!/usr/bin/env bash
# Install the Debian packages the harness needs. Idempotent; only Debian's
# archive is used. The base and Debian's configuration of it come from the
# base's suite, which harness/base.sh adds and installs after this.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(bc bison flex libelf-dev libssl-dev cpio python3 xz-utils make gcc g++
      git git-email libmailtools-perl sparse codespell python3-ply python3-git qemu-system-x86 busybox-static
      # harness/base.sh: the key of the base's suite.
      debian-archive-keyring
      # make deb: what bindeb-pkg needs beyond a kernel build (7.3's
      # Build-Depends-Arch names libdw-dev).
      debhelper dpkg-dev rsync kmod libdw-dev
      # make deb without TRIM=1: BTF of Debian's debug info.
      dwarves)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

note "installing ${missing[*]}"
[ "$(id -u)" -eq 0 ] || die "need root to install: ${missing[*]}"
apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	"${missing[@]}" >/dev/null || die "apt-get install ${missing[*]} failed"
