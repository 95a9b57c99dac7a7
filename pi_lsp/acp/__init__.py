"""The ACP face: ``pi-lsp --acp`` serves the Agent Client Protocol (v1) over stdio.

The only package that imports the ``acp`` SDK. It maps ACP's methods onto the same shared layer
the LSP face uses (:mod:`pi_lsp.daemon`: workspaces, live sessions and their event streams) and
pi's events onto ``session/update`` notifications. Nothing below it knows ACP exists.
"""
