// The chat webview outside VS Code, for its tests and its benchmark: media/chat.html served on
// 127.0.0.1 with its real CSP ('self' for script and styles), and Debian's chromium headless.
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const media = join(root, "media");
const { chatPage } = createRequire(import.meta.url)(join(root, "out-test", "page.js"));

/** Serves chat.html filled in by the extension's own builder (src/chat/page.ts, built to
 * out-test/page.js), chat.js and chat.css; `scripts` maps other paths to other builds of chat.js
 * (the benchmark compares two). `first(url)` may give the reset a page is created with (its first
 * screen then comes rendered in the HTML, as the extension does for a known session). */
export async function serveWebview(scripts = {}, first = () => null) {
  const template = readFileSync(join(media, "chat.html"), "utf8");
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const file = { "/chat.js": "chat.js", "/chat.css": "chat.css" }[url.pathname];
    if (scripts[url.pathname]) {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(readFileSync(scripts[url.pathname]));
    } else if (file) {
      res.writeHead(200, { "content-type": file.endsWith(".js") ? "text/javascript" : "text/css" });
      res.end(readFileSync(join(media, file)));
    } else {
      res.writeHead(200, { "content-type": "text/html" });
      const script = url.searchParams.get("script");
      const scriptUri = script && scripts[script] ? script : "/chat.js";
      res.end(chatPage(template, { cspSource: "'self'", scriptUri, styleUri: "/chat.css" }, first(url)));
    }
  }).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  return { base: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}
