"""The front end of ``@kiln.jit`` kernels, in layers: ``walker`` walks a
kernel's Python AST; ``ops`` are the language's functions and operators,
which decide types by ``kiln.semantics``' rules (shared with the
interpreter); ``ir`` builds the tile IR's text; ``values`` are the
front end's compile-time values."""
