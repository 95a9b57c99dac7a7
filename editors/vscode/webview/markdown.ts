// Markdown for the chat: markdown-it (bundled; raw HTML off, so model output cannot inject
// markup) with a copy button on every code block. Fenced code is coloured by highlight.js,
// which arrives as its own script after the first paint (highlight.ts): until then a block is
// escaped text marked data-lang, and `highlightPending` colours the marked blocks once it is there.
import MarkdownIt from "markdown-it";

type Highlight = (code: string, lang: string) => string | null;
const highlighter = (): Highlight | undefined => (window as unknown as { piHighlight?: Highlight }).piHighlight;

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx];
  const lang = token.info.trim().split(/\s+/)[0] ?? "";
  const code = token.content;
  const hl = lang ? highlighter() : undefined;
  const coloured = hl ? hl(code, lang) : null;
  const body = coloured ?? md.utils.escapeHtml(code);
  const pending = lang && !hl ? ` data-lang="${md.utils.escapeHtml(lang)}"` : "";
  const cls = lang ? ` class="hljs language-${md.utils.escapeHtml(lang)}"` : ' class="hljs"';
  return `<div class="code"><button class="copy-code" title="Copy">Copy</button><pre><code${cls}${pending}>${body}</code></pre></div>`;
};

export function renderMarkdown(text: string): string {
  return md.render(text);
}

/** Colour the code blocks under `root` rendered before highlight.js arrived; false when it has not yet. */
export function highlightPending(root: ParentNode): boolean {
  const hl = highlighter();
  if (!hl) return false;
  for (const code of root.querySelectorAll<HTMLElement>("code[data-lang]")) {
    const html = hl(code.textContent ?? "", code.dataset.lang ?? "");
    if (html !== null) code.innerHTML = html;
    delete code.dataset.lang;
  }
  return true;
}
