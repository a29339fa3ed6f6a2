"""How every config of the EviScope dataset is made from its public source.

Installed as ``eviscope.builders``; ``eviscope build`` runs them (see ``registry``).
"""
