# Shared by scripts/setup.sh, scripts/test.sh and .ci/run (sourced, not run).
# Defines the Debian package list, the dependency installer and the CMake configure step.

ARTICULA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Debian packages (bookworm names): compiler, CMake, make, Eigen, urdfdom, yaml-cpp
# (scenario files), CLI11, HDF5 (telemetry), GoogleTest, Google Benchmark, python3 with
# matplotlib for tools/plot_log.py (`articula estop --plot`); clang with its runtime for the
# libFuzzer harnesses (tests/fuzz); pybind11, NumPy and pytest for the Python package (and
# DART's Python bindings, its benchmark peer); Open MPI for `articula stopping` across
# machines; Chromium for the viewer's browser tests; ccache, which lets a second build of the
# same sources (another build folder, a fresh clone in CI on the same machine) reuse objects; MuJoCo
# 2.2.2, the benchmarks' peer (benchmarks/README.md). Node.js and npm (the viewer's front-end,
# from the npm registry) are added when the machine has no npm: Debian's nodejs and npm.
ARTICULA_PACKAGES=(
  g++ cmake make
  libeigen3-dev liburdfdom-dev liburdfdom-headers-dev libtinyxml-dev libyaml-cpp-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev libhdf5-dev
  python3 python3-matplotlib
  clang libclang-rt-14-dev
  pybind11-dev python3-pybind11 python3-numpy python3-pytest python3-dartpy
  libopenmpi-dev openmpi-bin
  chromium
  ccache
  libmujoco-dev
)

# Parallel jobs: $JOBS if set, else the number of cores.
ARTICULA_JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

log() { printf '\n==> %s\n' "$*"; }

# Installs the packages of ARTICULA_PACKAGES that are missing; does nothing (and needs
# no network or root) when all are installed. Uses sudo only when not root.
install_deps() {
  local missing=() pkg
  for pkg in "${ARTICULA_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$pkg")
    fi
  done
  command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
  if [[ ${#missing[@]} -eq 0 ]]; then
    log "Debian packages: all ${#ARTICULA_PACKAGES[@]} already installed, skipping apt"
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: missing packages (${missing[*]}) and no apt-get: install them by hand" >&2
    return 1
  fi
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "error: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2
      return 1
    fi
    sudo=(sudo)
  fi
  log "Debian packages: installing ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
}

# configure BUILD_DIR BUILD_TYPE [extra -D options...]
# Environment: ARTICULA_WERROR (default OFF), ARTICULA_NATIVE (default OFF).
configure() {
  local dir="$1" type="$2"
  shift 2
  # ccache when present (ARTICULA_CCACHE=OFF to do without): paths are hashed relative to the
  # source root and the build folder is not hashed, so a clone in another folder (CI's) reuses
  # the objects of an earlier build of the same sources with the same flags.
  local launcher=()
  if [[ "${ARTICULA_CCACHE:-ON}" != OFF ]] && command -v ccache >/dev/null 2>&1; then
    local cc="env;CCACHE_BASEDIR=$ARTICULA_ROOT;CCACHE_NOHASHDIR=1;ccache"
    launcher=("-DCMAKE_CXX_COMPILER_LAUNCHER=$cc" "-DCMAKE_C_COMPILER_LAUNCHER=$cc")
  fi
  log "Configuring $dir ($type, werror ${ARTICULA_WERROR:-OFF}, native ${ARTICULA_NATIVE:-OFF}${launcher:+, ccache})"
  cmake -S "$ARTICULA_ROOT" -B "$ARTICULA_ROOT/$dir" "${launcher[@]}" \
    -DCMAKE_BUILD_TYPE="$type" \
    -DARTICULA_WERROR="${ARTICULA_WERROR:-OFF}" \
    -DARTICULA_NATIVE="${ARTICULA_NATIVE:-OFF}" \
    "$@"
}

# build BUILD_DIR [cmake --build options...]
build() {
  local dir="$1"
  shift
  log "Building $dir with -j$ARTICULA_JOBS"
  cmake --build "$ARTICULA_ROOT/$dir" -j "$ARTICULA_JOBS" "$@"
}
