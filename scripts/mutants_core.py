"""The core set of scripts/mutation: bugs one could write in core's merge and resolution,
each judged by core's own tests (:data:`CORE_TESTS`), not by the conformance kit.

Each mutant replaces ``old`` by ``new`` in the one module of ``core/src/podtemplate/<package>``
that holds ``old``, once. They follow the rules of docs/design.md ("The layers of a pod",
"The merge") and README's "Merge rules"; the tests that kill them state those rules.
"""

from __future__ import annotations

from typing import NamedTuple

# The judge: the files that state the merge and resolution rules case by case first (a
# killed mutant stops at its first failure), then the laws and the rest.
CORE_TESTS = (
    "core/tests/test_merge_semantics.py",
    "core/tests/test_resolve_semantics.py",
    "core/tests/test_flyte_resources.py",
    "core/tests/test_merge.py",
    "core/tests/test_merge_purity.py",
    "core/tests/test_merge_laws.py",
    "core/tests/test_resolve.py",
    "core/tests/test_policy_render.py",
    "core/tests/test_cow_after_fold.py",
    "core/tests/test_merge_fast.py",
    "core/tests/test_explain_core.py",
)


class CoreMutant(NamedTuple):
    name: str
    package: str  # merge, resolve or policy
    old: str
    new: str
    defect: str
    quick: bool = False  # in the set CI runs (scripts/mutation --quick)


def _merge(name: str, old: str, new: str, defect: str, *, quick: bool = False) -> CoreMutant:
    return CoreMutant(name, "merge", old, new, defect, quick)


def _resolve(name: str, old: str, new: str, defect: str, *, quick: bool = False) -> CoreMutant:
    return CoreMutant(name, "resolve", old, new, defect, quick)


def _policy(name: str, old: str, new: str, defect: str, *, quick: bool = False) -> CoreMutant:
    return CoreMutant(name, "policy", old, new, defect, quick)


CORE_MUTANTS = (
    _merge("falsy-flat-item-skipped",
           "                    out[pos].update(item)",
           "                    out[pos].update({k: v for k, v in item.items() if v})",
           "false, 0 and \"\" in a keyed item (env value, readOnly) do not override", quick=True),
    _merge("null-kept-without-provenance",
           "            elif value is None:\n                if key in target:",
           "            elif value is None and record is not None:\n"
           "                if key in target:",
           "null removes a key only when provenance is recorded: render emits null"),
    _merge("deleted-map-left-empty",
           "    if value.get(PATCH) == DELETE:\n        if key in target:",
           "    if value.get(PATCH) == DELETE and key not in target:\n        if key in target:",
           "an object deleted with $patch: delete stays as {} instead of disappearing"),
    _merge("object-replace-merges",
           "    if patch in (REPLACE, DELETE):\n        if record",
           "    if patch == DELETE:\n        if record",
           "$patch: replace on an object merges into what it inherits", quick=True),
    _merge("list-replace-keeps-lower",
           "        old, items = None, items[1:]",
           "        items = items[1:]",
           "a list starting with {$patch: replace} is merged into what it inherits"),
    _merge("second-delete-skipped",
           "deleted = _delete_keyed(out, index, item, key, node, path, record) or deleted",
           "deleted = deleted or _delete_keyed(out, index, item, key, node, path, record)",
           "after one $patch: delete in a keyed list, the next ones of that list are ignored"),
    _merge("multi-key-index-off-by-one",
           "index = {key_of(existing, node): pos for pos, existing in enumerate(out)}",
           "index = {key_of(existing, node): pos for pos, existing in enumerate(out, 1)}",
           "an inherited port (multi-key item) is matched one place too far"),
    _merge("keyed-new-item-index-off-by-one",
           "                index[key] = len(out)\n                out.append(new)",
           "                out.append(new)\n                index[key] = len(out)",
           "a container added by a layer is indexed one place too far"),
    _merge("long-union-index-stale",
           "                if pos is None:\n                    seen[ident] = len(out)\n", "",
           "in a long union list, an item given twice by one layer appears twice"),
    _merge("short-union-not-deduplicated",
           "pos = union_position(out, new, _ident)", "pos = None",
           "a toleration or envFrom given by two layers appears twice", quick=True),
    _merge("union-delete-ignored",
           "                if item[PATCH] == DELETE:\n"
           "                    origins = union_delete(",
           "                if item[PATCH] == REPLACE:\n"
           "                    origins = union_delete(",
           "$patch: delete in a toleration or envFrom list is ignored"),
    _merge("union-delete-keeps-provenance",
           "origins = union_delete(out, origins, item, node)",
           "union_delete(out, origins, item, node)",
           "provenance of the union items a layer deletes is kept, the rest shifted"),
    _merge("union-duplicate-keeps-lower-provenance",
           "                if origins is not None:\n                    origins.append(None)\n"
           "            if origins is not None:\n                origins[pos] = layer\n",
           "                if origins is not None:\n                    origins.append(layer)\n",
           "a union item two layers give is attributed to the lower one"),
    _merge("flat-items-not-recorded",
           "if record is None and is_flat(item):", "if is_flat(item):",
           "provenance of env vars, ports and mounts stays with the layer that first set them"),
    _merge("deleted-port-provenance-kept",
           'forget(record, f"{path}[{render_key(key)}]", out[pos], node.item or EMPTY)',
           'forget(record, f"{path}[{key}]", out[pos], node.item or EMPTY)',
           "provenance of a deleted multi-key item (a port) is kept"),
    _merge("emptied-list-kept",
           "    if merged or not value:", "    if merged or value:",
           "a list emptied by its directives stays as [], an explicit [] is dropped"),
    _merge("cow-takes-unclean-atomic-list",
           "    if cow is not None and cow.share and type(items) is list:",
           "    if cow is not None and type(items) is list:",
           "copy-on-write takes an atomic list by reference from a layer that is not clean",
           quick=True),
    _merge("cow-takes-unclean-object",
           "        if cow is not None and cow.share:\n            target[key] = cow.take(value)",
           "        if cow is not None:\n            target[key] = cow.take(value)",
           "copy-on-write takes an object by reference from a layer that is not clean"),
    _merge("cow-item-owned-by-its-list",
           "if pos is not None and cow is not None and id(out[pos]) in cow.borrowed:",
           "if pos is not None and cow is not None and id(out) in cow.borrowed:",
           "copy-on-write asks the list, not the item, whether a keyed item is borrowed"),
    _merge("cow-list-copy-forgets-items",
           "            old = cow.own_list(old)", "            old = list(old)",
           "copy-on-write copies a borrowed list but treats its items as owned"),
    _merge("cow-own-forgets-children",
           "        copy = dict(borrowed)\n        add = self.borrowed.add\n"
           "        for value in copy.values():\n"
           "            if type(value) is dict or type(value) is list:\n"
           "                add(id(value))\n",
           "        copy = dict(borrowed)\n",
           "copy-on-write copies a borrowed dict but treats what it holds as owned"),
    _merge("clean-check-misses-duplicates",
           "            if key in keys:\n                return False  # merged into one",
           "            if False:\n                return False  # merged into one",
           "a template giving one env var twice counts as clean and is taken as it is"),
    # ------------------------------------------------------------------ merge/rules, items
    _merge("multi-key-reduced-to-first",
           "    return tuple(values) if len(values) > 1 else values[0]",
           "    return values[0]",
           "ports are keyed by containerPort alone: 53/TCP and 53/UDP merge into one"),
    _merge("key-default-ignored",
           "        if value is None:\n            value = default",
           "        if value is None:\n            pass",
           "a port without protocol does not match the same port with protocol TCP"),
    _merge("forgotten-port-list-provenance-kept",
           'forget(record, f"{path}[{render_key(key_of(item, node))}]", item,',
           'forget(record, f"{path}[{key_of(item, node)}]", item,',
           "provenance of the ports a replaced list removed is kept"),
    _merge("leaf-over-object-keeps-provenance",
           "    if isinstance(old, (dict, list)):\n        forget(record, cpath, old, node)\n"
           "    record.paths[cpath] = record.layer",
           "    record.paths[cpath] = record.layer",
           "a value that replaces an object keeps the provenance of the object's fields"),
    _merge("union-delete-matches-any-field",
           "and all(existing.get(name) == value for name, value in wanted)",
           "and any(existing.get(name) == value for name, value in wanted)",
           "a toleration delete removes every toleration sharing one field with it"),
    # ------------------------------------------------------------------ merge/aliases
    _merge("composed-replace-lost",
           "    if higher.get(PATCH) in (REPLACE, DELETE):\n        return dict(copy_json(higher))",
           "    if higher.get(PATCH) == DELETE:\n        return dict(copy_json(higher))",
           "$patch: replace lost when two entries of one layer are composed", quick=True),
    _merge("composed-union-reversed",
           "        return [*lower, *fresh]", "        return [*fresh, *lower]",
           "union lists of two composed entries (default, then the container) reversed"),
    _merge("composed-null-then-value-merged",
           "            out[key] = _as_replace(value)", "            out[key] = copy_json(value)",
           "a field the default entry removes and the container sets again is merged "
           "over the lower layers"),
    _merge("composed-delete-then-readd-merged",
           "            out[pos] = _as_replace(item)", "            out[pos] = copy_json(item)",
           "an item the default entry deletes and the container adds again is merged "
           "over the lower layers' item"),
    _merge("composed-removed-list-merged",
           "        return items if starts_replace else [{PATCH: REPLACE}, *items]",
           "        return items",
           "a list the default entry removes and the container gives again is merged "
           "over the lower layers' list"),
    _merge("default-over-container",
           'container = compose({**base, "name": name}, container, node)',
           'container = compose(container, {**base, "name": name}, node)',
           "the default entry wins over a container's own entry in the same template"),
    _merge("literal-over-primary-alias",
           "    entries = literal + aliased", "    entries = aliased + literal",
           "a literal entry named like the primary wins over the primary alias entry"),
    _merge("default-init-to-containers",
           'out["initContainers"] = _apply_default(init, DEFAULT_INIT_CONTAINER, '
           "init_container_names,",
           'out["initContainers"] = _apply_default(init, DEFAULT_INIT_CONTAINER, '
           "container_names,",
           "default-init creates init containers named after the pod's containers"),
    # ------------------------------------------------------------------ resolve/
    _resolve("delete-entry-counted-as-container",
             "            if not gone:\n                given.append(name)\n"
             "    return (tuple(name for name in given if not deleted[name]),",
             "            given.append(name)\n    return (tuple(given),",
             "a $patch: delete entry counts as a container name: default entries recreate it",
             quick=True),
    _resolve("scheduling-keeps-default-resources",
             "    task_names = {layer.primary_alias, DEFAULT_CONTAINER}",
             "    task_names = {layer.primary_alias}",
             "a scheduling-only role keeps the resources of the template's default entry",
             quick=True),
    _resolve("scheduling-loses-metadata",
             '    if "metadata" in layer.fragment:\n'
             '        fragment["metadata"] = layer.fragment["metadata"]\n', "",
             "a scheduling-only role loses the labels and annotations of the task's templates"),
    _resolve("gpu-limit-not-mirrored",
             "    gpu = (requests and requests.gpu) or (limits and limits.gpu)",
             "    gpu = requests and requests.gpu",
             "a GPU limit alone is not mirrored to the request"),
    _resolve("limit-raised-over-own-layer",
             "or by_request <= by_limit:", "or by_request < by_limit:",
             "a request above the limit of its own layer raises the limit instead of failing"),
    _resolve("quantities-compared-as-text",
             "and parse_quantity(requests[name]) > parse_quantity(limits[name])]",
             "and requests[name] > limits[name]]",
             "requests and limits compared as strings: 512Mi is taken above 1Gi"),
    _resolve("limit-setter-ignores-default",
             "        own = {primary, DEFAULT_CONTAINER, *(",
             "        own = {primary, *(",
             "a limit set through a template's default entry is not raised to the request"),
    _resolve("limit-setter-lowest-layer",
             "    for index in range(len(layers) - 1, -1, -1):\n        layer = layers[index]\n"
             "        own = {",
             "    for index in range(len(layers)):\n        layer = layers[index]\n        own = {",
             "the lowest layer setting a request or limit is taken as its setter"),
    _resolve("limit-raised-to-itself",
             "        raised[name] = requests[name]", "        raised[name] = limits[name]",
             "the limit below a higher layer's request is reported as raised but kept"),
    _resolve("init-container-tolerations-missed",
             '    for name in ("containers", "initContainers"):\n'
             '        for container in spec.get(name) or ():\n'
             '            resources = container.get("resources") or {}',
             '    for name in ("containers",):\n'
             '        for container in spec.get(name) or ():\n'
             '            resources = container.get("resources") or {}',
             "an init container's resources bring no resourceTolerations"),
    _resolve("limit-only-tolerations-missed",
             '            for kind in ("requests", "limits"):\n'
             "                yield from resources.get(kind) or {}",
             '            for kind in ("requests",):\n'
             "                yield from resources.get(kind) or {}",
             "a resource only limited brings no resourceTolerations"),
    _policy("enforce-warns-for-platform-values",
            "if setter is not None and setter.kind.authored:",
            "if setter is not None:",
            "the policy warns when it replaces a platform layer's value"),
    # ------------------------------------------------------------------ resolve/pod.py
    _resolve("role-interruptible-false-ignored",
             "if role_spec.role is not None and role_spec.role.interruptible is not None:",
             "if role_spec.role is not None and role_spec.role.interruptible:",
             "Role(interruptible=False) does not take a role off an interruptible task's nodes"),
    _resolve("task-interruptible-reaches-every-role",
             "    return task.interruptible and role_spec.task_interruptible",
             "    return task.interruptible",
             "an interruptible task puts roles with task_interruptible=False on spot nodes"),
    _resolve("default-request-above-limit",
             "low = limit is not None and parse_quantity(limit) < parse_quantity(",
             "low = limit is not None and parse_quantity(limit) > parse_quantity(",
             "defaultResources fills a request above the container's limit (a container the "
             "operator sizes, Spark's)"),
    _resolve("platform-cap-raises",
             "and parse_quantity(value) > parse_quantity(caps[name]) else value",
             "and parse_quantity(value) < parse_quantity(caps[name]) else value",
             "defaultResources.limits raises the values below it instead of capping those "
             "above"),
    _resolve("unset-limit-not-the-request",
             "            limits.setdefault(name, value)\n",
             "            pass\n",
             "an unset limit stays unset instead of taking the request (Flyte's rule)"),
    _resolve("deleted-container-stays-named",
             "        names = [name for name in names if name == primary or name not in gone]\n",
             "",
             "a container a layer deletes stays a name of the role: a higher default entry "
             "brings it back without an image"),
    _resolve("scheduling-role-takes-task-settings",
             "    if of.scheduling:\n        return None\n    task, platform",
             "    task, platform",
             "a scheduling-only role takes the task's image, env and resources"),
)
