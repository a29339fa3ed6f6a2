"""One package per benchmark, each registered by one line of :data:`eviscope.core.registry.BENCHMARKS`.

Named ``suites`` so as not to clash with the repository's top-level ``benchmarks/`` (performance scripts).
"""
