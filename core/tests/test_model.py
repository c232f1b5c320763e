"""Definition-time validation of the model: errors name the field and the fix."""

from __future__ import annotations

import pytest
from kubernetes.client import V1Container, V1PodSpec, V1Toleration
from podtemplate import (
    DefinitionError,
    InvalidNameError,
    InvalidPodSpecError,
    InvalidQuantityError,
    PodTemplate,
    Resources,
    Role,
    TemplateFileError,
    YamlError,
    task,
)


def test_resources_map_to_kubernetes_names() -> None:
    resources = Resources(cpu=2, memory="4Gi", gpu=1, ephemeral_storage="10Gi",
                          extra={"example.com/fpga": "1"})
    assert resources.to_k8s("nvidia.com/gpu") == {
        "cpu": "2", "memory": "4Gi", "ephemeral-storage": "10Gi",
        "nvidia.com/gpu": "1", "example.com/fpga": "1"}
    assert list(resources.to_k8s("amd.com/gpu")) == [
        "cpu", "memory", "ephemeral-storage", "amd.com/gpu", "example.com/fpga"]
    made = resources.to_k8s()
    made["cpu"] = "64"  # a new dict each time: changing one changes nothing else
    assert resources.to_k8s()["cpu"] == "2"


@pytest.mark.parametrize("bad", ["4 cores", "1.2.3", "Gi", "", "5XB", True])
def test_invalid_quantities_are_rejected(bad: object) -> None:
    with pytest.raises(InvalidQuantityError) as error:
        Resources(cpu=bad)
    assert "quantity" in str(error.value)


@pytest.mark.parametrize("good", ["500m", "2", "0.5", "4Gi", "1e3", "100Mi", "1.5"])
def test_valid_quantities(good: str) -> None:
    assert Resources(memory=good).memory == good


def test_pod_spec_accepts_client_model_and_dict_alike() -> None:
    model = V1PodSpec(containers=[V1Container(name="primary", image="x:1")],
                      tolerations=[V1Toleration(key="k", operator="Exists")],
                      node_selector={"a": "b"})
    from_model = PodTemplate(model)
    from_dict = PodTemplate({"containers": [{"name": "primary", "image": "x:1"}],
                             "tolerations": [{"key": "k", "operator": "Exists"}],
                             "nodeSelector": {"a": "b"}})
    assert from_model.pod_spec == from_dict.pod_spec


def test_the_shipped_pod_schema_decides_which_fields_exist() -> None:
    # workloadRef is in Kubernetes 1.35 (the client's models lack it); schedulingGroup is
    # in the client's models, not in 1.35.
    template = PodTemplate({"workloadRef": {"name": "train", "podGroup": "workers"}})
    assert template.pod_spec["workloadRef"] == {"name": "train", "podGroup": "workers"}
    with pytest.raises(InvalidPodSpecError) as error:
        PodTemplate({"schedulingGroup": {"podGroupName": "g"}})
    assert error.value.field == "spec.schedulingGroup"
    from kubernetes.client import V1PodSchedulingGroup

    with pytest.raises(InvalidPodSpecError):  # a client object is judged the same way
        PodTemplate(V1PodSpec(containers=[V1Container(name="primary")],
                              scheduling_group=V1PodSchedulingGroup(pod_group_name="g")))


def test_the_installed_client_does_not_change_what_is_accepted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import kubernetes.client

    # Were the client's models asked, a model without fields would refuse everything.
    for name in ("V1PodSpec", "V1PodTemplateSpec", "V1Container", "V1Pod"):
        monkeypatch.delattr(kubernetes.client, name)
    template = PodTemplate({"containers": [{"name": "primary", "image": "x:1"}],
                            "nodeSelector": {"a": "b"}})
    assert template.pod_spec["nodeSelector"] == {"a": "b"}


def test_one_env_name_rule_the_api_servers() -> None:
    from podtemplate.model.apiserver._facts import env_name_ok as api_rule
    from podtemplate.model.names import env_name_ok

    assert env_name_ok is api_rule
    for name in ("1BAD", "my.dotted-Name", "A B"):
        assert env_name_ok(name)
        task(name="t", env={name: "x"})(lambda: None)
    for name in ("", "A=B", "caf\u00e9", "TAB\t"):
        assert not env_name_ok(name)


def test_unknown_field_names_its_path() -> None:
    with pytest.raises(InvalidPodSpecError) as error:
        PodTemplate({"containers": [{"name": "primary", "imagee": "x"}]})
    assert error.value.field == "spec.containers[primary].imagee"
    assert "unknown field" in str(error.value)


def test_wrong_type_names_its_path() -> None:
    with pytest.raises(InvalidPodSpecError) as error:
        PodTemplate({"containers": [{"name": "primary", "ports": [{"containerPort": "80"}]}]})
    assert error.value.field == "spec.containers[primary].ports[0].containerPort"


def test_invalid_quantity_inside_template() -> None:
    with pytest.raises(InvalidQuantityError) as error:
        PodTemplate({"containers": [{"name": "primary",
                                     "resources": {"limits": {"cpu": "4 cores"}}}]})
    assert error.value.field == "spec.containers[primary].resources.limits.cpu"


def test_duplicate_container_names_rejected() -> None:
    with pytest.raises(InvalidPodSpecError) as error:
        PodTemplate({"containers": [{"name": "a"}, {"name": "a"}]})
    assert "twice" in str(error.value) and "containers" in str(error.value.field)


@pytest.mark.parametrize("name", ["Bad_Name", "-x", "a" * 64])
def test_invalid_container_name_rejected(name: str) -> None:
    with pytest.raises(InvalidNameError):
        PodTemplate({"containers": [{"name": name}]})


def test_empty_primary_container_name_rejected() -> None:
    with pytest.raises(DefinitionError) as error:
        PodTemplate({}, primary_container_name="")
    assert error.value.field == "primary_container_name"


def test_invalid_label_rejected() -> None:
    with pytest.raises(InvalidNameError):
        PodTemplate(labels={"bad key!": "x"})
    with pytest.raises(InvalidNameError):
        PodTemplate(labels={"ok": "bad value!"})


def test_from_yaml_accepts_three_shapes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    spec = {"nodeSelector": {"a": "b"}}
    texts = [
        "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: x}\n"
        "template:\n  metadata: {labels: {l: v}}\n  spec: {nodeSelector: {a: b}}\n",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x, labels: {l: v}}\n"
        "spec: {nodeSelector: {a: b}, containers: []}\n",
        "nodeSelector: {a: b}\n",
    ]
    for text in texts:
        template = PodTemplate.from_yaml(text)
        assert template.pod_spec.get("nodeSelector") == spec["nodeSelector"]
    path = tmp_path / "t.yaml"
    path.write_text(texts[0])
    assert PodTemplate.from_yaml(path).labels == {"l": "v"}
    assert PodTemplate.from_yaml(str(path)).labels == {"l": "v"}


def test_from_yaml_wrong_kind(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "d.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n")
    with pytest.raises(TemplateFileError) as error:
        PodTemplate.from_yaml(path)
    assert str(path) in str(error.value) and "Deployment" in str(error.value)


def test_yaml_syntax_error_names_file_and_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "broken.yaml"
    path.write_text("nodeSelector:\n  a: b\n c: [\n")
    with pytest.raises(YamlError) as error:
        PodTemplate.from_yaml(path)
    assert str(path) in str(error.value) and "line 3" in str(error.value)


def test_yaml_python_tags_refused() -> None:
    with pytest.raises(YamlError):
        PodTemplate.from_yaml("!!python/object/apply:os.system ['echo pwned']\n")


def test_yaml_alias_bomb_refused() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    with pytest.raises(YamlError) as error:
        PodTemplate.from_yaml("\n".join(lines) + "\n")
    assert "alias" in str(error.value)


def test_role_rejects_zero_replicas() -> None:
    with pytest.raises(DefinitionError) as error:
        Role(replicas=0)
    assert "replicas" in str(error.value)
    with pytest.raises(DefinitionError):
        Role(bogus=1)


def test_task_is_still_callable_named_as_written_with_a_derived_object_name() -> None:
    @task(image="x:1")
    def add_numbers(a: int, b: int) -> int:
        return a + b

    assert add_numbers(2, 3) == 5
    assert add_numbers.name == "add_numbers"
    assert add_numbers.object_name == "add-numbers"


def test_task_rejects_bad_definitions() -> None:
    with pytest.raises(InvalidNameError):
        task(name="not valid")(lambda: None)
    with pytest.raises(DefinitionError):
        task(image="")(lambda: None)
    with pytest.raises(DefinitionError):
        task(requests=Resources(gpu=1), limits=Resources(gpu=2))(lambda: None)
    with pytest.raises(InvalidNameError):
        task(env={"A=B": "x"})(lambda: None)  # the API server's env name rule
    with pytest.raises(DefinitionError):
        task(command=["echo"])(lambda: None)
