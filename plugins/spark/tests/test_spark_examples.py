"""examples/spark_tasks.py renders through the CLI into valid SparkApplications."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from podtemplate.testing import render_cli, rendered_documents

REPO = Path(__file__).resolve().parents[3]


def test_spark_examples_render(assert_valid_application: Callable[[dict[str, Any]], None]
                               ) -> None:
    result = render_cli(str(REPO / "examples" / "spark_tasks.py"),
        "--platform", str(REPO / "examples" / "platform.yaml"))
    assert result.exit_code == 0, result.output
    manifests = rendered_documents(result.stdout)
    assert {m["metadata"]["name"] for m in manifests} == {"daily-rollup", "spark-pi"}
    for manifest in manifests:
        assert_valid_application(manifest)
    rollup = next(m for m in manifests if m["metadata"]["name"] == "daily-rollup")
    executor = rollup["spec"]["executor"]["template"]["spec"]
    assert executor["nodeSelector"] == {"node-pool": "spot"}
    assert {"name": "spark-local-dir-1", "emptyDir": {"sizeLimit": "50Gi"}} in (
        executor["volumes"])
    mounts = executor["containers"][0]["volumeMounts"]
    assert {m["mountPath"] for m in mounts} == {"/var/spark/local", "/datasets"}
    driver = rollup["spec"]["driver"]["template"]["spec"]
    assert driver["nodeSelector"] == {"node-pool": "on-demand"}
    assert "volumes" not in driver


def test_cli_prints_spark_warnings_to_stderr(tmp_path: Path) -> None:
    (tmp_path / "warned_jobs.py").write_text(
        "from podtemplate import Resources\n"
        "from podtemplate_spark import SparkApplicationTask\n"
        "app = SparkApplicationTask(name='app', image='apache/spark:3.5.5',\n"
        "    main_application_file='local:///a.jar', requests=Resources(cpu='1'),\n"
        "    spark_conf={'spark.executor.cores': '4'})\n")
    result = render_cli(str(tmp_path / "warned_jobs.py"))
    assert result.exit_code == 0, result.output
    assert "spark.executor.cores" in result.stderr and "wins" in result.stderr
    [manifest] = rendered_documents(result.stdout)
    assert "cores" not in manifest["spec"]["executor"]
