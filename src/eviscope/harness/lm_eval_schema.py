"""The lm-eval task class of every benchmark's tasks: each request carries its row's JSON schema.

lm-eval gives every request of a task the same ``generation_kwargs``; :class:`SchemaTask` adds the
request's own schema (contract §3: an EviScope row's names that row's doc ids, a ForceBench judge's is
the enum of its labels), read from the doc's ``schema`` column (written by the task's ``load``), in the
form ``--metadata '{"response_format": FORM}'`` names (:data:`FORMS`):

- ``json_schema`` (OpenAI's form: vLLM serve, hosted APIs) or ``json_object`` (llama-cpp-python's
  server): the ``response_format`` field ``eviscope run --backend openai`` sends
  (:func:`eviscope.runner.backends.openai_backend.response_format`). lm-eval passes it on only in
  the API models' payload (``local-chat-completions``, ``local-completions``).
- ``xgrammar`` (``--model hf``): an xgrammar logits processor for ``model.generate``, compiled as
  ``eviscope run --backend transformers`` compiles it; it needs the model's tokenizer, named by
  ``--metadata '{"tokenizer": "<the model folder or hub id>"}'`` (the ``pretrained`` of
  ``--model_args``).
- ``none`` (the default): nothing added; the prompt and the tolerant parser alone.
"""

from __future__ import annotations

import json
from typing import Any

from lm_eval.api.instance import Instance
from lm_eval.api.task import ConfigurableTask

from eviscope.core.errors import EviScopeError
from eviscope.harness.data import SCHEMA_KEY
from eviscope.runner.backends.openai_backend import RESPONSE_FORMATS, response_format
from eviscope.runner.backends.transformers_backend import grammar_compiler, schema_grammar

FORMS: tuple[str, ...] = (*RESPONSE_FORMATS, "xgrammar")
"""How a request asks for its schema (see the module docstring)."""


class GrammarLogits:
    """A ``generate`` logits processor that keeps the tokens to a compiled grammar.

    xgrammar's processor serves one ``generate`` call, and lm-eval deep-copies the generation
    kwargs of every batch: each copy is a fresh processor over the same compiled grammar."""

    def __init__(self, compiled: Any) -> None:
        self.compiled = compiled
        self._processor: Any = None

    def __deepcopy__(self, memo: dict[int, Any]) -> GrammarLogits:
        return GrammarLogits(self.compiled)

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self._processor is None:
            import xgrammar.contrib.hf

            self._processor = xgrammar.contrib.hf.LogitsProcessor(self.compiled)
        return self._processor(input_ids, scores)


class SchemaTask(ConfigurableTask):
    """A ``generate_until`` task whose every request asks for its doc's schema."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        # the YAML's `class:` key names this class; TaskConfig has no field for it
        super().__init__(config={k: v for k, v in (config or {}).items() if k != "class"})
        metadata = self.config.metadata or {}
        self.response_format = metadata.get("response_format", "none")
        if self.response_format not in FORMS:
            raise EviScopeError(
                f"{self.config.task}: --metadata response_format {self.response_format!r}: "
                f"not one of {', '.join(FORMS)}"
            )
        self._tokenizer = metadata.get("tokenizer")
        if self.response_format == "xgrammar" and not self._tokenizer:
            raise EviScopeError(
                f"{self.config.task}: --metadata response_format xgrammar needs the model's tokenizer: "
                'add "tokenizer": "<the pretrained of --model_args>"'
            )
        self._compiler: Any = None
        self._processors: dict[str, Any] = {}  # one per distinct schema, so equal ones batch together

    def _processor(self, schema: str) -> Any:
        from transformers import AutoConfig, AutoTokenizer, LogitsProcessorList

        if self._compiler is None:
            tokenizer = AutoTokenizer.from_pretrained(self._tokenizer)
            vocab_size = AutoConfig.from_pretrained(self._tokenizer).vocab_size
            self._compiler = grammar_compiler(tokenizer, vocab_size)
            if self._compiler is None:
                raise EviScopeError("--metadata response_format xgrammar: xgrammar is not installed")
        if schema not in self._processors:
            grammar = schema_grammar(self._compiler, json.loads(schema))
            self._processors[schema] = LogitsProcessorList([GrammarLogits(grammar)])
        return self._processors[schema]

    def _extra(self, schema: str) -> dict[str, Any]:
        if self.response_format == "xgrammar":
            return {"logits_processor": self._processor(schema)}
        field = response_format(self.response_format, json.loads(schema))
        return {} if field is None else {"response_format": field}

    def construct_requests(self, doc: dict, ctx: Any, **kwargs: Any) -> list[Instance] | Instance:
        made = super().construct_requests(doc, ctx, **kwargs)
        extra = self._extra(doc[SCHEMA_KEY])
        if extra:
            for instance in made if isinstance(made, list) else [made]:
                context, gen_kwargs, *rest = instance.arguments
                instance.arguments = (context, {**gen_kwargs, **extra}, *rest)
        return made
