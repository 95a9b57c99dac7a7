"""How bash runs a command: which shell, with which PATH, and how its process tree is killed.

The shell is the ``shellPath`` setting when set (an error when it does not exist), else
``/bin/bash``, else ``bash`` on PATH, else ``sh`` (pi's ``getShellConfig`` plus a PATH lookup).
pi prepends ``<agentDir>/bin`` to PATH. Commands run in their own session, so the process group
id is the shell's pid and one ``killpg`` reaches every descendant that did not leave the group.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
from dataclasses import dataclass

from pi_lsp.tools.bash_files import FILE_LIMIT, TOTAL_LIMIT
from pi_lsp.tools.errors import ToolError


@dataclass(frozen=True, slots=True, kw_only=True)
class ShellSettings:
    """The settings bash uses (pi's ``shellPath`` and ``shellCommandPrefix``)."""

    shell_path: str | None = None
    """A shell to use instead of the default."""
    command_prefix: str | None = None
    """Prepended to every command on its own line."""
    agent_dir: str | None = None
    """pi's agent directory; its ``bin`` folder is put first on PATH. None leaves PATH alone."""
    temp_dir: str | None = None
    """Where ``pi-bash-*.log`` full-output files go; None for the system temp directory."""
    full_output_limit: int = FILE_LIMIT
    """Bytes one command's full-output file keeps (its start)."""
    full_output_total: int = TOTAL_LIMIT
    """Bytes of full-output files a session keeps (the oldest go first)."""


def resolve_shell(settings: ShellSettings) -> str:
    """The shell executable for ``<shell> -c <command>``."""
    if settings.shell_path:
        if os.path.exists(settings.shell_path):
            return settings.shell_path
        where = os.path.join(settings.agent_dir or "~/.pi/agent", "settings.json")
        raise ToolError(
            f"Custom shell path not found: {settings.shell_path}\n"
            f"Please update shellPath in {where}"
        )
    if os.path.exists("/bin/bash"):
        return "/bin/bash"
    return shutil.which("bash") or "sh"


def shell_env(settings: ShellSettings) -> dict[str, str]:
    """This process's environment with ``<agentDir>/bin`` first on PATH (once)."""
    env = dict(os.environ)
    if settings.agent_dir is None:
        return env
    bin_dir = os.path.join(settings.agent_dir, "bin")
    current = env.get("PATH", "")
    if bin_dir not in current.split(os.pathsep):
        env["PATH"] = os.pathsep.join(part for part in (bin_dir, current) if part)
    return env


def kill_process_tree(pid: int) -> None:
    """SIGKILL the process group led by ``pid``, or the process alone if that fails."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
