"""The toy benchmark (a test's, laid out as a real one): sums of two small numbers.

Its package (rows, task, scoring, the Space view, harness glue, lm-eval tasks, inspect-ai task, the
registry entry in ``benchmark``), its builder (``builders/toy/``) and its evaluate module
(``metrics/toy/``) stand where a new benchmark's would; ``tests/test_toy_benchmark.py`` puts them
there and shows which existing files a new benchmark changes.
"""
