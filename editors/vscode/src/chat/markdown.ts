// Markdown for the chat: markdown-it (raw HTML off, so model output cannot inject markup) with
// a copy button on every fenced code block. Pure, so the extension renders a panel's first page
// into its HTML with it and the webview renders everything after. Colouring is the webview's
// (webview/highlight.ts sets `colourCode` once its grammars are registered); until then a block
// is escaped text marked data-lang, which that module colours later.
import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

/** Coloured HTML of `code` in `lang`, or null (an unknown language); null until set. */
let colour: ((code: string, lang: string) => string | null) | null = null;

export function colourCode(fn: (code: string, lang: string) => string | null): void {
  colour = fn;
}

export const escapeHtml = (s: string): string => md.utils.escapeHtml(s);

md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx];
  const lang = token.info.trim().split(/\s+/)[0] ?? "";
  const code = token.content;
  const body = (lang && colour?.(code, lang)) || escapeHtml(code);
  const pending = lang && !colour ? ` data-lang="${escapeHtml(lang)}"` : "";
  const cls = lang ? ` class="hljs language-${escapeHtml(lang)}"` : ' class="hljs"';
  return `<div class="code"><button class="copy-code" title="Copy">Copy</button><pre><code${cls}${pending}>${body}</code></pre></div>`;
};

export function renderMarkdown(text: string): string {
  return md.render(text);
}
