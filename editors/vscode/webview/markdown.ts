// Markdown for the chat: markdown-it (bundled; raw HTML off, so model output cannot inject
// markup) with highlight.js for fenced code and a copy button on every code block. The grammars
// are registered only after the chat's first paint (`enableHighlighting`), so the first screen
// does not wait for them: until then a block is escaped text marked data-lang, and
// `enableHighlighting` colours the marked blocks. (In the bundle, not a second script: a webview
// closed while a script of its loads leaves VS Code's resource request pending for 30 s.)
import MarkdownIt from "markdown-it";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import lua from "highlight.js/lib/languages/lua";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

let highlighting = false;

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

/** Coloured HTML of `code`, or null (an unknown language, or before `enableHighlighting`). */
function colour(code: string, lang: string): string | null {
  return highlighting && hljs.getLanguage(lang) ? hljs.highlight(code, { language: lang, ignoreIllegals: true }).value : null;
}

md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx];
  const lang = token.info.trim().split(/\s+/)[0] ?? "";
  const code = token.content;
  const body = (lang && colour(code, lang)) ?? md.utils.escapeHtml(code);
  const pending = lang && !highlighting ? ` data-lang="${md.utils.escapeHtml(lang)}"` : "";
  const cls = lang ? ` class="hljs language-${md.utils.escapeHtml(lang)}"` : ' class="hljs"';
  return `<div class="code"><button class="copy-code" title="Copy">Copy</button><pre><code${cls}${pending}>${body}</code></pre></div>`;
};

export function renderMarkdown(text: string): string {
  return md.render(text);
}

/** Register the grammars (once) and colour the code blocks under `root` rendered before. */
export function enableHighlighting(root: ParentNode): void {
  if (!highlighting) {
    for (const [name, lang] of Object.entries({ bash, css, diff, go, java, javascript, json, lua, markdown, python, rust, typescript, xml, yaml, cpp })) {
      hljs.registerLanguage(name, lang);
    }
    hljs.registerAliases(["sh", "shell", "zsh"], { languageName: "bash" });
    hljs.registerAliases(["js", "jsx"], { languageName: "javascript" });
    hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
    hljs.registerAliases(["py"], { languageName: "python" });
    hljs.registerAliases(["html"], { languageName: "xml" });
    hljs.registerAliases(["c", "h", "hpp"], { languageName: "cpp" });
    highlighting = true;
  }
  for (const code of root.querySelectorAll<HTMLElement>("code[data-lang]")) {
    const html = colour(code.textContent ?? "", code.dataset.lang ?? "");
    if (html !== null) code.innerHTML = html;
    delete code.dataset.lang;
  }
}
