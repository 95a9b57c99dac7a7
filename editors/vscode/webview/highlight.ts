// highlight.js with the languages the chat colours, as its own script (media/highlight.js): the
// chat loads it after its first paint, so the first screen does not wait for 77 kB of grammars.
// It publishes one function, window.piHighlight(code, language) → HTML, or null for a language
// it does not know; code rendered before it arrived is coloured then (markdown.ts).
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

for (const [name, lang] of Object.entries({ bash, css, diff, go, java, javascript, json, lua, markdown, python, rust, typescript, xml, yaml, cpp })) {
  hljs.registerLanguage(name, lang);
}
hljs.registerAliases(["sh", "shell", "zsh"], { languageName: "bash" });
hljs.registerAliases(["js", "jsx"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["html"], { languageName: "xml" });
hljs.registerAliases(["c", "h", "hpp"], { languageName: "cpp" });

(window as unknown as { piHighlight: (code: string, lang: string) => string | null }).piHighlight = (code, lang) =>
  hljs.getLanguage(lang) ? hljs.highlight(code, { language: lang, ignoreIllegals: true }).value : null;
window.dispatchEvent(new Event("pi-highlight-ready"));
