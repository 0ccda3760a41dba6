"""Tool families: one module each. Every tool answers in JSON text, as a REST-backed tool would."""
