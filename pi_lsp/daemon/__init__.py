"""The daemon's domain side: open sessions, their event streams and views, workspace folders.

Plain Python like the rest of pi_lsp's core: no pygls, no lsprotocol. ``pi_lsp/protocol/`` maps
the ``pi/…`` JSON-RPC methods onto these classes.
"""
