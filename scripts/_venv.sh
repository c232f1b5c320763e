# Sourced by scripts/demo and scripts/test: create .venv once and install core and every
# plugin into it (editable), so a fresh clone needs only Python 3.11 and pip.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="${PODTEMPLATE_VENV:-$root/.venv}"
python=${PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
packages=(-e "$root/core")
for plugin in "$root"/plugins/*/; do
  [ -f "$plugin/pyproject.toml" ] && packages+=(-e "$plugin")
done
stamp="$venv/.installed"
want=$(cat "$root"/core/pyproject.toml "$root"/plugins/*/pyproject.toml 2>/dev/null | sha256sum | cut -c1-16)${EXTRA_STAMP:-}
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}" ${EXTRA_PACKAGES:-}
  echo "$want" > "$stamp"
fi
export PATH="$venv/bin:$PATH"
