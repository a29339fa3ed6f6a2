"""The core that knows no benchmark: the registry, errors, paths, sources, text, io and statistics.

Nothing here imports a benchmark's package (``eviscope.suites.*``); ``tests/test_layering.py`` checks it.
"""
