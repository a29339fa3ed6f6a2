"""EviScope suite: does a grounded language model respond to its evidence for the right reasons?"""

__version__ = "0.1.0"
