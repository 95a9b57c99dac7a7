// The pi_lsp daemon as the extension sees it: started over stdio with vscode-languageclient,
// found per daemonCommand.ts, its stderr log in the "pi" output channel, the pi.* settings sent
// as initializationOptions and didChangeConfiguration, pi/event and pi/requestPermission routed
// to whoever listens. One owner of the LanguageClient.
import * as fs from "node:fs";
import * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  State,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import { candidates, failureMessage, type Candidate, type Lookup } from "./daemonCommand";
import { METHODS, type EventNotification, type PermissionRequestParams, type PermissionResult } from "./protocol";
import { effective, piOverrides } from "./settings";

export type PermissionHandler = (p: PermissionRequestParams, token: vscode.CancellationToken) => Promise<PermissionResult>;

export class Daemon implements vscode.Disposable {
  private client: LanguageClient | null = null;
  private starting: Promise<boolean> | null = null;
  private readonly events = new vscode.EventEmitter<EventNotification>();
  private readonly started = new vscode.EventEmitter<void>();
  private readonly stopped = new vscode.EventEmitter<string>();
  readonly onEvent = this.events.event;
  /** After every (re)start: open sessions are gone, reopen what the user had. */
  readonly onStarted = this.started.event;
  readonly onStopped = this.stopped.event;
  permissionHandler: PermissionHandler | null = null;
  /** The command that runs, for tests and the status tooltip. */
  running: Candidate | null = null;
  lastError: string | null = null;
  /** Why the daemon last stopped by itself (a crash), for the panel and the tests. */
  lastStopped: string | null = null;
  /** Benchmarks: arrival time (epoch ms) of each pi/event, by "sessionId:seq", when not null. */
  arrivals: Map<string, number> | null = null;
  private disposables: vscode.Disposable[] = [];

  constructor(readonly output: vscode.OutputChannel) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("pi.server")) {
          void vscode.window.showInformationMessage("pi: the daemon settings changed.", "Restart Server").then((a) => {
            if (a) void this.restart();
          });
        } else if (e.affectsConfiguration("pi")) this.sendSettings();
      }),
      // trusted now: the workspace's own settings and .venv apply, so start again with them
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.restart()),
    );
  }

  /** A setting's value, the user's alone for a restricted one in an untrusted workspace. */
  private setting<T>(key: string, fallback: T): T {
    return effective(`pi.${key}`, vscode.workspace.getConfiguration("pi").inspect<T>(key), vscode.workspace.isTrusted) ?? fallback;
  }

  private lookup(): Lookup {
    return {
      trusted: vscode.workspace.isTrusted,
      setting: this.setting<string[]>("server.command", []),
      pathEnv: process.env.PATH ?? "",
      folders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      exists: (file) => {
        try {
          fs.accessSync(file, fs.constants.X_OK);
          return true;
        } catch {
          return false;
        }
      },
    };
  }

  overrides(): Record<string, unknown> {
    const cfg = vscode.workspace.getConfiguration("pi");
    return piOverrides((key) => cfg.inspect(key), undefined, vscode.workspace.isTrusted);
  }

  private sendSettings(): void {
    if (this.client?.state === State.Running) {
      void this.client.sendNotification("workspace/didChangeConfiguration", { settings: { pi: this.overrides() } });
    }
  }

  /** The daemon's process id (the client keeps it private; for the log and the tests). */
  get pid(): number | undefined {
    return (this.client as unknown as { _serverProcess?: { pid?: number } } | null)?._serverProcess?.pid;
  }

  get isRunning(): boolean {
    return this.client?.state === State.Running;
  }

  /** Start (once; concurrent callers share the attempt). False when nothing started. */
  start(): Promise<boolean> {
    if (this.isRunning) return Promise.resolve(true);
    if (!this.starting) this.starting = this.tryAll().finally(() => (this.starting = null));
    return this.starting;
  }

  private async tryAll(): Promise<boolean> {
    const look = this.lookup();
    const tried: { candidate: Candidate | null; error: string }[] = [];
    for (const candidate of candidates(look)) {
      try {
        await this.startWith(candidate);
        this.running = candidate;
        this.lastError = null;
        this.output.appendLine(`[pi] daemon started: ${[candidate.command, ...candidate.args].join(" ")} (${candidate.source})`);
        this.started.fire();
        return true;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        tried.push({ candidate, error: message });
        this.output.appendLine(`[pi] ${candidate.source} failed: ${message}`);
      }
    }
    this.lastError = failureMessage(tried, look);
    this.output.appendLine(`[pi] ${this.lastError}`);
    void vscode.window.showErrorMessage(this.lastError, "Open Settings", "Show Log", "Restart Server").then((a) => {
      if (a === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettings", "pi.server.command");
      if (a === "Show Log") this.output.show();
      if (a === "Restart Server") void this.restart();
    });
    this.stopped.fire(this.lastError);
    return false;
  }

  private async startWith(candidate: Candidate): Promise<void> {
    const cfg = vscode.workspace.getConfiguration("pi");
    const env = { ...process.env, ...this.setting<Record<string, string>>("server.env", {}) };
    const args = [...candidate.args, "--log-level", cfg.get<string>("server.logLevel", "info")];
    const server: ServerOptions = {
      command: candidate.command,
      args,
      transport: TransportKind.stdio,
      options: { env, cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath },
    };
    let failedEarly = false;
    const options: LanguageClientOptions = {
      outputChannel: this.output,
      revealOutputChannelOn: 4, // never: the log is there when the user wants it
      initializationOptions: { pi: this.overrides() },
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      initializationFailedHandler: () => {
        failedEarly = true;
        return false;
      },
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue, handled: true }),
        closed: () => {
          if (failedEarly || this.client !== client) return { action: CloseAction.DoNotRestart, handled: true };
          const message = "pi: the daemon stopped unexpectedly. Its log is in the \"pi\" output channel.";
          this.lastStopped = message;
          this.output.appendLine(`[pi] ${message}`);
          this.stopped.fire(message);
          void vscode.window.showErrorMessage(message, "Restart Server", "Show Log").then((a) => {
            if (a === "Restart Server") void this.restart();
            if (a === "Show Log") this.output.show();
          });
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
    };
    const client = new LanguageClient("pi", "pi", server, options);
    client.onNotification(METHODS.event, (params: EventNotification) => {
      this.arrivals?.set(`${params?.sessionId}:${params?.seq}`, performance.timeOrigin + performance.now());
      this.events.fire(params);
    });
    client.onRequest(METHODS.requestPermission, async (params: PermissionRequestParams, token) => {
      if (!this.permissionHandler) return { decision: "deny" };
      return this.permissionHandler(params, token);
    });
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      this.client = null;
      await client.dispose().catch(() => undefined);
      throw err;
    }
  }

  async restart(): Promise<boolean> {
    await this.stop();
    return this.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.running = null;
    if (client) {
      try {
        await client.stop(5000);
      } catch {
        /* already gone */
      }
    }
  }

  /** A pi/… request; starts the daemon when needed; rejects with the daemon's error message. */
  async request<R>(method: string, params: object): Promise<R> {
    if (!(await this.start()) || !this.client) throw new Error(this.lastError ?? "pi: the daemon is not running");
    return this.client.sendRequest<R>(method, params);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    void this.stop();
  }
}
