"""The model: the concepts a task is made of, each spelled once.

- :mod:`.templates`: ``PodTemplate``, ``Resources``, ``Role`` and the config base class;
- :mod:`.task`: ``Task`` and the ``@task`` decorator;
- :mod:`.roles`: what a task type declares (``TaskType``, ``RoleSpec``, ``FieldDecl``);
- :mod:`.sites`: where a definition was written (its file and line, for ``explain``);
- :mod:`.names`: the Kubernetes name and quantity checks used at definition time;
- :mod:`.podspec`: pod specs at the boundary (normalised once, validated strictly);
- :mod:`._podcheck`: the fast path of that validation (a proof that skips the models).
"""
