"""`helmCharts:` under --enable-helm: Kustomize's HelmChartInflationGenerator runs the `helm`
command (--helm-command) in a configuration home of its own, first `helm version -c --short`,
which must report Helm 3. Its failures read as Kustomize's.

kubelite goes as far as that check: inflating a chart (pull, template, values files) is not
done yet, and is refused with a message saying so.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass

from .errors import KustomizeError


@dataclass(frozen=True)
class HelmConfig:
    """kubectl kustomize's --enable-helm, --helm-command, --helm-api-versions, --helm-kube-version, --helm-debug."""

    enabled: bool = False
    command: str = "helm"
    api_versions: tuple = ()
    kube_version: str = ""
    debug: bool = False


def inflate(config: HelmConfig, chart: dict, globals_: dict) -> list:
    """The objects of one chart; for now only Helm's presence and version are checked."""
    home, temporary = _config_home(globals_)
    try:
        _check_version(config, home)
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)
    raise KustomizeError(f"kubelite does not inflate Helm charts yet (chart {chart.get('name') or ''!s})")


def _config_home(globals_: dict) -> tuple[str, str | None]:
    """helmGlobals.configHome, else `helm` in a new temporary directory named as Go's os.MkdirTemp names it."""
    given = globals_.get("configHome")
    if isinstance(given, str) and given:
        return given, None
    import random
    import tempfile

    base = tempfile.gettempdir()
    while True:
        path = os.path.join(base, f"kustomize-helm-{random.randrange(1 << 32)}")
        try:
            os.mkdir(path, 0o700)
            return os.path.join(path, "helm"), path
        except FileExistsError:
            continue


def _check_version(config: HelmConfig, home: str) -> None:
    out = run(config, home, ["version", "-c", "--short"])
    found = re.search(r"v?\d+(\.\d+)+", out)
    if not found:
        raise KustomizeError(f"cannot find version string in {out}")
    version = found.group(0).removeprefix("v")
    if version.split(".")[0] != "3":
        raise KustomizeError(f"this plugin requires helm V3 but got v{version}")


def run(config: HelmConfig, home: str, args: list[str]) -> str:
    """Helm's stdout; a failure as Kustomize's runHelmCommand words it (Helm's stderr first)."""
    env = [f"HELM_CONFIG_HOME={home}", f"HELM_CACHE_HOME={home}/.cache", f"HELM_DATA_HOME={home}/.data"]
    helm = config.command
    try:
        done = subprocess.run([_look_path(helm), *args], capture_output=True,
                              env={**os.environ, **dict(e.split("=", 1) for e in env)})
        failure = None if done.returncode == 0 else f"exit status {done.returncode}" if done.returncode > 0 \
            else f"signal: {_signal_name(-done.returncode)}"
        stdout, stderr = done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")
    except _NotFound as err:
        failure, stdout, stderr = str(err), "", ""
    except OSError as err:
        failure, stdout, stderr = f"fork/exec {helm}: {(err.strerror or str(err)).lower()}", "", ""
    if failure is None:
        return stdout
    message = (f"unable to run: '{helm} {' '.join(args)}' with env=[{' '.join(env)}] "
               f"(is '{helm}' installed?): {failure}")
    raise KustomizeError(f"{stderr}: {message}" if stderr else message)


class _NotFound(Exception):
    pass


def _look_path(command: str) -> str:
    """Go's exec.LookPath: a name with a slash is used as it is, any other is searched in $PATH."""
    if "/" in command:
        return command
    found = shutil.which(command)
    if found is None:
        raise _NotFound(f'exec: "{command}": executable file not found in $PATH')
    return found


def _signal_name(number: int) -> str:
    import signal

    try:
        return {signal.SIGKILL: "killed", signal.SIGTERM: "terminated", signal.SIGSEGV: "segmentation fault",
                signal.SIGABRT: "aborted", signal.SIGINT: "interrupt"}.get(signal.Signals(number), str(number))
    except ValueError:
        return str(number)
