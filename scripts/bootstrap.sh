#!/usr/bin/env bash
# One entry point for a fresh Debian machine: installs what dealerassist needs, then runs it.
#   scripts/bootstrap.sh demo [ARGS...]   the simulated table (dealerassist demo ARGS...)
#   scripts/bootstrap.sh test [PYTEST ARGS...]   the whole test suite
#   scripts/bootstrap.sh install         only install
set -euo pipefail
cd "$(dirname "$0")/.."

action=${1:-install}
shift || true

# System packages the tests drive for real: a browser, a PostgreSQL server, an SVG renderer and
# the fonts the generated card designs print their indices in (dealerassist/simulation/card_designs.py).
system_packages=(chromium chromium-driver postgresql librsvg2-bin
    fonts-urw-base35 fonts-dejavu fonts-liberation fonts-freefont-ttf)

install_system() {
    local missing=()
    for pkg in "${system_packages[@]}"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "bootstrap: installing system packages: ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

install_python() {
    if [ ! -x .venv/bin/python ]; then
        python3 -m venv .venv
    fi
    .venv/bin/python -m pip install -q --upgrade pip >&2
    .venv/bin/python -m pip install -q -e '.[test,bench,fast]' >&2
}

case "$action" in
    install)
        install_system
        install_python
        ;;
    demo)
        install_python
        exec .venv/bin/dealerassist demo "$@"
        ;;
    test)
        install_system
        install_python
        set +e
        .venv/bin/python -m pytest "$@"
        rc=$?
        set -e
        if [ "$rc" -eq 5 ]; then
            echo "bootstrap: pytest collected no tests: treating as failure" >&2
            exit 1
        fi
        exit "$rc"
        ;;
    *)
        echo "usage: scripts/bootstrap.sh demo|test|install [ARGS...]" >&2
        exit 2
        ;;
esac
