"""Resolution: the layers of one role folded, in their one order, into its final pod.

- :mod:`.kinds`: what each layer is (owner, name shown) and the order they fold in;
- :mod:`.order`: one builder per kind: the layers of one role;
- :mod:`.layers`: a layer as data (kind, label, fragment, primary container name);
- :mod:`.pod`: :func:`resolve_pod`, the fold;
- :mod:`._fast`: the fast paths behind it (copy-on-write, what many tasks share folded
  and proven once, a task's own layers composed once).

The package imports none of them: the policy's layer (:mod:`podtemplate.policy.enforce`)
is built on :mod:`.kinds` and :mod:`.layers`, and :mod:`.pod` folds it, so a package
that imported :mod:`.pod` would import the policy's module from itself. The public name
is ``podtemplate.resolve_pod``.
"""
