"""The one merge of podtemplate and the rule table it walks.

- :mod:`.engine`: :func:`merge` / :func:`merge_into` (strategic-merge style, keyed lists);
- :mod:`.rules`: the generated table turned into a tree walked beside the data;
- :mod:`._list_rules`: the generated table itself (``scripts/gen_list_rules.py``);
- :mod:`.aliases`: the magic container names inside one layer (``default``...);
- :mod:`.record`: provenance as the merge writes it (``explain``);
- :mod:`.items`: union-list items as the merge compares and deletes them;
- :mod:`._fast`: the merge's fast paths, each with a plain counterpart in the engine.
"""

from __future__ import annotations

from .engine import clean, duplicate_keys, expand_container_aliases, merge, merge_into

__all__ = ["clean", "duplicate_keys", "expand_container_aliases", "merge", "merge_into"]
