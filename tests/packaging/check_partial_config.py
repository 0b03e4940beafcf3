#!/usr/bin/env python3
"""The two partial configurations cannot rot unnoticed (ctest `trainer_only_config`, `gui_only_config`):

  trainer-only  -DSTREETGAN_BUILD_GUI=OFF: no Qt (what a GPU box builds, packaging/build-trainer.sh)
  gui-only      -DSTREETGAN_BUILD_TRAINER=OFF: no LibTorch (the desktop app and the trainer front)

It configures the one asked for (tests off) into a temporary folder with the release build's build
type, then checks that (1) it configures without the part it leaves out (no Qt in build.ninja; no
LibTorch: neither found in the cache nor linked), (2) every file it compiles is compiled by the
release build with exactly the same command (build folders aside), and (3) its programs link the
same libraries as in the release build. The release build compiled and linked all of that and the
suite ran it, so the partial build compiles and links too, without compiling anything a second
time (about 15 minutes of LibTorch code on CI's two cores). A file or flag that only the partial
configuration has, or a library of the part it leaves out, fails here with its name.

Usage: check_partial_config.py trainer-only|gui-only SOURCE_DIR RELEASE_BUILD_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def commands(build):
    out = {}
    for e in json.load(open(os.path.join(build, "compile_commands.json"))):
        cmd = e["command"].replace(os.path.realpath(build), "<build>").replace(build, "<build>")
        # A compiler launcher (ccache) is a local choice of the release build, not a flag.
        cmd = re.sub(r"^\S*ccache\s+", "", cmd)
        f = e["file"].replace(os.path.realpath(build), "<build>").replace(build, "<build>")
        # A file may be compiled by more than one target (a test builds the archive reader without
        # libarchive): each of its commands.
        out.setdefault(f, []).append(cmd)
    return out


MODES = {
    # flags, programs whose links must match, what must not appear in build.ninja
    "trainer-only": (["-DSTREETGAN_BUILD_GUI=OFF"], ("streetgan-trainer", "streetgan-trainer-torch"), r"Qt6|libQt6|qt6", "Qt"),
    "gui-only": (["-DSTREETGAN_BUILD_TRAINER=OFF"], ("streetgan", "streetgan-trainer"), r"libtorch|libc10|/torch/|streetgan_ml", "LibTorch"),
}


def program_link(build, target, mode):
    ninja = open(os.path.join(build, "build.ninja")).read()
    m = re.search(rf"^build app/{target}: \S+ .*?\n((?:  .*\n)+)", ninja, re.M)
    if not m:
        sys.exit(f"{mode}: no link rule for app/{target} in {build}/build.ninja")
    libs = re.search(r"^  LINK_LIBRARIES = (.*)$", m.group(1), re.M)
    text = libs.group(1) if libs else ""
    return text.replace(os.path.realpath(build), "<build>").replace(build, "<build>")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in MODES:
        sys.exit(__doc__)
    mode = sys.argv[1]
    flags, programs, absent, absent_name = MODES[mode]
    src, release = os.path.realpath(sys.argv[2]), os.path.realpath(sys.argv[3])
    cache = open(os.path.join(release, "CMakeCache.txt")).read()
    build_type = re.search(r"^CMAKE_BUILD_TYPE:\w+=(.*)$", cache, re.M).group(1)
    tmp = tempfile.mkdtemp(prefix=f"streetgan-{mode}-", dir=os.environ.get("TMPDIR", "/tmp"))
    try:
        r = subprocess.run(["cmake", "-S", src, "-B", tmp, "-G", "Ninja", f"-DCMAKE_BUILD_TYPE={build_type}", "-DSTREETGAN_BUILD_TESTS=OFF"] + flags,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"{mode}: the {mode} configuration does not configure:\n{r.stdout}\n{r.stderr}")
        problems = []
        ninja = open(os.path.join(tmp, "build.ninja")).read()
        found = re.search(absent, ninja)
        if found:
            problems.append(f"build.ninja of the {mode} configuration mentions {absent_name} ({found.group(0)})")
        if mode == "gui-only" and re.search(r"^Torch_DIR:", open(os.path.join(tmp, "CMakeCache.txt")).read(), re.M):
            problems.append("the gui-only configuration looked for LibTorch (Torch_DIR in its CMakeCache.txt)")
        mine, theirs = commands(tmp), commands(release)
        for f, cmds in sorted(mine.items()):
            for cmd in cmds:
                if f not in theirs:
                    problems.append(f"{f}: compiled only by the {mode} configuration")
                elif cmd not in theirs[f]:
                    problems.append(f"{f}: compiled differently\n  {mode}: {cmd}\n  release: " + "\n  release: ".join(theirs[f]))
        for target in programs:
            mine_link, their_link = program_link(tmp, target, mode), program_link(release, target, mode)
            if mine_link != their_link:
                problems.append(f"{target} links differently\n  {mode}: {mine_link}\n  release: {their_link}")
        for p in problems:
            print(p)
        print(f"{mode}: {len(mine)} files compiled, {len(problems)} problem(s)")
        return 1 if problems else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
