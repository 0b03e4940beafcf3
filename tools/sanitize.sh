#!/usr/bin/env bash
# Builds and runs the sanitizer suites (CMakePresets.json: asan, tsan).
#
#   tools/sanitize.sh asan [ctest args...]   AddressSanitizer + UndefinedBehaviorSanitizer over the
#                                            unit and integration suites (labels unit|integration)
#   tools/sanitize.sh tsan [ctest args...]   ThreadSanitizer over the threaded suites (label
#                                            "threaded": daemon, remote, loader, GUI event pipeline)
#   tools/sanitize.sh all                    both, one after the other
#
# Builds go to build/asan and build/tsan (-O1, line tables only: a full asan build takes about as
# long as the release build). Suppressions live in tools/sanitizers/*.supp: third-party code only
# (Debian's LibTorch, Qt and their dependencies are not instrumented), each with its reason. Every
# sanitizer report aborts its test, so the exit code is ctest's: 0 means no finding.
set -euo pipefail
cd "$(dirname "$0")/.."

# The presets set these options for the build and test steps (the build runs each test program
# once to list its tests); exported here too so that a program started by hand behaves the same.
supp="$PWD/tools/sanitizers"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0:suppressions=$supp/asan.supp"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
# die_after_fork=0: the tests and Qt's QProcess fork from a threaded process to exec a child;
# TSan would kill such a child before its exec.
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:die_after_fork=0:suppressions=$supp/tsan.supp"


run() {
    local kind=$1
    shift
    cmake --preset "$kind" >/dev/null
    if [ "$kind" = tsan ]; then
        cmake --build --preset tsan --target threaded_suites  # tests/CMakeLists.txt lists them
    else
        cmake --build --preset "$kind"
    fi
    ctest --preset "$kind" "$@"
}

case "${1:-}" in
    asan | tsan) kind=$1; shift; run "$kind" "$@" ;;
    all) run asan && run tsan ;;
    *) echo "usage: tools/sanitize.sh asan|tsan|all [ctest args...]" >&2; exit 2 ;;
esac
