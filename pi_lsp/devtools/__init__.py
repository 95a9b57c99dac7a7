"""Developer tools that ship with pi_lsp: the scripted OpenAI-compatible server for tests and demos.

Nothing here is imported by the daemon; tests, ``make demo`` and editor tests start these tools.
"""
