"""Root of the test tree: the conformance kit's pytest plugin is loaded here, before any
test module imports it, so its assertions are rewritten. Each plugin's conformance module
names it too (the one line a plugin in its own repository needs); pytest loads it once."""

pytest_plugins = ["podtemplate.testing"]
