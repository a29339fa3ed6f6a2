"""Backends behind one protocol (:class:`~eviscope.runner.backends.base.Backend`).

Each backend module imports its engine lazily, inside the backend: importing this package pulls in
neither vLLM, torch nor httpx.
"""

BACKENDS: tuple[str, ...] = ("vllm", "openai", "transformers")
