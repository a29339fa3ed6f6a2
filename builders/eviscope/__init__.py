"""The EviScope configs from SQuAD v1.1 dev: answer typing, conflict edits and lints, quartets."""
