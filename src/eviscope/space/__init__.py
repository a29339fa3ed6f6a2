"""The EviScope Space (issue 7): browse rows, submit predictions, leaderboard, annotation.

Every number comes from the library (``eviscope.suites.eviscope.predictions``, ``eviscope.suites.eviscope.scoring``,
``eviscope.suites.eviscope.paired``, ``eviscope.suites.forcebench``); this package only chooses what to show. Modules:
``data`` (where rows come from), ``browse`` (filters and the quartet and pair views),
``submissions`` (validation and scoring of an upload), ``leaderboard`` (the results store, tables,
plots and paired comparison), ``annotation`` (blinded double annotation), and the Gradio page:
``ui`` (``build_demo``: the page's layout), ``page`` (the state its tabs share) and one module per tab
(``browse_tab``, ``submit_tab``, ``leaderboard_tab``, ``annotate_tab``); these and ``metric_widget``
(the metric Spaces' page) are the only modules here that import gradio.
"""
