"""ForceBench (contract §5–§6): does a citation evaluator notice when a claim asks more than its evidence warrants?

Modules: ``rows`` (schema), ``patterns`` and ``lints`` (drafting rules and locality lints),
``scoring`` (MVR and FS), ``baselines`` and ``plots``, ``prompts`` (judge prompts and parser), and
``annotation`` (sheets, agreement, adjudication, capping and splits).
"""
