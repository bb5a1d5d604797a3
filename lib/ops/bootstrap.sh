# Shared by arena.sh and test-all.sh (sourced): installs what a fresh Debian clone lacks.
# Everything it installs is named on the terminal; nothing is installed when it is already present.

ops_section() { printf '\n\033[1m== %s ==\033[0m\n' "$*"; }

ops_as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else echo "need root to run: $*" >&2; return 1
  fi
}

ops_apt_updated=0
ops_apt_install() {
  if [ "$ops_apt_updated" -eq 0 ]; then
    ops_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    ops_apt_updated=1
  fi
  ops_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

ops_check_node() {
  if ! command -v node >/dev/null 2>&1; then
    echo "Node.js 20 (>= 20.19) is required: https://nodejs.org or apt-get install nodejs" >&2
    exit 1
  fi
  local version
  version="$(node -p 'process.versions.node')"
  if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a===20&&b>=19)?0:1)'; then
    echo "Node.js >= 20.19 is required, found $version" >&2
    exit 1
  fi
}

# A local pod covers /run, /tmp, /var/tmp and /dev/shm with a tmpfs of its own (PRIVATE_COVERS in
# lib/pods/sandbox/mount-plan.ts), so a checkout there is invisible inside every pod: its evaluations (and the tests
# that run them) could not start an engine. Said before anything is installed, with the way out. The folder checked is
# the working directory's, or the one given.
ops_check_checkout_place() {
  local root
  root="${1:-$(pwd -P)}"
  case "$root/" in
    /run/* | /tmp/* | /var/tmp/* | /dev/shm/*)
      echo "this checkout is at $root: the arena cannot run from under /run, /tmp, /var/tmp or /dev/shm, which every local pod covers with a private tmpfs (its engines would not see the arena's files). Clone it elsewhere, e.g. under your home folder." >&2
      exit 1
      ;;
  esac
}

# npm ci when node_modules is missing or older than the lock file.
ops_ensure_node_modules() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    ops_section "npm ci"
    npm ci --no-audit --no-fund
  fi
}

ops_ensure_redis_server() {
  if [ -z "${REDIS_URL:-}" ] && ! command -v redis-server >/dev/null 2>&1; then
    ops_section "installing redis-server (Debian package)"
    ops_apt_install redis-server
  fi
}

ops_ensure_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    ops_section "installing chromium (Debian package)"
    ops_apt_install chromium
  fi
}
