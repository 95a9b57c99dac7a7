// The pi.* commands. Fixed ids; each takes optional arguments (a string or an object, so
// keybindings and scripts can drive them without prompts) and returns its result. Without the
// arguments they ask with quick picks / input boxes.
import * as vscode from "vscode";
import type { ChatPanel } from "./chatPanel";
import type { Daemon } from "./daemon";
import {
  METHODS,
  type AbortResult,
  type BranchResult,
  type CompactionResult,
  type ForkResult,
  type LabelResult,
  type ModelsResult,
  type PromptResult,
  type SessionList,
  type SessionState,
} from "./protocol";
import type { Sessions } from "./session";
import type { TreeView } from "./tree/view";

type Args = Record<string, unknown>;
/** A command's first argument: a string (the main parameter), an object, or a tree row. */
function argsOf(raw: unknown, main: string): Args {
  if (typeof raw === "string") return { [main]: raw };
  if (raw && typeof raw === "object") {
    const a = raw as Args;
    if (a.kind === "node" && typeof a.id === "string" && !(main in a)) return { ...a, [main]: a.id };
    return a;
  }
  return {};
}
const s = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export interface Parts {
  daemon: Daemon;
  sessions: Sessions;
  chat: ChatPanel;
  tree: TreeView;
  refreshSessions: () => void;
  setSessionsFilter: (filter: string) => void;
}

export function registerCommands(p: Parts): vscode.Disposable[] {
  const { daemon, sessions, chat, tree } = p;
  const entry = async (a: Args, title: string): Promise<string | undefined> => {
    const id = s(a.entryId);
    if (id) return id;
    const leaf = (await sessions.ensure()).leafId;
    return vscode.window.showInputBox({ title, prompt: "Entry id", value: leaf ?? "" });
  };
  const fail = (err: unknown): never => {
    const message = err instanceof Error ? err.message : String(err);
    chat.notice("error", message);
    void vscode.window.showErrorMessage(message.startsWith("pi:") ? message : `pi: ${message}`);
    throw err;
  };
  const wrap = (fn: (raw: unknown, ...rest: unknown[]) => Promise<unknown>) => async (raw: unknown, ...rest: unknown[]) => {
    try {
      return await fn(raw, ...rest);
    } catch (err) {
      return fail(err);
    }
  };

  const afterBranch = async (r: BranchResult): Promise<BranchResult> => {
    await sessions.reload();
    if (r.editorText !== null && r.editorText !== undefined) {
      chat.show(true);
      chat.setInput(r.editorText);
    }
    return r;
  };

  const commands: Record<string, (raw: unknown, ...rest: unknown[]) => Promise<unknown>> = {
    "pi.openChat": async () => {
      chat.show();
      const state = await sessions.ensure();
      return { sessionId: state.sessionId };
    },
    "pi.newSession": async (raw) => {
      const a = argsOf(raw, "folder");
      const state = await sessions.newSession(s(a.folder) ?? sessions.activeFolder());
      chat.show(true);
      return state.sessionId;
    },
    "pi.openSession": async (raw) => {
      const a = argsOf(raw, "path");
      let target = s(a.path) ?? s(a.id) ?? s(a.sessionId);
      let folder = s(a.folder);
      if (!target) {
        const folders = vscode.workspace.workspaceFolders ?? [];
        const picks: (vscode.QuickPickItem & { path: string; folder: string })[] = [];
        for (const f of folders) {
          const list = await daemon.request<SessionList>(METHODS.sessionsList, { folder: f.uri.toString() });
          for (const x of list.sessions) {
            picks.push({ label: x.name || x.firstMessage || "(empty)", description: `${x.messageCount} messages · ${x.modified}`, detail: folders.length > 1 ? f.name : undefined, path: x.path, folder: f.uri.toString() });
          }
        }
        const pick = await vscode.window.showQuickPick(picks, { title: "pi: Open Session", matchOnDescription: true });
        if (!pick) return undefined;
        target = pick.path;
        folder = pick.folder;
      }
      const state = await sessions.open(target, folder);
      chat.show(true);
      p.refreshSessions();
      return state.sessionId;
    },
    "pi.renameSession": async (raw) => {
      const a = argsOf(raw, "name");
      // from the Sessions view's context menu: that session, opened first
      const row = a.info as { path?: string } | undefined;
      if (a.kind === "session" && row?.path && row.path !== sessions.current?.sessionFile) {
        await sessions.open(row.path, s(a.folder));
      }
      const name = s(a.name) ?? (await vscode.window.showInputBox({ title: "pi: Rename Session", value: sessions.current?.sessionName ?? "" }));
      if (!name) return undefined;
      const state = await sessions.request<SessionState>(METHODS.sessionRename, { name });
      p.refreshSessions();
      return state;
    },
    "pi.sendPrompt": async (raw) => {
      const a = argsOf(raw, "text");
      const text = s(a.text) ?? (await vscode.window.showInputBox({ title: "pi: Send Prompt", prompt: "Message to the agent" }));
      if (!text) return undefined;
      const mode = s(a.mode);
      if (mode === "steer") return (await sessions.request(METHODS.sessionSteer, { text }), null);
      if (mode === "followUp") return (await sessions.request(METHODS.sessionFollowUp, { text }), null);
      const state = await sessions.ensure();
      const params: Args = { text };
      if (state.isStreaming) params.streamingBehavior = "steer";
      const r = await sessions.request<PromptResult>(METHODS.sessionPrompt, params);
      return r.userEntryId;
    },
    "pi.branchFromMessage": async (raw) => {
      const a = argsOf(raw, "entryId");
      const entryId = await entry(a, "pi: Branch from Message");
      if (!entryId) return undefined;
      let summarize = typeof a.summarize === "boolean" ? a.summarize : undefined;
      let focus = s(a.focus);
      if (summarize === undefined) {
        const pick = await vscode.window.showQuickPick(
          [
            { label: "Branch here", description: "continue from this point; the branch you leave stays in the tree", summarize: false },
            { label: "Branch here and summarize the branch I leave", description: "a model call writes a branch summary", summarize: true },
          ],
          { title: "pi: Branch from here" },
        );
        if (!pick) return undefined;
        summarize = pick.summarize;
        if (summarize && focus === undefined) {
          focus = await vscode.window.showInputBox({ title: "Summary focus (optional)", prompt: "What should the summary concentrate on?" });
          if (focus === undefined) return undefined;
        }
      }
      const params: Args = { entryId, summarize };
      if (focus) params.focus = focus;
      if (s(a.label)) params.label = s(a.label);
      return afterBranch(await sessions.request<BranchResult>(METHODS.sessionBranch, params));
    },
    "pi.editMessage": async (raw) => {
      const entryId = await entry(argsOf(raw, "entryId"), "pi: Edit Message");
      if (!entryId) return undefined;
      return afterBranch(await sessions.request<BranchResult>(METHODS.sessionBranch, { entryId }));
    },
    "pi.forkFromMessage": async (raw) => {
      const entryId = await entry(argsOf(raw, "entryId"), "pi: Fork from Message");
      if (!entryId) return undefined;
      const r = await sessions.request<ForkResult>(METHODS.sessionFork, { entryId });
      await sessions.showState(r.session); // the daemon opened the fork already
      if (r.editorText) chat.setInput(r.editorText);
      p.refreshSessions();
      return r.session.sessionId;
    },
    "pi.labelEntry": async (raw, second) => {
      const a = argsOf(raw, "entryId");
      const entryId = await entry(a, "pi: Label Entry");
      if (!entryId) return undefined;
      let label: string | null | undefined = "label" in a ? (a.label as string | null) : s(second);
      if (label === undefined) {
        const current = tree.model.nodes.get(entryId)?.label ?? "";
        label = await vscode.window.showInputBox({ title: "pi: Label", prompt: "Bookmark text (empty clears it)", value: current });
        if (label === undefined) return undefined;
      }
      const r = await sessions.request<LabelResult>(METHODS.sessionLabel, { entryId, label: label || null });
      tree.model.setLabel(entryId, label || null);
      tree.refresh();
      return r.labelEntryId;
    },
    "pi.compact": async (raw) => {
      const a = argsOf(raw, "focus");
      const params: Args = {};
      if (s(a.focus)) params.focus = s(a.focus);
      const r = await sessions.request<CompactionResult>(METHODS.sessionCompact, params);
      return r;
    },
    "pi.abort": async () => {
      const r = await sessions.request<AbortResult>(METHODS.sessionAbort);
      if (r.queuedTexts.length) chat.setInput(r.queuedTexts.join("\n\n"));
      return r;
    },
    "pi.selectModel": async (raw) => {
      const a = argsOf(raw, "model");
      let model = s(a.model);
      if (!model) {
        const state = await sessions.ensure();
        const current = state.model ? `${state.model.provider}/${state.model.modelId}` : "";
        // the picker opens at once (busy) while the daemon answers: the first
        // list of a fresh install waits for litellm's import
        const items = daemon
          .request<ModelsResult>(METHODS.modelsList, { folder: state.folder })
          .then((list) => list.models.map((m) => ({ label: m.id, description: m.id === current ? "current" : m.provider })));
        const pick = await vscode.window.showQuickPick(items, { title: "pi: Select Model", placeHolder: "Type to filter the models" });
        model = pick?.label;
      }
      if (!model) return undefined;
      return sessions.request<SessionState>(METHODS.sessionSetModel, { model });
    },
    "pi.selectThinkingLevel": async (raw) => {
      const a = argsOf(raw, "level");
      let level = s(a.level);
      if (!level) {
        const state = await sessions.ensure();
        level = (await vscode.window.showQuickPick(
          state.availableThinkingLevels.map((l) => ({ label: l, description: l === state.thinkingLevel ? "current" : "" })),
          { title: "pi: Thinking Level" },
        ))?.label;
      }
      if (!level) return undefined;
      return sessions.request<SessionState>(METHODS.sessionSetThinkingLevel, { level });
    },
    "pi.showTree": async (raw) => {
      const entryId = s(argsOf(raw, "entryId").entryId);
      await sessions.ensure();
      await vscode.commands.executeCommand("pi.tree.focus");
      await tree.loaded;
      // an entry to show (e.g. the tip of another program's branch): its row revealed and selected
      const revealed = entryId ? await tree.reveal(entryId) : undefined;
      return { nodes: tree.model.nodes.size, leafId: tree.model.leafId, ...(entryId ? { revealed } : {}) };
    },
    "pi.restartServer": async () => daemon.restart(),
    "pi.pinSession": async () => {
      sessions.pinned = !sessions.pinned;
      void vscode.window.showInformationMessage(sessions.pinned ? "pi: the chat stays on this session." : "pi: the chat follows the active editor's folder.");
      return sessions.pinned;
    },
    "pi.filterSessions": async (raw) => {
      const a = argsOf(raw, "filter");
      const f = s(a.filter) ?? (await vscode.window.showInputBox({ title: "pi: Filter Sessions", prompt: "Words to find in names and messages (empty shows all)" }));
      if (f === undefined) return undefined;
      p.setSessionsFilter(f);
      return f;
    },
    "pi.refreshSessions": async () => p.refreshSessions(),
  };
  return Object.entries(commands).map(([id, fn]) => vscode.commands.registerCommand(id, wrap(fn)));
}
