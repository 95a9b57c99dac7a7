// Code colouring for the chat (highlight.js, in the bundle): it is evaluated and its grammars
// registered only after the chat's first paint (`enableHighlighting`), so the first screen does
// not wait for them; then the blocks rendered before (marked data-lang by src/chat/markdown.ts)
// are coloured. The dynamic import() stays inside chat.js (esbuild inlines it without code
// splitting): it defers the evaluation, not a fetch. A second script would be fetched, and a
// webview closed while a script of its loads leaves VS Code's resource request pending for 30 s.
import { colourCode } from "../src/chat/markdown";

type Hljs = typeof import("highlight.js/lib/core").default;
let hljs: Hljs | null = null;

const colour = (code: string, lang: string): string | null =>
  hljs?.getLanguage(lang) ? hljs.highlight(code, { language: lang, ignoreIllegals: true }).value : null;

async function load(): Promise<Hljs> {
  const [core, ...langs] = await Promise.all([
    import("highlight.js/lib/core"),
    import("highlight.js/lib/languages/bash"), import("highlight.js/lib/languages/cpp"), import("highlight.js/lib/languages/css"),
    import("highlight.js/lib/languages/diff"), import("highlight.js/lib/languages/go"), import("highlight.js/lib/languages/java"),
    import("highlight.js/lib/languages/javascript"), import("highlight.js/lib/languages/json"), import("highlight.js/lib/languages/lua"),
    import("highlight.js/lib/languages/markdown"), import("highlight.js/lib/languages/python"), import("highlight.js/lib/languages/rust"),
    import("highlight.js/lib/languages/typescript"), import("highlight.js/lib/languages/xml"), import("highlight.js/lib/languages/yaml"),
  ]);
  const h = core.default;
  const names = ["bash", "cpp", "css", "diff", "go", "java", "javascript", "json", "lua", "markdown", "python", "rust", "typescript", "xml", "yaml"];
  names.forEach((name, i) => h.registerLanguage(name, langs[i].default));
  return h;
}

/** Register the grammars (once) and colour the code blocks under `root` rendered before. */
export async function enableHighlighting(root: ParentNode): Promise<void> {
  if (!hljs) {
    hljs = await load();
    hljs.registerAliases(["sh", "shell", "zsh"], { languageName: "bash" });
    hljs.registerAliases(["js", "jsx"], { languageName: "javascript" });
    hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
    hljs.registerAliases(["py"], { languageName: "python" });
    hljs.registerAliases(["html"], { languageName: "xml" });
    hljs.registerAliases(["c", "h", "hpp"], { languageName: "cpp" });
    colourCode(colour);
  }
  for (const code of root.querySelectorAll<HTMLElement>("code[data-lang]")) {
    const html = colour(code.textContent ?? "", code.dataset.lang ?? "");
    if (html !== null) code.innerHTML = html;
    delete code.dataset.lang;
  }
}
