#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vttm_bench's scenario files: the shipped ones and a good file with every
# form of the format must read cleanly, and a bad one must stop vttm_bench
# with exit status 2 and its error at the right line. Needs no device:
# --check only reads the files, and without it vttm_bench reads them
# before it looks for a device.

here=$(dirname "$0")
bench=$here/vttm_bench
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Built beside this script by the same Makefile: missing is a failure.
if [ ! -x "$bench" ]; then
	echo "vttm_bench_check.sh: no $bench"
	exit 1
fi

# Results go to a file: bad() runs in a pipeline's subshell.
ok() { echo "ok $1" >>"$tmp/results"; echo "ok $1"; }
not_ok() { echo "not ok $1" >>"$tmp/results"; echo "not ok $1"; }

# The shipped scenarios, as vttm_bench finds them without --replay.
if "$bench" --check >"$tmp/out" 2>&1; then
	ok "shipped scenarios read cleanly"
else
	cat "$tmp/out"
	not_ok "shipped scenarios read cleanly"
fi

# A good file with blank and comment lines, CRLF line ends, a window that
# wraps, adjacent ranges of one group, a phase that adds buffers, and a
# client without jobs, holding a contiguous buffer.
printf '%s\r\n' "vttm-scenario 1" "" "# a comment" "client app  # trailing" \
	"client idle" "frames app" "bo app rt 4 1/8 vram level high" \
	"bo app tex 3 64K vram,gtt" "bo idle held 1 4M gtt" \
	"bo idle scan 1 1M vram contiguous" \
	"job app 1ms nowait rt[0-1] rt[2-3] tex{2,1}" "job app 500us wait rt" \
	"warmup 0" "phase one 3" "bo app tex 1 64K vram,gtt level low" \
	>"$tmp/good.scenario"
if "$bench" --check --replay "$tmp/good.scenario" >"$tmp/out" 2>&1; then
	ok "a file with every form of the format reads cleanly"
else
	sed 's/^/# /' "$tmp/out"
	not_ok "a file with every form of the format reads cleanly"
fi

# bad NAME LINE WORDS: the scenario on stdin fails at LINE, saying WORDS.
bad() {
	name=$1 line=$2 words=$3
	cat >"$tmp/$name.scenario"
	"$bench" --check --replay "$tmp/$name.scenario" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -eq 2 ] &&
	   grep -q "^$tmp/$name.scenario:$line: .*$words" "$tmp/out"; then
		ok "bad scenario: $name"
	else
		echo "# exit $rc, expected 2 and line $line: $words; got:"
		sed 's/^/# /' "$tmp/out"
		not_ok "bad scenario: $name"
	fi
}

# Each bad file below is a good one with one thing wrong.
head='vttm-scenario 1
client app
frames app
bo app rt 4 1/8 vram'
tail='job app 2ms wait rt
phase one 10'

printf '%s\n' "client app" | bad no_version 1 "first line must be"
printf '%s\n' "vttm-scenario 2" | bad version 1 "first line must be"
printf '%s\n%s\n%s\n' "$head" "texture app t 1 1M vram" "$tail" |
	bad unknown_line 5 "unknown line 'texture'"
printf '%s\n%s\n%s\n' "$head" "bo app t 1 3/2 vram" "$tail" |
	bad size_over_vram 5 "bad size '3/2'"
printf '%s\n%s\n%s\n' "$head" "bo app t 1 12Q vram" "$tail" |
	bad size_suffix 5 "bad size '12Q'"
printf '%s\n%s\n%s\n' "$head" "bo app t 1 1M vram,vram" "$tail" |
	bad placements 5 "bad placements"
printf '%s\n%s\n%s\n' "$head" "bo app t 1 1M vram level urgent" "$tail" |
	bad level 5 "bad level 'urgent'"
printf '%s\n%s\n%s\n' "$head" "bo app t 1 1M vram,gtt contiguous" "$tail" |
	bad contiguous 5 "contiguous: only for placements vram"
printf '%s\n%s\n%s\n' "$head" "bo game t 1 1M vram" "$tail" |
	bad unknown_client 5 "no client named 'game'"
printf '%s\n%s\n%s\n' "$head" "job app 2s wait rt" "phase one 10" |
	bad duration 5 "bad duration '2s'"
printf '%s\n%s\n%s\n' "$head" "job app 2ms soon rt" "phase one 10" |
	bad wait_word 5 "expected wait or nowait"
printf '%s\n%s\n%s\n' "$head" "job app 2ms wait tex" "phase one 10" |
	bad unknown_group 5 "no group named 'tex'"
printf '%s\n%s\n%s\n' "$head" "job app 2ms wait rt[2-5]" "phase one 10" |
	bad range 5 "'rt'\\[5\\] is past its 4 first"
printf '%s\n%s\n%s\n' "$head" "job app 2ms wait rt{5,1}" "phase one 10" |
	bad window 5 "a window of 5"
printf '%s\n%s\n%s\n' "$head" "job app 2ms wait rt[0] rt" "phase one 10" |
	bad twice 5 "named twice"
printf '%s\n%s\n%s\n' "$head" "job app 2ms wait rt[3-1]" "phase one 10" |
	bad range_order 5 "bad buffers"
printf '%s\n%s\n%s\n' "$head" "job app 2ms wait rt[1]x" "phase one 10" |
	bad trailing 5 "bad buffers"
printf '%s\n%s\n' "$head" "job app 2ms nowait rt" | { cat; echo "phase one 10"; } |
	bad no_time 2 "neither waits nor has a period"
printf '%s\n%s\n' "$head" "$tail" | { cat; echo "phase two 0"; } |
	bad zero_frames 7 "expected: phase NAME FRAMES"
printf '%s\n' "$head" "job app 2ms wait rt" | bad no_phase 5 "no phases"
printf '%s\n' "$head" "$tail" "job app 1ms wait rt" |
	bad job_after_phase 7 "jobs come before the phases"
printf '%s\n' "$head" "$tail" "client late" |
	bad client_after_phase 7 "clients come before the phases"
printf '%s\n' "$head" "$tail" "bo app late 1 1M vram" |
	bad group_in_phase 7 "not a new group"
printf '%s\n' "$head" "$tail" "phase one 5" |
	bad phase_twice 7 "phase 'one' named twice"
printf '%s\n' "$head" "bo app t 1 1M vram level low level high" "$tail" |
	bad level_twice 5 "unexpected 'level'"
printf '%s\n' "vttm-scenario 1" "client app period 1us" |
	bad short_period 2 "bad period '1us'"
# Blank and comment lines count; an index error comes before a later one.
printf '%s\n' "$head" "" "# comment" "job app 2ms wait rt[4]" "phase one 10" \
	"nonsense" | bad line_count 7 "'rt'\\[4\\] is past"
printf '' | bad empty 1 "empty scenario"

# Without --check, a bad file ends vttm_bench with status 2 before it
# looks for a device: the device given here does not exist.
printf '%s\n' "vttm-scenario 1" "texture" >"$tmp/run.scenario"
"$bench" --replay "$tmp/run.scenario" --device /nonexistent >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "run.scenario:2: unknown line" "$tmp/out"; then
	ok "a bad file stops vttm_bench before the device"
else
	sed 's/^/# /' "$tmp/out"
	not_ok "a bad file stops vttm_bench before the device (exit $rc)"
fi

n=$(grep -c . "$tmp/results")
fails=$(grep -c '^not ok' "$tmp/results")
echo "# $n tests, $fails failed"
[ "$fails" -eq 0 ]
