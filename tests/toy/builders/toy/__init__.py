"""The toy benchmark's builder (``eviscope.builders.toy``)."""
