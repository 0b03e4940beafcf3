#!/bin/sh
# Makes DEST a Python with PyTorch (Debian's python3-torch, as the reference project uses) and
# the tensorboard package from pip's index (pinned; Debian 12 has none), for the TensorBoard
# fixtures (make_tensorboard_runs.py) and bench/bench_tensorboard.sh. Kept between runs: a DEST
# that already holds this version is left as it is.
# Usage: tb-env.sh DEST [PYTHON]
set -eu
dest=$1
python=${2:-/usr/bin/python3}
version=2.21.0
if [ -x "$dest/bin/python" ] && "$dest/bin/python" -c "import tensorboard, torch, sys; sys.exit(tensorboard.__version__ != '$version')" 2>/dev/null; then
  exit 0
fi
rm -rf "$dest"
"$python" -m venv --system-site-packages "$dest" ||
  { echo "tb-env.sh: cannot make a venv with $python: apt install python3-venv" >&2; exit 2; }
"$dest/bin/pip" install --quiet --disable-pip-version-check "tensorboard==$version" ||
  { echo "tb-env.sh: pip could not install tensorboard==$version into $dest: check the network to pip's index" >&2; exit 3; }
"$dest/bin/python" -c "import tensorboard, torch.utils.tensorboard"
