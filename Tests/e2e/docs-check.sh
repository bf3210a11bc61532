#!/usr/bin/env bash
# What the documentation promises, checked after `swift test` has built the package:
# - the DocC catalog of ImgCache builds with no warning (every symbol link resolves, every
#   parameter of the public API is documented);
# - Documentation/imgcache.1 is what swift-argument-parser's generate-manual makes of the
#   command's definitions today (its date aside);
# - the shell completion scripts come out of the command for bash, zsh and fish, and bash takes its.
# Prints `N passed, M failed`; exits non-zero on a failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
passed=0; failed=0
check() { # description, then a command that succeeds when it holds
    local what=$1; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $what" >&2; fi
}
log=$(mktemp); trap 'rm -f "$log"' EXIT

echo "== DocC: Scripts/build-docs.sh --warnings-as-errors"
Scripts/build-docs.sh --warnings-as-errors > "$log" 2>&1
status=$?
check "the documentation builds with no warning: $(grep -E '^(warning|error)' "$log" | head -20)" [ "$status" = 0 ]

echo "== the manual page"
swift package generate-manual --configuration debug > "$log" 2>&1
generated=.build/plugins/GenerateManual/outputs/imgcache/imgcache.1
check "generate-manual makes a page: $(tail -5 "$log")" [ -s "$generated" ]
check "Documentation/imgcache.1 is up to date (regenerate: swift package generate-manual, then copy $generated)" \
    diff <(grep -v '^\.Dd ' Documentation/imgcache.1) <(grep -v '^\.Dd ' "$generated")

echo "== shell completions"
bin=$(swift build --show-bin-path)/imgcache
for shell in bash zsh fish; do
    check "a $shell completion script that offers the subcommands" \
        bash -c "'$bin' --generate-completion-script $shell | grep -q 'fetch' && '$bin' --generate-completion-script $shell | grep -q 'base-url'"
done
check "bash takes the bash script" bash -c "source <('$bin' --generate-completion-script bash) && complete -p imgcache > /dev/null"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
