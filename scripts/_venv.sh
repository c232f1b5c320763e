# Sourced by scripts/demo and scripts/test: create .venv once and install core and every
# plugin into it (editable), so a fresh clone needs only Python 3.11 and pip. A .venv that
# cannot work (made by a Python older than 3.11 or another one than PYTHON names, no
# bin/python, no pip, a failed first run) is rebuilt. Everything this prints goes to
# stderr: stdout is the command's own output.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="${PODTEMPLATE_VENV:-$root/.venv}"
python=${PYTHON:-python3}
say() { echo "podtemplate: $*" >&2; }

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  found=$("$python" --version 2>&1 || echo "no $python")
  say "needs Python 3.11 or newer, found: $found (fix: install Python 3.11+ or set PYTHON=/path/to/python3.11)"
  exit 2
fi

# Why .venv cannot be used as it is (empty when it can).
venv_problem() {
  if [ ! -e "$venv" ]; then return; fi
  if [ ! -x "$venv/bin/python" ]; then echo "no bin/python"; return; fi
  if ! "$venv/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null
  then echo "its Python is older than 3.11 or does not run"; return; fi
  if [ -n "${PYTHON:-}" ]; then  # PYTHON=python3.12 picks the Python of an existing .venv too
    local made wanted
    made=$("$venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    wanted=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)
    if [ -n "$wanted" ] && [ "$made" != "$wanted" ]; then
      echo "made by Python $made, PYTHON is $wanted"; return
    fi
  fi
  if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then echo "no pip"; return; fi
}

problem=$(venv_problem)
if [ -n "${PODTEMPLATE_VENV_CHECK:-}" ]; then  # tests: say what is wrong, change nothing
  echo "${problem:-ok}"
  exit 0
fi
if [ -n "$problem" ]; then
  say "$venv cannot be used ($problem); rebuilding it"
  rm -rf "$venv"
fi
stamp="$venv/.installed"
if [ ! -x "$venv/bin/python" ]; then
  say "setting up $venv (first run, about a minute)..."
  "$python" -m venv "$venv"
fi
packages=(-e "$root/core")
for plugin in "$root"/plugins/*/; do
  [ -f "$plugin/pyproject.toml" ] && packages+=(-e "$plugin")
done
base=$(cat "$root"/core/pyproject.toml "$root"/plugins/*/pyproject.toml 2>/dev/null | sha256sum | cut -c1-16)
want=$base${EXTRA_STAMP:-}
have=$(cat "$stamp" 2>/dev/null || true)
# Installed when the stamp starts with what we want (scripts/demo wants no extras,
# scripts/mutation fewer than scripts/test): alternating them installs nothing again.
if [ "${have#"$want"}" = "$have" ] || [ -z "$have" ]; then
  [ -n "$have" ] && say "updating $venv (the packages or the dev tools changed)..."
  rm -f "$stamp"  # a run stopped half-way installs again next time
  # pip's progress lines ("Collecting ...", "Installing ..."), on stderr; its errors too.
  "$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar off \
      "${packages[@]}" ${EXTRA_PACKAGES:-} \
    | { grep --line-buffered -E '^(Collecting|Building|Installing|Successfully)' >&2 || true; }
  echo "$want" > "$stamp"
  say "$venv is ready"
fi
export PATH="$venv/bin:$PATH"
