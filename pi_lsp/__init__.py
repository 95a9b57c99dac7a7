"""pi_lsp: an editor backend (LSP daemon) whose agent memory is the pi coding agent's design."""

__version__ = "0.1.0"
