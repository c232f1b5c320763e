"""Files in and out: safe YAML loading, deterministic YAML/JSON output, template stores.

- :mod:`.yamlio`: the safe loader and the dumpers;
- :mod:`.yaml_lines`: the same safe load, with the line of every value (for ``explain``);
- :mod:`._yaml_emit`: the fast path of the YAML dumper (same bytes as PyYAML);
- :mod:`.store`: where cluster templates are looked up by name;
- :mod:`.builtin_store`: the built-in plugin answering with the folder store;
- :mod:`.entrypoints`: the ``podtemplate`` entry points installed, read from the
  distributions' metadata files.
"""
