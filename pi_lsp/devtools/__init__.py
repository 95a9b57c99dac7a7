"""Developer tools that ship with pi_lsp: the scripted OpenAI-compatible server, the test builders.

Nothing here is imported by the daemon; tests, benchmarks, ``make demo`` and editor tests use them:
``fake_openai`` (the server), ``fake_script`` (its script format and wire payloads), ``builders``
(messages, entries, clocks, ids, settings and client capabilities).
"""
