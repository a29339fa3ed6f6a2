"""``eviscope release``: stage, validate and publish the hub release of the suite.

:mod:`~eviscope.release.stage` writes one folder per hub repository, :mod:`~eviscope.release.validate`
checks every folder before anything leaves the machine, and :mod:`~eviscope.release.push` uploads
what changed with ``HfApi``.
"""
