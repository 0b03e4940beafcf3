#!/usr/bin/env bash
# The pre-commit hook (tools/git-hooks/pre-commit, installed by tools/install-hooks.sh) in a
# throw-away clone of this tree's hook files: a badly formatted file staged whole is committed
# formatted; one staged in part with unformatted staged text stops the commit, naming it, and
# changes nothing; --uninstall takes the hook away.
set -euo pipefail
src=$1
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/tools/git-hooks" && cp "$src/tools/install-hooks.sh" "$t/tools/" && cp "$src/tools/git-hooks/pre-commit" "$t/tools/git-hooks/"
cp "$src/.clang-format" "$t/"
cd "$t"
git init -q . && git config user.name t && git config user.email t@t
git add -A && git commit -qm base
tools/install-hooks.sh >/dev/null
[ "$(git config core.hooksPath)" = tools/git-hooks ] || { echo "core.hooksPath not set"; exit 1; }
printf 'int   f( ){return 1 ;}\n' > a.cpp
git add a.cpp
git commit -qm "a" 2>hook.err || { cat hook.err; echo "the commit of a whole staged file failed"; exit 1; }
grep -q "formatted a.cpp" hook.err || { cat hook.err; echo "the hook did not say what it formatted"; exit 1; }
git show HEAD:a.cpp | clang-format --assume-filename=a.cpp --dry-run -Werror >/dev/null 2>&1 || { git show HEAD:a.cpp; echo "committed unformatted"; exit 1; }
git diff --quiet || { echo "the work tree differs from the commit"; exit 1; }
# Staged in part: the staged text unformatted, more edits left in the work tree.
printf 'int   g( ){return 2 ;}\n' > b.cpp && git add b.cpp && printf 'int   g( ){return 3 ;}\n' > b.cpp
head=$(git rev-parse HEAD)
if git commit -qm "b" 2>hook.err; then echo "a part-staged unformatted file was committed"; exit 1; fi
grep -q "b.cpp is staged in part" hook.err || { cat hook.err; exit 1; }
[ "$(git rev-parse HEAD)" = "$head" ] || { echo "a commit was made"; exit 1; }
[ "$(cat b.cpp)" = 'int   g( ){return 3 ;}' ] || { echo "the work tree was touched"; exit 1; }
tools/install-hooks.sh --uninstall >/dev/null
[ -z "$(git config core.hooksPath || true)" ] || { echo "--uninstall left core.hooksPath"; exit 1; }
git commit -qm "b unformatted, without the hook"
echo "pre-commit hook: formats whole files, stops on part-staged ones, uninstalls"
