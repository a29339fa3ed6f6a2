"""The `eviscope` subcommands only EviScope offers (each registered through `Benchmark.commands`)."""
