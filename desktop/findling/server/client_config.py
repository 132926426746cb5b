"""Config snippets that register `findling mcp` with common MCP clients."""

from __future__ import annotations

import json
import os
import sys

from findling.executables import command_line

CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode", "codex")


def launcher(home: str | None = None) -> tuple[str, list[str]]:
    """The command (and its first arguments) that starts this Findling's MCP server."""
    args = (["--home", os.path.abspath(home)] if home else []) + ["mcp"]
    command = command_line()  # the installed app's console executable, or this environment's
    return command[0], [*command[1:], *args]


def client_config(client: str, home: str | None = None) -> str:
    command, args = launcher(home)
    if client in ("claude-desktop", "cursor"):
        where = (
            "claude_desktop_config.json (Settings → Developer → Edit Config)"
            if client == "claude-desktop"
            else "~/.cursor/mcp.json or .cursor/mcp.json in a project"
        )
        body = json.dumps({"mcpServers": {"findling": {"command": command, "args": args}}}, indent=2)
        return f"// merge into {where}\n{body}"
    if client == "vscode":
        body = json.dumps({"servers": {"findling": {"type": "stdio", "command": command, "args": args}}}, indent=2)
        return f"// merge into .vscode/mcp.json (or the user's mcp.json)\n{body}"
    if client == "claude-code":
        quoted = " ".join(_shell_quote(part) for part in (command, *args))
        return f"claude mcp add findling -- {quoted}"
    if client == "codex":
        arg_list = ", ".join(json.dumps(a) for a in args)
        return (
            f"# add to ~/.codex/config.toml\n[mcp_servers.findling]\ncommand = {json.dumps(command)}\n"
            f"args = [{arg_list}]"
        )
    raise ValueError(f"unknown client {client!r}; choose from {', '.join(CLIENTS)}")


def _shell_quote(text: str) -> str:
    if sys.platform == "win32":
        return f'"{text}"' if " " in text else text
    import shlex

    return shlex.quote(text)
