"""The LSP side of pi_lsp: the pygls protocol, the ``pi/…`` methods and lifecycle handlers.

The only package (with the demo's headless client) that may import pygls or lsprotocol;
everything it calls is plain Python in ``pi_lsp/daemon``, ``pi_lsp/agent`` and ``pi_lsp/session``.
``transport.serve_stdio`` and ``transport.serve_tcp`` are what ``pi-lsp`` runs.
"""
