"""Workspace folders, the sessions open in them, and the models they offer.

Each folder is a working directory with its own settings (pi's files plus the editor's
overrides), its own session list and its own AGENTS.md context; with no folder the daemon's own
directory serves. Sessions are created and opened here, wired to the editor's file system and
permission prompts by the protocol layer through two factories. The models offered
(:func:`available_models`) are those of providers with credentials, plus configured ones.
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

from pi_lsp.agent import AgentOptions, resolve
from pi_lsp.agent.agent_session import create_agent_session
from pi_lsp.agent.llm import PROVIDER_KEY_ENV
from pi_lsp.agent.model_choice import (
    DEFAULT_MODEL_PER_PROVIDER,
    cached_or_loaded,
    chat_models,
    has_key,
)
from pi_lsp.agent.models import ModelRef, litellm_provider
from pi_lsp.agent.permissions import Asker, PermissionGate
from pi_lsp.compaction.summarize import text_of
from pi_lsp.daemon.concurrency import TurnLock, spawn
from pi_lsp.daemon.live_session import EventSink, LiveSession
from pi_lsp.prompt import PromptSourcesCache
from pi_lsp.session import SessionStore
from pi_lsp.session.branching import branched_session
from pi_lsp.session.entries import message_as
from pi_lsp.session.listing import SessionInfo, SessionLister
from pi_lsp.session.messages import OPEN, UserMessage
from pi_lsp.session.paths import agent_dir, lexical_path, session_dir
from pi_lsp.settings import Settings, load_settings
from pi_lsp.tools import FileSystem


@OPEN
class ModelInfoOut(TypedDict):
    """A model the daemon can use."""

    id: str
    """``provider/model``."""
    provider: str
    modelId: str


class UnknownSessionError(LookupError):
    """A session id that is not open in this daemon."""


class UnknownFolderError(LookupError):
    """A folder that is not one of the workspace folders."""


@dataclass
class Folder:
    """One workspace folder."""

    uri: str
    cwd: str
    settings: Settings = field(default_factory=Settings)
    problems: list[str] = field(default_factory=list)


FsFactory = Callable[[Folder, str], FileSystem | None]
"""The tools' file system for a session: ``(its folder, its session id)``."""
AskerFactory = Callable[[str], Asker]
"""The permission asker of a session, given its id."""


class Workspaces:
    """All folders and open sessions of one daemon."""

    def __init__(
        self,
        sink: EventSink,
        *,
        fs_factory: FsFactory | None = None,
        asker_factory: AskerFactory | None = None,
        agent: Path | None = None,
    ) -> None:
        self._sink = sink
        self._fs_factory = fs_factory
        self._asker_factory = asker_factory
        self.agent_dir = agent or agent_dir()
        self.project = PromptSourcesCache()
        self.lister = SessionLister()
        self.overrides: dict[str, Any] = {}
        self.folders: dict[str, Folder] = {}
        self.sessions: dict[str, LiveSession] = {}
        self._opened_in: dict[str, Folder] = {}
        """The folder each open session was opened in (kept when the folder is removed)."""
        self._watchers: dict[str, asyncio.Future[None]] = {}
        """Per open session: the task noticing other processes' appends (``watch_file``)."""
        self._default = Folder(uri=Path(os.getcwd()).as_uri(), cwd=os.getcwd())

    # ----------------------------------------------------------------- folders and settings

    def set_folders(self, folders: list[tuple[str, str]]) -> list[str]:
        """Replace the folder list ``[(uri, path)]``; returns settings problems."""
        self.folders = {uri: Folder(uri=uri, cwd=path) for uri, path in folders}
        self._update_roots()
        return self.reload_settings()

    def add_folder(self, uri: str, path: str) -> list[str]:
        """Add one folder; returns its settings problems."""
        self.folders[uri] = Folder(uri=uri, cwd=path)
        self._update_roots()
        return self._load(self.folders[uri])

    def remove_folder(self, uri: str) -> None:
        """Forget a folder (its open sessions stay open until closed)."""
        self.folders.pop(uri, None)
        self._update_roots()

    def _update_roots(self) -> None:
        """Give every open session's permission gate the current folder list.

        A gate gets the roots when its session opens; without this, a session open before a
        folder was added would ask before writing inside it, and one open before a folder was
        removed would still write there without asking.
        """
        roots = self.roots()
        for live in self.sessions.values():
            live.set_roots(roots)

    def configure(self, overrides: Mapping[str, Any]) -> list[str]:
        """New editor settings for every folder; returns the problems found."""
        self.overrides = dict(overrides)
        return self.reload_settings()

    def reload_settings(self) -> list[str]:
        """Re-read every folder's settings files; returns each distinct problem once.

        The agent dir's file and the editor's overrides are layers of every folder's settings
        (and of the daemon's own directory), so their problems would otherwise be reported once
        per folder.
        """
        problems: list[str] = []
        loaded = [*self.folders.values(), self._default]
        for workspace in loaded:
            problems += self._load(workspace)
        for live in self.sessions.values():  # open sessions follow from their next turn
            workspace = self.workspace_of(live)
            if not any(workspace is done for done in loaded):  # its folder was removed
                problems += self._load(workspace)
                loaded.append(workspace)
            live.apply_settings(workspace.settings)
        return list(dict.fromkeys(problems))

    def _load(self, workspace: Folder) -> list[str]:
        settings, problems = load_settings(
            workspace.cwd, overrides=self.overrides, agent=self.agent_dir
        )
        workspace.settings, workspace.problems = settings, problems
        return problems

    def folder(self, uri: str | None) -> Folder:
        """The named folder, else the first folder, else the daemon's directory."""
        if uri is None:
            return next(iter(self.folders.values()), self._default)
        if uri in self.folders:
            return self.folders[uri]
        raise UnknownFolderError(f"Unknown workspace folder: {uri}")

    def folder_of_path(self, path: str) -> Folder:
        """The folder containing ``path`` (the deepest one), else the default folder."""
        real = os.path.realpath(path)
        best: Folder | None = None
        for workspace in self.folders.values():
            root = os.path.realpath(workspace.cwd)
            if (real == root or real.startswith(root.rstrip(os.sep) + os.sep)) and (
                best is None or len(root) > len(os.path.realpath(best.cwd))
            ):
                best = workspace
        return best or self.folder(None)

    def workspace_of(self, live: LiveSession) -> Folder:
        """The folder a session belongs to: the one it was opened in.

        The folder's current object while it is a workspace folder; as it was if it has been
        removed since (its settings files still apply to its open sessions).
        """
        opened = self._opened_in.get(live.id)
        if opened is None:
            return self._folder_of(live.store.cwd)
        return self.folders.get(opened.uri, opened)

    def roots(self) -> list[str]:
        """Paths of all folders (writes inside them need no permission).

        None without a folder: the daemon's own directory is where such sessions run, but it
        is not a folder the user chose (an editor often starts the daemon in ``/`` or ``~``),
        so every write is then asked.
        """
        return [w.cwd for w in self.folders.values()]

    # ----------------------------------------------------------------- sessions

    def get(self, session_id: str) -> LiveSession:
        """An open session; raises :class:`UnknownSessionError`."""
        live = self.sessions.get(session_id)
        if live is None:
            raise UnknownSessionError(f"Unknown session: {session_id} (open it first)")
        return live

    async def list_sessions(self, uri: str | None) -> list[SessionInfo]:
        """pi's session list for a folder, read in a worker thread (big folders never block)."""
        workspace = self.folder(uri)
        return await asyncio.to_thread(
            self.lister.list_cwd, workspace.cwd, self.agent_dir, workspace.settings.sessionDir
        )

    async def new_session(self, uri: str | None) -> LiveSession:
        """A new session in a folder (its file appears with the first user message)."""
        workspace = self.folder(uri)
        folder = session_dir(workspace.cwd, self.agent_dir, workspace.settings.sessionDir)
        return await self._live(SessionStore.create(workspace.cwd, directory=folder), workspace)

    async def open_session(self, path: str, uri: str | None) -> LiveSession:
        """Open a session file (the same live session if it is already open).

        The session keeps the path as given (made absolute, symlinks kept), as pi does: a fork
        records it as ``parentSession``. Whether it is already open is decided on real paths.
        """
        given = lexical_path(path)
        resolved = given.resolve()
        for live in self.sessions.values():
            if live.store.path is not None and live.store.path.resolve() == resolved:
                return live
        if not resolved.is_file():
            raise FileNotFoundError(f"No such session file: {given}")
        named = self.folder(uri) if uri is not None else None
        # Reading is CPU work proportional to the file (seconds for a big or broken one): a
        # worker thread does it, so the daemon goes on answering meanwhile.
        store = await asyncio.to_thread(SessionStore.open, given)
        for live in self.sessions.values():  # opened by a concurrent request meanwhile
            if live.store.path is not None and live.store.path.resolve() == resolved:
                store.close()
                return live
        return await self._live(store, named or self._folder_of(store.cwd))

    async def adopt(self, store: SessionStore, uri: str | None) -> LiveSession:
        """Serve a store the caller opened itself (the ACP face replays it meanwhile)."""
        return await self._live(store, self.folder(uri))

    def _folder_of(self, cwd: str) -> Folder:
        for workspace in self.folders.values():
            if os.path.realpath(workspace.cwd) == os.path.realpath(cwd):
                return workspace
        return self.folder(None)

    async def fork(self, session_id: str, entry_id: str) -> tuple[LiveSession, str | None]:
        """A new session file holding the path to an entry.

        Forking from a user message does what pi's fork does: the copy ends just before it and
        its text comes back for editing.
        """
        source = self.get(session_id)
        record = source.store.require(entry_id)
        text: str | None = None
        end: str | None = entry_id
        user = message_as(record, UserMessage)
        if user is not None:
            text = text_of(user.get("content"))
            end = record.parent_id
        store = (
            branched_session(source.store, end)
            if end is not None
            else SessionStore.create(source.store.cwd, parent_session=str(source.store.path))
        )
        return await self._live(store, self.workspace_of(source)), text

    async def set_model(self, session_id: str, model: str) -> LiveSession:
        """Switch a session's model (``provider/model``)."""
        live = self.get(session_id)
        workspace = self.workspace_of(live)
        info = await resolve(
            ModelRef.parse(model, default_provider=workspace.settings.defaultProvider),
            workspace.settings,
        )
        live.set_model(info)
        return live

    async def _live(self, store: SessionStore, workspace: Folder) -> LiveSession:
        asker = self._asker_factory(store.session_id) if self._asker_factory else None
        gate = PermissionGate(
            workspace.settings.permissions,
            roots=self.roots(),
            ask=asker,
            agent=str(self.agent_dir),
        )
        options = AgentOptions(
            fs=self._fs_factory(workspace, store.session_id) if self._fs_factory else None,
            project=self.project,
            permissions=gate,
        )
        agent = await create_agent_session(store, workspace.cwd, workspace.settings, options)
        lock = TurnLock.for_session(store.path, store.session_id, self.agent_dir)
        live = LiveSession(agent, self._sink, lock, workspace.uri)
        self.sessions[live.id] = live
        self._opened_in[live.id] = workspace
        spawn(live.tree.warm(), "warming the session tree")  # the first request is then fast
        self._watchers[live.id] = spawn(live.watch_file(), "watching the session file")
        # A big session is tens of thousands of long-lived objects: keep them out of every
        # future full collection (they are freed by reference counting when the session closes).
        gc.freeze()
        return live

    async def close(self, session_id: str) -> None:
        """Close one session."""
        live = self.sessions.pop(session_id, None)
        self._opened_in.pop(session_id, None)
        watcher = self._watchers.pop(session_id, None)
        if watcher is not None:
            watcher.cancel()
        if live is not None:
            await live.close()

    async def close_all(self) -> None:
        """Abort every turn and release every lock (daemon exit)."""
        for session_id in list(self.sessions):
            await self.close(session_id)


async def available_models(settings: Settings, *, with_litellm: bool = True) -> list[ModelInfoOut]:
    """``[{id, provider, modelId}]`` of the models a user can pick.

    Settings' models come first, then for every provider with a key (pi's order, pi's key
    variables: :mod:`pi_lsp.agent.model_choice`) pi's default model for it and litellm's chat
    models (:mod:`pi_lsp.agent.model_choice`: litellm's own once imported, else the cache file,
    else after importing litellm off the event loop; ``with_litellm=False`` never waits for
    that import, for an answer that must not wait seconds).
    """
    found: dict[str, ModelInfoOut] = {}

    def add(provider: str, model_id: str) -> None:
        key = f"{provider}/{model_id}"
        if key not in found:
            found[key] = ModelInfoOut(id=key, provider=provider, modelId=model_id)

    if settings.defaultModel:
        ref = ModelRef.parse(
            settings.defaultModel, default_provider=settings.defaultProvider or "openai"
        )
        add(ref.provider, ref.model_id)
    for name in settings.models:
        provider, _, model_id = name.partition("/")
        if model_id:
            add(provider, model_id)
    providers = dict.fromkeys([*DEFAULT_MODEL_PER_PROVIDER, *PROVIDER_KEY_ENV])
    keyed = [p for p in providers if has_key(p)]
    lists = (await chat_models() if with_litellm else cached_or_loaded()) if keyed else None
    for provider in keyed:
        if provider in DEFAULT_MODEL_PER_PROVIDER:
            add(provider, DEFAULT_MODEL_PER_PROVIDER[provider])
        for model_id in (lists or {}).get(litellm_provider(provider), ()):
            add(provider, model_id)
    return list(found.values())
