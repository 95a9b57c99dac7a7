// The pi settings the editor sends: only what the user set in VS Code (user, workspace or folder
// level), as the nested object the daemon expects in initializationOptions.pi and
// workspace/didChangeConfiguration. Defaults are not sent, so pi's own settings files
// (~/.pi/agent/settings.json, <folder>/.pi/settings.json) still decide what the user left alone.
import { SETTING_KEYS } from "./generated/settingKeys";

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
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const i = inspect(key);
    const value = i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
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
