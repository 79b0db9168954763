#!/usr/bin/env bash
# The validate step of action.yml. FILES and CRDS are space-separated
# paths; OLD, when set, the CRDs as they were (git:origin/main:crds), to
# compare CRDS with; SARIF, when set, is where the SARIF report goes; LINT,
# when set, the lint profile CRDS are checked with. The exit status is the
# worst of validate's, diff's and lint's with -o github: 0
# valid, 1 invalid (or an upgrade that breaks something), 2 input that
# cannot be read or checked.
set -uo pipefail
args=(--offline --strict-kinds -R)
for path in $CRDS; do args+=(--crds "$path"); done
for path in $FILES; do args+=(-f "$path"); done
status=0
"$RUNNER_TEMP/kubectl-crd" validate "${args[@]}" -o github || status=$?
if [ -n "$SARIF" ]; then
	# An invalid object is a finding of the report, not a failure to write it.
	"$RUNNER_TEMP/kubectl-crd" validate "${args[@]}" -o sarif > "$SARIF"
	sarif_status=$?
	if [ "$sarif_status" -gt 1 ]; then exit "$sarif_status"; fi
fi
if [ -n "$OLD" ]; then
	if [ -z "$CRDS" ]; then
		echo "::error::the old input compares the crds input with it: name the CRDs in crds" >&2
		exit 2
	fi
	diff_args=(--no-objects)
	for path in $OLD; do diff_args+=(--old "$path"); done
	for path in $CRDS; do diff_args+=(-f "$path"); done
	diff_status=0
	"$RUNNER_TEMP/kubectl-crd" diff "${diff_args[@]}" -o github || diff_status=$?
	if [ "$diff_status" -gt "$status" ]; then status=$diff_status; fi
fi
if [ -n "$LINT" ]; then
	if [ -z "$CRDS" ]; then
		echo "::error::lint checks the CRDs of the crds input: name them there" >&2
		exit 2
	fi
	lint_status=0
	# shellcheck disable=SC2086 # CRDS is a space-separated list of paths
	"$RUNNER_TEMP/kubectl-crd" lint --profile "$LINT" -o github $CRDS || lint_status=$?
	if [ "$lint_status" -gt "$status" ]; then status=$lint_status; fi
fi
exit "$status"
