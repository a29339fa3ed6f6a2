"""What the ForceBench paper reports, for the Space's leaderboard (``reported (paper)`` lines).

The paper's Table 2 ("Main MVR and FS on the 198-pair evaluation set") and Table 3 (the aggregate
prompt-rubric ablation, MVR given in percent) are on its own 198 adjudicated pairs, which have no
licensed controls: it reports MVR and FS only, so LPR and CPA are left empty.
"""

from __future__ import annotations

from eviscope.core.registry import Reported

__all__ = ["REPORTED"]

TABLE_2 = "ForceBench paper, Table 2 (its 198-pair evaluation set)"
TABLE_3 = "ForceBench paper, Table 3 (prompt-rubric ablation, 198 pairs)"

REPORTED: tuple[Reported, ...] = tuple(
    Reported("forcebench", system, source, {"MVR": mvr, "FS": fs})
    for system, source, mvr, fs in (
        ("citation presence", TABLE_2, 1.000, 0.000),
        ("token overlap", TABLE_2, 0.328, 0.066),
        ("entity overlap", TABLE_2, 0.364, 0.066),
        ("rule ForceCheck", TABLE_2, 0.298, 0.156),
        ("axis ForceCheck", TABLE_2, 0.232, 0.248),
        ("four-judge aggregate, generic support prompt", TABLE_2, 0.472, 0.333),
        ("four-judge aggregate, force-aware prompt", TABLE_2, 0.245, 0.754),
        ("four-judge aggregate, axis-free force prompt", TABLE_3, 0.245, 0.753),
        ("four-judge aggregate, dummy-axis control", TABLE_3, 0.509, 0.480),
    )
)
"""The paper's figures, by the leaderboard's column names."""
