#!/usr/bin/env bash
# Downloads into .whl/ (repository root) the wheels that benchmarks/gpu.py needs and the lent GPU
# machine's image lacks (it has Python 3.12, jax/jaxlib (CUDA), numpy, scipy, absl-py, etils,
# fsspec, tqdm, equinox, diffrax, optax; no network). Run here, then on the GPU machine:
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
#       --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD/src:$PWD || exit
#   PYTHONUNBUFFERED=1 python3 -m benchmarks.gpu --out $OUT/gpu.json
# Versions: those of the project's venv (mujoco 4 is split into mujoco + mujoco-core; its
# mujoco-studio requirement, a viewer that needs websockets, is left out: nothing imports it).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
WHEELS=(
  defusedxml==0.7.1     # jaxbody: model files
  trimesh==5.2.0        # jaxbody: meshes; mujoco-mjx: mesh collision
  mujoco==4.0.0         # requires glfw, pyopengl, mujoco-core (numpy)
  mujoco-core==4.0.0
  mujoco-mjx==3.17.0    # requires absl-py, etils[epath], jax, jaxlib, mujoco, scipy, trimesh
  glfw==2.11.0
  pyopengl==3.1.10
)
PLATFORMS=()
for p in manylinux_2_28 manylinux_2_27 manylinux_2_17 manylinux2014 manylinux1; do
  PLATFORMS+=(--platform "${p}_x86_64")
done
mkdir -p .whl
GD=$(git rev-parse --git-dir); mkdir -p "$GD/info"; grep -qxF /.whl/ "$GD/info/exclude" 2>/dev/null || echo /.whl/ >> "$GD/info/exclude"
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  "${PLATFORMS[@]}" -d .whl "${WHEELS[@]}"
ls -l .whl
du -sh .whl
