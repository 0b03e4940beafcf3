#!/usr/bin/env python3
"""The trainer-only configuration (no Qt, no tests: what a GPU box builds, packaging/build-trainer.sh)
cannot rot unnoticed (ctest `trainer_only_config`).

It configures that configuration into a temporary folder with the release build's build type, then
checks that (1) it configures without Qt, (2) every file it compiles is compiled by the release
build with exactly the same command (build folders aside), and (3) streetgan-trainer and
streetgan-trainer-torch link the same libraries as in the release build. The release build compiled and linked all of that and the
suite ran it, so the trainer-only build compiles and links too, without compiling LibTorch code a
second time (about 15 minutes on CI's two cores). A file or flag that only the trainer-only
configuration has, or a Qt library in it, fails here with its name.

Usage: check_trainer_only.py SOURCE_DIR RELEASE_BUILD_DIR
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
        out[f] = cmd
    return out


def trainer_link(build, target):
    ninja = open(os.path.join(build, "build.ninja")).read()
    m = re.search(rf"^build app/{target}: \S+ .*?\n((?:  .*\n)+)", ninja, re.M)
    if not m:
        sys.exit(f"trainer_only: no link rule for app/{target} in {build}/build.ninja")
    libs = re.search(r"^  LINK_LIBRARIES = (.*)$", m.group(1), re.M)
    text = libs.group(1) if libs else ""
    return text.replace(os.path.realpath(build), "<build>").replace(build, "<build>")


def main():
    src, release = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    cache = open(os.path.join(release, "CMakeCache.txt")).read()
    build_type = re.search(r"^CMAKE_BUILD_TYPE:\w+=(.*)$", cache, re.M).group(1)
    tmp = tempfile.mkdtemp(prefix="streetgan-trainer-only-", dir=os.environ.get("TMPDIR", "/tmp"))
    try:
        r = subprocess.run(["cmake", "-S", src, "-B", tmp, "-G", "Ninja", f"-DCMAKE_BUILD_TYPE={build_type}",
                            "-DSTREETGAN_BUILD_GUI=OFF", "-DSTREETGAN_BUILD_TESTS=OFF"], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"trainer_only: the trainer-only configuration does not configure:\n{r.stdout}\n{r.stderr}")
        problems = []
        ninja = open(os.path.join(tmp, "build.ninja")).read()
        if re.search(r"Qt6|libQt6|qt6", ninja):
            problems.append("build.ninja of the trainer-only configuration mentions Qt")
        mine, theirs = commands(tmp), commands(release)
        for f, cmd in sorted(mine.items()):
            if f not in theirs:
                problems.append(f"{f}: compiled only by the trainer-only configuration")
            elif theirs[f] != cmd:
                problems.append(f"{f}: compiled differently\n  trainer-only: {cmd}\n  release:      {theirs[f]}")
        for target in ("streetgan-trainer", "streetgan-trainer-torch"):  # the front and the full trainer
            if trainer_link(tmp, target) != trainer_link(release, target):
                problems.append(f"{target} links differently\n  trainer-only: {trainer_link(tmp, target)}\n  release:      {trainer_link(release, target)}")
        for p in problems:
            print(p)
        print(f"trainer_only: {len(mine)} files compiled, {len(problems)} problem(s)")
        return 1 if problems else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
