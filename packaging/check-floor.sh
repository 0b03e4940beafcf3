#!/usr/bin/env bash
# The symbol floor of a folder of programs: the highest GLIBC_ and GLIBCXX_ version that any ELF
# file under DIR needs (its version-needs section, what the dynamic loader checks at start: a file
# that needs GLIBC_2.34 stops at once on a glibc 2.31 host with "version `GLIBC_2.34' not found").
# Prints one line per kind, with the file that needs the highest version:
#   GLIBC 2.28 (lib/libfoo.so.1)
#   GLIBCXX 3.4.25 (streetgan-trainer-torch)
# and, with --glibc and/or --glibcxx, fails (exit 1) naming every file above the floor given.
# Files that need no GLIBCXX (C programs) count for GLIBC only; "GLIBCXX none" when no file needs it.
# Usage: packaging/check-floor.sh DIR [--glibc 2.28] [--glibcxx 3.4.25] [--quiet]
set -euo pipefail
dir= glibc_floor= glibcxx_floor= quiet=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --glibc) glibc_floor=${2:?--glibc needs a version, e.g. 2.28}; shift 2 ;;
    --glibcxx) glibcxx_floor=${2:?--glibcxx needs a version, e.g. 3.4.25}; shift 2 ;;
    --quiet) quiet=1; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-floor.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) [[ -z $dir ]] || { echo "check-floor.sh: one DIR only (got '$dir' and '$1')" >&2; exit 2; }; dir=$1; shift ;;
  esac
done
[[ -n $dir ]] || { echo "check-floor.sh: usage: packaging/check-floor.sh DIR [--glibc VERSION] [--glibcxx VERSION]" >&2; exit 2; }
[[ $dir == / ]] || dir=${dir%/}
[[ -e $dir ]] || { echo "check-floor.sh: $dir does not exist" >&2; exit 2; }
command -v readelf >/dev/null || { echo "check-floor.sh: readelf is missing: apt install binutils" >&2; exit 2; }
for v in "$glibc_floor" "$glibcxx_floor"; do
  [[ -z $v || $v =~ ^[0-9]+(\.[0-9]+)*$ ]] || { echo "check-floor.sh: '$v' is not a version (digits and dots, e.g. 2.28)" >&2; exit 2; }
done

# vgt A B: version A is higher than version B (sort -V orders dotted numbers as versions).
vgt() { [[ $1 != "$2" && $(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n1) == "$1" ]]; }

max_glibc= max_glibc_file= max_glibcxx= max_glibcxx_file= files=0 above=()
# Every regular file (not links: a link's target is checked as itself) whose first bytes are ELF's.
while IFS= read -r -d '' f; do
  [[ $(head -c 4 "$f" 2>/dev/null | od -An -c | tr -d ' \n') == '177ELF' ]] || continue
  files=$((files + 1))
  if [[ -d $dir ]]; then rel=${f#"$dir"/}; else rel=${f##*/}; fi
  # readelf -V lists the version needs as "Name: GLIBC_2.34  Flags: ...  Version: N" per file needed.
  # Only the needs section: a library's own definitions (libstdc++ defines GLIBCXX_3.4.28) are not needs.
  needs=$(LC_ALL=C readelf -V --wide "$f" 2>/dev/null | awk '/^Version needs section/ {on = 1; next} /^Version (symbols|definition) section/ {on = 0} on' |
    sed -n 's/.*Name: \(GLIBCX*X*_[0-9][0-9.]*\).*/\1/p' | sort -u)
  g= gx=
  for n in $needs; do
    case $n in
      GLIBC_*) v=${n#GLIBC_}; [[ -z $g ]] || vgt "$v" "$g" && g=$v ;;
      GLIBCXX_*) v=${n#GLIBCXX_}; [[ -z $gx ]] || vgt "$v" "$gx" && gx=$v ;;
    esac
  done
  if [[ -n $g ]] && { [[ -z $max_glibc ]] || vgt "$g" "$max_glibc"; }; then max_glibc=$g max_glibc_file=$rel; fi
  if [[ -n $gx ]] && { [[ -z $max_glibcxx ]] || vgt "$gx" "$max_glibcxx"; }; then max_glibcxx=$gx max_glibcxx_file=$rel; fi
  [[ -n $glibc_floor && -n $g ]] && vgt "$g" "$glibc_floor" && above+=("$rel needs GLIBC_$g (floor $glibc_floor)")
  [[ -n $glibcxx_floor && -n $gx ]] && vgt "$gx" "$glibcxx_floor" && above+=("$rel needs GLIBCXX_$gx (floor $glibcxx_floor)")
done < <(if [[ -d $dir ]]; then find "$dir" -type f -print0; else printf '%s\0' "$dir"; fi)

[[ $files -gt 0 ]] || { echo "check-floor.sh: no ELF file under $dir" >&2; exit 2; }
if [[ $quiet -eq 0 ]]; then
  echo "GLIBC ${max_glibc:-none}${max_glibc_file:+ ($max_glibc_file)}"
  echo "GLIBCXX ${max_glibcxx:-none}${max_glibcxx_file:+ ($max_glibcxx_file)}"
fi
if [[ ${#above[@]} -gt 0 ]]; then
  echo "check-floor.sh: ${#above[@]} of $files ELF file(s) under $dir need more than the floor; build them against an older glibc and libstdc++ (an older system or a chroot of one):" >&2
  printf '  %s\n' "${above[@]}" >&2
  exit 1
fi
