"""EviScope (contract §1–§4): one SQuAD question, four evidence variants, quartet metrics.

Modules: ``rows`` (schema), ``dataset`` (loading a built config), ``squad_source``, ``predictions``
(reading prediction files), ``scoring`` and ``paired`` (metrics, McNemar and bootstrap), ``reports``
and ``error_export``, ``review`` (blind review sheets of conflict passages), ``reference_systems``,
``policies``, ``schemas``, ``parsing`` and ``task`` (what a run asks of a model and how a reply is
read), ``row_context`` and ``run_attribution`` (RAGONITE applied to EviScope rows and runs), and
``benchmark`` (its registry entry).
"""
