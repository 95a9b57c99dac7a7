#!/usr/bin/env node
// UI end to end, as a user: the packaged .vsix installed in code-server, Debian's chromium
// driving the workbench. Command palette → pi: Open Chat, send a prompt, allow the bash
// permission, see the edit in the open editor, branch from an earlier message with a summary,
// see the session tree change; the tree's context menu (label, branch, fork); a permission as a
// notification while the chat is closed; the user typing in a file while the agent edits it. Screenshots go to test-results/. Prints "N passed, N failed".
import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { checks } from "../checks.mjs";
import { setup, ext } from "../harness.mjs";

const vsix = resolve(ext, process.argv[2] ?? "pi-lsp-0.1.0.vsix");
const shots = join(ext, "test-results");
mkdirSync(shots, { recursive: true });
const { check: step, finish, totals } = checks({ stopAfterFailure: true, stackLines: 5 });
const norm = (t) => (t ?? "").replace(/\u00a0/g, " ");

const run = await setup({ name: "ui" });
let page;
try {
  run.install(vsix);
  await run.start();
  const browser = await run.browser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  const web = page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
  const palette = async (command) => {
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor();
    await input.fill(`>${command}`);
    // click the row itself: Enter would run the top row, which may be a recently used other one
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: command }).first();
    await row.waitFor();
    await row.click();
  };

  await step("the workbench loads with the extension", async () => {
    await page.goto(`${run.base}/?folder=${encodeURIComponent(run.dirs.ws)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });
    await page.locator(".statusbar-item", { hasText: "pi" }).first().waitFor({ timeout: 30000 });
  });

  await step("calc.py opens in an editor", async () => {
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "calc.py" }).first().dblclick();
    await page.locator(".monaco-editor .view-lines", { hasText: "abs(a)" }).first().waitFor();
  });

  await step("command palette → pi: Open Chat shows the chat panel", async () => {
    await palette("pi: Open Chat");
    await web.locator("#input").waitFor({ timeout: 30000 });
    await web.locator("#model", { hasText: "openai/fake-model" }).waitFor({ timeout: 30000 });
  });

  await step("a prompt sent with Enter streams a reply with tool cards", async () => {
    await web.locator("#input").fill("please fix add");
    await web.locator("#input").press("Enter");
    await web.locator(".item.user", { hasText: "please fix add" }).waitFor({ timeout: 30000 });
    // the daemon's first model call imports litellm: 3 s idle, 20-40 s and more on a loaded machine
    await web.locator(".tool", { hasText: "read" }).first().waitFor({ timeout: 120000 });
  });

  await step("the bash permission is asked in the panel and allowed once", async () => {
    const box = web.locator("#permissions .permission");
    await box.waitFor({ timeout: 30000 });
    await page.screenshot({ path: join(shots, "ui-permission.png") });
    if (norm(await box.locator(".detail").textContent()) !== "echo tests pass") throw new Error("permission detail");
    await box.locator("button", { hasText: "Allow once" }).click();
    await web.locator(".item.assistant", { hasText: "no longer calls" }).waitFor({ timeout: 30000 });
    await web.locator(".tool.done", { hasText: "bash" }).waitFor();
  });

  await step("the edit is in the editor (unsaved), and the turn lists the changed file", async () => {
    await page.locator(".monaco-editor .view-lines", { hasText: "return a + b" }).first().waitFor({ timeout: 10000 });
    const text = norm(await page.locator(".monaco-editor .view-lines").first().textContent());
    if (text.includes("abs(a)")) throw new Error(`editor still shows abs: ${text}`);
    const disk = readFileSync(join(run.dirs.ws, "calc.py"), "utf8");
    if (!disk.includes("abs(a)")) throw new Error("the edit went to the disk, not (only) to the editor");
    await page.locator(".tab.dirty", { hasText: "calc.py" }).waitFor({ timeout: 5000 });
    await web.locator(".item.changes", { hasText: "calc.py" }).waitFor();
    await page.screenshot({ path: join(shots, "ui-chat.png") });
  });

  await step("the session tree shows the conversation", async () => {
    await palette("pi: Show Session Tree");
    const rows = page.locator("[id='workbench.view.extension.pi'] .monaco-list-row, .pane-body .monaco-list-row").filter({ hasText: "please fix add" });
    await rows.first().waitFor({ timeout: 15000 });
  });

  await step("Branch from here on an earlier message, summarizing the branch left, with a focus", async () => {
    const earlier = web.locator(".item.assistant", { hasText: "Reading first." });
    await earlier.hover();
    await earlier.locator(".actions button", { hasText: "Branch from here" }).click();
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "summarize the branch I leave" }).first().click();
    const input = page.locator(".quick-input-widget input");
    await page.locator(".quick-input-widget", { hasText: "Summary focus" }).waitFor();
    await input.fill("the fix");
    await page.keyboard.press("Enter");
    await web.locator(".item.branchSummary").waitFor({ timeout: 30000 });
    if (await web.locator(".item.assistant", { hasText: "no longer calls" }).count()) throw new Error("the left branch is still shown in the chat");
  });

  await step("the tree changed: a branch summary node, the old branch kept", async () => {
    // the leaf (●) is now the branch summary under the earlier message, which has 2 branches
    await page.locator(".monaco-list-row", { hasText: "branches" }).filter({ hasText: "Reading first." }).first().waitFor({ timeout: 15000 });
    const leaf = page.locator(".monaco-list-row", { has: page.locator(".codicon-circle-filled") });
    await leaf.first().waitFor({ timeout: 15000 });
    const leafText = norm(await leaf.first().textContent());
    if (/no longer calls|Reading first/.test(leafText)) throw new Error(`leaf row: ${leafText}`);
    // the branch left is still there, collapsed: it starts with the read tool's result
    await page.locator(".monaco-list-row[aria-expanded='false']", { hasText: "read:" }).first().waitFor({ timeout: 5000 });
    await page.screenshot({ path: join(shots, "ui-tree.png") });
  });

  const pane = (title) => page.locator(".pane", { has: page.locator(".pane-header", { hasText: title }) });
  const treeRow = (text) => pane("Session Tree").locator(".monaco-list-row").filter({ hasText: text }).first();
  /** Right-click a tree row and pick a context-menu entry, as a user. */
  const treeMenu = async (rowText, entry) => {
    await treeRow(rowText).click({ button: "right" });
    const item = page.locator(".context-view .action-item", { hasText: entry }).first();
    await item.waitFor({ timeout: 10000 });
    // the menu ignores a click that comes at once after it opened: hover first, then click
    await item.hover();
    await page.waitForTimeout(300);
    await item.click();
    await page.locator(".context-view .monaco-menu").waitFor({ state: "detached", timeout: 5000 });
  };

  await step("tree context menu → Label… on the user message: the badge shows", async () => {
    await treeMenu("please fix add", "Label…");
    await page.locator(".quick-input-widget", { hasText: "Bookmark text" }).waitFor();
    await page.locator(".quick-input-widget input").fill("the question");
    await page.keyboard.press("Enter");
    const row = treeRow("please fix add").filter({ hasText: "label: the question" });
    await row.waitFor({ timeout: 15000 });
    // the badge's icon is a codicon (the workbench's font), not an emoji that needs a system font
    await row.locator(".codicon-tag").waitFor({ timeout: 5000 });
    await row.screenshot({ path: join(shots, "ui-label.png") });
  });

  await step("tree context menu → Branch from Here… → Branch here: the leaf moves to that row", async () => {
    await treeMenu("Reading first.", "Branch from Here…");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Branch here" }).first().click();
    await pane("Session Tree").locator(".monaco-list-row", { has: page.locator(".codicon-circle-filled") }).filter({ hasText: "Reading first." }).first().waitFor({ timeout: 15000 });
    await web.locator(".item.assistant", { hasText: "Reading first." }).waitFor({ timeout: 15000 });
    if (await web.locator(".item.branchSummary").count()) throw new Error("the chat still shows the branch summary it left");
  });

  await step("tree context menu → Fork to New Session: a second session, the chat on it", async () => {
    const sessionRows = pane("Sessions").locator(".monaco-list-row");
    const before = await sessionRows.count();
    await treeMenu("Reading first.", "Fork to New Session");
    await sessionRows.nth(before).waitFor({ timeout: 15000 });
    await web.locator(".item.assistant", { hasText: "Reading first." }).waitFor({ timeout: 15000 });
  });

  await step("with the chat closed, a permission is a notification; Allow once runs the command; Ctrl+Alt+I reopens the chat", async () => {
    await page.locator(".tab", { hasText: /^pi/ }).first().click({ button: "middle" });
    await page.locator("iframe.webview.ready").waitFor({ state: "detached", timeout: 10000 });
    await palette("pi: Send Prompt…");
    await page.locator(".quick-input-widget", { hasText: "Message to the agent" }).waitFor();
    await page.locator(".quick-input-widget input").fill("run the tests");
    await page.keyboard.press("Enter");
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "pi wants to run: echo tests pass" });
    await toast.waitFor({ timeout: 30000 });
    await page.screenshot({ path: join(shots, "ui-notification.png") });
    await toast.locator(".monaco-button", { hasText: "Allow once" }).click();
    // the default keybinding opens the chat again (package.json: ctrl+alt+i)
    await page.locator(".monaco-editor .view-lines", { hasText: "return a + b" }).first().click();
    await page.keyboard.press("Control+Alt+KeyI");
    await web.locator(".tool.done", { hasText: "echo tests pass" }).waitFor({ timeout: 30000 });
    await web.locator(".item.assistant", { hasText: "no longer calls" }).waitFor({ timeout: 30000 });
  });

  await step("the user types in a file between the agent's read and its edit: the edit lands, the user's line stays", async () => {
    await palette("pi: New Session");
    await pane("Session Tree").getByText("This session has no entries yet").waitFor({ timeout: 15000 });
    await palette("View: Show Explorer");
    // open it in the first editor group (beside the chat, not behind it)
    await page.locator(".monaco-editor .view-lines", { hasText: "return a + b" }).first().click();
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "stale.py" }).first().dblclick();
    const editor = page.locator(".monaco-editor .view-lines", { hasText: "STALE_MARKER" }).first();
    await editor.waitFor();
    await palette("pi: Open Chat");
    await web.locator("#input").fill("typing during a turn");
    await web.locator("#input").press("Enter");
    await web.locator(".tool.done", { hasText: "stale.py" }).first().waitFor({ timeout: 30000 });
    // the model's next reply (the edit) is 5 s away: the user types in the file meanwhile
    await editor.click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("# mine");
    await web.locator(".item.assistant", { hasText: "Done with stale.py." }).waitFor({ timeout: 30000 });
    const card = web.locator(".tool.done", { hasText: "edit" });
    if (!/Successfully replaced/.test(norm(await card.locator(".output").textContent()))) throw new Error("edit card");
    const text = norm(await page.locator(".monaco-editor .view-lines", { hasText: "STALE_MARKER" }).first().textContent());
    if (!text.includes("STALE_MARKER = 2") || !text.includes("# mine")) throw new Error(`editor: ${text}`);
  });

  await step("no page errors in the workbench", async () => {
    const real = pageErrors.filter((e) => !/ResizeObserver|Canceled/.test(e));
    if (real.length) throw new Error(real.join("\n"));
  });
} finally {
  if (page && totals.failed) await page.screenshot({ path: join(shots, "ui-failure.png") }).catch(() => undefined);
  run.stop();
}
finish();
