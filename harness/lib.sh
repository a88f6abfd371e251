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

# The mails are signed and sent by a person: git config user.name and
# user.email (sender_identity), never the project's placeholder above.
# TEST_SENDER signs them for send-check's dry run in CI and where no
# identity is set; it cannot send (make send refuses any .invalid address).
TEST_SENDER="Test Sender <sender@example.invalid>"

# in_ci: this runs in CI (CI set to anything but false or 0), where nothing
# is ever sent.
in_ci() {
	case ${CI:-} in '' | false | 0) return 1 ;; esac
}

# identity_set: git config has a user.name or a user.email.
identity_set() {
	[ -n "$(git config user.name || true)$(git config user.email || true)" ]
}

# sender_identity: 'Name <email>' of git config user.name and user.email.
# Dies, saying what to set, when either is unset or is the placeholder.
sender_identity() {
	local name email
	name=$(git config user.name || true)
	email=$(git config user.email || true)
	[ -n "$name" ] && [ -n "$email" ] ||
		die "git config user.name/user.email is not set; set your own: git config --global user.name 'Your Name' && git config --global user.email you@example.org"
	[ "${email,,}" != "$PROJECT_EMAIL" ] && [ "$name" != "$PROJECT_NAME" ] ||
		die "git config user.name/user.email is the project's placeholder ($PROJECT_EMAIL); set your own: git config --global user.email you@example.org"
	[[ $email =~ ^[^@\<\>[:space:]]+@[^@\<\>[:space:]]+$ ]] && [[ $name != *[\<\>]* ]] ||
		die "git config user.name/user.email ('$name' <$email>) is not a name and an address; set your own: git config --global user.email you@example.org"
	echo "$name <$email>"
}

# maintainers OPTION... -- PATCH...: get_maintainer.pl's addresses for the
# patches, without the placeholder. A fixed hash seed keeps the order, and
# so the cover letter, stable. --no-fixes: the authors of a Fixes: commit
# come from git history, which the base (a tarball) does not have; name
# them in the patch.
maintainers() {
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	(cd "$TREE" && PERL_HASH_SEED=0 perl scripts/get_maintainer.pl --no-git \
		--no-git-fallback --no-rolestats --no-fixes "${opts[@]}" "$@") |
		grep -vF "$PROJECT_EMAIL" || true
}

# write_recipients MAIL TO CC: the To and Cc lines of a mail's header.
write_recipients() {
	python3 - "$@" <<'PY'
import sys
path, to, cc = sys.argv[1:]
text = open(path).read()
head, sep, body = text.partition('\n\n')
# Drop the old To/Cc (folded lines too), put the new ones before Subject,
# one address per line (as get_maintainer.pl prints them) so that no
# header line grows past what mail allows.
lines, skip = [], False
for line in head.split('\n'):
    if line.startswith(('To:', 'Cc:')):
        skip = True
    elif not line.startswith(' '):
        skip = False
    if not skip:
        lines.append(line)
def fold(name, value):
    return name + ': ' + ',\n '.join(a.strip() for a in value.split('\n') if a.strip())
at = next(i for i, l in enumerate(lines) if l.startswith('Subject:'))
lines[at:at] = [fold('To', to)] + ([fold('Cc', cc)] if cc else [])
open(path, 'w').write('\n'.join(lines) + sep + body)
PY
}

# adds_placeholder PATCH...: the patches whose diff adds a line with the
# placeholder's address (vttm's MAINTAINERS entry): nobody can be
# reached at it, so they are not sent until a person is named there.
adds_placeholder() {
	grep -l "^+.*$PROJECT_EMAIL" "$@" || true
}

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

# The series, one folder each: series/<n>-<topic>/, 'git format-patch
# --cover-letter' output, and in build/linux a branch series/<n>-<topic> at
# the last commit of each. They are applied and sent in the order of <n>;
# series_sort, which sorts such names, is the only place that order is
# written down.
series_sort() {
	sort -V
}

series_dirs() {
	local d
	find "$TOP/series" -mindepth 1 -maxdepth 1 -type d -regextype egrep \
		-regex '.*/[0-9]+-[^/]+' -printf '%f\n' | series_sort |
		while read -r d; do echo "$TOP/series/$d"; done
}

# series_patches [DIR]: the patches of one series, or of every series in
# order, without the cover letters.
series_patches() {
	local d
	if [ $# -gt 0 ]; then
		find "$1" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
			! -name '0000-*' | sort
		return
	fi
	series_dirs | while read -r d; do series_patches "$d"; done
}

# The lab: what only this project measures with (the benchmark, its
# scenario engine and files), never mailed. Its patches, 'git
# format-patch' output without a cover letter, are in lab/patches/ and
# apply after every series; build/linux has a branch 'lab' at their end
# (HEAD). lab/README.md says what belongs there.
LAB=$TOP/lab

lab_patches() {
	[ -d "$LAB/patches" ] || return 0
	find "$LAB/patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | sort
}

# all_patches: what build/linux holds after base, in order: every series,
# then the lab.
all_patches() {
	series_patches
	lab_patches
}

# series_end: the commit of build/linux that ends the last series (the
# lab, if any, follows it). Without series, base.
series_end() {
	local last
	last=$(series_dirs | tail -n 1)
	if [ -n "$last" ] &&
	   git -C "$TREE" rev-parse -q --verify "refs/heads/series/${last##*/}" >/dev/null; then
		git -C "$TREE" rev-parse "refs/heads/series/${last##*/}"
	else
		git -C "$TREE" rev-parse base
	fi
}

# Kernel builds share 2 cores: run them one at a time, across every shell
# and helper, by taking this lock.
build_locked() {
	mkdir -p "$BUILD"
	flock "$BUILD/.build-lock" "$@"
}

# Debian's amd64 configuration of the base (base.sh installs it), the
# symbols Debian's build of it exports (deb_symvers fetches them), and the
# fragments the series merges into it (harness/distro/).
DEB_CONFIG_PACKAGE=${BASE_PACKAGE/linux-source/linux-config}
DEB_CONFIG=/usr/src/$DEB_CONFIG_PACKAGE/config.amd64_none_amd64.xz
DEB_KERNEL=$BASE_UPSTREAM+deb13-amd64
DEB_ROOT=$BUILD/debian/$BASE_VERSION
DEB_SYMVERS=$DEB_ROOT/usr/src/linux-headers-$DEB_KERNEL/Module.symvers
DISTRO=$TOP/harness/distro

# deb_symvers: DEB_SYMVERS, from Debian's linux-headers package of the
# base. That package wants trixie's libc and does not install on Debian 12,
# so it is downloaded and unpacked under $BUILD/debian/ instead, once.
deb_symvers() {
	[ -f "$DEB_SYMVERS" ] && return 0
	local pkg=linux-headers-$DEB_KERNEL tmp
	mkdir -p "$BUILD"
	tmp=$(mktemp -d "$BUILD/debian.XXXXXX")
	if ! (cd "$tmp" && apt-get download -q "$pkg=$BASE_VERSION") \
			>"$tmp/download.log" 2>&1; then
		tail -n 3 "$tmp/download.log" >&2
		rm -rf "$tmp"
		die "apt-get download $pkg=$BASE_VERSION failed; run 'make base' (it adds $BASE_SUITE) and try again"
	fi
	dpkg-deb -x "$tmp"/*.deb "$tmp/root"
	[ -f "$tmp/root${DEB_SYMVERS#"$DEB_ROOT"}" ] || {
		rm -rf "$tmp"
		die "$pkg=$BASE_VERSION has no ${DEB_SYMVERS#"$DEB_ROOT"/}; fix DEB_SYMVERS in harness/lib.sh"
	}
	mkdir -p "$(dirname "$DEB_ROOT")"
	rm -rf "$DEB_ROOT"
	mv "$tmp/root" "$DEB_ROOT"
	rm -rf "$tmp"
}

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
