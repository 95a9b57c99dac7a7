"""``make demo``: a scripted, offline coding-agent session (see ``pi_lsp/demo/__main__.py``)."""
