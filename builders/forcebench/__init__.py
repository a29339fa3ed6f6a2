"""The ForceBench config drafted from AttributionBench's cited claims."""
