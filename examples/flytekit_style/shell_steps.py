"""flytesnacks "shell task", ported: flytekit names (``task_1``) and the script's inputs as
environment variables (write ``$x`` where flytekit's script had ``{inputs.x}``)."""

from podtemplate_shell import ShellTask

t1 = ShellTask(
    name="task_1",
    script="""
    set -ex
    echo "Hey there! Let's run some bash scripts using a shell task."
    echo "Showcasing the shell task." >> "$x"
    """,
    inputs={"x": "/tmp/task_1.txt"},
)

t2 = ShellTask(
    name="task_2",
    script="""
    set -ex
    cp "$x" "$y"
    tar -zcvf "$z" "$y"
    """,
    inputs={"x": "/tmp/in.txt", "y": "/tmp/copy.txt", "z": "/tmp/out.tar.gz"},
)
