"""The conformance engine: the probe, the kit that renders it through every layer of a
task type, and the checks over what reached each pod. Plugin authors use it through
:mod:`podtemplate.testing`; ``podtemplate coverage`` uses it directly.
"""
