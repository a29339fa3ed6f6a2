"""``eviscope run``: batch a model over an EviScope or ForceBench config and write contract §3 predictions.

Modules: ``policies`` (versioned prompts and rendering), ``schemas`` (one JSON schema per task),
``parsing`` (the tolerant parser), ``backends`` (vLLM, OpenAI-compatible HTTP, transformers on CPU
behind one ``Backend`` protocol), ``store`` (the append-only journal and resume), ``accounting``
(tokens, calls, latency, cost), ``manifest`` (what a run was), and ``execute`` (the loop).
"""
