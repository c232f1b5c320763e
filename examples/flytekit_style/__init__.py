"""Tasks written as flytekit users write them (ported from the public flytesnacks examples
and flytekit's own tests), rendered with the platform file:

    podtemplate render examples/flytekit_style --platform examples/platform.yaml

Each module keeps flytekit's spellings where podtemplate takes them (some with a one-time
MigrationWarning naming podtemplate's own spelling); docs/from-flytekit.md maps every
construct. Not part of ``scripts/demo`` (which renders the project's own examples).
"""
