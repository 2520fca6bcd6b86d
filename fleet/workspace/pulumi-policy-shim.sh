#!/bin/sh
# `pulumi` in the fleet's workspace image: runs the real CLI ($PULUMI_REAL) and adds `--policy-pack DIR` for each
# directory in $PULUMI_POLICY_PACKS to every `preview` and `up`/`update`, so the operator's own updates are judged
# by the same packs as CI (PKO v2.9.0 has no policy pack setting: pulumi-kubernetes-operator#366). Global flags
# before the command are kept in place; every other command runs unchanged. docs/fleet.md, "Policy packs".
set -eu
real="${PULUMI_REAL:?PULUMI_REAL must name the real pulumi CLI}"
found=""
n=0
skip=0
for arg in "$@"; do
  n=$((n + 1))
  if [ "$skip" -eq 1 ]; then skip=0; continue; fi
  case "$arg" in
    --color|--cwd|-C|--verbose|-v|--tracing|--tracing-header|--profiling|--memprofilerate) skip=1 ;;  # value next
    -*) ;;
    *) found="$arg"; break ;;
  esac
done
case "$found" in
  preview|up|update) ;;
  *) exec "$real" "$@" ;;
esac
# rebuild the argument list: everything up to the command, then the packs, then the rest
i=0
for arg in "$@"; do
  shift
  i=$((i + 1))
  set -- "$@" "$arg"
  if [ "$i" -eq "$n" ]; then
    for pack in ${PULUMI_POLICY_PACKS:-}; do
      set -- "$@" --policy-pack "$pack"
    done
  fi
done
exec "$real" "$@"
