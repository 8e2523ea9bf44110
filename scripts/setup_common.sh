# Sourced by the set-up scripts (scripts/setup.sh, scripts/setup_tests.sh): installing
# what is missing with apt-get and pip, and the seconds each set-up phase takes.
#   phase NAME        ends the phase before (printing its seconds) and starts NAME
#   phase_end         ends the last phase
#   apt_install_missing PKG...             apt-get install of the packages not installed
#   pip_install_missing "MODULE..." SPEC...  pip install SPEC... unless every MODULE imports
#   optional_failed WHAT                   a test dependency could not be installed: under CI
#                                          (CI set and not "false") the set-up fails, else it warns
# Runs as root, or with sudo.

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

_phase_name="" _phase_start=0
phase() {
  phase_end
  _phase_name=$1 _phase_start=$SECONDS
}
phase_end() {
  if [ -n "$_phase_name" ]; then
    echo "setup: phase $_phase_name took $((SECONDS - _phase_start)) s"
    _phase_name=""
  fi
}

in_ci() { [ -n "${CI:-}" ] && [ "${CI:-}" != "false" ] && [ "${CI:-}" != "0" ]; }

_apt_updated=0
apt_install() {
  if [ "$_apt_updated" -eq 0 ]; then
    $SUDO apt-get update -q
    _apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "$@"
}
apt_install_missing() {
  local missing=() p
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    apt_install "${missing[@]}"
  fi
}

# pip for the python3 on PATH; --break-system-packages where the interpreter is Debian's own
# (PEP 668), which refuses a plain install. As root, pip's warning about root is noise.
export PIP_ROOT_USER_ACTION=ignore
pip_install() {
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  python3 -m pip install -q --disable-pip-version-check "$@" ||
    python3 -m pip install -q --disable-pip-version-check --break-system-packages "$@"
}
pip_install_missing() {
  local modules=$1 m imports=""
  shift
  for m in $modules; do imports="$imports import $m;"; done
  if ! python3 -c "$imports" >/dev/null 2>&1; then
    echo "setup: pip install $*"
    pip_install "$@"
  fi
}

optional_failed() {
  if in_ci; then
    echo "setup: error: $1 could not be installed; under CI every test dependency is required" >&2
    exit 1
  fi
  echo "setup: warning: $1 could not be installed; the tests that need it will skip with the reason" >&2
}
