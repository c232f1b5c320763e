"""Run by the flytekit oracle's venv (:mod:`.flyte_oracle`), not imported by podtemplate:
``python flytekit_serialize.py FOLDER MODULE`` imports ``MODULE`` from ``FOLDER`` and
prints, as one JSON object, each flytekit task of it by its variable name: the
``TaskTemplate`` ``pyflyte register`` uploads (``get_serializable``, then the protobuf),
as JSON with the protobuf's camelCase field names."""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections import OrderedDict
from typing import Any


def serialize(folder: str, module_name: str) -> dict[str, Any]:
    configuration = importlib.import_module("flytekit.configuration")
    translator = importlib.import_module("flytekit.tools.translator")
    base_task = importlib.import_module("flytekit.core.base_task")
    json_format = importlib.import_module("google.protobuf.json_format")
    sys.path.insert(0, folder)
    os.chdir(folder)  # flytekit names a task by its module, found from the working folder
    module = importlib.import_module(module_name)
    image = configuration.Image(name="default", fqn="ghcr.io/acme/python", tag="3.11")
    settings = configuration.SerializationSettings(
        project="p", domain="d", version="v1",
        image_config=configuration.ImageConfig(default_image=image, images=[image]))
    out: dict[str, Any] = {}
    for name, value in vars(module).items():
        if isinstance(value, base_task.PythonTask):
            spec = translator.get_serializable(OrderedDict(), settings, value)
            out[name] = json_format.MessageToDict(spec.template.to_flyte_idl())
    return out


if __name__ == "__main__":
    print(json.dumps(serialize(sys.argv[1], sys.argv[2])))
