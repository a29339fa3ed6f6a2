"""The lm-eval task class of every benchmark's tasks: each request carries its row's JSON schema.

lm-eval gives every request of a task the same ``generation_kwargs``; :class:`SchemaTask` adds the
request's own ``response_format`` (contract §3: an EviScope row's schema names that row's doc ids, a
ForceBench judge's is the enum of its labels), read from the doc's ``schema`` column (canonical
JSON, written by the task's ``load``), in the form ``--metadata '{"response_format": FORM}'`` names:
``json_schema`` (OpenAI's form: vLLM serve, hosted APIs), ``json_object`` (llama-cpp-python's
server) or ``none`` (the default: nothing sent). The field is the one ``eviscope run --backend
openai`` sends (:func:`eviscope.runner.backends.openai_backend.response_format`). lm-eval passes it
through only in the API models' payload (``local-chat-completions``, ``local-completions``);
``hf`` and ``vllm`` would hand it to ``generate`` and fail, so leave it ``none`` with them.
"""

from __future__ import annotations

import json
from typing import Any

from lm_eval.api.instance import Instance
from lm_eval.api.task import ConfigurableTask

from eviscope.core.errors import EviScopeError
from eviscope.harness.data import SCHEMA_KEY
from eviscope.runner.backends.openai_backend import RESPONSE_FORMATS, response_format


class SchemaTask(ConfigurableTask):
    """A ``generate_until`` task whose every request asks for its doc's schema (``response_format``)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        # the YAML's `class:` key names this class; TaskConfig has no field for it
        super().__init__(config={k: v for k, v in (config or {}).items() if k != "class"})
        self.response_format = (self.config.metadata or {}).get("response_format", "none")
        if self.response_format not in RESPONSE_FORMATS:
            raise EviScopeError(
                f"{self.config.task}: --metadata response_format {self.response_format!r}: "
                f"not one of {', '.join(RESPONSE_FORMATS)}"
            )

    def construct_requests(self, doc: dict, ctx: Any, **kwargs: Any) -> list[Instance] | Instance:
        made = super().construct_requests(doc, ctx, **kwargs)
        field = response_format(self.response_format, json.loads(doc[SCHEMA_KEY]))
        if field is not None:
            for instance in made if isinstance(made, list) else [made]:
                context, gen_kwargs, *rest = instance.arguments
                instance.arguments = (context, {**gen_kwargs, "response_format": field}, *rest)
        return made
