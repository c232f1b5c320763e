"""Shell tasks: a script and its inputs, each rendered to a v1 Pod plus the ConfigMap
that carries the script (mounted read-only at /etc/podtemplate/shell).

Needs the plugin:  pip install podtemplate-shell
Render them:       podtemplate render examples/shell_tasks.py --platform examples/platform.yaml \
                       --input DAY=2026-03-01
"""

from podtemplate import PodTemplate, Resources
from podtemplate_shell import ShellTask

# The script writes its export to a shared volume; an uploader sidecar ships the files.
# The sidecar is a native one (an init container with restartPolicy: Always, Kubernetes
# 1.29+), so the Pod completes when the script ends instead of waiting on the sidecar.
with_uploader = PodTemplate(
    pod_spec={
        "volumes": [{"name": "exports", "emptyDir": {}}],
        "initContainers": [
            {"name": "uploader", "image": "ghcr.io/acme/uploader:1.4", "restartPolicy": "Always",
             "args": ["--watch", "/exports", "--to", "s3://acme-exports/daily"],
             "volumeMounts": [{"name": "exports", "mountPath": "/exports", "readOnly": True}]},
        ],
        "containers": [
            {"name": "primary", "volumeMounts": [{"name": "exports", "mountPath": "/exports"}]},
        ],
    },
    labels={"app.kubernetes.io/part-of": "examples"},
)

EXPORT_SCRIPT = """\
set -eu
out="/exports/${TABLE}-${DAY}.csv"
echo "exporting ${TABLE} for ${DAY} to ${out}"
psql "$DATABASE_URL" --no-psqlrc -c \\
  "\\copy (SELECT * FROM ${TABLE} WHERE day = '${DAY}') TO '${out}' WITH CSV HEADER"
echo "done: $(wc -l < "$out") lines"
"""

# DAY and TABLE are inputs (env vars of the script): defaults here, or
# --input DAY=2026-03-01 at render time.
export_table = ShellTask(
    name="export-table",
    image="postgres:16-alpine",
    script=EXPORT_SCRIPT,
    inputs={"DAY": "2026-01-01", "TABLE": "events"},
    env={"DATABASE_URL": "postgres://analytics@db.ml-team:5432/analytics"},
    requests=Resources(cpu="500m", memory="512Mi"),
    pod_template=with_uploader,
)

# bash instead of sh, the platform's default image, and the highmem template.
disk_report = ShellTask(
    name="disk-report",
    shell="/bin/bash",
    script='set -euo pipefail\nfor dir in /tmp /var; do du -sh "$dir"; done | sort -h\n',
    pod_template_name="highmem",
)
