"""The inspect-ai solver of every benchmark's tasks: ``generate()``, each request asking for its
sample's JSON schema (imports inspect-ai).

A sample keeps its request's schema in its metadata (:data:`eviscope.harness.data.SCHEMA_KEY`); the
task argument ``-T response_format=FORM`` sends it as the ``response_format`` field ``eviscope run
--backend openai`` sends (:func:`eviscope.runner.backends.openai_backend.response_format`), through
inspect's ``extra_body``: ``json_schema`` (OpenAI's form: vLLM serve, hosted chat APIs),
``json_object`` (llama-cpp-python's server) or ``none`` (the default: nothing sent). ``extra_body``
reaches only the OpenAI-compatible chat completions providers (``openai`` with ``-M
responses_api=false``, ``openai-api``, ``vllm``, ``llama-cpp-python``, ``sglang``); inspect's
``ResponseSchema`` is not used because its ``JSONSchema`` drops ``maxItems``, so the server would
get another schema than ``eviscope run`` sends. ``hf/…`` models take no schema at all.
"""

from __future__ import annotations

import json

from inspect_ai.solver import Generate, Solver, TaskState, solver

from eviscope.core.errors import EviScopeError
from eviscope.harness.data import SCHEMA_KEY
from eviscope.runner.backends.openai_backend import RESPONSE_FORMATS, response_format


@solver
def generate_with_schema(form: str = "none") -> Solver:
    """``generate()`` with the sample's schema as ``response_format`` in ``form`` (none: plain ``generate()``)."""
    if form not in RESPONSE_FORMATS:
        raise EviScopeError(f"-T response_format={form}: not one of {', '.join(RESPONSE_FORMATS)}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        field = response_format(form, json.loads(state.metadata[SCHEMA_KEY]))
        if field is None:
            return await generate(state)
        return await generate(state, extra_body={"response_format": field})

    return solve
