#!/usr/bin/env bash
# The formatting gate: every C++ file of the tree is as clang-format (Debian 12's, 14) writes it
# with the project's .clang-format. Lists each file that differs, with the command that fixes it,
# and exits 1; exits 0 when all agree. The README's test command runs it (ctest: format_check).
# Usage: tools/check-format.sh [SOURCE_DIR]   (default: this script's tree)
set -euo pipefail
src="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$src"
command -v clang-format >/dev/null || { echo "check-format: clang-format is missing: packaging/install-deps.sh installs it" >&2; exit 2; }
# The tracked files (a fresh clone); without git, the same folders by name.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
else
  dirs=()
  for d in app bench core fuzz tests tools ui; do [ -d "$d" ] && dirs+=("$d"); done
  [ "${#dirs[@]}" -gt 0 ] || { echo "check-format: no source folders under $src" >&2; exit 2; }
  mapfile -t files < <(find "${dirs[@]}" \( -name '*.cpp' -o -name '*.h' \) | sort)
fi
[ "${#files[@]}" -gt 0 ] || { echo "check-format: no C++ files under $src" >&2; exit 2; }
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue  # deleted in the work tree, not yet in the index
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ "${#bad[@]}" -gt 0 ]; then
  printf 'check-format: %s\n' "${bad[@]/%/ is not formatted as .clang-format says}" >&2
  echo "check-format: ${#bad[@]} of ${#files[@]} files differ; fix them with: clang-format -i ${bad[*]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted as .clang-format says"
