#!/usr/bin/env bash
# Installs the project's git hooks (tools/git-hooks: pre-commit formats the C++ files you commit)
# for this clone, by pointing git's core.hooksPath at them; --uninstall points it back.
# Usage: tools/install-hooks.sh [--uninstall]
set -euo pipefail
cd "$(dirname "$0")/.."
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "install-hooks: $(pwd) is not a git clone" >&2; exit 2; }
if [ "${1:-}" = --uninstall ]; then
  git config --unset core.hooksPath || true
  echo "install-hooks: git hooks back to .git/hooks"
  exit 0
fi
git config core.hooksPath tools/git-hooks
echo "install-hooks: pre-commit now formats the C++ files you commit (tools/git-hooks; --uninstall to undo)"
