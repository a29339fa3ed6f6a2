"""EviScope suite: does a grounded language model respond to its evidence for the right reasons?"""

__version__ = "0.1.0"

DISTRIBUTION = "eviscope"
"""The suite's distribution name on PyPI (what a Space's ``requirements.txt`` installs), not a benchmark."""
