"""One agent turn: models, the litellm provider, streaming, the loop, the agent session.

Plain Python: never imports pygls or lsprotocol, and never imports litellm at module level
(:mod:`pi_lsp.agent.llm` imports it lazily, off the event loop). Import from the modules.
"""
