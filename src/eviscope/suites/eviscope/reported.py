"""What the EviScope paper reports, for the Space's leaderboard (``reported (paper)`` lines).

The paper (section 6, "Results", and its Table 3: "Main EviScope-v1.1 results") runs other models
than this repository can (Qwen2.5 7B Q4_K_M and Llama 3.1 8B through Ollama, Gemini 3.5 Flash
through its API) on its own 40 v1.1 quartets; its text gives only the cells below, and a column it
does not give is left empty, never filled in. Compare the shape, not the numbers.
"""

from __future__ import annotations

from eviscope.core.registry import Reported

__all__ = ["REPORTED"]

SOURCE = "EviScope paper, Table 3 and §6 (its own models and v1.1 quartets)"

REPORTED: tuple[Reported, ...] = tuple(
    Reported("eviscope-v1.1", system, SOURCE, line)
    for system, line in (
        ("Qwen2.5 7B Q4_K_M, vanilla", {"answer accuracy": 0.738, "ERS": 0.750, "NR": 0.675, "QCS": 0.500}),
        ("Qwen2.5 7B Q4_K_M, gate", {"answer accuracy": 0.738, "ERS": 0.150, "NR": 0.675, "QCS": 0.150}),
        ("Llama 3.1 8B, vanilla", {"answer accuracy": 0.700, "NR": 0.575, "CS": 0.550, "QCS": 0.375}),
        ("Llama 3.1 8B, gate", {"answer accuracy": 0.850, "NR": 0.775, "CS": 0.175, "QCS": 0.100}),
        ("Gemini 3.5 Flash, vanilla", {"joint success": 0.944, "NR": 0.900, "CS": 0.875, "QCS": 0.850}),
        ("Gemini 3.5 Flash, gate", {"joint success": 0.944, "NR": 0.900, "CS": 0.875, "QCS": 0.875}),
    )
)
"""The paper's figures, by the leaderboard's column names."""
