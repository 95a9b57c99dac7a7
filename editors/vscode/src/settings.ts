// The pi settings the editor sends: only what the user set in VS Code (user, workspace or folder
// level), as the nested object the daemon expects in initializationOptions.pi and
// workspace/didChangeConfiguration. Defaults are not sent, so pi's own settings files
// (~/.pi/agent/settings.json, <folder>/.pi/settings.json) still decide what the user left alone.
//
// In a workspace VS Code does not trust, the workspace and folder values of the restricted
// settings (generated from scripts/untrusted-workspaces.json) do not count: VS Code already drops
// them, and this does it again so a cloned repository's .vscode/settings.json can never relax
// permissions, run a shell or redirect the API keys.
import { RESTRICTED_SETTINGS, SETTING_KEYS } from "./generated/settingKeys";

const RESTRICTED = new Set(RESTRICTED_SETTINGS);

/** The value that applies: the most specific level set, only the user's for a restricted key
 * of an untrusted workspace (`key` is the full name, `pi.…`). */
export function effective<T>(key: string, i: { globalValue?: T; workspaceValue?: T; workspaceFolderValue?: T } | undefined, trusted: boolean): T | undefined {
  if (!trusted && RESTRICTED.has(key)) return i?.globalValue;
  return i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
}

/** What `WorkspaceConfiguration.inspect` returns, reduced to what matters here. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The overrides object: `inspect(key)` is asked for every generated key (under `pi.`). */
export function piOverrides(
  inspect: (key: string) => Inspected | undefined,
  keys: readonly string[] = SETTING_KEYS,
  trusted = true,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = effective(`pi.${key}`, inspect(key), trusted);
    if (value === undefined || value === null) continue;
    const parts = key.split(".");
    let node = out;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      node = (node[part] = next && typeof next === "object" ? next : {}) as Record<string, unknown>;
    }
    node[parts[parts.length - 1]] = value;
  }
  return out;
}
